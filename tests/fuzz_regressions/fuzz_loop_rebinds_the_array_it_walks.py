"""Fuzz regression: a loop that rebinds the array it walks (`for e in x: x = e + x`) walks the old x; its gradient mixed the two (fixed).

Found by tests/fuzz and shrunk by hypothesis. What the oracle reported:

    gradient of <u, f> (u=1.1369616873214543) in argument 0: s2sad [14.780501935178906, 7.95873181125018, 4.547846749285817] != finite differences [4.547846749285817, 4.547846749285817, 4.547846749285817]
"""
import math

import numpy as np

CATEGORY = 'grad-mismatch'
FEATURES = ('add', 'for-enumerate', 'np.sum')
OUTPUT = 'S'
DIRECTION_SEED = 0
import math
import numpy as np

def f(x):
    for j2, e1 in enumerate(x):
        x = e1 + x
    return np.sum(x)


def inputs():
    return (np.array([0.0, 0.0, 0.0]),)
