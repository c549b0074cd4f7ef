"""Fuzz regression: ``(s * 1j).imag`` of a real ``s`` crashes the pullback.

Also ``(2.0 + math.sin(v)).imag`` of a real float. The pullback of ``s * 1j`` unbroadcasts a ``ZeroTangent`` (from ``.imag``'s real part)
into a float: ``TypeError: float() argument must be ... not 'ZeroTangent'`` (an internal
crash, not an S2SADError). The derivative is 1.0.

Found by the user-idiom fuzzer (idiom ``complex-imag``), reduced by hand.

Fixed: Python's ``complex`` and ``float`` have method rules for ``real``, ``imag`` and
``conjugate`` (rules/ndarray_methods.py); ``.imag`` was read as a field of a structural tangent.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    return (s * 1j).imag + s * s


def inputs():
    return (0.3,)
