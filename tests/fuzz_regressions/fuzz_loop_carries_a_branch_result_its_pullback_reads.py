"""Fuzz regression: a loop carried a branch's result under its own name, overwriting the
value the branch's pullback reads.

``x = x / d`` on one path and ``x = x`` on the other merge into one variable; a later loop
carrying ``x`` reused that name, since a copy defined it on one path. The division's
pullback reads its result (``d(x / d)/dd = -ans / d``), which the loop had overwritten
with its last value: a silently wrong gradient in ``A`` (0.0913 against 0.0609).

Found by the user-idiom fuzzer (seed 20261124), reduced by hand.

Fixed: a loop reuses a variable's name only when every definition of it is a copy
(``normalize.Normalizer.reusable``).
"""
import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(A, x):
    if np.sum(A) < 0.7:
        x = x / (1.0 + np.sum(A) ** 2)
    else:
        x = x
    for i in range(1):
        x = 0.5 * x + x
    return np.mean(np.square(x))


def inputs():
    return (np.array([[-0.1, 0.9, -0.9], [-0.3, -0.7, -1.0]]), np.array([0.4, 1.1, -0.4]))
