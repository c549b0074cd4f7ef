"""Closures returned by factories (issue 16, item 3): ``def make_loss(target): def loss(w): return
np.sum((w - target) ** 2); return loss``. A nested ``def`` that returns one expression, used as a
value, is the lambda it is equivalent to (a closure over what it reads, differentiated through its
calls); differentiating the returned closure itself reads its cells as they are when it runs. A
cell the factory changes after the closure is made, and a default holding a differentiated value,
are refused at the line. Every gradient against central differences in float64."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, numerical_gradient, refusal_in


def make_loss(target):
    def loss(w):
        """Squared distance to the target."""
        return np.sum((w - target) ** 2)
    return loss


def make_affine(W, b):
    def affine(x: np.ndarray) -> np.ndarray:
        return np.tanh(W @ x + b)
    return affine


def closure_over_the_differentiated_value(w):
    f = make_loss(w)
    return f(np.ones(3) * 0.5)


def closure_called_twice(w):
    f = make_loss(w)
    return f(np.ones(3) * 0.5) + f(w * 3.0)


def closure_over_a_constant_called_on_it(w):
    f = make_loss(np.ones(3))
    return f(w) * 2.0


def layer_from_a_factory(x):
    W = np.outer(x, x) * 0.3 + np.eye(3)
    layer = make_affine(W, np.sin(x))
    return np.sum(layer(layer(x)))


@pytest.mark.parametrize("function", [closure_over_the_differentiated_value, closure_called_twice,
                                      closure_over_a_constant_called_on_it, layer_from_a_factory])
def test_a_closure_from_a_factory_is_differentiated_through_what_it_holds(function):
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(function, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))
    np.testing.assert_allclose(s2sad.grad(function, compile=True)(x), s2sad.grad(function)(x), rtol=1e-12)


def make_settable(t):
    def loss(w):
        return np.sum((w - t) ** 2)

    def set_t(v):
        nonlocal t
        t = v
    return loss, set_t


def test_the_returned_closure_reads_its_cell_as_it_is_when_it_runs():
    loss, set_t = make_settable(np.array([1.0, 2.0, 3.0]))
    x = np.array([0.1, 0.2, 0.3])
    assert_every_mode_matches(loss, x, np.ones(3), np.arange(3.0))
    set_t(np.array([5.0, -1.0, 0.0]))  # the cell rebound after the first gradient
    np.testing.assert_allclose(s2sad.grad(loss)(x), numerical_gradient(loss, [x], 0), rtol=1e-6)
    np.testing.assert_allclose(s2sad.grad(loss)(x), 2 * (x - np.array([5.0, -1.0, 0.0])), rtol=1e-12)


def make_rebound(t):
    def loss(w):  # marker: rebound
        return np.sum((w - t) ** 2)
    t = t * 2.0
    return loss


def closure_whose_cell_is_rebound(w):
    f = make_rebound(w * 0.5)
    return f(np.ones(3) * 0.5)


def make_from_a_list(ws):
    def loss(w):  # marker: list changed
        return np.sum(w * ws[0])
    ws.append(np.ones(3))
    return loss


def closure_over_a_list_changed_after(x):
    f = make_from_a_list([x])
    return f(np.ones(3))


def make_with_a_default(t):
    def loss(w, k=t):
        return np.sum((w - k) ** 2)
    return loss  # marker: default


def closure_with_a_differentiated_default(w):
    f = make_with_a_default(w)
    return f(np.ones(3))


def make_with_two_statements(t):
    def loss(w):
        d = w - t
        return np.sum(d ** 2)
    return loss  # marker: two statements


def closure_of_two_statements(w):
    f = make_with_two_statements(w)
    return f(np.ones(3))


@pytest.mark.parametrize("function, marker, message", [
    (closure_whose_cell_is_rebound, "rebound", "which the function changes after"),
    (closure_over_a_list_changed_after, "list changed", "which the function changes after"),
    (closure_with_a_differentiated_default, "default", "takes a default value from a differentiated variable"),
    (closure_of_two_statements, "two statements", "does more than return one expression"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_closure_s2sad_cannot_hold_is_refused_at_its_line(function, marker, message, mode):
    caught = refusal_in(mode, function, np.linspace(-0.5, 0.7, 3), message)
    assert f"# marker: {marker}" in caught.location.text
