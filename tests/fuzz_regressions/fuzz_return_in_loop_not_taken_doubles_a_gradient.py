"""Fuzz regression: a loop with a `return` that is not taken; the gradient of ``s`` doubles.

At ``s = -1.2`` the branch ``if y4[i6] - s > 0.0`` is not taken, the loop ends and ``f``
returns ``acc5``, the argument ``s`` as it was before the loop rebound ``s``: the gradient
of ``<u, f>`` is ``u`` (0.899), s2sad gives ``2 u`` (1.798). Forward mode is right, so
<u, J v> differs both ways. Every statement left is needed (reduce.py could not remove
any); simpler programs with the same parts (an alias of ``s`` kept across a loop that
rebinds ``s`` and returns early on another path) give the right gradient.

The cause: merging the result of the two branches renamed a merge copy into
``result = result``, which the reverse pass read as ``dresult += dresult``. Renaming now
drops such self-copies.

Found by tests/fuzz (short profile, seed 20261122), reduced by reduce.py.
"""
import math

import numpy as np

CATEGORY = ("grad-mismatch", "jvp-vjp-mismatch")
FEATURES = ("return-in-loop",)
OUTPUT = "S"
DIRECTION_SEED = 12882


def f(s, c):
    y1 = np.array([0.25, 0.75]).copy()
    v2 = c.ravel()
    if s > 0.0:
        return c
    y4 = y1.copy()
    acc5 = s
    for i6 in range(1):
        acc7 = np.outer(np.array([1.0, -0.5]), y4)
        s = s * (0.5 * s)
        if y4[i6] - s > 0.0:
            return 0.5 * np.mean(np.add(s, acc5)) + 2.0 * np.sum(acc7 ** 2) + 0.5 * (y1 @ v2)
    return acc5


def inputs():
    return (-1.2, np.array([[-1.5], [0.9]]))
