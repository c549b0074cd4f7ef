"""Fuzz regression: a value passed to a helper parameter the helper never uses (np.trace).

``helper`` ignores both parameters. The reverse pass of ``f`` still runs np.trace's rule
(rules/numpy_shapes.py ``trace_vjp``) on the cotangent it gets for ``h1``, which is not an
array of the right shape: ``ValueError: setting an array element with a sequence``
(helpers.unbroadcast). The right gradient is 1.

This is one face of a family: whatever rule produced the unused argument fails on its
cotangent (matmul, np.reshape, np.array: see fuzz_*_passed_to_an_unused_parameter.py and
fuzz_np_array_of_a_zero_cotangent.py). So any reverse-mode exception in a program whose
helper has an unused parameter is counted as this known bug (CATEGORY, FEATURES below).

Cause: the helper's pullback returns ZERO for both parameters and np.trace's rule was run on
``h1``'s. Fixed: a cotangent that may be the symbolic ZERO at run time (every cotangent a
pullback returns) is now known to the generator as one (s2sad/generate.py, ``maybe_zero``),
so the reverse of the operation that made the value runs under ``if d... is not ZERO:`` and
no rule is handed a ZERO it cannot read.

Found by tests/fuzz (the short profile), shrunk by hypothesis, reduced by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception"
FEATURES = ("helper-unused-parameter",)
OUTPUT = "S"
DIRECTION_SEED = 601


def helper(h0, h1):
    return 2.0


def f(s):
    return s + helper(s, np.trace(np.full((2, 3), s) @ np.full((2, 3), s).T))


def inputs():
    return (0.9,)
