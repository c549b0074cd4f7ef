"""The short ways through a call: what grad and generated code keep between calls, checked to
let go when what they kept no longer holds.

``grad`` keeps, per number of arguments, the generated rrule it may go straight to; a call of a
user function from generated code keeps the rrule it used last; a function called through a
value (``step(model, y, p)`` calling ``f(y, p)``) is remembered as one with no rule. Each test
warms these up, then changes the argument types, the function's code, the registry, or the
way it is called, and compares with central finite differences (never with s2sad itself).
"""
import numpy as np
import pytest

import s2sad
from s2sad.errors import NonFiniteDerivativeError
from finite_differences import numerical_gradient


def model(y, p):
    return p * y * y - 0.5 * y


def step(f, y, p):
    return y + 0.1 * f(y, p)


def trajectory(p):
    y = 1.0 + 0.0 * p
    for _ in range(3):
        y = step(model, y, p)
    return y


def cubic_model(y, p):
    return p * y * y * y


def check_gradient(gradient_function, f, *args):
    got = gradient_function(*args)
    np.testing.assert_allclose(got, numerical_gradient(f, args, 0), rtol=1e-6, atol=1e-9)
    return got


@pytest.fixture()
def fresh_model():
    """``model``'s code, put back after a test that replaces it."""
    code = model.__code__
    yield
    model.__code__ = code


def test_a_function_called_through_a_value_follows_a_replaced_code_object(fresh_model):
    gradient = s2sad.grad(trajectory)
    check_gradient(gradient, trajectory, 0.3)
    check_gradient(gradient, trajectory, 0.3)    # (the remembered way)
    model.__code__ = cubic_model.__code__
    assert trajectory(0.3) != pytest.approx(1.0 + 0.1 * (0.3 - 0.5))  # the new code runs
    check_gradient(gradient, trajectory, 0.3)
    check_gradient(gradient, trajectory, np.array([0.3, -0.2]).sum())


def test_a_function_called_through_a_value_takes_a_rule_registered_later():
    def scaled(y, p):
        return p * np.sin(y)

    def stepped(p):
        y = 0.4 + 0.0 * p
        for _ in range(2):
            y = step(scaled, y, p)
        return y

    gradient = s2sad.grad(stepped)
    check_gradient(gradient, stepped, 0.7)
    check_gradient(gradient, stepped, 0.7)
    used = []

    def scaled_vjp(g, ans, y, p):
        used.append(True)
        return g * p * np.cos(y), g * np.sin(y)

    s2sad.defvjp_all(scaled, "y, p", scaled_vjp)
    try:
        check_gradient(gradient, stepped, 0.7)
        assert used  # the rule, not the remembered source
    finally:
        s2sad.unregister(scaled)
    used.clear()
    check_gradient(gradient, stepped, 0.7)  # and its source again once the rule is gone
    assert not used


def test_a_function_called_through_a_value_by_keyword_or_with_its_default():
    def damped(y, p, damping=0.5):
        return p * y - damping * y * y

    def by_keyword(p):
        y = 0.8 + 0.0 * p
        y = step(damped, y, p)                       # in order: the short way
        return y + 0.1 * damped(y, p=p) + 0.1 * damped(y, p, 0.25)

    gradient = s2sad.grad(by_keyword)
    for _ in range(2):
        check_gradient(gradient, by_keyword, 0.9)


def test_grads_short_way_follows_argument_types():
    def f(x):
        return np.sum(np.sin(x) * x) if isinstance(x, np.ndarray) else np.sin(x) * x

    gradient = s2sad.grad(f)
    x = np.array([0.3, -1.2, 2.0])
    for _ in range(2):
        check_gradient(gradient, f, 0.4)
        got = check_gradient(gradient, f, x)
        assert got.dtype == np.float64 and not np.shares_memory(got, x)
        single = gradient(x.astype(np.float32))
        assert single.dtype == np.float32
        np.testing.assert_allclose(single, numerical_gradient(f, (x,), 0), rtol=1e-5)
        check_gradient(gradient, f, x.reshape(3, 1))
    with pytest.raises(s2sad.ArgumentError, match="int"):
        gradient(2)
    with pytest.raises(s2sad.ArgumentError, match="dtype int64"):
        gradient(np.arange(3))
    check_gradient(gradient, f, 0.4)


def saturating(x, y):
    t = x * 1e300
    return y / (1.0 + t * t)  # finite (0.0) where t overflows, and its derivative 0 * inf by the chain rule


def product(x, y):
    return x * y


def test_grads_short_way_refuses_a_nan_gradient_of_floats():
    at = (1e-300, 2.0)  # t = 1: every intermediate finite
    expected = [numerical_gradient(saturating, at, 0, eps=1e-306), numerical_gradient(saturating, at, 1)]
    for argnums in (0, (0, 1), 1):
        gradient = s2sad.grad(saturating, argnums=argnums)
        for _ in range(2):  # the first call the long way, the second the short one
            np.testing.assert_allclose(gradient(*at), expected[argnums] if argnums in (0, 1) else expected, rtol=1e-6)
            if argnums == 1:
                assert gradient(1e10, 3.0) == 0.0
            else:
                with pytest.raises(NonFiniteDerivativeError, match="saturating"):
                    gradient(1e10, 3.0)
    gradient = s2sad.grad(product, argnums=(0, 1))
    assert gradient(2.0, 3.0) == (3.0, 2.0) and gradient(2.0, 3.0) == (3.0, 2.0)
    assert np.isnan(gradient(float("nan"), 3.0)[1])  # a NaN argument: the NaN is what was asked for


def test_a_gradient_a_rule_pulls_back_as_an_argument_is_handed_over_as_a_copy():
    def weighted(x, w):
        return np.sum(x * w)

    # the cotangent of x at g = 1 is w itself, of w a view of x: handed over, both must be copies
    s2sad.defvjp_all(weighted, "x, w", lambda g, ans, x, w: (w if g == 1 else g * w, x[::1] if g == 1 else g * x))

    def through_source(x, w):
        return weighted(x, w)

    x, w = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0])
    try:
        for f in (weighted, through_source):
            for _ in range(2):
                dx = s2sad.grad(f)(x, w)
                dw = s2sad.grad(f, argnums=1)(x, w)
                np.testing.assert_allclose(dx, numerical_gradient(f, (x, w), 0), rtol=1e-6)
                np.testing.assert_allclose(dw, numerical_gradient(f, (x, w), 1), rtol=1e-6)
                assert not np.shares_memory(dx, w) and not np.shares_memory(dw, x)
    finally:
        s2sad.unregister(weighted)
