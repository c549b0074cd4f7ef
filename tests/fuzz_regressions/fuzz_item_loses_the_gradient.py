"""Fuzz regression: ``x[1].item()`` is treated as a constant.

``.item()`` turns an array element into a Python float that still depends on ``x``;
s2sad drops its derivative, so the gradient in ``x[1]`` is silently wrong (the value is
right). The same holds for ``np.sum(x).item()``.

Found by the user-idiom fuzzer (idiom ``item``), reduced by hand.

Fixed: activity analysis no longer lists `item` among the methods whose result is a
constant.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x):
    return x[1].item() * np.sum(x)


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
