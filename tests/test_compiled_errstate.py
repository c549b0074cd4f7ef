"""compile=True through ``with np.errstate(...)``: set to "ignore" for each kind it names, it changes
no number (only NumPy's warnings, which compiled code never gives), and the block compiles as its
body; any other setting ("raise": NumPy raises where Numba goes on) keeps the NumPy path, named."""
import numpy as np
import pytest

from test_compiled_arrays import compiled_against_references, falls_back_naming

pytest.importorskip("numba")


def ignoring_log(p, counts):
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = np.log(p)
        scaled = logp / np.sum(counts)
    return np.sum(counts * scaled) + np.sum(p ** 2)


def raising_on_overflow(p, counts):
    with np.errstate(over="raise"):
        grown = np.exp(p)
    return np.sum(counts * grown)


ARGS = (np.array([0.4, 1.3, 0.7]), np.array([2.0, 1.0, 3.0]))


def test_an_errstate_ignoring_compiles_as_its_body():
    compiled_against_references(ignoring_log, ARGS, (0, 1))


def test_an_errstate_raising_keeps_the_numpy_path():
    falls_back_naming(raising_on_overflow, ARGS, 0, "`unsuppressed`")
