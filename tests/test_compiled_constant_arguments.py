"""compile=True through a user function called with ``True`` or ``False`` (``keepdims=True``), or
leaving a flag to its default, whose branches on it return arrays of different ranks: the
callee's split form is made for that constant (specialisation.py), so Numba types only the
branch taken; against the NumPy path and central differences. (One small program: each
compile costs seconds of Numba's CPU.)"""
import numpy as np
import pytest

from test_compiled_arrays import compiled_against_references

pytest.importorskip("numba")


def row_sums(a, keepdims=False):
    sums = np.sum(a, axis=1, keepdims=True)
    return sums if keepdims else np.squeeze(sums, axis=1)


def weighted(a):
    return np.sum(row_sums(a, True) * a)


def test_a_callee_made_for_the_flags_it_is_given():
    rng = np.random.default_rng(18)
    compiled_against_references(weighted, (rng.normal(size=(4, 3)),), (0,))
