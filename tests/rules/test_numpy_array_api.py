"""Rules of rules/numpy_array_api.py (NumPy 2's vecdot, matvec, vecmat, matrix_transpose,
cumulative_sum, cumulative_prod, unstack, meshgrid and numpy.linalg's spellings),
rules/numpy_float_parts.py, ``math.prod`` and ``np.add.reduceat``, and np.cumprod's second
derivatives at zeros: against central differences (check_rrule, check_frule) and
hand-derived values, through grad, jvp and hvp of user code. Complex inputs and second
derivatives at random points are the complex audit's and the second-order walk's
(tests/rules/test_complex_audit.py, tests/test_second_order_rules.py)."""
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


# (function, arguments, keywords): what the complex audit and the second-order walk
# (tests/rules/test_complex_audit.py, tests/test_second_order_rules.py) do not try: axis and
# keepdims, broadcast batches, include_initial with zeros, a 0-d input, float32, dtype=, unsorted
# and empty reduceat indices
CASES = [
    ("vecdot", lambda: (c(3, 2), r(3, 1, 2)), {"axis": 0, "keepdims": True}),
    ("vecdot", lambda: (c(2, 3), c(4, 1, 3)), {}),
    ("matvec", lambda: (r(4, 3), r(5, 3)), {}),
    ("vecmat", lambda: (r(5, 4).astype(np.float32), r(4, 3).astype(np.float32)), {}),
    ("cumulative_sum", lambda: (np.float64(2.0),), {}),
    ("cumulative_sum", lambda: (r(2, 3),), {"axis": 0, "dtype": np.float32}),
    ("vecdot", lambda: (r(2, 3), r(3)), {"dtype": np.complex128}),
    ("cumulative_prod", lambda: (with_zeros(),), {"axis": -1, "include_initial": True}),
    ("cumulative_prod", lambda: (r(4).astype(np.float32),), {}),
    ("add.reduceat", lambda: (r(8), [0, 4, 1, 5]), {}),
    ("add.reduceat", lambda: (r(3, 8), [7, 3]), {"axis": 1}),
    ("add.reduceat", lambda: (r(4), []), {}),
    ("copysign", lambda: (r(3, 2), r(2)), {}),
    ("ldexp", lambda: (r(3, 2).astype(np.float32), np.array([1, -3])), {}),
    ("frexp", lambda: (10 * r(4),), {}),
    ("modf", lambda: (10 * r(4),), {}),
]


def numpy_function(name):
    owner, _, attribute = name.rpartition(".")
    return getattr(getattr(np, owner) if owner else np, attribute)


@pytest.mark.parametrize("name, make, keywords", CASES, ids=[f"{case[0]}-{i}" for i, case in enumerate(CASES)])
def test_reverse_and_forward_rules_against_central_differences(name, make, keywords):
    args = make()
    check_rrule(numpy_function(name), *args, **keywords)
    if keywords.get("dtype") is not np.float32:  # (check_frule steps as for float64: a float32 output's rounding is noise)
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


def conjugating_products(a, b, v):
    return np.real(np.vecdot(a, b)) + np.imag(np.vecdot(b, a)) + np.real(np.vdot(W, np.vecmat(v, M)))


def test_complex_gradients_conjugate_where_numpy_does():
    # the convention of np.vdot's rule: d Re f / d Re z + 1j d Re f / d Im z. With a = p + iq:
    # Re sum(conj(a) b) gives b to a and a to b; Im sum(conj(b) a) gives 1j b to a and -1j a to b;
    # Re sum_j conj(w_j) sum_i conj(v_i) M_ij gives M conj(w) to v
    da, db, dv = s2sad.grad(conjugating_products, argnums=(0, 1, 2))(A, B, A)
    assert np.allclose(da, B + 1j * B) and np.allclose(db, A - 1j * A) and np.allclose(dv, M @ np.conj(W))


def sum_of_running_products(x):
    return np.sum(np.cumulative_prod(x, include_initial=True))


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
    x3, v = np.array([2.0, 0.0, 5.0]), np.array([1.0, 0.5, -1.0])
    assert np.array_equal(s2sad.grad(product_of_three)(x3), [0.0, 10.0, 0.0])
    product_hessian = np.array([[0.0, x3[2], x3[1]], [x3[2], 0.0, x3[0]], [x3[1], x3[0], 0.0]])  # of x0 x1 x2
    assert np.allclose(s2sad.hvp(product_of_three, (x3,), (v,)), product_hessian @ v)


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
    assert np.isclose(s2sad.jvp(everything, (x, w), (v, np.zeros((3, 3))))[1], gradient @ v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = s2sad.grad(everything, compile=True)(x, w)
    assert any("runs on the NumPy path" in str(warning.message) for warning in caught)
    assert np.array_equal(compiled, gradient)


def grid_sum(x, y):
    grid_x, grid_y = np.meshgrid(x, y)
    return np.sum(np.sin(grid_x) * grid_y ** 2)


def sparse_grid_sum(x, y, z):
    a, b, c = np.meshgrid(x, y, z, sparse=True, indexing="ij")
    return np.sum(a * b * c)


def test_meshgrid_by_hand():
    x, y, z = r(3), r(2), r(4)
    dx, dy = s2sad.grad(grid_sum, argnums=(0, 1))(x, y)
    assert np.allclose(dx, np.cos(x) * np.sum(y ** 2)) and np.allclose(dy, 2 * y * np.sum(np.sin(x)))
    assert np.allclose(s2sad.grad(sparse_grid_sum, argnums=2)(x, y, z), np.sum(x) * np.sum(y))


def float_parts(x):
    mantissa, exponent = np.frexp(x)
    fraction, whole = np.modf(x)
    return np.sum(mantissa + fraction * whole + np.ldexp(x, 3) + np.copysign(x, -1.0))


def test_float_parts_by_hand():
    x = np.array([3.0, -0.75, 10.5])
    exponent = np.frexp(x)[1]  # 2, 0, 4: d mantissa / dx = 2 ** -exponent; whole parts have no slope
    expected = 2.0 ** -exponent + np.trunc(x) + 8.0 - np.sign(x)
    assert np.array_equal(s2sad.grad(float_parts)(x), expected)


def vecdot_over_axes(x):
    return np.sum(np.vecdot(x, x, axes=[(0,), (0,), ()]))


def product_of_a_generator(x):
    return math.prod(item for item in x)


def test_axes_of_a_gufunc_refused_and_a_generator_of_items_read():
    with pytest.raises(S2SADError, match="axes"):
        s2sad.grad(vecdot_over_axes)(r(3, 2))
    assert np.array_equal(s2sad.grad(product_of_a_generator)(np.array([1.0, 2.0, 3.0])), [6.0, 3.0, 2.0])
