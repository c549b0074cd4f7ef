"""Rules of rules/builtins.py."""
import builtins

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.runtime.tangents import NO_TANGENT
from s2sad.testing import check_rrule


def cotangents(f, *args, g=1.0):
    _, pullback = rule_for(f).rrule(*args)
    return pullback(g)[1:]


@pytest.mark.parametrize("x", [-1.5, 2.5, np.array([-1.0, 2.0]), np.float32(-0.5)], ids=repr)
def test_abs(x):
    check_rrule(builtins.abs, x)


def test_abs_at_zero():
    assert cotangents(builtins.abs, 0.0) == (0.0,)
    assert cotangents(builtins.abs, -2.0, g=3.0) == (-3.0,)


def test_pow():
    assert cotangents(builtins.pow, 2.0, 3.0) == pytest.approx((12.0, 8 * np.log(2)))
    check_rrule(builtins.pow, 1.3, 2.2)
    check_rrule(builtins.pow, 1.3, 2)


def test_float():
    (dx,) = check_rrule(builtins.float, np.array(1.5))
    assert np.shape(dx) == ()
    (dx,) = check_rrule(builtins.float, np.float32(1.5))
    assert dx.dtype == np.float32
    assert cotangents(builtins.float, "1.5") == (NO_TANGENT,)


def test_sum():
    items = [1.5, np.array([1.0, 2.0]), 2.5]
    (ditems, dstart) = cotangents(builtins.sum, items, 0.5, g=np.array([1.0, 2.0]))
    assert ditems[0] == 3.0 and type(ditems) is list
    np.testing.assert_array_equal(ditems[1], [1.0, 2.0])
    assert dstart == 3.0
    check_rrule(builtins.sum, (1.5, 2.5, -0.5))
    check_rrule(builtins.sum, [np.ones(3), np.ones((2, 3))], 0.5)


@pytest.mark.parametrize("f", [builtins.len, builtins.int, builtins.round, builtins.range, builtins.bool])
def test_nondifferentiable(f):
    assert rule_for(f).nondifferentiable


def _python_sum_of_squares(x):
    return sum(x * x)


def _python_sum_of_rows(A):
    return np.sum(sum(A ** 2, np.ones(3)) * np.arange(3.0))


@pytest.mark.parametrize("function, x", [
    (_python_sum_of_squares, np.array([0.3, -0.7, 1.2])),
    (_python_sum_of_rows, np.arange(6.0).reshape(2, 3) / 7),
], ids=["vector", "rows of a matrix"])
def test_sum_over_an_array_walks_its_first_axis(function, x):
    """sum(x) over an ndarray adds its rows (a crash from inside the rule before)."""
    from finite_differences import numerical_gradient

    np.testing.assert_allclose(s2sad.grad(function)(x), numerical_gradient(function, [x], 0), rtol=1e-6)
    value, tangent = s2sad.jvp(function, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(tangent, np.sum(numerical_gradient(function, [x], 0)), rtol=1e-6)
    assert s2sad.grad(function)(x.astype(np.float32)).dtype == np.float32
    z = x + 0.5j * x[::-1]
    np.testing.assert_allclose(cotangents(builtins.sum, z, 0, g=1.0)[0], np.ones_like(z))


def test_sum_over_an_iterator_is_refused_with_an_s2sad_error():
    with pytest.raises(s2sad.errors.MissingRuleError, match="not an iterator"):
        cotangents(builtins.sum, iter([1.0, 2.0]), 0)
