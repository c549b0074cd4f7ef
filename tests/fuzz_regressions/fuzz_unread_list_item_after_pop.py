"""Fuzz regression: the item left in a list after ``pop()``, never read.

``L4[0]`` (``c.T``) is never read; its cotangent goes back through the transpose to ``c``
and fails in the projection onto ``c``'s shape: ``ValueError: setting an array element
with a sequence``. The right gradient is 0 for ``c`` and ``[0, 1, 0]`` for ``x`` (``np.full(3, x)`` is ``x``). (With a
scalar item in the list, ``np.dot``'s rule fails instead: ``shape-mismatch for sum``, in
fuzz_unread_scalar_list_item_after_pop.py.)

Causes: ``split_cotangent`` gives ZERO for the item nobody reads and ``c.T``'s pullback was
run on it (returning it for ``c``). Fixed: a cotangent that may be the symbolic ZERO at run
time (each item's cotangent split from a tuple's, list's or dict's, and every cotangent a
pullback returns) is now known to the generator as one (s2sad/generate.py, ``maybe_zero``),
so the reverse of the operation that made the value runs under ``if d... is not ZERO:`` and
no rule is handed a ZERO it cannot read. A second bug showed once that was fixed: np.full's
(and np.full_like's) rule summed the whole cotangent into an array fill value (every entry
of ``x`` got 1); its cotangent is now ``unbroadcast(g, fill_value)``
(rules/numpy_shapes.py).

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

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
