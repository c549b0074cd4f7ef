"""Fuzz regression: an element at a pole that the result never reads gives a NaN gradient.

``(1.0 / x)[1:]`` drops ``1 / x[0]`` (infinite at ``x[0] = 0``), so ``f`` does not depend
on ``x[0]`` and its derivative there is 0; s2sad's pullback multiplies the zero cotangent
of that element by ``-1 / x[0] ** 2`` (infinite): NaN (first found in a complex program,
``c / (1 + (c * w) ** 2)`` at ``c = -1j``).

Found by the complex-input fuzzer (as a NaN in a rerun pullback), reduced by hand.

Fixed: a NaN derivative of a finite value (with finite seeds) is refused with a
NonFiniteDerivativeError naming the function (s2sad/finiteness.py), not handed back.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    return np.sum((1.0 / x)[1:])


def inputs():
    return (np.array([0.0, 0.5, 1.0]),)
