"""Rules of rules/builtins.py."""
import builtins

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.tangents import NO_TANGENT
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
