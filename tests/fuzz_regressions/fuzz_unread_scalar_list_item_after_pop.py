"""Fuzz regression: an unread scalar list item whose value came from ``np.dot``.

``s`` (made from ``np.dot(u, W)[1]``) sits in a list that is popped and never read again;
its cotangent reaches np.dot's rule (rules/helpers.py ``dot_vjp_a``) with the wrong shape:
``ValueError: shape-mismatch for sum``. The right gradient is 0.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

XFAIL = "grad raises ValueError: shape-mismatch for sum (dot_vjp_a, the unread item's cotangent)"
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
