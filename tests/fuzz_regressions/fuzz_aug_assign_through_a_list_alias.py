"""Fuzz regression: ``y *= s`` on an array a list also holds.

``L = [y]; y *= s`` changes the one array, so ``L[0]`` is ``s * y`` in NumPy; s2sad treats
``y *= s`` as a rebinding, so its ``L[0]`` keeps the old ``y``: the value and the gradient
are silently wrong (found at ``s = 0``: s2sad's value 1.5, NumPy's 0.0).

Found by the user-idiom fuzzer (idiom ``aug-assign-alias-list``), shrunk by hypothesis,
reduced by hand.

Fixed: `y += v` on an array is a write into y's memory (helpers.written_into); a list or
another name holding y read after it makes the write a located refusal when the code runs
(aliasing.py, helpers.written_into_shared).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    y = np.array([1.0, 0.5])
    items = [y]
    y *= s
    return np.sum(items[0])


def inputs():
    return (0.7,)
