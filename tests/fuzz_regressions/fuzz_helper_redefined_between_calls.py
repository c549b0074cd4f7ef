"""Fuzz regression: a helper redefined between two gradient calls (a notebook cell run again).

The oracle checks ``f``, then binds ``helper`` to ``helper_redefined`` (renamed ``helper``)
and checks ``f`` again: s2sad's second gradient is still the first helper's (sin), while
``f`` now computes ``1.5 * x ** 3``.

Found by the user-idiom fuzzer (``helper-redefined``), reduced by hand.
"""
import math

import numpy as np

XFAIL = "the second gradient after a helper is redefined uses the old helper's code (stale)"
CATEGORY = ("after-redefinition-grad-mismatch", "after-redefinition-value-mismatch", "after-redefinition-jvp-mismatch", "after-redefinition-jvp-value-mismatch", "after-redefinition-jvp-vjp-mismatch")
FEATURES = ("helper-redefined",)
OUTPUT = "S"
DIRECTION_SEED = 0


def helper(h0):
    return np.sin(h0)


def helper_redefined(h0):
    return 1.5 * h0 ** 3


def f(x):
    return np.sum(helper(x))


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
