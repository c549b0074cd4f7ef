"""Chained comparisons (``lo < x < hi``) and ``enumerate(xs, start)``, as users write them: gradients
(reverse), tangents (forward), Hessian-vector products and compile=True, against central
differences in float64 of the plain function; and Python's order of evaluation kept (the middle
operand evaluated once, the right one only when the left comparison holds)."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient


def penalised_in_a_band(x):
    total = 0.0
    for v in x:
        if 0.5 < v < 2.5:
            total += v ** 2
        elif v >= 2.5 > 1.0:
            total += 3.0 * v
    return total


def inside_bounds(x, lo=0.0, hi=10.0):
    if lo <= np.sum(x) <= hi:
        return np.sum(x ** 2)
    return np.sum(np.sin(x))


def ordered_pair(x):
    return float(1.0 < x[0] < x[1] < 4.0) * x[0] + x[1]


def weighted_by_position(x, first=2):
    total = 0.0
    for i, v in enumerate(x, first):
        total += i * v ** 2
    for j, (a, b) in enumerate(zip(x, x[::-1]), start=-1):
        total += j * a * b
    return total


def steps_counted_from_one(x, rate):
    for step, w in enumerate([1.0, 0.5, 0.25], start=1):
        x = x - rate * w * x ** 2 / step
    return np.sum(x)


X = np.array([1.0, 3.0, 2.0, 0.1])
PROGRAMS = [
    (penalised_in_a_band, (X,)),
    (inside_bounds, (X,)),
    (inside_bounds, (X * 5.0,)),          # the other branch
    (ordered_pair, (np.array([1.5, 3.0]),)),
    (ordered_pair, (np.array([3.5, 3.0]),)),
    (weighted_by_position, (X,)),
    (steps_counted_from_one, (X, 0.1)),
]
IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(PROGRAMS)]


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_gradient_and_tangent_match_central_differences(f, args):
    expected = numerical_gradient(f, args, 0)
    np.testing.assert_allclose(s2sad.grad(f)(*args), expected, rtol=1e-6, atol=1e-8)
    direction = np.linspace(0.3, -0.7, args[0].size)
    _, tangent = s2sad.jvp(f, args, (direction,) + tuple(np.zeros_like(np.asarray(a)) * 0.0 for a in args[1:]))
    np.testing.assert_allclose(tangent, expected @ direction, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", PROGRAMS, ids=IDS)
def test_hessian_vector_product_matches_second_differences(f, args):
    v = np.linspace(0.2, 1.0, args[0].size)
    u = np.linspace(-0.5, 0.4, args[0].size)
    product = s2sad.hvp(lambda x: f(x, *args[1:]), (args[0],), (v,))
    assert_hvp_matches(product, lambda x: f(x, *args[1:]), (args[0],), (v,), (u,), rtol=1e-4, atol=1e-6)


def in_a_band(x, y):
    if 0.0 < x < y:
        return x * y
    return x - y


def counted(x, y):
    total = 0.0
    for i, v in enumerate([x, y, x * y], 1):
        total += i * v
    return total


@pytest.mark.parametrize("f, args, expected", [
    (in_a_band, (0.5, 2.0), (2.0, 0.5)),
    (in_a_band, (3.0, 2.0), (1.0, -1.0)),
    (in_a_band, (-1.0, 2.0), (1.0, -1.0)),
    (counted, (2.0, 3.0), (1.0 + 3 * 3.0, 2.0 + 3 * 2.0)),
])
def test_compiled_and_numpy_paths_give_the_hand_derived_gradient(f, args, expected):
    assert s2sad.grad(f, argnums=(0, 1))(*args) == pytest.approx(expected, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (without Numba, compile=True takes the NumPy path and says so)
        assert s2sad.grad(f, argnums=(0, 1), compile=True)(*args) == pytest.approx(expected, rel=1e-12)


calls = []


def middle(x):
    calls.append("middle")
    return np.sum(x)


def right(x):
    calls.append("right")
    return 10.0


def evaluates_as_python_does(x):
    if 0.0 < middle(x) < right(x):
        return np.sum(x ** 2)
    return np.sum(x)


@pytest.mark.parametrize("x, order, expected", [
    (np.array([1.0, 2.0]), ["middle", "right"], [2.0, 4.0]),
    (np.array([-1.0, -2.0]), ["middle"], [1.0, 1.0]),   # `0.0 < middle` fails: `right` is not called
])
def test_the_middle_is_evaluated_once_and_the_right_only_when_needed(x, order, expected):
    calls.clear()
    gradient = s2sad.grad(evaluates_as_python_does)(x)
    assert calls == order
    np.testing.assert_allclose(gradient, expected)


def chained_on_arrays(x):
    return np.sum(x * (0.0 < x < 1.0))


def test_a_chained_comparison_of_arrays_raises_as_python_does():
    x = np.array([0.5, 2.0])
    with pytest.raises(ValueError, match="truth value"):
        chained_on_arrays(x)
    with pytest.raises(ValueError, match="truth value"):
        s2sad.grad(chained_on_arrays)(x)
