"""Fuzz regression: a ufunc writing its result into ``out=``.

``np.multiply(x, x, out=y)`` fills ``y`` in place (and returns it); s2sad does not see the
write into ``y``, so the gradient of ``sum(y)`` is silently 0 (the value is right).

Found by the user-idiom fuzzer (idiom ``ufunc-out``), shrunk by hypothesis, reduced by hand.

Fixed: `f(x, out=y)` is written `y[...] = written_into(f(x), y)` and differentiated.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    y = np.zeros(3)
    np.multiply(x, x, out=y)
    return np.sum(y)


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
