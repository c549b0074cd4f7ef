"""Keyword arguments of method calls: ``params._replace(b=...)``, ``obj.method(x, scale=s)``,
a function called through a value with a keyword; and properties of the user's classes.

Each derivative is checked against central finite differences in float64 or a formula
derived by hand; a call s2sad cannot differentiate must be refused at the user's line.
"""
import dataclasses
import operator
import statistics
from collections import namedtuple

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient

Pair = namedtuple("Pair", "a b")
x0 = np.array([0.3, -0.5, 1.2])


def _slope(f, args, directions, h=1e-6):
    """``d/dt f(args + t * directions)`` at 0 by central differences (None: that argument stays)."""
    def at(t):
        return f(*[a if d is None else a + t * d for a, d in zip(args, directions)])
    return (at(h) - at(-h)) / (2 * h)


def _check_hvp(f, args, v, u, h=1e-4):
    """``<hvp(f)(args; v), u>`` against the mixed second difference of f along v and u."""
    products = s2sad.hvp(f, tuple(args), tuple(v))

    def at(s, t):
        return f(*[a + s * h * dv + t * h * du for a, dv, du in zip(args, v, u)])

    second = (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)
    np.testing.assert_allclose(sum(np.sum(p * du) for p, du in zip(products, u)), second, rtol=1e-5)


# ---------------------------------------------------------------- namedtuple._replace
def doubled_b(p, x):
    q = p._replace(b=p.b * 2)
    return np.sum(np.sin(q.a * x) * q.b ** 2)


def doubled_b_gradients(p, x):
    """By hand: f = sum(sin(a x) 4 b^2)."""
    return (Pair(np.cos(p.a * x) * x * 4 * p.b ** 2, np.sin(p.a * x) * 8 * p.b), np.cos(p.a * x) * p.a * 4 * p.b ** 2)


def test_replace_gradient_is_the_hand_derived_one():
    p = Pair(np.array([0.3, 0.5]), np.array([1.2, -0.7]))
    x = np.array([0.4, 1.1])
    dp, dx = s2sad.grad(doubled_b, argnums=(0, 1))(p, x)
    expected_p, expected_x = doubled_b_gradients(p, x)
    assert type(dp) is Pair
    np.testing.assert_allclose(dp.a, expected_p.a, rtol=1e-12)
    np.testing.assert_allclose(dp.b, expected_p.b, rtol=1e-12)
    np.testing.assert_allclose(dx, expected_x, rtol=1e-12)
    np.testing.assert_allclose(dx, numerical_gradient(lambda x: doubled_b(p, x), [x], 0), rtol=1e-6)


def test_replace_jvp_and_hvp_match_differences():
    p = Pair(np.array([0.3, 0.5]), np.array([1.2, -0.7]))
    x = np.array([0.4, 1.1])
    v = (Pair(np.array([0.2, -1.0]), np.array([0.7, 0.3])), np.array([-0.4, 0.9]))
    _, tangent = s2sad.jvp(doubled_b, (p, x), v)
    np.testing.assert_allclose(tangent, _slope(lambda a, b, x: doubled_b(Pair(a, b), x), [p.a, p.b, x],
                                                [v[0].a, v[0].b, v[1]]), rtol=1e-6)
    # the Hessian-vector product: the hand-derived gradient differenced along v
    hp, hx = s2sad.hvp(doubled_b, (p, x), v)
    h = 1e-6
    ahead = doubled_b_gradients(Pair(p.a + h * v[0].a, p.b + h * v[0].b), x + h * v[1])
    behind = doubled_b_gradients(Pair(p.a - h * v[0].a, p.b - h * v[0].b), x - h * v[1])
    np.testing.assert_allclose(hp.a, (ahead[0].a - behind[0].a) / (2 * h), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hp.b, (ahead[0].b - behind[0].b) / (2 * h), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(hx, (ahead[1] - behind[1]) / (2 * h), rtol=1e-6, atol=1e-8)


def swapped(p, s):
    return p._replace(a=p.b * s, b=p.a)


@pytest.mark.parametrize("seed", [Pair(np.ones(3), 2 * np.ones(3)), (np.ones(3), 2 * np.ones(3))],
                         ids=["namedtuple_seed", "tuple_seed"])
def test_replace_returned_pulls_each_field_back_to_where_it_came_from(seed):
    _, pullback = s2sad.vjp(swapped, Pair(x0, 2 * x0), 1.5)
    dp, ds = pullback(seed)
    # out.a = p.b * s, out.b = p.a: p.a gets out.b's seed, p.b gets s times out.a's, s gets <seed.a, p.b>
    np.testing.assert_allclose(dp.a, 2 * np.ones(3))
    np.testing.assert_allclose(dp.b, 1.5 * np.ones(3))
    np.testing.assert_allclose(ds, np.sum(2 * x0))


def test_replace_jvp_of_a_returned_namedtuple():
    _, tangent = s2sad.jvp(swapped, (Pair(x0, 2 * x0), 1.5), (Pair(np.ones(3), -np.ones(3)), 0.5))
    np.testing.assert_allclose(tangent.a, -np.ones(3) * 1.5 + 2 * x0 * 0.5)
    np.testing.assert_allclose(tangent.b, np.ones(3))


def replaced_by_a_constant(p, x):
    q = p._replace(a=np.ones_like(p.a))
    return np.sum(q.a * np.tanh(q.b * x))


def test_a_field_replaced_by_a_constant_gets_no_gradient():
    p = Pair(x0, x0 + 0.5)
    dp = s2sad.grad(replaced_by_a_constant)(p, x0)
    np.testing.assert_array_equal(dp.a, np.zeros(3))   # (f does not read p.a at all)
    np.testing.assert_allclose(dp.b, numerical_gradient(lambda b: replaced_by_a_constant(Pair(p.a, b), x0), [p.b], 0),
                               rtol=1e-6)


# ---------------------------------------------------------------- keyword arguments of the user's methods
class Scaler:
    def __init__(self, weights):
        self.weights = weights

    def apply(self, x, *, scale=1.0, shift=0.0):
        return np.tanh(self.weights * x) * scale + shift

    def mix(self, x, y=1.0):
        return np.sum(self.weights * x * y)


def keyword_only(w, x, s, t):
    return np.sum(Scaler(w).apply(x, scale=s, shift=t) ** 2)


def positional_parameters_by_name(w, x, y):
    return Scaler(w).mix(y=y, x=x)


@pytest.mark.parametrize("f", [keyword_only, positional_parameters_by_name])
def test_keyword_method_gradient_and_jvp_match_differences(f):
    args = [x0, x0 + 1.0, 0.7, -0.2][:f.__code__.co_argcount]
    argnums = tuple(range(len(args)))
    gradients = s2sad.grad(f, argnums=argnums)(*args)
    for argnum, gradient in zip(argnums, gradients):
        np.testing.assert_allclose(gradient, numerical_gradient(f, args, argnum), rtol=1e-6, atol=1e-9)
    _, vjp_pullback = s2sad.vjp(f, *args)
    for gradient, cotangent in zip(gradients, vjp_pullback(1.0)):
        np.testing.assert_allclose(cotangent, gradient, rtol=1e-12)
    directions = [np.array([0.5, -1.0, 0.25]), np.array([1.0, 0.3, -0.7]), 0.9, -1.1][:len(args)]
    _, tangent = s2sad.jvp(f, tuple(args), tuple(directions))
    np.testing.assert_allclose(tangent, _slope(f, args, directions), rtol=1e-6)


def test_a_keyword_tangent_alone_is_not_dropped():
    """Only the keyword varies: forward mode once dropped its tangent and gave 0."""
    _, tangent = s2sad.jvp(keyword_only, (x0, x0, 0.7, 0.1), (np.zeros(3), np.zeros(3), 1.0, 0.0))
    np.testing.assert_allclose(tangent, _slope(keyword_only, [x0, x0, 0.7, 0.1], [None, None, 1.0, None]), rtol=1e-6)
    assert tangent != 0.0


def test_hvp_through_a_keyword_of_a_method_of_the_users_class():
    """The user's constructor and method in forward code, reversed, the keywords' tangents and
    values given cotangents: <Hv, u> against the mixed second difference of f."""
    args = [x0, x0 + 1.0, 0.7, 0.1]
    v = [np.array([0.5, -1.0, 0.25]), np.array([1.0, 0.3, -0.7]), 0.9, -1.1]
    u = [np.array([-0.3, 0.8, 1.0]), np.array([0.2, -0.6, 0.4]), -0.5, 0.7]
    _check_hvp(keyword_only, args, v, u)


def scaled_sine(v, *, by):
    return np.sin(v) * by


def keyword_through_a_value(x, s, scaled=scaled_sine):
    return np.sum(scaled(x, by=s) ** 2)


def test_keyword_through_a_value_in_forward_mode():
    _, tangent = s2sad.jvp(keyword_through_a_value, (x0, 1.3), (np.ones(3), 0.5))
    np.testing.assert_allclose(tangent, _slope(keyword_through_a_value, [x0, 1.3], [np.ones(3), 0.5]), rtol=1e-6)
    ds = s2sad.grad(keyword_through_a_value, argnums=1)(x0, 1.3)
    np.testing.assert_allclose(ds, numerical_gradient(keyword_through_a_value, [x0, 1.3], 1), rtol=1e-6)


# ---------------------------------------------------------------- a rule's method given a differentiated keyword
def clipped_below(x, lo):
    return np.sum(x.clip(min=lo) ** 2)


def test_a_method_rule_keyword_tangent_reaches_the_forward_rule():
    _, tangent = s2sad.jvp(clipped_below, (x0, 0.1), (np.ones(3), 1.0))
    np.testing.assert_allclose(tangent, _slope(clipped_below, [x0, 0.1], [np.ones(3), 1.0]), rtol=1e-6)


def test_a_method_rule_keyword_cotangent_is_refused_at_the_line():
    with pytest.raises(s2sad.MissingRuleError, match=r"`min` is a differentiated value passed by keyword") as error:
        s2sad.grad(clipped_below, argnums=1)(x0, 0.1)
    assert "test_keyword_methods.py:" in str(error.value) and "pass `min` positionally" in str(error.value)


# ---------------------------------------------------------------- properties
@dataclasses.dataclass
class LogScaled:
    log_scale: np.ndarray

    @property
    def scale(self):
        return np.exp(self.log_scale)


def through_a_property(model, x):
    return np.sum(np.sin(model.scale * x))


def test_a_property_is_differentiated_through_its_getter():
    """Read as a field, the property's cotangent had nowhere to go: the gradient came back zero."""
    model, x = LogScaled(np.array([0.1, -0.3, 0.2])), x0

    def f(log_scale):
        return through_a_property(LogScaled(log_scale), x)

    expected = numerical_gradient(f, [model.log_scale], 0)
    assert np.all(expected != 0)
    np.testing.assert_allclose(s2sad.grad(through_a_property)(model, x).log_scale, expected, rtol=1e-6)
    v = np.array([1.0, -0.5, 0.3])
    _, tangent = s2sad.jvp(through_a_property, (model, x), (LogScaled(v), np.zeros(3)))
    np.testing.assert_allclose(tangent, _slope(f, [model.log_scale], [v]), rtol=1e-6)
    product = s2sad.hvp(through_a_property, (model, x), (LogScaled(v), np.zeros(3)))[0]
    h = 1e-5
    second = (numerical_gradient(f, [model.log_scale + h * v], 0) - numerical_gradient(f, [model.log_scale - h * v], 0)) / (2 * h)
    np.testing.assert_allclose(product.log_scale, second, rtol=1e-4, atol=1e-6)


class LibraryProperty:
    """A property whose getter is not the user's code (the operator module's): no rule, so refused."""

    def __init__(self, value):
        self.value = value

    held = property(operator.attrgetter("value"))


def reads_a_builtin_property(x):
    return np.sum(LibraryProperty(x).held ** 2)


def test_a_property_without_source_is_refused():
    with pytest.raises(s2sad.MissingRuleError, match="reading `LibraryProperty.held`: it is a property whose getter"):
        s2sad.grad(reads_a_builtin_property)(x0)


# ---------------------------------------------------------------- dataclasses.replace
@dataclasses.dataclass
class State:
    q: np.ndarray
    p: np.ndarray


def leapfrog_with_replace(q, p, dt):
    state = State(q, p)
    for _ in range(3):
        state = dataclasses.replace(state, p=state.p - dt * np.sin(state.q))
        state = dataclasses.replace(state, q=state.q + dt * state.p)
    return np.sum(state.q ** 2 * state.p)


def test_dataclasses_replace_in_all_four_modes():
    args = [x0, x0 + 0.5, 0.1]
    v = [np.array([0.5, -1.0, 0.25]), np.array([1.0, 0.3, -0.7]), 0.4]
    u = [np.array([-0.3, 0.8, 1.0]), np.array([0.2, -0.6, 0.4]), -0.5]
    gradients = s2sad.grad(leapfrog_with_replace, argnums=(0, 1, 2))(*args)
    for argnum, gradient in enumerate(gradients):
        np.testing.assert_allclose(gradient, numerical_gradient(leapfrog_with_replace, args, argnum), rtol=1e-6, atol=1e-9)
    _, tangent = s2sad.jvp(leapfrog_with_replace, tuple(args), tuple(v))
    np.testing.assert_allclose(tangent, _slope(leapfrog_with_replace, args, v), rtol=1e-6)
    _check_hvp(leapfrog_with_replace, args, v, u)


@dataclasses.dataclass
class Normalised:
    w: np.ndarray

    def __post_init__(self):
        self.w = self.w / np.sum(self.w)


def replace_that_computes(model, w):
    return np.sum(dataclasses.replace(model, w=w * 2).w ** 2)


def test_dataclasses_replace_of_a_dataclass_that_computes_is_refused():
    with pytest.raises(s2sad.S2SADError, match="computes more than it stores") as error:
        s2sad.grad(replace_that_computes, argnums=1)(Normalised(x0 + 1.0), x0 + 1.0)
    assert "test_keyword_methods.py:" in str(error.value)


# ---------------------------------------------------------------- a refusal met inside a library function
def library_mean(q):
    return statistics.fmean([q[0], q[1]]) * 2.0


def test_a_refusal_inside_a_library_function_names_the_users_line_too():
    """``statistics.fmean`` is differentiated from its source, which s2sad refuses inside (its ``map``).
    (Before session 13 this was ``dataclasses.replace(obj, **changes)``, now differentiated below.)"""
    with pytest.raises(s2sad.S2SADError) as error:
        s2sad.grad(library_mean)(x0)
    assert "reached from" in str(error.value) and "test_keyword_methods.py:" in str(error.value)


# ---------------------------------------------------------------- dataclasses.replace(obj, **changes)
def replace_with_star_star(q, p, dt):
    state = State(q, p)
    changes = {"p": state.p - dt * np.sin(state.q)}
    state = dataclasses.replace(state, **changes)
    state = dataclasses.replace(state, **{"q": state.q + dt * state.p})
    return np.sum(state.q ** 2 * state.p)


def test_replace_with_a_keywords_dict_matches_differences_in_every_mode():
    args = [x0, x0[::-1] * 0.7, 0.3]
    gradients = s2sad.grad(replace_with_star_star, argnums=(0, 1, 2))(*args)
    for i in range(3):
        np.testing.assert_allclose(gradients[i], numerical_gradient(replace_with_star_star, args, i),
                                   rtol=1e-6, atol=1e-8)
    y, pullback = s2sad.vjp(replace_with_star_star, *args)
    np.testing.assert_allclose(pullback(2.0)[0], 2.0 * gradients[0], rtol=1e-12)
    v = [np.array([0.4, -1.0, 0.2]), np.array([1.1, 0.3, -0.6]), 0.5]
    u = [np.array([-0.3, 0.8, 0.5]), np.array([0.2, -0.7, 1.0]), -0.4]
    np.testing.assert_allclose(s2sad.jvp(replace_with_star_star, tuple(args), tuple(v))[1],
                               _slope(replace_with_star_star, args, v), rtol=1e-6)
    _check_hvp(replace_with_star_star, args, v, u)


def replace_star_star_that_computes(model, w):
    return np.sum(dataclasses.replace(model, **{"w": w * 2}).w ** 2)


def test_replace_with_a_keywords_dict_of_a_dataclass_that_computes_is_refused():
    with pytest.raises(s2sad.S2SADError, match="computes more than it stores") as error:
        s2sad.grad(replace_star_star_that_computes, argnums=1)(Normalised(x0 + 1.0), x0 + 1.0)
    assert "test_keyword_methods.py:" in str(error.value)
