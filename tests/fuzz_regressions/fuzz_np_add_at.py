"""Fuzz regression: ``np.add.at(y, [0, 2, 2], x)`` accumulates in place.

``np.add.at`` changes ``y`` in place and returns None; s2sad does not see the write, so
the gradient with respect to ``x`` is silently 0 (the value is right).

Found by the user-idiom fuzzer (idiom ``np.add.at``), reduced by hand.

Fixed: `np.add.at(y, idx, v)` is written `y[...] = added_at(y, idx, v)`, which counts every
occurrence and is differentiated in both modes.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    y = np.zeros(3)
    np.add.at(y, [0, 2, 2], x)
    return np.sum(y ** 2)


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
