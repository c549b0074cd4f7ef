"""Fuzz regression: ``np.reshape(u, (2, 1))`` passed to a helper parameter it never uses.

As in fuzz_matmul_result_passed_to_an_unused_parameter.py: the cotangent the caller's
reverse pass gets for the unused parameter has size 1, and np.reshape's rule reshapes it
back to ``u``'s shape: ``ValueError: cannot reshape array of size 1 into shape (2,)``.
The right gradient is ``[1, 1]``; forward mode is right.

Found by tests/fuzz, reduced by reduce.py.
"""
import math

import numpy as np

XFAIL = "grad raises ValueError: cannot reshape array of size 1 into shape (2,) (the unused parameter's cotangent)"
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
