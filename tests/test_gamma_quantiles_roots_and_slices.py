"""math.lgamma, math.gamma, math.dist, np.quantile, np.percentile, np.multiply.reduceat, np.roots and
np.apply_along_axis in user programs: grad, vjp, jvp and hvp against central differences (mixed
second differences), hand-derived values at chosen points, and the refusals at the points where
NumPy's function has no derivative (ties on a quantile's kink, repeated roots)."""
import math

import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_of_arrays
from s2sad.rules.polygamma import digamma, trigamma

EULER_GAMMA = 0.5772156649015329


def gamma_and_distance(x):
    # x[2] < 0: lgamma is log |gamma| there
    return math.lgamma(x[0]) * math.gamma(x[1]) + math.lgamma(x[2]) + math.dist([x[3], 2.0 * x[4]], (x[0], x[3] * x[1])) ** 3


def quantiles_products_and_roots(x):
    r = np.roots(x[2, :4])  # one real root and a complex pair
    return (np.sum(np.quantile(x[::2], [0.3, 0.8], axis=1) ** 2) + np.percentile(x[::2], 37.0) * np.median(x[0])
            + np.sum(np.sin(np.multiply.reduceat(x[:2], [0, 3, 1, 4], axis=1)))
            + np.sum(np.abs(r) ** 2 + 3.0 * r.real))


def scaled_running_sums(row, w):
    return np.cumsum(row) * w


def applied_along_axes(x):
    cubes = np.apply_along_axis(lambda r: np.sum(np.sin(r) * r ** 3), 1, x)
    return np.sum(cubes ** 2) + np.sum(np.apply_along_axis(scaled_running_sums, 0, x, x[0, 0]) ** 2)


ROWS = np.array([[0.3, 0.0, -0.5, 2.0, 0.9], [1.1, -0.7, 0.0, 0.0, 1.3], [1.0, 0.5, 2.0, 1.3, 0.0]])
CASES = {
    "lgamma-gamma-dist": (gamma_and_distance, [np.array([2.5, 0.3, -1.5, 0.7, -0.3])]),
    "quantile-reduceat-roots": (quantiles_products_and_roots, [ROWS]),  # zeros in reduceat's slices
    "apply_along_axis": (applied_along_axes, [np.random.default_rng(21).normal(size=(2, 3))]),
}


@pytest.mark.parametrize("name", CASES)
def test_every_mode_against_central_differences(name):
    f, args = CASES[name]
    assert_every_mode_of_arrays(f, args)


def test_hand_derived_values():
    assert s2sad.grad(math.lgamma)(1.0) == pytest.approx(-EULER_GAMMA, rel=1e-14)
    assert s2sad.grad(math.gamma)(0.5) == pytest.approx(math.sqrt(math.pi) * (-EULER_GAMMA - 2 * math.log(2)), rel=1e-14)
    assert trigamma(1.0) == pytest.approx(math.pi ** 2 / 6, rel=1e-14)
    assert math.isnan(digamma(-2.0))  # a pole
    # the median of four values reads the two middle ones half each; the 0.25 quantile of [0, 10, 20, 30]
    # sits at the virtual index 0.75: a quarter on 0, three quarters on 10
    np.testing.assert_allclose(s2sad.grad(lambda x: np.quantile(x, 0.25))(np.array([20.0, 0.0, 30.0, 10.0])),
                               [0.0, 0.25, 0.0, 0.75])
    # the roots 2 and 1 of z**2 - 3 z + 2: d r / d c = -r ** (2 - i) / P'(r); their sum -c1 / c0
    np.testing.assert_allclose(s2sad.grad(lambda c: np.sum(np.roots(c)))(np.array([1.0, -3.0, 2.0])),
                               [-3.0, -1.0, 0.0], atol=1e-12)
    # a zero in a slice: the slopes are the products of the others, nothing divided by 0
    np.testing.assert_allclose(
        s2sad.grad(lambda x: np.sum(np.multiply.reduceat(x, [0, 3])))(np.array([2.0, 0.0, 3.0, 5.0])),
        [0.0, 6.0, 0.0, 1.0])
    assert s2sad.grad(lambda p: math.dist(p, [1.0, 1.0]))(np.array([4.0, 5.0])).tolist() == [0.6, 0.8]


def tie_at_the_lower_quantile(x):
    return np.quantile(x, 0.0)  # the smaller of two tied values: a kink


def tie_between_equal_weights(x):
    return np.quantile(x, 0.25)  # [1, 1, 3]: the two tied ones are read half each, their mean


def repeated_root(c):
    return np.sum(np.roots(c))


def test_kinks_are_refused_and_a_tie_with_equal_weights_is_not():
    with pytest.raises(s2sad.S2SADError, match="ties with another one"):
        s2sad.grad(tie_at_the_lower_quantile)(np.array([1.0, 1.0, 3.0]))
    np.testing.assert_allclose(s2sad.grad(tie_between_equal_weights)(np.array([1.0, 1.0, 3.0])), [0.5, 0.5, 0.0])
    with pytest.raises(s2sad.S2SADError, match="distinct roots"):
        s2sad.grad(repeated_root)(np.array([1.0, -2.0, 1.0]))
    with pytest.raises(s2sad.S2SADError, match="trailing zeros"):
        s2sad.grad(repeated_root)(np.array([1.0, -3.0, 2.0, 0.0]))
    with pytest.raises(s2sad.S2SADError, match="q="):
        s2sad.grad(lambda q: np.quantile(np.array([1.0, 2.0, 5.0]), q))(0.3)
