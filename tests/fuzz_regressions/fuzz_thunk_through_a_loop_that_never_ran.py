"""Fuzz regression: a delayed cotangent through a loop that never ran.

``acc4[1]``'s cotangent is an InplaceableThunk (``untake``). The ``while`` runs no iteration
here, so the thunk comes out of the reverse loop as it went in; the generator, though,
thought it had been unthunked (the loop body unthunks it for the next reverse iteration),
and handed it to np.where's rule: ``TypeError: float() argument must be a string or a real
number, not 'InplaceableThunk'`` (rules/helpers.py ``unbroadcast``).

Fixed: after a reverse loop, a cotangent that may have been a Thunk (or ZERO) before it
still may be, since the loop may run no iteration (s2sad/generate.py ``reverse_loop``).

Found by tests/fuzz, shrunk by hypothesis, reduced by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:TypeError:float() argument must be a string or a real number, not 'InplaceableThunk'"
FEATURES = ('while',)
OUTPUT = 'V'
DIRECTION_SEED = 10815


def f(A):
    acc4 = np.where(np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]) > 0.0, A, A)
    while not A[1, 2] > 0.0:
        acc4 = acc4
    return acc4[1]


def inputs():
    return (np.array([[1.5, 0.5, 0.1], [-0.2, 0.8, 1.1]]),)
