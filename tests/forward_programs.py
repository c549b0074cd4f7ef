"""Functions for test_forward.py: losses whose Hessians are checked, a vector function."""
import numpy as np


def logistic_loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w ** 2)


def mlp_loss(W1, W2, X, y):
    h = np.tanh(X @ W1)
    out = h @ W2
    return np.mean((out - y) ** 2)


def loop_energy(x):
    energy = 0.0
    for i in range(len(x) - 1):
        energy = energy + (x[i + 1] - x[i]) ** 2 + np.cos(x[i])
    return energy


def polynomial_and_sine(x):
    return x ** 4 - 3.0 * x ** 2 + np.sin(2.0 * x)


def polar_to_cartesian(r_theta):
    r, theta = r_theta[0], r_theta[1]
    return np.array([r * np.cos(theta), r * np.sin(theta), r ** 2])


# A list literal holding a constant, read by a NumPy function as an array.
def sum_of_a_list_with_a_constant(x):
    return np.sum([2.0, x]) * x


def mean_of_rows_with_a_constant_row(x):
    return np.mean([np.ones(3), x, np.sin(x)])


def max_of_a_tuple_with_a_constant(x):
    return np.max((np.full(3, -5.0), x * x), axis=0)


# A helper given a container holding a constant (hvp: reverse mode over forward code).
def _product_of_a_pair(pair):
    return pair[0] * pair[1]


def _stacked(pair):
    return np.stack(pair)


def _sum_and_sine(*args):
    a, b = args
    return a + np.sin(b)


def _product_of_fields(d):
    return d["a"] * d["b"]


def helper_given_a_tuple_with_a_constant(x):
    return np.sum(_product_of_a_pair((np.ones(3), x)) ** 2)


def helper_stacking_a_list_with_a_constant(x):
    return np.sum(_stacked([np.ones(3), x]) ** 2)


def helper_given_a_constant_positional(x):
    return np.sum(_sum_and_sine(np.ones(3), x) ** 2)


def helper_given_a_dict_with_a_constant(x):
    return np.sum(_product_of_fields({"a": 2.0, "b": x}) ** 2)
