"""Fuzz regression: jvp crashes when a helper gets a constant through a conditional expression.

``v1 = np.array([1.0, -0.5]) if ... > 0.0 else s`` takes the constant branch, so the
helper's argument built from ``v1`` has no tangent; the helper's generated jvp calls
``np.sum`` on a ``ZeroTangent``: ``TypeError: operand 'ZeroTangent' does not support
ufuncs`` (an internal crash in forward mode; reverse mode is right).

Found by tests/fuzz (the core generator, not an idiom) and shrunk by hypothesis.

Fixed: a helper's jvp made for a varied argument is handed zeros, not ZERO, when that
argument is a constant on the path taken (transform.TransformedForwardCall._resolved).
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 50
import math
import numpy as np

def helper(h0, h1):
    v8 = np.sum(h1)
    return v8

def f(s):
    v1 = np.array([1.0, -0.5]) if np.power(1.5 + np.sin(0.7), s) > 0.0 else s
    v4 = np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]])
    v10 = helper(v4, np.true_divide(v1[:, None], 1.0 + np.sum(np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]) * v4, axis=1, keepdims=True) ** 2))
    return v10


def inputs():
    return (1.5,)
