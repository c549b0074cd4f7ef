"""Fuzz regression: ``np.inner`` of complex inputs pulls back without the conjugate.

For ``L = Re(inner(a, w))`` the gradient (dL/dRe + 1j dL/dIm) in ``a`` is ``conj(w)``;
s2sad returns ``w``: the rule's pullback misses a conjugate (right for real inputs,
silently wrong for complex). Found as ``np.real(np.inner(A.mean(axis=0), ...))``.

Found by the complex-input fuzzer, shrunk by hypothesis, reduced by hand.

Fixed: the rule's pullback conjugates the other operand (a holomorphic f pulls g back to g *
conj(f')); checked for every rule by tests/rules/test_complex_audit.py.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    return np.real(np.inner(x, np.array([0.5 + 1j, 1.0, -0.5j])))


def inputs():
    return (np.array([(0.3+0.2j), (-0.7+0.4j), (1.1-0.5j)]),)
