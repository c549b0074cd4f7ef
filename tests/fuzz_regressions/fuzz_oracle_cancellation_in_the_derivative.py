"""Fuzz regression (of the fuzzer's oracle): a derivative that cancels, and a large fifth derivative.

``f(s) = g + sin(g)`` with ``g = 31.25 s`` near ``g = pi``: the derivative ``31.25 (1 + cos g)``
is 0.0043, and the 4-point finite difference with step 1e-3 is off by ~1e-6 (its error is
``h**4 f^(5) / 30`` with ``f^(5) ~ 3e7``), more than the tolerance. s2sad was right (to 1e-14,
checked with mpmath); the oracle now makes the step smaller while the estimate still moves.

Found by tests/fuzz (the long profile) as a grad-mismatch, shrunk by hypothesis.
"""
import math

import numpy as np

CATEGORY = 'grad-mismatch'
FEATURES = ()
OUTPUT = 'S'
DIRECTION_SEED = 0

def f(s):
    for i1 in range(3):
        s = 0.5 * s + (s + s)
    s += s
    v3 = s
    return v3 + np.sin(s)


def inputs():
    return (0.1,)
