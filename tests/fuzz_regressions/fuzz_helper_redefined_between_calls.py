"""Fuzz regression: a helper redefined between two gradient calls (a notebook cell run again).

The oracle checks ``f``, then binds ``helper`` to ``helper_redefined`` (renamed ``helper``)
and checks ``f`` again: s2sad's second gradient is still the first helper's (sin), while
``f`` now computes ``1.5 * x ** 3``.

Found by the user-idiom fuzzer (``helper-redefined``), reduced by hand.

Fixed: every generated function checks, before each call, that the definitions it was made
from are current (validity.py); a redefined helper is differentiated anew.
"""
import math

import numpy as np

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
