"""Fuzz regression: an unread tuple item made by ``np.dot``.

Only ``p5[1]`` (a constant) is read; the cotangent of ``p5[0] = np.dot(W, x)`` is a zero that
reaches np.dot's rule with the wrong shape: ``ValueError: shape-mismatch for sum``
(rules/helpers.py ``dot_vjp_b``). The right gradient is 0.

Cause: ``split_cotangent`` gives ZERO for the unread item, and np.dot's rule was run on it.
Fixed: a cotangent that may be the symbolic ZERO at run time (each item's cotangent split
from a tuple's, list's or dict's) is now known to the generator as one (s2sad/generate.py,
``maybe_zero``), so the reverse of the operation that made the value runs under ``if d... is
not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

CATEGORY = 'reverse-exception:ValueError:shape-mismatch for sum'
FEATURES = ('tuple',)
OUTPUT = 'S'
DIRECTION_SEED = 3249

def f(x):
    p5 = (np.dot(np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]), x), np.array([0.7, 1.0, 2.0]))
    v1 = p5[1]
    return np.mean(v1) + np.sum(x)


def inputs():
    return (np.array([1.1, -0.7, -0.5]),)
