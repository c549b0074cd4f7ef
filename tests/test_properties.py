"""Reading and assigning attributes that are not stored fields: a ``@property`` of the user's
class is differentiated through its getter, a class constant has no cotangent, and anything
that runs code s2sad does not see (a property setter, ``cached_property``, a descriptor,
``__getattr__``) is refused by name and line.

Before this, ``obj.prop`` was taken for a stored field: the cotangent went to a field named
``prop`` that nothing reads, and the gradient of a plain class's property was silently wrong
(0 where the answer is 2w); on a dataclass it crashed inside the pullback. A property setter
(``obj.prop = v``) gave a wrong number too. Every gradient here is checked against central
finite differences."""
import dataclasses
import functools
import warnings
from collections import namedtuple

import numpy as np
import pytest

import s2sad
from s2sad.runtime.tangents import Tangent
from finite_differences import assert_gradients_match, numerical_gradient

rng = np.random.default_rng(12)


class Params:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    @property
    def squared_norm(self):
        return np.sum(self.w ** 2) + np.sum(self.b ** 2)

    @property
    def doubled(self):
        return 2.0 * self.w

    @property
    def penalty(self):
        return 0.5 * self.squared_norm + np.sum(self.doubled)  # a property reading properties

    def predict(self, x):
        return np.tanh(x @ self.doubled + self.b)


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    gain = 1.5  # a class constant (no annotation: not a field)

    @property
    def scaled(self):
        return self.gain * self.W

    def __call__(self, x):
        return x @ self.scaled + self.b


class Hidden:
    """A value stored under another name and read through a property."""

    def __init__(self, w):
        self._w = w

    @property
    def w(self):
        return self._w


class Slotted:
    __slots__ = ("w",)

    def __init__(self, w):
        self.w = w


class Point(namedtuple("Point", "x y")):
    __slots__ = ()

    @property
    def radius(self):
        return np.sqrt(self.x ** 2 + self.y ** 2)


def plain_class_property(w, b):
    return Params(w, b).squared_norm * 3.0


def property_of_properties(w, b):
    return Params(w, b).penalty


def property_inside_a_method(w, b, x):
    return np.sum(Params(w, b).predict(x) ** 2)


def dataclass_property_and_constant(W, b, x):
    layer = Layer(W, b)
    return np.sum(np.sin(layer(x))) + np.sum(layer.scaled) * layer.gain


def renamed_store(w):
    return np.sum(Hidden(w).w ** 3)


def slotted(w):
    return np.sum(np.cos(Slotted(w).w))


def namedtuple_property(x, y):
    return np.sum(Point(x, y).radius)


W, B, X = rng.standard_normal((3, 2)), rng.standard_normal(2), rng.standard_normal((4, 3))
CASES = {
    "plain class property": (plain_class_property, (W[:, 0], B), (0, 1)),
    "a property reading properties": (property_of_properties, (W, B), (0, 1)),
    "a property read in a method": (property_inside_a_method, (W, B, X), (0, 1)),
    "dataclass property and class constant": (dataclass_property_and_constant, (W, B, X), (0, 1)),
    "a field stored under another name": (renamed_store, (W[:, 0],), (0,)),
    "__slots__ field": (slotted, (W[:, 1],), (0,)),
    "namedtuple subclass property": (namedtuple_property, (W[:, 0], W[:, 1]), (0, 1)),
}


@pytest.mark.parametrize("compile_", [False, True], ids=["numpy", "compiled"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_through_properties_match_finite_differences(name, compile_):
    f, args, argnums = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        gradients = s2sad.grad(f, argnums=argnums, compile=compile_)(*args)
    assert_gradients_match(f, args, argnums, gradients)


def test_the_property_of_a_plain_class_has_the_hand_derived_gradient():
    w, b = np.array([1.0, -2.0]), np.array([0.5])
    dw, db = s2sad.grad(plain_class_property, argnums=(0, 1))(w, b)
    np.testing.assert_allclose(dw, 6.0 * w)  # d/dw 3 (|w|^2 + |b|^2)
    np.testing.assert_allclose(db, 6.0 * b)


def test_the_gradient_with_respect_to_an_object_holds_only_its_fields():
    params = Params(np.array([1.0, 2.0]), np.array([0.5]))
    gradient = s2sad.grad(lambda p: p.penalty)(params)
    # penalty = 0.5 (|w|^2 + |b|^2) + 2 sum(w): d/dw = w + 2, d/db = b
    assert sorted(gradient.fields) == ["b", "w"]
    np.testing.assert_allclose(gradient.w, params.w + 2.0)
    np.testing.assert_allclose(gradient.b, params.b)


@pytest.mark.parametrize("name", ["plain class property", "a property read in a method",
                                  "dataclass property and class constant", "namedtuple subclass property"])
def test_forward_mode_through_properties_matches_finite_differences(name):
    f, args, argnums = CASES[name]
    direction = rng.standard_normal(np.shape(args[0]))
    _, tangent = s2sad.jvp(lambda a: f(a, *args[1:]), (args[0],), (direction,))
    expected = np.sum(numerical_gradient(f, args, 0) * direction)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)


def reads_the_property(params):
    return params.squared_norm


def reads_the_fields(params):
    return np.sum(params.w ** 3) + np.sum(params.b ** 2)


def test_hessians_through_a_property_and_through_fields_are_the_hand_derived_ones():
    params = Params(np.array([1.0, -2.0]), np.array([0.5]))
    direction = Tangent(Params, {"w": np.array([1.0, 3.0]), "b": np.array([2.0])})
    got = s2sad.hvp(reads_the_property, (params,), (direction,))
    np.testing.assert_allclose(got.w, 2.0 * direction.w)  # squared_norm's Hessian is 2 I
    np.testing.assert_allclose(got.b, 2.0 * direction.b)
    got = s2sad.hvp(reads_the_fields, (params,), (direction,))
    np.testing.assert_allclose(got.w, 6.0 * params.w * direction.w)  # Hessian of sum(w^3) is diag(6w)
    np.testing.assert_allclose(got.b, 2.0 * direction.b)


class Constant:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def energy(self):
        return np.sum(self.w ** 2) + np.sum(self.b ** 2)


def method_with_a_constant_field(w):
    return Constant(w, np.ones(2)).energy()


def test_forward_mode_through_a_method_of_an_object_holding_a_constant():
    """The method's forward code reads `self.b`, which has no tangent: it used to crash with
    `ZeroTangent does not support ufuncs`."""
    w, direction = rng.standard_normal(3), rng.standard_normal(3)
    _, tangent = s2sad.jvp(method_with_a_constant_field, (w,), (direction,))
    np.testing.assert_allclose(tangent, 2.0 * w @ direction, rtol=1e-12)


class Setter:
    def __init__(self, w):
        self._w = w

    @property
    def w(self):
        return self._w * 2.0

    @w.setter
    def w(self, value):
        self._w = value ** 2


def assigns_through_a_setter(x):
    s = Setter(x)
    s.w = x + 1.0  # stores (x + 1)^2: a structural write would have taken it for x + 1
    return np.sum(s.w * x)


class Cached:
    def __init__(self, w):
        self.w = w

    @functools.cached_property
    def cubed(self):
        return np.sum(self.w ** 3)


def reads_a_cached_property(x):
    return Cached(x).cubed


class Dynamic:
    def __init__(self, w):
        self.w = w

    def __getattr__(self, name):
        return self.w * 2.0


def reads_through_getattr(x):
    return np.sum(Dynamic(x).doubled)


@pytest.mark.parametrize("f, construct, line_text", [
    (assigns_through_a_setter, "assigning `Setter.w`", "s.w = x + 1.0"),
    (reads_a_cached_property, "reading `Cached.cubed`", "return Cached(x).cubed"),
    (reads_through_getattr, "reading `Dynamic.doubled`", "return np.sum(Dynamic(x).doubled)"),
])
@pytest.mark.parametrize("compile_", [False, True], ids=["numpy", "compiled"])
def test_attributes_computed_by_unseen_code_are_refused_at_the_line(f, construct, line_text, compile_):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(s2sad.S2SADError) as caught:
            s2sad.grad(f, compile=compile_)(rng.standard_normal(3))
    message = str(caught.value)
    assert construct in message and "test_properties.py" in message and line_text in message
