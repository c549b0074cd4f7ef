"""Fuzz regression: an in-place write through ``reshape(-1)`` (a view) changes the array.

``t = y.reshape(-1); t[1:3] += s`` adds ``s`` to two entries of ``y`` in NumPy; s2sad's
value is NumPy's, but its pullback (and its tangent) ignore the write: the derivative of
``sum(y)`` in ``s`` is silently 0, not 2.

Found by the user-idiom fuzzer (idiom ``view-write-reshape``), shrunk by hypothesis,
reduced by hand.
"""
import math

import numpy as np

XFAIL = "a write through a reshaped view (t = y.reshape(-1); t[1:3] += s) does not reach y (wrong gradient)"
CATEGORY = ("value-mismatch", "grad-mismatch", "jvp-value-mismatch", "jvp-mismatch", "jvp-vjp-mismatch")
FEATURES = ("aug-setitem", "ndarray.reshape")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]) * np.cos(s)
    t = y.reshape(-1)
    t[1:3] += s
    return np.sum(y)


def inputs():
    return (0.3,)
