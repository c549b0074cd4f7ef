"""Fuzz regression: np.array's pullback, for a list item that is never read.

``L[0]`` is not used, so its cotangent is a zero; np.array's vjp (rules/numpy_shapes.py,
``_piece_like``) reshapes that zero to the pieces' shape (2, 1): ``ValueError: cannot
reshape array of size 1 into shape (2,1)``. (``np.sum(np.array([c, c]))`` alone is fine.)

Cause: ``split_cotangent`` gives ZERO for the list item nobody reads, and np.array's rule
was run on it. Fixed: a cotangent that may be the symbolic ZERO at run time (each item's
cotangent split from a tuple's, list's or dict's) is now known to the generator as one
(s2sad/generate.py, ``maybe_zero``), so the reverse of the operation that made the value
runs under ``if d... is not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz (a list of np.array(...) values, one popped), reduced by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:ValueError:cannot reshape array of size # into shape (#,#)"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(c):
    items = [np.array([c, c]), np.array([c, 2.0 * c])]
    return np.sum(items[1])


def inputs():
    return (np.array([[0.1], [0.2]]),)
