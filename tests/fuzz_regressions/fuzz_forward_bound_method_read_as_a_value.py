"""Fuzz regression: a method of an object the function made from a differentiated value, read as a value.

``a = Scale(s); g = a.__call__; g(x)``: the bound method carries the object's derivative. grad
and vjp refuse where it is called (MissingRuleError: a method of a differentiated object); jvp
(and hvp, through it) raised AttributeError '__call__' from the tangent's field lookup, a crash
rather than a refusal.

Found by hand while the session-15 structure families ran (classes built and read inside).
Fixed: forward mode refuses reading a bound method of a differentiated object as a value, with
MissingRuleError as reverse mode does (s2sad/runtime/methods.py, ``attribute_jvp``).
"""
import math

import numpy as np

CATEGORY = "forward-exception"
FEATURES = ("ndarray.__call__",)
OUTPUT = "S"
DIRECTION_SEED = 0


class Scale:
    factor = 2.0

    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return self.w * x * self.factor


def f(x, s):
    a = Scale(s)
    g = a.__call__
    return np.sum(g(x))


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
