"""The names JAX and autograd users reach for (s2sad/conveniences.py), checked against
central finite differences or a hand-derived formula, and against JAX's and autograd's
documented behaviour where the two differ from a plain derivative (stated at each test).

Rules registered here are on functions of this file, registered by a module fixture and
forgotten after this file's tests (pytest imports every test module before running any: a
rule registered at import would be in the registry, and the cache keys, of every test).
"""
import numpy as np
import pytest

import s2sad
from s2sad.errors import RuleError
from tests.finite_differences import assert_gradients_match, numerical_gradient

RNG = np.random.default_rng(18)
X = RNG.normal(size=5)


@pytest.fixture(scope="module", autouse=True)
def registered_rules():
    """The rules of this file's functions, for its tests only; the custom_vjp and custom_jvp
    functions replace their plain functions in this module while they run."""
    plain = {name: globals()[name] for name in ("sin_times", "clip_gradient", "log1pexp", "scaled_product")}
    s2sad.defvjp(planted_cube, lambda ans, x: lambda g: g * 2 * x ** 2)   # wrong on purpose: 3x^2
    s2sad.defvjp(weighted_logsumexp, lambda ans, x, w, shift=0.0: lambda g: g * w * np.exp(x - ans), None,
                 argnums=(0, 1))
    s2sad.defvjp(helper_with_keyword,
                 lambda ans, x, power=2.0: lambda g: g * power * np.abs(x) ** (power - 1) * np.sign(x))
    s2sad.defvjp(shaped_wrongly, lambda ans, x: lambda g: np.ones(7))
    custom = {name: s2sad.custom_vjp(plain[name]) for name in ("sin_times", "clip_gradient")}
    custom.update({name: s2sad.custom_jvp(plain[name]) for name in ("log1pexp", "scaled_product")})
    globals().update(custom)
    custom["sin_times"].defvjp(sin_times_fwd, sin_times_bwd)
    custom["clip_gradient"].defvjp(lambda x, bound: (x, bound), lambda bound, g: (np.clip(g, -bound, bound), None))
    custom["log1pexp"].defjvp(log1pexp_jvp)
    custom["scaled_product"].defjvp(scaled_product_jvp)
    yield
    globals().update(plain)
    for function in (planted_cube, weighted_logsumexp, helper_with_keyword, shaped_wrongly, *custom.values()):
        s2sad.unregister(function)


# ---------------------------------------------------------------- stop_gradient

def stopped_product(x):
    return np.sum(s2sad.stop_gradient(x ** 2) * np.sin(x))


def stopped_scalar(x):
    return s2sad.stop_gradient(x) * x ** 2


def test_stop_gradient_is_the_value_with_a_zero_derivative_in_reverse_mode():
    # JAX: grad(lambda x: stop_gradient(x**2) * sin(x)) = x**2 * cos(x) (the stopped factor is a constant)
    np.testing.assert_allclose(s2sad.grad(stopped_product)(X), X ** 2 * np.cos(X), rtol=1e-12)
    assert s2sad.stop_gradient(2.5) == 2.5


def test_stop_gradient_in_forward_mode_and_second_order():
    v = RNG.normal(size=5)
    _, tangent = s2sad.jvp(stopped_product, (X,), (v,))
    np.testing.assert_allclose(tangent, np.sum(X ** 2 * np.cos(X) * v), rtol=1e-12)
    # d/dx [s x^2] = 2 s x with s = x held: 2x^2 at x; its derivative, s held, is 2s = 2x
    assert s2sad.grad(stopped_scalar)(1.5) == pytest.approx(2 * 1.5 ** 2)
    assert s2sad.grad(s2sad.grad(stopped_scalar))(1.5) == pytest.approx(2 * 1.5)


def test_stop_gradient_copies_arrays_and_containers():
    x = np.ones(3)
    stopped = s2sad.stop_gradient({"w": x, "pair": (x, 2.0)})
    stopped["w"][0] = 5.0
    assert x[0] == 1.0 and stopped["pair"][1] == 2.0 and isinstance(stopped["pair"], tuple)


# ---------------------------------------------------------------- elementwise_grad and linearize

def softplus(x, scale):
    return np.log1p(np.exp(scale * x))


def test_elementwise_grad_is_the_gradient_of_the_sum():
    def summed(x, scale):
        return np.sum(softplus(x, scale))

    for argnums in (0, 1):
        args = (X, 0.7)
        got = s2sad.elementwise_grad(softplus, argnums)(*args)
        np.testing.assert_allclose(got, numerical_gradient(summed, args, argnums), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.elementwise_grad(np.tanh)(X), 1 - np.tanh(X) ** 2, rtol=1e-12)


def test_elementwise_grad_refuses_what_autograd_would_not_sum():
    with pytest.raises(TypeError, match="real array or number output"):
        s2sad.elementwise_grad(lambda z: z * 1j)(X)
    with pytest.raises(s2sad.ArgumentError, match="one argument number"):
        s2sad.elementwise_grad(softplus, (0, 1))
    # an int array, as grad refuses it (elementwise_grad handed back the NO_TANGENT marker as the gradient)
    with pytest.raises(s2sad.ArgumentError, match=r"(?s)argument 'x': it is an array of dtype int64.*x.astype\(float\)"):
        s2sad.elementwise_grad(softplus)(np.arange(3), 0.7)


def test_linearize_gives_the_value_and_the_jvp_at_the_primals():
    # JAX: linearize(f, *primals) -> (f(*primals), f_jvp) with f_jvp(*tangents) == jvp(f, primals, tangents)[1]
    y, f_jvp = s2sad.linearize(softplus, X, 0.7)
    np.testing.assert_allclose(y, softplus(X, 0.7))
    v = RNG.normal(size=5)
    eps = 1e-6
    expected = (softplus(X + eps * v, 0.7 + eps) - softplus(X - eps * v, 0.7 - eps)) / (2 * eps)
    np.testing.assert_allclose(f_jvp(v, 1.0), expected, rtol=1e-6, atol=1e-9)
    with pytest.raises(s2sad.ArgumentError, match="one tangent per primal"):
        f_jvp(v)


# ---------------------------------------------------------------- check_grads

def energy(x, y):
    return np.sum(np.sin(x) * y ** 2) + np.sum(np.cos(y)) ** 2


def test_check_grads_passes_a_right_derivative_in_every_mode_and_order():
    s2sad.check_grads(energy, modes=("fwd", "rev"), order=2, argnums=(0, 1))(X, RNG.normal(size=5))
    s2sad.check_grads(np.tanh, modes=["fwd"])(X)      # a vector output: forward mode checked along a direction


def planted_cube(x):
    return x ** 3




def test_check_grads_catches_a_wrong_rule():
    with pytest.raises(AssertionError, match="finite differences give"):
        s2sad.check_grads(lambda x: np.sum(planted_cube(x)), modes=["rev"])(X)


def test_check_grads_refuses_what_it_cannot_check():
    with pytest.raises(ValueError, match="modes are 'fwd' and 'rev'"):
        s2sad.check_grads(energy, modes=("reverse",))
    with pytest.raises(ValueError, match="order is 1 or 2"):
        s2sad.check_grads(energy, order=3)
    with pytest.raises(TypeError, match="real scalar output"):
        s2sad.check_grads(np.tanh, modes=["rev"], order=2)(X)


# ---------------------------------------------------------------- defvjp in autograd's form

def weighted_logsumexp(x, w, shift=0.0):
    return np.log(np.sum(w * np.exp(x - shift))) + shift




def helper_with_keyword(x, *, power=2.0):
    return np.sum(np.abs(x) ** power)




def test_defvjp_in_autograds_form_matches_finite_differences():
    w = RNG.uniform(0.5, 1.5, size=5)

    def loss(x):
        return 3.0 * weighted_logsumexp(x, w, 0.2)      # called from differentiated code: the rule is used

    assert_gradients_match(loss, (X,), (0,), (s2sad.grad(loss)(X),))
    # None in a maker's slot: the rule has no derivative for w, on which the function depends; the
    # cotangent of w asked for is refused (it was handed over as zeros, where central differences differ)
    with pytest.raises(s2sad.MissingRuleError, match="no derivative for its parameter `w`"):
        s2sad.vjp(weighted_logsumexp, X, w)[1](1.0)


def test_defvjp_in_autograds_form_passes_keywords_as_the_call_did():
    def loss(x):
        return helper_with_keyword(x, power=3.0) + helper_with_keyword(x)

    assert_gradients_match(loss, (X,), (0,), (s2sad.grad(loss)(X),))


def shaped_wrongly(x):
    return x * 2.0




def test_defvjp_in_autograds_form_is_checked_as_the_users_rule():
    with pytest.raises(RuleError, match=r"shape \(7,\) for an argument of shape \(5,\)"):
        s2sad.grad(lambda x: np.sum(shaped_wrongly(x)))(X)
    with pytest.raises(RuleError, match="uses `undefined_name`"):      # s2sad's form is still checked too
        s2sad.defvjp(shaped_wrongly, "x", "g * undefined_name")
    with pytest.raises(TypeError, match="collects several arguments"):
        s2sad.defvjp(lambda *xs: sum(xs), lambda ans, *xs: lambda g: g)
    with pytest.raises(TypeError, match="3 vjp makers"):
        s2sad.defvjp(shaped_wrongly, None, None, None)


# ---------------------------------------------------------------- custom_vjp

def sin_times(x, y):
    return np.sin(x) * y


def sin_times_fwd(x, y):
    return sin_times(x, y), (np.cos(x), np.sin(x), y)


def sin_times_bwd(residuals, g):
    cos_x, sin_x, y = residuals
    return cos_x * g * y, np.sum(sin_x * g) if np.ndim(y) == 0 else sin_x * g




def clip_gradient(x, bound):
    return x


def test_custom_vjp_used_directly_and_from_differentiated_code():
    # JAX's documented example (custom_vjp tutorial: f(x, y) = sin(x) * y)
    def loss(x, y):
        return np.sum(sin_times(x, y) ** 2)

    y = RNG.normal(size=5)
    assert_gradients_match(loss, (X, y), (0, 1), s2sad.grad(loss, argnums=(0, 1))(X, y))
    dx, dy = s2sad.grad(sin_times, argnums=(0, 1))(0.4, 1.5)
    assert (dx, dy) == pytest.approx((np.cos(0.4) * 1.5, np.sin(0.4)))
    assert sin_times(0.4, 1.5) == np.sin(0.4) * 1.5


def test_custom_vjp_rule_replaces_the_derivative():
    # JAX's clip_gradient example: the value is x, the cotangent clipped; the bound gets none (None)
    def loss(x):
        return np.sum(4.0 * clip_gradient(x, 1.0))

    np.testing.assert_array_equal(s2sad.grad(loss)(X), np.ones(5))
    assert s2sad.vjp(clip_gradient, 2.0, 1.0)[1](3.0) == (1.0, 0.0)


def test_custom_vjp_refusals():
    @s2sad.custom_vjp
    def no_rule_yet(x):
        return x

    try:
        with pytest.raises(RuleError, match="no rule yet"):
            s2sad.grad(no_rule_yet)(1.0)
        no_rule_yet.defvjp(lambda x: (x, None), lambda r, g: (g, g))
        with pytest.raises(RuleError, match="returned 2 cotangents for its 1 argument"):
            s2sad.grad(no_rule_yet)(1.0)
        no_rule_yet.defvjp(lambda x: (x, None), lambda r, g: (np.ones(3),))
        with pytest.raises(RuleError, match=r"shape \(3,\) for argument 0"):
            s2sad.grad(no_rule_yet)(1.0)
    finally:
        s2sad.unregister(no_rule_yet)
    # JAX: "can't apply forward-mode autodiff (jvp) to a custom_vjp function"
    with pytest.raises(RuleError, match="forward mode"):
        s2sad.jvp(sin_times, (0.4, 1.5), (1.0, 0.0))
    with pytest.raises(s2sad.ArgumentError, match="keyword arguments"):
        s2sad.grad(lambda x: sin_times(x, y=2.0))(0.4)


# ---------------------------------------------------------------- custom_jvp

def log1pexp(x):
    return np.log1p(np.exp(x))


def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot / (1.0 + np.exp(-x))




def scaled_product(x, y, n):
    return x * y * n


def scaled_product_jvp(primals, tangents):
    x, y, n = primals
    x_dot, y_dot, _ = tangents
    return scaled_product(x, y, n), (x_dot * y + x * y_dot) * n




def test_custom_jvp_in_both_modes():
    # JAX's documented example: log1pexp with a jvp stable at large x (grad(log1pexp)(100.) == 1.0)
    assert s2sad.grad(log1pexp)(100.0) == 1.0
    assert s2sad.jvp(log1pexp, (100.0,), (1.0,))[1] == 1.0

    def loss(x):
        return np.sum(log1pexp(x) * x)

    assert_gradients_match(loss, (X,), (0,), (s2sad.grad(loss)(X),))
    v = RNG.normal(size=5)
    eps = 1e-6
    np.testing.assert_allclose(s2sad.jvp(loss, (X,), (v,))[1], (loss(X + eps * v) - loss(X - eps * v)) / (2 * eps),
                               rtol=1e-6)


def test_custom_jvp_of_several_arguments_transposed_for_reverse_mode():
    y = RNG.normal(size=5)

    def loss(x, y):
        return np.sum(np.sin(scaled_product(x, y, 3)))

    assert_gradients_match(loss, (X, y), (0, 1), s2sad.grad(loss, argnums=(0, 1))(X, y))
    np.testing.assert_allclose(s2sad.jacfwd(lambda x: scaled_product(x, y, 3))(X), np.diag(3 * y), atol=1e-12)
    assert s2sad.vjp(scaled_product, X, y, 3)[1](np.ones(5))[2] is s2sad.NO_TANGENT


def test_custom_jvp_without_a_rule_is_refused():
    @s2sad.custom_jvp
    def no_rule_yet(x):
        return x

    try:
        with pytest.raises(RuleError, match="no rule yet"):
            s2sad.grad(no_rule_yet)(1.0)
    finally:
        s2sad.unregister(no_rule_yet)


def test_second_order_through_a_custom_rule_is_refused_not_guessed():
    # JAX differentiates a custom_jvp's rule again; s2sad does not yet: an error, never a number
    with pytest.raises(s2sad.S2SADError):
        s2sad.hessian(lambda x: np.sum(log1pexp(x)))(X)
    with pytest.raises(s2sad.S2SADError):
        s2sad.grad(s2sad.grad(lambda t: log1pexp(t) * 1.0))(0.3)
    with pytest.raises(s2sad.S2SADError):
        s2sad.hessian(lambda x: np.sum(sin_times(x, 2.0)))(X)
