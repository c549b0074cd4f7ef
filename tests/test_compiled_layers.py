"""compile=True on a network's layers as a list of (W, b) tuples (issue 19): the list is handed to
Numba as a tuple, the cotangent of each tuple is the tuple of its items' and of the list the list
of its tuples', as on the NumPy path (compiled_helpers: lists of tuples of arrays). Each gradient
against central differences, one coordinate of one array at a time, and the NumPy path; the
lists compiled code does not serve (lists of lists, non-contiguous arrays, float32, mixed ranks)
take the NumPy path with the same numbers."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from corpus_cases import FULL, compiled_share

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- written as published examples write them
def mlp(params, x):
    h = x
    for W, b in params:
        h = np.tanh(W @ h + b)
    return np.sum(h ** 2)


def by_index(params, x):
    h = x
    for i in range(len(params) - 1):
        W, b = params[i]
        h = np.maximum(W @ h + b, 0.1 * (W @ h + b))
    W, b = params[-1]
    return np.sum((W @ h + b) ** 2) / 2.0


def residual_batch(params, X, Y):
    H = X
    for W, b in params:
        H = H + np.tanh(H @ W.T + b)
    return np.mean((H - Y) ** 2)


def init_layers(sizes, rng):
    return [(0.5 * rng.normal(size=(n_out, n_in)), 0.1 * rng.normal(size=n_out))
            for n_in, n_out in zip(sizes[:-1], sizes[1:])]


def central_of_layers(f, args, position):
    """The gradient with respect to a list of tuples of arrays, by central differences, one array at a time."""
    layers = args[position]

    def of_one_array(i, j):
        def moved(array):
            changed = [tuple(array if (k, m) == (i, j) else a for m, a in enumerate(t)) for k, t in enumerate(layers)]
            return f(*args[:position], changed, *args[position + 1:])
        return moved

    return [tuple(central(of_one_array(i, j), (array,), 0) for j, array in enumerate(layer))
            for i, layer in enumerate(layers)]


def assert_layers_close(got, expected, **tolerances):
    assert type(got) is list and len(got) == len(expected)
    for got_layer, expected_layer in zip(got, expected):
        assert type(got_layer) is tuple and len(got_layer) == len(expected_layer)
        for a, b in zip(got_layer, expected_layer):
            assert a.shape == b.shape and a.dtype == np.float64
            np.testing.assert_allclose(a, b, **tolerances)


rng = np.random.default_rng(21)
CASES = {
    "mlp": (mlp, (init_layers([3, 5, 4, 2], rng), rng.normal(size=3))),
    "by index": (by_index, (init_layers([4, 6, 3], rng), rng.normal(size=4))),
    "residual batch": (residual_batch, ([(0.3 * rng.normal(size=(3, 3)), rng.normal(size=3)) for _ in range(3)],
                                        rng.normal(size=(5, 3)), rng.normal(size=(5, 3)))),
}


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_layers_compile_and_are_central_differences(name):
    f, args = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, (dlayers, dx) = s2sad.value_and_grad(f, argnums=(0, 1), compile=True)(*args)
    plain_value, (plain_layers, plain_dx) = s2sad.value_and_grad(f, argnums=(0, 1))(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13)
    assert_layers_close(dlayers, plain_layers, rtol=1e-12, atol=1e-14)
    assert_layers_close(dlayers, central_of_layers(f, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dx, plain_dx, rtol=1e-12, atol=1e-14)


def test_the_compiled_code_reads_the_layers_as_a_tuple_and_hands_back_a_list():
    from s2sad.transform import generated_source

    text = generated_source(mlp, ("params",), "compiled")
    assert "item_cotangent(" in text and "layers_of_arrays(params)" in text and "item_params_rrule" not in text
    layers, x = CASES["mlp"][1]
    before = [tuple(a.copy() for a in layer) for layer in layers]
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(mlp, compile=True)(layers, x)
    assert type(layers) is list and all(type(layer) is tuple for layer in layers)  # the user's list untouched
    for layer, kept in zip(layers, before):
        for a, b in zip(layer, kept):
            np.testing.assert_array_equal(a, b)
    for layer in gradient:  # no gradient is a layer's memory: the caller may change it in place
        for g in layer:
            assert not any(np.may_share_memory(g, a) for kept in layers for a in kept)


def items_by_index(params, x, outputs=1):
    hidden = np.tanh(x @ params[0][0] + params[0][1])
    raw = hidden @ params[1][0] + params[1][1]
    return np.sum(raw[:, :2 * outputs] ** 2)


@pytest.mark.skipif(not FULL, reason="a network's compile time (S2SAD_TESTS=full; the corpus's mixture_density_network)")
def test_items_read_by_index_and_an_int_argument_doubled():
    """``params[1][1]``: the cotangent of the tuple read by index (``untake`` of a tuple's item,
    compiled_lists.py); ``2 * outputs`` of an int argument, a product below 2**62 (bounded_integers.py).
    Both fell back before (mixture_density_network of the corpus)."""
    args = ([(0.5 * rng.normal(size=(2, 4)), 0.1 * rng.normal(size=4)),
             (0.5 * rng.normal(size=(4, 3)), 0.1 * rng.normal(size=3))], rng.normal(size=(3, 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dlayers, dx = s2sad.grad(items_by_index, argnums=(0, 1), compile=True)(*args)
    plain_layers, plain_dx = s2sad.grad(items_by_index, argnums=(0, 1))(*args)
    assert_layers_close(dlayers, plain_layers, rtol=1e-12, atol=1e-14)
    assert_layers_close(dlayers, central_of_layers(items_by_index, args, 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dx, plain_dx, rtol=1e-12, atol=1e-14)


def test_the_cotangent_of_a_layer_of_which_one_item_is_read():
    """``untake(g, 1, (W, b))``: zeros like W, and g; a cotangent of another shape is not its case."""
    from s2sad.compiled_overloads import NotCompiledCase, untake

    @numba.njit
    def of_b(g, layer):
        return untake(g, 1, layer)

    dW, db = of_b(np.array([1.0, 2.0]), (np.ones((3, 2)), np.ones(2)))
    np.testing.assert_array_equal(dW, np.zeros((3, 2)))
    np.testing.assert_array_equal(db, [1.0, 2.0])
    with pytest.raises(NotCompiledCase):
        of_b(np.ones(3), (np.ones((3, 2)), np.ones(2)))


def passes_through(params, x):
    W, b = params[0]
    return np.sum(W) + np.sum(b * x)


def test_a_gradient_that_is_a_layer_passed_through_is_a_copy():
    layers, x = [(np.ones((2, 2)), np.zeros(2))], np.array([0.5, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        (dW, db), = s2sad.grad(passes_through, compile=True)(layers, x)
    np.testing.assert_array_equal(dW, np.ones((2, 2)))
    np.testing.assert_array_equal(db, x)
    assert not np.may_share_memory(db, x)


@pytest.mark.parametrize("layers", [
    [[np.eye(3), np.zeros(3)], [np.eye(3), np.ones(3)]],                                  # lists, not tuples
    [(np.ones((3, 6))[:, ::2], np.zeros(3)), (np.ones((3, 6))[:, ::2], np.ones(3))],      # strided
    [(np.eye(3, dtype=np.float32), np.zeros(3, dtype=np.float32))],                      # float32
    [(np.eye(3), np.zeros(3)), (np.ones(3), np.ones(3))],                                 # ranks differ
], ids=["lists", "non-contiguous", "float32", "mixed-ranks"])
def test_lists_it_does_not_serve_take_the_numpy_path_with_the_same_numbers(layers, monkeypatch):
    import s2sad.compiled

    monkeypatch.setattr(s2sad.compiled, "_warned", set())  # each case says why, though the reason is the same
    x = np.array([0.3, -0.2, 0.9])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(mlp, argnums=1, compile=True)(layers, x)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert messages and "does not serve" in messages[0], messages
    np.testing.assert_allclose(gradient, s2sad.grad(mlp, argnums=1)(layers, x), rtol=1e-13)
