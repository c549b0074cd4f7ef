"""Fuzz regression: forward mode through a helper that returns a constant.

``helper`` returns ``1.0`` whatever its argument: its generated jvp gives the symbolic
ZeroTangent as the tangent of ``v``, and the caller's pushforward calls ``np.sum`` on it:
``TypeError: operand 'ZeroTangent' does not support ufuncs`` (a ZERO guard is missing
after a helper call; the branch case of fuzz_forward_zero_tangent_from_a_branch.py is
fixed). The right tangent is 1; reverse mode is right.

Cause: the tangent a helper's jvp returns was taken to be a value; fixed in generate_forward:
it may be ZERO (and so may its items), so the rule calls reading it are guarded.

Found by tests/fuzz, reduced by reduce.py and by hand.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def helper(h0):
    return 1.0


def f(s):
    v = helper(s)
    return np.sum(v) + s


def inputs():
    return (0.3,)
