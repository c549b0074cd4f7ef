"""Fuzz regression: a nested function's ``nonlocal`` called from a sibling that has a variable of the same name.

``bump`` (defined in ``f``) rebinds ``f``'s ``a``; ``outer`` has its own ``a`` and calls
``bump``. NumPy: ``outer`` returns its own 0.9 and ``f``'s ``a`` becomes 0.62 (value 1.52).
s2sad wrote ``bump``'s call out inside ``outer``, where ``a`` is ``outer``'s: it read and rebound
that one, and ``f``'s ``a`` kept 0.4 (value 1.17, gradient in ``s`` 1.0 where the true one is 0.3).

Found by hand-written stress programs next to the session-13 idioms (``nonlocal-counter``),
reduced by hand.

Fixed (refused): normalize_calls.refuse_nonlocal_past_the_caller.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s):
    a = s

    def bump(v):
        nonlocal a
        a = a * v + 0.5

    def outer(v):
        a = v * 3.0
        bump(v)
        return a
    return outer(x[0]) + a


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
