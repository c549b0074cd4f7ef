"""Fuzz regression: a branch merges a variable that a loop on one path never set.

The ``else`` path runs a ``while`` that returns in its first iteration, before ``z`` is
set. After the ``if``, the merge of ``z`` (a copy nobody reads) read ``z`` on that path:
``UnboundLocalError: cannot access local variable 'z'`` in the generated primal. Python
itself never reads ``z`` there, since nothing after the ``if`` uses it.

Cause: the generator wrote every merge copy whose target some copy read, and merges chain
(an inner branch's merge feeds the outer one's), so dead merges kept each other alive.
Fixed: a copy counts as reading its source only when its own target is read in turn
(s2sad/generate.py ``_names_read_by``), so dead merge copies are not written.

Found by tests/fuzz (the long profile), reduced by hand from a 40-line program.
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 190


def f(x):
    if x[0] > 0.0:
        y = 2.0 * x
    elif x[1] > 0.0:
        y = 3.0 * x
    else:
        k = 0
        while k < 3:
            k = k + 1
            if np.sum(x) < 10.0:
                return np.sum(x ** 2)
            z = np.sin(x)
            x = x + z
        y = x
    return np.sum(y * y)


def inputs():
    return (np.array([-0.5, -0.3, 1.2]),)
