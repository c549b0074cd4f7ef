"""Fuzz regression: ``y += v`` on an array another name also holds.

``z = y; y += x`` changes the one array both names hold, so ``z`` sees ``x`` added; s2sad
treats ``y += x`` as ``y = y + x`` (a new array), so its ``z`` is the old ``sin(x)``: the
value and the gradient are silently wrong (NumPy: sum((sin x + x) * x)).

Found by the user-idiom fuzzer (idiom ``aug-assign-alias``), reduced by hand.

Fixed: `y += v` on an array is a write into y's memory (helpers.written_into); another name
for y read after it makes the write a located refusal when the code runs (aliasing.py,
helpers.written_into_shared).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    y = np.sin(x)
    z = y
    y += x
    return np.sum(z * x)


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
