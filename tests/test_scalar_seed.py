"""The pass keeping a typed pullback's seed a scalar (s2sad/codegen/scalar_seed.py): its
before/after lines, then whole gradients through typed versions, against gradients derived
by hand, where it applies and where it must not (another shape, another read, an axis)."""
import numpy as np
import pytest

import s2sad
from s2sad.codegen.scalar_seed import scalar_seed

VECTOR = ("array", ("n0",))
MATRIX = ("array", ("n1", "n0"))


def test_a_broadcast_only_multiplied_by_arrays_of_its_shape_is_the_seed():
    before = ["# f.py:2: return np.sum(w * v)",
              "dp = expand_reduced(dresult, p, None, False, True)",
              "dw = dp * v",
              "dv = w * dp"]
    after = scalar_seed(before, "dresult", {"p": VECTOR, "w": VECTOR, "v": VECTOR})
    assert after == ["# f.py:2: return np.sum(w * v)",
                     "dp = dresult",
                     "dw = dp * v",
                     "dv = w * dp"]


def test_a_product_of_an_expression_of_that_shape_counts():
    before = ["dp = expand_reduced(dresult, p, None, False, True)",
              "dt = dp * (2 * t)"]
    assert scalar_seed(before, "dresult", {"p": MATRIX, "t": MATRIX})[0] == "dp = dresult"


@pytest.mark.parametrize("reads, types", [
    (["dw = dp"], {"p": VECTOR}),                                   # handed on as it is: an array is needed
    (["dw = dp * v", "dv = dp"], {"p": VECTOR, "v": VECTOR}),       # one read of several is not a product
    (["dw = dp * v"], {"p": MATRIX, "v": VECTOR}),                  # v broadcasts: the product has p's shape only with dp's
    (["dw = dp * c"], {"p": VECTOR}),                               # c's shape is not known
    (["dw = dp / v"], {"p": VECTOR, "v": VECTOR}),                  # a quotient, not a product
    (["dw = -dp * v"], {"p": VECTOR, "v": VECTOR}),                 # read by the negation first
    (["dp = dp * v", "dw = dp"], {"p": VECTOR, "v": VECTOR}),       # assigned again
])
def test_a_broadcast_read_otherwise_stays(reads, types):
    before = ["dp = expand_reduced(dresult, p, None, False, True)"] + reads
    assert scalar_seed(before, "dresult", types) == before


@pytest.mark.parametrize("broadcast", [
    "dp = expand_reduced(dresult, p, 0, False, True)",       # over an axis
    "dp = expand_reduced(dresult, p, None, False, mask)",    # of the elements a mask keeps
    "dp = expand_reduced(dq, p, None, False, True)",         # of another cotangent than the seed
    "dp = expand_reduced(dresult, q, None, False, True)",    # of a value of no known type
])
def test_other_broadcasts_stay(broadcast):
    before = [broadcast, "dw = dp * v"]
    assert scalar_seed(before, "dresult", {"p": VECTOR, "v": VECTOR}) == before


# ---------------------------------------------------------------------- whole gradients, typed versions
def tanh_square(w):
    return np.sum(np.tanh(2.0 * w + 1.0) ** 2)


def product(w, v):
    return np.sum(w * v)


def row_scaled(W, v):
    return np.sum(W * v)


def plain_sum(w):
    return np.sum(w)


def two_sums(W):
    return np.sum(np.sin(W) * W) + np.sum(W)


def scaled_sum(w):
    return np.sum(np.exp(w)) / 2.0


W3 = np.array([0.3, -0.8, 1.4])
V3 = np.array([1.1, -0.4, 0.6])
M = np.array([[0.2, -1.0, 0.5], [1.5, 0.1, -0.3]])


def by_hand(name, *args):
    if name == "tanh_square":
        t = np.tanh(2.0 * args[0] + 1.0)
        return 4.0 * t * (1.0 - t ** 2)
    if name == "product":
        return args[1], args[0]
    if name == "row_scaled":
        W, v = args
        return np.broadcast_to(v, W.shape), W.sum(axis=0)
    if name == "plain_sum":
        return np.ones_like(args[0])
    if name == "two_sums":
        return np.cos(args[0]) * args[0] + np.sin(args[0]) + 1.0
    if name == "scaled_sum":
        return np.exp(args[0]) / 2.0
    raise KeyError(name)


@pytest.mark.parametrize("function, args, argnums", [
    (tanh_square, (W3,), 0), (product, (W3, V3), (0, 1)), (row_scaled, (M, V3), (0, 1)),
    (plain_sum, (W3,), 0), (two_sums, (M,), 0), (scaled_sum, (W3,), 0),
])
def test_typed_gradients_are_the_hand_derived_ones(function, args, argnums):
    gradient = s2sad.grad(function, argnums=argnums)
    expected = by_hand(function.__name__, *args)
    for _ in range(3):  # the first call, then the lane's typed version
        got = gradient(*args)
        got, want = (got, expected) if isinstance(argnums, tuple) else ((got,), (expected,))
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == np.float64
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_the_small_workloads_typed_pullback_keeps_the_seed():
    from s2sad.analysis.array_types import signature_of
    from s2sad.transform import generated_source, typed_mode

    text = generated_source(tanh_square, ("w",), typed_mode(signature_of((W3,))))
    pullback = text[text.index("def tanh_square_pullback"):]
    assert "dpow_2 = dresult\n" in pullback
    assert "expand_reduced" not in pullback
    assert "stand_in_for" not in text  # the primal's array is no longer read for its shape
