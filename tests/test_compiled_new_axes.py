"""compile=True through reads that add axes: ``u[:, None] * K * v[None, :]`` (the Sinkhorn plan),
``x[None, :, None]``, ``A[0, None]``: the cotangent of such a read is summed over its new axes and
put where the rest of the index read (compiled_helpers: untake of an index holding None). Each
compiles (no CompiledFallbackWarning); its gradient is the NumPy path's (within 1e-12) and central
differences' in float64; float32 arrays give float32 gradients."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references

numba = pytest.importorskip("numba")

rng = np.random.default_rng(143)


def outer_plan(u, K, v):
    plan = u[:, None] * K * v[None, :]
    return np.sum(np.sin(plan))


def two_new_axes(x, cube):
    return np.sum(np.tanh(x[None, :, None] * cube))


def a_row_made_a_column(A, w):
    return np.sum((A[0, None] * w) ** 2) + np.sum(A[1:, None] ** 3)


CASES = {
    "u[:, None] and v[None, :]": (outer_plan, (rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4)),
                                  (0, 1, 2)),
    "x[None, :, None]": (two_new_axes, (rng.normal(size=3), rng.normal(size=(2, 3, 2))), (0, 1)),
    "A[0, None], A[1:, None]": (a_row_made_a_column, (rng.normal(size=(3, 2)), rng.normal(size=(4, 2))), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_new_axes_compile_and_their_gradients_are_central_differences(name):
    f, args, argnums = CASES[name]
    compiled_against_references(f, args, argnums)


def test_float32_arrays_give_float32_gradients():
    args = (rng.normal(size=3).astype(np.float32), rng.normal(size=(3, 4)).astype(np.float32),
            rng.normal(size=4).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradients = s2sad.grad(outer_plan, argnums=(0, 1, 2), compile=True)(*args)
    plain = s2sad.grad(outer_plan, argnums=(0, 1, 2))(*args)
    wide = tuple(a.astype(np.float64) for a in args)
    for position, gradient, theirs in zip((0, 1, 2), gradients, plain):
        assert gradient.dtype == theirs.dtype == np.float32
        np.testing.assert_allclose(gradient, theirs, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gradient, central(outer_plan, wide, position), rtol=1e-3, atol=1e-4)
