"""Fuzz regression: hvp refuses inside a rule's source, and names the program's line it came from.

A dict of parameters updated key by key (``for key in t: t[key] = t[key] - 0.1 * np.cos(t[key])``):
grad and jvp differentiate it; hvp differentiates the forward code in reverse, reaches the source
of a rule (rules/index_tricks.py: ``out[here] = ...`` on a fresh ``out``) and refuses there, with
the program's line as "reached from" (``S2SADError.reached_from``). The oracle counted only the
error's first location, so this located refusal was a ``refusal-without-location`` failure.

Found by the session-15 idiom ``params-dict-updated-by-key`` (family params-in-training-loops),
reduced by hand. Fixed in the oracle (tests/fuzz/oracle.py ``_refusal``: any of the error's
places in the program's file locates it). The refusal itself was over-cautious (the ``out`` there
shared memory with nothing); since f43ddf0 the rule's forward code writes no array in place, and
hvp differentiates this program (tests/rules/test_index_tricks.py, test_second_order_through_a_dict_loop).
"""
import math

import numpy as np

CATEGORY = "refusal-without-location"
FEATURES = ("for-iterate", "dict")
OUTPUT = "S"
DIRECTION_SEED = 0


def f(x, s):
    t = {'w': x, 'b': s}
    for key in t:
        t[key] = t[key] - 0.1 * np.cos(t[key])
    return np.sum(t['w']) * t['b']


def inputs():
    return (np.array([0.3, -0.7, 1.1]), 0.4)
