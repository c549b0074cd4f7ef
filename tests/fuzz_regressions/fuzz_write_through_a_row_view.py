"""Fuzz regression: ``t = y[0]; t += s`` writes into row 0 of ``y`` (an integer index is a view too).

s2sad's value is NumPy's, but its pullback ignores the write: the derivative of ``sum(y)``
in ``s`` is silently 0, not 3.

Found by the user-idiom fuzzer (idiom ``view-write-row``), shrunk by hypothesis.
"""
import math

import numpy as np

XFAIL = "a write through a row view (t = y[0]; t += s) does not reach y (wrong gradient)"
CATEGORY = ("value-mismatch", "grad-mismatch", "jvp-value-mismatch", "jvp-mismatch", "jvp-vjp-mismatch")
FEATURES = ("augmented-assignment", "index")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]])
    t = y[0]
    t += s
    return np.sum(y)


def inputs():
    return (0.4,)
