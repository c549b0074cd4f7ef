"""compile=True for the loops and scalars scientists write: accumulators (``s += x``, ``-=``, ``*=``,
``/=``, on a float, on an int counter, on a float parameter), ``enumerate`` over a vector read by
element, ints given for a number of steps, Python's ``min``/``max`` of two values, a ``return``
inside a loop, and ``math.atan2``/``hypot``/``fmod``/``cbrt``. Each compiled gradient (no fallback
warning) is checked against central differences of the plain function in float64 and against the
NumPy path within 1e-12; where compiled code cannot give what Python gives (an int literal in
``max``, an int that outgrows 64 bits, float32 values meeting Python floats, an int literal returned on
one path), the call runs on the NumPy path, with one warning saying why."""
import math
import warnings

import numpy as np
import pytest

import realistic_programs as p
import s2sad
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references, falls_back_naming

numba = pytest.importorskip("numba")

rng = np.random.default_rng(15)


# ---------------------------------------------------------------- programs of their own
def counted_mean_of_squares(x, n):
    """An int counter and a float total, both +=, from an int argument."""
    count = 0
    total = 0.0
    for i in range(n):
        count += 1
        total += (x + i) ** 2
    return total / count


def halving_and_dividing(x, y):
    """-=, *= and /= on floats, the value also multiplied by an int power counter."""
    s = x
    for k in range(1, 6):
        s -= 0.1 * y * k
        s *= 1.0 + 0.01 * x
        s /= 1.0 + 0.02 * y
    return s * y


def rescaled_argument(x, scale):
    """``scale *= ...`` on a float parameter: Python rebinds it (the caller's float is unchanged)."""
    for _ in range(4):
        scale *= 1.0 + 0.1 * x
        x += scale
    return x * scale


def first_over_threshold(x, threshold):
    """A return inside a loop over a vector read by element (and another after the loop)."""
    total = 0.0
    for value in x:
        total += value * value
        if total > threshold:
            return total * threshold
    return total


def first_over_threshold_of_arrays(w, x, threshold):
    """The same where each step is an array computation (the version for arrays)."""
    total = 0.0
    for i in range(x.shape[0]):
        total += np.sum(w * x[i]) ** 2
        if total > threshold:
            return total
    return total


def int_or_float_return(x, n):
    """Returns a float from inside the loop, the int 0 after it: two types on two paths."""
    for i in range(n):
        if x * i > 2.0:
            return x * i
    return 0


def ties(x, y):
    """Python's max and min of two equal values return the first: the gradient goes half to each."""
    return 2.0 * max(x, y) + 3.0 * min(y, x)


def clipped(x, lo, hi):
    return min(max(x, lo), hi) ** 2 + x


def smooth_max_of_sums(x, c):
    """max of a NumPy sum (a float to Numba) and a float: the version for arrays."""
    return max(np.sum(x ** 2), c) + np.sum(x)


def relu_with_an_int(x):
    return max(x, 0) * 2.0


def max_of_three(x, y):
    return max(x, y, 1.0)


def polar(x, y):
    r = math.hypot(x, y)
    theta = math.atan2(y, x)
    return r * math.cos(2.0 * theta) + math.fmod(x * 7.0, y) + math.cbrt(r + 1.0)


def fmod_of_a_large_quotient(x, y):
    """fmod's slope in its divisor is -trunc(x / y): here past 2**63, which a 64-bit int would not hold."""
    return math.fmod(x, y)


def int_powers(x, n):
    """``scale *= 3`` on an int: 3 ** 50 is past 2**63, where Numba's int wraps and Python's grows."""
    scale = 1
    for _ in range(n):
        scale *= 3
    return x * scale


CASES = {
    # the corpus's loop-and-scalar programs (tests/realistic_programs.py)
    "rk4_oscillator_energy": (p.rk4_oscillator_energy, (1.3, 0.7, -0.2), (0, 1, 2)),
    "euler_logistic_growth": (p.euler_logistic_growth, (0.8, 5.0, 0.4), (0, 1, 2)),
    "damped_spring_scalar": (p.damped_spring_scalar, (2.0, 0.3, 0.9), (0, 1, 2)),
    "newton_cube_root": (p.newton_cube_root, (2.7,), (0,)),
    "newton_cube_root_not_converged": (p.newton_cube_root, (2.7, 1.0, 1e-12, 3), (0, 1)),
    "horner_polynomial": (p.horner_polynomial, (rng.normal(size=5), 0.6), (0, 1)),
    "logistic_map_average": (p.logistic_map_average, (3.2, 0.3), (0, 1)),
    "welford_variance": (p.welford_variance, (rng.normal(size=7), 0.4), (0, 1)),
    "projectile_range_with_drag": (p.projectile_range_with_drag, (12.0, 0.7, 0.02), (0, 1, 2)),
    "wrapped_pendulum_phase": (p.wrapped_pendulum_phase, (0.4, 2.5, 0.05), (0, 1, 2)),
    "clipped_gradient_descent": (p.clipped_gradient_descent, (2.5, 0.3), (0, 1)),
    "discounted_cash_flow": (p.discounted_cash_flow, (0.05, 0.02, 100.0), (0, 1, 2)),
    "trapezoid_gaussian_integral": (p.trapezoid_gaussian_integral, (0.9, 0.2), (0, 1)),
    "soft_threshold_path": (p.soft_threshold_path, (1.4, 0.3), (0, 1)),
    "array_recurrence_with_accumulators": (p.array_recurrence_with_accumulators,
                                           (rng.normal(size=3), rng.normal(size=(6, 3))), (0, 1)),
    # accumulators
    "int_counter_and_int_steps": (counted_mean_of_squares, (0.7, 6), (0,)),
    "minus_times_divide_equals": (halving_and_dividing, (0.7, 1.3), (0, 1)),
    "in_place_on_a_float_parameter": (rescaled_argument, (0.3, 1.2), (0, 1)),
    # early returns
    "return_in_a_loop_taken": (first_over_threshold, (np.array([0.5, 0.9, 1.2, 0.3]), 1.0), (0, 1)),
    "return_in_a_loop_not_taken": (first_over_threshold, (np.array([0.5, 0.2, 0.1]), 10.0), (0, 1)),
    "return_in_a_loop_of_arrays": (first_over_threshold_of_arrays,
                                   (np.array([0.3, 0.5]), rng.normal(size=(4, 2)), 0.3), (0, 1, 2)),
    # min and max of two values
    "clipped_inside": (clipped, (0.3, -0.5, 0.5), (0, 1, 2)),
    "clipped_below": (clipped, (-0.8, -0.5, 0.5), (0, 1, 2)),
    "clipped_above": (clipped, (0.9, -0.5, 0.5), (0, 1, 2)),
    "max_of_a_numpy_sum": (smooth_max_of_sums, (np.array([1.3, -1.2]), 1.5), (0, 1)),
    "max_of_a_numpy_sum_the_float_wins": (smooth_max_of_sums, (np.array([0.3, -0.2]), 1.5), (0, 1)),
    # math
    "atan2_hypot_fmod_cbrt": (polar, (0.8, 0.6), (0, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_loop_and_scalar_gradient_compiles_and_is_central_differences_and_the_numpy_paths(name):
    compiled_against_references(*CASES[name])


def test_a_tie_in_max_and_min_gives_half_the_gradient_to_each_value():
    # max(1.5, 1.5) and min(y, x) each send half to x and half to y: d/dx = d/dy = 2.5, the mean of the
    # slopes either side, (2, 3) and (3, 2), which central differences give
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradient = s2sad.value_and_grad(ties, argnums=(0, 1), compile=True)(1.5, 1.5)
    assert value == 7.5 and gradient == (2.5, 2.5)
    assert s2sad.grad(ties, argnums=(0, 1))(1.5, 1.5) == (2.5, 2.5)


def test_max_of_signed_zeros_is_the_first_as_python_gives_it():
    def signed(x, y):
        return math.copysign(1.0, max(x * 0.0, -x * 0.0)) * x

    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradient = s2sad.value_and_grad(signed, compile=True)(2.0, 1.0)
    assert value == signed(2.0, 1.0) == 2.0 and gradient == 1.0


def test_an_int_literal_in_max_falls_back_saying_to_write_a_float():
    message = falls_back_naming(relu_with_an_int, (1.5,), 0, "returns the int 0")
    assert "0.0" in message
    assert s2sad.grad(relu_with_an_int, compile=True)(-1.5) == 0.0


def test_max_of_three_values_falls_back():
    falls_back_naming(max_of_three, (1.5, 0.5), 0, "max and min of two values")


def test_an_int_accumulator_past_64_bits_falls_back():
    message = falls_back_naming(int_powers, (1.5, 50), 0, "multiplies integers")
    assert "64 bits" in message
    assert s2sad.grad(int_powers, compile=True)(1.5, 50) == float(3 ** 50)


def test_an_int_returned_on_one_path_falls_back():
    # Python returns the int 0 after the loop, a float from inside it: compiled code would return 0.0
    falls_back_naming(int_or_float_return, (1.5, 5), 0, "may return the int 0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        value, gradient = s2sad.value_and_grad(int_or_float_return, compile=True)(0.1, 5)
    assert value == 0 and type(value) is int and gradient == 0.0


def test_fmods_slope_in_a_divisor_past_64_bit_quotients_is_pythons():
    args = (7.3e30, 2.1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(fmod_of_a_large_quotient, argnums=(0, 1), compile=True)(*args)
    assert gradient == s2sad.grad(fmod_of_a_large_quotient, argnums=(0, 1))(*args)
    assert gradient[0] == 1.0 and gradient[1] == -float(math.trunc(args[0] / args[1]))


def test_in_place_on_an_array_argument_is_refused_as_on_the_numpy_path():
    def changes_its_argument(x):
        x += 1.0
        return np.sum(x ** 2)

    with pytest.raises(s2sad.S2SADError, match="in place"):
        s2sad.grad(changes_its_argument)(np.ones(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(s2sad.S2SADError, match="in place"):
            s2sad.grad(changes_its_argument, compile=True)(np.ones(3))


@pytest.mark.parametrize("f, args, argnums", [
    (p.horner_polynomial, (np.arange(1, 5, dtype=np.float32), 0.6), (0,)),
    (p.welford_variance, (np.arange(1, 5, dtype=np.float32), 0.4), (0, 1)),
], ids=["horner", "welford"])
def test_float32_elements_meeting_python_floats_take_the_numpy_path_and_stay_float32(f, args, argnums):
    # NumPy makes float32 + a Python float a float32 (NEP 50); Numba's code would compute in float64
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradients = s2sad.grad(f, argnums=argnums, compile=True)(*args)
    assert any("float32" in str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning))
    assert gradients[0].dtype == np.float32
    plain = s2sad.grad(f, argnums=argnums)(*args)
    for gradient, theirs in zip(gradients, plain):
        np.testing.assert_array_equal(gradient, theirs)
    wide = tuple(a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args)
    np.testing.assert_allclose(gradients[0], central(f, wide, 0), rtol=1e-3, atol=1e-4)


def filtered_residuals(log_q, observations):
    q = math.exp(log_q)
    total, mean = 0.0, 0.0
    for y in observations:
        total += (y - mean) ** 2 / q
        mean = 0.5 * (mean + y)
    return total


@pytest.mark.parametrize("observations", [[0.3, -1.2, 0.8], list(np.array([0.3, -1.2, 0.8]))])
def test_a_list_of_floats_read_by_element_compiles(observations):
    """A list of Python floats (or of float64 scalars, as ``list(array)`` gives) that a vector parameter
    read by element is given, not differentiated: the float64 array of them, the same numbers (before,
    the call was not served: kalman_filter_scalar_loop of the corpus)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(filtered_residuals, compile=True)(0.4, observations)
    assert gradient == s2sad.grad(filtered_residuals)(0.4, observations)
    np.testing.assert_allclose(gradient, central(filtered_residuals, [0.4, observations], 0), rtol=1e-7)


def test_a_list_of_floats_differentiated_is_the_numpy_paths():
    """Its gradient is a list on the NumPy path: such calls are not served."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(filtered_residuals, argnums=(0, 1), compile=True)(0.4, [0.3, -1.2])
    assert any("does not serve" in str(w.message) for w in caught)
    assert type(gradient[1]) is list
