"""The rrule for Python floats (s2sad/scalars.py decides, s2sad/generate.py writes it).

A function computing on real scalars only gets a second rrule, in plain arithmetic, that
its general rrule calls when the arguments are Python floats. Each is checked here against
central finite differences, against the general rrule (called with NumPy float scalars,
which do not take the float path), and for what it does not cover.
"""
import math

import numpy as np
import pytest

import s2sad
import scalar_programs as programs
from finite_differences import assert_gradients_match
from s2sad.transform import generated_rrule, transform

CASES = {
    "polynomial": (programs.polynomial, (0.7, 1.3), (0, 1)),
    "transcendental": (programs.transcendental, (0.4, 1.7), (0, 1)),
    "ufuncs_on_floats": (programs.ufuncs_on_floats, (0.9,), (0,)),
    "with_branches_then": (programs.with_branches, (1.5, 0.5), (0, 1)),
    "with_branches_else": (programs.with_branches, (0.2, 0.5), (0, 1)),
    "with_branches_negative": (programs.with_branches, (-0.2, 0.5), (0, 1)),
    "counted_loop": (programs.counted_loop, (0.6, 4), (0,)),
    "counted_loop_zero_trips": (programs.counted_loop, (0.6, 0), (0,)),
    "newton_sqrt": (programs.newton_sqrt, (7.0,), (0,)),
    "clipped": (programs.clipped, (0.3, 1.2), (0, 1)),
    "unused_and_constant": (programs.unused_and_constant, (0.3, 1.2), (0, 1)),
    "exponent_below_one": (programs.exponent_below_one, (1.3,), (0,)),
}


def wrt_of(function, argnums):
    names = function.__code__.co_varnames[:function.__code__.co_argcount]
    return tuple(names[i] for i in argnums)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_float_rrule_is_written_and_matches_finite_differences(name):
    function, args, argnums = CASES[name]
    source = transform(function, wrt_of(function, argnums)).source
    assert "_rrule_floats(" in source
    floats_part = source.split("for Python floats")[1]
    assert "unbroadcast" not in floats_part and "conj(" not in floats_part and "accumulate(" not in floats_part
    gradients = s2sad.grad(function, argnums=argnums)(*args)
    assert all(type(g) in (float, np.float64) for g in gradients)
    assert_gradients_match(function, list(args), argnums, gradients)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_float_rrule_agrees_with_the_general_one(name):
    function, args, argnums = CASES[name]
    rrule = generated_rrule(function, wrt_of(function, argnums))
    y_floats, pullback_floats = rrule(*args)
    # NumPy float scalars are not Python floats: the general rrule runs
    as_numpy = [np.float64(a) if type(a) is float else a for a in args]
    y_general, pullback_general = rrule(*as_numpy)
    assert y_floats == pytest.approx(float(y_general), rel=1e-15, abs=1e-15)
    for a, b in zip(pullback_floats(1.0)[1:], pullback_general(1.0)[1:]):
        if a is s2sad.ZERO or b is s2sad.ZERO:
            assert a is b or a == 0 or b == 0
        else:
            assert float(a) == pytest.approx(float(b), rel=1e-14, abs=1e-14)


def test_the_float_path_is_taken_only_for_python_floats():
    rrule = generated_rrule(programs.polynomial, ("x", "y"))
    module_globals = rrule.__globals__
    calls = []
    original = module_globals["polynomial_rrule_floats"]
    module_globals["polynomial_rrule_floats"] = lambda *a: calls.append(a) or original(*a)
    try:
        rrule(0.5, 2.0)
        rrule(np.float64(0.5), 2.0)
        rrule(np.array(0.5), 2.0)
        rrule(np.float32(0.5), np.float32(2.0))
        rrule(True, 2.0)
    finally:
        module_globals["polynomial_rrule_floats"] = original
    assert calls == [(0.5, 2.0)]


def test_an_int_or_float_counter_argument_takes_the_float_path_and_others_do_not():
    rrule = generated_rrule(programs.counted_loop, ("x",))
    source = transform(programs.counted_loop, ("x",)).source
    assert "if x.__class__ is float:" in source  # n only counts: whatever its type, no test for it
    assert rrule(0.6, 3)[1](1.0)[1] == pytest.approx(s2sad.grad(programs.counted_loop)(np.float64(0.6), 3))


def test_a_float32_or_array_argument_keeps_its_type_through_the_general_rrule():
    g32 = s2sad.grad(programs.polynomial)(np.float32(0.7), np.float32(1.3))
    assert isinstance(g32, np.float32)
    g = s2sad.grad(programs.polynomial)(np.array([0.7, 0.2]).sum(), 1.3)
    assert g == pytest.approx(s2sad.grad(programs.polynomial)(0.9, 1.3))


@pytest.mark.parametrize("function, wrt", [
    (programs.sums_an_array, ("x",)),
    (programs.sums_a_row, ("x",)),
    (programs.calls_another, ("x",)),
])
def test_no_float_rrule_where_a_value_may_not_be_a_scalar(function, wrt):
    assert "_rrule_floats" not in transform(function, wrt).source


def test_an_array_given_to_a_float_function_runs_the_general_rrule():
    x = np.array([0.3, 0.8])
    vjp_value, pullback = s2sad.vjp(programs.polynomial, x, 1.3)
    assert np.allclose(vjp_value, programs.polynomial(x, 1.3))
    dx, dy = pullback(np.ones(2))
    assert np.allclose(dx, 9.0 * x ** 2 - 2.0 * x / 1.3 + 1.3)
    assert dy == pytest.approx(np.sum(x ** 2 / 1.3 ** 2 + x))


def test_an_infinite_slope_keeps_the_general_rule():
    # x ** 0.5 at 0: the exponent is below 1, so power_vjp_base (with its guards) stays
    source = transform(programs.root_by_power, ("x",)).source
    assert "power_vjp_base" in source.split("for Python floats")[1]
    assert s2sad.grad(programs.root_by_power)(0.0) == math.inf


def test_a_1d_float_array_read_by_element_takes_the_float_path_and_a_list_does_not():
    source = transform(programs.reads_an_element, ("x", "ys")).source
    assert "ys.ndim == 1" in source.split("\n\n\ndef", 2)[1]
    ys = np.array([0.4, -1.1, 2.0])
    for given in (ys, list(ys), ys.astype(np.float32), ys.reshape(3, 1)[:, 0]):
        dx, dys = s2sad.grad(programs.reads_an_element, argnums=(0, 1))(0.7, given)
        assert dx == pytest.approx(0.4)
        np.testing.assert_allclose([float(dys[k]) for k in range(3)], [0.7, -2.2, 0.0], rtol=1e-6)
        if isinstance(given, np.ndarray):
            assert dys.dtype == given.dtype and dys.shape == (3,)


def test_mysum_keeps_no_tape_and_adds_in_place():
    import loop_programs

    source = transform(loop_programs.mysum, ("x",)).source
    floats = source.split("for Python floats")[1]
    assert "_tape" not in floats and "for i in reversed(range_len_x):" in floats and "add_at(dx, dx_i, i, x)" in floats
    x = np.random.default_rng(1).standard_normal(50)
    np.testing.assert_array_equal(s2sad.grad(loop_programs.mysum)(x), np.ones(50))


def test_grad_of_floats_runs_the_fused_gradient_and_agrees_with_the_pullback():
    rrule = generated_rrule(programs.transcendental, ("x", "y"))
    fused = rrule.__globals__["GRADIENT_FOR_FLOATS"]
    value, cotangents = fused(0.4, 1.7)
    y, pullback = rrule(0.4, 1.7)
    assert value == y and cotangents == pullback(1.0)
    assert fused(np.float64(0.4), 1.7) is None            # not floats: the caller takes the rrule
    calls = []
    rrule.__globals__["GRADIENT_FOR_FLOATS"] = lambda *a: calls.append(a) or fused(*a)
    try:
        g = s2sad.grad(programs.transcendental, argnums=(0, 1))
        first, second = g(0.4, 1.7), g(0.4, 1.7)
    finally:
        rrule.__globals__["GRADIENT_FOR_FLOATS"] = fused
    assert first == second == cotangents[1:]
    assert len(calls) == 1                                 # the first call takes the long way, then the lane


def test_no_fused_gradient_for_a_function_with_a_loop():
    import loop_programs

    assert "GRADIENT_FOR_FLOATS" not in transform(loop_programs.mysum, ("x",)).source
    assert "GRADIENT_FOR_FLOATS" in transform(programs.with_branches, ("x", "y")).source
