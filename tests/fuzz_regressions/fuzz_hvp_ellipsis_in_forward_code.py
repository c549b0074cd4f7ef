"""``x[..., 0]`` in a function differentiated twice.

Forward code writes the index as ``(Ellipsis, 0)``; read again for a Hessian, ``Ellipsis`` was
taken for a global of the module, which does not hold it: KeyError (fuzzer, seed 1801).
"""
import math

import numpy as np

CATEGORY = "second-exception:KeyError:'Ellipsis'"
FEATURES = ('index', 'list-literal', 'np.array', 'np.sum', 'tuple')
OUTPUT = 'S'
DIRECTION_SEED = 0


def f(s):
    v3 = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]])[..., 0]
    return np.sum(v3) * s * s


def inputs():
    return (0.13,)
