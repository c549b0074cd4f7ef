"""Assigning attributes of objects the function made (issue 16, item 5): ``p.w = v``, ``p.w += v``,
in branches and loops, in both modes against central finite differences; and the refusals
where Python's change of the object would be seen through another name or by the caller."""
import copy
import dataclasses
import types

import numpy as np
import pytest

import s2sad
from finite_differences import assert_gradients_match

rng = np.random.default_rng(5)


@dataclasses.dataclass
class State:
    x: np.ndarray
    v: np.ndarray


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray


class Regressor:
    def __init__(self, theta):
        self.theta = theta
        self.l2 = 0.1
        self.fitted = False


class Layer:
    """A class whose constructor computes: objects of it are copied from a template, not built inside."""

    def __init__(self, n):
        self.W = np.eye(n)
        self.b = np.zeros(n)


TEMPLATE = Layer(3)


def leapfrog(x0, k, steps=6, dt=0.1):
    state = State(x0 * 1.0, np.zeros_like(x0))
    for _ in range(steps):
        state.v = state.v - 0.5 * dt * k * state.x
        state.x = state.x + dt * state.v
        state.v -= 0.5 * dt * k * state.x
    return np.sum(state.x ** 2) + 0.5 * np.sum(state.v ** 2)


def cloned_model(theta, X, y):
    model = copy.deepcopy(TEMPLATE)
    model.W = theta
    model.b = model.b + 0.1 * np.sum(theta)
    residual = X @ model.W + model.b - y
    return np.mean(residual ** 2)


def fitted_regressor(theta, X, y):
    reg = Regressor(theta)
    reg.theta = np.tanh(reg.theta)
    reg.fitted = True
    penalty = reg.l2 * np.sum(reg.theta ** 2)
    return np.sum((X @ reg.theta - y) ** 2) + penalty


def in_a_branch(x, clip=True):
    params = types.SimpleNamespace()
    params.w = x * 2.0
    params.scale = 1.5
    if clip:
        params.w = np.clip(params.w, -1.0, 1.0)
    else:
        params.scale = params.scale * np.sum(x)
    params.w += params.scale * x
    return np.sum(np.sin(params.w))


def copied_then_set(x):
    state = State(x, x ** 2)
    moved = copy.copy(state)
    moved.x = x * 3.0
    moved.v = moved.v + moved.x
    return np.sum(moved.v * state.v)


def reads_the_old_value_after(x):
    p = State(np.sin(x), np.cos(x))
    old = p.x
    p.x = old * 2.0
    p.x = p.x + x
    first = np.sum(p.x * old)
    p.v += p.x ** 2  # `old` is not read after this: the aliasing check is by object, not by field
    return first + np.sum(p.v)


def object_read_only_for_a_test(x):
    box = State(np.sin(x), x)  # built from differentiated values, its value not differentiated
    if box.x.shape == (3,):
        return np.sum(x ** 2)
    return np.sum(x)


X, Y = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
CASES = {
    "leapfrog loop": (leapfrog, lambda: (rng.standard_normal(4), 1.3), (0, 1)),
    "deepcopy of a global, then assigned": (cloned_model, lambda: (rng.standard_normal((3, 3)), X, Y), (0,)),
    "constructor storing constants": (fitted_regressor, lambda: (rng.standard_normal(3), X, Y[:, 0]), (0,)),
    "branch taken": (in_a_branch, lambda: (rng.standard_normal(3) * 0.3, True), (0,)),
    "branch not taken": (in_a_branch, lambda: (rng.standard_normal(3) * 0.3, False), (0,)),
    "old value read after": (reads_the_old_value_after, lambda: (rng.standard_normal(3),), (0,)),
    "object read only for a test": (object_read_only_for_a_test, lambda: (rng.standard_normal(3),), (0,)),
    "copy.copy then set": (copied_then_set, lambda: (rng.standard_normal(3),), (0,)),
}


def numerical_tangent(f, args, argnum, tangent, eps=1e-6):
    plus, minus = list(args), list(args)
    plus[argnum] = args[argnum] + eps * tangent
    minus[argnum] = args[argnum] - eps * tangent
    return (f(*plus) - f(*minus)) / (2 * eps)


@pytest.mark.parametrize("name", CASES)
def test_reverse_mode_matches_finite_differences(name):
    function, make, argnums = CASES[name]
    args = make()
    gradients = s2sad.grad(function, argnums=argnums)(*args)
    assert_gradients_match(function, args, argnums, gradients)


@pytest.mark.parametrize("name", CASES)
def test_forward_mode_matches_finite_differences(name):
    function, make, argnums = CASES[name]
    args = make()
    tangent = rng.standard_normal(np.shape(args[0]))
    value, pushed = s2sad.jvp(function, args, (tangent,) + (None,) * (len(args) - 1))
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    np.testing.assert_allclose(pushed, numerical_tangent(function, args, 0, tangent), rtol=1e-5, atol=1e-7)


def test_the_template_the_function_copied_is_left_as_it_was():
    before = copy.deepcopy(TEMPLATE.__dict__)
    s2sad.grad(cloned_model)(rng.standard_normal((3, 3)), X, Y)
    assert TEMPLATE.__dict__.keys() == before.keys()
    for key, value in before.items():
        np.testing.assert_array_equal(TEMPLATE.__dict__[key], value)


def changes_an_argument(model, x):
    model.W = x
    return np.sum(model.W ** 2)


def changes_a_global(x):
    TEMPLATE.b = x
    return np.sum(x)


def second_name_read_after(x):
    p = State(x, x)
    q = p
    p.x = 2.0 * x
    return np.sum(q.x)


def written_through_the_second_name(x):
    p = State(x, x)
    q = p
    q.x = 3.0 * x  # p is the same object: p.x is 3x (s2sad read the old p before: gradient 2x for 18x)
    return np.sum(p.x ** 2)


def held_in_a_list_read_after(x):
    p = State(x, x)
    states = [p]
    p.v = np.sin(x)
    return np.sum(states[0].v)


def made_by_a_helper(x):
    p = make_state(x)
    p.x = x * 2.0
    return np.sum(p.x)


def make_state(x):
    return State(x, x)


def objects_in_a_list(x):
    layers = [State(x, x), State(2.0 * x, x)]
    for layer in layers:
        layer.x = np.tanh(layer.x)
    return np.sum(layers[0].x + layers[1].x)


def nested_attribute(x):
    p = types.SimpleNamespace()
    p.inner = State(x, x)
    p.inner.x = x * 2.0
    return np.sum(p.inner.x)


class Scaled:
    def __init__(self, W):
        self.W = W

    def rebind(self, k):
        self.W = self.W * k

    def scale(self, k):
        self.W *= k


def method_changes_its_object(x):
    model = Scaled(x * 1.0)
    model.rebind(2.0)  # ran as plain Python, its change a constant's: gradient 3x for 4x
    return np.sum(model.W * x)


def method_changes_its_array_in_place(x):
    y = x * 1.0
    model = Scaled(y)
    model.scale(2.0)  # y is model.W: doubled too
    return np.sum(y * x)


@pytest.mark.parametrize("function, args, words", [
    (method_changes_its_object, (np.ones(3),), "does not use its result"),
    (method_changes_its_array_in_place, (np.ones(3),), "does not use its result"),
    (changes_an_argument, (Layer(3), np.ones(3)), "did not make"),
    (changes_a_global, (np.ones(3),), "did not make"),
    (second_name_read_after, (np.ones(3),), "`q` is read after the change"),
    (written_through_the_second_name, (np.ones(3),), "`p` is read after the change"),
    (held_in_a_list_read_after, (np.ones(3),), "`states` is read after the change"),
    (made_by_a_helper, (np.ones(3),), "comes from make_state"),
    (objects_in_a_list, (np.ones(3),), "did not make"),
    (nested_attribute, (np.ones(3),), "nested attribute"),
], ids=lambda value: getattr(value, "__name__", "")[:30])
def test_changes_python_would_show_elsewhere_are_refused_not_wrong(function, args, words):
    position = 1 if function is changes_an_argument else 0
    for run in (lambda: s2sad.grad(function, argnums=position)(*args),
                lambda: s2sad.jvp(function, args, tuple(np.ones(3) if i == position else None for i in range(len(args))))):
        with pytest.raises(s2sad.UnsupportedSyntaxError, match=words) as raised:
            run()
        assert raised.value.location.filename == __file__


def sets_a_frozen_field(x):
    f = Frozen(x)
    f.w = x * 2.0
    return np.sum(f.w)


def test_a_frozen_dataclass_raises_as_python_does():
    with pytest.raises(dataclasses.FrozenInstanceError):
        sets_a_frozen_field(np.ones(2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        s2sad.grad(sets_a_frozen_field)(np.ones(2))
