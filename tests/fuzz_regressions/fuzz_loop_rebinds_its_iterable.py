"""Fuzz regression: a `for` loop whose body rebinds the name of the array it iterates.

In Python ``for row in A: A = row * 2.0`` iterates over the rows of the original ``A``
(the iterator holds it); the result is ``2 * sum(A[-1])``. The generated primal keeps the
original too (``for row_index, row in enumerate(A)``), but its derivative code reads the
tangent/cotangent of the *rebound* name: forward mode computes ``drow =
tangent_item(dA, row_index)`` from the new ``dA`` (tangent 4.0 instead of 6.0 here), and
the reverse pass raises ``ValueError: setting an array element with a sequence``
(accumulate.py / helpers.scattered) scattering into the wrong value.

Found by tests/fuzz (``for row1 in A: A = ... * row1``), reduced by reduce.py and by hand.
"""
import math

import numpy as np

CATEGORY = ("value-mismatch", "grad-mismatch", "jvp-value-mismatch", "jvp-mismatch", "jvp-vjp-mismatch", "reverse-exception:ValueError:setting an array element with a sequence.")
FEATURES = ("loop-rebinds-iterable",)
OUTPUT = "S"
DIRECTION_SEED = 0


def f(A):
    for row in A:
        A = row * 2.0
    return np.sum(A)


def inputs():
    return (np.array([[0.1, -0.3, 1.3], [0.4, 0.5, -0.6]]),)
