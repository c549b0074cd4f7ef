"""Fuzz regression: an overflow that np.tanh saturates gives a NaN jvp.

``(1.5 + A) ** v1`` with ``v1`` about 1,100 overflows to inf; ``np.tanh`` of the sum is
1.0, so the value does not move (finite differences: 0), but the jvp's ``(1 - tanh**2) *
inf`` is NaN.

Found by the user-idiom fuzzer (seed 20261125, 1 of 20,000 programs), shrunk by hypothesis.

Fixed: a NaN derivative of a finite value (with finite seeds) is refused with a
NonFiniteDerivativeError naming the function (s2sad/finiteness.py).
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 0
import math
import numpy as np

def f(u, A, B):
    v1 = np.abs((1.5 + np.sum(u)) ** np.sum(A) * 2j) ** 2
    L9 = []
    for i10 in range(1):
        L9.append(np.sum((1.5 + A) ** v1))
    v12 = sum((np.tanh(item) for item in L9))
    return v12


def inputs():
    return (np.array([0.31, 0.31]), np.array([[0.31, 0.81, 0.31], [0.31, 1.71, 0.31]]), np.array([[0.31, 0.31, 0.31], [0.31, 0.31, 0.31]]),)
