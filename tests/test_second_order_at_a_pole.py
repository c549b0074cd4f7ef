"""Second order where the function's value is infinite: ``np.sum(x ** -2)`` with an element at 0.

hvp pulls ``(value, tangent)`` back with the value's cotangent zero. It was ``0.0 * value``, which is
NaN when the value is inf, and that NaN reached every element of the product: [nan, nan, nan] where
the product is [inf, 2.89, 24.99]. (The NaN check does not fire where the function is not finite.)
The reference is the hand-derived Hessian of ``sum(x ** -2)``: diagonal, ``6 x ** -4``."""
import numpy as np

import s2sad

X = np.array([0.0, -1.2, 0.7])
V = np.array([1.0, 0.5, -2.0])


def inverse_squares(x):
    return np.sum(x ** -2)


def test_hvp_at_a_pole_is_infinite_there_and_finite_elsewhere():
    with np.errstate(divide="ignore"):
        product = s2sad.hvp(inverse_squares, (X,), (V,))
        expected = 6.0 * X ** -4.0 * V
    assert product[0] == np.inf
    np.testing.assert_allclose(product[1:], expected[1:], rtol=1e-13)


def test_the_hessian_at_a_pole_is_diagonal():
    with np.errstate(divide="ignore"):
        hessian = s2sad.hessian(inverse_squares)(X)
        expected = np.diag(6.0 * X ** -4.0)
    assert hessian[0, 0] == np.inf
    hessian[0, 0] = expected[0, 0] = 0.0
    np.testing.assert_allclose(hessian, expected, rtol=1e-13)
