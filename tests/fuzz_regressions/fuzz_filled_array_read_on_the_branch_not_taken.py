"""Fuzz regression: an array filled in place and read only on the branch not taken.

``y[0] = np.dot(w, x)`` fills ``y``, which only the ``else`` branch reads; at these inputs
the ``if`` branch runs. The reverse pass still pulls ``y``'s cotangent back through the
``np.dot`` rule, with a value that is not a number: ``ValueError: setting an array element
with a sequence`` (rules/helpers.py ``unbroadcast`` from ``dot_vjp_b``). The right
gradient is ``cos(x)``; forward mode is right.

Cause: the branch not taken sets ``dy = ZERO``; ``y[0] = ...``'s reverse then gives the
written value the cotangent ``item_of(ZERO, 0)``, ZERO, which the generator did not know
could be ZERO and passed to ``dot_vjp_b``. Fixed: a cotangent that may be the symbolic ZERO
at run time (here the cotangent of what ``y[i] = v``, ``append`` or ``extend`` wrote, taken
from the container's) is now known to the generator as one (s2sad/generate.py,
``maybe_zero``), so the reverse of the operation that made the value runs under ``if d... is
not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz (a conditional expression), reduced by reduce.py and by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:ValueError:setting an array element with a sequence."
FEATURES = ("setitem", "if")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    y = np.zeros(3)
    y[0] = np.dot(np.array([0.5, -1.0, 1.5]), x)
    if np.sum(x) > 0.5:
        v = np.sin(x)
    else:
        v = y * 2.0
    return np.sum(v)


def inputs():
    return (np.array([0.4, 0.2, 0.3]),)
