"""Fuzz regression: a vjp pullback run twice, through a ``*`` call of a helper whose pullback
undoes its own changes.

``squared_norm(*layers[0])`` calls the helper through s2sad's runtime dispatch (a ``*`` call;
a function held in a list, an object's ``__call__`` and a method go the same way). The
helper's generated pullback pops the list its generator sum made as it runs
(``PULLBACK_RUNS_ONCE``); ``f``'s own code is not marked so, and the second run of ``vjp``'s
pullback ran the helper's pullback again: IndexError here, and a wrong gradient for a helper
that overwrites an array element (2 x0 for 4 x0 ** 3, test_control_flow.py).

Found by the fuzzer's structured-parameter idioms (``layers-star-unpacked-layer``; fuzz21),
reduced by hand. Fixed: ``TransformedCall`` reruns such a pullback from its arguments when
it is called a second time (s2sad/transformed.py, ``_rerunnable``).
"""
import math

import numpy as np

CATEGORY = "reverse-exception"
FEATURES = ("input:layers", "layers-star-unpacked-layer")
OUTPUT = "S"
DIRECTION_SEED = 0


def squared_norm(*arrays):
    return sum(np.sum(a ** 2) for a in arrays)


def f(x, layers):
    return squared_norm(*layers[0]) * np.sum(np.sin(x))


def inputs():
    return (np.array([0.3, -0.7, 1.1]),
            [(np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([0.2, -0.3])),
             (np.array([[0.5, -0.1], [0.2, 0.3]]), np.array([-0.3, 0.2]))])
