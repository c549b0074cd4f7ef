"""Fuzz regression: ``pop()`` of a list item nobody reads, then the list built by a loop.

``v10 = L8.pop()`` is never read. The reverse of the pop put ``v10`` back into ``L8`` but
left ``L8``'s cotangent one item short; the reverse of the comprehension's ``append`` then
read the cotangent of the last item by position: ``IndexError: list index out of range``
(s2sad/runtime.py ``item_of``). The right gradient is ``[[0.5], [0.5]]``.

Fixed: the reverse of a pop gives the container's cotangent its item back (ZERO when the
popped value's cotangent never flowed; s2sad/generate.py ``reverse_mutation``).

Found by tests/fuzz, shrunk by hypothesis, reduced by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:IndexError:list index out of range"
FEATURES = ('list-pop',)
OUTPUT = 'S'
DIRECTION_SEED = 0


def f(c):
    L8 = [np.reshape(c, (2,)) for i9 in range(2)]
    v10 = L8.pop()
    return np.mean(L8[-1])


def inputs():
    return (np.array([[-1.5], [0.0]]),)
