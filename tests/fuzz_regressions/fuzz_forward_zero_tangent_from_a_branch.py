"""Fuzz regression: forward mode, a variable constant on one branch and active on the other.

When the branch taken assigns a constant (tangent ZERO) to ``y`` and the other branch an
active value, the generated pushforward passes the symbolic ZeroTangent to ``np.sum``:
``TypeError: operand 'ZeroTangent' does not support ufuncs``. Reverse mode is right.

Found by tests/fuzz, shrunk by hypothesis, reduced by hand.
"""
import math

import numpy as np

CATEGORY = "forward-exception:TypeError:operand 'ZeroTangent' does not support ufuncs (__array_ufunc__=None)"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    if np.sin(s) > 0.0:
        y = np.array([0.5, -1.0, 1.5])
    else:
        y = s * np.array([0.5, -1.0, 1.5])
    return np.sum(y) + s


def inputs():
    return (0.13,)
