"""Fuzz regression: a power of a parenthesised negative constant loses its parentheses.

``(-0.3) ** 2`` is 0.09, but the generated code computed ``-0.3 ** 2`` (-0.09): the
primal value, the gradient (reverse mode) and the tangent (forward mode) were all wrong.
The generated line read ``neg0_3_pow_2 = -0.3 ** 2``.

Found by tests/fuzz (first as a grad-mismatch with ``np.arctan2(x, 1.5 + (-0.3) ** 2)``),
reduced by hand. Fixed since (the generated line is now ``(-0.3) ** 2``): a regression test.
"""
import math

import numpy as np

CATEGORY = ("value-mismatch", "grad-mismatch", "jvp-value-mismatch", "jvp-mismatch", "jvp-vjp-mismatch")
FEATURES = ("negative-constant-power",)
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    return s * (-0.3) ** 2


def inputs():
    return (1.5,)
