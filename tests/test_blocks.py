"""np.sum of an elementwise expression, differentiated block by block (issue 19: large elementwise
chains). The analysis says which functions are such sums; the blocked gradient is checked against
central differences of the plain function and against the gradient computed whole."""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from s2sad.analysis.elementwise import elementwise_sum
from s2sad.frontend.normalize import normalize
from s2sad.frontend.source import read_function
from s2sad.runtime import blocks

OFFSET = np.linspace(0.0, 1.0, 5)


# ---------------------------------------------------------------- which functions are such sums
def sin_cos(x):
    return np.sum(np.sin(x) * np.cos(x) + x ** 2)


def weighted(x, y, a):
    return np.sum(a * np.tanh(x - 0.5 * y) + np.exp(-y * y) / (1.0 + x * x))


def clipped(x):
    return np.sum(np.maximum(x, 0.1) * np.log1p(np.abs(x)))


def with_matmul(x):
    return np.sum(np.tanh(x @ x.T))


def summed_twice(x):
    return np.sum(x ** 2) + np.sum(np.sin(x))


def over_an_axis(x):
    return np.sum(np.sin(x), axis=0)


def normalised(x):
    return np.sum(x / np.sum(x))


def reads_a_global(x):
    return np.sum(x * OFFSET)


def indexed(x):
    return np.sum(x[1:] * x[:-1])


def by_method(x):
    return (x ** 2).sum()


def looped(x):
    for _ in range(3):
        x = np.sin(x)
    return np.sum(x)


def branched(x, sign):
    if sign > 0:
        x = -x
    return np.sum(np.exp(x))


@pytest.mark.parametrize("f, expected", [
    (sin_cos, True), (weighted, True), (clipped, True),
    (with_matmul, False), (summed_twice, False), (over_an_axis, False), (normalised, False),
    (reads_a_global, False), (indexed, False), (by_method, False), (looped, False), (branched, False),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_which_functions_are_sums_of_elementwise_expressions(f, expected):
    assert elementwise_sum(normalize(read_function(f))) is expected


# ---------------------------------------------------------------- the blocked gradient
@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 elements from 256 on, so that a test's arrays are cut in many (the last short)."""
    monkeypatch.setattr(blocks, "BLOCK", 64)
    monkeypatch.setattr(blocks, "SMALLEST", 256)
    calls = []
    original = blocks.in_blocks

    def counted(rrule, args):
        done = original(rrule, args)
        calls.append(done is not None)
        return done
    monkeypatch.setattr(blocks, "in_blocks", counted)
    return calls


rng = np.random.default_rng(3)


@pytest.mark.parametrize("f, args, argnums", [
    (sin_cos, (rng.normal(size=300),), 0),
    (sin_cos, (rng.normal(size=(17, 19)),), 0),
    (weighted, (rng.normal(size=(9, 40)), rng.normal(size=(9, 40)), 0.7), (0, 1, 2)),
    (clipped, (rng.normal(size=333),), 0),
], ids=["1d", "2d", "two_arrays_and_a_float", "maximum"])
def test_the_blocked_gradient_is_central_differences_and_the_whole_ones(small_blocks, f, args, argnums):
    value_and_gradient = s2sad.value_and_grad(f, argnums=argnums)
    first_value, first = value_and_gradient(*args)      # the first call, block by block (api._run)
    blocked_value, blocked = value_and_gradient(*args)  # later calls, the same way (the call's lane)
    assert small_blocks == [True, True]
    smallest = blocks.SMALLEST
    blocks.SMALLEST = 10 ** 18  # computed whole, for comparison
    try:
        value, gradient = s2sad.value_and_grad(f, argnums=argnums)(*args)
    finally:
        blocks.SMALLEST = smallest
    np.testing.assert_allclose(first_value, blocked_value, rtol=1e-15)
    np.testing.assert_allclose(_flat(first), _flat(blocked), rtol=1e-15)
    np.testing.assert_allclose(blocked_value, value, rtol=1e-13)
    np.testing.assert_allclose(blocked_value, f(*args), rtol=1e-13)
    positions = argnums if isinstance(argnums, tuple) else (argnums,)
    gradients = blocked if isinstance(argnums, tuple) else (blocked,)
    wholes = gradient if isinstance(argnums, tuple) else (gradient,)
    for position, g, w in zip(positions, gradients, wholes):
        assert type(g) is type(w) and np.shape(g) == np.shape(args[position])
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(g, central(f, args, position), rtol=1e-6, atol=1e-6)  # a sum of many: FD rounding


def test_float32_stays_float32(small_blocks):
    x = rng.normal(size=500).astype(np.float32)
    grad = s2sad.grad(sin_cos)
    first, second = grad(x), grad(x)
    assert small_blocks == [True, True] and second.dtype == np.float32
    np.testing.assert_allclose(second, first, rtol=1e-6)
    np.testing.assert_allclose(second, np.cos(2 * x.astype(np.float64)) + 2 * x, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("args", [
    (rng.normal(size=(40, 30))[:, ::2], rng.normal(size=(40, 15)), 0.5),   # a strided view
    (rng.normal(size=(40, 30)), rng.normal(size=(1, 30)), 0.5),            # broadcasting
    (rng.normal(size=100), rng.normal(size=100), 0.5),                     # too few elements
], ids=["strided", "broadcast", "small"])
def test_what_it_does_not_serve_is_computed_whole(small_blocks, args):
    grad = s2sad.grad(weighted, argnums=(0, 1, 2))
    grad(*args)
    gradients = grad(*args)
    # never in blocks (a typed version, when these arguments have one, serves the second call before blocks are asked)
    assert small_blocks in ([False], [False, False])
    for position in range(3):
        np.testing.assert_allclose(gradients[position], central(weighted, args, position), rtol=1e-6, atol=1e-6)


def test_a_nan_gradient_of_a_finite_value_is_still_refused(small_blocks):
    """Block by block, the API's checks still see the whole gradient."""
    def steep(x):
        return np.sum(0.0 * np.sqrt(x) + x)   # sqrt's slope at 0 is infinite: 0 * inf in one block

    x = np.abs(rng.normal(size=400))
    x[390] = 0.0
    grad = s2sad.grad(steep)
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            expected = grad(x)
        except s2sad.S2SADError as error:
            with pytest.raises(type(error)):
                grad(x)
            return
        np.testing.assert_array_equal(grad(x), expected)


def test_compile_true_takes_one_pass_for_large_arrays(small_blocks):
    """compile=True computes large float64 arrays of such a sum in one pass over the elements
    (tests/test_compiled_elementwise.py), not block by block; small ones whole."""
    pytest.importorskip("numba")
    import warnings

    x = rng.normal(size=700)
    grad = s2sad.grad(sin_cos, compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        np.testing.assert_allclose(grad(x[:100]), np.cos(2 * x[:100]) + 2 * x[:100], rtol=1e-12)  # compiled
        np.testing.assert_allclose(grad(x), np.cos(2 * x) + 2 * x, rtol=1e-12)
    assert small_blocks == []


def _flat(gradients):
    return np.concatenate([np.ravel(g) for g in (gradients if isinstance(gradients, tuple) else (gradients,))])


def test_a_vjp_of_another_cotangent_is_scaled(small_blocks):
    """The first call's pullback, block by block for the seed 1.0, is linear in the seed."""
    x = rng.normal(size=300)
    value, pullback = s2sad.vjp(sin_cos, x)
    np.testing.assert_allclose(pullback(2.5)[0], 2.5 * (np.cos(2 * x) + 2 * x), rtol=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], np.cos(2 * x) + 2 * x, rtol=1e-12)
    assert small_blocks == [True]
