"""Fuzz regression: forward mode, a complex value written into an element of a real array.

``y8[i9] = L2[0]`` with ``L2[0]`` a NumPy complex scalar and ``y8`` a float array: NumPy keeps
the real part (with a ComplexWarning). The pushforward wrote the value's complex tangent into
the real tangent array, and NumPy refused a Python complex there: ``TypeError: float()
argument must be a string or a real number, not 'complex'`` inside s2sad. The tangent of
what NumPy keeps is the real part of the value's tangent; reverse mode was right.

Fixed in runtime/structure.py (``tangent_setitem``). Found by tests/fuzz (seed 2511, the
session that split the generator), shrunk by hypothesis.
"""
import numpy as np

OUTPUT = 'V'
DIRECTION_SEED = 0


def f(c, u, s):
    L2 = [np.add(s, s), s]
    y8 = np.zeros_like(np.array([0.5, 1.0, 1.5]))
    for i9 in range(1):
        y8[i9] = L2[0]
    return y8


def inputs():
    return (np.array([[(0.2+1j)], [(-1.5-1j)]]), np.array([(-1+0.8j), (0.7-0.3j)]), (-0.9+0.4j),)
