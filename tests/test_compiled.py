"""compile=True: gradients of functions of Python floats compiled by Numba (issue 19, first
part), against central finite differences and against the NumPy path; every other call falls
back to the NumPy path with one CompiledFallbackWarning naming why."""
import math
import warnings

import numpy as np
import pytest

import s2sad

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- the functions
def scalar20(x, y):
    a = math.sin(x) * y + x ** 2 / y
    b = math.exp(-x * y) + math.cos(a) * math.tanh(y)
    c = math.log(1.0 + a * a) - math.sqrt(1.0 + b * b)
    return a * b + c / (2.0 + math.atan(x))


def spring(k, x0, v0):
    x = x0
    v = v0
    for _ in range(50):
        a = -k * x - 0.1 * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return x * x + v


def branchy(x):
    total = 0.0
    for i in range(6):
        if x > 0.5:
            total = total + math.sin(x * i)
        else:
            total = total - x ** 3
        x = 0.9 * x + 0.05
    return total


def mysum_scalar(x):
    s = 0.0
    i = 0
    while i < 100:
        s = s + x * i
        i = i + 1
    return s * x


def powers_its_counter(x):
    total = 0.0
    for i in range(7000):
        total = total + i * i * i * i * i * x * 1e-20   # i ** 5 passes 2**63 as a 64-bit integer
    return total


def helper(v):
    return v * v


def scaled_by_options(v, **options):
    return v * options["scale"]


def calls_a_helper_by_keyword(x):
    return scaled_by_options(x, scale=3.0) + 1.0   # **options: the NumPy path binds it


def of_an_array(x):
    return np.sum(np.sort(x) ** 2)   # sort's rule calls a function of its own: not compiled


def steep(x):
    return 0.0 * math.sqrt(x) + x   # at 0: an infinite slope times a zero cotangent


def central(f, args, position, h=1e-6):
    up, down = list(args), list(args)
    up[position] += h
    down[position] -= h
    return (f(*up) - f(*down)) / (2 * h)


CASES = [(scalar20, (0.7, 1.3), (0, 1)), (spring, (2.0, 1.0, 0.5), (0, 1, 2)), (branchy, (0.8,), (0,)),
         (branchy, (0.3,), (0,)), (mysum_scalar, (0.4,), (0,))]


@pytest.mark.parametrize("f, args, argnums", CASES, ids=lambda case: getattr(case, "__name__", None))
def test_a_compiled_gradient_is_the_numpy_paths_and_central_differences(f, args, argnums):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # these compile
        value, gradients = s2sad.value_and_grad(f, argnums=argnums, compile=True)(*args)
    plain_value, plain_gradients = s2sad.value_and_grad(f, argnums=argnums)(*args)
    assert type(value) is float and all(type(g) is float for g in gradients)
    assert value == f(*args)
    np.testing.assert_allclose(gradients, plain_gradients, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gradients, [central(f, args, p) for p in argnums], rtol=1e-6, atol=1e-8)


def test_grad_with_an_int_argnums_gives_one_float():
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(scalar20, compile=True)(0.7, 1.3)
    assert type(gradient) is float
    np.testing.assert_allclose(gradient, central(scalar20, (0.7, 1.3), 0), rtol=1e-6)


def scaled_by_a_large_power(x):
    return x * 3 ** 45 * 1e-20   # 3 ** 45 wraps as a 64-bit integer


@pytest.mark.parametrize("f, args, why", [
    (of_an_array, (np.array([1.0, 2.0]),), "sort_vjp_a"),
    (calls_a_helper_by_keyword, (0.5,), "**options"),   # other keyword calls compile (test_compiled_calls.py)
    (scaled_by_a_large_power, (0.5,), "64-bit"),
])
def test_what_does_not_compile_runs_the_numpy_path_with_one_warning(f, args, why):
    compiled = s2sad.grad(f, compile=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = compiled(*args)
        second = compiled(*args)
    said = [w for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(said) == 1 and why in str(said[0].message)
    np.testing.assert_allclose(first, s2sad.grad(f)(*args))
    np.testing.assert_allclose(second, first)


def test_a_zero_cotangent_times_an_infinite_slope_is_zero_as_on_the_numpy_path():
    """safe_divide's convention (sqrt's slope at 0 is infinite; times 0 it is 0), written inline
    for Numba: the same 1.0 both ways, where plain arithmetic would give NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        assert s2sad.grad(steep, compile=True)(0.0) == s2sad.grad(steep)(0.0) == 1.0


def test_without_numba_the_numpy_path_runs_and_says_so(monkeypatch):
    import sys

    from s2sad import compiled

    def quadratic(x):
        return x * x + 3.0 * x

    monkeypatch.setitem(sys.modules, "numba", None)  # import numba raises ImportError
    monkeypatch.setattr(compiled, "_dispatchers", {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert s2sad.grad(quadratic, compile=True)(2.0) == 7.0
    assert any("Numba is not installed" in str(w.message) for w in caught)


def test_integer_products_are_not_trusted_to_numba():
    """Numba's integers are 64-bit: i ** 5 wraps past 2**63 (i > 6,300) where Python's grows.
    A compiled version whose typed code multiplies integers is dropped: the NumPy path answers,
    and says so."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(powers_its_counter, compile=True)(0.5)
    expected = sum(i ** 5 for i in range(7000)) * 1e-20
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)
    assert any("multiplies integers" in str(w.message) for w in caught)


def doubled_count(x, n):
    return x * (2 * n) + x * x


def test_an_int_argument_times_a_literal_is_trusted():
    """``2 * n`` of an int argument (served below 2**31) is below 2**62: compiled, where it fell back
    before (``2 * n * n`` stays refused: a product's product, bounded_integers.py)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        assert s2sad.grad(doubled_count, compile=True)(1.5, 3) == 9.0


def four_times_a_dimension(w, x):
    total = x.shape[0] + x.shape[0] + x.shape[0] + x.shape[0]
    n = np.zeros((0, total)).shape[1]
    return w * (4 * n)


def test_an_array_s_dimension_times_a_literal_is_not_trusted():
    """NumPy makes no array whose nonzero dimensions times its itemsize pass 2**63 - 1, but Numba
    makes ``np.zeros((0, 2**61))``: ``4 * n`` of such a dimension wrapped to -2**63 (a gradient of
    -9.2e18, where the NumPy path raises NumPy's ValueError) when session 22 tried trusting a float
    array's dimension times 4 (for an LSTM's ``2 * n``). The NumPy path answers."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="array is too big"):
            s2sad.grad(four_times_a_dimension, compile=True)(1.5, np.empty((2 ** 59, 0)))
    assert any("multiplies integers" in str(w.message) for w in caught)


def scaled_by(x, n):
    return math.sin(x) * n


def test_an_int_for_a_number_it_does_not_differentiate_compiles_and_other_ints_run_the_numpy_path():
    compiled = s2sad.grad(scaled_by, compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        np.testing.assert_allclose(compiled(0.5, 3.0), 3.0 * math.cos(0.5), rtol=1e-15)  # floats: compiled
        # an int number of steps or scale (float * int is the float Numba computes too)
        np.testing.assert_allclose(compiled(0.5, 3), 3 * math.cos(0.5), rtol=1e-15)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_allclose(compiled(0.5, 2 ** 40), 2 ** 40 * math.cos(0.5), rtol=1e-15)  # past 2**31
    assert any("past 2**31" in str(w.message) for w in caught)


def mysum(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i] * x[i] * math.sin(x[i])
    return total


def weighted_by_element(w, x):
    total = 0.0
    for i in range(len(x)):
        total = total + math.tanh(w * x[i])
    return total


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_1d_array_read_by_element_compiles(dtype):
    """``x[i]`` in a loop over a 1-d float array: the cotangent is ``np.zeros_like(x)`` and
    ``dx[i] += g`` (the NumPy path's add_at), compiled. Not for float32: ``math.sin`` of a float32
    item is a float64 in Python and a float32 to Numba, and ``0.0 + x[i]`` a float32 in NumPy and a
    float64 to Numba (s2sad/compiled_float32.py): those calls take the NumPy path, its numbers."""
    x = np.linspace(-1.0, 2.0, 7).astype(dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(mysum, compile=True)(x)
        dw, dx = s2sad.grad(weighted_by_element, argnums=(0, 1), compile=True)(0.7, x)
    fallbacks = [w for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(fallbacks) == (2 if dtype is np.float32 else 0), [str(w.message) for w in fallbacks]
    plain = s2sad.grad(mysum)(x)
    assert gradient.dtype == plain.dtype and gradient.shape == x.shape
    np.testing.assert_allclose(gradient, plain, rtol=0 if dtype is np.float32 else 1e-14)
    wide = x.astype(np.float64)
    np.testing.assert_allclose(gradient, 2 * wide * np.sin(wide) + wide ** 2 * np.cos(wide), rtol=1e-5)
    np.testing.assert_allclose(dw, np.sum(wide / np.cosh(0.7 * wide) ** 2), rtol=1e-5)
    np.testing.assert_allclose(dx, 0.7 / np.cosh(0.7 * wide) ** 2, rtol=1e-5)
    assert not np.shares_memory(gradient, x)


# ---------------------------------------------------------------- every float program, both modes
def _float_programs():
    from test_scalars import CASES as SCALAR_CASES

    return sorted(SCALAR_CASES.items())


@pytest.mark.parametrize("name, case", _float_programs(), ids=[name for name, _ in _float_programs()])
def test_every_float_program_gives_the_same_gradient_compiled(name, case):
    """tests/test_scalars.py's programs (branches, loops, Newton's method, clipping, an exponent
    below one at its edge) in both modes: compiled where it compiles, the same numbers."""
    function, args, argnums = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)  # an int argument: the NumPy path
        value, gradients = s2sad.value_and_grad(function, argnums=argnums, compile=True)(*args)
    plain_value, plain_gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert value == pytest.approx(plain_value, rel=1e-14, abs=1e-300)
    np.testing.assert_allclose(np.asarray(gradients, dtype=float), np.asarray(plain_gradients, dtype=float),
                               rtol=1e-13, atol=1e-300)


def spring_of_pairs(k, x0, v0):
    x, v = x0, v0
    for _ in range(50):
        a = -k * x - 0.1 * v
        x, v = x + 0.01 * v, v + 0.01 * a   # both right-hand sides first, as Python
    return x * x + v


def test_tuple_assignments_of_floats_compile():
    """``x, v = x + dt * v, v + dt * a`` binds each name to its own value, with no tuple made
    and taken apart, so a function of floats written with pairs compiles too."""
    args = (2.0, 1.0, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradients = s2sad.value_and_grad(spring_of_pairs, argnums=(0, 1, 2), compile=True)(*args)
    assert value == spring_of_pairs(*args)
    np.testing.assert_allclose(gradients, [central(spring_of_pairs, args, p) for p in range(3)], rtol=1e-6)


def test_a_function_that_does_not_compile_is_not_tried_again_on_every_call(monkeypatch):
    """The fallback is the NumPy path's cost: the generated code is asked for once per call shape
    (making it was tried, and refused, on every call: 1.2 ms a call)."""
    from s2sad import compiled

    asked = []
    original = compiled.generated_compiled
    monkeypatch.setattr(compiled, "generated_compiled", lambda *a: asked.append(a) or original(*a))
    gradient = s2sad.grad(of_an_array, compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        for _ in range(3):
            np.testing.assert_allclose(gradient(np.array([1.0, 2.0])), [2.0, 4.0])
    assert len(asked) == 1
