"""Fuzz regression: ``return`` in the first iteration of a ``while`` nested in another.

The inner ``while`` returns in its first iteration; the generated pullback then reads its
flag ``returned``, which was never bound on that path: ``UnboundLocalError: cannot access
local variable 'returned' where it is not associated with a value``. Forward mode is right.

Cause: the inner ``while`` reused the outer loop's names for the ``returned`` flag and the
result (s2sad/normalize.py ``reusable``), so the outer loop had no back edge for them and
did not count them as carried; its tape then saved ``returned`` under that very name, and
the pullback's ``for ..., returned, ... in reversed(tape)`` made it a local of the pullback,
read (for the code after the loop) before the loop bound it. Fixed: a loop never reuses the
name an enclosing loop carries a variable by (it copies it into a name of its own), so the
enclosing loop carries it and its tape saves it as ``..._before``.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:UnboundLocalError:cannot access local variable '<name>' where it is not associated with a value"
FEATURES = ('while', 'return-in-loop')
OUTPUT = 'S'
DIRECTION_SEED = 188

def f(s, A):
    k9 = 0
    while k9 < 3:
        acc10 = s / (2.0 + np.cos(A))
        k11 = 0
        while k11 < 2:
            return np.mean(acc10) + 0.5 * np.sin(s)
        s = np.tanh(s)
    return 2.0


def inputs():
    return (0.13, np.array([[-0.77, -0.27, -0.07], [-0.07, -0.07, -0.67]]))
