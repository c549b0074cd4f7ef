"""compile=True and ``s2sad emit --compile`` through ``np.roll`` (given an axis, and the cotangent's
``np.roll(g, -shift, None)``, which Numba has no implementation of) and an index that is an array
of ints (``out[idx] = v``, ``out[idx] += v``, ``x[idx]`` read), some named twice: the last write to
an element is the one kept, each read's cotangent is added (compiled_rolls.py,
compiled_index_arrays.py). Both gradients are central differences'. Before, compile=True fell back
and the emitted file raised Numba's TypingError at its first call. (Small programs: each compiles
once, and Numba's fancy writes of an array cost it 1.7 s the first time.)"""
import numpy as np
import pytest

from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references

numba = pytest.importorskip("numba")

rng = np.random.default_rng(2211)


def shifted_and_scattered(x, W):
    out = np.zeros(5)
    out[np.array([0, 2, 2, -1])] = x          # x[1] overwritten by x[2]
    out[np.array([1, 3, 1])] += np.sin(x[np.array([3, 0, 3])])   # out[1] keeps the last; x[3] read twice
    rows = np.zeros((3, 2))
    rows[np.array([2, 0])] = W
    return np.sum(np.roll(out, 2) * np.cos(out)) + np.sum(np.roll(rows, 1, axis=1) * rows ** 2)


def rolled(x, W):
    return np.sum(np.roll(x, 1) * np.sin(x)) + np.sum(np.roll(W, -1, axis=0) * W)


def test_rolls_and_arrays_of_indices_compile_to_central_differences():
    compiled_against_references(shifted_and_scattered, (rng.normal(size=4), rng.normal(size=(2, 2))), (0, 1))


def test_the_emitted_file_rolls(tmp_path):
    from s2sad.emit import emitted_text

    path = tmp_path / "rolled_compiled.py"
    text = emitted_text(rolled, ("x", "W"), "compiled", str(path), "x")
    namespace = {"__name__": "rolled_compiled"}  # (not imported by name: nothing kept on disk)
    exec(compile(text, str(path), "exec"), namespace)
    args = (rng.normal(size=4), rng.normal(size=(3, 2)))
    assert namespace["ACCEPTS"](*args)
    value, (dx, dW) = namespace["rolled_grad"](*args)
    assert value == pytest.approx(rolled(*args), rel=1e-13)
    np.testing.assert_allclose(dx, central(rolled, args, 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dW, central(rolled, args, 1), rtol=1e-6, atol=1e-7)
