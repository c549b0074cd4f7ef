"""Fuzz regression (of the fuzzer's oracle): ``sin`` of a sum of fourth powers, a steep function.

The partial derivatives of ``sin(sum((0.5 + (2A)**2)**2))`` reach 100, so the fifth
derivatives reach ~1e10 and a finite difference with step 1e-3 is off by ~1e-3 relative.
s2sad was right (checked with mpmath); the oracle now makes the step smaller while the
estimate still moves.

Found by tests/fuzz (the long profile) as a grad-mismatch, shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

CATEGORY = 'grad-mismatch'
FEATURES = ()
OUTPUT = 'S'
DIRECTION_SEED = 298

def f(u, A, x, n):
    g1 = lambda z: 0.5 + z ** 2
    v2 = g1(A + A)
    v9 = np.sin(np.sum(v2 ** 2))
    return v9


def inputs():
    return (np.array([-0.5, 0.7]), np.array([[1.3, -0.1, -0.5], [0.3, 0.3, 0.6]]), np.array([-1.0, -0.3, 1.3]), 1)
