"""compile=True's fast paths for small arrays and large elementwise work (s2sad/compiled_helpers.py,
s2sad/codegen/for_numba.py): each gradient against central differences of the plain NumPy
function and against the NumPy path, on both sides of every size or shape a fast path decides by."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central

numba = pytest.importorskip("numba")


def compiled_and_plain(f, args, argnums):
    """The compiled gradients (no fallback allowed) and the NumPy path's, as tuples."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        compiled = s2sad.grad(f, argnums=argnums, compile=True)(*args)
    plain = s2sad.grad(f, argnums=argnums)(*args)
    return compiled, plain


# ---------------------------------------------------------------- NumPy's own loops on large arrays
def every_numpy_loop(x):
    """Each function compiled code hands to NumPy's loop on a large array, in x and in its pullback."""
    return np.sum(np.tanh(x) + np.sinh(x) + np.tan(x) + np.arctan(x) + np.arcsinh(x) + np.log1p(x) + np.expm1(x)
                  + np.cbrt(x) + np.log10(x) + np.exp(x) + np.log(x) + np.cosh(x) + np.log2(x) + np.exp2(x)
                  + np.arctanh(x))


@pytest.mark.parametrize("size", [8, 255, 256, 1023, 1024])
def test_numpy_loops_give_the_numpy_paths_gradient_on_each_side_of_their_size(size):
    """256 and 1024 are where compiled_helpers.NUMPY_LOOPS hands arrays to NumPy: there the
    compiled gradient is the NumPy path's to the bit (both are NumPy's loops); below, Numba's
    (the C library's functions, within a few ulps)."""
    x = np.linspace(0.1, 0.9, size)
    (compiled,), (plain,) = compiled_and_plain(every_numpy_loop, (x,), (0,))
    if size >= 1024:
        np.testing.assert_array_equal(compiled, plain)
    np.testing.assert_allclose(compiled, plain, rtol=1e-14)
    chosen = np.unique(np.linspace(0, size - 1, 6).astype(int))  # central differences on a few elements

    def at_chosen(values):
        moved = x.copy()
        moved[chosen] = values
        return every_numpy_loop(moved)

    np.testing.assert_allclose(compiled[chosen], central(at_chosen, (x[chosen],), 0), rtol=1e-7)


def layer(W, X):
    return np.sum(np.tanh(X @ W) ** 2)


def test_a_large_transposed_operand_of_a_numpy_loop_gives_a_c_ordered_answer():
    """``np.tanh(X.T)``: NumPy's loop writes into the array Numba made (C-ordered, the type Numba's
    own np.tanh gives), whatever the order of what it reads."""
    X = np.random.default_rng(3).normal(size=(20, 40))

    def transposed(X):
        return np.sum(np.tanh(X.T) * np.arange(800.0).reshape(40, 20))

    (compiled,), (plain,) = compiled_and_plain(transposed, (X,), (0,))
    np.testing.assert_array_equal(compiled, plain)
    np.testing.assert_allclose(compiled[:2, :3], central(lambda part: transposed(np.block([[part, X[:2, 3:]],
                                                                                          [X[2:]]])),
                                                         (X[:2, :3],), 0), rtol=1e-6, atol=1e-6)


def test_the_compiled_code_names_numpys_loop():
    from s2sad.transform import generated_source

    text = generated_source(layer, ("W",), "compiled")
    code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]  # not the user's lines quoted
    assert "    tanh_X_matmul_W = numpy_tanh(X_matmul_W)" in code and not any("np.tanh" in line for line in code)


# ---------------------------------------------------------------- small arrays through split calls
# A callee's forward hands its reverse `shape_like(a)` for an array the reverse reads only for its
# shape; each helper reading one must do what it does with the array: keep a cotangent of the
# same shape, sum one that broadcasting stretched, spread a reduction's, scatter an element's.
def mix(a, b):
    return a * 2.0 + b          # a (3,) broadcast against b (2, 3): da sums over the rows


def through_mix(a, b):
    return np.sum(mix(a, b) ** 2) + np.sum(mix(b[0], b) * a)   # also a (3,) with a (2, 3)


def summed_twice(x):
    return np.sum(x) * 2.0 + np.mean(x)   # expand_reduced and reduced_count of x's shape


def through_sums(x, w):
    return summed_twice(x * w) * summed_twice(np.tanh(x))


def shifted(s, x):
    return x + s                # s a float: its cotangent is a sum


def through_shift(s, x):
    return np.sum(shifted(s, x) ** 2) + np.sum(shifted(s * 0.5, x[0]) * x)


def elements(y, p):
    return np.array([p[0] * y[0] - p[1] * y[1], p[2] * y[1], 2])   # an int among the floats


def through_elements(y, p):
    total = 0.0
    for step in range(3):
        y = y + 0.1 * elements(y, p)[:2]
        total = total + np.sum(y ** 2) + y[0] * y[1] + y[0] ** 2   # an element read twice
    return total


def gated(x, w):
    h = w * x
    return np.sum(h) * 0.0 + np.sum(x ** 2)   # h's cotangent is 0: w's block is skipped, dw is zeros


def through_gate(x, w):
    return gated(x, w) + np.sum(gated(w, x) * 0.5)


def pairs(x):
    v = np.array([x[0] * x[1], x[1], 3])
    return np.sum(v ** 2) + x[0] * x[2]


SPLIT_CASES = {
    "broadcast_and_same_shape": (through_mix, (np.array([0.3, -1.2, 0.7]), np.array([[0.5, 0.1, -0.4], [1.1, 0.2, 0.9]])),
                                 (0, 1)),
    "reductions": (through_sums, (np.array([[0.3, -0.2], [0.8, 0.5]]), 1.3), (0, 1)),
    "float_and_array": (through_shift, (0.7, np.array([0.2, -0.5, 1.5])), (0, 1)),
    "elements_of_an_array": (through_elements, (np.array([1.0, 0.5]), np.array([0.4, 0.3, 0.2])), (0, 1)),
    "a_zero_cotangent": (through_gate, (np.array([0.4, -0.3]), np.array([1.5, 2.5])), (0, 1)),
    "a_list_with_an_int": (pairs, (np.array([0.6, -1.1, 0.8]),), (0,)),
}


@pytest.mark.parametrize("name", sorted(SPLIT_CASES))
def test_shapes_handed_over_give_the_numpy_paths_gradient_and_central_differences(name):
    f, args, argnums = SPLIT_CASES[name]
    compiled, plain = compiled_and_plain(f, args, argnums)
    for position, gradient, expected in zip(argnums, compiled, plain):
        assert type(gradient) is type(expected) and np.shape(gradient) == np.shape(args[position])
        np.testing.assert_allclose(gradient, expected, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(gradient, central(f, args, position), rtol=1e-6, atol=1e-8)


def test_a_zero_cotangents_block_skipped_leaves_exact_zeros():
    (dx, dw) = s2sad.grad(gated, argnums=(0, 1), compile=True)(np.array([0.4, -0.3]), np.array([1.5, 2.5]))
    np.testing.assert_array_equal(dw, [0.0, 0.0])
    np.testing.assert_array_equal(dx, [0.8, -0.6])


def test_the_split_code_hands_over_shapes_makes_zeros_only_where_needed_and_builds_no_list():
    """Before/after in the generated source: `shape_like(a)` in the forward's saved values for an
    array read only for its shape, `zero_like` in an `else:` of the block that replaces it, a
    tuple where a list was made only for np.array, and an element's cotangent added in place
    into the buffer `untake` made."""
    from s2sad.transform import generated_split

    def source(function):
        return open(generated_split(function, ("y", "p") if function is elements else ("a", "b")).__code__.co_filename).read()

    assert "    return result, (shape_like(a), shape_like(b), shape_like(a_mul_2_0),)" in source(mix).splitlines()
    lines = [line.strip() for line in source(elements).splitlines() if not line.lstrip().startswith("#")]
    assert "elements = (sub, p_2_mul_y_1_2, 2)" in lines and not any("[" in line for line in lines if "np.array" in line)
    assert "shape_like(y), shape_like(p), p_0, y_0," in lines[lines.index("result = np.array(elements)") + 1]
    block = lines.index("dy = untake(dy_1_2, 1, y)")
    assert lines[block - 1:block + 3] == ["if nonzero(dy_1_2):", "dy = untake(dy_1_2, 1, y)", "else:", "dy = zero_like(y)"]
    assert "add_into(dy, 1, dy_1)" in lines and "add_into(dy, 0, dy_0)" in lines and "add_at(" not in " ".join(lines)


# ---------------------------------------------------------------- W's cotangent added in place
def two_layers_shared(W, h):
    return np.sum(np.tanh(W @ h)) + np.sum(np.tanh(W @ (2.0 * h)) ** 2)   # dW += outer(g, h), twice


def recurrent(W, h, x):
    for step in range(4):
        h = np.tanh(W @ h + x)
    return np.sum(h * np.arange(1.0, 5.0))


def batched(W, H):
    for step in range(3):
        H = np.tanh(W @ H)   # W's cotangent is g @ H.T, a matrix product: added as before
    return np.sum(H ** 2)


rng = np.random.default_rng(11)
OUTER_CASES = {
    "non_square": (two_layers_shared, (rng.normal(size=(4, 3)), rng.normal(size=3)), (0, 1)),
    "recurrent": (recurrent, (0.5 * rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=4)), (0, 1, 2)),
    "a_transposed_weight": (recurrent, (np.asfortranarray(0.5 * rng.normal(size=(4, 4))), rng.normal(size=4),
                                        rng.normal(size=4)), (0,)),
    "batched": (batched, (0.5 * rng.normal(size=(3, 3)), rng.normal(size=(3, 5))), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(OUTER_CASES))
def test_outer_products_added_in_place_are_the_numpy_paths_and_central_differences(name):
    f, args, argnums = OUTER_CASES[name]
    compiled, plain = compiled_and_plain(f, args, argnums)
    for position, gradient, expected in zip(argnums, compiled, plain):
        np.testing.assert_allclose(gradient, expected, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(gradient, central(f, args, position), rtol=1e-6, atol=1e-8)


def test_the_compiled_code_adds_the_outer_product_in_place():
    from s2sad.transform import generated_source

    text = generated_source(recurrent, ("W",), "compiled")
    assert "dW = matmul_vjp_x1_into(dW, dW_matmul_h, W, h_before)" in [line.strip() for line in text.splitlines()]


# ---------------------------------------------------------------- the finiteness check, compiled
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_the_compiled_finiteness_check_finds_one_bad_element_anywhere(bad):
    """compiled._all_finite decides whether the compiled answer is given or the NumPy path's: a
    float64 array of any shape and order is read element by element (compiled), a float by
    ``x - x``; one inf or NaN anywhere makes it no."""
    from s2sad.compiled import _all_finite

    shapes = [(1,), (7,), (3, 5), (2, 3, 4)]
    for shape in shapes:
        for order in ("C", "F"):
            a = np.asarray(np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape), order=order)
            assert _all_finite(0.5, (a,)) and _all_finite(0.5, (a[..., ::2],))
            for position in {0, a.size // 2, a.size - 1}:
                b = a.copy(order=order)
                b.flat[position] = bad
                assert not _all_finite(0.5, (a, b)) and not _all_finite(0.5, (b[..., ::1],))
    assert not _all_finite(bad, (np.ones(3),)) and not _all_finite(1.0, (np.ones(3), bad))
    assert _all_finite(1.0, (np.ones(3), 2.0, np.ones((2, 2)).astype(np.float32)))
    assert not _all_finite(1.0, (np.array([1.0, bad], dtype=np.float32),))   # other dtypes: NumPy's check


# ---------------------------------------------------------------- a vector's sum, written out
def test_a_vectors_sum_written_out_gives_numbas_np_sum_bit_for_bit():
    """``numpy_sum`` of a float64 vector is a loop (compiled_helpers: cheaper to compile than
    Numba's np.sum, whose axis checks it skips): it must add as np.sum does in compiled code, from
    0.0 one element after another, whatever the magnitudes, -0.0s and infinities."""
    from s2sad.compiled_helpers import numpy_sum

    written_out = numba.njit(lambda a: numpy_sum(a))
    numbas = numba.njit(lambda a: np.sum(a))
    rng = np.random.default_rng(5)
    vectors = [rng.standard_normal(n) * rng.choice([1.0, 1e-9, 1e9], n) for n in (0, 1, 7, 8, 9, 31, 129, 300)]
    vectors += [-np.zeros(3), np.array([1e308, 1e308, -np.inf]), np.array([np.inf, -np.inf])]
    for v in vectors:
        assert np.float64(written_out(v)).tobytes() == np.float64(numbas(v)).tobytes()
        assert np.float64(written_out(v[::-1].copy())).tobytes() == np.float64(numbas(v[::-1].copy())).tobytes()
