"""Classes defined inside the differentiated function (issue 16, item 5), in both modes against
central finite differences; the refusal when the class reads a variable of the function; errors
inside its methods point at the user's line."""
import dataclasses

import numpy as np
import pytest

import s2sad
from finite_differences import assert_gradients_match

rng = np.random.default_rng(55)


def two_layer_model(W1, W2, X, y):
    class Dense:
        def __init__(self, W):
            self.W = W

        def __call__(self, inputs):
            return np.tanh(inputs @ self.W)

    @dataclasses.dataclass
    class Loss:
        weight: float = 0.5

        def value(self, prediction, target):
            return self.weight * np.mean((prediction - target) ** 2)

    hidden = Dense(W1)(X)
    prediction = Dense(W2)(hidden)
    return Loss().value(prediction, y)


def with_a_class_constant(x):
    class Scaled:
        factor = 3.0

        def __init__(self, value):
            self.value = value

        def scaled(self):
            return self.value * Scaled.factor

    return np.sum(np.sin(Scaled(x).scaled()))


def local_object_changed(x):
    class Accumulator:
        def __init__(self, start):
            self.total = start

    acc = Accumulator(np.zeros_like(x))
    for k in range(3):
        acc.total = acc.total + np.sin(x * (k + 1))
    acc.total += x ** 2
    return np.sum(acc.total ** 2)


def class_reads_a_local(x, scale):
    class Scaled:
        def apply(self, v):
            return v * scale

    return np.sum(Scaled().apply(x))


def method_refused_inside(x):
    class Sorter:
        def sorted_sum(self, v):
            v.sort()
            return np.sum(v)

    return Sorter().sorted_sum(x * 1.0)


def numerical_tangent(f, args, tangent, eps=1e-6):
    plus, minus = list(args), list(args)
    plus[0], minus[0] = args[0] + eps * tangent, args[0] - eps * tangent
    return (f(*plus) - f(*minus)) / (2 * eps)


CASES = {
    "two layers and a dataclass loss": (two_layer_model, lambda: (rng.standard_normal((3, 4)) * 0.5,
                                                                  rng.standard_normal((4, 2)) * 0.5,
                                                                  rng.standard_normal((6, 3)), rng.standard_normal((6, 2))),
                                        (0, 1)),
    "class attribute": (with_a_class_constant, lambda: (rng.standard_normal(4),), (0,)),
    "its objects' attributes assigned": (local_object_changed, lambda: (rng.standard_normal(3),), (0,)),
}


@pytest.mark.parametrize("name", CASES)
def test_reverse_and_forward_match_finite_differences(name):
    function, make, argnums = CASES[name]
    args = make()
    assert_gradients_match(function, args, argnums, s2sad.grad(function, argnums=argnums)(*args))
    tangent = rng.standard_normal(np.shape(args[0]))
    value, pushed = s2sad.jvp(function, args, (tangent,) + (None,) * (len(args) - 1))
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    np.testing.assert_allclose(pushed, numerical_tangent(function, args, tangent), rtol=1e-5, atol=1e-8)


def test_a_class_reading_a_variable_of_the_function_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="reads the variable `scale`") as raised:
        s2sad.grad(class_reads_a_local)(np.ones(3), 2.0)
    assert raised.value.location.text.strip() == "class Scaled:"


def test_an_error_inside_a_method_points_at_the_users_line():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(method_refused_inside)(np.ones(3))
    assert raised.value.location.filename == __file__
    assert raised.value.location.text.strip() == "v.sort()"
