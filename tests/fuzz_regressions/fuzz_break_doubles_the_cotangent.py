"""Fuzz regression: a `break` after assigning a carried variable doubles its cotangent.

In the iteration that breaks, the reverse pass adds the cotangent of ``acc`` to itself:
the generated pullback reads ``dacc_2 = dacc`` then ``dacc_2 = accumulate(dacc_2, dacc)``.
Here ``d f / d x`` is [2, 0, 0], s2sad gives [4, 0, 0]. The same happens in ``while`` loops and with a
conditional ``if ...: break``; forward mode is right (so <u, J v> differs both ways).

Found by tests/fuzz (a `for e in v: ... break` program), reduced by tests/fuzz/reduce.py.
"""
import math

import numpy as np

CATEGORY = ("grad-mismatch", "jvp-vjp-mismatch", "pullback-rerun")
FEATURES = ("break-in-loop",)
OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    acc = 0.0
    for e in x:
        acc = e * 2.0
        break
    return acc


def inputs():
    return (np.array([0.3, 0.5, 0.7]),)
