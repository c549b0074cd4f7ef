"""Fuzz regression: forward mode through a helper returning a constant array (np.trace).

``helper`` ignores its arguments (one of them active: ``scale=u``) and returns a constant
2x3 array. The tangent the caller gets for it is not an array of that shape, and np.trace's
forward rule fails on it: ``ValueError: diag requires an array of at least two dimensions``.
The right tangent is 0; reverse mode is right.

The ``np.sum`` case is fuzz_forward_helper_returning_a_constant.py: any forward-mode
exception in a program whose helper had an unused parameter was counted as this family
while the bug was open.

Cause: the helper's tangent is ZERO and reached ``np.trace``'s rule unguarded; fixed in
generate_forward: what a helper returns may be ZERO, so the rule calls reading it are guarded.

Found by tests/fuzz (the long profile), shrunk by hypothesis, reduced by hand.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 2557


def helper(h0, scale=0.5):
    return np.stack([np.array([1.0, 0.5, 0.5]), np.array([0.25, 1.0, 2.0])])


def f(u):
    v = helper(0.3, scale=u)
    return np.trace(v) + np.sum(u)


def inputs():
    return (np.array([0.53, -0.27]),)
