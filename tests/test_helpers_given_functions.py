"""A helper given a function (``dense(x, W, b, act=np.tanh)``), called where its result is not
differentiated (only its shape or a test reads it): judged by the function the call passes, or the
default, instead of refused for calling a parameter (issue 16, item 1). A function that keeps what
it is given (in a global list, a dict) is refused, and so is a helper that keeps what it computes
from a differentiated value: the value read back from the global would be a constant, and the
gradient wrong (it was zero before session 16). Every gradient against central differences."""
import re

import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, refusal_in

W = np.linspace(-1.0, 1.0, 12).reshape(3, 4) * 0.3
B = np.linspace(0.0, 1.0, 4)
KEPT = []
BOX = {}


def dense(x, W, b, act=np.tanh, scale=1.0):
    z = x @ W + b
    return act(z) * scale


def leaky(z):
    return np.where(z > 0.0, z, 0.1 * z)


def keeper(z):
    KEPT.append(z)
    return z


def apply(function, x):
    return function(x)


def shape_of_a_default_layer(x):
    h = dense(x, W, B)
    return np.sum(x ** 2) * h.shape[0]


def checked_layer_given_numpy(x):
    h = dense(x, W, B, act=np.sin)
    if h.shape[0] > 100:
        return np.sum(x)
    return np.sum(x ** 3)


def checked_layer_given_a_user_function(x):
    h = dense(x, W, B, act=leaky)
    if np.all(np.isfinite(h)):
        return np.sum(np.cos(x))
    return np.sum(x)


def checked_layer_given_a_lambda(x):
    h = dense(x, W, B, act=lambda z: z * z)
    if h.shape[0] > 100:
        return np.sum(x)
    return np.sum(np.exp(x))


def applied_and_measured(x):
    y = apply(np.exp, x)
    return np.sum(x ** 2) * y.shape[0]


def layer_of_a_layer(x, act=leaky):
    return dense(x, W, B, act=act)


def nested_helpers_unused(x):
    h = layer_of_a_layer(x)
    return np.sum(np.sin(x)) + h.shape[0]


@pytest.mark.parametrize("function", [shape_of_a_default_layer, checked_layer_given_numpy,
                                      checked_layer_given_a_user_function, checked_layer_given_a_lambda,
                                      applied_and_measured, nested_helpers_unused])
def test_a_helper_calling_the_function_it_is_given_is_judged_by_that_function(function):
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(function, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))
    np.testing.assert_allclose(s2sad.grad(function, compile=True)(x), s2sad.grad(function)(x), rtol=1e-12)


def layer_given_a_keeper(x):
    dense(x, W, B, act=keeper)
    return np.sum(KEPT[-1] ** 2) + np.sum(x ** 2)


def keeps_twice(x):
    z = x * 2.0
    KEPT.append(z)
    return 0.0


def read_from_the_list_a_helper_filled(x):
    keeps_twice(x)  # marker: keeps into a list
    return np.sum(KEPT[-1] ** 2)


def stores_thrice(x):
    BOX["v"] = x * 3.0
    return 0.0


def read_from_the_dict_a_helper_filled(x):
    stores_thrice(x)  # marker: keeps into a dict
    return np.sum(BOX["v"] ** 2)


def layer_given_a_variable(x, act):
    h = dense(x, W, B, act=act)
    return np.sum(x ** 2) * h.shape[0]


def dense_keeping_by_default(x, W, b, act=keeper):
    return act(x @ W + b)


def layer_keeping_by_default(x):
    h = dense_keeping_by_default(x, W, B)
    return np.sum(x ** 2) * h.shape[0]


def layer_of_a_keeper(x):
    h = layer_of_a_layer(x, act=keeper)
    return np.sum(x ** 2) * h.shape[0]


@pytest.mark.parametrize("function, text", [
    (layer_given_a_keeper, "dense(x, W, B, act=keeper)"),
    (read_from_the_list_a_helper_filled, "keeps_twice(x)"),
    (read_from_the_dict_a_helper_filled, "stores_thrice(x)"),
    (layer_keeping_by_default, "h = dense_keeping_by_default(x, W, B)"),
    (layer_of_a_keeper, "h = layer_of_a_layer(x, act=keeper)"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_helper_that_keeps_what_it_is_given_is_refused_at_its_call(function, text, mode):
    caught = refusal_in(mode, function, np.linspace(-0.5, 0.7, 3),
                        "may write into its arguments or keep them|a list of its module that .* records values in")
    if "records values in" in caught.message:  # (the function reads the list the helper fills: refused at its def)
        assert caught.location.text.strip().startswith(f"def {function.__name__}(")
        assert "return the value" in caught.hint
        return
    assert caught.location.text.strip().startswith(text)
    assert "return the value" in caught.hint


def test_the_lists_a_helper_fills_were_read_as_constants_before():
    """The wrong number the refusal replaces: the global's value read back, taken for a constant."""
    x = np.array([0.5, -1.0])
    keeps_twice(x)
    assert np.sum(KEPT[-1] ** 2) == pytest.approx(5.0)  # d/dx sum((2x)^2) = 8x, not zero
    with pytest.raises(s2sad.UnsupportedSyntaxError):
        s2sad.grad(read_from_the_list_a_helper_filled)(x)


def test_a_function_given_through_a_variable_is_refused():
    x = np.linspace(-0.5, 0.7, 3)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=re.escape("may write into its arguments")):
        s2sad.grad(layer_given_a_variable)(x, np.tanh)


def fills_its_own_buffer(x):
    out = np.zeros(3)
    out[0] = x[0] * 2.0
    rows = []
    rows.append(out)
    return rows


def measured_through_its_own_buffer(x):
    rows = fills_its_own_buffer(x)
    return np.sum(np.cos(x)) * len(rows)


def writes_into_an_item_of_a_copy(xs):
    rows = list(xs)
    rows[0][0] = 5.0  # rows holds the caller's arrays: this writes into one
    return 0.0


def through_a_copy_of_the_list(x):
    pair = [x * 1.0, x]
    writes_into_an_item_of_a_copy(pair)  # marker: the item written
    return np.sum(pair[1] ** 2)


def test_a_helper_filling_containers_it_made_is_kept_and_one_writing_through_a_copy_is_refused():
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(measured_through_its_own_buffer, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))
    caught = refusal_in("grad", through_a_copy_of_the_list, x, "may write into its arguments or keep them")
    assert "# marker: the item written" in caught.location.text
