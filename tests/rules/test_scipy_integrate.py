"""Rules of rules/scipy_integrate.py: odeint by the adjoint method (reverse) and the tangent
equation (forward), against central finite differences of odeint run to tight tolerances
(skipped without SciPy)."""
import functools

import numpy as np
import pytest

integrate = pytest.importorskip("scipy.integrate")
from scipy.integrate import odeint  # noqa: E402

import s2sad  # noqa: E402
from s2sad.registry import rule_for  # noqa: E402
from s2sad.testing import check_grad, numerical_gradient  # noqa: E402
from s2sad.forward_check import pushforward as push  # noqa: E402

TIGHT = {"rtol": 1e-11, "atol": 1e-11}
rng = np.random.default_rng(41)


# ------------------------------------------------------------------ equations, defined at module level
def pendulum(y, t, theta):
    return np.array([y[1], -theta[0] * np.sin(y[0]) - theta[1] * y[1] + 0.1 * np.cos(t)])


def pendulum_time_first(t, y, theta):
    return pendulum(y, t, theta)


def decay_as_a_list(y, t, rate, offset, label):
    assert label == "decay"                     # a string among args: passed along, not differentiated
    return [-rate * y[0] + offset, rate * y[0] - 2 * y[1]]


def logistic(y, t, r, capacity):
    return r * y * (1 - y / capacity)


def lotka_volterra(y, t, a, b):
    prey, predator = y
    return np.array([a * prey - b * prey * predator, b * prey * predator - a * predator])


# ------------------------------------------------------------------ differentiated programs
def pendulum_loss(y0, theta, t):
    ys = odeint(pendulum, y0, t, args=(theta,), rtol=1e-11, atol=1e-11)
    return np.sum(ys ** 2)


def pendulum_time_first_loss(y0, theta, t):
    ys = odeint(pendulum_time_first, y0, t, args=(theta,), tfirst=True, rtol=1e-11, atol=1e-11)
    return np.sum(np.sin(ys))


def decay_loss(y0, rate, offset):
    ys = odeint(decay_as_a_list, y0, np.linspace(0.0, 1.5, 4), args=(rate, offset, "decay"), rtol=1e-11, atol=1e-11)
    return np.sum(ys[1:] * np.array([1.0, -2.0]))


def logistic_fit(r, capacity, y0, data):
    ys = odeint(logistic, y0, np.linspace(0.0, 3.0, 7), args=(r, capacity), rtol=1e-11, atol=1e-11)
    return np.mean((ys[:, 0] - data) ** 2)


def lotka_volterra_backwards_in_time(y0, a, b):
    ys = odeint(lotka_volterra, y0, np.array([2.0, 1.2, 0.5, 0.0]), args=(a, b), rtol=1e-11, atol=1e-11)
    return np.sum(ys[-1] * ys[1])


def assert_gradients(f, *args, argnums):
    gradients = s2sad.grad(f, argnums=argnums)(*args)
    for index, gradient in zip(argnums, gradients):
        np.testing.assert_allclose(gradient, numerical_gradient(f, *args, argnums=index), rtol=1e-6, atol=1e-8,
                                   err_msg=f"{f.__name__}: argument {index}")
        assert np.shape(gradient) == np.shape(args[index])
    return gradients


def assert_tangent(f, *args):
    directions = [rng.standard_normal(np.shape(a)) if np.ndim(a) else float(rng.standard_normal()) for a in args]
    _, tangent = s2sad.jvp(f, args, directions)
    h = 1e-5
    up = f(*[a + h * d for a, d in zip(args, directions)])
    down = f(*[a - h * d for a, d in zip(args, directions)])
    np.testing.assert_allclose(tangent, (up - down) / (2 * h), rtol=1e-6, atol=1e-8, err_msg=f.__name__)


def test_gradient_in_y0_args_and_the_time_grid():
    args = (np.array([1.0, 0.2]), np.array([1.5, 0.3]), np.linspace(0.0, 2.0, 5))
    assert_gradients(pendulum_loss, *args, argnums=(0, 1, 2))
    assert_gradients(pendulum_time_first_loss, *args, argnums=(0, 1, 2))
    assert_tangent(pendulum_loss, *args)
    assert_tangent(pendulum_time_first_loss, *args)


def test_float_args_a_list_output_and_args_without_a_gradient():
    args = (np.array([1.0, 0.5]), 0.7, 0.2)
    rate_gradient = assert_gradients(decay_loss, *args, argnums=(0, 1, 2))[1]
    assert type(rate_gradient) is float                               # a Python float's gradient is a float
    assert_tangent(decay_loss, *args)


def test_a_model_fit_and_integration_backwards_in_time():
    data = np.linspace(0.1, 0.9, 7)
    assert_gradients(logistic_fit, 1.3, 1.1, np.array([0.1]), data, argnums=(0, 1, 2))
    assert_gradients(lotka_volterra_backwards_in_time, np.array([1.0, 0.5]), 0.8, 0.4, argnums=(0, 1, 2))
    assert_tangent(lotka_volterra_backwards_in_time, np.array([1.0, 0.5]), 0.8, 0.4)


def test_dtypes_and_shapes():
    y0, theta, t = np.array([1.0, 0.2], np.float32), np.array([1.5, 0.3], np.float32), np.linspace(0, 1, 3)
    d_y0, d_theta = s2sad.grad(pendulum_loss, argnums=(0, 1))(y0, theta, t)
    assert d_y0.dtype == d_theta.dtype == np.float32
    check_grad(pendulum_loss, y0.astype(np.float64), theta.astype(np.float64), t, argnums=(0, 1))


@pytest.mark.parametrize("t", [np.array([0.0]), np.array([0.0, 0.5, 0.5, 1.0]), np.array([1.0, 0.0])],
                         ids=["one time", "a repeated time", "backwards"])
def test_rule_against_finite_differences_on_edge_grids(t):
    y0, theta = np.array([0.3, -0.4]), np.array([2.0, 0.1])
    y, pullback = rule_for(odeint).rrule(pendulum, y0, t, (theta,), **TIGHT)
    g = rng.standard_normal(y.shape)
    _, _, d_y0, d_t, (d_theta,) = pullback(g)[:5]
    for value, cotangent, index in ((y0, d_y0, 1), (t, d_t, 2)):
        direction = rng.standard_normal(value.shape)
        if index == 2:  # repeated times move together: odeint takes no grid out of order
            direction = np.array([direction[np.flatnonzero(t == time)[0]] for time in t])
        h = 1e-4  # odeint is smooth to its tolerance only: a larger step, less of its noise

        def moved(step):
            args = [pendulum, y0, t, (theta,)]
            args[index] = value + step * direction
            return np.sum(g * odeint(*args, **TIGHT))

        np.testing.assert_allclose(np.sum(cotangent * direction), (moved(h) - moved(-h)) / (2 * h), rtol=1e-5,
                                   atol=1e-8)
    direction = rng.standard_normal(2)
    h = 1e-4
    moved = [np.sum(g * odeint(pendulum, y0, t, (theta + s * direction,), **TIGHT)) for s in (h, -h)]
    np.testing.assert_allclose(np.sum(d_theta * direction), (moved[0] - moved[1]) / (2 * h), rtol=1e-5, atol=1e-8)
    # the forward rule is the transpose of the reverse one
    for name, value, cotangent in (("y0", y0, d_y0), ("t", t, d_t), ("args", (theta,), (d_theta,))):
        direction = tuple(rng.standard_normal(np.shape(v)) for v in value) if name == "args" else \
            rng.standard_normal(np.shape(value))
        tangent = push(odeint, pendulum, y0, t, (theta,), tangents={name: direction}, **TIGHT)
        np.testing.assert_allclose(np.sum(tangent * g), np.sum([np.sum(c * d) for c, d in zip(cotangent, direction)])
                                   if name == "args" else np.sum(cotangent * direction), rtol=1e-7, atol=1e-9,
                                   err_msg=name)


def full_output_loss(y0):
    ys, info = odeint(logistic, y0, np.linspace(0, 1, 3), args=(1.0, 2.0), full_output=True)
    return np.sum(ys)


def tcrit_loss(y0):
    return np.sum(odeint(logistic, y0, np.linspace(0, 1, 3), args=(1.0, 2.0), tcrit=np.array([0.5])))


def container_args_loss(y0, theta):
    return np.sum(odeint(pendulum_of_a_dict, y0, np.linspace(0, 1, 3), args=({"theta": theta},)))


def pendulum_of_a_dict(y, t, parameters):
    return pendulum(y, t, parameters["theta"])


@pytest.mark.parametrize("f, match", [(full_output_loss, "full_output"), (tcrit_loss, "tcrit")])
def test_unsupported_options_are_refused(f, match):
    with pytest.raises(s2sad.S2SADError, match=match):
        s2sad.grad(f)(np.array([0.5]))
    with pytest.raises(s2sad.S2SADError, match=match):
        s2sad.jvp(f, (np.array([0.5]),), (np.array([1.0]),))


def test_args_holding_containers_are_refused():
    with pytest.raises(s2sad.S2SADError, match="separate args"):
        s2sad.grad(container_args_loss)(np.array([1.0, 0.2]), np.array([1.5, 0.3]))


class Decay:
    def __init__(self, rate):
        self.rate = rate

    def rhs(self, y, t):
        return -self.rate * y


def closure_over(rate):
    def rhs(y, t):
        return -rate * y
    return rhs


@pytest.mark.parametrize("func", [closure_over(np.array([0.7])), functools.partial(logistic, r=1.0, capacity=2.0),
                                  Decay(0.7).rhs], ids=["closure", "partial", "bound method"])
def test_a_func_holding_numbers_is_refused(func):
    """What func holds might be differentiated: its gradient would be lost (args are differentiated instead)."""
    y0, t = np.array([1.0]), np.linspace(0, 1, 3)
    _, pullback = rule_for(odeint).rrule(func, y0, t)
    with pytest.raises(s2sad.S2SADError, match="holds numbers"):
        pullback(np.ones((3, 1)))
    with pytest.raises(s2sad.S2SADError, match="holds numbers"):
        push(odeint, func, y0, t, tangents={"y0": np.ones(1)})



def initial_state_as_a_list(a, b):
    ys = odeint(lotka_volterra, [a, 2 * b], np.linspace(0, 1, 3), args=(0.8, 0.4), rtol=1e-11, atol=1e-11)
    return np.sum(ys ** 2)


def initial_state_with_a_constant(a):
    return np.sum(odeint(lotka_volterra, [a, 1.0], np.linspace(0, 1, 3), args=(0.8, 0.4), rtol=1e-11, atol=1e-11))


def test_y0_given_as_a_list_of_differentiated_floats():
    assert_gradients(initial_state_with_a_constant, 0.7, argnums=(0,))
    assert_tangent(initial_state_with_a_constant, 0.7)
    assert_gradients(initial_state_as_a_list, 1.0, 0.5, argnums=(0, 1))
    assert_tangent(initial_state_as_a_list, 1.0, 0.5)
    _, tangent = s2sad.jvp(initial_state_as_a_list, (1.0, 0.5), (1.0, 0.0))  # one item of the list moves
    np.testing.assert_allclose(tangent, numerical_gradient(initial_state_as_a_list, 1.0, 0.5), rtol=1e-6)


def test_second_derivatives_are_refused_not_wrong():
    with pytest.raises(s2sad.S2SADError):
        s2sad.hessian(pendulum_loss)(np.array([1.0, 0.2]), np.array([1.5, 0.3]), np.linspace(0, 1, 3))
