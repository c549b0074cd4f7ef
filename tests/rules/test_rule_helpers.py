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


def reference_safe_divide(num, den):
    """safe_divide's contract spelled out element by element, in Python: 0 where num is 0."""
    num_b, den_b = np.broadcast_arrays(np.asarray(num), np.asarray(den))
    dtype = np.result_type(num, den, 1.0)
    out = np.empty(num_b.shape, dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for index in np.ndindex(num_b.shape):
            n, d = num_b[index], den_b[index]
            out[index] = 0 if n == 0 else np.divide(dtype.type(n), dtype.type(d))
    return out


SAFE_DIVIDE = [
    (np.array([0.0, -0.0, 1.0, np.nan, 0.0, 2.0]), np.array([0.0, 3.0, 0.0, 1.0, np.nan, -np.inf])),
    (np.array([0.0, 1.5], np.float32), np.array([0.0, 0.5], np.float32)),
    (np.array([0.0, 1.5], np.float32), np.array([2.0, 0.5])),
    (np.array([0j, 1 + 1j, complex(0, np.nan), 2j]), np.array([0.0, 0.0, 1.0, 1j])),
    (np.array([[0.0, 1.0], [2.0, 0.0]]), np.array([0.0, 4.0])),      # den broadcast: num's shape
    (np.array([0.0, 1.0]), np.array([[0.0, 4.0], [2.0, 0.0]])),      # num broadcast: the general path
    (np.array([0.0, 3.0]), 0.0),
    (np.array(0.0), np.array(0.0)),                                   # 0-d in: a NumPy scalar out
    (np.array([0, 3]), np.array([0.0, 2.0])),                         # integer num: the general path
]


@pytest.mark.parametrize("num, den", SAFE_DIVIDE, ids=str)
def test_safe_divide_against_its_element_by_element_contract(num, den):
    num_before = np.array(num, copy=True)
    out = safe_divide(num, den)
    expected = reference_safe_divide(num, den)
    assert np.shape(out) == expected.shape and np.result_type(out) == expected.dtype
    np.testing.assert_array_equal(out, expected)
    assert np.array_equal(np.signbit(np.real(out)), np.signbit(np.real(expected)))  # +0, never -0, where num is 0
    assert out is not num and not np.shares_memory(out, num)
    np.testing.assert_array_equal(num, num_before)
    if np.ndim(out) == 0:
        assert not isinstance(out, np.ndarray)


def test_conj_returns_real_values_themselves_and_conjugates_complex_ones():
    for x in (1.5, 2, np.float64(1.5), np.ones(3), np.ones(3, np.float32)):
        assert helpers.conj(x) is x
    z = np.array([1 + 2j, -1j])
    np.testing.assert_array_equal(helpers.conj(z), [1 - 2j, 1j])
    assert helpers.conj(np.complex128(1 + 2j)) == 1 - 2j and helpers.conj(1 + 2j) == 1 - 2j
    np.testing.assert_array_equal(helpers.conj([1 + 1j, 2.0]), [1 - 1j, 2.0])


def test_unbroadcast_to_a_python_float():
    for v, expected in ((np.float64(2.5), 2.5), (np.array(2.5), 2.5), (np.array([1.0, 2.0, 3.5]), 6.5),
                        (np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), 10.0), (np.array([1 + 2j, 3 - 1j]), 4.0),
                        (np.float32(1.25), 1.25), (2, 2.0)):
        out = unbroadcast(v, 0.0)
        assert type(out) is float and out == expected, (v, out)


def test_unbroadcast_same_shape_other_dtype_casts():
    out = unbroadcast(np.ones(3, np.float32), np.zeros(3))
    assert out.dtype == np.float64
    v = np.ones(3, np.float32)
    assert unbroadcast(v, np.zeros(3, np.float32)) is v
    assert unbroadcast(v, np.zeros(3, np.dtype("float32").newbyteorder(">"))).dtype == np.dtype(">f4")


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


def test_expand_reduced_of_a_full_reduction_of_a_small_array():
    for a, g in ((np.zeros(3), 2.5), (np.zeros((2, 2), np.float32), np.float64(1.5)), (np.zeros(2, complex), 1 - 2j),
                 (np.zeros(4), np.array(3.0)), (np.zeros((2, 3)), np.ones((1, 1)))):
        out = expand_reduced(g, a, None, np.ndim(g) > 0, True)
        expected = np.broadcast_to(np.asarray(g, a.dtype), a.shape)
        assert type(out) is np.ndarray and out.shape == a.shape and out.dtype == a.dtype and out.flags.writeable
        np.testing.assert_array_equal(out, expected)
        assert not np.shares_memory(out, a)
    assert expand_reduced(ZERO, np.zeros(3), None, False, True) is ZERO
    assert expand_reduced(1.0, np.zeros(3, int), None, False, True) is NO_TANGENT
