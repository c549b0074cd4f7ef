"""Functions whose generated code is pinned, character for character, in test_generated_source.py."""
import numpy as np


def affine_tanh(W, b, x):
    z = W @ x + b
    return np.sum(np.tanh(z))


def used_twice(x):
    y = x * x
    return y + x


def method_call(A):
    return A.sum(axis=0).dot(A[0])


def mysum(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i]
    return total


def clipped_square(x):
    if x > 1.0:
        y = 2.0 * x - 1.0
    else:
        y = x * x
    return y


def halve_until_small(x):
    while x > 1.0:
        x = x * 0.5
    return x
