"""What loop tapes keep: loop invariants read where the primal left them, stand-ins for the
values a reverse iteration reads only for their type, shape and dtype (tape_contents.py).

Every gradient is checked against central finite differences; each program runs twice:
with stand-ins for every array (``STAND_IN_BYTES = 0``) and with the default threshold.
"""
import tracemalloc

import numpy as np
import pytest

import s2sad
import test_loops
from finite_differences import assert_gradients_match, numerical_gradient
from s2sad.analysis.tape_contents import loop_invariants, read_for_metadata
from s2sad.frontend.ir import Loop
from s2sad.frontend.normalize import normalize
from s2sad.frontend.source import read_function
from s2sad.rules import helpers
from s2sad.runtime.tangents import NO_TANGENT
from s2sad.transform import transform

rng = np.random.default_rng(19)


@pytest.fixture(params=["every array", "default threshold"])
def stand_ins(request, monkeypatch):
    if request.param == "every array":
        monkeypatch.setattr(helpers, "STAND_IN_BYTES", 0)
    return request.param


# ---------------------------------------------------------------- programs

def spring(x, v, k, steps=12):
    for step in range(steps):
        a = -k * x - 0.1 * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return np.sum(x ** 2)


def stretched(a, b):
    # a (3, 1) meets b (1, 4): the carried a is (3, 4) from the second iteration on
    for step in range(4):
        a = 0.9 * a + np.sin(b) * a
    return np.sum(a ** 2)


def in_float32(x, k):
    y = x.astype(np.float32)
    for step in range(5):
        y = y * np.float32(0.9) + np.tanh(y) * k
    return float(np.sum(y * y))


def through_complex(x, k):
    z = x * (1.0 + 2.0j)
    for step in range(4):
        z = z * (0.5 - 0.25j) + k * z
    return np.sum(np.abs(z) ** 2)


def zero_dimensional(x, k):
    y = np.array(x)
    for step in range(6):
        y = y + 0.1 * np.sin(y) * k
    return float(y)


def numpy_scalars(x, k):
    y = np.float64(x)
    s = np.float64(k)
    for step in range(6):
        y = y * np.cos(s) + 0.1 * y * y
    return y


def with_break(x, k):
    for step in range(10):
        t = -k
        x = x + 0.1 * t * x
        if np.sum(x) > 3.0:
            break
    return np.sum(x ** 2)


def nested(x, k):
    # c, invariant in both loops, read by the inner one's reverse where the primal left it
    for i in range(3):
        c = k * 2.0
        j = 0
        while j < 2:
            x = x - 0.05 * c * x + 0.01 * np.cos(x)
            j = j + 1
    return np.sum(x ** 2)


def inner_invariant_changes_outside(x, k):
    # c is the same at every inner iteration, not at every outer one
    for i in range(3):
        k = k * 1.5
        for j in range(2):
            c = -k
            x = x + 0.1 * c * x
    return np.sum(x ** 2)


def while_loop(x, k):
    step = 0
    while step < 5:
        t = k * k
        x = x * 0.9 + 0.1 * t * np.sin(x)
        step = step + 1
    return np.sum(x ** 2)


def invariant_operand_written_in_the_loop(x, k):
    k = k * 1.0  # an array of its own, written in place below
    for step in range(4):
        t = -k
        x = x + 0.1 * t * x
        k[0] = x[0]
    return np.sum(x ** 2)


def r(*shape):
    return rng.standard_normal(shape)


CASES = {
    "spring, scalar k and 4-element arrays": (spring, [r(4), r(4), 2.0], (0, 1, 2)),
    "spring, 600-element arrays (over the default threshold)": (spring, [r(600), r(600), 2.0], (2,)),
    "(3, 1) meets (1, 4)": (stretched, [r(3, 1), r(1, 4)], (0, 1)),
    "float32": (in_float32, [r(5), 0.3], (0, 1)),
    "complex": (through_complex, [r(4), 0.3], (0, 1)),
    "0-d array": (zero_dimensional, [0.7, 1.3], (0, 1)),
    "np.float64 scalars": (numpy_scalars, [0.4, 0.3], (0, 1)),
    "break": (with_break, [np.abs(r(3)), 1.5], (0, 1)),
    "nested": (nested, [r(4), 0.7], (0, 1)),
    "inner invariant, outer variant": (inner_invariant_changes_outside, [r(3), 0.4], (0, 1)),
    "while": (while_loop, [r(3), 0.8], (0, 1)),
    "invariant's operand written in the loop": (invariant_operand_written_in_the_loop, [r(3), r(3)], (0, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, stand_ins):
    function, args, argnums = CASES[name]
    rtol = 1e-3 if function is in_float32 else 1e-5
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args), rtol=rtol)
    if function is in_float32:  # float32 primal: the finite differences run in float64 (see numerical_gradient)
        for argnum, gradient in zip(argnums, gradients):
            assert np.asarray(gradient).dtype == np.float64  # the arguments are float64: so are their gradients
            np.testing.assert_allclose(gradient, numerical_gradient(function, args, argnum, eps=1e-3), rtol=2e-2, atol=1e-3)
        return
    assert_gradients_match(function, args, argnums, gradients, rtol=rtol)


def test_gradient_types_are_the_arguments(stand_ins):
    """A stand-in is treated as its value: float in, float out; a 0-d array and np.float64 keep theirs."""
    for function, args in [(spring, [r(4), r(4), 2.0]), (numpy_scalars, [0.4, 0.3])]:
        gradients = s2sad.grad(function, argnums=tuple(range(len(args))))(*args)
        for gradient, arg in zip(gradients, args):
            assert type(gradient) is type(arg) and np.shape(gradient) == np.shape(arg)


# ---------------------------------------------------------------- what the tape holds

def test_spring_tape_saves_the_position_and_stand_ins_only():
    source = transform(spring, ("x", "v", "k")).source
    push = [line.strip() for line in source.splitlines() if "step_tape.append(" in line]
    assert push == ["step_tape.append((stand_in_for(a), stand_in_for(neg_k_mul_x), stand_in_for(v_mul_0_1), "
                    "stand_in_for(a_mul_0_01), stand_in_for(v_2), stand_in_for(v_2_mul_0_01), stand_in_for(v), x) "
                    "if step_tape_stands_in else (a, neg_k_mul_x, v_mul_0_1, a_mul_0_01, v_2, v_2_mul_0_01, v, x))"]
    assert "neg_k," not in source.split("def spring_pullback")[1].split("in reversed(step_tape)")[0]


def test_large_spring_keeps_about_the_positions_alive():
    """50 steps of a 1000-element spring: the pullback holds each step's x (8 kB), not its 8 arrays."""
    x, v = r(1000), r(1000)
    rrule = s2sad.transform.generated_rrule(spring, ("x", "v", "k"))
    rrule(x, v, 2.0, 50)  # warm-up: the stand-ins' cache
    tracemalloc.start()
    value, pullback = rrule(x, v, 2.0, 50)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert held < 50 * 8000 * 1.5, held  # saving every value would hold about 50 * 8 * 8000 bytes
    expected = numerical_gradient(spring, [x[:3], v[:3], 2.0, 50], 2)
    small = s2sad.grad(spring, argnums=2)(x[:3], v[:3], 2.0, 50)
    np.testing.assert_allclose(small, expected, rtol=1e-5)
    del pullback


def test_stand_in_is_treated_as_its_value(monkeypatch):
    monkeypatch.setattr(helpers, "STAND_IN_BYTES", 0)
    for value in [r(3, 4), r(5).astype(np.float32), r(2) + 1j * r(2), np.arange(3), np.array(2.5)]:
        like = helpers.stand_in_for(value)
        assert like.__class__ is np.ndarray and like.shape == value.shape and like.dtype == value.dtype
        assert not like.flags.writeable
        g = np.ones((2,) + value.shape)
        expected = helpers.unbroadcast(g, value)
        got = helpers.unbroadcast(g, like)
        assert type(got) is type(expected) and np.shape(got) == np.shape(expected)
        if expected is NO_TANGENT:  # an int array has no tangent space
            assert got is NO_TANGENT
        else:
            np.testing.assert_array_equal(got, expected)
            assert got.dtype == expected.dtype
        assert len(like) == len(value) if value.ndim else True
        reduced = helpers.expand_reduced(np.float64(2.0), value) if value.dtype.kind in "fc" else None
        if reduced is not None:
            np.testing.assert_array_equal(helpers.expand_reduced(np.float64(2.0), like), reduced)
    for value in [2.5, np.float64(1.5), np.float32(1.5), [1.0, 2.0], 3]:
        assert helpers.stand_in_for(value) is value


# ---------------------------------------------------------------- the analyses alone

def _loops(function):
    ir = normalize(read_function(function))
    found = []

    def visit(block):
        for item in block:
            if isinstance(item, Loop):
                found.append(item)
                visit(item.body)
    visit(ir.statements)
    return ir, found


def test_invariants_of_the_spring():
    ir, [loop] = _loops(spring)
    assert loop_invariants(ir, loop) == {"neg_k"}


def test_invariant_of_an_inner_loop_only():
    ir, [outer, inner] = _loops(inner_invariant_changes_outside)
    assert loop_invariants(ir, inner) == {"c", "c_mul_0_1"}  # -k and 0.1 * c
    assert loop_invariants(ir, outer) == set()  # k changes at every outer iteration: the outer tape saves c


def test_no_invariant_when_an_operand_is_written_in_the_loop():
    ir, [loop] = _loops(invariant_operand_written_in_the_loop)
    assert loop_invariants(ir, loop) == set()


def test_nothing_random_is_invariant():
    def noisy(x, k):
        for step in range(3):
            t = np.random.standard_normal() * k
            x = x * t
        return x
    ir, [loop] = _loops(noisy)
    assert loop_invariants(ir, loop) == set()


def test_read_for_metadata():
    lines = ["da = unbroadcast(g * conj(b), a)",
             "db = unbroadcast(g * conj(a), b_like)",
             "dc = expand_reduced(g, c, None, False, True)",
             "dd = add_at(dd, g, i, d)",
             "n = len(e)",
             "df = unbroadcast(f, f)"]
    assert read_for_metadata(lines, {"a", "b", "b_like", "c", "d", "e", "f", "i", "g"}) == {"b_like", "c", "d", "e"}


# ---------------------------------------------------------------- test_loops' programs, every array stood in for

@pytest.mark.parametrize("name", sorted(test_loops.CASES))
def test_loop_programs_with_a_stand_in_for_every_array(name, monkeypatch):
    monkeypatch.setattr(helpers, "STAND_IN_BYTES", 0)
    test_loops.test_loop_gradient_matches_finite_differences(name)


# ---------------------------------------------------------------- a pullback's closure

def sin_cos(x):
    return np.sum(np.sin(x) * np.cos(x) + x ** 2)


def returns_what_its_pullback_reads(x, k):
    # y is read by the pullback for its shape alone (the like of w = y + 0.5), and returned
    y = k * x
    w = y + 0.5
    return y, w


def test_closure_stand_ins_are_written_before_the_pullback():
    source = transform(sin_cos, ("x",)).source
    assert ("    if worth_standing_in(sin_x_mul_cos_x):  # the pullback reads these for their shapes alone\n"
            "        sin_x_mul_cos_x = stand_in_for(sin_x_mul_cos_x)\n"
            "        x_pow_2 = stand_in_for(x_pow_2)\n"
            "        add = stand_in_for(add)\n\n    def sin_cos_pullback") in source


@pytest.mark.parametrize("function, args", [(sin_cos, [r(600)]), (returns_what_its_pullback_reads, [r(600), 0.3])])
def test_closure_stand_ins_keep_the_gradient(function, args, stand_ins):
    argnums = tuple(range(len(args)))
    if function is returns_what_its_pullback_reads:  # two arrays out: the vjp with random cotangents
        outputs, pullback = s2sad.vjp(function, *args)
        for got, expected in zip(outputs, function(*args)):
            np.testing.assert_array_equal(got, expected)  # the value returned, not its stand-in
        cotangents = (r(600), r(600))
        gradients = pullback(cotangents)

        def projected(x, k):
            return sum(np.dot(output, cotangent) for output, cotangent in zip(function(x, k), cotangents))
        assert_gradients_match(projected, args, argnums, gradients)
        return
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, args, argnums, gradients)


def test_a_pullback_keeps_only_what_it_reads_as_data():
    """sin_cos's pullback reads sin x and cos x as numbers, and three more arrays for their shapes."""
    x = r(100_000)
    rrule = s2sad.transform.generated_rrule(sin_cos, ("x",))
    rrule(x)
    tracemalloc.start()
    value, pullback = rrule(x)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert held < 2.5 * x.nbytes, held  # sin x and cos x (five arrays before stand-ins)
    np.testing.assert_allclose(pullback(1.0)[1], np.cos(2 * x) + 2 * x, rtol=1e-12, atol=1e-12)
