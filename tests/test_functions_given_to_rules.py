"""A lambda reading the function's variables, given to a rule that calls it (``functools.reduce``,
``scipy.integrate.odeint``): reverse mode refused it, but forward mode dropped the values' tangents
where the rule's other arguments had none (jvp 0.0 where central differences give 4.0 and -0.607).
Now refused in both modes at the call's line; a ``key`` (which only orders) stays differentiated."""
import functools

import numpy as np
import pytest
from scipy import integrate

import s2sad
from finite_differences import numerical_gradient

X = np.array([0.5, -1.0, 2.0])


def reduce_with_a_lambda_reading_x(x):
    return functools.reduce(lambda a, b: a * b + x[0], [1.0, 2.0, 3.0])


def odeint_with_a_lambda_reading_x(x):
    solution = integrate.odeint(lambda y, t: -x[0] * y, 1.0, np.linspace(0.0, 1.0, 5))
    return float(solution[-1, 0])


def decay(y, t, k):
    return -k * y


def odeint_with_args(x):
    solution = integrate.odeint(decay, 1.0, np.linspace(0.0, 1.0, 5), args=(x[0],))
    return float(solution[-1, 0])


def sorted_by_a_key_reading_x(x):
    return sorted([3.0, 1.0, 2.0], key=lambda v: v * x[0])[0] * x[1]


@pytest.mark.parametrize("f", [reduce_with_a_lambda_reading_x, odeint_with_a_lambda_reading_x], ids=lambda f: f.__name__)
def test_refused_in_both_modes_at_the_call(f):
    for run in (lambda: s2sad.grad(f)(X), lambda: s2sad.jvp(f, (X,), (np.array([1.0, 0.0, 0.0]),))):
        with pytest.raises(s2sad.S2SADError, match="holds numbers|reads the function's variables") as raised:
            run()
        assert raised.value.location.filename == __file__


@pytest.mark.parametrize("f", [odeint_with_args, sorted_by_a_key_reading_x], ids=lambda f: f.__name__)
def test_differentiated_where_the_values_reach_the_rule_as_arguments(f):
    expected = numerical_gradient(f, [X], 0)
    np.testing.assert_allclose(s2sad.grad(f)(X), expected, rtol=1e-5, atol=1e-7)
    direction = np.array([1.0, 0.5, -0.3])
    _, tangent = s2sad.jvp(f, (X,), (direction,))
    assert tangent == pytest.approx(expected @ direction, rel=1e-5, abs=1e-7)


def max_and_min_by_a_key_reading_x(x):
    items = [3.0 * x[1], 1.0, x[2]]
    return max(items, key=lambda v: v * x[0]) + 2.0 * min(items, key=lambda v: abs(v - x[0]))


def test_a_key_of_max_and_min_is_a_function_that_only_chooses_in_both_modes():
    # the rules declare `key` a chooser (Rule.choosers): no refusal, and its held x[0] adds nothing
    expected = numerical_gradient(max_and_min_by_a_key_reading_x, [X], 0)
    direction = np.array([1.0, 0.5, -0.3])
    _, tangent = s2sad.jvp(max_and_min_by_a_key_reading_x, (X,), (direction,))
    assert tangent == pytest.approx(expected @ direction, rel=1e-5, abs=1e-7)
    np.testing.assert_allclose(s2sad.grad(max_and_min_by_a_key_reading_x)(X), expected, rtol=1e-5, atol=1e-7)
