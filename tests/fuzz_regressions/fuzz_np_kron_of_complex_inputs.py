"""Fuzz regression: ``np.kron`` of complex inputs pulls back without the conjugate.

The gradient of a real loss in a complex input is dL/dRe + 1j dL/dIm (docs/rule-authors.md):
a complex-linear map pulls back with its conjugate transpose. s2sad's gradient here differs
from finite differences along both parts (and jvp disagrees with vjp): right for real
inputs, silently wrong for complex ones, like ``np.outer`` and ``np.inner``.

Found by probing, after the complex-input fuzzer found ``np.outer`` and ``np.inner``, the
other products and linear-algebra rules with complex inputs.

Fixed: the rule's pullback conjugates the other operand (a holomorphic f pulls g back to g *
conj(f')); checked for every rule by tests/rules/test_complex_audit.py.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0

W = np.array([0.5 + 1j, 1.0, -0.5j])


def f(x):
    return np.real(np.sum(np.kron(x, W)))


def inputs():
    return (np.array([(0.3+0.2j), (-0.7+0.4j), (1.1-0.5j)]),)
