"""Fuzz regression: ``t = y[::2]; t[0] = s`` writes into ``y``.

The slice is a view: NumPy's ``y[0]`` becomes ``s * s``; s2sad's value is NumPy's, but its
pullback ignores the write (``y[0]`` still ``0.5 * s`` for it): the gradient is silently wrong. Also through a constant array:
``v = W.copy(); t = v[1:]; t *= s; return np.sum(v)`` gets a zero gradient.

Found by the user-idiom fuzzer (idiom ``view-setitem``), shrunk by hypothesis, reduced by hand.
"""
import math

import numpy as np

XFAIL = "a setitem through a slice view (t = y[::2]; t[0] = s) does not reach y (wrong gradient)"
CATEGORY = ("value-mismatch", "grad-mismatch", "jvp-value-mismatch", "jvp-mismatch", "jvp-vjp-mismatch")
FEATURES = ("setitem", "slice")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = s * np.array([0.5, 1.0, 1.5])
    t = y[::2]
    t[0] = s * s
    return np.sum(y * y)


def inputs():
    return (0.7,)
