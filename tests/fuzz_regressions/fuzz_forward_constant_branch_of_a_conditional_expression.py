"""Fuzz regression: forward mode, the constant branch of a conditional expression, then ``@``.

``v1`` is the constant on the branch taken, so its tangent is a 0-d zero, and the
pushforward of ``(...) @ v1`` fails: ``ValueError: matmul: Input operand 0 does not have
enough dimensions``. Reverse mode is right (gradient ``-3 * [1, 1]``).

Cause: ``dv1 - dsum`` added a tangent that is ZERO on one path to the 0-d tangent of the
broadcast operand, so the difference had the scalar's shape; fixed in generate_forward: an
elementwise rule whose operand's tangent may be ZERO has its tangent broadcast up to the
output's shape (``fit``), as when an operand has no tangent at all.

Found by tests/fuzz (the long profile), shrunk by hypothesis and reduce.py.
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 5

def f(u):
    v1 = np.array([0.5, 1.0, 1.5]) if np.sum(u) > 0.0 else u
    y3 = np.zeros((2,))
    for i4 in range(1):
        y3[i4] = (v1 - np.sum(u)) @ v1
    return np.sum(y3)


def inputs():
    return (np.array([0.2, 0.1]),)
