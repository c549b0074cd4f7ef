"""np.polyfit (rules/numpy_polynomials.py): a least-squares fit, differentiated in y and in x.

Reverse and forward rules against central differences (check_rrule, check_grads); the
cotangent in y against the hand-derived formula pinv(V)^T g for an unweighted fit; w
differentiated, full=True, cov=True and x at a rank-deficient fit refused with located errors.
"""
import numpy as np
import pytest

import s2sad
from s2sad.testing import check_grads, check_rrule

rng = np.random.default_rng(7)
KNOTS = np.arange(-3, 4)  # integer knots have no tangent: y is the only differentiated argument


@pytest.mark.parametrize("deg", [0, 1, 3])
@pytest.mark.parametrize("shape", [(7,), (7, 2)], ids=["one-fit", "two-columns"])
def test_polyfit_in_y(deg, shape):
    check_rrule(np.polyfit, KNOTS, rng.standard_normal(shape), deg)
    check_rrule(np.polyfit, KNOTS, rng.standard_normal(shape) + 1j * rng.standard_normal(shape), deg)
    check_rrule(np.polyfit, KNOTS, rng.standard_normal(shape), deg, w=np.array([1, 2, 1, 3, 1, 1, 2]))
    check_rrule(np.polyfit, KNOTS, rng.standard_normal(shape).astype(np.float32), deg)


def test_polyfit_cotangent_is_the_pseudo_inverse_transposed():
    y, g = rng.standard_normal(7), rng.standard_normal(3)
    from s2sad.registry import rule_for

    _, pullback = rule_for(np.polyfit).rrule(KNOTS, y, 2)
    np.testing.assert_allclose(pullback(g)[2], np.linalg.pinv(np.vander(KNOTS, 3)).T @ g, rtol=1e-10)


X = np.linspace(-1.0, 1.0, 9)


def trend_energy(y):
    slope, intercept = np.polyfit(X, y, 1)
    return slope ** 2 + np.sum((y - (slope * X + intercept)) ** 2) * intercept


def test_polyfit_in_a_program_to_second_order():
    check_grads(trend_energy, modes=("fwd", "rev"), order=2)(rng.standard_normal(9))


@pytest.mark.parametrize("deg", [0, 1, 2, 4])
def test_polyfit_in_x(deg):
    x = np.sort(rng.uniform(-1.0, 1.0, 8))
    y = rng.standard_normal((8, 2))
    check_rrule(np.polyfit, x, y[:, 0], deg)
    check_rrule(np.polyfit, x, y, deg)
    check_rrule(np.polyfit, x, y[:, 0] + 1j * y[:, 1], deg)
    check_rrule(np.polyfit, x, y[:, 0], deg, w=np.arange(1, 9))
    check_rrule(np.polyfit, x.astype(np.float32), y.astype(np.float32), deg)


def knots_and_values(x, y):
    c = np.polyfit(x, y, 2)
    return np.sum(c ** 2) + c[0] * np.sum(x ** 2)


def test_polyfit_in_x_and_y_to_second_order():
    check_grads(knots_and_values, argnums=(0, 1), modes=("fwd", "rev"), order=2)(np.sort(rng.uniform(-1, 1, 8)),
                                                                                   rng.standard_normal(8))


def fit_in_x(x):
    return np.sum(np.polyfit(x, np.arange(6.0), 2))  # x below: two distinct knots for three coefficients


def weighted(w):
    return np.sum(np.polyfit(X, X ** 2, 2, w=w))


def full_fit(y):
    return np.sum(np.polyfit(X, y, 2, full=True)[0])


@pytest.mark.parametrize("f, arg", [(fit_in_x, np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])), (weighted, np.ones(9)),
                                    (full_fit, X)], ids=["x-rank-deficient", "w", "full"])
def test_polyfit_refusals_are_located(f, arg):
    import warnings

    warnings.simplefilter("ignore", np.exceptions.RankWarning)  # NumPy's own word on the rank-deficient fit
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(f)(arg)
    assert "test_numpy_polynomials.py" in str(caught.value) and "polyfit" in str(caught.value)


COMPLEX_KNOTS = np.linspace(-1.0, 1.0, 7) * (1 + 0.5j)


def fit_at_complex_knots(y):
    return np.real(np.sum(np.polyfit(COMPLEX_KNOTS, y, 2) * np.array([1.0, -2j, 0.5])))


def fit_in_complex_x(x):
    return np.real(np.sum(np.polyfit(x, np.arange(7.0), 2)))


def test_polyfit_at_complex_knots():
    """NumPy fits at complex x too: P is complex, and y's cotangent is P^H g (it was P^T g, found by
    the sweep); the derivative in complex x (the fit reads V^H, not holomorphic) is refused."""
    from s2sad.testing import check_grad

    check_grad(fit_at_complex_knots, rng.standard_normal(7) + 1j * rng.standard_normal(7))
    check_grad(fit_at_complex_knots, rng.standard_normal(7))
    with pytest.raises(s2sad.S2SADError, match="complex x"):
        s2sad.grad(fit_in_complex_x)(COMPLEX_KNOTS)


def test_polyval_forward_tangents_keep_the_float32_output_dtype():
    """polyval of float32 p and x is float32; the tangent of x was float64 (the derivative's
    coefficients times int exponents). Values against central differences (check_frule)."""
    from s2sad.forward_check import check_frule

    p, x = rng.standard_normal(4).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    assert [t.dtype for t in check_frule(np.polyval, p, x)] == [np.float32, np.float32]
    # by hand: d/dx (2 x^2 + 3 x + 1) = 4 x + 3, along the tangent v of x
    from s2sad.registry.forward import forward_rule

    x, v = np.array([0.5, -1.0], dtype=np.float32), np.array([1.0, 2.0], dtype=np.float32)
    p = np.array([2.0, 3.0, 1.0], dtype=np.float32)
    dx = forward_rule(np.polyval).pushforward((p, x), {}, {"x": v}, np.polyval(p, x))
    assert dx.dtype == np.float32
    np.testing.assert_allclose(dx, (4 * x + 3) * v)
