"""compile=True on large arrays of np.sum of an elementwise expression: one pass over the elements
(s2sad/compiled_elementwise.py, issue 19), with NumPy's numbers: each element's operations are
NumPy's, and the value is summed in np.sum's order. What it does not serve goes block by block."""
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.analysis.elementwise import libm_calls
from s2sad.frontend.normalize import normalize
from s2sad.frontend.source import read_function
from test_blocks import small_blocks  # noqa: F401  (a fixture)

pytest.importorskip("numba")
from s2sad import compiled_elementwise  # noqa: E402  (it imports Numba)

rng = np.random.default_rng(17)


def sin_cos(x):
    return np.sum(np.sin(x) * np.cos(x) + x ** 2)


def mixed(x, y, a):
    return np.sum(a * np.sin(x) * y - np.sqrt(y) / (1.0 + x * x) + np.cos(x - y) ** 2)


def with_exp(x):
    return np.sum(np.exp(-x * x) * np.sin(x))


def literal_product(x):
    return np.sum(x * (100000 * 100000 * 100000 * 100000) * 1e-20 + np.sin(x))


def mixed_by_hand(x, y, a):
    twice = 2.0 * np.cos(x - y) * np.sin(x - y)
    return (a * np.cos(x) * y + np.sqrt(y) * 2.0 * x / (1.0 + x * x) ** 2 - twice,
            a * np.sin(x) - 0.5 / np.sqrt(y) / (1.0 + x * x) + twice)


@pytest.fixture
def small(small_blocks, monkeypatch):
    """Arrays of 256 elements on are large (test_blocks' fixture, which lists the blocks' calls),
    computed in runs of at most 128: a test's arrays make many runs, the last short."""
    monkeypatch.setattr(compiled_elementwise, "CHUNK", 128)
    compiled_elementwise._tree.cache_clear()
    yield small_blocks
    compiled_elementwise._tree.cache_clear()


@pytest.mark.parametrize("shape", [(1001,), (23, 29)], ids=["1d", "2d"])
def test_one_pass_gives_numpys_numbers(small, shape):
    x = rng.normal(size=shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradient = s2sad.value_and_grad(sin_cos, compile=True)(x)
        again = s2sad.grad(sin_cos, compile=True)(x)
    assert small == []   # not block by block
    s, c = np.sin(x), np.cos(x)
    assert value == sin_cos(x)   # np.sum's own additions, in its order
    np.testing.assert_array_equal(gradient, (2 * x - s * s) + c * c)   # the pullback's operations, element by element
    np.testing.assert_array_equal(again, gradient)
    np.testing.assert_allclose(gradient, np.cos(2 * x) + 2 * x, rtol=1e-13, atol=1e-15)
    assert gradient.shape == shape and gradient.dtype == np.float64


def test_a_sum_of_negative_zeros_is_zero(small):
    def zeros(x):
        return np.sum(x * 0.0 - 0.0)   # -0.0 at every negative x: np.sum gives 0.0, its identity added

    x = -np.abs(rng.normal(size=300))
    value, gradient = s2sad.value_and_grad(zeros, compile=True)(x)
    assert small == [] and str(value) == "0.0" and np.all(gradient == 0.0)
    # a small float32 array, compiled whole: its sum (compiled_helpers' numpy_sum) also starts from 0.0
    value, gradient = s2sad.value_and_grad(zeros, compile=True)(x[:20].astype(np.float32))
    assert str(value) == "0.0" and value.dtype == np.float32 and gradient.dtype == np.float32


def test_arrays_and_a_float_beside(small):
    x, y = rng.normal(size=700), rng.uniform(0.5, 2.0, size=700)
    value, (dx, dy) = s2sad.value_and_grad(mixed, argnums=(0, 1), compile=True)(x, y, 0.7)
    assert small == []
    assert value == mixed(x, y, 0.7)
    for got, expected in zip((dx, dy), mixed_by_hand(x, y, 0.7)):
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
    # the float differentiated too: its gradient is a sum, which NumPy's path adds up (block by block)
    dx, dy, da = s2sad.grad(mixed, argnums=(0, 1, 2), compile=True)(x, y, 0.7)
    assert small == [True]
    np.testing.assert_allclose(da, np.sum(np.sin(x) * y), rtol=1e-13)


def test_what_it_does_not_serve_goes_block_by_block(small):
    x = rng.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's, at inf
        single = s2sad.grad(sin_cos, compile=True)(x.astype(np.float32))   # float32
        assert single.dtype == np.float32
        np.testing.assert_allclose(single, np.cos(2 * x) + 2 * x, rtol=1e-5, atol=1e-5)
        gradient = s2sad.grad(with_exp, compile=True)(x)   # NumPy's exp is not libm's
        e = np.exp(-x * x)
        np.testing.assert_allclose(gradient, e * np.cos(x) - 2 * x * e * np.sin(x), rtol=1e-13, atol=1e-15)
        assert small == [True, True]
        x[7] = np.inf   # the NumPy path decides
        try:
            expected = s2sad.grad(sin_cos)(x)
        except s2sad.S2SADError as error:
            with pytest.raises(type(error)):
                s2sad.grad(sin_cos, compile=True)(x)
        else:
            np.testing.assert_array_equal(s2sad.grad(sin_cos, compile=True)(x), expected)


def test_which_calls_compute_as_numpy_does():
    assert libm_calls(normalize(read_function(sin_cos))) == ("cos", "sin")
    assert libm_calls(normalize(read_function(mixed))) == ("cos", "sin")
    assert libm_calls(normalize(read_function(with_exp))) is None
    # Python's int product, which Numba wraps at 64 bits (the one pass gave 1.07 for 1.99 here)
    assert libm_calls(normalize(read_function(literal_product))) is None
    assert compiled_elementwise.same_as_numpy("sin") and compiled_elementwise.same_as_numpy("cos")
