"""compile=True's ``v ** 2`` written ``(v * v)`` where ``v`` holds floats (s2sad/codegen/squares.py),
and the helpers' element-by-element loops for NumPy's functions on small vectors
(compiled_helpers._numpy_loop): the same numbers as before, with less for Numba to compile."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central

numba = pytest.importorskip("numba")
from s2sad.compiled_overloads import numpy_tanh  # noqa: E402 (Numba's)


def code_of(function) -> list:
    from s2sad.transform import generated_source

    text = generated_source(function, ("x",), "compiled")
    return [line.strip() for line in text.splitlines() if not line.lstrip().startswith("#")]


def squares_of_floats(x):
    t = np.tanh(x)
    e = np.exp(x)
    return np.sum(t ** 2 + 0.5 * e ** 2)


def recurrent(x):
    h = x
    for step in range(3):
        h = np.tanh(0.5 * h + x)
    return np.sum(h)


def test_the_square_of_a_float_functions_value_is_a_product():
    code = "\n".join(code_of(squares_of_floats))
    assert "(t * t)" in code and "(e * e)" in code and "t ** 2" not in code
    # tanh's slope in a loop's reverse, of the value read back from the loop's tape
    assert "1 - (h_2 * h_2)" in "\n".join(code_of(recurrent))


def tanh_squared(x):
    t = np.tanh(x)
    return np.sum(t ** 2)


def test_the_product_gives_numpys_gradient():
    x = np.linspace(-1.0, 1.0, 300)   # past the size from which compiled code calls NumPy's own tanh
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        compiled = s2sad.grad(tanh_squared, compile=True)(x)
    np.testing.assert_array_equal(compiled, s2sad.grad(tanh_squared)(x))
    np.testing.assert_allclose(compiled[:4], central(lambda part: tanh_squared(np.concatenate([part, x[4:]])),
                                                     (x[:4],), 0), rtol=1e-6, atol=1e-8)


def masked(x):
    m = x > 0.0               # a bool array: its ** 2 is int8, a product of it is bool
    return np.sum(x * m ** 2)


def rebound(x):
    t = np.tanh(x)
    t = np.where(t > 0.0, 1, 0)   # bound again, to ints
    return np.sum(x * t ** 2)


def unpacked(x):
    pairs = [(x > 0.0, x)]        # a list not made empty and appended to: what it holds is not known here
    for step in range(2):
        pairs.append((np.tanh(x), x))
    t, y = pairs[0]
    return np.sum(y * t ** 2)


@pytest.mark.parametrize("function", [masked, rebound, unpacked])
def test_a_square_of_what_may_not_be_floats_stays_a_power(function):
    assert any(" ** 2" in line for line in code_of(function))


@numba.njit
def _both(x):
    return numpy_tanh(x), np.tanh(x)


def test_numpys_tanh_on_a_small_vector_is_numbas_to_the_bit():
    for dtype in (np.float64, np.float32):
        x = np.concatenate([np.linspace(-30.0, 30.0, 97), [0.0, -0.0, np.inf, -np.inf, np.nan]]).astype(dtype)
        tanh, numbas_tanh = _both(x)
        assert tanh.dtype == dtype and tanh.tobytes() == numbas_tanh.tobytes()
