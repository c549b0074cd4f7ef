"""Fuzz regression: an array first assigned in an inner loop, read after it by the outer loop.

``x`` is assigned only inside ``for i in range(1)``, then read in the outer loop's body and
returned. The generated reverse-mode code raises ``UnboundLocalError: cannot access local
variable 'x' where it is not associated with a value`` (with floats instead of arrays the
same program is right). The right gradient is ``[2, 2]``; forward mode is right.

Found by tests/fuzz (the long profile, a zip loop over an array rebound in the loop),
reduced by hand.
"""
import math

import numpy as np

XFAIL = "grad raises UnboundLocalError: cannot access local variable 'x' (x first set inside the inner loop)"
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
