"""Fuzz regression: ``y[[0, 2, 2]] += x`` with a repeated index.

NumPy buffers the fancy ``+=``: ``y[2]`` gets ``x[2]`` (the last write wins), ``x[1]`` is
lost. s2sad's pullback sends the cotangent of ``y[2]`` to both ``x[1]`` and ``x[2]``: the
gradient in ``x[1]`` is silently wrong (the value is right).

Found by the user-idiom fuzzer (idiom ``fancy-aug-repeated``), reduced by hand.

Fixed: the reverse pass of `y[idx] = v` sends the cotangent only to the write NumPy kept for
each element (helpers.written_item_of).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    y = np.zeros(3)
    y[[0, 2, 2]] += x
    return np.sum(y * np.cos(y))


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
