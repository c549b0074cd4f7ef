"""A branch chosen by ``==`` or ``!=`` between a differentiated float and a constant, at a point where
they are equal: ``np.where(x == 0, 1.0, np.expm1(x) / x)`` guards a removable singularity, NumPy's
function is smooth there (slope 1/2 at 0), and the branch taken, the constant, has slope 0. s2sad
gave that 0 in every mode; it refuses at the user's line, and differentiates as before where no
element is equal, and where both sides move together (``x == x.max()``)."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient


def expm1_over_x(x):
    safe = np.where(x == 0, 1.0, x)
    return np.sum(np.where(x == 0, 1.0, np.expm1(safe) / safe))


def expm1_over_x_scalar(x):
    if x == 0.0:
        return 1.0
    return np.expm1(x) / x


def sinc_not_equal(x):
    safe = np.where(x != 0, x, 1.0)
    return np.sum(np.where(x != 0, np.sin(safe) / safe, 1.0) * x)


def largest_kept(x):
    return np.sum(np.where(x == np.max(x), x ** 2, np.sin(x)))


AT_ZERO = np.array([0.0, 0.3])


@pytest.mark.parametrize("mode, f, x, line", [
    ("grad", expm1_over_x, AT_ZERO, "safe = np.where(x == 0, 1.0, x)"),   # was [0, 0.612], NumPy's [0.5, 0.612]
    ("jvp", expm1_over_x_scalar, 0.0, "if x == 0.0:"),                     # was 0, NumPy's 0.5
    ("hvp", sinc_not_equal, AT_ZERO, "safe = np.where(x != 0, x, 1.0)"),  # was 0 at 0, NumPy's 2
])
def test_refused_at_the_equal_point(mode, f, x, line):
    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.ones_like(x),)),
           "hvp": lambda: s2sad.hvp(f, (x,), (np.ones_like(x),))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as caught:
        run()
    assert caught.value.location.text.strip() == line and caught.value.hint


@pytest.mark.parametrize("f, x", [(expm1_over_x, np.array([0.2, -0.4])), (expm1_over_x_scalar, 0.3),
                                  (sinc_not_equal, np.array([0.7, -0.2])), (largest_kept, np.array([0.4, 1.1, -0.3]))])
def test_differentiated_where_nothing_is_equal(f, x):
    np.testing.assert_allclose(s2sad.grad(f)(x), numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-8)


def relu_then_leaky_where_dead(z):
    h = np.maximum(z, 0.0)
    return np.sum(np.where(h == 0, 0.01 * z, h ** 2))


@pytest.mark.parametrize("f, x, v", [(relu_then_leaky_where_dead, np.array([-1.0, 0.5]), np.array([1.0, -2.0])),
                                     (expm1_over_x, AT_ZERO, np.array([0.0, 1.0]))])
def test_forward_code_refuses_only_where_the_value_moves(f, x, v):
    # a relu's 0 stays put around a negative input, and x[0] does not move along v: each outcome
    # holds around the point, and jvp is NumPy's directional derivative
    _, tangent = s2sad.jvp(f, (x,), (v,))
    assert tangent == pytest.approx((f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6, rel=1e-6)



def sinc_of_norm(x):
    r = np.linalg.norm(x)
    safe = np.where(r == 0, 1.0, r)
    return np.where(r == 0, 1.0, np.sin(safe) / safe)


def sinc_of_abs(x):
    a = np.abs(x)
    return np.sum(np.where(a == 0, 1.0, np.sin(a) / np.where(a == 0, 1.0, a)))


def sinc_of_norm_greater(x):
    r = np.linalg.norm(x)   # `r > 0` is `r != 0` for a value never negative
    return np.where(r > 0, np.sin(r) / np.where(0 < r, r, 1.0), 1.0)


def test_an_ordering_of_a_norm_with_0_is_refused_at_0_for_hvp_only():
    # hvp was 0 at 0, NumPy's -v / 3; the first derivative through the norm's kink is its subgradient, 0
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="`r > 0` finds a differentiated value exactly equal"):
        s2sad.hvp(sinc_of_norm_greater, (np.zeros(2),), (np.array([1.0, 0.5]),))
    np.testing.assert_array_equal(s2sad.grad(sinc_of_norm_greater)(np.zeros(2)), [0.0, 0.0])
    x, v, u = np.array([0.3, 0.4]), np.array([1.0, 0.5]), np.array([-0.2, 0.7])
    assert_hvp_matches(s2sad.hvp(sinc_of_norm_greater, (x,), (v,)), sinc_of_norm_greater, [x], [v], [u])


@pytest.mark.parametrize("f, x, line", [
    (sinc_of_norm, np.zeros(2), "safe = np.where(r == 0, 1.0, r)"),   # was 0 at 0, NumPy's -v / 3
    (sinc_of_abs, np.zeros(2), "return np.sum(np.where(a == 0, 1.0, np.sin(a) / np.where(a == 0, 1.0, a)))"),  # was 0, -1/3
])
def test_hvp_refuses_where_the_operands_tangent_is_0_but_it_moves(f, x, line):
    # a norm's and |x|'s tangent at 0 is 0 along every direction, yet the value moves: jvp is right
    # there (f's slope is 0), its derivative, the Hessian, is not the constant branch's 0
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as caught:
        s2sad.hvp(f, (x,), (np.array([1.0, 0.5]),))
    assert caught.value.location.text.strip() == line
    assert s2sad.jvp(f, (x,), (np.array([1.0, 0.5]),))[1] == 0.0
