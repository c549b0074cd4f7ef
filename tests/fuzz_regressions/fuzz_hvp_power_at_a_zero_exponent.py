"""The second derivative of a power with a variable exponent at a zero exponent.

``power_jvp_base`` returned 0 wherever the exponent was 0, so its derivative in the exponent
was 0 there: hvp of ``sum((1.5 + u) ** u)`` at u = 0 gave log(1.5)**2 + 1/1.5 where it is
log(1.5)**2 + 2/1.5 (found by the fuzzer's second-order check, seed 1802).
"""
import math

import numpy as np

CATEGORY = "hvp-mismatch"
FEATURES = ('add', 'alias-assign', 'np.power', 'np.sum')
OUTPUT = 'S'
DIRECTION_SEED = 0


def f(u, c):
    u = np.power(1.5 + u, u)
    v2 = np.sum(u)
    v8 = v2
    return v8


def inputs():
    return (np.array([0.0, 1.1]), np.array([[0.0], [0.0]]),)
