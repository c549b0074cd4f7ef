"""compile=True through deep-learning code as ML users write it in NumPy: hidden states appended
to a list in a loop and joined at the end (``np.stack(states)``, ``np.concatenate(states)``), a
GRU cell joining ``[x, h]`` at each step (the list kept on the tape for its cotangent), minibatches
from a generator, ``np.squeeze(x, axis=1)``, an MLP over ``params[:-1]`` and the builtin ``abs``
of an array. Each
program compiles (no CompiledFallbackWarning), its gradient is central differences' in float64 and
the NumPy path's, and float32 arrays in give float32 gradients out. Joins NumPy refuses (shapes
that do not fit) are NumPy's error, from the NumPy path."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from realistic_programs import gru_loss, gru_sequence_states, minibatch_objective, relu_mlp_mse, rnn_states_stacked
from trees import combine, direction, inner
from test_compiled_arrays import compiled_against_references, float32_against_references
from corpus_cases import compiled_share

numba = pytest.importorskip("numba")
rng = np.random.default_rng(16)


def normal(*shape, scale=1.0):
    return rng.normal(size=shape) * scale


def slopes_agree(f, args, position, gradient, h=1e-6):
    """``gradient`` (a tree like ``args[position]``) along two random directions is central
    differences' of ``f`` along them, in float64."""
    for _ in range(2):
        step = direction(args[position], lambda *shape: rng.normal(size=shape))
        moved = [f(*[combine(a, step, sign * h) if i == position else a for i, a in enumerate(args)]) for sign in (1.0, -1.0)]
        np.testing.assert_allclose(inner(gradient, step, args[position]), (moved[0] - moved[1]) / (2 * h), rtol=1e-6, atol=1e-8)


def states_concatenated_axis_0(W, inputs):
    h = np.zeros((2, W.shape[1]))
    states = []
    for x in inputs:
        h = np.tanh(x @ W + h)
        states.append(h * x[:, :1])
    return np.sum(np.concatenate(states, axis=0) ** 3)


def features_concatenated_last_axis(W, inputs):
    features = [np.cos(inputs[0] @ W)]
    for t in range(1, inputs.shape[0]):
        features.append(np.sin(inputs[t] @ W) * t)
    return np.sum(np.concatenate(features, -1) ** 3)


def states_stacked_new_last_axis(W, inputs):
    h = np.zeros((2, W.shape[1]))
    states = []
    for x in inputs:
        h = np.sin(x @ W) + 0.5 * h
        states.append(h)
    joined = np.stack(states, axis=2)
    return np.sum(joined[:, :, 1:] * np.cos(joined[:, :, :-1]))


def along_a_list_it_grows(x, y):
    """(test_compiled_operations listed it among the fallbacks before lists were joined)"""
    parts = [x]
    parts.append(y)
    return np.sum(np.concatenate(parts) ** 2)


def unequal_states(W, inputs):
    """Appends arrays of growing width: np.concatenate along axis 0 refuses them."""
    states = []
    for t in range(inputs.shape[0]):
        states.append(np.tanh(inputs[t, :, :t + 1] * W[t, 0]))
    return np.sum(np.concatenate(states, axis=0))


PROGRAMS = {
    "rnn_states_stacked": (rnn_states_stacked, lambda: (normal(2, 3, scale=0.5), normal(3, 3, scale=0.5), normal(5, 2)),
                           (0, 1, 2)),
    "gru_states_concatenated": (gru_sequence_states, lambda: ((normal(5, 3, scale=0.3), normal(5, 3, scale=0.3),
                                                               normal(5, 3, scale=0.3)), normal(4, 2, 2)), (1,)),
    "gru_joined_x_h_each_step": (gru_loss, lambda: ((normal(5, 3, scale=0.3), normal(5, 3, scale=0.3),
                                                     normal(5, 3, scale=0.3)), normal(4, 2, 2)), (1,)),
    "list_appended_once": (along_a_list_it_grows, lambda: (normal(2), normal(3)), (0, 1)),
    # a generator's (X, y) batches, the last one shorter: a list of tuples, its cotangent taken apart item by item
    "minibatches_from_a_generator": (minibatch_objective, lambda: (normal(3), normal(10, 3), normal(10)), (0, 1, 2)),
    **{f.__name__: (f, lambda: (normal(3, 4, scale=0.5), normal(5, 2, 3)), (0, 1))
       for f in (states_concatenated_axis_0, features_concatenated_last_axis, states_stacked_new_last_axis)},
}


@pytest.mark.parametrize("name", compiled_share(sorted(PROGRAMS), 2))  # (every one with S2SAD_TESTS=full)
def test_lists_joined_compile_and_give_the_references(name):
    f, make, argnums = PROGRAMS[name]
    compiled_against_references(f, make(), argnums)


def test_gru_gradient_of_its_weights_tuple_is_the_numpy_paths():
    # the weights come back as the tuple they were given, the NumPy path's, and central differences' along random directions
    params, inputs = PROGRAMS["gru_states_concatenated"][1]()
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        compiled = s2sad.grad(gru_sequence_states, argnums=0, compile=True)(params, inputs)
    plain = s2sad.grad(gru_sequence_states, argnums=0)(params, inputs)
    assert type(compiled) is tuple and len(compiled) == 3
    for k in range(3):
        np.testing.assert_allclose(compiled[k], plain[k], rtol=1e-12, atol=1e-13)
    slopes_agree(gru_sequence_states, (params, inputs), 0, compiled)


# (features_concatenated_last_axis multiplies by its int step t, which float32 code widens: the NumPy path, as it should)
@pytest.mark.parametrize("name", ["states_concatenated_axis_0", "list_appended_once", "states_stacked_new_last_axis"])
def test_float32_lists_joined_give_float32(name):
    f, make, argnums = PROGRAMS[name]
    float32_against_references(f, tuple(a.astype(np.float32) for a in make()), argnums)


def test_the_list_join_helpers_are_numpys():
    from s2sad.compiled_helpers import numpy_concatenate, numpy_stack

    @numba.njit
    def joined(count, axis):
        pieces = []
        for i in range(count):
            pieces.append(np.arange(24.0).reshape(2, 3, 4) * (i + 1))
        return numpy_concatenate(pieces, axis), numpy_stack(pieces, axis)

    @numba.njit
    def stacked_last(count):
        pieces = []
        for i in range(count):
            pieces.append(np.arange(24.0).reshape(2, 3, 4) * (i + 1))
        return numpy_stack(pieces, 3)

    pieces = [np.arange(24.0).reshape(2, 3, 4) * (i + 1) for i in range(3)]
    for axis in (0, 1, 2, -1, -3):
        together, stacked = joined(3, axis)
        np.testing.assert_array_equal(together, np.concatenate(pieces, axis))
        np.testing.assert_array_equal(stacked, np.stack(pieces, axis))
    np.testing.assert_array_equal(stacked_last(3), np.stack(pieces, 3))  # stack's extra axis


# ---------------------------------------------------------------- np.squeeze given its axes
def squeezed_regression_head(W, X, y):
    column = np.tanh(X @ W)
    return np.sum((np.squeeze(column, axis=1) - y) ** 2)


def squeezed_two_axes(W, X):
    scores = np.tanh(X @ W)[:, None, :, None]            # (n, 1, 1, 1)
    return np.sum(np.sin(np.squeeze(scores, (1, -1))) ** 2)


def squeezed_a_wide_axis(W, X):
    """Axis 1 has length two: NumPy refuses to squeeze it."""
    return np.sum(np.squeeze(X[0] @ W, axis=1))


@pytest.mark.parametrize("f, make", [
    (squeezed_regression_head, lambda: (normal(4, 1, scale=0.5), normal(6, 4), normal(6))),
    (squeezed_two_axes, lambda: (normal(3, 1), normal(5, 3))),
], ids=["one_axis", "two_axes"])
def test_squeeze_with_axes_compiles_and_gives_the_references(f, make):
    args = make()
    compiled_against_references(f, args, tuple(range(len(args))))
    float32_against_references(f, tuple(a.astype(np.float32) for a in args), (0, 1))


@pytest.mark.parametrize("f, words", [(unequal_states, "concatenat|dimension"), (squeezed_a_wide_axis, "squeeze")],
                         ids=["join_of_unequal_arrays", "squeeze_of_an_axis_of_length_two"])
def test_what_numpy_refuses_is_numpys_error(f, words):
    W, inputs = normal(3, 2), normal(3, 2, 3)
    with pytest.raises(ValueError, match=words):
        f(W, inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(ValueError, match=words):
            s2sad.grad(f, argnums=0, compile=True)(W, inputs)


def test_the_squeeze_helper_is_numpys_and_a_view():
    from s2sad.compiled_helpers import numpy_squeeze

    @numba.njit
    def squeezed(a):
        return numpy_squeeze(a, 1), numpy_squeeze(a, (1, 3)), numpy_squeeze(a, -1)

    a = np.arange(6.0).reshape(2, 1, 3, 1)
    for theirs, ours in zip((np.squeeze(a, 1), np.squeeze(a, (1, 3)), np.squeeze(a, -1)), squeezed(a)):
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)
    view = squeezed(a)[1]
    view[0, 0] = -1.0                   # NumPy's squeeze is a view: so is the helper's
    assert a[0, 0, 0, 0] == -1.0


# ---------------------------------------------------------------- a list of (W, b) sliced; the builtin abs of an array
def l1_regularised_logistic(w, X, labels):
    margins = labels * (X @ w)
    return np.mean(np.log1p(np.exp(-margins))) + 0.1 * np.sum(abs(w))


def abs_of_a_float_and_an_array(s, w):
    return abs(s) * np.sum(abs(w) ** 1.5)


def test_relu_mlp_on_a_slice_of_its_layers_compiles_and_gives_the_references():
    params = [(normal(3, 5, scale=0.5), normal(5, scale=0.1) + 0.3), (normal(5, 4, scale=0.5), normal(4, scale=0.1) + 0.3),
              (normal(4, 2, scale=0.5), normal(2, scale=0.1))]
    X, y = normal(6, 3), normal(6, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        compiled = s2sad.grad(relu_mlp_mse, argnums=(0, 1), compile=True)(params, X, y)
    plain = s2sad.grad(relu_mlp_mse, argnums=(0, 1))(params, X, y)
    for layer in range(3):
        for k in range(2):
            np.testing.assert_allclose(compiled[0][layer][k], plain[0][layer][k], rtol=1e-12, atol=1e-13)
    slopes_agree(relu_mlp_mse, (params, X, y), 0, compiled[0])
    np.testing.assert_allclose(compiled[1], plain[1], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(compiled[1], central(relu_mlp_mse, (params, X, y), 1), rtol=1e-6, atol=1e-7)


def test_builtin_abs_of_an_array_compiles_and_gives_the_references():
    w, X, labels = normal(3) + 0.2, normal(7, 3), np.sign(normal(7))
    compiled_against_references(l1_regularised_logistic, (w, X, labels), (0, 1))
    float32_against_references(l1_regularised_logistic, (w.astype(np.float32), X.astype(np.float32),
                                                         labels.astype(np.float32)), (0, 1))
    compiled_against_references(abs_of_a_float_and_an_array, (-0.7, normal(4)), (0, 1))


def test_a_function_of_the_users_named_abs_is_the_users():
    # compiled code writes the builtin's abs as np.abs; a module's own `abs` (c * c) must stay its own
    from own_abs_programs import scaled_by_own_abs

    w, c = normal(3), np.array([-2.0, 1.0, -3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(scaled_by_own_abs, argnums=0, compile=True)(w, c)
    np.testing.assert_array_equal(gradient, c * c)
