"""A NaN derivative of a finite value is refused (s2sad/finiteness.py), never handed back.

Where an intermediate is infinite but the value does not depend on it, the derivative of
NumPy's function is finite (here 0, by finite differences), while the chain rule's 0 * inf
gives NaN. The fuzzer found both kinds below: an element at a pole the result never reads,
and an overflow that np.tanh saturates.
"""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient
from markers import line_marked
from s2sad.errors import NonFiniteDerivativeError

FILE = __file__


def unread_element_at_a_pole(x):  # pole
    return np.sum((1.0 / x)[1:])


def saturated_overflow(a, x):  # overflow
    return np.tanh(np.sum((1.5 + x) ** (a * 1000.0)))


def square_root(x):
    return np.sum(np.sqrt(x))


AT_THE_POLE = np.array([0.0, 0.5, 1.0])


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def test_the_reference_is_finite_where_the_chain_rule_gives_nan():
    expected = numerical_gradient(unread_element_at_a_pole, [AT_THE_POLE], 0)
    np.testing.assert_allclose(expected[1:], [-4.0, -1.0])
    assert expected[0] == 0.0


@pytest.mark.parametrize("mode", ["grad", "value_and_grad", "vjp", "rrule"])
def test_a_nan_derivative_of_a_finite_value_is_refused_naming_the_function(mode):
    with pytest.raises(NonFiniteDerivativeError) as raised:
        if mode == "grad":
            s2sad.grad(unread_element_at_a_pole)(AT_THE_POLE)
        elif mode == "value_and_grad":
            s2sad.value_and_grad(unread_element_at_a_pole)(AT_THE_POLE)
        elif mode == "vjp":
            s2sad.vjp(unread_element_at_a_pole, AT_THE_POLE)[1](1.0)
        else:
            s2sad.rrule(unread_element_at_a_pole, AT_THE_POLE)[1](1.0)
    error = raised.value
    assert error.location.filename == FILE and error.location.line == line_marked(FILE, "pole")
    assert "NaN" in error.message and error.hint


def test_the_jvp_drops_the_pole_with_the_element():
    """Forward mode carries the infinite tangent in the element the slice drops: right, not NaN."""
    _, tangent = s2sad.jvp(unread_element_at_a_pole, (AT_THE_POLE,), (np.ones(3),))
    assert tangent == pytest.approx(-5.0)


def test_an_overflow_the_result_saturates_is_refused():
    a, x = 1.3, np.array([0.3, 0.8])
    assert np.isfinite(saturated_overflow(a, x))
    np.testing.assert_allclose(numerical_gradient(saturated_overflow, [a, x], 1), 0.0)
    with pytest.raises(NonFiniteDerivativeError):
        s2sad.grad(saturated_overflow, argnums=1)(a, x)
    with pytest.raises(NonFiniteDerivativeError) as raised:
        s2sad.jvp(saturated_overflow, (a, x), (0.0, np.ones(2)))
    assert raised.value.location.line == line_marked(FILE, "overflow")


def test_away_from_the_pole_the_gradient_is_handed_back():
    x = np.array([0.25, 0.5, 1.0])
    np.testing.assert_allclose(s2sad.grad(unread_element_at_a_pole)(x),
                               numerical_gradient(unread_element_at_a_pole, [x], 0), rtol=1e-6)


def test_a_nan_the_caller_asked_for_is_handed_back():
    """A NaN cotangent, or a function whose value is NaN, gives a NaN derivative: no refusal."""
    x = np.array([0.25, 0.5, 1.0])
    assert np.isnan(s2sad.vjp(unread_element_at_a_pole, x)[1](np.nan)[0][1:]).all()
    assert np.isnan(s2sad.grad(square_root)(np.array([-1.0, 4.0]))[0])


def test_an_infinite_derivative_is_a_derivative():
    """sqrt's slope at 0 is infinite: that is the derivative, not a NaN."""
    gradient = s2sad.grad(square_root)(np.array([0.0, 4.0]))
    assert gradient[0] == np.inf and gradient[1] == 0.25


def test_has_nan_looks_at_every_kind_of_gradient():
    from s2sad.runtime.finiteness import has_nan
    from s2sad.runtime.tangents import Tangent

    nan = float("nan")
    cases = [
        (1.0, False), (nan, True), (np.array([1.0, 2.0]), False), (np.array([1.0, nan]), True),
        (np.array([np.inf, -np.inf]), False),  # the sum is NaN, no element is
        (np.array([1e200, -1e200, 3.0]), False),  # squares overflow to inf: still no NaN
        (np.array([[np.inf, 1.0], [-np.inf, nan]]), True), (np.array([[np.inf], [-np.inf]]), False),
        (np.array([1.0, 2.0, nan], np.float32), True), (np.arange(6.0)[::2], False), (np.array([nan, 1.0])[::-1], True),
        (np.array([1, 2]), False), (np.array([complex(1, nan)]), True), (np.float64(nan), True),
        ((1.0, 2.0), False), ((1.0, nan), True), ((nan, 1.0), True), ((1.0, np.array([nan])), True),
        ((1.0, (2.0, np.array([1.0, nan]))), True), ((1.0, [2.0, 3.0]), False), ([1.0, nan], True),
        ({"a": np.array([nan])}, True), (Tangent(dict, {"a": 1.0, "b": np.array([nan])}), True), ((), False),
    ]
    for value, expected in cases:
        assert bool(has_nan(value)) == expected, value


def test_a_nan_derivative_from_data_nansum_skips_says_so():
    # np.nansum skips the NaN, the chain rule reads it again (2 * NaN * 0): refused, and the
    # message now names that cause, not only infinite intermediates
    def squared_residuals(x, data):
        return np.nansum((data - x) ** 2)

    with pytest.raises(NonFiniteDerivativeError, match="np.nansum") as caught:
        s2sad.grad(squared_residuals)(np.zeros(2), np.array([1.0, np.nan]))
    assert "np.isnan(data)" in caught.value.hint
