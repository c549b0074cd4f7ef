"""np.kaiser (rules/numpy_windows.py): the window's derivative in beta, against central
differences and against SciPy's I1 (the rule sums I1's series itself)."""
import numpy as np
import pytest

import s2sad
from s2sad.testing import check_grads, check_rrule


@pytest.mark.parametrize("M", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("beta", [0.0, 2.5, 14.0, 40.0])
def test_kaiser_in_beta(M, beta):
    for b in (beta, np.float64(beta), np.array(beta), np.float32(beta)):
        check_rrule(np.kaiser, M, b)


def test_the_series_for_i1_against_scipy():
    special = pytest.importorskip("scipy.special")
    from s2sad.rules.numpy_windows import bessel_i1

    x = np.array([0.0, 1e-3, 0.3, 2.0, 10.0, 40.0, 60.0, -3.0])
    np.testing.assert_allclose(bessel_i1(x), special.i1(x), rtol=1e-13, atol=1e-300)


def windowed_energy(beta, x):
    return np.sum((np.kaiser(7, beta) * x) ** 2) + np.sum(np.hanning(7) * x)


def test_kaiser_in_a_program_to_second_order():
    x = np.random.default_rng(3).standard_normal(7)
    check_grads(windowed_energy, argnums=(0, 1), modes=("fwd", "rev"), order=2)(3.0, x)
    assert s2sad.grad(windowed_energy)(0.0, x) == pytest.approx(0.0, abs=1e-12)  # even in beta: flat at 0


def test_i0():
    x = np.random.default_rng(4).standard_normal((2, 3)) * 3
    check_rrule(np.i0, x)
    check_rrule(np.i0, x.astype(np.float32))
    check_grads(lambda_free_i0, modes=("fwd", "rev"), order=2)(x)


def lambda_free_i0(x):
    return np.sum(np.i0(x) * x)
