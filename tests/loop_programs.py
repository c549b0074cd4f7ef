"""Functions with `for` loops, for test_loops.py (in a file, so s2sad can read their source)."""
import numpy as np


def mysum(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i]
    return total


def rnn(h, W, xs):
    for x in xs:
        h = np.tanh(W @ h + x)
    return np.sum(h ** 2)


def rnn_100_steps(h, W, U):
    for step in range(100):
        h = np.tanh(W @ h + U[step % 3])
    return np.sum(h)


def nested_rows(A):
    total = 0.0
    for row in A:
        for value in row:
            total = total + value * value
    return total


def carried_but_not_read_after(x):
    s = 0.0
    h = x
    for i in range(3):
        s = s + np.sum(np.sin(h) * h)
        h = h * 2.0
    return s


def overwritten_each_iteration(x, W):
    for i in range(4):
        h = np.tanh(W @ x * (i + 1))
    return np.sum(h)


def loop_variable_read_after(x):
    for i in range(3):
        y = x * i
    return np.sum(y * x) + i


def list_of_arrays(ws, x):
    total = 0.0
    for w in ws:
        total = total + np.sum(w * x)
    return total


def unpacked_pairs(pairs):
    total = 0.0
    for a, b in pairs:
        total = total + np.sum(a * b)
    return total


def horner(coefficients, x):
    value = 0.0 * x
    for c in coefficients:
        value = value * x + c
    return np.sum(value)


def power_by_loop(x):
    y = x
    for i in range(5):
        y = y * x
    return np.sum(y)


def running_mean_update(x):
    mean = np.zeros_like(x[0])
    for k in range(x.shape[0]):
        mean = mean + (x[k] - mean) / (k + 1)
    return np.sum(mean ** 2)


def loop_with_augmented_assignment(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * x[i]
    return total


def mysum_until_large(x):
    total = 0.0
    for i in range(len(x)):
        if x[i] > 2.0:
            break
        total = total + x[i] * x[i]
    return total
