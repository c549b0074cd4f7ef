"""Fuzz regression: jvp crashes when a helper gets a constant through a conditional expression.

``v1 = np.array([1.0, -0.5]) if ... > 0.0 else s`` takes the constant branch, so the
helper's argument built from ``v1`` has no tangent; the helper's generated jvp calls
``np.sum`` on a ``ZeroTangent``: ``TypeError: operand 'ZeroTangent' does not support
ufuncs`` (an internal crash in forward mode; reverse mode is right).

Found by tests/fuzz (the core generator, not an idiom) and shrunk by hypothesis.
"""
import math

import numpy as np

XFAIL = "jvp: a helper's jvp calls np.sum on a ZeroTangent (its argument made constant by a conditional expression)"
CATEGORY = "forward-exception:TypeError:operand 'ZeroTangent' does not support ufuncs (__array_ufunc__=None)"
FEATURES = ("conditional-expression", "helper-call")
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
