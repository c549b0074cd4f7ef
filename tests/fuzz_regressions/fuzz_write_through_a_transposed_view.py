"""Fuzz regression: an in-place write through ``.T`` (a view) changes the array it views.

``t = y.T; t[0] *= s`` scales the first column of ``y`` in NumPy; s2sad's value is
NumPy's, but its pullback ignores the write: the gradient of ``sum(y)`` in ``s`` is silently 0,
and the one in ``x`` misses the factor ``s`` (found as
``t5 = v4.T; t5[0] *= np.sum(x)``).

Found by the user-idiom fuzzer (idiom ``view-write-transpose``), shrunk by hypothesis,
reduced by hand.

Fixed: a write through a view while another name for the memory is read after it is refused
at its line (aliasing.py).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s):
    y = np.tanh(x)
    t = y.T
    t[0] *= s
    return np.sum(y)


def inputs():
    return (np.array([[0.3, -0.7, 1.1], [0.2, 0.5, -0.4]]), 0.6)
