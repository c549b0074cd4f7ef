"""Fuzz regression: a parameter a loop carries on the branch not taken; its cotangent unbound.

The ``if`` returns on its first path; the other path's ``while`` carries ``u`` under the
parameter's own name. The pullback's first path did not set ``du``, so ``return ..., du``
raised ``UnboundLocalError: cannot access local variable 'du'``.

Cause: the reverse branch set a cotangent to ZERO on the path that did not assign it only
when its value came from before the branch, and took ``u`` for a value made inside the
branch because the loop assigns it there. Fixed: a value counts as made inside the branch
only if it is not a parameter and every assignment of it is inside (generate.py
``reverse_branch``).

Found by tests/fuzz (the long profile, seed 9090), shrunk by hypothesis; ``k5`` is never
bound, but the loop is never reached either.
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 340


def f(c, u, w, n):
    if 0.7 > 0.0:
        return np.sum(w)
    while k5 < 1:
        k5 = k5
        y6 = np.zeros((2,))
        u = y6
    return u.sum()


def inputs():
    return (np.array([[0.3], [-0.3]]), np.array([-1.0, 0.4]), np.array([1.0, -0.6]), 1,)
