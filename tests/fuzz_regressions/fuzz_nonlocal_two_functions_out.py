"""Fuzz regression: ``nonlocal`` in a function nested in a nested function, naming the outer function's variable.

``inner``'s ``nonlocal a`` is ``f``'s ``a`` (``outer`` has no ``a`` of its own), so the call
``outer(x[0])`` changes ``f``'s ``a``: NumPy's value is 2 * 0.872 at these inputs. s2sad wrote
``inner``'s call out inside ``outer`` and handed the new ``a`` back only as far as ``outer``:
``f`` read its old ``a`` (value 0.872 + 0.4, gradient in ``s`` 1.18 where the true one is 0.36).
The same happened for a sibling (``bump`` defined in ``f``, called from ``outer``), and a loop
calling ``outer`` did not carry ``a`` at all.

Found by hand-written stress programs next to the session-13 idioms (``nonlocal-accumulator``),
reduced by hand.

Fixed (refused): a nested function called from another nested function may rebind only that
caller's own variables (normalize_calls.refuse_nonlocal_past_the_caller); the call is a located
refusal, which the oracle accepts.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s):
    def outer(v):
        def inner(w):
            nonlocal a
            a = a * w + 0.5
        inner(v)
        inner(v * 2.0)
        return a
    a = s   # bound before the call: all nonlocal needs
    return outer(x[0]) + a


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
