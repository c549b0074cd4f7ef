"""Hessian-vector products through objects a function makes, and through a ``functools.partial``
holding a float passed to a helper (``apply(functools.partial(scale, a=2.5), x)``, or given by
the caller): the forward code read again treated the partial as a differentiated value, whose
held float's derivative would be lost, and refused; no partial in a program s2sad accepts holds
one (making a partial of a differentiated value is refused, and a partial is no argument to
differentiate with respect to). The forward code of ``self.w =
self.prep(w)`` (a method called inside ``__init__``) reads the assigned value again in the
attribute write's own forward rule, which reads no operand; that is no read of another name
for the object (it was refused as one). A real read of another name after the write is still
refused. Every product is checked against central differences of float64 gradients."""
import functools
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import assert_hvp_matches, numerical_gradient  # noqa: E402


class Prepared:
    def __init__(self, w):
        self.w = self.prep(w)
        self.b = np.sum(self.w)

    def prep(self, w):
        return np.tanh(w) * 2.0


def through_a_method_in_init(x):
    model = Prepared(x)
    return np.sum(model.w ** 3) * model.b


class Holder:
    def __init__(self, w):
        self.w = w

    def itself(self):
        return self


def another_name_read_after_the_write(x):
    h = Holder(x)
    same = h.itself()
    h.w = x * 3.0
    return np.sum(same.w * h.w)  # Python: same is h, so same.w is x * 3.0


def test_a_method_called_in_init_under_hvp():
    rng = np.random.default_rng(5)
    x, v, u = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4)
    f = through_a_method_in_init
    np.testing.assert_allclose(s2sad.grad(f)(x), numerical_gradient(f, [x], 0), rtol=1e-5, atol=1e-7)
    _, tangent = s2sad.jvp(f, (x,), (v,))
    assert tangent == pytest.approx(float(numerical_gradient(f, [x], 0) @ v), rel=1e-5)
    assert_hvp_matches(s2sad.hvp(f, (x,), (v,)), f, [x], [v], [u], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mode", ["grad", "hvp"])
def test_another_name_read_after_the_write_is_still_refused(mode):
    x = np.array([0.5, -1.0])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="also names"):
        if mode == "grad":
            s2sad.grad(another_name_read_after_the_write)(x)
        else:
            s2sad.hvp(another_name_read_after_the_write, (x,), (np.ones(2),))


def scale(x, a):
    return a * np.sin(x)


def apply(fn, x):
    return np.sum(fn(x) ** 3)


def partial_made_and_passed_on(x):
    return apply(functools.partial(scale, a=2.5), x) + apply(functools.partial(scale, 1.5 * 0 + np.cos(0.3)), x)


def partial_given_by_the_caller(x, fn):
    return np.sum(fn(x) ** 3) * fn(x[0])


@pytest.mark.parametrize("given", [False, True], ids=["made", "given"])
def test_a_partial_holding_a_float_under_hvp(given):
    rng = np.random.default_rng(9)
    x, v, u = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    if given:
        fn = functools.partial(scale, a=2.5)

        def f(y):
            return partial_given_by_the_caller(y, fn)
        products = s2sad.hvp(partial_given_by_the_caller, (x, fn), (v, None))
        products = products[0] if isinstance(products, tuple) else products
    else:
        f = partial_made_and_passed_on
        products = s2sad.hvp(f, (x,), (v,))
    np.testing.assert_allclose(s2sad.grad(f)(x) if not given else s2sad.grad(partial_given_by_the_caller)(x, fn),
                               numerical_gradient(f, [x], 0), rtol=1e-5, atol=1e-7)
    assert_hvp_matches(products, f, [x], [v], [u], rtol=1e-4, atol=1e-6)


def makes_a_partial_of_a_differentiated_value(x):
    return apply(functools.partial(scale, a=x[0]), x)


def test_a_partial_of_a_differentiated_value_stays_refused():
    """(Holding an expression: one holding a variable is the lambda it stands for, tests/test_filter_iter_and_fromfunction.py.)"""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="functools.partial"):
        s2sad.grad(makes_a_partial_of_a_differentiated_value)(np.array([0.5, 1.0]))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="functools.partial"):
        s2sad.hvp(makes_a_partial_of_a_differentiated_value, (np.array([0.5, 1.0]),), (np.ones(2),))
