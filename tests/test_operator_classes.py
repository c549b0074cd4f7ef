"""Objects of the user's classes with operators of their own (``__mul__``, ``__radd__``,
``__neg__``, ``__getitem__``, ``__iter__``): refused where Python's operator, indexing or loop
would run them, named by class, method and line, in every mode.

Before, generated code differentiated ``a * b`` by the rule for numbers and arrays whatever
``a`` was: ``2.0 + R(x)`` with ``R.__radd__`` returning ``3 * x * o`` gave the gradient of
``2 + x``, silently, and ``-Neg(x)`` with ``__neg__`` scaling by 5 gave -1 where the answer is
5. Objects whose classes define operators but are only read by their fields, and the
operator's method called by name, are differentiated, against central finite differences."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient

rng = np.random.default_rng(21)


class Dual:
    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        return Dual(self.v * other.v * 2.0)


class Scaled:
    def __init__(self, v):
        self.v = v

    def __neg__(self):
        return Scaled(self.v * 5.0)


class ScaledSequence:
    def __init__(self, items):
        self.items = items

    def __getitem__(self, i):
        return self.items[i] * 3.0

    def __len__(self):
        return len(self.items)


class Doubling:
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter([2.0 * item for item in self.items])


class AddsOnTheRight:
    def __init__(self, v):
        self.v = v

    def __radd__(self, other):
        return other * self.v * 3.0


SCALE = AddsOnTheRight(np.array([1.0, 2.0, 3.0]))  # a global the function reads


def multiplies_duals(x):
    a = Dual(x)
    return np.sum((a * a).v)


def negates(x):
    return np.sum((-Scaled(x)).v)


def indexes(x):
    seq = ScaledSequence([x, x ** 2])
    return np.sum(seq[1])


def loops_over(x):
    total = 0.0
    for item in Doubling([x, np.sin(x)]):
        total = total + np.sum(item)
    return total


def adds_on_the_right(x):
    return np.sum(2.0 + AddsOnTheRight(x))


def adds_a_global_on_the_right(x):
    return np.sum(x + SCALE)


def given_as_argument(x, thing):
    return np.sum(x * thing)


REFUSED = {
    "__mul__": (multiplies_duals, "`*` is given an object of `Dual`, whose class defines `__mul__`", "(a * a).v"),
    "__neg__": (negates, "`-x` is given an object of `Scaled`, whose class defines `__neg__`", "(-Scaled(x)).v"),
    "__getitem__": (indexes, "`x[i]` is given an object of `ScaledSequence`", "np.sum(seq[1])"),
    "__iter__": (loops_over, "`for v in xs` is given an object of `Doubling`, whose class defines `__iter__`",
                 "for item in Doubling"),
    "__radd__": (adds_on_the_right, "`+` is given an object of `AddsOnTheRight`, whose class defines `__radd__`",
                 "2.0 + AddsOnTheRight(x)"),
    "global __radd__": (adds_a_global_on_the_right, "object of `AddsOnTheRight`", "x + SCALE"),
}


def _refusal(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(s2sad.S2SADError) as caught:
            call()
    return str(caught.value)


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("mode", ["grad", "compiled", "jvp", "hvp"])
def test_an_operator_of_the_users_class_is_refused_at_its_line(name, mode):
    f, what, line_text = REFUSED[name]
    x = rng.standard_normal(3)
    calls = {"grad": lambda: s2sad.grad(f)(x), "compiled": lambda: s2sad.grad(f, compile=True)(x),
             "jvp": lambda: s2sad.jvp(f, (x,), (np.ones(3),)), "hvp": lambda: s2sad.hvp(f, (x,), (np.ones(3),))}
    message = _refusal(calls[mode])
    assert "test_operator_classes.py" in message
    if mode != "hvp":  # (a second derivative may stop first, at the line making the object)
        assert what in message and line_text in message


def test_an_argument_of_such_a_class_is_refused_where_an_operator_reads_it():
    message = _refusal(lambda: s2sad.grad(given_as_argument)(np.ones(3), AddsOnTheRight(np.ones(3))))
    assert "object of `AddsOnTheRight`" in message and "def given_as_argument" in message


class Params:
    """Parameters with the operators an optimiser's update uses; the loss reads their fields."""

    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __add__(self, other):
        return Params(self.w + other.w, self.b + other.b)

    def __mul__(self, k):
        return Params(self.w * k, self.b * k)


def reads_the_fields(params, x):
    return np.sum(np.tanh(x * params.w + params.b) ** 2)


def test_an_object_with_operators_read_by_its_fields_is_differentiated():
    params, x = Params(rng.standard_normal(3), rng.standard_normal(3)), rng.standard_normal(3)
    gradient = s2sad.grad(reads_the_fields)(params, x)
    np.testing.assert_allclose(gradient.w, numerical_gradient(lambda w: reads_the_fields(Params(w, params.b), x),
                                                               [params.w], 0), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gradient.b, numerical_gradient(lambda b: reads_the_fields(Params(params.w, b), x),
                                                               [params.b], 0), rtol=1e-6, atol=1e-9)


def calls_the_method_by_name(x):
    a = Dual(x)
    return np.sum(a.__mul__(Dual(np.sin(x))).v)


@pytest.mark.parametrize("compile_", [False, True], ids=["numpy", "compiled"])
def test_the_operators_method_called_by_name_is_differentiated_from_its_source(compile_):
    x = rng.standard_normal(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(calls_the_method_by_name, compile=compile_)(x)
    np.testing.assert_allclose(gradient, 2.0 * (np.sin(x) + x * np.cos(x)), rtol=1e-12)  # d/dx 2 x sin x


def loops_over_layers(layers, x):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x ** 2)


def test_lists_tuples_and_arrays_still_pass_the_checks():
    layers = [(rng.standard_normal((3, 3)), rng.standard_normal(3)) for _ in range(2)]
    x = rng.standard_normal(3)
    gradient = s2sad.grad(loops_over_layers, argnums=1)(layers, x)
    np.testing.assert_allclose(gradient, numerical_gradient(loops_over_layers, [layers, x], 1), rtol=1e-6, atol=1e-9)
