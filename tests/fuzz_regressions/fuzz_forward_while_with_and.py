"""Fuzz regression: forward mode cannot generate a `while` whose condition uses `and`/`or`.

``s2sad.jvp`` raises ``AttributeError: 'Branch' object has no attribute 'operations'``
from ``generate_forward.while_header`` (the normalised condition of ``k < 2 and s > 0.0``
is a Branch, not a block of operations). Reverse mode handles the same loop.

Cause: generate_forward wrote a ``while`` test as a list of statements, but a test with
``and``/``or`` is a block holding a Branch; fixed by generating the test as a block (before
the body, so the body sees the tangents it defines).

Found by tests/fuzz (``while k < K and <float condition>:``), reduced by hand.
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(s):
    k = 0
    while k < 2 and s > 0.0:
        k = k + 1
        s = s * 0.5
    return s


def inputs():
    return (0.7,)
