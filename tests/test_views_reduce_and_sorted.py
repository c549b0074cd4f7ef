"""Session 17's brief, items 3 and 5: ``sum(d.values())`` in reverse mode (only jvp took it: the
view is no list, and sum's rule refused it), ``sum(d[k] for k in d)`` and ``d.items()``; the
Hessian of ``functools.reduce(f, xs)`` (its forward rule calls ``call_jvp``, which had no reverse
rule) and of items of ``sorted(...)`` (its order read ``items.__getitem__``, a method descriptor).
Each in grad, vjp, jvp and hvp against central differences, the dict made here or given, the
given one left as it was."""
import functools

import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, assert_hvp_matches, numerical_gradient

X = np.linspace(-0.5, 0.7, 3)
V, U = np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0)


def sum_of_values(x):
    d = {"a": x, "b": np.sin(x)}
    return np.sum(sum(d.values()) ** 2)


def sum_of_values_then_a_key_added(x):
    d = {"a": x, "b": np.sin(x)}
    s = sum(d.values(), x ** 2)
    d["c"] = x ** 2
    return np.sum(s * d["c"])


def sum_over_keys_and_items(x):
    d = {"a": x, "b": np.sin(x)}
    t = sum(d[k] for k in d)
    for k, v in d.items():
        t = t * v
    return np.sum(t)


def _values_summed(d):
    return np.sum(sum(d.values()) ** 2)


def values_of_a_helpers_argument(x):
    return _values_summed({"a": x, "b": np.cos(x)}) * x[0]


def _damped(a, b):
    return a * np.cos(b)


def reduced_by_a_ufunc_and_a_function(x):
    xs = [x, np.sin(x), x ** 2]
    return np.sum(functools.reduce(np.add, xs) ** 2) + np.sum(functools.reduce(_damped, xs, x))


def reduced_by_a_lambda_over_scalars(x):
    return functools.reduce(lambda a, b: a * b, [x[0], np.sin(x[1]), x[2] ** 2])


def items_of_sorted_scalars(x):
    s = sorted([x[0] * 2.0, x[1] ** 2, np.sin(x[2])], reverse=True)
    a, b, c = sorted(x * np.array([3.0, -1.0, 2.0]))
    return s[0] * s[2] + s[1] ** 2 + a * b * c


@pytest.mark.parametrize("function", [sum_of_values, sum_of_values_then_a_key_added, sum_over_keys_and_items,
                                      values_of_a_helpers_argument, reduced_by_a_ufunc_and_a_function,
                                      reduced_by_a_lambda_over_scalars, items_of_sorted_scalars])
def test_every_mode_matches_central_differences(function):
    assert_every_mode_matches(function, X, V, U)


def sum_of_given_values(x, d):
    return np.sum(sum(d.values()) * x) + np.sum(functools.reduce(np.multiply, list(d.values()), x))


def test_a_given_dict_is_differentiated_and_left_as_it_was():
    d = {"a": np.array([0.5, -1.0, 2.0]), "b": np.array([1.5, 0.25, -0.75])}
    kept = {k: v.copy() for k, v in d.items()}
    expected = numerical_gradient(sum_of_given_values, [X, d], 0)
    np.testing.assert_allclose(s2sad.grad(sum_of_given_values)(X, d), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.jvp(sum_of_given_values, (X, d), (V, None))[1], expected @ V, rtol=1e-6)
    assert_hvp_matches(s2sad.hvp(lambda x: sum_of_given_values(x, d), (X,), (V,)),
                       lambda x: sum_of_given_values(x, d), [X], [V], [U], rtol=1e-4, atol=1e-6)
    assert d.keys() == kept.keys() and all(np.array_equal(d[k], kept[k]) for k in d)
