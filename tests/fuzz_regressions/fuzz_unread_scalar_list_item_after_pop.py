"""Fuzz regression: an unread scalar list item whose value came from ``np.dot``.

``s`` (made from ``np.dot(u, W)[1]``) sits in a list that is popped and never read again;
its cotangent reaches np.dot's rule (rules/helpers.py ``dot_vjp_a``) with the wrong shape:
``ValueError: shape-mismatch for sum``. The right gradient is 0.

Cause: ``split_cotangent`` gives ZERO for ``s``, never read; ``s *= ...``'s template kept it
ZERO, and np.dot's rule was run on it. Fixed: a cotangent that may be the symbolic ZERO at
run time (each item's cotangent split from a tuple's, list's or dict's) is now known to the
generator as one (s2sad/generate.py, ``maybe_zero``), so the reverse of the operation that
made the value runs under ``if d... is not ZERO:`` and no rule is handed a ZERO it cannot
read.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

CATEGORY = 'reverse-exception:ValueError:shape-mismatch for sum'
FEATURES = ('list-pop',)
OUTPUT = 'S'
DIRECTION_SEED = 573

def f(u, s):
    s *= np.dot(u, np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]))[1]
    L5 = [np.array([[0.5], [1.5]]), s, np.array([[0.5], [1.5]])]
    v6 = L5.pop()
    return np.mean(v6)


def inputs():
    return (np.array([0.7, -1.2]), -0.1)
