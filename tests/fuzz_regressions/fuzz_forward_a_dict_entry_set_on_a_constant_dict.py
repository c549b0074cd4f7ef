"""Forward mode: an entry set on a dict of constants, then another entry read.

The dict's tangent was ZERO until ``d['c'] = ...`` made it ``{'c': ...}`` (tangent_setitem), and
the read of ``d['b']`` in forward code was a KeyError (found by the fuzzer with --scalars, seed
1903; first order, and second order through it). Now the tangent holds every key, ZERO where
nothing was written.
"""
import math

import numpy as np

CATEGORY = "forward-exception:KeyError:'b'"
FEATURES = ('dict', 'index', 'list-literal', 'np.array', 'np.full', 'np.ones', 'np.sum', 'setitem', 'tuple')
OUTPUT = 'S'
DIRECTION_SEED = 0
import math
import numpy as np
import functools
import scipy.special
import dataclasses

@dataclasses.dataclass
class Box:
    pass
import copy

def f(s, n):
    d4 = {'a': np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]), 'b': np.ones((2, 1))}
    d4['c'] = np.full((2, 3), s)
    acc17 = d4['b']
    return np.sum(acc17)


def inputs():
    return (0.2, 1,)
