"""compile=True through reads that add axes: ``u[:, None] * K * v[None, :]`` (the Sinkhorn plan),
``x[None, :, None]``, ``A[0, None]``: the cotangent of such a read is summed over its new axes and
put where the rest of the index read (compiled_helpers: untake of an index holding None). Each
compiles (no CompiledFallbackWarning); its gradient is the NumPy path's (within 1e-12) and central
differences' in float64; float32 arrays give float32 gradients."""
import numpy as np
import pytest

from test_compiled_arrays import compiled_against_references, float32_against_references

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
    float32_against_references(outer_plan, tuple(rng.normal(size=shape).astype(np.float32)
                                                 for shape in (3, (3, 4), 4)), (0, 1, 2))
