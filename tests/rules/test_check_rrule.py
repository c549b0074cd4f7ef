"""s2sad/testing.py: check_rrule passes good rules and names what is wrong with bad ones."""
import numpy as np

import s2sad
import pytest

import s2sad  # noqa: F401
from s2sad.registry import defrrule, defvjp, unregister
from s2sad.runtime.tangents import NO_TANGENT
from s2sad.testing import check_rrule, numerical_gradient


def cube(x, n=3):
    return x ** 3


@pytest.fixture
def registered():
    yield
    unregister(cube)


BAD_RULES = [
    ("2 * g * x ** 2", r"argument 0 \('x'\)"),                    # wrong formula
    ("np.sum(3 * g * x ** 2)", "shape"),                          # wrong shape
    ("(3 * g * x ** 2).astype(np.float64)", "dtype"),             # promotes float32
]


@pytest.mark.parametrize("template, message", BAD_RULES)
def test_wrong_rules_are_caught(registered, template, message):
    defvjp(cube, "x, n=3", template)
    with pytest.raises(AssertionError, match=message) as error:
        check_rrule(cube, np.linspace(0.5, 1.5, 4).astype(np.float32))
    assert "cube" in str(error.value)


def test_a_good_rule_passes(registered):
    defvjp(cube, "x, n=3", "3 * g * x ** 2")
    check_rrule(cube, np.linspace(0.5, 1.5, 4).astype(np.float32))
    check_rrule(cube, 1.5)
    check_rrule(cube, np.array(1.5), 3)


def test_int_argument_needs_no_tangent(registered):
    defvjp(cube, "x, n=3", "3 * g * x ** 2", "g * 0.0")
    with pytest.raises(AssertionError, match="argument 1 .*NO_TANGENT"):
        check_rrule(cube, 1.5, 3)


def test_declared_none_is_checked_by_finite_differences(registered):
    defvjp(cube, "x, n=3", None)
    with pytest.raises(AssertionError, match="argument 0"):
        check_rrule(cube, 1.5)


def test_wrong_number_of_cotangents(registered):
    def cube_rrule(x, n=3):
        return cube(x), lambda dy: (NO_TANGENT,)

    defrrule(cube, cube_rrule)
    # a user's rrule is checked as it runs (a RuleError naming it); check_rrule would say it too
    with pytest.raises((AssertionError, s2sad.RuleError), match="cotangents"):
        check_rrule(cube, 1.5)


def test_missing_rule():
    with pytest.raises(AssertionError, match="no rule"):
        check_rrule(cube, 1.5)


def test_numerical_gradient():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(numerical_gradient(lambda v: np.sum(v ** 3), x), 3 * x ** 2, rtol=1e-7)
    gx, gy = numerical_gradient(lambda a, b: a * np.sum(b), 2.0, x, argnums=(0, 1))
    assert gx == pytest.approx(np.sum(x)) and type(gx) is float
    np.testing.assert_allclose(gy, np.full(3, 2.0), rtol=1e-7)
