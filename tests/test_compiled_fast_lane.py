"""compile=True's fast lane (s2sad/compiled_lanes.py): a warm compiled gradient's calls of Python
floats and float64 arrays skip the first-call checks, and still notice a changed definition,
refuse what the long way refuses and fall back where it falls back.

Each test warms a gradient up (and checks that later calls do take the fast lane: the long way,
which starts by looking for objects among the arguments, is not run), then makes a call the
fast lane must not answer as before. Gradients are checked against hand-derived formulas or
central differences; where the answer is the NumPy path's (an inf, an error), against that.
"""
import math
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import compiled
from s2sad.runtime import blocks
from finite_differences import numerical_gradient as central
from test_staleness import modules  # noqa: F401  (the fixture: user modules in files of their own)
from test_lane_staleness import python_frames_of

numba = pytest.importorskip("numba")

X, Y = 0.7, 1.3
W = np.array([0.3, -0.8, 1.4, 0.05])


@pytest.fixture()
def long_way_calls(monkeypatch):
    """How many calls took compiled_f's long way (each starts with objects_in) since the fixture was made."""
    calls = []
    found = compiled.objects_in

    def counted(args):
        calls.append(args)
        return found(args)

    monkeypatch.setattr(compiled, "objects_in", counted)
    return calls


def warm(gradient, *args):
    """Two calls with no fallback: the first takes the long way and makes the fast lane, the second takes it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient(*args)
        return gradient(*args)


def assert_fast(gradient, args, long_way_calls):
    before = len(long_way_calls)
    answer = gradient(*args)
    assert len(long_way_calls) == before, "a warm call took the long way: the fast lane is not what is tested"
    return answer


def assert_long(gradient, args, long_way_calls):
    before = len(long_way_calls)
    answer = gradient(*args)
    assert len(long_way_calls) == before + 1, "the fast lane answered a call it must not serve"
    return answer


# ---------------------------------------------------------------------- taken when warm
def product(x, y):
    return math.sin(x) * y + x ** 2 / y


def squares(w):
    return np.sum(np.tanh(2.0 * w + 1.0) ** 2)


def squares_by_hand(w):
    t = np.tanh(2.0 * w + 1.0)
    return 4.0 * t * (1.0 - t ** 2)


def test_floats_take_the_fast_lane_when_warm(long_way_calls):
    gradient = s2sad.grad(product, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    dx, dy = assert_fast(gradient, (0.2, 2.5), long_way_calls)
    assert type(dx) is float and type(dy) is float
    np.testing.assert_allclose((dx, dy), (math.cos(0.2) * 2.5 + 2 * 0.2 / 2.5, math.sin(0.2) - 0.2 ** 2 / 2.5 ** 2),
                               rtol=1e-14)


def test_value_and_grad_of_an_array_takes_the_fast_lane_when_warm(long_way_calls):
    gradient = s2sad.value_and_grad(squares, compile=True)
    warm(gradient, W)
    w = np.linspace(-1.0, 1.0, 7)
    value, dw = assert_fast(gradient, (w,), long_way_calls)
    np.testing.assert_allclose(value, squares(w), rtol=1e-14)
    np.testing.assert_allclose(dw, squares_by_hand(w), rtol=1e-12, atol=1e-14)
    assert dw.dtype == np.float64 and dw.shape == w.shape


# ---------------------------------------------------------------------- a changed definition is noticed
FLOATS = """
    import math

    def helper(x):
        return x ** 2

    def cube(x):
        return x ** 3

    def k(x, y):
        return helper(x) * y

    def g(x, y, a=2.0):
        return a * x * y
"""


def test_a_global_rebound_between_two_fast_calls_is_noticed(modules, long_way_calls):
    """(A global the compiled code reads is a function of the user's: a float global is not compiled.)"""
    m = modules(FLOATS)
    gradient = s2sad.grad(m.k, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (2 * X * Y, X ** 2), rtol=1e-14)
    m.helper = m.cube
    np.testing.assert_allclose(gradient(X, Y), (3 * X ** 2 * Y, X ** 3), rtol=1e-14)
    # the lane made again for the new definition is fast, and right
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (3 * X ** 2 * Y, X ** 3), rtol=1e-14)


def test_a_redefined_helper_between_two_fast_calls_is_noticed(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.k, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (2 * X * Y, X ** 2), rtol=1e-14)
    modules.more(m, """
        def helper(x):
            return x ** 3
    """)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        np.testing.assert_allclose(gradient(X, Y), (3 * X ** 2 * Y, X ** 3), rtol=1e-14)


def test_a_redefined_function_and_a_changed_default_are_noticed(modules, long_way_calls):
    m = modules(FLOATS)
    gradient = s2sad.grad(m.g, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (2.0 * Y, 2.0 * X), rtol=1e-14)
    m.g.__defaults__ = (7.0,)
    np.testing.assert_allclose(gradient(X, Y), (7.0 * Y, 7.0 * X), rtol=1e-14)
    modules.more(m, """
        def replacement(x, y, a=2.0):
            return a * x * x * y
    """)
    m.g.__code__ = m.replacement.__code__
    np.testing.assert_allclose(gradient(X, Y), (2 * 7.0 * X * Y, 7.0 * X * X), rtol=1e-14)


# ---------------------------------------------------------------------- what it must not answer
def exp_times(x, y):
    return math.exp(x) * y


def test_an_inf_after_fast_calls_is_the_numpy_paths_to_decide(long_way_calls):
    """Numba's exp overflows to inf where Python's math.exp raises: the NumPy path's error is the answer."""
    gradient = s2sad.grad(exp_times, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (math.exp(X) * Y, math.exp(X)),
                               rtol=1e-14)
    with pytest.raises(OverflowError):
        s2sad.grad(exp_times, argnums=(0, 1))(800.0, Y)
    with pytest.raises(OverflowError):
        gradient(800.0, Y)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (math.exp(X) * Y, math.exp(X)),
                               rtol=1e-14)


def array_exp(w):
    return np.sum(np.exp(w))


def test_an_inf_in_an_array_gradient_after_fast_calls_is_the_numpy_paths_answer(long_way_calls):
    """The NumPy path's np.exp overflows to inf with a RuntimeWarning: so does the compiled gradient's answer."""
    gradient = s2sad.grad(array_exp, compile=True)
    warm(gradient, W)
    big = np.array([1.0, 800.0])
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = assert_fast(gradient, (big,), long_way_calls)  # the fast lane hands the call to the NumPy path
    np.testing.assert_array_equal(got, [math.e, np.inf])
    np.testing.assert_allclose(assert_fast(gradient, (W,), long_way_calls), np.exp(W), rtol=1e-15)


def matrix_exp(W, v):
    return np.sum(np.exp(W) * v)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_matrix_gradient_on_the_fast_lane_is_checked_for_infs_too(long_way_calls, order):
    """The fast lane's finiteness test reads a matrix gradient as a vector (compiled._finite_elements
    has one version per dtype and layout): finite, the compiled answer; one inf anywhere, the NumPy
    path's."""
    W2 = np.asarray(np.array([[0.3, -0.8, 1.4], [0.05, 0.7, -1.2]]), order=order)
    v = np.array([1.5, -0.5, 2.0])
    gradient = s2sad.grad(matrix_exp, argnums=(0, 1), compile=True)
    warm(gradient, W2, v)
    dW, dv = assert_fast(gradient, (W2, v), long_way_calls)
    np.testing.assert_allclose(dW, np.exp(W2) * v, rtol=1e-14)
    np.testing.assert_allclose(dv, np.exp(W2).sum(axis=0), rtol=1e-14)
    np.testing.assert_allclose(dW, central(matrix_exp, (W2, v), 0), rtol=1e-6)
    big = W2.copy(order=order)
    big[1, 2] = 800.0
    with pytest.warns(RuntimeWarning, match="overflow"):
        dW, dv = assert_fast(gradient, (big, v), long_way_calls)  # handed to the NumPy path
    assert np.isinf(dW[1, 2]) and np.isfinite(np.delete(dW.ravel(), 5)).all() and np.isinf(dv[2])


def divided(x, y):
    return x / y


def test_a_division_by_zero_after_fast_calls_raises_as_python_does(long_way_calls):
    gradient = s2sad.grad(divided, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    with pytest.raises(ZeroDivisionError):
        gradient(X, 0.0)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls), (1 / Y, -X / Y ** 2), rtol=1e-14)


def checked(x):
    if x < 0.0:
        raise ValueError("x must not be negative")
    return x * x


def test_the_functions_own_error_after_fast_calls(long_way_calls):
    gradient = s2sad.grad(checked, compile=True)
    warm(gradient, X)
    with pytest.raises(ValueError, match="must not be negative"):
        gradient(-1.0)
    np.testing.assert_allclose(assert_fast(gradient, (X,), long_way_calls), 2 * X, rtol=1e-14)


def scaled_by(x, n):
    return math.sin(x) * n


def test_an_int_argument_after_float_calls_takes_the_long_way(long_way_calls):
    gradient = s2sad.grad(scaled_by, compile=True)
    warm(gradient, 0.5, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # (an int it does not differentiate compiles)
        np.testing.assert_allclose(assert_long(gradient, (0.5, 3), long_way_calls), 3 * math.cos(0.5), rtol=1e-15)
    np.testing.assert_allclose(assert_fast(gradient, (0.5, 3.0), long_way_calls), 3 * math.cos(0.5), rtol=1e-15)


def test_a_float32_call_after_float64_calls_takes_the_long_way(long_way_calls):
    gradient = s2sad.grad(squares, compile=True)
    warm(gradient, W)
    w32 = W.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        got = assert_long(gradient, (w32,), long_way_calls)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, squares_by_hand(W), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(assert_fast(gradient, (W,), long_way_calls), squares_by_hand(W), rtol=1e-12, atol=1e-14)


def test_other_arrays_after_fast_calls_take_the_long_way(long_way_calls):
    """Another rank, another dtype, a subclass, an array large enough for the NumPy path's blocks."""
    gradient = s2sad.grad(squares, compile=True)
    warm(gradient, W)
    M = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        np.testing.assert_allclose(assert_long(gradient, (M,), long_way_calls), squares_by_hand(M), rtol=1e-12, atol=1e-14)
        big = np.linspace(-1.0, 1.0, blocks.SMALLEST + 1)
        np.testing.assert_allclose(assert_long(gradient, (big,), long_way_calls), squares_by_hand(big), rtol=1e-12, atol=1e-14)
        masked = np.ma.masked_array(W, mask=[False, True, False, False])
        # (a masked array's sum passes over its masked entries: refused, tests/test_numpy_own_meanings.py)
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="MaskedArray"):
            gradient(masked)


def test_a_strided_view_after_fast_calls_is_right(long_way_calls):
    gradient = s2sad.grad(squares, compile=True)
    warm(gradient, W)
    wide = np.linspace(-1.0, 1.0, 10)
    view = wide[::2]
    np.testing.assert_allclose(gradient(view), squares_by_hand(view), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gradient(view), central(squares, (view.copy(),), 0), rtol=1e-6)


# ---------------------------------------------------------------------- unsharing
def weighted(w, v):
    return np.sum(w * v)


def summed(w, v):
    return np.sum(w + v)


def test_a_fast_gradient_is_never_an_arguments_memory(long_way_calls):
    """d/dw sum(w * v) is v: what is handed back is a copy the caller may change."""
    gradient = s2sad.grad(weighted, compile=True)
    v = np.array([1.0, 2.0, 3.0])
    warm(gradient, np.ones(3), v)
    dw = assert_fast(gradient, (np.zeros(3), v), long_way_calls)
    np.testing.assert_array_equal(dw, v)
    assert not np.shares_memory(dw, v)
    dw[0] = 99.0
    assert v[0] == 1.0


def test_two_fast_gradients_never_share_memory(long_way_calls):
    gradient = s2sad.grad(summed, argnums=(0, 1), compile=True)
    warm(gradient, np.ones(3), np.ones(3))
    dw, dv = assert_fast(gradient, (np.zeros(3), np.zeros(3)), long_way_calls)
    np.testing.assert_array_equal(dw, np.ones(3))
    np.testing.assert_array_equal(dv, np.ones(3))
    assert not np.shares_memory(dw, dv)


# ---------------------------------------------------------------------- defaults
def with_default(x, y, a=2.0):
    return a * math.sin(x) * y


WEIGHTS = np.array([1.0, 2.0, 3.0])


def weighted_by_default(w, v=WEIGHTS):
    return np.sum(w * v)


def test_a_parameter_left_to_its_default_in_the_fast_lane(long_way_calls):
    gradient = s2sad.value_and_grad(with_default, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    value, (dx, dy) = assert_fast(gradient, (0.3, 1.7), long_way_calls)
    np.testing.assert_allclose(value, 2.0 * math.sin(0.3) * 1.7, rtol=1e-15)
    np.testing.assert_allclose((dx, dy), (2.0 * math.cos(0.3) * 1.7, 2.0 * math.sin(0.3)), rtol=1e-15)


def test_a_fast_gradient_is_never_a_defaults_memory(long_way_calls):
    gradient = s2sad.grad(weighted_by_default, compile=True)
    warm(gradient, np.ones(3))
    dw = assert_fast(gradient, (np.zeros(3),), long_way_calls)
    np.testing.assert_array_equal(dw, [1.0, 2.0, 3.0])
    assert not np.shares_memory(dw, WEIGHTS)
    dw[0] = 99.0
    assert WEIGHTS[0] == 1.0


# ---------------------------------------------------------------------- the function compile=True returns runs the lane itself
def test_a_warm_compiled_call_is_one_python_frame(long_way_calls):
    """Once a fast lane is made, the function compile=True returns runs its test and body itself
    (compiled_lanes.warm_up): one Python frame around the machine code, where it was two."""
    gradient = s2sad.grad(product, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    frames, (dx, dy) = python_frames_of(lambda: gradient(0.2, 2.5))
    # (Numba's dispatcher tells a profiler of its machine code's call under the generated function's name)
    assert [name for name in frames if name != "product_grad_compiled"] == ["<lambda>", "compiled_f"]
    np.testing.assert_allclose((dx, dy), (math.cos(0.2) * 2.5 + 2 * 0.2 / 2.5, math.sin(0.2) - 0.2 ** 2 / 2.5 ** 2),
                               rtol=1e-14)
    assert_fast(gradient, (X, Y), long_way_calls)


def powered(x, n):
    return x * (n * n * n * n) * 1e-20   # n ** 4 of an int past 2**63: Numba's integers wrap


def test_a_lane_written_in_is_dropped_with_the_compiled_gradient(long_way_calls):
    """A call whose typed code is not trusted (an int's powers) drops the compiled gradient for calls
    with as many arguments: the float calls the entry ran itself take the long way (the NumPy path) too."""
    gradient = s2sad.grad(powered, compile=True)
    warm(gradient, X, 3.0)
    assert_fast(gradient, (X, 3.0), long_way_calls)
    n = 60_000   # (n ** 4 = 1.3e19 > 2**63)
    with pytest.warns(s2sad.CompiledFallbackWarning, match="multiplies integers"):
        assert gradient(X, n) == float(n) ** 4 * 1e-20
    assert assert_long(gradient, (X, 3.0), long_way_calls) == 81.0 * 1e-20


def spread(x, y):
    return 1.5e308 * x + 1.5e308 * y


def test_float_gradients_whose_sum_is_past_the_largest_float_are_still_right(long_way_calls):
    """The fast lane tests its floats' finiteness in one sum: 1.5e308 + 1.5e308 is inf, so the call is
    the NumPy path's, whose answer is the same finite gradient."""
    gradient = s2sad.grad(spread, argnums=(0, 1), compile=True)
    warm(gradient, 1e-300, 2e-300)
    assert assert_fast(gradient, (1e-300, -1e-300), long_way_calls) == (1.5e308, 1.5e308)


def test_a_warm_call_of_floats_runs_the_machine_code_without_numbas_dispatcher(long_way_calls):
    """Numba's dispatcher types each argument again on every call: the fast lane, having tested that
    each is a float, calls the version compiled for floats itself."""
    gradient = s2sad.grad(product, argnums=(0, 1), compile=True)
    warm(gradient, X, Y)
    lane, _ = gradient.__globals__["fast_lanes"][2]
    machine = lane.__s2sad_warm__.values["machine"]
    assert not isinstance(machine, numba.core.dispatcher.Dispatcher) and callable(machine)
    np.testing.assert_allclose(assert_fast(gradient, (X, Y), long_way_calls),
                               (math.cos(X) * Y + 2 * X / Y, math.sin(X) - X ** 2 / Y ** 2), rtol=1e-14)
