"""Fuzz regression: a product ``u @ W`` passed to a helper parameter the helper never uses.

The helper's pullback gives that parameter no cotangent, and the caller's reverse pass
still runs the matmul rule on it: ``matmul_vjp_x1`` (rules/helpers.py) gets a cotangent of
size 1 and raises ``ValueError: matmul: Input operand 1 has a mismatch in its core
dimension 0 ... (size 1 is different from 3)``. The right gradient is ``[1, 1]``.
(The same unused-parameter pattern breaks np.array's rule: fuzz_np_array_of_a_zero_cotangent.py.)

Found by tests/fuzz, reduced by reduce.py and by hand.
"""
import math

import numpy as np

XFAIL = "grad raises ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0 (matmul_vjp_x1)"
CATEGORY = "reverse-exception:ValueError:matmul: Input operand # has a mismatch in its core dimension #, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size # is different from #)"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def helper(h0, h1):
    return np.sum(h1)


def f(u):
    return helper(u @ np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]), u)


def inputs():
    return (np.array([-0.4, 0.6]),)
