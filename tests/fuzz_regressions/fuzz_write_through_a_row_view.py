"""Fuzz regression: ``t = y[0]; t += s`` writes into row 0 of ``y`` (an integer index is a view too).

s2sad's value is NumPy's, but its pullback ignores the write: the derivative of ``sum(y)``
in ``s`` is silently 0, not 3.

Found by the user-idiom fuzzer (idiom ``view-write-row``), shrunk by hypothesis.

Fixed: an augmented assignment through a view while another name for the memory is read
after it is refused when the code runs, at its line (aliasing.py).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]])
    t = y[0]
    t += s
    return np.sum(y)


def inputs():
    return (0.4,)
