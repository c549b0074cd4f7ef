"""Rules of rules/numpy_array_api.py (NumPy 2's vecdot, matvec, vecmat, matrix_transpose,
cumulative_sum, cumulative_prod, unstack and numpy.linalg's spellings), ``math.prod`` and
``np.add.reduceat``: each against central differences (check_rrule, check_frule) and
hand-derived values, through grad, jvp and hvp of user code."""
import math
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import S2SADError
from s2sad.forward_check import check_frule
from s2sad.testing import check_rrule

pytestmark = pytest.mark.skipif(not hasattr(np, "matvec"), reason="NumPy >= 2.2 has these names")

rng = np.random.default_rng(19)


def r(*shape):
    return rng.standard_normal(shape)


def c(*shape):
    return r(*shape) + 1j * r(*shape)


def with_zeros():
    return np.array([[1.5, 0.0, 2.0, 0.0], [2.0, -3.0, 0.0, 1.0]])


# (function, arguments, keywords): real and complex, broadcast batches, axis and keepdims,
# include_initial, zeros, a 0-d input, float32
CASES = [
    ("vecdot", lambda: (c(2, 3), c(4, 1, 3)), {}),
    ("vecdot", lambda: (c(3, 2), r(3, 1, 2)), {"axis": 0, "keepdims": True}),
    ("linalg.vecdot", lambda: (c(2, 3), c(3)), {"axis": -1}),
    ("matvec", lambda: (c(2, 4, 3), c(3)), {}),
    ("matvec", lambda: (r(4, 3), r(5, 3)), {}),
    ("vecmat", lambda: (c(4), c(2, 4, 3)), {}),
    ("vecmat", lambda: (r(5, 4).astype(np.float32), r(4, 3).astype(np.float32)), {}),
    ("matrix_transpose", lambda: (c(2, 3, 4),), {}),
    ("linalg.matrix_transpose", lambda: (r(3, 4),), {}),
    ("cumulative_sum", lambda: (r(2, 4),), {"axis": 1, "include_initial": True}),
    ("cumulative_sum", lambda: (np.float64(2.0),), {}),
    ("cumulative_prod", lambda: (c(3, 2),), {"axis": 0, "include_initial": True}),
    ("cumulative_prod", lambda: (with_zeros(),), {"axis": -1, "include_initial": True}),
    ("cumulative_prod", lambda: (r(4).astype(np.float32),), {}),
    ("unstack", lambda: (c(2, 3),), {"axis": 1}),
    ("linalg.matmul", lambda: (c(2, 3), c(3)), {}),
    ("linalg.outer", lambda: (c(2), c(3)), {}),
    ("linalg.tensordot", lambda: (r(2, 3, 4), r(3, 4, 2)), {}),
    ("linalg.cross", lambda: (r(2, 3), r(3)), {}),
    ("linalg.trace", lambda: (r(2, 3, 4),), {"offset": 1}),
    ("linalg.diagonal", lambda: (c(2, 3, 3),), {"offset": -1}),
    ("add.reduceat", lambda: (r(8), [0, 4, 1, 5]), {}),
    ("add.reduceat", lambda: (c(3, 8), [7, 3]), {"axis": 1}),
    ("add.reduceat", lambda: (r(4), []), {}),
]


def numpy_function(name):
    owner, _, attribute = name.rpartition(".")
    return getattr(getattr(np, owner) if owner else np, attribute)


@pytest.mark.parametrize("name, make, keywords", CASES, ids=[f"{case[0]}-{i}" for i, case in enumerate(CASES)])
def test_reverse_and_forward_rules_against_central_differences(name, make, keywords):
    args = make()
    check_rrule(numpy_function(name), *args, **keywords)
    check_frule(numpy_function(name), *args, **keywords)


@pytest.mark.parametrize("args, keywords", [
    (([1.5, 0.0, -2.0],), {"start": 2.0}),
    (((np.float64(2.0), r(3)),), {}),
    ((r(3, 2),), {"start": 3.0}),
    (([1 + 2j, 3 - 1j],), {}),
])
def test_math_prod_against_central_differences(args, keywords):
    check_rrule(math.prod, *args, **keywords)
    check_frule(math.prod, *args, **keywords)


# ------------------------------------------------------------------ hand-derived values through user code
A = np.array([1 + 2j, 3 - 1j])
B = np.array([2 - 1j, 1 + 1j])
M = np.array([[1 + 1j, 2.0], [3j, 4 - 2j]])
W = np.array([1.0, -2j])


def real_vecdot_in_x1(a):
    return np.real(np.vecdot(a, B))


def real_vecdot_in_x2(b):
    return np.real(np.vecdot(A, b))


def imag_vecdot_in_x1(a):
    return np.imag(np.vecdot(a, B))


def weighted_vecmat_in_x1(a):
    return np.real(np.vdot(W, np.vecmat(a, M)))


def weighted_matvec_in_x2(b):
    return np.real(np.vdot(W, np.matvec(M, b)))


def test_complex_gradients_conjugate_where_numpy_does():
    # the convention of np.vdot's rule: d Re f / d Re z + 1j d Re f / d Im z
    assert np.allclose(s2sad.grad(real_vecdot_in_x1)(A), B)                 # Re sum(conj(a) b)
    assert np.allclose(s2sad.grad(real_vecdot_in_x2)(B), A)
    assert np.allclose(s2sad.grad(imag_vecdot_in_x1)(A), -1j * B)          # Im sum(conj(a) b)
    assert np.allclose(s2sad.grad(weighted_vecmat_in_x1)(A), M @ np.conj(W))  # Re sum conj(w_j) conj(a_i) M_ij
    assert np.allclose(s2sad.grad(weighted_matvec_in_x2)(B), np.conj(M).T @ W)


def sum_of_running_products(x):
    return np.sum(np.cumulative_prod(x, include_initial=True))


def quadratic_form(x, w):
    return np.vecdot(x, np.matvec(w, x))


def weighted_slice_sums(x, weights):
    return np.sum(weights * np.add.reduceat(x, [0, 4, 1, 5]))


def product_of_three(x):
    return math.prod([x[0], x[1], x[2]])


def cumprod_sum(x):
    return np.sum(np.cumprod(x))


def running_product_sum(x):
    return np.sum(np.multiply.accumulate(x, axis=1))


def test_second_derivatives_of_running_products_at_zeros():
    # np.cumprod's rules dropped the terms a zero makes 0, whose slope in that zero is not 0:
    # hvp gave [0, 0, 0] here, and the Hessian was not symmetric
    x, v = np.array([1.5, 0.0, 2.0]), np.array([1.0, 0.0, 0.0])
    hessian = np.array([[0.0, 1 + x[2], x[1]], [1 + x[2], 0.0, x[0]], [x[1], x[0], 0.0]])  # of x0 + x0 x1 + x0 x1 x2
    assert np.allclose(s2sad.hvp(cumprod_sum, (x,), (v,)), hessian @ v)
    assert np.allclose(s2sad.hessian(cumprod_sum)(x), hessian)
    rows = np.array([[1.5, 0.0, 2.0], [0.0, 2.0, 0.0]])
    direction = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # row by row, the Hessian above at each row
    expected = [[0.0, 1 + rows[0, 2], rows[0, 1]], [rows[1, 1], rows[1, 0], 0.0]]
    assert np.allclose(s2sad.hvp(running_product_sum, (rows,), (direction,)), expected)


def test_zeros_in_cumulative_prod_and_math_prod():
    x = np.array([2.0, 0.0, 3.0, 0.0])  # 1 + x0 + x0 x1 + x0 x1 x2 + x0 x1 x2 x3
    assert np.array_equal(s2sad.grad(sum_of_running_products)(x), [1.0, 8.0, 0.0, 0.0])
    assert np.array_equal(s2sad.grad(product_of_three)(np.array([2.0, 0.0, 5.0])), [0.0, 10.0, 0.0])


def test_reduceat_slices_and_single_elements():
    # slices [0, 4), [4] alone (4 >= 1), [1, 5), [5, 8): each element gets the weights of its slices
    weights = np.array([1.0, 10.0, 100.0, 1000.0])
    expected = [1.0, 101.0, 101.0, 101.0, 110.0, 1000.0, 1000.0, 1000.0]
    assert np.array_equal(s2sad.grad(weighted_slice_sums)(r(8), weights), expected)
    # a small cotangent beside a large one is not rounded away (no differences of running sums)
    tiny = s2sad.grad(weighted_slice_sums)(r(8), np.array([1e20, 1e-5, 1.0, 1.0]))
    assert tiny[4] == 1e-5 + 1.0


def test_float32_stays_float32():
    x = r(4).astype(np.float32)
    assert s2sad.grad(sum_of_running_products)(x).dtype == np.float32
    assert s2sad.grad(weighted_slice_sums)(r(8).astype(np.float32), np.ones(4, np.float32)).dtype == np.float32


def test_hessians_by_hand():
    x, w, v = r(3), r(3, 3), r(3)
    assert np.allclose(s2sad.hvp(quadratic_form, (x, w), (v, np.zeros((3, 3))))[0], (w + w.T) @ v)
    x3 = np.array([1.5, 0.0, 2.0])  # 1 + x0 + x0 x1 + x0 x1 x2
    hessian = np.array([[0.0, 1 + x3[2], x3[1]], [1 + x3[2], 0.0, x3[0]], [x3[1], x3[0], 0.0]])
    assert np.allclose(s2sad.hvp(sum_of_running_products, (x3,), (v,)), hessian @ v)
    product_hessian = np.array([[0.0, x3[2], x3[1]], [x3[2], 0.0, x3[0]], [x3[1], x3[0], 0.0]])  # x0 x1 x2
    assert np.allclose(s2sad.hvp(product_of_three, (x3,), (v,)), product_hessian @ v)


def everything(x, w):
    s = np.cumulative_sum(x * x, include_initial=True)
    p = np.cumulative_prod(x)
    a, b = np.unstack(np.matrix_transpose(w))[:2]
    return (np.vecdot(x, np.matvec(w, x)) + np.sum(s[1:] * p) + np.vecdot(a, b) + np.sum(np.vecmat(x, w) ** 2)
            + np.sum(np.add.reduceat(x, [0, 2, 1]) ** 3) + math.prod([x[0], x[1]]))


def central_gradient(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def test_grad_jvp_and_compile_fallback_of_a_program():
    x, w, v = r(3), r(3, 3), r(3)
    gradient = s2sad.grad(everything)(x, w)
    assert np.allclose(gradient, central_gradient(lambda y: everything(y, w), x), rtol=1e-6, atol=1e-7)
    assert np.allclose(s2sad.grad(everything, argnums=1)(x, w), central_gradient(lambda y: everything(x, y), w),
                       rtol=1e-6, atol=1e-7)
    assert np.isclose(s2sad.jvp(everything, (x, w), (v, np.zeros((3, 3))))[1], gradient @ v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = s2sad.grad(everything, compile=True)(x, w)
    assert any("runs on the NumPy path" in str(warning.message) for warning in caught)
    assert np.array_equal(compiled, gradient)


def vecdot_over_axes(x):
    return np.sum(np.vecdot(x, x, axes=[(0,), (0,), ()]))


def product_of_a_generator(x):
    return math.prod(item for item in x)


def test_axes_of_a_gufunc_refused_and_a_generator_of_items_read():
    with pytest.raises(S2SADError, match="axes"):
        s2sad.grad(vecdot_over_axes)(r(3, 2))
    assert np.array_equal(s2sad.grad(product_of_a_generator)(np.array([1.0, 2.0, 3.0])), [6.0, 3.0, 2.0])
