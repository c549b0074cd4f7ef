"""Fuzz regression: an inner loop's tape, when the outer loop breaks before it runs.

The outer loop breaks in its first iteration, before the inner loop has run once; the
generated primal then reads the inner loop's tape, which was never made:
``UnboundLocalError: cannot access local variable 'i_tape' where it is not associated
with a value`` (in the generated ``f_rrule``). With ``s <= 0.5`` (no break) it is right.

Found by tests/fuzz, reduced by reduce.py and by hand.
"""
import math

import numpy as np

CATEGORY = "reverse-exception:UnboundLocalError:cannot access local variable '<name>' where it is not associated with a value"
FEATURES = ()
OUTPUT = "S"
DIRECTION_SEED = 0


def f(u, s):
    for e in u:
        if s > 0.5:
            break
        items = []
        for i in range(2):
            items.append(e)
    return s


def inputs():
    return (np.array([0.1, 0.2]), 0.7)
