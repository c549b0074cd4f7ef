"""Fuzz regression: np.concatenate's pullback, for a list item that is never read.

``L[0]`` is not used, so its cotangent is the symbolic ZeroTangent; np.concatenate's vjp
(rules/numpy_shapes.py, ``_split_along``) calls ``np.split`` on it: ``TypeError: object of
type 'ZeroTangent' has no len()``.

Found by tests/fuzz (``[np.concatenate([u, u[:1]]) for i in range(2)]``), reduced by reduce.py.
"""
import math

import numpy as np

XFAIL = "grad raises TypeError: object of type 'ZeroTangent' has no len() (np.concatenate's vjp, _split_along)"
CATEGORY = "reverse-exception:TypeError:object of type 'ZeroTangent' has no len()"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(u):
    items = [np.concatenate([u, u[:1]]) for i in range(2)]
    return np.sum(items[1])


def inputs():
    return (np.array([0.1, 0.2]),)
