"""Functions of Python floats: each gets a plain-arithmetic rrule for floats (test_scalars.py)."""
import math

import numpy as np


def polynomial(x, y):
    return 3.0 * x ** 3 - x ** 2 / y + x * y + 1.0


def transcendental(x, y):
    return math.sin(x) * y + x ** 2 / y + math.exp(-x * y) + math.log(y) * math.atan2(x, y)


def ufuncs_on_floats(x):
    return np.tanh(x) * np.sqrt(x * x + 1.0) + np.arctan(x)


def with_branches(x, y):
    if x > y:
        z = x * y
    else:
        z = x - 2.0 * y
    return z * z if z > 0.0 else -z


def counted_loop(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x ** 2 * i - math.cos(acc)
    return acc


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def clipped(x, y):
    return max(x, y) * min(x, 2.0) + abs(x - y) - round(y) * x


def unused_and_constant(x, y):
    c = 2.0
    return c * x ** 1 + y ** 0.5 * 0.0


def exponent_below_one(x):
    return x ** 0.5 + x ** -2.0


# Not specialised: an array, a list, another function's result feed the gradient.
def sums_an_array(x):
    return np.sum(np.array([x, 2.0 * x]))


def sums_a_row(x, A):
    return x * np.sum(A[0])


# An element of a 1-d float array computes like a float: a float version when ys is one.
def reads_an_element(x, ys):
    return x * ys[0] + ys[1] ** 2


def calls_another(x):
    return polynomial(x, 2.0) * x


def root_by_power(x):
    return x ** 0.5
