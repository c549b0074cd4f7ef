"""The programs ``s2sad precompile`` differentiates with ``compile=True`` so that Numba's disk cache
holds compile=True's helpers for the argument kinds most code passes (precompile.py).

A compiled gradient calls helpers (``unbroadcast``, ``zero_like``, NumPy's ufunc loops, the
matrix products, the reductions) compiled once per kind of argument and kept on disk; what a
new function's first call compiles of them is most of its cold cost. These programs are plain
NumPy of the kinds scientific and ML code is made of: each is here for the helpers its gradient
calls, not for its own machine code (which is thrown away).
"""
import math

import numpy as np

__all__ = ["dense_layer", "batch_layer", "recurrence", "elementwise", "reductions", "scalar_model",
           "PROGRAMS"]


def dense_layer(W, b, x):
    # a matrix times a vector, a bias, a squashing function
    return np.sum(np.tanh(W @ x + b) ** 2)


def batch_layer(W, b, X):
    # a batch: a matrix times a matrix, a row of biases broadcast, two activations, a mean
    hidden = np.maximum(X @ W + b, 0.0)
    return np.mean(1.0 / (1.0 + np.exp(-hidden)))


def recurrence(W, h, x):
    # a loop of steps reading the previous state
    for _ in range(3):
        h = np.tanh(W @ h + x)
    return np.sum(h * h)


def elementwise(x):
    # the common ufuncs, in arithmetic with constants and each other
    smooth = np.exp(-x) * np.sin(x) + np.cos(x) ** 2 - np.log(1.0 + x * x)
    return np.sum(smooth + np.sqrt(x * x + 1.0) / (2.0 + np.abs(x)))


def reductions(x, y):
    # a weighted mean square and an inner product
    return np.mean((x - y) ** 2) + np.dot(x, y) / x.size


def scalar_model(a, b):
    # Python floats: the math module's functions
    return math.sin(a) * b + a ** 2 / b + math.exp(-a * b) + math.log(1.0 + a * a) + math.sqrt(b * b + 1.0)


def _vector(n, dtype):
    return (np.linspace(-1.0, 1.0, n) * 0.5).astype(dtype)


def _matrix(rows, columns, dtype):
    return (np.linspace(-1.0, 1.0, rows * columns).reshape(rows, columns) * 0.3).astype(dtype)


def _cases(dtype):
    """Each program with arguments of one float dtype, and the parameters differentiated."""
    return [
        (dense_layer, (_matrix(4, 3, dtype), _vector(4, dtype), _vector(3, dtype)), (0, 1)),
        (batch_layer, (_matrix(3, 4, dtype), _vector(4, dtype), _matrix(5, 3, dtype)), (0, 1)),
        (recurrence, (_matrix(4, 4, dtype), _vector(4, dtype), _vector(4, dtype)), (0, 1)),
        (elementwise, (_vector(6, dtype),), 0),
        (elementwise, (_matrix(2, 3, dtype),), 0),
    ]


# (program, arguments, argnums): float64 first (most code), then float32, then Python floats. (Not
# `reductions` in float32: its compiled sums do not add in NumPy's order, so such calls take the NumPy path.)
PROGRAMS = _cases(np.float64) + [(reductions, (_vector(5, np.float64), _vector(5, np.float64)[::-1].copy()), (0, 1))] \
    + _cases(np.float32) + [(scalar_model, (0.7, 1.3), (0, 1))]
