"""compile=True through writes into arrays of the function's own: ``out[i] = np.sum(...)`` filling
a buffer, ``out[i, j] = ...``, a row ``A[i] = v``, slices of a copy ``u[1:-1] = ...`` read again in
the next step, a recurrence ``x[i] = a * x[i - 1]`` reading what it wrote, and ``x.copy()``.
The gradient keeps what each write overwrote and puts it back as it runs backwards, as the NumPy
path's does (compiled_helpers: written_item_of, zeroed_at, overwritten, restore). Each program
compiles (no CompiledFallbackWarning), its gradient is the NumPy path's (within 1e-12) and central
differences' in float64, float32 arrays give float32 gradients; writes it does not cover fall back."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from realistic_programs import conv1d_valid, heat_equation
from test_compiled_arrays import compiled_against_references, float32_against_references
from corpus_cases import compiled_share

numba = pytest.importorskip("numba")

rng = np.random.default_rng(141)


def filled_by_pairs(image, kernel):
    rows, cols = image.shape[0] - 1, image.shape[1] - 1
    out = np.zeros((rows, cols))
    for i in range(rows):
        for j in range(cols):
            out[i, j] = np.sum(image[i:i + 2, j:j + 2] * kernel)
    return np.sum(np.sin(out) ** 2)


def filled_by_rows(W, x):
    out = np.zeros((3, W.shape[1]))
    for i in range(3):
        out[i] = np.tanh(x * (i + 1.0) @ W)
    return np.sum(out ** 2)


def recurrence(x0, a, n=6):
    x = np.zeros(n)
    x[0] = x0[0]
    for i in range(1, n):
        x[i] = a[i - 1] * np.sin(x[i - 1]) + x0[i]
    return np.sum(x ** 3)


def overwritten_twice(v, w):
    buffer = np.ones(4)
    buffer[1:3] = v * w[:2]
    total = np.sum(buffer * w)
    buffer[2] = np.exp(v[0])
    return total + np.sum(np.cos(buffer))


CASES = {
    "a buffer filled element by element (the corpus's conv1d)": (conv1d_valid, (rng.normal(size=9), rng.normal(size=3)), (0, 1)),
    "out[i, j]": (filled_by_pairs, (rng.normal(size=(4, 5)), rng.normal(size=(2, 2))), (0, 1)),
    "rows": (filled_by_rows, (rng.normal(size=(2, 3)), rng.normal(size=2)), (0, 1)),
    "slices of a copy, read again (the corpus's heat equation)": (heat_equation, (rng.normal(size=7), 0.2, 6), (0, 1)),
    "a recurrence reading what it wrote": (recurrence, (rng.normal(size=6), rng.normal(size=5)), (0, 1)),
    "an element overwritten after it was read": (overwritten_twice, (rng.normal(size=2), rng.normal(size=4)), (0, 1)),
}


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_writes_compile_and_their_gradients_are_central_differences(name):
    f, args, argnums = CASES[name]
    compiled_against_references(f, args, argnums)


def test_the_arguments_are_left_as_they_were():
    """The writes are into the function's own arrays: the caller's, copied or read, stay as given."""
    u0 = rng.normal(size=7)
    given = u0.copy()
    s2sad.grad(heat_equation, argnums=(0, 1), compile=True)(u0, 0.2, 6)
    np.testing.assert_array_equal(u0, given)


def test_float32_arrays_give_float32_gradients():
    float32_against_references(conv1d_valid, (rng.normal(size=9).astype(np.float32),
                                                   rng.normal(size=3).astype(np.float32)), (0, 1))


def scattered(v, positions):
    out = np.zeros(5)
    out[positions] = v
    return np.sum(np.sin(out) * np.arange(5.0))


def into_the_argument(u, source):
    for i in range(1, u.shape[0] - 1):
        u[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.25 * source[i]
    return np.sum(u * source)


@pytest.mark.parametrize("f, args", [
    (scattered, (rng.normal(size=2), np.array([3, 1]))),
    (into_the_argument, (rng.normal(size=6), rng.normal(size=6))),
], ids=["an_array_of_indices", "the_callers_array"])
def test_other_writes_fall_back_with_the_numpy_paths_numbers(f, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(f, argnums=0, compile=True)(*(a.copy() for a in args))
    assert [w for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    np.testing.assert_allclose(gradient, s2sad.grad(f, argnums=0)(*(a.copy() for a in args)), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(f, tuple(a.copy() for a in args), 0), rtol=1e-6, atol=1e-7)
