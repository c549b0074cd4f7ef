"""Fuzz regression: `continue` as the last statement of a loop body doubles the cotangent.

Each iteration that ends with ``continue`` gives the carried variable's cotangent twice in
the reverse pass (like fuzz_break_doubles_the_cotangent.py): with two iterations the
gradient is 4 times the right one. ``if cond: continue`` at the end of the body does the
same; forward mode is right.

Found by tests/fuzz (``for row in A: A = A; continue``), reduced by hand.
"""
import math

import numpy as np

CATEGORY = ("grad-mismatch", "jvp-vjp-mismatch", "pullback-rerun")
FEATURES = ("continue-in-loop",)
OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    acc = x
    for i in range(2):
        acc = acc * 1.0
        if np.sum(acc) > -10.0:
            continue
    return np.sum(acc)


def inputs():
    return (np.array([0.1, 0.2, 0.3]),)
