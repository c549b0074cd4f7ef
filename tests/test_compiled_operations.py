"""compile=True on NumPy's reductions along an axis (``np.max(x, axis=1, keepdims=True)``,
``np.prod``, ``np.mean``, ``np.var``, ``np.std``), ``np.trace``, ``np.dot``, and the joins (``np.concatenate``, ``np.stack``,
``np.hstack``, ``np.vstack``): programs as users write them, each compiled (no fallback) and
its gradient the NumPy path's and central differences'; ties and zeros against hand-derived
numbers; what is not served falls back with the NumPy path's numbers."""
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import compiled_share
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- programs as users write them
def logsumexp_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True)))


def softmax_cross_entropy(logits, targets):
    shifted = logits - np.amax(logits, axis=-1, keepdims=True)
    probabilities = np.exp(shifted) / np.sum(np.exp(shifted), axis=-1, keepdims=True)
    return -np.mean(np.sum(targets * np.log(probabilities), axis=1))


def product_of_probabilities(w, x):
    p = 1.0 / (1.0 + np.exp(-w * x))
    return np.log(np.prod(p)) + np.sum(np.prod(1.0 - p, axis=0)) + np.sum(np.prod(p, axis=-1, keepdims=True) * p)


def products(x):
    return np.prod(x) + np.sum(np.prod(x, axis=0) ** 2)


def gram_trace(W):
    return np.trace(W.T @ W) - 0.5 * np.trace(np.tanh(W)) + np.trace(W, 1) ** 2


def attention(q, k1, k2, v1, v2):
    keys = np.stack([k1, k2], axis=0)               # (2, d)
    values = np.stack((v1, v2))                      # (2, d)
    scores = keys @ q
    weights = np.exp(scores - np.max(scores)) / np.sum(np.exp(scores - np.max(scores)))
    return np.sum(np.tanh(weights @ values))


def stacked_heads(x, W1, W2):
    heads = np.stack([np.tanh(x @ W1), np.tanh(x @ W2)], axis=-1)   # (n, h, 2)
    pooled = np.max(heads, axis=-1)
    return np.sum(pooled ** 2) + np.sum(np.min(heads, axis=2, keepdims=True) * heads)


def features(x, y):
    joined = np.concatenate([x, np.sin(x), y ** 2], axis=-1)
    rows = np.concatenate((x, y), axis=0)
    return np.sum(joined ** 2) + np.sum(np.cos(rows)) + np.sum(np.concatenate([x]) * 3.0)


def side_by_side(a, b, c):
    wide = np.hstack([a, b])                 # (2, 3) and (2, 2): (2, 5)
    tall = np.vstack((a.T, b.T))             # (3, 2) and (2, 2): (5, 2)
    flat = np.hstack([c, c * 2.0, np.exp(c)])
    rows = np.vstack([c, np.sin(c)])
    return np.sum(wide * tall.T) + np.sum(flat ** 2) + np.sum(rows[1] * rows[0])


def centred_and_scaled(x):
    centred = x - np.mean(x, axis=0, keepdims=True)
    scale = np.sum(centred ** 2, axis=0, keepdims=True) / x.shape[0]
    return np.sum(centred / np.sqrt(scale + 1.0)) + np.sum(np.mean(x ** 2, axis=1)) + np.mean(x, axis=None)


def extremes_of_a_cube(x):
    return (np.sum(np.amax(x, axis=0)) - np.sum(np.amin(x, axis=1) ** 2) + np.sum(np.max(x, axis=-1, keepdims=True) * x)
            + np.min(x, axis=None) + np.sum(np.max(x, keepdims=True)))


def vector_reductions(x):
    return np.sum(x, axis=0) * np.max(x, axis=0) + np.prod(x, axis=-1) + np.mean(x, axis=0) ** 2 + np.min(x, 0)


def layer_norm(x, gamma, beta, W, eps=1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    normed = (x - mean) / np.sqrt(var + eps) * gamma + beta
    return np.sum((x + np.tanh(normed @ W)) ** 2)


def spreads(x):
    return (np.sum(np.std(x, axis=0) * np.array([1.0, 2.0, 3.0])) + np.sum(np.var(x, axis=1, ddof=1) ** 2)
            + np.var(x) + np.std(x, ddof=1) + np.sum(np.std(x, keepdims=True)))


def dots(W, x):
    h = np.tanh(np.dot(W, x))
    return np.dot(h, h) + np.sum(np.dot(W.T, W) ** 2) + np.sum(np.dot(x, W.T) * np.dot(W, np.ones(4)))


rng = np.random.default_rng(20)
ties = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.5, 2.0], [0.0, -4.0, -4.0, 1.0]])
CASES = {
    "logsumexp_rows": (logsumexp_rows, (rng.normal(size=(3, 5)),), (0,)),
    "logsumexp_rows_tied": (logsumexp_rows, (ties,), (0,)),
    "softmax_cross_entropy": (softmax_cross_entropy, (rng.normal(size=(4, 3)), np.eye(3)[[0, 2, 1, 1]]), (0,)),
    "product_of_probabilities": (product_of_probabilities, (0.7, rng.normal(size=(3, 4))), (0, 1)),
    "products_1d": (products, (rng.normal(size=5),), (0,)),
    "products_2d": (products, (rng.normal(size=(3, 4)),), (0,)),
    "products_3d": (products, (rng.normal(size=(2, 3, 2)),), (0,)),
    "gram_trace": (gram_trace, (rng.normal(size=(3, 3)),), (0,)),
    "gram_trace_rectangular": (gram_trace, (rng.normal(size=(4, 3)),), (0,)),
    "attention": (attention, tuple(rng.normal(size=4) for _ in range(5)), (0, 1, 2, 3, 4)),
    "stacked_heads": (stacked_heads, (rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=(3, 4))),
                      (0, 1, 2)),
    "features": (features, (rng.normal(size=(2, 3)), rng.normal(size=(2, 3))), (0, 1)),
    "side_by_side": (side_by_side, (rng.normal(size=(2, 3)), rng.normal(size=(2, 2)), rng.normal(size=4)), (0, 1, 2)),
    "centred_and_scaled": (centred_and_scaled, (rng.normal(size=(4, 3)),), (0,)),
    "extremes_of_a_cube": (extremes_of_a_cube, (rng.normal(size=(2, 3, 4)),), (0,)),
    "vector_reductions": (vector_reductions, (rng.normal(size=4),), (0,)),
    "layer_norm": (layer_norm, (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=4), rng.normal(size=(4, 4))),
                   (0, 1, 2, 3)),
    "spreads": (spreads, (rng.normal(size=(4, 3)),), (0,)),
    "dots": (dots, (rng.normal(size=(3, 4)), rng.normal(size=4)), (0, 1)),
}


@pytest.mark.parametrize("name", compiled_share(CASES, 3))  # (every one with S2SAD_TESTS=full)
def test_an_operation_compiles_and_its_gradient_is_central_differences_and_the_numpy_paths(name):
    compiled_against_references(*CASES[name])


def _compiled_gradient(f, *args, argnums=0):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        return s2sad.grad(f, argnums=argnums, compile=True)(*args)


# ---------------------------------------------------------------- ties and zeros, against numbers by hand
def row_maxima(x):
    return np.sum(np.max(x, axis=1) * np.array([1.0, 2.0, 3.0]))


def column_minima_kept(x):
    return np.sum(np.amin(x, axis=0, keepdims=True) * np.array([[1.0, 10.0, 100.0, 1000.0]]))


def test_tied_extremes_along_an_axis_share_the_cotangent_equally():
    """Row i's maximum has slope i + 1: shared by its tied elements (two, three, or one)."""
    x = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.5, 2.0], [0.0, -4.0, 5.0, 1.0]])
    gradient = _compiled_gradient(row_maxima, x)
    expected = np.array([[0.0, 0.5, 0.5, 0.0], [2.0 / 3, 2.0 / 3, 0.0, 2.0 / 3], [0.0, 0.0, 3.0, 0.0]])
    np.testing.assert_allclose(gradient, expected, rtol=1e-15)
    np.testing.assert_array_equal(gradient, s2sad.grad(row_maxima)(x))
    # each column's minimum: columns 0 and 3 tie between two rows, column 1 between two
    y = np.array([[1.0, -4.0, 5.0, 0.0], [1.0, -4.0, 2.0, 0.0], [3.0, 0.0, 2.5, 0.0]])
    gradient = _compiled_gradient(column_minima_kept, y)
    expected = np.array([[0.5, 5.0, 0.0, 1000.0 / 3], [0.5, 5.0, 100.0, 1000.0 / 3], [0.0, 0.0, 0.0, 1000.0 / 3]])
    np.testing.assert_allclose(gradient, expected, rtol=1e-15)
    np.testing.assert_array_equal(gradient, s2sad.grad(column_minima_kept)(y))


def whole_product(x):
    return np.prod(x)


@pytest.mark.parametrize("x", [
    np.array([2.0, 0.0, 3.0, 4.0]),             # one zero: only its slope is not 0
    np.array([0.0, 5.0, 0.0, 4.0]),             # two zeros: every slope is 0
    np.array([-1.5, 2.0, 0.5, -3.0]),
], ids=["one zero", "two zeros", "no zero"])
def test_a_product_with_zeros_is_the_product_of_the_others(x):
    gradient = _compiled_gradient(whole_product, x)
    others = np.array([np.prod(np.delete(x, i)) for i in range(x.size)])
    np.testing.assert_array_equal(gradient, others)
    np.testing.assert_array_equal(gradient, s2sad.grad(whole_product)(x))



def test_tied_extremes_of_a_cube_are_the_numpy_paths_shares():
    """Many ties (integers), every axis, kept or not: the NumPy path's equal shares exactly
    (central differences do not see a subgradient's shares at a tie)."""
    x = np.round(rng.normal(size=(2, 3, 4)) * 1.5)
    assert len(np.unique(x)) < x.size / 2
    np.testing.assert_array_equal(_compiled_gradient(extremes_of_a_cube, x), s2sad.grad(extremes_of_a_cube)(x))


def column_products(x):
    return np.sum(np.prod(x, axis=0) * np.array([1.0, -2.0, 3.0]))


def test_products_along_an_axis_with_zeros_are_the_products_of_the_others():
    x = np.array([[2.0, 0.0, 1.5], [0.0, 3.0, -2.0], [4.0, 0.0, 0.5]])
    gradient = _compiled_gradient(column_products, x)
    expected = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            expected[i, j] = np.prod(np.delete(x[:, j], i)) * [1.0, -2.0, 3.0][j]
    np.testing.assert_array_equal(gradient, expected)
    np.testing.assert_array_equal(gradient, s2sad.grad(column_products)(x))


def off_diagonal_trace(W):
    return np.trace(W, 1) * 2.0 + np.trace(W)


def test_a_traces_gradient_is_the_diagonal_it_summed():
    gradient = _compiled_gradient(off_diagonal_trace, rng.normal(size=(3, 4)))
    np.testing.assert_array_equal(gradient, np.eye(3, 4) + 2.0 * np.eye(3, 4, 1))


def column_spreads(x):
    return np.sum(np.std(x, axis=0)) + np.sum(np.var(x, axis=0))


def test_a_spread_of_equal_elements_has_the_rules_zero_slope():
    """Column 1 is constant: std's slope there is the rule's 0 (not NaN), var's 2 (x - mean) / n is 0."""
    x = np.array([[1.0, 2.0, -1.0], [3.0, 2.0, 0.5], [2.0, 2.0, 4.0]])
    gradient = _compiled_gradient(column_spreads, x)
    np.testing.assert_array_equal(gradient[:, 1], 0.0)
    np.testing.assert_allclose(gradient, s2sad.grad(column_spreads)(x), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gradient[:, [0, 2]], central(column_spreads, (x,), 0)[:, [0, 2]], rtol=1e-6)


def joined_and_weighted(x, y, z):
    return np.sum(np.concatenate([x, y, z], axis=1) * np.arange(12.0).reshape(2, 6))


def test_a_joins_cotangent_is_cut_back_to_each_array():
    x, y, z = rng.normal(size=(2, 1)), rng.normal(size=(2, 3)), rng.normal(size=(2, 2))
    dx, dy, dz = _compiled_gradient(joined_and_weighted, x, y, z, argnums=(0, 1, 2))
    weights = np.arange(12.0).reshape(2, 6)
    np.testing.assert_array_equal(dx, weights[:, :1])
    np.testing.assert_array_equal(dy, weights[:, 1:4])
    np.testing.assert_array_equal(dz, weights[:, 4:])


# ---------------------------------------------------------------- what it does not serve: the NumPy path
def flattened_join(x, y):
    return np.sum(np.concatenate([x, y], axis=None) ** 2)


def over_two_axes(x):
    return np.sum(np.max(x, axis=(0, 1)) ** 2)


def keepdims_from_a_variable(x, keep):
    return np.sum(np.max(x, axis=0, keepdims=keep) ** 2)


def mixed_rows(x, y):
    return np.sum(np.vstack([x, y]) ** 2)   # a 1-d row on a 2-d array


def masked_sum(x):
    return np.sum(np.sum(x ** 2, axis=0, where=x > 0.0))


@pytest.mark.parametrize("f, args", [
    (flattened_join, (rng.normal(size=(2, 2)), rng.normal(size=3))),
    (over_two_axes, (rng.normal(size=(2, 3, 2)),)),
    (keepdims_from_a_variable, (rng.normal(size=(3, 2)), True)),
    (mixed_rows, (rng.normal(size=3), rng.normal(size=(2, 3)))),
    (masked_sum, (rng.normal(size=(3, 3)),)),
], ids=["concatenate axis=None", "axis tuple", "keepdims variable", "vstack 1-d on 2-d", "where"])
def test_what_it_does_not_serve_falls_back_with_the_numpy_paths_numbers(f, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(f, compile=True)(*args)
    assert any(issubclass(w.category, s2sad.CompiledFallbackWarning) for w in caught)
    np.testing.assert_array_equal(gradient, s2sad.grad(f)(*args))
    np.testing.assert_allclose(gradient, central(f, args, 0), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- the code Numba compiles
def test_reductions_along_an_axis_call_the_overloads_and_joined_lists_are_tuples():
    """``np.max(x, axis=1, keepdims=True)`` calls compiled_helpers' reduce_max (Numba's np.max takes
    no axis); a whole-array ``np.sum(x)`` is numpy_sum (Numba's own np.sum of float64, NumPy's order
    of float32: weak_scalars.py); the list np.concatenate joins is a
    tuple (Numba joins tuples only), and the rules' pullbacks are the overloads'."""
    from s2sad.transform import generated_source

    text = generated_source(logsumexp_rows, ("x",), "compiled")
    assert "m = reduce_max(x, axis=1, keepdims=True)" in text
    assert "reduce_sum(exp_x_sub_m, axis=1, keepdims=True)" in text and "result = numpy_sum(" in text
    text = generated_source(features, ("x", "y"), "compiled")
    assert "elements = (x, sin_x, y_pow_2)\n    joined = np.concatenate(elements, axis=-1)" in text
    assert "elements_3 = (x,)" in text and " = [" not in text
    assert "concatenate_vjp_arrays(djoined, joined, elements, -1, None, None, 'same_kind')" in text


def validated_loss(w, X, y):
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"{X.shape[0]} inputs but {y.shape[0]} targets")
    return np.sum((np.tanh(X @ w) - y) ** 2) + 0.1 * np.dot(w, w)


def test_a_formatted_error_message_compiles_and_the_user_sees_it_formatted():
    """Numba formats no strings: the compiled code raises with the template, and a call that raises
    runs again on the NumPy path, whose error (formatted) is the one the user sees."""
    from s2sad.transform import generated_source

    assert 'message = "{} inputs but {} targets"\n' in generated_source(validated_loss, ("w",), "compiled")
    args = (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5))
    np.testing.assert_allclose(_compiled_gradient(validated_loss, *args), central(validated_loss, args, 0), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(ValueError, match="^5 inputs but 4 targets"):
            s2sad.grad(validated_loss, compile=True)(args[0], args[1], rng.normal(size=4))


def scaled_by_statistics(x, y):
    return np.sum(x * y.max(axis=0)) + np.sum(x * y.std(axis=1, keepdims=True)) + np.sum(x * y.mean(0))


def test_a_reducing_method_nothing_is_differentiated_through_compiles():
    """``y.max(axis=0)`` of a ``y`` not differentiated is a plain call in the compiled code: Numba's
    methods take no axis, so it is np.max's overload's."""
    from s2sad.transform import generated_source

    args = (rng.normal(size=(3, 4)), rng.normal(size=(3, 4)))
    assert "reduce_max(y, axis=0)" in generated_source(scaled_by_statistics, ("x",), "compiled")
    gradient = _compiled_gradient(scaled_by_statistics, *args)
    np.testing.assert_allclose(gradient, s2sad.grad(scaled_by_statistics)(*args), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(scaled_by_statistics, args, 0), rtol=1e-6)


# ---------------------------------------------------------------- found by the fuzzer (seed 2017): masks, tuples unpacked
def masked(x):
    mask = x > 0.5                      # a bool array: its own conjugate
    return np.sum(x * mask) + np.sum(np.sin(x) * mask)


def unpacked_pair(x):
    pair = (np.sin(x), np.outer(x, x))  # a tuple of arrays of two ranks, its cotangent split item by item
    a, b = pair
    return np.sum(a) + np.sum(b ** 2)


@pytest.mark.parametrize("f", [masked, unpacked_pair], ids=["mask", "tuple-unpacked"])
def test_masks_and_unpacked_tuples_compile(f):
    compiled_against_references(f, (np.array([0.3, 0.9, -0.2, 1.4]),), (0,))
