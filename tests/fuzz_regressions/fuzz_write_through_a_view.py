"""Fuzz regression: an in-place write through a view changes the array it views.

``v = y[1:]; v *= 2.0`` doubles the last two entries of ``y`` in NumPy; s2sad's ``y`` is
unchanged, so the value and the gradient of ``sum(y ** 2)`` are silently wrong.

Found by the user-idiom fuzzer (idiom ``view-write``), reduced by hand.

Fixed: an augmented assignment through a view while another name for the memory is read
after it is refused when the code runs, at its line (aliasing.py).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    y = np.cos(x)
    v = y[1:]
    v *= 2.0
    return np.sum(y ** 2)


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
