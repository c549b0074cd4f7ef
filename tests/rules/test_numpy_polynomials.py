"""np.polyfit (rules/numpy_polynomials.py): a least-squares fit, differentiated in y.

Reverse and forward rules against central differences (check_rrule, check_grads); the
cotangent against the hand-derived formula pinv(V)^T g for an unweighted fit; x and w
differentiated, full=True and cov=True refused with located errors.
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


def fit_in_x(x):
    return np.sum(np.polyfit(x, np.ones(9), 2))


def weighted(w):
    return np.sum(np.polyfit(X, X ** 2, 2, w=w))


def full_fit(y):
    return np.sum(np.polyfit(X, y, 2, full=True)[0])


@pytest.mark.parametrize("f, arg", [(fit_in_x, X), (weighted, np.ones(9)), (full_fit, X)],
                         ids=["x", "w", "full"])
def test_polyfit_refusals_are_located(f, arg):
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(f)(arg)
    assert "test_numpy_polynomials.py" in str(caught.value) and "polyfit" in str(caught.value)
