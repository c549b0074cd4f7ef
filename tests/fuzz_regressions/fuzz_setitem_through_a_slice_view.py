"""Fuzz regression: ``t = y[::2]; t[0] = s`` writes into ``y``.

The slice is a view: NumPy's ``y[0]`` becomes ``s * s``; s2sad's value is NumPy's, but its
pullback ignores the write (``y[0]`` still ``0.5 * s`` for it): the gradient is silently wrong. Also through a constant array:
``v = W.copy(); t = v[1:]; t *= s; return np.sum(v)`` gets a zero gradient.

Found by the user-idiom fuzzer (idiom ``view-setitem``), shrunk by hypothesis, reduced by hand.

Fixed: a write through a view while another name for the memory is read after it is refused
at its line (aliasing.py).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = s * np.array([0.5, 1.0, 1.5])
    t = y[::2]
    t[0] = s * s
    return np.sum(y * y)


def inputs():
    return (0.7,)
