"""Fuzz regression: np.concatenate's pullback, for a list item that is never read.

``L[0]`` is not used, so its cotangent is the symbolic ZeroTangent; np.concatenate's vjp
(rules/numpy_shapes.py, ``_split_along``) calls ``np.split`` on it: ``TypeError: object of
type 'ZeroTangent' has no len()``.

Cause: ``split_cotangent`` gives ZERO for the list item nobody reads, and np.concatenate's
rule was run on it. Fixed: a cotangent that may be the symbolic ZERO at run time (each
item's cotangent split from a tuple's, list's or dict's) is now known to the generator as
one (s2sad/generate.py, ``maybe_zero``), so the reverse of the operation that made the value
runs under ``if d... is not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz (``[np.concatenate([u, u[:1]]) for i in range(2)]``), reduced by reduce.py.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:TypeError:object of type 'ZeroTangent' has no len()"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(u):
    items = [np.concatenate([u, u[:1]]) for i in range(2)]
    return np.sum(items[1])


def inputs():
    return (np.array([0.1, 0.2]),)
