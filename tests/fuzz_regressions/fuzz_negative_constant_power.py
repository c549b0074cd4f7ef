"""Fuzz regression: a power of a parenthesised negative constant loses its parentheses.

``(-0.3) ** 2`` is 0.09, but the generated code computes ``-0.3 ** 2`` (-0.09): the
primal value, the gradient (reverse mode) and the tangent (forward mode) are all wrong.
The generated line reads ``neg0_3_pow_2 = -0.3 ** 2``.

Found by tests/fuzz (first as a grad-mismatch with ``np.arctan2(x, 1.5 + (-0.3) ** 2)``),
reduced by hand.
"""
import math

import numpy as np

XFAIL = "the generated code writes (-0.3) ** 2 as -0.3 ** 2: value -0.09 * s instead of 0.09 * s, gradient -0.09"
CATEGORY = ("value-mismatch", "grad-mismatch", "jvp-value-mismatch", "jvp-mismatch", "jvp-vjp-mismatch")
FEATURES = ("negative-constant-power",)
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    return s * (-0.3) ** 2


def inputs():
    return (1.5,)
