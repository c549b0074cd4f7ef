"""rules/helpers.py: the functions templates call."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.rules import helpers
from s2sad.rules.helpers import expand_reduced, safe_divide, tie_share, unbroadcast, untake
from s2sad.runtime.tangents import NO_TANGENT, ZERO, unthunk


def test_all_names_exist_and_are_callable():
    for name in helpers.__all__:
        assert callable(getattr(helpers, name)), name


UNBROADCAST = [
    # (cotangent, primal, expected)
    (2.5, 1.0, 2.5),
    (np.ones((2, 3)), 1.0, 6.0),
    (np.ones((2, 3)), np.zeros(3), np.full(3, 2.0)),
    (np.ones((2, 3)), np.zeros((2, 1)), np.full((2, 1), 3.0)),
    (np.ones((4, 2, 3)), np.zeros((1, 3)), np.full((1, 3), 8.0)),
    (np.ones(3), np.zeros(()), np.array(3.0)),
    (np.float64(2.0), np.zeros((2, 2)), np.full((2, 2), 2.0)),
]


@pytest.mark.parametrize("v, like, expected", UNBROADCAST, ids=str)
def test_unbroadcast(v, like, expected):
    out = unbroadcast(v, like)
    np.testing.assert_array_equal(out, expected)
    assert np.shape(out) == np.shape(like)


def test_unbroadcast_types():
    assert type(unbroadcast(np.float64(2.0), 1.0)) is float
    assert unbroadcast(np.ones(3), 2) is NO_TANGENT
    assert unbroadcast(np.ones(3), np.arange(3)) is NO_TANGENT
    assert unbroadcast(np.ones(3), True) is NO_TANGENT
    assert unbroadcast(ZERO, np.ones(3)) is ZERO
    out = unbroadcast(np.ones(3), np.float32(1.0))
    assert type(out) is np.float32 and out == 3.0
    assert unbroadcast(np.ones(3, np.float64), np.zeros(3, np.float32)).dtype == np.float32
    v = np.ones(3)
    assert unbroadcast(v, np.zeros(3)) is v


def test_safe_divide():
    assert safe_divide(0.0, 0.0) == 0.0
    assert safe_divide(1.0, 0.0) == np.inf
    assert safe_divide(-1.0, 0.0) == -np.inf
    assert safe_divide(3.0, 2.0) == 1.5
    out = safe_divide(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, np.nan]))
    np.testing.assert_array_equal(out, [0.0, np.inf, 0.0])
    assert safe_divide(np.float32(0.0), np.float32(0.0)).dtype == np.float32
    assert safe_divide(ZERO, 0.0) is ZERO


def test_expand_reduced():
    a = np.zeros((2, 3, 4), np.float32)
    out = expand_reduced(np.ones((2, 4)), a, 1)
    assert out.shape == a.shape and out.dtype == np.float32
    assert expand_reduced(np.ones((2, 1, 4)), a, 1, True).shape == a.shape
    assert expand_reduced(np.ones(3), a, (0, -1)).shape == a.shape
    assert expand_reduced(2.0, 1.5) == 2.0


def test_untake():
    like = np.zeros(4)
    np.testing.assert_array_equal(unthunk(untake(np.ones(3), [0, 0, 2], like)), [2, 0, 1, 0])
    np.testing.assert_array_equal(unthunk(untake(5.0, 1, like)), [0, 5, 0, 0])
    np.testing.assert_array_equal(unthunk(untake(np.ones(2), np.array([True, False, False, True]), like)), [1, 0, 0, 1])
    assert untake(ZERO, 1, like) is ZERO
    assert untake(1.0, 0, (1.0, 2.0)) == (1.0, ZERO)
    assert untake(np.ones(2), 0, np.arange(4)) is NO_TANGENT


def test_tie_share():
    assert tie_share(1.0, 2.0, 2.0, 2.0) == 0.5
    assert tie_share(1.0, 1.0, 2.0, 2.0) == 0.0
    np.testing.assert_array_equal(tie_share(np.ones(3), np.array([1.0, 2, 3]), np.array([1.0, 0, 4]),
                                            np.array([1.0, 2, 4])), [0.5, 1, 0])


def test_output_parts():
    from collections import namedtuple

    from s2sad.rules.helpers import output_parts
    from s2sad.runtime.tangents import Tangent, Thunk

    pair = namedtuple("Pair", "first second")
    assert output_parts(ZERO, 2) == (ZERO, ZERO)
    assert output_parts(NO_TANGENT, 3) == (ZERO, ZERO, ZERO)
    assert output_parts((1.0, ZERO), 2) == (1.0, ZERO)
    assert output_parts([None, NO_TANGENT, 2.0], 3) == (ZERO, ZERO, 2.0)
    assert output_parts(Tangent(pair, second=3.0), 2, ("first", "second")) == (ZERO, 3.0)
    assert output_parts(Tangent(list, {1: 4.0}), 2) == (ZERO, 4.0)
    assert output_parts(Thunk(lambda: (Thunk(lambda: 5.0), 6.0)), 2) == (5.0, 6.0)
    with pytest.raises(ValueError, match="3 elements"):
        output_parts((1.0, 2.0, 3.0), 2)
