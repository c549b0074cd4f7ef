"""Programs whose pullbacks may read values the primal computed (test_reuse.py)."""
import numpy as np
import numpy


def sin_times_cos(x):
    return np.sum(np.sin(x) * np.cos(x) + x ** 2)


def spelt_differently(x):
    c = numpy.cos(x)
    return np.sum(np.sin(x) * c)


def cosine_in_a_branch(x):
    if np.sum(x) > 0:
        c = np.cos(x)
    else:
        c = 2.0 * x
    return np.sum(np.sin(x) + c)


def cosine_of_a_carried_value(x):
    c = np.cos(x)
    for _ in range(3):
        x = np.sin(x)
    return np.sum(x * c)


def cosine_before_a_change_in_place(x):
    y = x * 1.0
    c = np.cos(y)
    z = np.zeros(3)
    z[0] = 1.0
    return np.sum(np.sin(y) * c) + np.sum(z)
