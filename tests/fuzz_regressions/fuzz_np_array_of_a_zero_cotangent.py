"""Fuzz regression: np.array's pullback given a symbolic zero cotangent.

``helper`` does not use its second parameter, so the cotangent of
``np.array([s, 1.0, 2.0 * s])`` is ZERO; np.array's vjp (rules/numpy_shapes.py,
``_piece_like``) calls ``float()`` on it: ``TypeError: float() argument must be a string or
a real number, not 'ZeroTangent'``. Forward mode is right.

Cause: the helper's pullback returns ZERO for the unused parameter and np.array's rule was
run on it. Fixed: a cotangent that may be the symbolic ZERO at run time (every cotangent a
pullback returns) is now known to the generator as one (s2sad/generate.py, ``maybe_zero``),
so the reverse of the operation that made the value runs under ``if d... is not ZERO:`` and
no rule is handed a ZERO it cannot read.

Found by tests/fuzz, shrunk by hypothesis.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:TypeError:float() argument must be a string or a real number, not 'ZeroTangent'"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def helper(h0, h1):
    return np.sum(h0)


def f(s):
    return helper(s * np.array([0.5, -1.0, 1.5]), np.array([s, 1.0, 2.0 * s]))


def inputs():
    return (0.25,)
