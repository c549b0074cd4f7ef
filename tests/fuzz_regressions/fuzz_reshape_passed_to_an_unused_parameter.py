"""Fuzz regression: ``np.reshape(u, (2, 1))`` passed to a helper parameter it never uses.

As in fuzz_matmul_result_passed_to_an_unused_parameter.py: the cotangent the caller's
reverse pass gets for the unused parameter has size 1, and np.reshape's rule reshapes it
back to ``u``'s shape: ``ValueError: cannot reshape array of size 1 into shape (2,)``.
The right gradient is ``[1, 1]``; forward mode is right.

Cause: as in fuzz_matmul_result_passed_to_an_unused_parameter.py, the helper's pullback
returns ZERO for the unused parameter and np.reshape's rule was run on it. Fixed: a
cotangent that may be the symbolic ZERO at run time (every cotangent a pullback returns) is
now known to the generator as one (s2sad/generate.py, ``maybe_zero``), so the reverse of the
operation that made the value runs under ``if d... is not ZERO:`` and no rule is handed a
ZERO it cannot read.

Found by tests/fuzz, reduced by reduce.py.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:ValueError:cannot reshape array of size # into shape (#,)"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def helper(h0, h1):
    return np.sum(h0)


def f(u):
    return helper(u, np.reshape(u, (2, 1)))


def inputs():
    return (np.array([0.1, 0.0]),)
