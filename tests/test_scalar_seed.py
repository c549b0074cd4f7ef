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


# ---------------------------------------------------------------------- products with the seed 1.0
def fresh_names(base):
    return base


def test_a_product_with_a_new_array_is_that_array_when_the_seed_is_one():
    before = ["# f.py:2: return np.sum(np.tanh(w) ** 2)",
              "dp = expand_reduced(dresult, p, None, False, True)",
              "dt = dp * (2 * t)",
              "dw = dt * (1 - t ** 2)"]
    after = scalar_seed(before, "dresult", {"p": VECTOR, "t": VECTOR, "w": VECTOR}, fresh_names)
    assert after == ["seed_is_one = dresult.__class__ is float and dresult == 1.0  # grad's: a product with it is "
                     "its other operand",
                     "# f.py:2: return np.sum(np.tanh(w) ** 2)",
                     "dp = dresult",
                     "dt = 2 * t if seed_is_one else dp * (2 * t)",
                     "dw = dt * (1 - t ** 2)"]


@pytest.mark.parametrize("read", [
    "dw = dp * v",                  # v itself: an argument, or an array the tape keeps
    "dw = v * dp",
    "dw = dp * np.tanh(v)",         # a call: computed anew, but a call may give back what it was given
    "dw = dp * v[0]",               # an item (or a view)
    "dw = unbroadcast(dp * (2 * v), w)",  # not the whole of the assignment
])
def test_products_with_anything_else_are_computed(read):
    before = ["dp = expand_reduced(dresult, p, None, False, True)", read]
    after = scalar_seed(before, "dresult", {"p": VECTOR, "v": VECTOR, "w": VECTOR}, fresh_names)
    assert after[1:] == [read] and not any("seed_is_one" in line for line in after)


def test_a_scalar_shaped_product_is_computed():
    # a 0-d sum's seed times a number would give back an int where the product is a float
    before = ["dp = expand_reduced(dresult, p, None, False, True)", "dn = dp * (2 * n)"]
    after = scalar_seed(before, "dresult", {"p": ("array", ()), "n": ("int",)}, fresh_names)
    assert not any("seed_is_one" in line for line in after)


def sine_square(w):
    return np.sum(np.sin(w) ** 2)


def scaled_product(w, v):
    return np.sum(w * (3.0 * v))


def test_the_small_workloads_pullback_leaves_the_product_out_for_grads_seed():
    from s2sad.analysis.array_types import signature_of
    from s2sad.transform import generated_source, typed_mode

    text = generated_source(tanh_square, ("w",), typed_mode(signature_of((W3,))))
    assert "seed_is_one = dresult.__class__ is float and dresult == 1.0" in text
    assert " if seed_is_one else dpow_2 * (" in text


def test_the_gradient_is_a_new_array_each_call_that_nothing_else_changes():
    """The array the pullback would have multiplied by 1.0 is what is handed back: mutating it,
    or the argument afterwards, changes nothing else, and the next call computes it again."""
    gradient = s2sad.grad(tanh_square)
    w = W3.copy()
    expected = by_hand("tanh_square", w)
    first = gradient(w)
    for _ in range(3):  # the first call, then the lane's typed version
        got = gradient(w)
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
        assert not np.shares_memory(got, w) and not np.shares_memory(got, first)
        got[:] = 1e6  # the caller's to change
        first = got
    again = gradient(w)
    np.testing.assert_allclose(again, expected, rtol=1e-13, atol=1e-15)
    w[:] = [2.0, 0.5, -1.0]  # the argument changed after the call: the gradient given stays
    np.testing.assert_allclose(again, expected, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gradient(w), by_hand("tanh_square", w), rtol=1e-13, atol=1e-15)


def test_a_gradient_that_is_an_argument_times_the_seed_is_a_copy():
    # d/dw sum(w * (3 v)) = 3 v: a new array (the product stays); d/dv = 3 w
    gradient = s2sad.grad(scaled_product, argnums=(0, 1))
    w, v = W3.copy(), V3.copy()
    for _ in range(3):
        dw, dv = gradient(w, v)
        np.testing.assert_allclose(dw, 3.0 * v, rtol=1e-15)
        np.testing.assert_allclose(dv, 3.0 * w, rtol=1e-15)
        assert not any(np.shares_memory(a, b) for a in (dw, dv) for b in (w, v))
        dw[:] = 0.0
        dv[:] = 0.0
    dw, dv = s2sad.grad(product, argnums=(0, 1))(w, v)  # d sum(w v) = (v, w): the seed's product with a name
    assert not np.shares_memory(dw, v) and not np.shares_memory(dv, w)
    np.testing.assert_array_equal(dw, v)


def test_other_seeds_multiply_and_seed_one_gives_the_products_bits():
    """The typed pullback called with another seed multiplies; with 1.0 it gives, bit for bit,
    what the product with np.float64(1.0) gives (-0.0, infinities and NaN included)."""
    from s2sad.analysis.array_types import signature_of
    from s2sad.transform import generated_typed

    w = np.array([-0.0, 0.3, -1.2, np.inf, np.nan, 1e-300])
    typed = generated_typed(sine_square, ("w",), signature_of((w,)))
    with np.errstate(invalid="ignore"):
        _, pullback = typed(w)
        unit = pullback(1.0)[1]
        product = pullback(np.float64(1.0))[1]
        scaled = pullback(2.5)[1]
        expected = 2.0 * np.sin(w) * np.cos(w)
    assert unit.dtype == product.dtype == np.float64
    assert np.array_equal(unit.view(np.int64), product.view(np.int64))
    assert np.signbit(unit[0])  # -0.0 kept
    finite = np.isfinite(w)
    np.testing.assert_allclose(unit[finite], expected[finite], rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(scaled[finite], 2.5 * expected[finite], rtol=1e-14, atol=1e-300)
    h = 1e-6  # and against central differences, on the finite elements
    for i in np.flatnonzero(finite & (np.abs(w) < 10)):
        up, down = w.copy(), w.copy()
        up[i] += h
        down[i] -= h
        central = (np.sin(up[i]) ** 2 - np.sin(down[i]) ** 2) / (2 * h)
        assert abs(unit[i] - central) < 1e-8
