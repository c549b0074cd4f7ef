"""A lambda holding a complex variable, differentiated twice (fuzzer, seed 1903).

A linear forward rule's reverse (``.T`` in forward code, read again for a Hessian) gave
NO_TANGENT ("no tangent space") rather than ZERO for its receiver's cotangent, and the code
after it read that as a number: TypeError in unbroadcast.
"""
import math

import numpy as np

CATEGORY = "second-exception:TypeError:operand 'NoTangent' does not support ufuncs (__array_ufunc__=None)"
FEATURES = ('add', 'alias-assign', 'div', 'fill-array', 'for-iterate', 'for-range', 'index', 'lambda', 'list-literal', 'matmul', 'mul', 'neg', 'np.array', 'np.empty', 'np.eye', 'np.mean', 'np.outer', 'np.sin', 'np.tanh', 'np.zeros', 'pow', 'setitem', 'slice', 'sub', 'transpose', 'tuple')
OUTPUT = 'S'
DIRECTION_SEED = 46601
import math
import numpy as np
import functools

def f(s):
    v2 = np.array([0.5, -1.0, 1.5])
    t8 = [np.tanh, lambda v: v * np.sin(s) + (s * np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]])).T @ np.array([0.25, 0.75])]
    v7 = v2
    for i10 in t8:
        v7 = i10(v7)
    t12 = [(np.outer(np.array([1.0, -0.5]), v7) @ np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]).T, np.array([s, -s]) / (1.0 + np.array([s, -s]) ** 2)), (np.eye(2), np.zeros(2, dtype=complex))]
    v11 = v2[::2]
    for W, b in t12:
        v11 = np.tanh(W @ v11 + b)
    y20 = np.zeros((3,))  # (the fuzzer wrote np.empty: its unset entries were read)
    for i21 in range(1):
        y20[i21] = v11[:, None][1, 0] - 0.5 * s
    return np.mean(y20)


def inputs():
    return ((-0.6+0.9j),)
