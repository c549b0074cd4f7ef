"""Fuzz regression: an unread tuple item made by ``@``, in a loop.

``v3 = W @ x`` is unpacked from a tuple and never read; its zero cotangent reaches the
matmul rule (rules/helpers.py ``matmul_vjp_x2``) as a 0-d value: ``AxisError: axis -2 is out
of bounds for array of dimension 1``. The right gradient is 0 for ``x``, 1 for ``A``.

Cause: ``split_cotangent`` gives ZERO for the unread item, and matmul's rule was run on it.
Fixed: a cotangent that may be the symbolic ZERO at run time (each item's cotangent split
from a tuple's, list's or dict's) is now known to the generator as one (s2sad/generate.py,
``maybe_zero``), so the reverse of the operation that made the value runs under ``if d... is
not ZERO:`` and no rule is handed a ZERO it cannot read.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

CATEGORY = 'reverse-exception:AxisError:axis -# is out of bounds for array of dimension #'
FEATURES = ('tuple-unpack',)
OUTPUT = 'S'
DIRECTION_SEED = 0

def f(A, x):
    for i1 in range(1):
        p2 = (np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]) @ x, A)
        v3, v4 = p2
        A = v4
    return np.sum(A)


def inputs():
    return (np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]), np.array([0.1, -0.2, 0.3]))
