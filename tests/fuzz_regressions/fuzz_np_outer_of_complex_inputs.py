"""Fuzz regression: ``np.outer`` of complex inputs pulls back without the conjugate.

For a real loss ``L = Re(sum(outer(s, x)))`` the gradient (dL/dRe + 1j dL/dIm) in ``s`` is
``conj(sum(x))`` and in ``x`` is ``conj(s)``; s2sad returns ``sum(x)`` and ``s``: the
rule's pullback misses a conjugate (right for real inputs, silently wrong for complex).

Found by the complex-input fuzzer, shrunk by hypothesis, reduced by hand.

Fixed: the rule's pullback conjugates the other operand (a holomorphic f pulls g back to g *
conj(f')); checked for every rule by tests/rules/test_complex_audit.py.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s, x):
    return np.real(np.sum(np.outer(s, x)))


def inputs():
    return ((0.3+0.2j), np.array([0.5j, 0.2, (-0.4+0.1j)]))
