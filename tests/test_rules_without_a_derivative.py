"""A user's rule that gives no derivative for a parameter (None in its slot, or nothing after the
last one given) is refused where a differentiated float reaches that parameter, in every mode; its
derivative was taken for 0, a wrong gradient whenever the function depends on it (d/dp of
sum(|x| ** p) is not 0). Ints, flags and values not differentiated pass, and in forward mode a
tangent of 0 given for it."""
import numpy as np
import pytest

import s2sad
from tests.finite_differences import mixed_second_difference, numerical_gradient


def power(x, p):
    return np.abs(x) ** p


def total_power(x, p):
    return np.sum(power(x, p))


@pytest.fixture
def power_rule():
    s2sad.defderivative(power, "x, p", "p * np.abs(x) ** (p - 1) * np.sign(x)", None)
    yield
    s2sad.differentiate_source(power)


X = np.array([0.3, -0.5, 1.2])


def test_differentiated_in_x_with_p_a_float_or_an_int(power_rule):
    for p in (3.0, 3):
        np.testing.assert_allclose(s2sad.grad(total_power)(X, p), numerical_gradient(total_power, (X, p), 0), rtol=1e-6)


@pytest.mark.parametrize("run", [
    lambda: s2sad.grad(total_power, argnums=1)(X, 3.0),
    lambda: s2sad.grad(total_power, argnums=(0, 1))(X, 3.0),
    lambda: s2sad.jvp(total_power, (X, 3.0), (np.zeros(3), 1.0)),
    lambda: s2sad.hvp(total_power, (X, 3.0), (np.ones(3), 1.0)),
], ids=["grad", "grad-both", "jvp", "hvp"])
def test_a_differentiated_exponent_is_refused_at_the_users_line(power_rule, run):
    assert numerical_gradient(total_power, (X, 3.0), 1) != 0.0  # what the old 0 missed
    with pytest.raises(s2sad.MissingRuleError, match="no derivative for its parameter `p`") as caught:
        run()
    assert caught.value.location.filename == __file__


def test_hvp_with_a_tangent_of_zero_for_it_needs_no_derivative_in_it(power_rule):
    """With ``v_p = 0``, (H v)_x and (H v)_p are derivatives of <grad_x f, v_x>, which the rule gives:
    against mixed second differences (an hvp refused it while its value's cotangent, 0.0 * value, was
    pulled back through the missing derivative)."""
    v = np.array([1.0, 0.5, -0.3])
    product_x, product_p = s2sad.hvp(total_power, (X, 3.0), (v, 0.0))
    units = [(e, 0.0) for e in np.eye(3)] + [(np.zeros(3), 1.0)]
    expected = [mixed_second_difference(total_power, [X, 3.0], [d, dp], [v, 0.0]) for d, dp in units]
    np.testing.assert_allclose([*product_x, product_p], expected, rtol=1e-6)


def test_a_tangent_of_zero_for_it_passes_in_forward_mode(power_rule):
    value, tangent = s2sad.jvp(total_power, (X, 3.0), (np.ones(3), 0.0))
    np.testing.assert_allclose(tangent, np.sum(numerical_gradient(total_power, (X, 3.0), 0)), rtol=1e-6)
