"""Fuzz regression: np.stack's pullback, for a list item that is never read.

The item left in the list after ``pop()`` gets a zero cotangent; np.stack's vjp fails on it:
``AxisError: source: axis 0 is out of bounds for array of dimension 0``.

Cause: ``split_cotangent`` gives ZERO for the list item nobody reads, and np.stack's rule
was run on it. Fixed: a cotangent that may be the symbolic ZERO at run time (each item's
cotangent split from a tuple's, list's or dict's) is now known to the generator as one
(s2sad/generate.py, ``maybe_zero``), so the reverse of the operation that made the value
runs under ``if d... is not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz, reduced by hand (the np.stack form of
fuzz_np_array_of_arrays_unread_list_item.py).
"""
import math

import numpy as np

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
