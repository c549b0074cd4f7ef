"""A loop over a list of pairs, one of them constant, differentiated twice.

Forward code keeps ZERO as the constant pair's tangent inside the list of tangents; read again
for a Hessian, the reverse of taking an item of it crashed (``Cannot interpret 'ZERO' as a data
type``, fuzzer seed 1802).
"""
import math

import numpy as np

CATEGORY = "second-exception:TypeError:Cannot interpret 'ZERO' as a data type"
FEATURES = ('add', 'fill-array', 'for-iterate', 'list-literal', 'neg', 'np.array', 'np.imag', 'np.sum', 'np.zeros',
            'slice', 'tuple')
OUTPUT = 'S'
DIRECTION_SEED = 12309


def f(u, s, c):
    t16 = [(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]), u[:, None]), (2, np.zeros(2, dtype=complex))]
    v15 = np.array([1.0, 0.5])
    for W, b in t16:
        v15 = v15 + b * s
    return np.imag(np.sum(v15))


def inputs():
    return (np.array([0.4j, (1.1-1j)]), (-0.4-0.9j), np.array([[(1.4-0.4j)], [(-1.5+0.7j)]]),)
