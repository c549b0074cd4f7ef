"""Fuzz regression: compile=True, a differentiated array parameter the value does not read.

The float version's compiled gradient served the call (its entry test named only the
parameters the value depends on) and gave the unread array the float 0.0, where the NumPy
path gives zeros of its shape: ``[1.0, 0.0, 0.0]`` against ``[1.0, 0.0, array([0., 0.])]``.

Found by the fuzzer's compile=True check on programs of arrays, shrunk by hypothesis.

Fixed: the float version's ACCEPTS requires every differentiated parameter it gives 0.0 to be
a Python float; such a call runs the NumPy path.
"""
import math

import numpy as np

CATEGORY = 'compiled-mismatch'
FEATURES = ('alias-assign',)
OUTPUT = 'S'
DIRECTION_SEED = 0


def f(s, t, u):
    v1 = s
    return v1


def inputs():
    return (0.0, 0.0, np.array([0.0, 0.0]),)
