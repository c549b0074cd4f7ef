"""compile=True on float32 arrays: compiled where Numba's typed code computes what NumPy does
(s2sad/compiled_float32.py has the table), the NumPy path otherwise.

Each compiled gradient is checked against the NumPy path (same dtype, within a few float32 ulps
of its largest entry: Numba's exp, log and tanh and its BLAS round as NumPy's loops do, not
always to the same last bit) and against central differences in float64 of the function at the
inputs widened to float64 (float32's precision: 1e-3 of the largest entry)."""
import math
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from corpus_cases import compiled_share

numba = pytest.importorskip("numba")

ULPS = 8                                   # compiled against the NumPy path: float32 ulps of the largest entry
EPS32 = float(np.finfo(np.float32).eps)
FD_RTOL = 1e-3                             # float32 against float64 central differences, of the largest entry


# ---------------------------------------------------------------- programs as ML users write them
def logistic_regression(w, X, y, lam):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + lam * np.sum(w * w)


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - Y) ** 2)


def relu_mlp(W1, W2, X):
    h = np.maximum(X @ W1, 0.0)
    return 0.5 * np.sum((h @ W2) ** 2)


def softmax_cross_entropy(W, X, labels):
    z = X @ W
    z = z - np.max(z)
    log_normaliser = np.log(np.sum(np.exp(z)))
    return -np.sum(labels * z) / 4.0 + log_normaliser


def by_methods(W, x):
    h = np.tanh(W @ x)
    return h.sum() * 2.0 + (h * h).mean()


def scaled(x, k):
    return np.sum(np.sin(x) * k) + k * np.sum(x ** 2.0)


rng = np.random.default_rng(21)


def f32(*shape):
    return rng.normal(size=shape).astype(np.float32)


CASES = {
    "logistic_regression": (logistic_regression, (f32(5), f32(20, 5), (rng.random(20) > 0.5).astype(np.float32), 0.1),
                            (0, 3)),
    "mlp": (mlp, (f32(4, 8), f32(8), f32(8, 3), f32(3), f32(16, 4), f32(16, 3)), (0, 1, 2, 3)),
    "relu_mlp": (relu_mlp, (f32(3, 6), f32(6, 2), f32(10, 3)), (0, 1)),
    "softmax_cross_entropy": (softmax_cross_entropy, (f32(3, 4), f32(4, 3), np.eye(4, dtype=np.float32)), (0,)),
    "by_methods": (by_methods, (f32(4, 4), f32(4)), (0, 1)),
    "scaled": (scaled, (f32(7), 1.5), (0, 1)),
}


def widened(args):
    return tuple(a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args)


def assert_within_ulps(compiled, plain, ulps=ULPS):
    """Same dtype, and within ``ulps`` float32 ulps of the NumPy path's largest entry."""
    assert np.asarray(compiled).dtype == np.asarray(plain).dtype and type(compiled) is type(plain)
    scale = float(np.max(np.abs(np.asarray(plain, dtype=np.float64)), initial=0.0))
    np.testing.assert_allclose(compiled, plain, rtol=0, atol=ulps * EPS32 * scale)


def compiled_without_fallback(f, argnums, args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # each of these compiles
        return s2sad.value_and_grad(f, argnums=argnums, compile=True)(*args)


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_a_float32_gradient_compiles_and_is_the_numpy_paths_and_central_differences(name):
    f, args, argnums = CASES[name]
    value, gradients = compiled_without_fallback(f, argnums, args)
    plain_value, plain_gradients = s2sad.value_and_grad(f, argnums=argnums)(*args)
    assert type(value) is np.float32
    assert_within_ulps(value, plain_value)
    for position, gradient, plain in zip(argnums, gradients, plain_gradients):
        if isinstance(args[position], np.ndarray):
            assert gradient.dtype == np.float32 and gradient.shape == args[position].shape
        else:
            assert type(gradient) is float  # the NumPy path's gradient of a Python float
        assert_within_ulps(gradient, plain)
        reference = central(f, widened(args), position)
        scale = float(np.max(np.abs(reference)))
        np.testing.assert_allclose(gradient, reference, rtol=0, atol=FD_RTOL * scale)


def test_a_float32_sum_is_numpys_to_the_bit():
    """NumPy sums a float32 array pairwise; Numba's np.sum one by one (34 ulps apart at 10**5
    elements): the compiled value follows NumPy's order (numpy_sum), at every length."""
    def squared_total(x):
        return np.sum(x) ** 2 + x.sum() * np.mean(x)

    for n in (5, 8, 100, 129, 1000, 4099):
        x = (rng.random(n) * 10.0 ** rng.uniform(-2, 2, size=n)).astype(np.float32)
        value, gradient = compiled_without_fallback(squared_total, 0, (x,))
        plain_value, plain_gradient = s2sad.value_and_grad(squared_total)(x)
        assert value == plain_value and value.dtype == np.float32
        np.testing.assert_array_equal(gradient, plain_gradient)


def test_a_transposed_float32_array_is_summed_in_memory_order_as_numpy_does():
    def total(W):
        return np.sum(W.T) ** 2

    W = f32(37, 53)
    value, gradient = compiled_without_fallback(total, 0, (W,))
    assert value == s2sad.value_and_grad(total)(W)[0]


# ---------------------------------------------------------------- float32 beside float64
def mixed(W, X):
    return np.sum(np.tanh(W * X) ** 2)   # (Numba's @ takes one dtype: a mixed product takes the NumPy path)


def test_float32_and_float64_arguments_promote_as_numpy_does():
    """A float32 array times a float64 one is float64, in NumPy and in Numba: each gradient has
    its argument's dtype (the NumPy path casts a cotangent to its value's), the value float64."""
    W, X = f32(3), rng.normal(size=(5, 3))
    value, (dW, dX) = compiled_without_fallback(mixed, (0, 1), (W, X))
    plain_value, (plain_dW, plain_dX) = s2sad.value_and_grad(mixed, argnums=(0, 1))(W, X)
    assert dW.dtype == np.float32 and dX.dtype == np.float64 and np.asarray(value).dtype == np.float64
    np.testing.assert_allclose(value, plain_value, rtol=1e-12)
    assert_within_ulps(dW, plain_dW)
    np.testing.assert_allclose(dX, plain_dX, rtol=1e-6, atol=1e-7)  # float64, through float32 W's cotangent
    for position, gradient in ((0, dW), (1, dX)):
        reference = central(mixed, widened((W, X)), position)
        np.testing.assert_allclose(gradient, reference, rtol=0, atol=FD_RTOL * np.max(np.abs(reference)))


# ---------------------------------------------------------------- where Numba would promote otherwise
def exp_of_a_sum(x):
    return math.exp(np.sum(x) * 0.01)   # math.exp of a float32: float64 in Python, float32 in Numba


def counted_in_a_loop(x):
    total = np.sum(x * 0.0)
    for i in range(3):
        total = total + np.sum(x) * i   # an int variable: weak in NumPy (float32), int64 to Numba (float64)
    return total


def a_number_made_from_a_parameter(x, lam):
    c = lam * 3.0                        # a Python float NumPy keeps weak; a float64 to Numba
    return c * np.sum(x * x)


def times_a_numpy_float64(x):
    return np.sum(x * np.float64(0.1))   # a NumPy scalar is strong: float64 in NumPy (and in Numba)


def row_sums(x):
    return np.sum(x.sum(axis=1) ** 2)    # NumPy sums each row pairwise, Numba one by one


@pytest.mark.parametrize("f, args", [
    (exp_of_a_sum, (f32(6),)),
    (counted_in_a_loop, (f32(6),)),
    (a_number_made_from_a_parameter, (f32(6), 0.7)),
    (times_a_numpy_float64, (f32(6),)),
    (row_sums, (f32(4, 40),)),
], ids=["math_exp", "int_counter", "number_from_a_parameter", "numpy_float64", "row_sums"])
def test_where_numba_promotes_otherwise_the_numpy_path_answers(f, args):
    """A float32 call whose typed code widens where NumPy keeps float32 (or keeps float32 where
    Python widens) falls back for those argument types: the NumPy path's dtype and numbers, and
    float64 calls of the same function still compile."""
    compiled = s2sad.value_and_grad(f, compile=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value, gradient = compiled(*args)
    said = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert said and "float32" in said[0], said
    plain_value, plain_gradient = s2sad.value_and_grad(f)(*args)
    assert type(value) is type(plain_value) and value == plain_value
    assert gradient.dtype == plain_gradient.dtype == np.float32
    np.testing.assert_array_equal(gradient, plain_gradient)
    again = compiled(*args)  # the argument types refused are not compiled again: the same answer, no new warning
    assert again[0] == plain_value and np.array_equal(again[1], plain_gradient)
    wide = widened(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        wide_gradient = compiled(*wide)[1]
    np.testing.assert_allclose(wide_gradient, central(f, wide, 0), rtol=1e-6, atol=1e-8)


def test_weak_casts_a_python_number_as_numpy_does():
    """The overload behind ``weak(number, other)``: float32 beside a float32, unchanged beside
    anything else; checked against NumPy's own result dtypes."""
    from s2sad.compiled_helpers import weak

    @numba.njit
    def product(number, other):
        return weak(number, other) * other

    for number in (0.1, 3):
        for other in (np.float32(1.5), np.ones(3, np.float32), np.ones(3), 2.0, np.ones(3, np.int64)):
            expected = number * other
            got = product(number, other)
            typed = product.overloads[(numba.typeof(number), numba.typeof(other))].signature.return_type
            assert getattr(typed, "dtype", typed) == numba.from_dtype(np.asarray(expected).dtype)
            np.testing.assert_array_equal(got, expected)


def square_roots(x):
    return np.sum(np.sqrt(x))


def test_a_float32_call_with_a_non_finite_gradient_is_the_numpy_paths():
    x = np.array([0.0, 1.0, 4.0], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gradient = s2sad.grad(square_roots, compile=True)(x)
        plain = s2sad.grad(square_roots)(x)
    assert gradient.dtype == np.float32
    np.testing.assert_array_equal(gradient, plain)
