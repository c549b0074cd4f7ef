"""Fuzz regression: forward mode, a constant item of a tuple that also holds an argument.

``p1 = (constant, A)`` unpacked: the tangent of ``v2`` is the symbolic ZeroTangent, and the
pushforward calls ``np.sum`` on it: ``TypeError: operand 'ZeroTangent' does not support
ufuncs``. The right tangent is 0; reverse mode is right.

Cause: the generator did not know that an item of a tuple's tangent can be ZERO; fixed in
generate_forward: items of a tuple built in the function are known statically (a constant item
gets no tangent code at all), and items read from any other container tangent that may hold
ZERO are guarded.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 0

def f(A):
    p1 = (np.array([1.0, 0.5]), A)
    v2, v3 = p1
    return np.sum(v2) + np.sum(v3)


def inputs():
    return (np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]),)
