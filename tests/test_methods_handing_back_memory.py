"""A method of an ndarray method's name (``.copy()``, ``.flatten()``, ``.sum()``) was taken for
NumPy's, whose result is new memory, whatever its receiver: a write through the result then
changed nothing else as far as the derivative knew. On a user class returning ``self.w``, or a
dict's shallow ``.copy()`` whose item is written in place, every mode was wrong (grad 0.6 where
central differences give 2.4; -12 where they give 0). Where a name read after such a write may
see it through one of these calls, the receiver's type is checked as the code runs: NumPy's pass,
anything else is refused at the line. ``y = x.copy(); y[0] = ...`` on arrays still differentiates,
and still compiles.

NumPy hands back the very array, not a new one, in a few more places the analysis did not know:
``x.conj()`` and ``x.conjugate()`` of a real array, ``np.real_if_close(x)`` of one, and
``np.nan_to_num(x, copy=False)``: a write through the result then changes ``x`` (grad 0.6 where
central differences give 1.2). Those are now views, refused where written and ``x`` read after."""
import warnings

import numpy as np
import pytest

import s2sad
from tests.finite_differences import assert_every_mode_matches, numerical_gradient, refusal_in


class Holder:
    def __init__(self, w):
        self.w = w

    def copy(self):
        return self.w  # not a copy

    def flatten(self):
        return self.w

    def sum(self):
        return self.w


def user_copy_written(x):
    h = Holder(x * 1.0)
    w = h.copy()
    w += x
    return np.sum(h.w ** 2)


def user_flatten_written_by_element(x):
    h = Holder(x * 1.0)
    w = h.flatten()
    w[0] = 5.0 * x[1]
    return np.sum(h.w ** 2)


def user_sum_scaled_in_place(x):
    h = Holder(x * 1.0)
    w = h.sum()
    w *= 3.0
    return np.sum(h.w * x)


def dict_copy_item_written(x):
    d = {"w": x * 1.0}
    w = d.copy()["w"]
    w += 2.0 * x
    return np.sum(d["w"] ** 2)


def step_on_a_shallow_copy(x):
    params = {"w": x * 1.0}
    new = params.copy()
    new["w"] -= 0.1 * x  # NumPy subtracts in place, from the array params holds too
    return np.sum(params["w"] ** 2) + np.sum(new["w"])


@pytest.mark.parametrize("f", [user_copy_written, user_flatten_written_by_element, user_sum_scaled_in_place,
                               dict_copy_item_written, step_on_a_shallow_copy])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_refused_at_the_call_when_the_receiver_is_not_numpys(f, mode):
    x = np.array([0.3, -1.2, 0.7])
    refused = refusal_in(mode, f, x, "may hand back memory the object holds|holds the very objects|shares it")
    assert refused.location.filename == __file__
    assert any(part in refused.location.text for part in (".copy()", "= h.", "+=", "-="))


def array_copy_written(x):
    y = x.copy()
    y[0] = 5.0 * x[1]
    y *= 2.0
    return np.sum(y * x)


def flattened_then_written(x):
    m = np.outer(x, x)
    f = m.flatten()
    f[1] = f[1] * 3.0
    return np.sum(f * m.ravel()) + np.sum(m)


@pytest.mark.parametrize("f", [array_copy_written, flattened_then_written])
def test_numpys_methods_and_new_slots_still_differentiate(f):
    x = np.array([0.3, -1.2, 0.7])
    assert_every_mode_matches(f, x, np.array([1.0, -0.5, 0.25]), np.array([0.2, 0.4, -1.0]))


def test_an_array_copy_written_still_compiles():
    pytest.importorskip("numba")
    x = np.array([0.3, -1.2, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(array_copy_written, compile=True)(x)
    np.testing.assert_allclose(gradient, numerical_gradient(array_copy_written, (x,), 0), rtol=1e-6, atol=1e-8)


def conj_method_written(x):
    y = x * 1.0
    z = y.conj()  # a float array's conj() is the array itself
    z *= 2.0
    return np.sum(y * x)


def conjugate_method_written_by_element(x):
    y = x * 1.0
    z = y.conjugate()
    z[0] = 5.0 * x[1]
    return np.sum(y * x)


def nan_to_num_without_a_copy_written(x):
    y = x * 1.0
    z = np.nan_to_num(y, copy=False)
    z *= 2.0
    return np.sum(y * x)


def real_if_close_written(x):
    y = x * 1.0
    z = np.real_if_close(y)
    z *= 2.0
    return np.sum(y * x)


@pytest.mark.parametrize("f", [conj_method_written, conjugate_method_written_by_element,
                               nan_to_num_without_a_copy_written, real_if_close_written])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_numpy_handing_back_the_same_array_is_seen(f, mode):
    x = np.array([0.3, -1.2, 0.7])
    refused = refusal_in(mode, f, x, "shares")
    assert refused.location.filename == __file__


def conj_function_written(x):
    y = x * 1.0
    z = np.conj(y)  # the ufunc: a new array
    z *= 2.0
    return np.sum(y * x) + np.sum(z * x)


def nan_to_num_copied_written(x):
    y = x * 1.0
    z = np.nan_to_num(y)
    z *= 2.0
    return np.sum(y * x) + np.sum(z)


@pytest.mark.parametrize("f", [conj_function_written, nan_to_num_copied_written])
def test_new_arrays_written_still_differentiate(f):
    x = np.array([0.3, -1.2, 0.7])
    assert_every_mode_matches(f, x, np.array([1.0, -0.5, 0.25]), np.array([0.2, 0.4, -1.0]))
