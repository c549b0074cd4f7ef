"""One derivative, both modes: ``defderivative`` (slope expressions) and ``defslopes`` (slope
functions) register the reverse and the forward rule from one definition. Each is checked
against the hand-derived derivative and central finite differences, never against s2sad."""
from __future__ import annotations

import numpy as np
import pytest

import s2sad
from s2sad.registry import unregister
from s2sad.registry.forward import forward_rule
from s2sad.registry.slopes import Explicit, defslopes, jvp_template
from s2sad.runtime.tangents import NO_TANGENT


def smooth_step(x, k):
    return np.tanh(k * x)


def log_cosh(z):
    return np.log(np.cosh(z))


def scaled_exp(x, c):
    return c * np.exp(x)


def uses_smooth_step(x, k):
    return np.sum(smooth_step(x, k) ** 2)


def uses_log_cosh(z):
    return np.sum(log_cosh(z) * np.arange(1.0, 1.0 + np.size(z)).reshape(np.shape(z)))


@pytest.fixture
def registered():
    functions = []
    yield functions.append
    for function in functions:
        unregister(function)


def central(f, x, v, step=1e-6):
    return (f(x + step * v) - f(x - step * v)) / (2 * step)


# ---------------------------------------------------------------- the forward template
@pytest.mark.parametrize("derivative, template", [
    ("1", "g"), ("-1", "-g"), ("2.5", "g * 2.5"), ("np.cos(x)", "g * (np.cos(x))"), ("1 - ans ** 2", "g * (1 - ans ** 2)"),
])
def test_a_slope_expression_becomes_the_tangent_times_the_slope(derivative, template):
    assert jvp_template(derivative) == template


# ---------------------------------------------------------------- defderivative: both modes
def test_defderivative_registers_the_forward_rule_too(registered):
    registered(smooth_step)
    s2sad.defderivative(smooth_step, "x, k", "k * (1 - ans ** 2)", "x * (1 - ans ** 2)")
    forward = forward_rule(smooth_step)
    assert forward is not None and forward.elementwise
    x, k = np.array([-1.5, 0.2, 0.9]), 1.7
    dx = np.array([0.3, -1.0, 2.0])
    value, tangent = s2sad.jvp(smooth_step, (x, k), (dx, 0.0))
    slope = k * (1 - np.tanh(k * x) ** 2)                              # by hand
    np.testing.assert_allclose(tangent, slope * dx, rtol=1e-12)
    np.testing.assert_allclose(tangent, central(lambda t: np.tanh(k * t), x, dx), rtol=1e-7)
    _, in_k = s2sad.jvp(smooth_step, (x, k), (np.zeros(3), 1.0))       # the tangent of a broadcast scalar
    np.testing.assert_allclose(in_k, x * (1 - np.tanh(k * x) ** 2), rtol=1e-12)


def test_defderivative_gradient_and_jvp_agree_with_finite_differences(registered):
    registered(smooth_step)
    s2sad.defderivative(smooth_step, "x, k", "k * (1 - ans ** 2)", "x * (1 - ans ** 2)")
    x, k = np.array([[-0.4, 0.1, 1.1], [0.7, -2.0, 0.05]]), 0.8
    gradient = s2sad.grad(uses_smooth_step)(x, k)
    for index in np.ndindex(x.shape):
        unit = np.zeros_like(x)
        unit[index] = 1.0
        assert gradient[index] == pytest.approx(central(lambda t: uses_smooth_step(t, k), x, unit), rel=1e-6)
    _, tangent = s2sad.jvp(uses_smooth_step, (x, k), (np.ones_like(x), 0.0))
    assert tangent == pytest.approx(central(lambda t: uses_smooth_step(t, k), x, np.ones_like(x)), rel=1e-6)


def test_defderivative_keeps_float32_in_both_modes(registered):
    registered(smooth_step)
    s2sad.defderivative(smooth_step, "x, k", "k * (1 - ans ** 2)", None)
    x = np.array([0.1, -0.3], dtype=np.float32)
    assert s2sad.grad(uses_smooth_step)(x, np.float32(2.0)).dtype == np.float32
    _, tangent = s2sad.jvp(smooth_step, (x, np.float32(2.0)), (np.ones(2, np.float32), np.float32(0.0)))
    assert tangent.dtype == np.float32


def test_defderivative_is_holomorphic_in_forward_mode_and_conjugates_in_reverse(registered):
    registered(log_cosh)
    s2sad.defderivative(log_cosh, "z", "np.tanh(z)")
    z, dz = np.array([0.3 + 0.4j, -1.0 + 0.2j]), np.array([1.0 - 0.5j, 0.2 + 1.0j])
    _, tangent = s2sad.jvp(log_cosh, (z,), (dz,))
    np.testing.assert_allclose(tangent, np.tanh(z) * dz, rtol=1e-12)        # f'(z) dz
    np.testing.assert_allclose(tangent, central(log_cosh, z, dz), rtol=1e-6)
    g = np.array([1.0 + 2.0j, -0.5j])
    _, pullback = s2sad.vjp(log_cosh, z)
    np.testing.assert_allclose(pullback(g)[0], g * np.conj(np.tanh(z)), rtol=1e-12)  # g conj(f'(z))


# ---------------------------------------------------------------- defslopes: slope functions
def log_cosh_slope(ans, z):
    return np.tanh(z)


def scaled_exp_slope_x(ans, x, c):
    return ans


def scaled_exp_slope_c(ans, x, c):
    return np.exp(x)


def test_defslopes_gives_both_modes_named_after_the_slope(registered):
    registered(scaled_exp)
    rule = defslopes(scaled_exp, "x, c", scaled_exp_slope_x, scaled_exp_slope_c)
    assert rule.vjps["x"].__name__ == "scaled_exp_vjp_x" and rule.vjps["c"].__name__ == "scaled_exp_vjp_c"
    assert forward_rule(scaled_exp).jvps["x"].__name__ == "scaled_exp_jvp_x"
    x, c = np.array([[0.1, -0.2, 0.5]]), np.array([[2.0], [3.0]])          # broadcast to (2, 3)
    _, pullback = s2sad.vjp(scaled_exp, x, c)
    g = np.ones((2, 3))
    dx, dc = pullback(g)
    np.testing.assert_allclose(dx, np.sum(c * np.exp(x), axis=0, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(dc, np.sum(np.exp(x) * np.ones((2, 3)), axis=1, keepdims=True), rtol=1e-12)
    _, tangent = s2sad.jvp(scaled_exp, (x, c), (np.ones_like(x), np.zeros_like(c)))
    np.testing.assert_allclose(tangent, central(lambda t: scaled_exp(t, c), x, np.ones_like(x)), rtol=1e-7)


def test_defslopes_complex_follows_the_convention(registered):
    registered(log_cosh)
    defslopes(log_cosh, "z", log_cosh_slope)
    z, dz = np.array([0.3 + 0.4j]), np.array([1.0 - 0.5j])
    _, tangent = s2sad.jvp(log_cosh, (z,), (dz,))
    np.testing.assert_allclose(tangent, central(log_cosh, z, dz), rtol=1e-6)
    _, pullback = s2sad.vjp(log_cosh, z)
    np.testing.assert_allclose(pullback(np.array([2.0 + 1.0j]))[0], (2.0 + 1.0j) * np.conj(np.tanh(z)), rtol=1e-12)
    assert s2sad.grad(uses_log_cosh)(np.array([0.5, -1.5])) == pytest.approx(np.tanh([0.5, -1.5]) * [1.0, 2.0])


def entropy_term(x):
    return -x * np.log(x)


def entropy_slope(ans, x):
    with np.errstate(divide="ignore"):
        return -np.log(x) - 1


def test_guarded_slopes_give_zero_where_the_seed_is_zero_and_the_slope_infinite(registered):
    registered(entropy_term)
    defslopes(entropy_term, "x", entropy_slope, guarded=True)
    x = np.array([0.0, 0.5])
    with np.errstate(invalid="ignore", divide="ignore"):
        _, pullback = s2sad.vjp(entropy_term, x)
        dx = pullback(np.array([0.0, 1.0]))[0]
        _, tangent = s2sad.jvp(entropy_term, (x,), (np.array([0.0, 1.0]),))
    assert dx[0] == 0.0 and dx[1] == pytest.approx(-np.log(0.5) - 1)
    assert tangent[0] == 0.0 and tangent[1] == pytest.approx(-np.log(0.5) - 1)


def refuse_a_float_order(g, ans, n, x):
    if np.result_type(n).kind == "f":
        raise s2sad.MissingRuleError("no derivative in the order")
    return NO_TANGENT


def order_power(n, x):
    return x ** n


def order_power_slope_x(ans, n, x):
    return n * x ** (n - 1)


def test_an_explicit_parameter_is_used_as_is_in_both_modes(registered):
    registered(order_power)
    defslopes(order_power, "n, x", Explicit(refuse_a_float_order), order_power_slope_x)
    assert s2sad.grad(lambda_free_power)(2.0) == pytest.approx(3 * 2.0 ** 2)
    with pytest.raises(s2sad.MissingRuleError):
        s2sad.grad(order_power, argnums=0)(3.0, 2.0)


def lambda_free_power(x):
    return order_power(3, x)
