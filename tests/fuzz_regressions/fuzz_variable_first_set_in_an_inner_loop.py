"""Fuzz regression: an array first assigned in an inner loop, read after it by the outer loop.

``x`` is assigned only inside ``for i in range(1)``, then read in the outer loop's body and
returned. The generated reverse-mode code raises ``UnboundLocalError: cannot access local
variable 'x' where it is not associated with a value`` (with floats instead of arrays the
same program is right). The right gradient is ``[2, 2]``; forward mode is right.

Cause: the inner loop reused the outer loop's name ``x`` (s2sad/normalize.py ``reusable``),
so the outer loop had no back edge for ``x`` and did not count it as carried; its tape saved
``x`` under that name, which made ``x`` a local of the pullback, read (by ``np.sum(x)``'s
reverse) before the loop bound it. Fixed: a loop never reuses the name an enclosing loop
carries a variable by, so the outer loop carries ``x`` with a back edge and its tape saves
the inner loop's own name.

Found by tests/fuzz (the long profile, a zip loop over an array rebound in the loop),
reduced by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:UnboundLocalError:cannot access local variable '<name>' where it is not associated with a value"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(u):
    for k in range(2):
        for i in range(1):
            x = u * 2.0
        u = x * 0.5
    return np.sum(x)


def inputs():
    return (np.array([-0.8, -0.5]),)
