"""compile=True and ``s2sad emit --compile`` through ``np.roll`` (given an axis, and the cotangent's
``np.roll(g, -shift, None)``, which Numba has no implementation of) and an index that is an array
of ints (``out[idx] = v``, ``out[idx] += v``, ``x[idx]`` read), some named twice: the last write to
an element is the one kept, each read's cotangent is added (compiled_rolls.py,
compiled_index_arrays.py), checked against central differences. Before, compile=True fell back and
the emitted file raised Numba's TypingError at its first call. (One small program: Numba's fancy
write of an array alone costs 1.7 s of compiling the first time.)"""
import numpy as np
import pytest

from test_compiled_arrays import compiled_against_references

numba = pytest.importorskip("numba")

rng = np.random.default_rng(2211)


def shifted_and_scattered(x, W):
    out = np.zeros(5)
    out[np.array([0, 2, 2, -1])] = x          # x[1] overwritten by x[2]
    out[np.array([1, 3, 1])] += np.sin(x[np.array([3, 0, 3])])   # out[1] keeps the last; x[3] read twice
    return np.sum(np.roll(out, 2) * np.cos(out)) + np.sum(np.roll(W, 1, axis=1) * W ** 2)


def test_rolls_and_arrays_of_indices_compile_to_central_differences():
    compiled_against_references(shifted_and_scattered, (rng.normal(size=4), rng.normal(size=(2, 3))), (0, 1))


def test_the_emitted_file_carries_the_overloads_it_calls(tmp_path):
    """(Running an emitted file compiles every helper again: test_cli runs one; here its text.)"""
    from s2sad.emit import emitted_text

    text = emitted_text(shifted_and_scattered, ("x", "W"), "compiled", str(tmp_path / "out.py"), "x")
    body = text[text.index("def shifted_and_scattered_grad_compiled"):]
    assert "numpy_roll(" in body and "written_item_of(" in body
    for overload in ("@overload(numpy_roll)", "def _written_item_of_at_indices", "def _not_the_callers_array"):
        assert overload in text
