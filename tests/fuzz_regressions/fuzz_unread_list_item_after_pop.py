"""Fuzz regression: the item left in a list after ``pop()``, never read.

``L4[0]`` (``c.T``) is never read; its cotangent goes back through the transpose to ``c``
and fails in the projection onto ``c``'s shape: ``ValueError: setting an array element
with a sequence``. The right gradient is 0 for ``c`` and ``[0, 1, 0]`` for ``x`` (``np.full(3, x)`` is ``x``). (With a
scalar item in the list, ``np.dot``'s rule fails instead: ``shape-mismatch for sum``, in
fuzz_unread_scalar_list_item_after_pop.py.)

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

XFAIL = "grad raises ValueError: setting an array element with a sequence (the unread item's cotangent)"
CATEGORY = 'reverse-exception:ValueError:setting an array element with a sequence.'
FEATURES = ('list-pop',)
OUTPUT = 'S'
DIRECTION_SEED = 1569

def f(c, x):
    L4 = [c.T, np.full(3, x)]
    v5 = L4.pop()
    return v5[1]


def inputs():
    return (np.array([[-0.1], [0.7]]), np.array([1.2, 0.8, 0.2]))
