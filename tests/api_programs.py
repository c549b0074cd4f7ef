"""User functions for test_api.py (in a file, so s2sad can read their source)."""
import numpy as np

import s2sad


def quadratic(x, y):
    return np.sum(x * x * y)


def with_aux(x):
    loss = np.sum(x ** 2)
    return loss, {"norm": np.sqrt(loss)}


def vector_output(x):
    return np.sin(x)


@s2sad.differentiate
def inner(x):
    return np.sum(np.exp(x))


@s2sad.differentiate(argnums=(0, 1))
def outer(x, y):
    return inner(x * y) + np.sum(y)


def shape_error(x, A):
    return np.sum(A @ x)


def returns_integer(x, n):
    return np.sum(x) * n
