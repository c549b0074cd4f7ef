"""Fuzz regression: forward mode, the constant branch of a conditional expression, then ``@``.

``v1`` is the constant on the branch taken, so its tangent is a 0-d zero, and the
pushforward of ``(...) @ v1`` fails: ``ValueError: matmul: Input operand 0 does not have
enough dimensions``. Reverse mode is right (gradient ``-3 * [1, 1]``).

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

XFAIL = 'jvp raises ValueError: matmul: Input operand 0 does not have enough dimensions (a 0-d zero tangent)'
CATEGORY = 'forward-exception:ValueError:matmul: Input operand # does not have enough dimensions (has #, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires #)'
FEATURES = ('conditional-expression',)
OUTPUT = 'S'
DIRECTION_SEED = 5

def f(u):
    v1 = np.array([0.5, 1.0, 1.5]) if np.sum(u) > 0.0 else u
    y3 = np.zeros((2,))
    for i4 in range(1):
        y3[i4] = (v1 - np.sum(u)) @ v1
    return np.sum(y3)


def inputs():
    return (np.array([0.2, 0.1]),)
