"""Fuzz regression: an in-place write through ``reshape(-1)`` (a view) changes the array.

``t = y.reshape(-1); t[1:3] += s`` adds ``s`` to two entries of ``y`` in NumPy; s2sad's
value is NumPy's, but its pullback (and its tangent) ignore the write: the derivative of
``sum(y)`` in ``s`` is silently 0, not 2.

Found by the user-idiom fuzzer (idiom ``view-write-reshape``), shrunk by hypothesis,
reduced by hand.

Fixed: a write through a view while another name for the memory is read after it is refused
at its line (aliasing.py).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]) * np.cos(s)
    t = y.reshape(-1)
    t[1:3] += s
    return np.sum(y)


def inputs():
    return (0.3,)
