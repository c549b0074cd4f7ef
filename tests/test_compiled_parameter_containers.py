"""compile=True through a dict of parameters given as an argument (``params["W"]``) and a tuple of
them (``Wz, Wr, Wh = params``, ``params[0]``), written out as their items as an object is as its
fields (frontend/object_layouts.entries_of, items_of). Each program compiles (no
CompiledFallbackWarning); its gradient is a dict (a tuple), as the NumPy path's, each item the
NumPy path's (within 1e-12) and central differences' in float64; float32 items give float32
gradients. One used otherwise (passed on, written, read by a variable key, holding an int) falls
back, naming it, with the NumPy path's numbers."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from realistic_programs import lstm_loss
from test_compiled_arrays import falls_back_naming
from corpus_cases import FULL, compiled_share

numba = pytest.importorskip("numba")

rng = np.random.default_rng(144)


def regression(params, X, y):
    logits = X @ params["W"] + params["b"]
    return np.mean((np.tanh(logits) - y) ** 2) + params["decay"] * np.sum(params["W"] ** 2)


def two_dicts(first, second, x):
    return np.sum(np.sin(x @ first["W"]) @ second["W"] + second["b"])


def gates(params, x):
    Wz, Wh, scale = params
    return np.sum(np.tanh(x @ Wz) * params[1][0]) + scale * params[2] * np.sum(Wh)


def _lstm_params():
    return {name: 0.5 * rng.normal(size=(5, 3)) for name in ("forget", "ingate", "change", "outgate")}


CASES = {
    "weights, bias and a float": (regression, ({"W": rng.normal(size=(2, 3)), "b": rng.normal(size=3), "decay": 0.1},
                                               rng.normal(size=(5, 2)), rng.normal(size=(5, 3))), (0, 1)),
    "two dicts": (two_dicts, ({"W": rng.normal(size=(3, 4))}, {"W": rng.normal(size=(4, 2)), "b": rng.normal(size=2)},
                              rng.normal(size=(5, 3))), (0, 1, 2)),
    "the corpus's LSTM": (lstm_loss, (_lstm_params(), rng.normal(size=(4, 2, 2))), (0, 1)),
}
TUPLES = {
    "unpacked and read by position": (gates, ((rng.normal(size=(3, 2)), rng.normal(size=(2, 2)), 0.7),
                                              rng.normal(size=(4, 3))), (0, 1)),
}


def _with_entry(args, position, key, value):
    given = args[position]
    changed = {**given, key: value} if isinstance(given, dict) else (*given[:key], value, *given[key + 1:])
    return (*args[:position], changed, *args[position + 1:])


def central_of_entry(f, args, position, key):
    return central(lambda value: f(*_with_entry(args, position, key, value)), (args[position][key],), 0)


@pytest.mark.parametrize("name", compiled_share(sorted(CASES) + sorted(TUPLES), 2))  # (every one with S2SAD_TESTS=full)
def test_dicts_and_tuples_compile_and_their_gradients_are_central_differences(name):
    compiled_against_references(*{**CASES, **TUPLES}[name])


def compiled_against_references(f, args, argnums):
    """``f``'s gradient compiles; each item of it is the NumPy path's and central differences'."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradients = s2sad.value_and_grad(f, argnums=argnums, compile=True)(*args)
    plain_value, plain_gradients = s2sad.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(value, plain_value, rtol=1e-13)
    for position, gradient, plain in zip(argnums, gradients, plain_gradients):
        if not isinstance(args[position], (dict, tuple)):
            np.testing.assert_allclose(gradient, plain, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(gradient, central(f, args, position), rtol=1e-6, atol=1e-7)
            continue
        assert type(gradient) is type(plain) is type(args[position])
        items = args[position].items() if isinstance(args[position], dict) else enumerate(args[position])
        if isinstance(args[position], dict):
            assert list(gradient) == list(plain) == list(args[position])
        for key, entry in items:
            assert type(gradient[key]) is type(plain[key]) and np.shape(gradient[key]) == np.shape(entry), key
            np.testing.assert_allclose(gradient[key], plain[key], rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(gradient[key], central_of_entry(f, args, position, key), rtol=1e-6, atol=1e-7)


def test_float32_entries_give_float32_gradients():
    params = {"W": rng.normal(size=(3, 4)).astype(np.float32)}
    second = {"W": rng.normal(size=(4, 2)).astype(np.float32), "b": rng.normal(size=2).astype(np.float32)}
    x = rng.normal(size=(5, 3)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradients = s2sad.grad(two_dicts, argnums=(0, 1), compile=True)(params, second, x)
    plain = s2sad.grad(two_dicts, argnums=(0, 1))(params, second, x)
    wide = ({"W": params["W"].astype(np.float64)}, {k: v.astype(np.float64) for k, v in second.items()},
            x.astype(np.float64))
    for position, gradient, theirs in zip((0, 1), gradients, plain):
        for key in gradient:
            assert gradient[key].dtype == theirs[key].dtype == np.float32
            np.testing.assert_allclose(gradient[key], theirs[key], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(gradient[key], central_of_entry(two_dicts, wide, position, key),
                                       rtol=1e-3, atol=1e-4)


def helper(params, x):
    return np.sum(x @ params["W"])


def passed_by_keyword(params, x):
    return helper(x=x, params=params) ** 2


def handed_back(params):
    return params


def passed_and_handed_back(params, x):
    return np.sum(x @ handed_back(params)["W"])


def entry_written(params, x):
    params["W"] = params["W"] * 2.0
    return np.sum(x @ params["W"])


def read_by_a_variable(params, x):
    total = 0.0
    for key in ("W", "V"):
        total = total + np.sum(x @ params[key])
    return total


def looped_over(params, x):
    total = 0.0
    for W in params:
        total = total + np.sum(x @ W)
    return total


@pytest.mark.parametrize("f, args, words", [
    (passed_by_keyword, ({"W": rng.normal(size=(3, 2))}, rng.normal(size=(4, 3))), "uses the dict `params`"),
    (passed_and_handed_back, ({"W": rng.normal(size=(3, 2))}, rng.normal(size=(4, 3))), "`handed_back"),
    (read_by_a_variable, ({"W": rng.normal(size=(3, 2)), "V": rng.normal(size=(3, 2))}, rng.normal(size=(4, 3))),
     "uses the dict `params`"),
    (regression, ({"W": rng.normal(size=(2, 3)), "b": rng.normal(size=3), "decay": 1},
                  rng.normal(size=(5, 2)), rng.normal(size=(5, 3))), "entry 'decay' holds a int"),
    (gates, ((rng.normal(size=(3, 2)), rng.normal(size=(2, 2)), 1), rng.normal(size=(4, 3))), "item 2 is a int"),
    (looped_over, ((rng.normal(size=(3, 2)), rng.normal(size=(3, 2))), rng.normal(size=(4, 3))),
     "uses the tuple `params`"),
], ids=["passed_by_keyword", "passed_and_handed_back", "read_by_a_variable", "an_int_entry", "an_int_item", "a_tuple_looped_over"])
def test_what_is_not_written_out_falls_back_naming_it(f, args, words):
    falls_back_naming(f, args, 1, words)


def test_an_entry_written_falls_back_to_the_numpy_paths_answer():
    """Written out, ``params["W"] = ...`` would not reach the caller's dict: refused, naming it;
    the NumPy path's gradient (the caller's dict changed as Python changes it) is the one given."""
    W, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(entry_written, argnums=1, compile=True)({"W": W.copy()}, x)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "writes an item of the dict `params`" in messages[0], messages
    np.testing.assert_allclose(gradient, s2sad.grad(entry_written, argnums=1)({"W": W.copy()}, x), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(lambda x: entry_written({"W": W.copy()}, x), (x,), 0),
                               rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- passed on to a function of the user's
# `cell(params, x, h, c)` given the dict it was given: the callee written out the same way
# (frontend/objects_passed_on.py); it returns a tuple the loop unpacks, whose cotangent's zeros
# before the first item's reaches it are a tuple too (compiled_lists.zero_items_like).

def cell(params, x, h, c):
    z = x * params["w"] + 0.5 * h * c
    return z, 0.5 * (c + z)


def dict_passed_on(params, inputs):
    h, c = np.zeros(2), np.ones(2)
    total = 0.0
    for x in inputs:
        h, c = cell(params, x, h, c)
        total = total + np.sum(h * h)  # (`c` reaches it through the next step alone)
    return total


def test_a_dict_passed_on_to_a_function_compiles():
    compiled_against_references(dict_passed_on, ({"w": rng.normal(size=2)}, rng.normal(size=(3, 2))), (0, 1))


# np.repeat along an axis, an RNN's first state (compiled_repeats.py): a vector, a matrix's rows and columns
def repeated_states(params, inputs):
    h = np.repeat(params["h0"], inputs.shape[0], axis=0)
    return np.sum(np.tanh(h * inputs) ** 2) + np.sum(np.sin(np.repeat(params["M"], 3, axis=-1))) \
        + np.sum(np.repeat(params["v"], 2, axis=0) ** 3)


@pytest.mark.skipif(not FULL, reason="Numba compile time: with S2SAD_TESTS=full")
def test_np_repeat_along_an_axis_compiles():
    params = {"h0": rng.normal(size=(1, 2)), "M": rng.normal(size=(2, 1)), "v": rng.normal(size=2)}
    compiled_against_references(repeated_states, (params, rng.normal(size=(3, 2))), (0, 1))
