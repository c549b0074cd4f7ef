"""Fuzz regression: ``super().__init__(...)`` in forward mode, given no tangent.

``Shifted(w, shift)`` calls ``super().__init__(w, k=3.0)`` with a constant ``w``: forward code
called the base's initializer as a plain call, which runs ``__init__``'s own code and returns
None, and the next line's ``self.shift = ...`` crashed with AttributeError (jvp and hvp; grad was
right). Found by the fuzzer (seed 1602, --scalars).

Fixed: such a call is ``initialized(s2sad_super_init, self, ...)`` in forward code, the object after
the initializer ran (runtime/initializers.py); since session 17 reverse code calls it so too, and
an hvp through it is differentiated (initialized has a reverse rule).
"""
import math

import numpy as np

OUTPUT = 'S'
DIRECTION_SEED = 2882
import math
import numpy as np
import functools

class Scaled:

    def __init__(self, w, k=2.0):
        self.w2 = w

class Shifted(Scaled):

    def __init__(self, w, shift):
        super().__init__(w, k=3.0)
        self.shift = shift * 2.0

    def apply(self, v):
        return self.w2 * v + self.shift

def f(s, t):
    p2 = ((1.5 + np.sin(np.ones((2, 1)))) ** np.array([[0.5], [-1.5]]), np.cumsum(s * np.ones(3)))
    v3, v4 = p2
    t6 = []
    for i8 in range(1):
        t6.append(t / (2.0 + np.cos(v4)) * (1.0 + i8))
    v5 = np.stack(t6)
    t11 = Shifted(v4[::2], s * t)
    v10 = t11.apply(np.sum(v5, axis=1))
    t15 = Shifted(v3[:, 0], np.true_divide(t, 1.0 + s ** 2))
    v14 = t15.apply(v10)
    return np.mean(v14)


def inputs():
    return (0.8, -1.4,)
