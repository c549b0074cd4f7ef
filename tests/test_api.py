"""The public API: JAX conventions, the decorator, clear errors for bad arguments."""
import numpy as np
import pytest

import api_programs as p
import s2sad
from finite_differences import numerical_gradient
from s2sad.errors import ArgumentError, S2SADError


X = np.array([0.5, -1.0, 2.0])
Y = np.array([1.5, 0.25, -0.5])


def test_int_argnums_gives_one_gradient_tuple_gives_a_tuple():
    gx = s2sad.grad(p.quadratic)(X, Y)
    np.testing.assert_allclose(gx, 2 * X * Y)
    gx2, gy = s2sad.grad(p.quadratic, argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(gx2, 2 * X * Y)
    np.testing.assert_allclose(gy, X * X)
    (gy_only,) = s2sad.grad(p.quadratic, argnums=(1,))(X, Y)
    np.testing.assert_allclose(gy_only, X * X)
    np.testing.assert_allclose(s2sad.grad(p.quadratic, argnums=-1)(X, Y), X * X)


def test_value_and_grad():
    value, gradient = s2sad.value_and_grad(p.quadratic, argnums=1)(X, Y)
    assert value == pytest.approx(p.quadratic(X, Y))
    np.testing.assert_allclose(gradient, X * X)


def test_has_aux():
    gradient, aux = s2sad.grad(p.with_aux, has_aux=True)(X)
    np.testing.assert_allclose(gradient, 2 * X)
    assert aux["norm"] == pytest.approx(np.linalg.norm(X))
    (value, aux2), gradient2 = s2sad.value_and_grad(p.with_aux, has_aux=True)(X)
    assert value == pytest.approx(np.sum(X ** 2))


def test_vjp_of_a_vector_function():
    y, pullback = s2sad.vjp(p.vector_output, X)
    np.testing.assert_allclose(y, np.sin(X))
    (dx,) = pullback(np.ones(3) * 2.0)
    np.testing.assert_allclose(dx, 2.0 * np.cos(X))


def test_vjp_gives_no_tangent_for_an_integer_argument():
    y, pullback = s2sad.vjp(p.returns_integer, X, 3)
    dx, dn = pullback(1.0)
    np.testing.assert_allclose(dx, np.full(3, 3.0))
    assert dn is s2sad.NO_TANGENT


def test_rrule_returns_dself_first():
    y, pullback = s2sad.rrule(p.quadratic, X, Y)
    dself, dx, dy = pullback(1.0)
    assert dself is s2sad.NO_TANGENT
    np.testing.assert_allclose(dx, 2 * X * Y)
    np.testing.assert_allclose(dy, X * X)
    y2, pullback2 = s2sad.rrule(np.sin, 0.5)   # a function with a registered rule uses it
    assert pullback2(1.0)[1] == pytest.approx(np.cos(0.5))


def test_decorated_function_behaves_like_the_original():
    assert p.inner(X) == pytest.approx(np.sum(np.exp(X)))
    np.testing.assert_allclose(p.inner.grad(X), np.exp(X))
    value, gradient = p.inner.value_and_grad(X)
    assert value == pytest.approx(np.sum(np.exp(X)))
    y, pullback = p.inner.rrule(X)
    np.testing.assert_allclose(pullback(1.0)[1], np.exp(X))
    assert "def inner_rrule(x):" in p.inner.source
    assert p.inner.__name__ == "inner" and p.inner.__doc__ == p.inner.__s2sad_original__.__doc__


def test_differentiated_function_called_from_another_uses_its_generated_rule(capsys):
    gx, gy = p.outer.grad(X, Y)
    np.testing.assert_allclose(gx, numerical_gradient(p.outer, (X, Y), 0), rtol=1e-6)
    np.testing.assert_allclose(gy, numerical_gradient(p.outer, (X, Y), 1), rtol=1e-6)
    assert "inner_rrule" in p.outer.source
    p.outer.show()
    assert "def outer_rrule(x, y):" in capsys.readouterr().out


def test_non_scalar_output_for_grad_is_an_error_suggesting_vjp():
    with pytest.raises(ArgumentError, match="scalar output") as caught:
        s2sad.grad(p.vector_output)(X)
    assert "s2sad.vjp" in str(caught.value)


@pytest.mark.parametrize("argnums", [2, -3, (0, 5), "x", 1.0, (0, 0)])
def test_bad_argnums(argnums):
    with pytest.raises(ArgumentError):
        s2sad.grad(p.quadratic, argnums=argnums)(X, Y)


@pytest.mark.parametrize("value", [3, "text", np.arange(3), True])
def test_differentiating_with_respect_to_a_non_float_names_the_argument(value):
    with pytest.raises(ArgumentError, match="x"):
        s2sad.grad(p.quadratic)(value, Y)


@pytest.mark.parametrize("transform", ["jvp", "hvp"])
@pytest.mark.parametrize("value, tangent", [(3, 1.0), (np.array([1, 2]), np.ones(2)), (3, 1),
                                            (np.array([1, 2]), np.array([1, 0])), (1, 1),
                                            (np.array([1, 2]), np.array([1, 2]))])
def test_a_float_tangent_for_an_int_argument_is_refused_not_dropped(transform, value, tangent):
    """jvp(square, (3,), (1.0,)) gave (9, 0.0), where the slope of (3 + t) ** 2 is 6; hvp dropped an int
    array's direction (the Hessian of sum(x * x * y) along both gave y's row alone, [0, 0], not [2, 4])
    and crashed with IndexError where no argument was a float."""
    y = np.array([0.5, 0.25])
    with pytest.raises(ArgumentError, match="nonzero tangent for argument 0"):
        getattr(s2sad, transform)(p.quadratic, (value, y), (tangent, np.ones(2)))
    if transform == "hvp":
        with pytest.raises(ArgumentError, match="no float argument"):
            s2sad.hvp(p.quadratic, (value, 2), (None, 0))
    # a zero (or None) tangent for the int still gives the product of the float's
    value, slope = s2sad.jvp(p.quadratic, (np.array([1, 2]), y), (None, np.ones(2)))
    assert slope == pytest.approx(5.0)


@pytest.mark.parametrize("transform", ["jvp", "hvp"])
@pytest.mark.parametrize("value, tangent", [(0.3, 1j), (np.array([0.3, 0.5]), np.array([1j, 1.0])),
                                            (np.float32(0.3), np.complex64(2j))])
def test_a_complex_tangent_for_a_real_argument_is_refused_not_dropped(transform, value, tangent):
    """jvp(quadratic, (0.3, y), (1j, ...)) gave a real slope: the generated forward code keeps a
    real input's tangent real, so the imaginary direction's part (1j * the slope) was dropped."""
    y = np.array([0.5, 0.25])
    with pytest.raises(ArgumentError, match="complex tangent for argument 0, which is real"):
        getattr(s2sad, transform)(p.quadratic, (value, y), (tangent, np.ones(2)))
    # a complex tangent with no imaginary part moves it along the real line, as a real one does
    assert s2sad.jvp(p.quadratic, (0.3, y), (1.0 + 0j, np.zeros(2)))[1] == pytest.approx(0.45)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_a_jacobian_with_respect_to_an_int_array_names_the_argument(transform):
    """jacrev and jacfwd of a function of an int array gave None; JAX refuses it, as s2sad.grad does."""
    with pytest.raises(ArgumentError, match="argument 'x'.*dtype int64"):
        getattr(s2sad, transform)(p.quadratic)(np.array([1, 2, 3], dtype=np.int64), Y)


def test_error_inside_generated_code_points_at_the_user_line():
    with pytest.raises(ValueError) as caught:
        s2sad.grad(p.shape_error)(np.ones(3), np.ones((2, 4)))
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "api_programs.py" in notes and "return np.sum(A @ x)" in notes


def test_errors_are_s2sad_errors():
    assert issubclass(ArgumentError, S2SADError)
