"""Fuzz regression: a product ``u @ W`` passed to a helper parameter the helper never uses.

The helper's pullback gives that parameter no cotangent, and the caller's reverse pass
still runs the matmul rule on it: ``matmul_vjp_x1`` (rules/helpers.py) gets a cotangent of
size 1 and raises ``ValueError: matmul: Input operand 1 has a mismatch in its core
dimension 0 ... (size 1 is different from 3)``. The right gradient is ``[1, 1]``.
(The same unused-parameter pattern breaks np.array's rule: fuzz_np_array_of_a_zero_cotangent.py.)

Cause: the helper's pullback returns ZERO for the unused parameter, and the caller's
generated code unpacked it into ``dmatmul`` and called the matmul rule on it. Fixed: a
cotangent that may be the symbolic ZERO at run time (every cotangent a pullback returns: a
transformed helper's, a method's, an rrule's) is now known to the generator as one
(s2sad/generate.py, ``maybe_zero``), so the reverse of the operation that made the value
runs under ``if d... is not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz, reduced by reduce.py and by hand.
"""
import math

import numpy as np

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
