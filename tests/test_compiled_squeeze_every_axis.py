"""compile=True of ``np.squeeze(x, axis=None)``: the one element of a ``keepdims=True`` reduction of
every axis (a logsumexp of a whole array) compiles, as its number, and its pullback gives that
number back as an array of the reduction's shape; an array of more than one element, whose
squeezed rank only the call knows, is the NumPy path's (compiled_helpers' _numpy_squeeze_every_axis)."""
import numpy as np
import pytest

from test_compiled_arrays import compiled_against_references, falls_back_naming
from corpus_cases import FULL

numba = pytest.importorskip("numba")


def logsumexp_of_everything(x, w):
    z = x * w
    top = np.max(z, axis=None, keepdims=True)
    out = np.log(np.sum(np.exp(z - top), axis=None, keepdims=True)) + top
    return np.squeeze(out, axis=None) * 2.0


def squeezed_vector(x):
    return np.sum(np.squeeze(x * x, axis=None) ** 3)


@pytest.mark.skipif(not FULL, reason="the reductions' compile time (S2SAD_TESTS=full; the corpus's gmm_dict_params too)")
def test_the_element_of_a_reduction_of_every_axis_compiles():
    compiled_against_references(logsumexp_of_everything, (np.array([[0.3, -1.2], [0.5, 2.0]]), 0.8), (0, 1))


def test_an_array_of_more_elements_is_the_numpy_paths():
    falls_back_naming(squeezed_vector, (np.array([0.3, -1.2, 0.7]),), 0, "np.squeeze of every axis")


def logsumexp_squeezed_without_an_axis(x):
    top = np.max(x, keepdims=True)
    return np.squeeze(np.log(np.sum(np.exp(x - top), keepdims=True)) + top) * 2.0


def test_no_axis_is_every_axis():
    """``np.squeeze(x)`` is ``np.squeeze(x, axis=None)``: the same overload (before, Numba, which has
    no np.squeeze, failed to compile the whole gradient); the text alone is read by default."""
    from s2sad.transform import generated_source

    code = [line for line in generated_source(logsumexp_squeezed_without_an_axis, ("x",), "compiled").splitlines()
            if not line.lstrip().startswith("#")]  # (the comments quote the user's line)
    assert any("numpy_squeeze(add)" in line for line in code) and not any("np.squeeze(" in line for line in code)
    if FULL:
        compiled_against_references(logsumexp_squeezed_without_an_axis, (np.array([0.3, 1.2, -0.5]),), (0,))
