"""Rules of rules/operators.py: formulas at fixed points, finite differences, shapes, dtypes."""
import operator
import warnings

import numpy as np

from s2sad.runtime.accumulate import accumulate, own
from s2sad.runtime.tangents import InplaceableThunk, unthunk
import pytest

import s2sad
from s2sad.registry import rule_for
from s2sad.runtime.tangents import NO_TANGENT, ZERO
from s2sad.testing import check_rrule, numerical_gradient

rng = np.random.default_rng(0)


def cotangents(f, *args, g=1.0):
    _, pullback = rule_for(f).rrule(*args)
    return tuple(unthunk(c) for c in pullback(g)[1:])


def positive(*shape, dtype=np.float64):
    return (rng.uniform(0.5, 2.0, shape)).astype(dtype)


def normal(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


# ------------------------------------------------------------------ formulas at fixed points
FORMULAS = [
    # (operator, args, g, expected cotangents)
    (operator.add,     (2.0, 3.0),  1.5, (1.5, 1.5)),
    (operator.sub,     (2.0, 3.0),  1.5, (1.5, -1.5)),
    (operator.mul,     (2.0, 3.0),  1.5, (4.5, 3.0)),
    (operator.truediv, (2.0, 4.0),  1.0, (0.25, -0.125)),
    (operator.pow,     (2.0, 3.0),  1.0, (12.0, 8.0 * np.log(2.0))),
    (operator.pow,     (4.0, 0.5),  1.0, (0.25, 2.0 * np.log(4.0))),
    (operator.mod,     (7.5, 2.0),  1.0, (1.0, -3.0)),
    (operator.neg,     (2.0,),      1.5, (-1.5,)),
    (operator.pos,     (2.0,),      1.5, (1.5,)),
]


@pytest.mark.parametrize("op, args, g, expected", FORMULAS, ids=lambda v: getattr(v, "__name__", None))
def test_formula(op, args, g, expected):
    got = cotangents(op, *args, g=g)
    for value, want in zip(got, expected):
        assert value == pytest.approx(want)


def test_matmul_formula():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 1.0]])
    g = np.array([[1.0, 0.0], [0.0, 2.0]])
    da, db = cotangents(operator.matmul, a, b, g=g)
    np.testing.assert_allclose(da, g @ b.T)
    np.testing.assert_allclose(db, a.T @ g)


# ------------------------------------------------------------------ finite differences
BINARY = [operator.add, operator.sub, operator.mul, operator.truediv]
OPERAND_PAIRS = [
    ("float-float", lambda: (1.3, -0.7)),
    ("float-int", lambda: (1.3, 3)),
    ("int-float", lambda: (2, 1.7)),
    ("0d-0d", lambda: (np.array(1.3), np.array(0.6))),
    ("0d-float", lambda: (np.array(1.3), 0.6)),
    ("npscalar-array", lambda: (np.float64(1.3), positive(3))),
    ("array-array", lambda: (normal(2, 3), positive(2, 3))),
    ("array-row", lambda: (normal(2, 3), positive(3))),
    ("col-row", lambda: (normal(4, 1), positive(1, 3))),
    ("batch-broadcast", lambda: (normal(2, 1, 3), positive(4, 1))),
    ("array-float", lambda: (normal(2, 3), 1.7)),
    ("f32-f32", lambda: (normal(2, 3, dtype=np.float32), positive(3, dtype=np.float32))),
    ("f32-float", lambda: (normal(2, 3, dtype=np.float32), 1.7)),
    ("f32-f64scalar", lambda: (normal(3, dtype=np.float32), np.float64(1.7))),
]


@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
@pytest.mark.parametrize("name, make", OPERAND_PAIRS, ids=[p[0] for p in OPERAND_PAIRS])
def test_binary_finite_differences(op, name, make):
    check_rrule(op, *make())


POW_CASES = [
    ("float-float", lambda: (1.3, 0.7)),
    ("float-int", lambda: (1.3, 3)),
    ("array-int", lambda: (normal(2, 3), 2)),
    ("array-float", lambda: (positive(2, 3), 2.5)),
    ("array-array", lambda: (positive(2, 3), normal(3))),
    ("float-array", lambda: (1.5, normal(3))),
    ("0d-0d", lambda: (np.array(1.5), np.array(-0.5))),
    ("f32", lambda: (positive(4, dtype=np.float32), normal(4, dtype=np.float32))),
]


@pytest.mark.parametrize("name, make", POW_CASES, ids=[p[0] for p in POW_CASES])
def test_pow_finite_differences(name, make):
    check_rrule(operator.pow, *make())


MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)),
    ((4, 1, 2, 3), (5, 3, 2)), ((5, 2, 3), (3,)), ((3,), (5, 3, 2)),
]


@pytest.mark.parametrize("shape_a, shape_b", MATMUL_SHAPES, ids=str)
def test_matmul_finite_differences(shape_a, shape_b):
    check_rrule(operator.matmul, normal(*shape_a), normal(*shape_b))


def test_matmul_float32():
    da, db = check_rrule(operator.matmul, normal(5, 2, 3, dtype=np.float32), normal(3, 4, dtype=np.float32))
    assert da.dtype == db.dtype == np.float32


@pytest.mark.parametrize("op", [operator.neg, operator.pos], ids=lambda op: op.__name__)
@pytest.mark.parametrize("x", [1.3, np.array(0.4), normal(2, 3), normal(3, dtype=np.float32)], ids=str)
def test_unary_finite_differences(op, x):
    check_rrule(op, x)


# ------------------------------------------------------------------ types, dtypes, the hot path
def test_python_floats_give_python_floats():
    for op in BINARY + [operator.pow]:
        da, db = cotangents(op, 1.5, 2.5)
        assert type(da) in (float, np.float64) and type(db) in (float, np.float64), op


def test_scalar_fast_path_returns_the_same_object():
    from s2sad.rules.helpers import unbroadcast

    g = 1.25
    assert unbroadcast(g, 3.0) is g


def test_int_operand_has_no_tangent():
    assert cotangents(operator.mul, 2.0, 3)[1] is NO_TANGENT
    assert cotangents(operator.mul, normal(3), np.arange(3))[1] is NO_TANGENT
    assert cotangents(operator.pow, 2.0, 3)[1] is NO_TANGENT
    assert cotangents(operator.add, True, 1.5)[0] is NO_TANGENT


def test_float32_not_promoted_by_float64_scalar():
    x = normal(3, dtype=np.float32)
    da, db = cotangents(operator.mul, x, np.float64(2.0), g=np.ones(3))
    assert da.dtype == np.float32
    assert isinstance(db, np.float64)


def test_zero_dimensional_array_cotangent_has_shape_of_input():
    da, db = cotangents(operator.mul, np.array(2.0), normal(3), g=np.ones(3))
    assert np.shape(da) == () and np.shape(db) == (3,)


def test_broadcast_cotangent_is_summed():
    da, db = cotangents(operator.add, np.zeros((2, 3)), np.zeros((1, 3)), g=np.ones((2, 3)))
    np.testing.assert_array_equal(db, [[2.0, 2.0, 2.0]])


# ------------------------------------------------------------------ pow at a zero base
def test_pow_zero_base_constant_exponent_gives_no_nan():
    x = np.array([0.0, 1.0, 2.0])
    with np.errstate(all="raise"):
        da, db = cotangents(operator.pow, x, 2.0, g=np.ones(3))
    np.testing.assert_array_equal(da, [0.0, 2.0, 4.0])
    assert db == pytest.approx(4.0 * np.log(2.0))  # the zero base contributes 0, not NaN
    assert cotangents(operator.pow, 0.0, 2.0) == (0.0, 0.0)


def test_pow_zero_cotangent_at_infinite_slope_is_zero():
    da, db = cotangents(operator.pow, np.array([0.0, 4.0]), 0.5, g=np.array([0.0, 1.0]))
    np.testing.assert_array_equal(da, [0.0, 0.25])
    assert cotangents(operator.pow, 0.0, 0.5, g=0.0)[0] == 0.0
    assert cotangents(operator.pow, 0.0, 0.5, g=1.0)[0] == np.inf


# ------------------------------------------------------------------ indexing arrays
INDICES = [
    ("int", (5,), 2),
    ("negative-int", (5,), -1),
    ("slice", (5,), slice(1, 4)),
    ("step-slice", (6,), slice(None, None, -2)),
    ("row", (3, 4), 1),
    ("tuple-of-slices", (3, 4), (slice(0, 2), slice(1, None))),
    ("ellipsis", (2, 3, 4), (Ellipsis, 1)),
    ("newaxis", (3, 4), (None, slice(None), 0)),
    ("fancy", (5,), np.array([0, 3, 4])),
    ("fancy-repeated", (5,), np.array([1, 1, 3, 1])),
    ("fancy-list", (5,), [4, 0, 0]),
    ("fancy-2d", (3, 4), (np.array([0, 2, 0]), np.array([1, 1, 1]))),
    ("mixed", (3, 4), (slice(None), [0, 0, 3])),
    ("boolean", (5,), np.array([True, False, True, True, False])),
    ("boolean-2d", (2, 3), np.array([[True, False, True], [False, False, True]])),
]


@pytest.mark.parametrize("name, shape, index", INDICES, ids=[i[0] for i in INDICES])
def test_getitem_array_finite_differences(name, shape, index):
    check_rrule(operator.getitem, normal(*shape), index)


def test_getitem_repeated_indices_accumulate():
    (dx, _) = cotangents(operator.getitem, np.zeros(4), [1, 1, 3, 1], g=np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(dx, [0.0, 7.0, 0.0, 3.0])


def test_getitem_keeps_dtype_and_zero_d():
    (dx, _) = cotangents(operator.getitem, normal(4, dtype=np.float32), 2, g=np.float32(1.0))
    assert dx.dtype == np.float32 and dx.shape == (4,)
    (dx, _) = cotangents(operator.getitem, np.array(1.5), (), g=1.0)
    assert np.shape(dx) == ()


# ------------------------------------------------------------------ indexing tuples and lists
def test_getitem_of_an_array_is_an_inplaceable_thunk_that_adds_in_place():
    x = np.zeros(5)
    _, pullback = rule_for(operator.getitem).rrule(x, 2)
    thunk = pullback(3.0)[1]
    assert isinstance(thunk, InplaceableThunk)
    buffer = own(np.ones(5))
    assert accumulate(buffer, thunk) is buffer          # added into the buffer, nothing allocated
    np.testing.assert_array_equal(buffer, [1.0, 1.0, 4.0, 1.0, 1.0])


def test_getitem_tuple_and_list():
    (dx, dindex) = cotangents(operator.getitem, (1.0, 2.0, 3.0), 1, g=5.0)
    assert dx == (ZERO, 5.0, ZERO) and type(dx) is tuple and dindex is NO_TANGENT
    (dx, _) = cotangents(operator.getitem, [1.0, 2.0, 3.0], -1, g=5.0)
    assert dx == [ZERO, ZERO, 5.0] and type(dx) is list
    (dx, _) = cotangents(operator.getitem, (1.0, 2.0, 3.0, 4.0), slice(1, None, 2), g=(5.0, 6.0))
    assert dx == (ZERO, 5.0, ZERO, 6.0)


def test_getitem_sequence_finite_differences():
    check_rrule(operator.getitem, [normal(2), 1.5, normal(3)], 2)
    check_rrule(operator.getitem, (normal(2), 1.5, normal(3)), slice(0, 2))


# ------------------------------------------------------------------ no gradient
@pytest.mark.parametrize("op", [operator.lt, operator.eq, operator.floordiv, operator.not_], ids=lambda o: o.__name__)
def test_comparisons_are_nondifferentiable(op):
    assert rule_for(op).nondifferentiable


# ------------------------------------------------------------------ complex operands
# The convention of rules/numpy_fft.py: ``x * y`` pulls ``g`` back to ``g * conj(y)``; a real
# operand of a complex product gets the real part, in its own dtype, and no ComplexWarning.
@pytest.fixture
def complex_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        yield


def complex_normal(*shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def complex_nonzero(*shape, dtype=np.complex128):
    z = complex_normal(*shape)
    return (z + 0.3 * z / np.abs(z)).astype(dtype)  # at least 0.3 away from 0


COMPLEX_OPERANDS = [
    # (name, make) for every binary operator; divisors and bases are kept away from 0
    ("c128-c128", lambda: (complex_normal(2, 3), complex_nonzero(2, 3))),
    ("c64-c64", lambda: (complex_normal(2, 3, dtype=np.complex64), complex_nonzero(3, dtype=np.complex64))),
    ("real-complex", lambda: (normal(2, 3), complex_nonzero(2, 3))),
    ("complex-real", lambda: (complex_normal(2, 3), positive(2, 3))),
    ("f32-c64", lambda: (normal(3, dtype=np.float32), complex_nonzero(2, 3, dtype=np.complex64))),
    ("c64-f32", lambda: (complex_normal(2, 3, dtype=np.complex64), positive(3, dtype=np.float32))),
    ("col-row", lambda: (complex_normal(4, 1), complex_nonzero(1, 3))),
    ("batch-broadcast", lambda: (complex_normal(2, 1, 3), complex_nonzero(4, 1))),
    ("real-row-complex", lambda: (normal(1, 3), complex_nonzero(4, 1))),
    ("pycomplex-pycomplex", lambda: (1.2 - 0.4j, -0.7 + 0.9j)),
    ("pyfloat-pycomplex", lambda: (1.3, -0.7 + 0.9j)),
    ("pycomplex-pyfloat", lambda: (1.2 - 0.4j, 1.7)),
    ("pyfloat-array", lambda: (1.3, complex_nonzero(2, 3))),
    ("array-pycomplex", lambda: (normal(2, 3), 0.6 - 1.1j)),
    ("npscalar-array", lambda: (np.complex128(1.2 - 0.4j), complex_nonzero(3))),
    ("f64scalar-array", lambda: (np.float64(1.3), complex_nonzero(3))),
    ("0d-0d", lambda: (np.array(1.2 - 0.4j), np.array(0.5))),
]


def assert_cotangent_like(ct, x):
    """A cotangent has its primal's type, shape and dtype; a real primal's is real."""
    if type(x) is float or type(x) is complex:
        assert type(ct) is type(x), (ct, x)
    else:
        assert type(ct) is type(x) and np.shape(ct) == np.shape(x) and ct.dtype == x.dtype, (ct, x)


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("op", BINARY, ids=lambda op: op.__name__)
@pytest.mark.parametrize("name, make", COMPLEX_OPERANDS, ids=[p[0] for p in COMPLEX_OPERANDS])
def test_binary_complex_finite_differences(op, name, make):
    a, b = make()
    for ct, x in zip(check_rrule(op, a, b), (a, b)):
        assert_cotangent_like(ct, x)


COMPLEX_POW = [
    ("c128-int", lambda: (complex_normal(2, 3), 3)),
    ("c128-square", lambda: (complex_normal(2, 3), 2)),
    ("c128-float", lambda: (complex_nonzero(2, 3), 2.5)),
    ("c128-half", lambda: (complex_nonzero(2, 3), 0.5)),
    ("c128-negative", lambda: (complex_nonzero(2, 3), -1.5)),
    ("c128-c128", lambda: (complex_nonzero(2, 3), complex_normal(3))),
    ("c64-c64", lambda: (complex_nonzero(2, 3, dtype=np.complex64), complex_normal(2, 3, dtype=np.complex64))),
    ("real-complex", lambda: (positive(2, 3), complex_normal(2, 3))),
    ("negative-real-complex", lambda: (-positive(2, 3), complex_normal(2, 3))),
    ("complex-real", lambda: (complex_nonzero(2, 3), normal(3))),
    ("f32-c64", lambda: (positive(3, dtype=np.float32), complex_normal(2, 3, dtype=np.complex64))),
    ("pycomplex-pycomplex", lambda: (1.2 - 0.4j, 0.3 + 0.8j)),
    ("pyfloat-pycomplex", lambda: (1.5, 0.3 + 0.8j)),
    ("pycomplex-pyfloat", lambda: (1.2 - 0.4j, 1.7)),
    ("pycomplex-int", lambda: (1.2 - 0.4j, 3)),
    ("0d-0d", lambda: (np.array(1.2 - 0.4j), np.array(0.5 + 0.5j))),
]


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("name, make", COMPLEX_POW, ids=[p[0] for p in COMPLEX_POW])
def test_pow_complex_finite_differences(name, make):
    a, b = make()
    da, db = check_rrule(operator.pow, a, b)
    assert_cotangent_like(da, a)
    if type(b) is int:
        assert db is NO_TANGENT
    else:
        assert_cotangent_like(db, b)


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("shape_a, shape_b", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("kinds", ["complex-complex", "real-complex", "complex-real"])
def test_matmul_complex_finite_differences(shape_a, shape_b, kinds):
    make = {"complex": complex_normal, "real": normal}
    kind_a, kind_b = kinds.split("-")
    a, b = make[kind_a](*shape_a), make[kind_b](*shape_b)
    for ct, x in zip(check_rrule(operator.matmul, a, b), (a, b)):
        assert_cotangent_like(ct, x)


@pytest.mark.usefixtures("complex_warnings_are_errors")
def test_matmul_complex64_and_float32():
    a, b = complex_normal(5, 2, 3, dtype=np.complex64), normal(3, 4, dtype=np.float32)
    da, db = check_rrule(operator.matmul, a, b)
    assert da.dtype == np.complex64 and db.dtype == np.float32


def test_complex_formulas_conjugate_the_slope():
    a, b, g = complex_normal(4), complex_nonzero(4), complex_normal(4)
    da, db = cotangents(operator.mul, a, b, g=g)
    np.testing.assert_allclose(da, g * np.conj(b))
    np.testing.assert_allclose(db, g * np.conj(a))
    da, db = cotangents(operator.truediv, a, b, g=g)
    np.testing.assert_allclose(da, g / np.conj(b))
    np.testing.assert_allclose(db, -g * np.conj(a / b ** 2))
    da, db = cotangents(operator.pow, b, a, g=g)
    np.testing.assert_allclose(da, g * np.conj(a * b ** (a - 1)))
    np.testing.assert_allclose(db, g * np.conj(b ** a * np.log(b)))
    (da, _) = cotangents(operator.pow, b, 2, g=g)
    np.testing.assert_allclose(da, g * np.conj(2 * b))
    A, B, G = complex_normal(2, 3), complex_normal(3, 4), complex_normal(2, 4)
    dA, dB = cotangents(operator.matmul, A, B, g=G)
    np.testing.assert_allclose(dA, G @ B.conj().T)
    np.testing.assert_allclose(dB, A.conj().T @ G)


def test_real_operand_of_a_complex_product_gets_the_real_part():
    x, z, g = normal(3), complex_normal(3), complex_normal(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        dx, dz = cotangents(operator.mul, x, z, g=g)
        assert dx.dtype == np.float64
        np.testing.assert_allclose(dx, np.real(g * np.conj(z)))
        dx, _ = cotangents(operator.mul, 1.5, z, g=g)
        assert type(dx) is float and dx == pytest.approx(np.sum(np.real(g * np.conj(z))))
        dx, _ = cotangents(operator.mul, np.float32(1.5), z.astype(np.complex64), g=g.astype(np.complex64))
        assert type(dx) is np.float32


def test_negative_real_base_with_complex_exponent_uses_the_complex_log():
    x, y = np.array([-2.0, -0.5]), np.array([0.5 + 0.2j, 1.5 - 1.0j])
    _, db = cotangents(operator.pow, x, y, g=np.ones(2, complex))
    np.testing.assert_allclose(db, np.conj(x ** y * np.log(x + 0j)))
    assert np.all(np.isfinite(db))


def test_real_code_is_unchanged_by_the_conjugates():
    """Real operands still get exactly the real formulas (``.conjugate()`` is the identity there)."""
    x, y, g = normal(3), positive(3), normal(3)
    assert x.conjugate() is x
    np.testing.assert_array_equal(cotangents(operator.mul, x, y, g=g), (g * y, g * x))
    np.testing.assert_array_equal(cotangents(operator.truediv, x, y, g=g)[0], g / y)
    for op in BINARY + [operator.pow]:
        assert type(cotangents(op, 1.5, 2.5)[0]) is float, op


# ------------------------------------------------------------------ real losses of complex values, end to end
def loss_of_product(z, w):
    return np.sum(np.abs(z * w) ** 2)


def loss_of_quotient(z, w):
    return np.sum(np.abs(z / w + w))


def loss_of_power(z, w):
    return np.sum(np.real(z ** w) + np.imag(z ** 2))


def loss_of_matmul(z, w):
    return np.sum(np.abs(z @ w) ** 2)


def loss_of_mixed(x, z):
    y = x * z - x / (z + 2.0)
    return np.sum(np.abs(y) ** 2) + np.sum(np.real(x ** z))


def loss_of_scalars(z, w):
    return abs(z * w + z / w) ** 2


END_TO_END = [
    ("product", loss_of_product, lambda: (complex_normal(3, 2), complex_normal(2))),
    ("quotient", loss_of_quotient, lambda: (complex_normal(2, 3), complex_nonzero(3))),
    ("power", loss_of_power, lambda: (complex_nonzero(4), complex_normal(4))),
    ("matmul", loss_of_matmul, lambda: (complex_normal(2, 3), complex_normal(3, 2))),
    ("matmul-vector", loss_of_matmul, lambda: (complex_normal(3), complex_normal(3, 2))),
    ("mixed", loss_of_mixed, lambda: (positive(3), complex_nonzero(3))),
    ("complex64", loss_of_product, lambda: (complex_normal(3, dtype=np.complex64), normal(3, dtype=np.float32))),
    ("python-scalars", loss_of_scalars, lambda: (1.2 - 0.4j, -0.7 + 0.9j)),
]


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("name, f, make", END_TO_END, ids=[e[0] for e in END_TO_END])
def test_gradient_of_a_real_loss_of_complex_values(name, f, make):
    args = make()
    grads = s2sad.grad(f, argnums=(0, 1))(*args)
    expected = numerical_gradient(f, *args, argnums=(0, 1))
    precise = all(np.result_type(x) in (np.float64, np.complex128) for x in args)
    for grad, want, x in zip(grads, expected, args):
        assert_cotangent_like(grad, x)
        np.testing.assert_allclose(grad, want, rtol=1e-6 if precise else 1e-3, atol=1e-8 if precise else 1e-3)


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("f", [np.power, np.float_power], ids=lambda f: f.__name__)
@pytest.mark.parametrize("name, make", COMPLEX_POW, ids=[p[0] for p in COMPLEX_POW])
def test_power_helpers_serve_np_power_and_float_power(f, name, make):
    """np.power and np.float_power share operator.pow's helpers, power_vjp_base and power_vjp_exponent."""
    a, b = make()
    for ct, x in zip(check_rrule(f, a, b), (a, b)):
        if ct is not NO_TANGENT:
            assert np.result_type(ct) == np.result_type(x)  # float_power computes in 64 bits; cotangents keep the input's dtype
