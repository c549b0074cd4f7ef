"""compile=True's fast paths for small arrays and large elementwise work (s2sad/compiled_helpers.py,
s2sad/codegen/for_numba.py): each gradient against central differences of the plain NumPy
function and against the NumPy path, on both sides of every size or shape a fast path decides by."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central

numba = pytest.importorskip("numba")


def compiled_and_plain(f, args, argnums):
    """The compiled gradients (no fallback allowed) and the NumPy path's, as tuples."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        compiled = s2sad.grad(f, argnums=argnums, compile=True)(*args)
    plain = s2sad.grad(f, argnums=argnums)(*args)
    return compiled, plain


# ---------------------------------------------------------------- NumPy's own loops on large arrays
def every_numpy_loop(x):
    """Each function compiled code hands to NumPy's loop on a large array, in x and in its pullback."""
    return np.sum(np.tanh(x) + np.sinh(x) + np.tan(x) + np.arctan(x) + np.arcsinh(x) + np.log1p(x) + np.expm1(x)
                  + np.cbrt(x) + np.log10(x) + np.exp(x) + np.log(x) + np.cosh(x) + np.log2(x) + np.exp2(x)
                  + np.arctanh(x))


@pytest.mark.parametrize("size", [8, 255, 256, 1023, 1024])
def test_numpy_loops_give_the_numpy_paths_gradient_on_each_side_of_their_size(size):
    """256 and 1024 are where compiled_helpers.NUMPY_LOOPS hands arrays to NumPy: there the
    compiled gradient is the NumPy path's to the bit (both are NumPy's loops); below, Numba's
    (the C library's functions, within a few ulps)."""
    x = np.linspace(0.1, 0.9, size)
    (compiled,), (plain,) = compiled_and_plain(every_numpy_loop, (x,), (0,))
    if size >= 1024:
        np.testing.assert_array_equal(compiled, plain)
    np.testing.assert_allclose(compiled, plain, rtol=1e-14)
    chosen = np.unique(np.linspace(0, size - 1, 6).astype(int))  # central differences on a few elements

    def at_chosen(values):
        moved = x.copy()
        moved[chosen] = values
        return every_numpy_loop(moved)

    np.testing.assert_allclose(compiled[chosen], central(at_chosen, (x[chosen],), 0), rtol=1e-7)


def layer(W, X):
    return np.sum(np.tanh(X @ W) ** 2)


def test_a_large_transposed_operand_of_a_numpy_loop_gives_a_c_ordered_answer():
    """``np.tanh(X.T)``: NumPy's loop writes into the array Numba made (C-ordered, the type Numba's
    own np.tanh gives), whatever the order of what it reads."""
    X = np.random.default_rng(3).normal(size=(20, 40))

    def transposed(X):
        return np.sum(np.tanh(X.T) * np.arange(800.0).reshape(40, 20))

    (compiled,), (plain,) = compiled_and_plain(transposed, (X,), (0,))
    np.testing.assert_array_equal(compiled, plain)
    np.testing.assert_allclose(compiled[:2, :3], central(lambda part: transposed(np.block([[part, X[:2, 3:]],
                                                                                          [X[2:]]])),
                                                         (X[:2, :3],), 0), rtol=1e-6, atol=1e-6)


def test_the_compiled_code_names_numpys_loop():
    from s2sad.transform import generated_source

    text = generated_source(layer, ("W",), "compiled")
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]  # not the user's lines quoted
    assert "    tanh_X_matmul_W = numpy_tanh(X_matmul_W)" in code and not any("np.tanh" in line for line in code)
