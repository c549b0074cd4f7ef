"""Fuzz regression: forward mode read a constant item of a tuple held in a list as a number.

``p = [(2, s), (2, u)]`` then ``for i, (W, b) in enumerate(p): np.sum(W)``: the list's items
have tangents (tuples), but their first items are ZERO. The forward code took the list's items'
items for numbers, and ``np.sum`` of the ZERO tangent raised ``operand 'ZeroTangent' does not
support ufuncs`` (jvp and hvp).

Found by the fuzzer (seed 2311), shrunk by hypothesis.

Fixed: a container's "items may be ZERO" fact covers items at any depth (tangent_flow.py).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s, u):
    p7 = [(2, s), (2, u)]
    for i6, (W, b) in enumerate(p7):
        v3 = np.sum(W) + np.sum(b * x[:1])
    return v3


def inputs():
    return (np.array([0.4, 0.4, 0.2]), 0.9, np.array([0.7, 0.2]),)
