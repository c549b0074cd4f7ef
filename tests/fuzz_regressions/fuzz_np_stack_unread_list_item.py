"""Fuzz regression: np.stack's pullback, for a list item that is never read.

The item left in the list after ``pop()`` gets a zero cotangent; np.stack's vjp fails on it:
``AxisError: source: axis 0 is out of bounds for array of dimension 0``.

Found by tests/fuzz, reduced by hand (the np.stack form of
fuzz_np_array_of_arrays_unread_list_item.py).
"""
import math

import numpy as np

XFAIL = "grad raises AxisError: source: axis 0 is out of bounds for array of dimension 0 (np.stack's vjp)"
CATEGORY = "reverse-exception:AxisError:source: axis # is out of bounds for array of dimension #"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(c):
    items = [np.stack([c, c]), np.stack([c, 2.0 * c])]
    last = items.pop()
    return np.sum(last)


def inputs():
    return (np.array([[0.1], [0.2]]),)
