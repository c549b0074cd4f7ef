"""np.ascontiguousarray, np.asfortranarray and np.ediff1d (with to_begin= and to_end=) in user programs:
grad, vjp, jvp and hvp against hand-derived derivatives; the caller's arrays unchanged."""
import numpy as np
import pytest

import s2sad

X = np.array([0.3, -1.2, 0.7, 1.1])
V = np.array([1.0, 0.5, -2.0, 0.25])
W = np.array([[0.5, -1.0], [2.0, 0.25]])


def ends_and_differences(x):
    # (2 x0)^2 + sum (x[i+1] - x[i])^2 + 1 + x[-1]^2
    return np.sum(np.ediff1d(x, to_begin=x[0] * 2.0, to_end=[1.0, x[-1]]) ** 2)


def ends_and_differences_hessian(n):
    """8 at (0, 0), 2 at (n-1, n-1), and twice the path graph's Laplacian from the differences."""
    laplacian = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    laplacian[0, 0] = laplacian[-1, -1] = 1.0
    hessian = 2 * laplacian
    hessian[0, 0] += 8.0
    hessian[-1, -1] += 2.0
    return hessian


def cubed_in_either_layout(m):
    # sum of m^3 * W, read through a Fortran-ordered copy and a C-ordered copy of m's transpose
    return np.sum(np.asfortranarray(m) ** 3 * W) + np.sum(np.ascontiguousarray(m.T) ** 2)


@pytest.mark.parametrize("f, x, v, gradient, hvp", [
    (ends_and_differences, X, V, ends_and_differences_hessian(4) @ X, ends_and_differences_hessian(4) @ V),
    (cubed_in_either_layout, W.T.copy(), W, 3 * W.T ** 2 * W + 2 * W.T, 6 * W.T * W * W + 2 * W),
], ids=["ediff1d", "layout copies"])
def test_every_mode_against_hand_derived(f, x, v, gradient, hvp):
    given = x.copy()
    np.testing.assert_allclose(s2sad.grad(f)(x), gradient, rtol=1e-12, atol=1e-12)
    value, pullback = s2sad.vjp(f, x)
    assert value == pytest.approx(f(x))
    np.testing.assert_allclose(pullback(2.0)[0], 2.0 * gradient, rtol=1e-12, atol=1e-12)
    assert s2sad.jvp(f, (x,), (v,))[1] == pytest.approx(np.sum(gradient * v), rel=1e-12)
    np.testing.assert_allclose(s2sad.hvp(f, (x,), (v,)), hvp, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x, given)


def test_ediff1d_of_complex_values_and_a_list_end():
    """A complex array's differences beside a list end: sum(ediff1d(z, to_end=[x, 1])^2) is holomorphic in z,
    its derivative 2 d[i-1] - 2 d[i] for the differences d."""
    z = np.array([0.5 + 1j, -0.25 + 0.5j, 2.0 - 1j])

    def f(z, x):
        return np.sum(np.ediff1d(z, to_end=[x, 1.0]) ** 2)

    d = np.ediff1d(z)
    expected_z = 2 * np.concatenate(([0.0], d)) - 2 * np.concatenate((d, [0.0]))
    np.testing.assert_allclose(s2sad.grad(f, holomorphic=True)(z, 0.7), expected_z, rtol=1e-12)
