"""Fuzz regression: two loops that may return, one after the other; the gradient was 0.

The ``while`` does not return (``-s < 0``); the ``for`` returns its first element, so the
gradient of ``<u, f>`` in ``x`` is ``[u, 0, 0]``. s2sad gave ``[0, 0, 0]``, silently.

Cause: the ``for`` loop carried the ``returned`` flag under the name the ``while`` had set
it by (normalize.py ``reusable``: nothing had read it as an operation's operand). But the
branch after the ``while`` had read it as its condition, and the reverse pass reads a
condition when the pullback runs: it found the ``for`` loop's ``True`` and took the path
where the ``while`` returned. Fixed: a version read as a branch's or loop's condition is
not reusable, so the second loop copies the flag into a name of its own.

Found by tests/fuzz (the long profile, seed 9090), shrunk by hypothesis.
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 0


def f(x, s):
    k1 = 0
    while k1 < 1:
        k1 = 1
        if np.negative(s) > 0.0:
            return x
    for e3 in x:
        return e3
    return 0.5


def inputs():
    return (np.array([0.13, 0.13, 0.13]), 0.13,)
