"""scipy.integrate.odeint: the adjoint method (reverse) and forward sensitivities against
central finite differences of the plain call (skipped without SciPy)."""
import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")

import s2sad  # noqa: E402
from s2sad.errors import UnsupportedArgumentsError  # noqa: E402



def lotka_volterra(y, t, theta):
    return np.array([theta[0] * y[0] - theta[1] * y[0] * y[1], theta[2] * y[0] * y[1] - theta[3] * y[1]])


def forced_decay(y, t, k, amplitude):
    return -k * y + amplitude * np.sin(3.0 * t)


def predator_prey_loss(theta, y0, t):
    ys = integrate.odeint(lotka_volterra, y0, t, args=(theta,), rtol=1e-10, atol=1e-10)
    return np.sum(ys[-1] ** 2) + np.sum(ys[1:-1] * 0.5)


def decay_loss(k, amplitude, y0):
    ys = integrate.odeint(forced_decay, y0, np.linspace(0.0, 1.5, 5), (k, amplitude), rtol=1e-10, atol=1e-10)
    return np.sum(np.tanh(ys))


THETA, Y0, T = np.array([1.0, 0.4, 0.3, 0.8]), np.array([1.0, 0.5]), np.array([0.0, 0.4, 1.1, 2.0])


def test_reverse_mode_in_the_parameters_the_initial_state_and_the_times():
    gradients = s2sad.grad(predator_prey_loss, argnums=(0, 1, 2))(THETA, Y0, T)
    for position, gradient in enumerate(gradients):
        expected = _fd(predator_prey_loss, [THETA, Y0, T], position)
        np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-6)


def test_forward_mode_matches_the_same_derivative():
    directions = [np.array([0.3, -0.2, 0.5, 0.1]), np.array([0.2, 0.7]), np.array([0.0, 0.1, -0.2, 0.3])]
    _, tangent = s2sad.jvp(predator_prey_loss, (THETA, Y0, T), directions)
    expected = sum(np.sum(_fd(predator_prey_loss, [THETA, Y0, T], i) * d) for i, d in enumerate(directions))
    np.testing.assert_allclose(tangent, expected, rtol=1e-5, atol=1e-6)


def test_float_arguments_passed_positionally_and_a_scalar_state():
    args = [0.7, 0.3, 1.2]
    gradients = s2sad.grad(decay_loss, argnums=(0, 1, 2))(*args)
    for position, gradient in enumerate(gradients):
        assert isinstance(gradient, float)
        np.testing.assert_allclose(gradient, _fd(decay_loss, args, position), rtol=1e-5, atol=1e-6)


def full_output(y0):
    ys, info = integrate.odeint(forced_decay, y0, [0.0, 1.0], args=(0.5, 0.1), full_output=1)
    return np.sum(ys)


def test_options_without_a_rule_are_refused():
    with pytest.raises(UnsupportedArgumentsError, match="full_output"):
        s2sad.grad(full_output)(np.array([1.0]))


def _fd(function, args, position, h=1e-6):
    args = [np.asarray(a, dtype=float) if not isinstance(a, float) else a for a in args]
    x = args[position]
    if isinstance(x, float):
        return (function(*args[:position], x + h, *args[position + 1:])
                - function(*args[:position], x - h, *args[position + 1:])) / (2 * h)
    out = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        out[index] = (function(*args[:position], x + step, *args[position + 1:])
                      - function(*args[:position], x - step, *args[position + 1:])) / (2 * h)
    return out
