"""Fuzz regression: a ``functools.wraps`` decorator whose wrapper scales the result.

s2sad differentiates the wrapped function (``__wrapped__``) and skips the wrapper: the
value and the gradient miss the factor 2.0 the wrapper applies.

Found by the user-idiom fuzzer (idiom ``decorator-scales``), reduced by hand.

Fixed: a wrapper is code (resolve.unwrap no longer follows __wrapped__); this one forwards
`*args`, which s2sad refuses at the wrapper's line, naming the decorator.
"""
import functools
import math

import numpy as np

OUTPUT = "S"
DIRECTION_SEED = 0


def scaled(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return 2.0 * function(*args, **kwargs)
    return wrapper


@scaled
def scaled_sin(x):
    return np.sin(x)


def f(x):
    return np.sum(scaled_sin(x))


def inputs():
    return (np.array([0.3, -0.7, 1.1]),)
