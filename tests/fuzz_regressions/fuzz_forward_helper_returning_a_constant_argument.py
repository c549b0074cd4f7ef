"""Fuzz regression: forward mode through a helper that returns its constant argument.

``helper`` returns ``h0``, a constant (no tangent), while ``h1`` is active. The tangent the
generated jvp of ``helper`` returns does not have ``h0``'s shape (it looks like ``h1``'s),
and ``jvp`` fails: ``ValueError: cannot broadcast a non-scalar to a scalar array``
(jacobians._shaped). The right tangent is 0; reverse mode gives 0.

Cause: the helper's jvp (with respect to ``h1`` only) returns ZERO for ``h0``, and ``np.dot``
made an object array of it; fixed in generate_forward: what a helper returns may be ZERO, so
``np.dot`` of it is guarded.

Found by tests/fuzz, reduced by reduce.py.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def helper(h0, h1):
    return h0


def f(u):
    v = helper(np.linspace(0.1, 0.9, 3), 1.5 + u)
    return np.dot(v, np.array([0.5, -1.0, 1.5]))


def inputs():
    return (np.array([0.1, 0.2]),)
