"""Fuzz regression: a loop rebinding its iterable, in a branch not taken, left a name unbound in the pullback (fixed).

Found by tests/fuzz and shrunk by hypothesis. What the oracle reported:

    UnboundLocalError (raised in api.py:_pull): cannot access local variable 'dx' where it is not associated with a value
    (innermost frames: s2sad_f_2292129ebaf0abd51512bbd5.py:44:f_pullback <- api.py:174:_pull <- api.py:308:vjp_pullback <- oracle.py:349:check_function)
"""
import math

import numpy as np

CATEGORY = "reverse-exception:UnboundLocalError:cannot access local variable '<name>' where it is not associated with a value"
FEATURES = ('for-iterate', 'if', 'list-literal', 'loop-rebinds-iterable', 'np.array', 'np.outer', 'np.sum')
OUTPUT = 'U'
DIRECTION_SEED = 0
import math
import numpy as np

def f(x, u):
    if 0.7 > 0.0:
        v1 = np.outer(u, np.array([0.5, 1.0, 1.5]))
    else:
        for e3 in x:
            x = 0.5
        v1 = x
    return np.sum(v1, axis=1)


def inputs():
    return (np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.0]),)
