"""Fuzz regression: an item of a tuple that is unpacked but never read.

``v11`` (``np.inner(w, x)``, active) is never read, so its cotangent is a zero; on the way
back to ``x`` it reaches the projection onto ``x``'s shape as something that is not an
array of numbers: ``ValueError: setting an array element with a sequence``
(projection._project_array). The right gradient is 0 (``f`` returns a constant element).
Unread list items fail the same way (fuzz_unread_list_item_after_pop.py) or in the rule of
whatever made them (fuzz_np_*_unread_list_item.py).

Cause: ``split_cotangent`` gives ZERO for the unread item, and np.inner's rule was run on
it. Fixed: a cotangent that may be the symbolic ZERO at run time (each item's cotangent
split from a tuple's, list's or dict's) is now known to the generator as one
(s2sad/generate.py, ``maybe_zero``), so the reverse of the operation that made the value
runs under ``if d... is not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

CATEGORY = 'reverse-exception:ValueError:setting an array element with a sequence.'
FEATURES = ('tuple-unpack',)
OUTPUT = 'S'
DIRECTION_SEED = 332

def f(x):
    y1 = np.zeros((2, 3))
    p10 = (np.inner(np.linspace(0.1, 0.9, 3), x), y1)
    v11, v12 = p10
    return v12[0][1] + np.sum(x)


def inputs():
    return (np.array([0.0, -1.0, -1.5]),)
