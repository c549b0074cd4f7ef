"""The rule author's API: defderivative, differentiate_source, defmethod on user classes, check_grad.

Every function a test registers a rule for is its own (so tests never see each other's
rules), and each test differentiates callers of its own, defined here with source.
"""
import numpy as np
import pytest

import s2sad
from s2sad.registry import rule_for, unregister
from s2sad.testing import check_grad, check_rrule, numerical_gradient

RNG = np.random.default_rng(4)


@pytest.fixture
def forget():
    """Functions given here lose their rules after the test."""
    registered = []
    yield registered.append
    for function in registered:
        unregister(function)


# ---------------------------------------------------------------- defderivative


def softplus(x):
    return np.log1p(np.exp(x))


def angle_of(y, x):
    return np.arctan2(y, x)


def cube(z):
    return z ** 3


def loss_softplus_angle(a, b):
    return np.sum(softplus(a) * angle_of(a, b))


def test_derivatives_become_broadcasting_conjugated_templates(forget):
    forget(angle_of)
    rule = s2sad.defderivative(angle_of, "y, x", "x / (x**2 + y**2)", "-y / (x**2 + y**2)")
    assert rule.template("y") == "unbroadcast(g * conj(x / (x**2 + y**2)), y)"
    assert rule.template("x") == "unbroadcast(g * conj(-y / (x**2 + y**2)), x)"
    assert rule.derivatives == {"y": "x / (x**2 + y**2)", "x": "-y / (x**2 + y**2)"}
    assert rule_for(angle_of) is rule


def test_simple_derivatives_read_simply(forget):
    forget(cube)
    assert s2sad.defderivative(cube, "z", "np.cos(z)").template("z") == "unbroadcast(g * conj(np.cos(z)), z)"
    assert s2sad.defderivative(cube, "z", "1").template("z") == "unbroadcast(g, z)"
    assert s2sad.defderivative(cube, "z", "-1").template("z") == "unbroadcast(-g, z)"
    assert s2sad.defderivative(cube, "z", "2.5").template("z") == "unbroadcast(g * 2.5, z)"
    rule = s2sad.defderivative(cube, "z, n=3", None)
    assert rule.declares_none("z") and rule.declares_none("n")


def test_grad_inlines_the_derivatives_and_broadcasts(forget):
    forget(softplus)
    forget(angle_of)
    s2sad.defderivative(softplus, "x", "1 / (1 + np.exp(-x))")
    s2sad.defderivative(angle_of, "y, x", "x / (x**2 + y**2)", "-y / (x**2 + y**2)")
    a = np.array([0.3, -1.2, 2.0])
    b = np.array([[1.0], [-0.5]])                     # broadcast against a: (2, 3)
    da, db = s2sad.grad(loss_softplus_angle, argnums=(0, 1))(a, b)
    assert da.shape == a.shape and db.shape == b.shape
    expected_da, expected_db = numerical_gradient(loss_softplus_angle, a, b, argnums=(0, 1))
    np.testing.assert_allclose(da, expected_da, rtol=1e-6)
    np.testing.assert_allclose(db, expected_db, rtol=1e-6)
    source = s2sad.differentiate(loss_softplus_angle, argnums=(0, 1)).source
    assert "conj(1 / (1 + np.exp(-a)))" in source  # inlined, with the caller's names
    assert "conj(-a / (b**2 + a**2))" in source
    assert "softplus_rrule" not in source and "angle_of_rrule" not in source
    check_grad(loss_softplus_angle, a, b, argnums=(0, 1))


@pytest.mark.parametrize("z", [0.7, np.float32(0.7), np.linspace(0.5, 1.5, 4).astype(np.float32),
                               np.array([1 + 1j, 0.2 - 0.3j]), np.array([1 + 1j], dtype=np.complex64)])
def test_check_rrule_passes_for_real_float32_and_complex_inputs(forget, z):
    forget(cube)
    s2sad.defderivative(cube, "z", "3 * z ** 2")
    check_rrule(cube, z)


def test_check_rrule_passes_with_broadcasting(forget):
    forget(angle_of)
    s2sad.defderivative(angle_of, "y, x", "x / (x**2 + y**2)", "-y / (x**2 + y**2)")
    check_rrule(angle_of, RNG.normal(size=(2, 3)), RNG.normal(size=(3,)) + 3.0)
    check_rrule(angle_of, 0.5, np.float64(2.0))


def test_a_wrong_derivative_is_caught(forget):
    forget(cube)
    s2sad.defderivative(cube, "z", "z ** 2")   # missing the factor 3
    with pytest.raises(AssertionError, match=r"argument 0 \('z'\)"):
        check_rrule(cube, np.array([0.5, 1.5]))


def test_a_derivative_without_conjugation_would_be_caught(forget):
    """The complex convention is real: the same derivative as a plain vjp, unconjugated, fails."""
    forget(cube)
    s2sad.defvjp(cube, "z", "g * 3 * z ** 2")
    with pytest.raises(AssertionError, match="argument 0"):
        check_rrule(cube, np.array([1 + 1j, 0.2 - 0.3j]))


@pytest.mark.parametrize("signature, derivatives, message", [
    ("x", ("1 - y ** 2",), "unknown name y"),
    ("x", ("g * x",), "uses `g`"),
    ("x", ("1 - ",), "not a Python expression"),
    ("x", ("1", "2"), "2 derivatives given for the 1 parameters"),
    ("g", ("1",), "may not be called 'g'"),
    ("*xs", ("1",), "collects several arguments"),
])
def test_bad_derivatives_are_refused_at_registration(forget, signature, derivatives, message):
    forget(cube)
    with pytest.raises(ValueError, match=message):
        s2sad.defderivative(cube, signature, *derivatives)
    assert rule_for(cube) is None


def test_derivatives_may_use_numpy_math_helpers_and_comprehension_names(forget):
    forget(cube)
    s2sad.defderivative(cube, "z", "safe_divide(3.0, 1 / z ** 2) + math.pi * 0 + sum(k for k in (0.0,))")
    check_rrule(cube, np.array([0.5, 2.0]))


# ---------------------------------------------------------------- differentiate_source


def smooth(x):
    return np.tanh(x) * 2.0


def loss_smooth(x):
    return np.sum(smooth(x))


def test_opting_out_of_a_rule_differentiates_the_source(forget):
    forget(smooth)
    s2sad.defderivative(smooth, "x", "0.0")       # deliberately wrong: s2sad must stop using it
    x = np.array([0.1, 0.5])
    np.testing.assert_array_equal(s2sad.grad(loss_smooth)(x), [0.0, 0.0])
    assert "dsmooth_x * 0.0" in s2sad.differentiate(loss_smooth).source

    assert s2sad.differentiate_source(smooth) is smooth
    assert rule_for(smooth) is None
    np.testing.assert_allclose(s2sad.grad(loss_smooth)(x), 2 * (1 - np.tanh(x) ** 2))   # the memoised caller was made again
    source = s2sad.differentiate(loss_smooth).source
    assert "'smooth_rrule': ('transformed'" in source
    assert "smooth_x, smooth_x_pullback = smooth_rrule(x)" in source
    np.testing.assert_allclose(s2sad.grad(smooth)(1.0), 2 * (1 - np.tanh(1.0) ** 2))
    assert s2sad.differentiate_source(smooth) is smooth   # again: nothing to forget


def test_opting_out_through_the_differentiate_decorator(forget):
    @s2sad.differentiate
    def doubled(x):
        return 2.0 * x

    forget(doubled)
    s2sad.defderivative(doubled, "x", "0.0")
    assert s2sad.grad(doubled)(1.5) == 0.0
    assert s2sad.differentiate_source(doubled) is doubled
    assert rule_for(doubled) is None and s2sad.grad(doubled)(1.5) == 2.0


@pytest.mark.parametrize("function", [np.tanh, np.linalg.norm, len])
def test_library_functions_keep_their_rules(function):
    with pytest.raises(TypeError, match="keeps its rule"):
        s2sad.differentiate_source(function)
    assert rule_for(function) is not None


# ---------------------------------------------------------------- rules for methods of user classes


class Layer:
    def __init__(self, w):
        self.w = w

    def apply(self, x):
        return np.tanh(self.w * x)


class ScaledLayer(Layer):
    pass


def loss_through_layer(x, layer):
    return np.sum(layer.apply(x) ** 2)


GLOBAL_LAYER = Layer(np.array([0.5, -2.0, 1.0]))


def loss_through_global_layer(x):
    h = GLOBAL_LAYER.apply(x)
    return np.sum(h * x)


@pytest.fixture
def layer_rule():
    rule = s2sad.defderivative(Layer.apply, "self, x", None, "self.w * (1 - ans ** 2)")
    s2sad.defmethod(Layer, "apply")
    yield rule
    s2sad.differentiate_source(Layer.apply)   # forgets the method rule and the function's rule


def test_a_method_of_a_user_class_uses_its_rule(layer_rule):
    x = np.array([0.3, -0.2, 0.8])
    layer = Layer(np.array([1.0, 2.0, -0.5]))
    gradient = check_grad(loss_through_layer, x, layer)
    np.testing.assert_allclose(gradient, numerical_gradient(loss_through_layer, x, layer), rtol=1e-6)
    assert "method_rrule(layer, 'apply', x)" in s2sad.differentiate(loss_through_layer).source
    check_grad(loss_through_global_layer, x)
    check_grad(loss_through_layer, x, ScaledLayer(np.array([0.1, 0.2, 0.3])))   # a subclass finds it too
    check_rrule("apply", layer, x)


def test_the_method_rule_is_the_one_used(layer_rule):
    """A rule twice too large gives a gradient twice too large: the method's rule decides, at run time."""
    x, layer = np.array([0.3, -0.2, 0.8]), Layer(np.array([1.0, 2.0, -0.5]))
    right = s2sad.grad(loss_through_layer)(x, layer)
    s2sad.defmethod(Layer, "apply", s2sad.defderivative(Layer.apply, "self, x", None, "2 * self.w * (1 - ans ** 2)"))
    np.testing.assert_allclose(s2sad.grad(loss_through_layer)(x, layer), 2 * right)
    with pytest.raises(AssertionError, match=r"check_grad\(loss_through_global_layer\): argument 0 \('x'\)"):
        check_grad(loss_through_global_layer, x)


def loss_through_layer_sum(x, layer):
    return np.sum(layer.apply(x))


def test_opting_a_method_out_of_its_rule(layer_rule):
    x, layer = np.array([0.3, -0.2, 0.8]), Layer(np.array([1.0, 2.0, -0.5]))
    s2sad.defmethod(Layer, "apply", s2sad.defderivative(Layer.apply, "self, x", None, "0.0"))  # wrong on purpose
    np.testing.assert_array_equal(s2sad.grad(loss_through_layer_sum)(x, layer), np.zeros(3))
    s2sad.differentiate_source(Layer.apply)
    assert s2sad.registry.method_rule(Layer, "apply") is None and rule_for(Layer.apply) is None
    gradient = check_grad(loss_through_layer_sum, x, layer)       # now through apply's own source
    np.testing.assert_allclose(gradient, layer.w * (1 - np.tanh(layer.w * x) ** 2))


def test_defmethod_without_a_rule_says_what_to_do():
    class Plain:
        def apply(self, x):
            return x

    with pytest.raises(ValueError, match="register one first"):
        s2sad.defmethod(Plain, "apply")
    with pytest.raises(ValueError, match="no attribute 'missing'"):
        s2sad.defmethod(Plain, "missing")


# ---------------------------------------------------------------- check_grad


def mlp_loss(W, b, x):
    h = np.tanh(W @ x + b)
    return np.sum(h ** 2) / 2.0


def scaled_square(x, k):
    return x * x * k


def vector_output(W, x):
    return np.tanh(W @ x)


def list_loss(xs, k):
    return np.sum(xs[0] * xs[1]) * k


def dict_loss(params, x):
    return np.sum(np.tanh(params["W"] @ x) * params["scale"])


def scalar_loss(a, b):
    return a * b + np.sin(a)


def mystery(x):
    return np.sin(x) * x


def loss_mystery(x, y):
    return np.sum(mystery(x) * y)


def vector_mystery(x):
    return mystery(x) + 1.0


def test_check_grad_passes_and_returns_the_gradient():
    W, b, x = RNG.normal(size=(3, 2)), RNG.normal(size=3), RNG.normal(size=2)
    dW, db = check_grad(mlp_loss, W, b, x, argnums=(0, 1))
    expected = s2sad.grad(mlp_loss, argnums=(0, 1))(W, b, x)
    np.testing.assert_array_equal(dW, expected[0])
    np.testing.assert_array_equal(db, expected[1])
    assert isinstance(check_grad(mlp_loss, W, b, x, argnums=2), np.ndarray)   # an int: one gradient
    gradient = check_grad(mlp_loss, W.astype(np.float32), b.astype(np.float32), x.astype(np.float32))
    assert gradient.dtype == np.float32
    assert check_grad(scalar_loss, 1.5, 2.0, argnums=(0, 1)) == pytest.approx((2.0 + np.cos(1.5), 1.5))
    assert check_grad(scaled_square, 1.5, 3) == pytest.approx(9.0)


def test_check_grad_handles_array_outputs_and_lists():
    W, x = RNG.normal(size=(3, 2)), RNG.normal(size=2)
    gradient = check_grad(vector_output, W, x, argnums=1)
    assert gradient.shape == x.shape
    gradient = check_grad(list_loss, [np.ones(3), 2.0], 3)
    np.testing.assert_allclose(gradient[0], np.full(3, 6.0))
    assert gradient[1] == pytest.approx(9.0) and type(gradient[1]) is float
    gradient = check_grad(dict_loss, {"W": RNG.normal(size=(2, 3)), "scale": 1.5}, RNG.normal(size=3))
    assert gradient["W"].shape == (2, 3) and type(gradient["scale"]) is float


def test_check_grad_catches_a_wrong_user_rule(forget):
    forget(mystery)
    x, y = np.array([0.4, 1.3, -0.7]), np.array([1.0, -2.0, 0.5])
    s2sad.defderivative(mystery, "x", "np.cos(x) * x")          # forgot the product rule's sin(x)
    with pytest.raises(AssertionError) as error:
        check_grad(loss_mystery, x, y)
    message = str(error.value)
    assert "check_grad(loss_mystery): argument 0 ('x')" in message and "finite differences" in message
    with pytest.raises(AssertionError, match=r"check_grad\(vector_mystery\): argument 0 \('x'\)"):
        check_grad(vector_mystery, x)
    check_grad(loss_mystery, x, y, argnums=1)   # the other argument does not go through the rule

    s2sad.defderivative(mystery, "x", "np.cos(x) * x + np.sin(x)")
    check_rrule(mystery, x)
    check_grad(loss_mystery_fixed, x, y)


def loss_mystery_fixed(x, y):
    return np.sum(mystery(x) * y)


def test_check_grad_checks_the_gradient_follows_its_argument(monkeypatch):
    """A gradient of the wrong dtype or type (here a faked s2sad) is named."""
    x = np.linspace(0.1, 0.5, 3).astype(np.float32)
    real = s2sad.api.value_and_grad

    def widening(f, argnums=0, has_aux=False):
        def run(*args):
            value, gradient = real(f, argnums)(*args)
            return value, gradient.astype(np.float64)
        return run

    monkeypatch.setattr(s2sad.api, "value_and_grad", widening)
    with pytest.raises(AssertionError, match=r"argument 0 \('x'\): the gradient has dtype float64, the argument float32"):
        check_grad(loss_mystery_free, x)

    def as_list(f, argnums=0, has_aux=False):
        def run(*args):
            value, gradient = real(f, argnums)(*args)
            return value, list(gradient)
        return run

    monkeypatch.setattr(s2sad.api, "value_and_grad", as_list)
    with pytest.raises(AssertionError, match="the gradient is a list"):
        check_grad(loss_mystery_free, x)


def loss_mystery_free(x):
    return np.sum(np.sin(x) * x)


def test_check_grad_refuses_what_it_cannot_perturb():
    with pytest.raises(TypeError, match="argnums=5"):
        check_grad(scalar_loss, 1.0, 2.0, argnums=5)
    with pytest.raises(TypeError, match=r"argument 0 \('a'\) is a Layer"):
        check_grad(scalar_loss, Layer(1.0), 2.0)


def test_the_checkers_are_public():
    assert s2sad.testing.check_grad is check_grad and s2sad.testing.check_rrule is check_rrule
    assert {"check_grad", "check_rrule", "numerical_gradient"} <= set(s2sad.testing.__all__)
    assert "check_grad" in s2sad.testing.__doc__ and "check_rrule" in s2sad.testing.__doc__
    for name in ("defderivative", "differentiate_source", "defmethod", "testing"):
        assert name in s2sad.__all__ and getattr(s2sad, name) is not None
