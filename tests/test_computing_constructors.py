"""Objects whose constructor computes, validates, takes defaults and keywords, is inherited or
chains ``super().__init__``: differentiated from the ``__init__``'s source (runtime/initializers.py).

Each derivative (grad, vjp, jvp, hvp) is checked against central finite differences in float64;
what cannot be differentiated is refused at the user's line.
"""
import dataclasses

import numpy as np
import pytest

import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient

w0 = np.array([0.3, -0.5, 1.2])
x0 = np.array([0.7, 0.2, -0.4])


class Scaled:
    """Validates, computes from its arguments, has a default and a keyword-only argument."""

    def __init__(self, w, k=2.0, *, shift=0.0):
        if k <= 0:
            raise ValueError("k must be positive")
        self.w2 = w * k + shift
        self.n = len(w)
        self.label = "scaled"

    def apply(self, x):
        return np.sum(np.tanh(self.w2 * x)) / self.n


class EarlyOut:
    def __init__(self, w, fast=False):
        self.a = w ** 2
        if fast:
            return
        self.b = np.sin(self.a)

    def total(self):
        return np.sum(self.a) + (np.sum(self.b) if hasattr(self, "b") else 0.0)


class Base:
    def __init__(self, w):
        self.w = np.exp(w)


class Child(Base):  # inherits the computing constructor
    def energy(self, x):
        return np.sum(self.w * x ** 2)


class Deep(Base):
    def __init__(self, w, c):
        super().__init__(w * c)
        self.c = c
        self.total = np.sum(self.w) * c


class Deeper(Deep):
    def __init__(self, w):
        super(Deeper, self).__init__(w, 2.0)
        self.extra = self.total ** 2


class Normed:
    def __init__(self, w):
        self.w = w
        self.norm = self.length()  # a method of the object being built

    def length(self):
        return np.sqrt(np.sum(self.w ** 2))


class Stores:
    def __init__(self, w):
        self.w = w


class StoresChild(Stores):  # inherits a storing constructor
    def f(self, x):
        return np.sum(self.w * x)


@dataclasses.dataclass
class P:
    a: np.ndarray


@dataclasses.dataclass
class Q(P):  # dataclass inheritance: the fields of both
    b: float

    def value(self):
        return np.sum(self.a ** 2) * self.b


@dataclasses.dataclass
class Fields:
    a: np.ndarray
    b: float
    scale: float = 0.5
    tag: str = dataclasses.field(default="fields", init=False)


class FromFields(Fields):  # its own __init__ over a dataclass's generated one, which has no source
    def __init__(self, w, b):
        super().__init__(np.sin(w), b=b * self_scale(b))
        self.scale = np.sum(self.a) * self.b * self.scale  # (a dataclass's object holds its fields only)


def self_scale(b):
    return b + 1.0


class Lin:
    def __init__(self, w, k):
        self.w2 = w * k

    def __call__(self, x):
        return self.w2 * x


class Inner:
    def __init__(self, a):
        self.a = np.sin(a)


class Outer:  # builds another object in its constructor
    def __init__(self, w):
        self.inner = Inner(w * 2.0)
        self.s = np.sum(self.inner.a)


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, w):
        self.a = w * 2.0
        self.b = np.cos(self.a)


def scaled_keywords(w, x, k):
    return Scaled(w, k, shift=0.1 * k).apply(x) + Scaled(w).apply(x)


def early_out(w):
    return EarlyOut(w).total() + EarlyOut(w * 2.0, fast=True).total()


def inherited(w, x):
    return Child(w).energy(x)


def chained(w, c):
    return Deep(w, c).total + np.sum(Deep(w, c).w * w)


def chained_twice(w):
    d = Deeper(w)
    return d.extra + np.sum(d.w) * d.c


def normed(w):
    return Normed(w).norm * np.sum(w)


def stores_child(w, x):
    return StoresChild(w).f(x)


def dataclass_child(a, b):
    return Q(a, b).value()


def called_object(w):
    return np.sum(Lin(w, 3.0)(np.array([2.0, 1.0, -1.0])) ** 2)


def nested_in_a_loop(w):
    total = 0.0
    for i in range(3):
        o = Outer(w * (i + 1))
        total = total + o.s * np.sum(o.inner.a ** 2)
    return total


def slotted(w):
    s = Slotted(w)
    return np.sum(s.a * s.b)


def class_through_a_variable(w, k):
    make = Scaled  # called through a value, a keyword differentiated
    return make(w, k=k).apply(w)


def dataclass_base(w, b):
    o = FromFields(w, b)
    return o.scale + np.sum(o.a ** 2) * o.b + (1.0 if o.tag == "fields" else 0.0)


CASES = [
    (dataclass_base, (w0, 0.7)),
    (nested_in_a_loop, (w0,)),
    (slotted, (w0,)),
    (class_through_a_variable, (w0, 1.7)),
    (scaled_keywords, (w0, x0, 1.5)),
    (early_out, (w0,)),
    (inherited, (w0, x0)),
    (chained, (w0, 0.8)),
    (chained_twice, (w0,)),
    (normed, (w0,)),
    (stores_child, (w0, x0)),
    (dataclass_child, (w0, 1.3)),
    (called_object, (w0,)),
]
IDS = [f.__name__ for f, _ in CASES]


def _directions(args, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=np.shape(a)) if np.ndim(a) else float(rng.normal()) for a in args]


def _slope(f, args, directions, h=1e-6):
    def at(t):
        return f(*[a + t * d for a, d in zip(args, directions)])
    return (at(h) - at(-h)) / (2 * h)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_grad_matches_differences(f, args):
    argnums = tuple(range(len(args)))
    gradients = s2sad.grad(f, argnums=argnums)(*args)
    for i in argnums:
        np.testing.assert_allclose(gradients[i], numerical_gradient(f, args, i), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_vjp_matches_differences(f, args):
    y, pullback = s2sad.vjp(f, *args)
    np.testing.assert_allclose(y, f(*args), rtol=1e-12)
    cotangents = pullback(0.7)
    for i in range(len(args)):
        np.testing.assert_allclose(cotangents[i], 0.7 * numerical_gradient(f, args, i), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_jvp_matches_differences(f, args):
    directions = _directions(args, 1)
    y, dy = s2sad.jvp(f, args, directions)
    np.testing.assert_allclose(y, f(*args), rtol=1e-12)
    np.testing.assert_allclose(dy, _slope(f, args, directions), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f, args", [case for case in CASES if case[0] is not normed],
                         ids=[name for name in IDS if name != "normed"])
def test_hvp_matches_second_differences(f, args):
    v, u = _directions(args, 2), _directions(args, 3)
    assert_hvp_matches(s2sad.hvp(f, args, v), f, args, v, u, rtol=1e-5, atol=1e-7)


def test_the_constructors_validation_runs():
    with pytest.raises(ValueError, match="k must be positive"):
        s2sad.grad(scaled_keywords)(w0, x0, -1.0)


def test_a_method_called_in_the_constructor_under_hvp():
    # reverse over its forward code: the only read of `self.length()`'s value after `self.norm = ...`
    # is that assignment's own forward rule, which reads the tangent alone (it was refused as a
    # read of another name for the object: tests/test_hessian_of_objects.py)
    assert_hvp_matches(s2sad.hvp(normed, (w0,), (x0,)), normed, [w0], [x0], [np.array([0.2, -1.0, 0.4])],
                       rtol=1e-4, atol=1e-6)


# ---------------------------------------------------------------- refusals, at the user's line
class MadeByNew:
    def __new__(cls, w):  # refused: here
        return super().__new__(cls)

    def __init__(self, w):
        self.w = w * 2.0


@dataclasses.dataclass
class PostInit:
    w: np.ndarray

    def __post_init__(self):  # refused: here
        self.w2 = self.w * 2.0


class CallsSuperMethod(Base):
    def __init__(self, w):
        super().__init__(w)
        self.v = super().__repr__()  # refused: here


class PassesStar(Base):
    def __init__(self, *args):
        super().__init__(*args)  # refused: here


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray


class FromFrozen(Frozen):
    def __init__(self, w):
        super().__init__(w * 2.0)  # refused: here


@dataclasses.dataclass
class WithFactory:
    w: np.ndarray
    history: list = dataclasses.field(default_factory=list)


class LeavesTheFactory(WithFactory):
    def __init__(self, w):
        super().__init__(w * 2.0)  # refused: here


class Counts:
    made = 0

    def __init__(self, w):
        self.w = w * 2.0
        Counts.made += 1  # refused: here


def _refused_line(cls) -> int:
    import inspect

    lines, first = inspect.getsourcelines(cls)
    return first + next(i for i, text in enumerate(lines) if "# refused: here" in text)


@pytest.mark.parametrize("cls", [MadeByNew, PostInit, CallsSuperMethod, PassesStar, FromFrozen, LeavesTheFactory,
                                 Counts],
                         ids=lambda c: c.__name__)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_constructor_that_cannot_be_differentiated_is_refused_at_its_line(cls, mode):
    def f(w):
        return np.sum(cls(w).w)

    with pytest.raises(s2sad.S2SADError) as raised:
        if mode == "grad":
            s2sad.grad(f)(w0)
        else:
            s2sad.jvp(f, (w0,), (x0,))
    location = raised.value.location
    assert location is not None and location.line == _refused_line(cls), str(raised.value)
    assert location.filename == __file__


def test_the_generated_code_names_the_constructors_lines():
    source = s2sad.transform.generated_source(__import__("s2sad.runtime.initializers").runtime.initializers
                                              .initializer(Deep), ("w", "c"))
    assert "super().__init__(w * c)" in source and "self.total = np.sum(self.w) * c" in source


# ---------------------------------------------------------------- a base's constructor replaced
def test_a_bases_constructor_replaced_is_followed_in_value_and_gradient():
    class Root:
        def __init__(self, w):
            self.w = w * 2.0

    class Leaf(Root):
        def __init__(self, w):
            super().__init__(w)
            self.t = np.sum(self.w ** 2)

    def total(w):
        return Leaf(w).t

    assert s2sad.value_and_grad(total)(w0)[0] == pytest.approx(total(w0))

    def stores_five_times(self, w):
        self.w = w * 5.0

    Root.__init__ = stores_five_times  # the generated code made for the old one is not used again
    value, gradient = s2sad.value_and_grad(total)(w0)
    assert value == pytest.approx(total(w0)) == pytest.approx(25.0 * np.sum(w0 ** 2))
    np.testing.assert_allclose(gradient, numerical_gradient(total, [w0], 0), rtol=1e-6)


def test_a_storing_constructor_replaced_by_one_that_computes_is_followed():
    class Holder:
        def __init__(self, w):
            self.w = w

    def total(w):
        return np.sum(Holder(w).w)

    np.testing.assert_allclose(s2sad.grad(total)(w0), np.ones(3))

    def computes(self, w):
        self.w = w ** 3

    Holder.__init__ = computes
    np.testing.assert_allclose(s2sad.grad(total)(w0), 3.0 * w0 ** 2, rtol=1e-12)
