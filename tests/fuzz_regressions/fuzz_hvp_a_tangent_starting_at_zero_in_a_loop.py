"""A loop-carried float whose tangent starts as the symbolic zero, differentiated twice.

Read again for a Hessian, forward code's ``dacc = ZERO`` is a value the loop carries; its
cotangent was summed to the "shape" of that zero object (an object array), which accumulate's
fast path then failed on (fuzzer --scalars, seed 1904). A cotangent of the symbolic zero is ZERO.
"""
import math

import numpy as np

CATEGORY = "second-exception:AttributeError:'float' object has no attribute 'size'"
FEATURES = ('add', 'for-range')
OUTPUT = 'S'
DIRECTION_SEED = 4
import math
import numpy as np

def f(s, t, r):
    acc8 = 0.0
    for i9 in range(1):
        acc8 = acc8 + (acc8 + s)
    return acc8


def inputs():
    return (0.0, 0.0, 0.1,)
