"""A module-level object of a user's class called as a function (``model(x)``, as PyTorch-style code
writes it): differentiated as ``model.__call__(x)``, in both modes, and read again when the object,
its fields or its class change between calls. References: hand-derived gradients and central
differences in float64."""
import numpy as np

import s2sad
from finite_differences import numerical_gradient


class Quadratic:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return self.scale * np.sum(x ** 2)


class Cubic:
    def __call__(self, x):
        return np.sum(x ** 3)


model = Quadratic(2.0)


def loss(x):
    return model(x) + Quadratic(0.5)(x)


def test_a_called_object_is_differentiated_as_its_call_method():
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(s2sad.grad(loss)(x), numerical_gradient(loss, [x], 0), rtol=1e-7)
    np.testing.assert_allclose(s2sad.grad(loss)(x), 5.0 * x)
    _, tangent = s2sad.jvp(loss, (x,), (np.ones(3),))
    assert tangent == np.sum(5.0 * x)
    np.testing.assert_allclose(s2sad.hvp(loss, (x,), (np.ones(3),)), 5.0 * np.ones(3))


def test_the_object_its_fields_and_its_class_are_read_when_the_code_runs():
    global model
    x = np.array([1.0, 2.0])
    gradient = s2sad.grad(loss)
    try:
        np.testing.assert_allclose(gradient(x), 5.0 * x)
        model.scale = 3.0
        np.testing.assert_allclose(gradient(x), 7.0 * x)
        model = Quadratic(5.0)
        np.testing.assert_allclose(gradient(x), 11.0 * x)
        model = Cubic()
        np.testing.assert_allclose(gradient(x), 3.0 * x ** 2 + x)
    finally:
        model = Quadratic(2.0)
