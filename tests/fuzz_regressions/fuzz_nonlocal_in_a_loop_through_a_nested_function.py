"""Fuzz regression: a loop calls a nested function whose own nested function rebinds (``nonlocal``) the loop's variable.

``advance`` is defined inside ``step``, so the loop's analysis (which variables the calls in the
body rebind) never saw its ``nonlocal state``: ``state`` was not carried between iterations. NumPy:
0.066 at these inputs; s2sad 0.4 (and after a first attempt at handing ``state`` back through
``step``, 0.22: still one iteration's worth).

Written by hand while stressing the ``nonlocal-in-a-loop`` idiom of session 13. Now a located
refusal at ``advance(v)`` (normalize_calls.refuse_nonlocal_past_the_caller).
"""
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s):
    state = s

    def step(v):
        def advance(w):
            nonlocal state
            state = 0.5 + w * state
        advance(v)
    for k in range(2):
        step(x[k])
    return state


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
