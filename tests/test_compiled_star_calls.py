"""compile=True through calls given ``*args``: ``np.ones(*w.shape)``, ``x.reshape(*shape)``,
``x.reshape(x.shape[0], *x.shape[1:])``, ``x.transpose(*axes)`` (codegen/star_calls.py). Each
program compiles (no CompiledFallbackWarning), its gradient is the NumPy path's (within 1e-12) and
central differences' in float64, float32 arrays give float32 gradients; a packed call whose
arguments take a cotangent (``x.dot(*others)``) falls back with the NumPy path's numbers."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references, float32_against_references

numba = pytest.importorskip("numba")

rng = np.random.default_rng(142)


def ones_of_its_shape(w, scale):
    prior = np.ones(*w.shape)
    return np.sum((w - prior) ** 2) / scale ** 2 + np.sum(np.sin(w))


def reshaped_by_a_tuple(x, w):
    shape = (2, -1)
    return np.sum(np.tanh(x.reshape(*shape) @ w))


def reshaped_keeping_its_tail(x):
    y = (x * 2.0).reshape(-1, *x.shape[2:])
    return np.sum(np.cos(y) * np.arange(y.shape[1]))


def transposed_by_axes(x, w):
    axes = (1, 0, 2)
    return np.sum(np.tanh(x.transpose(*axes)) * w)


CASES = {
    "np.ones(*w.shape)": (ones_of_its_shape, (rng.normal(size=5), 1.5), (0, 1)),
    "x.reshape(*shape)": (reshaped_by_a_tuple, (rng.normal(size=6), rng.normal(size=(3, 2))), (0, 1)),
    "x.reshape(n, *tail)": (reshaped_keeping_its_tail, (rng.normal(size=(2, 2, 3)),), (0,)),
    "x.transpose(*axes)": (transposed_by_axes, (rng.normal(size=(2, 3, 2)), rng.normal(size=(3, 2, 2))), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_star_calls_compile_and_their_gradients_are_central_differences(name):
    f, args, argnums = CASES[name]
    compiled_against_references(f, args, argnums)


def test_float32_arrays_give_float32_gradients():
    float32_against_references(reshaped_by_a_tuple, (rng.normal(size=6).astype(np.float32),
                                                     rng.normal(size=(3, 2)).astype(np.float32)), (0, 1))


def dotted_with_packed_arrays(x, w):
    others = (w,)
    return np.sum(np.tanh(x.dot(*others)))


def test_packed_arguments_with_cotangents_fall_back_with_the_numpy_paths_numbers():
    args = (rng.normal(size=(2, 3)), rng.normal(size=(3, 2)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(dotted_with_packed_arrays, argnums=1, compile=True)(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1, messages
    np.testing.assert_allclose(gradient, s2sad.grad(dotted_with_packed_arrays, argnums=1)(*args), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(dotted_with_packed_arrays, args, 1), rtol=1e-6, atol=1e-7)
