"""Fuzz regression: `break` in a `while` loop doubles the cotangent of what it carries.

The `while` form of fuzz_break_doubles_the_cotangent.py: ``d f / d s`` is 2, s2sad gives 4.
"""
import math

import numpy as np

CATEGORY = ("grad-mismatch", "jvp-vjp-mismatch", "pullback-rerun")
FEATURES = ("break-in-loop", "while")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    k = 0
    acc = s
    while k < 3:
        k = k + 1
        acc = acc * 2.0
        if acc > 0.0:
            break
    return acc


def inputs():
    return (0.5,)
