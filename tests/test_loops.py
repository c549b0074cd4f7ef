"""`for` loops: gradients against finite differences, and the cost seed 002 promises.

The generated reverse pass replays the iterations backwards from a tape holding, per
iteration, the values its pullback reads; see s2sad/generate.py (reverse_loop).
"""
import tracemalloc

import numpy as np
import pytest

import loop_programs as programs
import s2sad
from finite_differences import assert_gradients_match
from s2sad.tangents import Tangent
from s2sad.transform import transform

rng = np.random.default_rng(11)


def r(*shape):
    return rng.standard_normal(shape)


CASES = {
    "mysum": (programs.mysum, [r(7)], (0,)),
    "rnn": (programs.rnn, [r(4), 0.5 * r(4, 4), r(6, 4)], (0, 1, 2)),
    "rnn_100_steps": (programs.rnn_100_steps, [r(5), 0.3 * r(5, 5), r(3, 5)], (0, 1, 2)),
    "nested_rows": (programs.nested_rows, [r(3, 4)], (0,)),
    "carried_but_not_read_after": (programs.carried_but_not_read_after, [r(3)], (0,)),
    "overwritten_each_iteration": (programs.overwritten_each_iteration, [r(3), 0.5 * r(3, 3)], (0, 1)),
    "loop_variable_read_after": (programs.loop_variable_read_after, [r(3)], (0,)),
    "list_of_arrays": (programs.list_of_arrays, [[r(3), r(3), r(3)], r(3)], (0, 1)),
    "unpacked_pairs": (programs.unpacked_pairs, [[(r(2), r(2)), (r(2), r(2))]], (0,)),
    "horner": (programs.horner, [r(4), r(5)], (0, 1)),
    "power_by_loop": (programs.power_by_loop, [r(3)], (0,)),
    "running_mean_update": (programs.running_mean_update, [r(5, 3)], (0,)),
    "loop_with_augmented_assignment": (programs.loop_with_augmented_assignment, [r(6)], (0,)),
}


def _copy(value):
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    return np.copy(value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_loop_gradient_matches_finite_differences(name):
    function, args, argnums = CASES[name]
    before = _copy(args)
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, args, argnums, gradients)
    for old, new in zip(before, args):  # inputs are never mutated
        np.testing.assert_equal(old, new)


def test_gradient_of_a_list_is_a_structural_tangent_read_like_the_list():
    ws, x = [r(3), r(3)], r(3)
    dws = s2sad.grad(programs.list_of_arrays)(ws, x)
    assert type(dws) is Tangent and dws.primal_type is list
    for i in range(2):
        np.testing.assert_allclose(dws[i], x)


def test_zero_iterations_give_a_zero_gradient_of_the_right_shape():
    dx = s2sad.grad(programs.mysum)(np.zeros(0))
    assert isinstance(dx, np.ndarray) and dx.shape == (0,)
    dh, dW, dxs = s2sad.grad(programs.rnn, argnums=(0, 1, 2))(r(3), r(3, 3), np.zeros((0, 3)))
    np.testing.assert_allclose(dh, 0 + 2 * dh / 2)  # finite, shaped like h
    np.testing.assert_array_equal(dW, np.zeros((3, 3)))


def test_float32_stays_float32_through_a_loop():
    x = r(6).astype(np.float32)
    dx = s2sad.grad(programs.loop_with_augmented_assignment)(x)
    assert dx.dtype == np.float32
    np.testing.assert_allclose(dx, 2 * x, rtol=1e-6)
    W, h, xs = (0.5 * r(4, 4)).astype(np.float32), r(4).astype(np.float32), r(3, 4).astype(np.float32)
    dh, dW = s2sad.grad(programs.rnn, argnums=(0, 1))(h, W, xs)
    assert dh.dtype == dW.dtype == np.float32


@pytest.mark.parametrize("n", [1000, 10000])
def test_mysum_pullback_allocates_one_output_sized_array(n):
    """Seed 002: n reads of x[i] cost one array of x's size in the reverse pass, not n."""
    x = r(n)
    value, pullback = s2sad.vjp(programs.mysum, x)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    (dx,) = pullback(1.0)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    np.testing.assert_array_equal(dx, np.ones(n))
    assert peak < x.nbytes + 4096, f"peak {peak} bytes for an output of {x.nbytes}"


def test_tape_holds_only_what_the_reverse_pass_reads():
    source = transform(programs.rnn, ("h", "W", "xs")).source
    assert "x_tape.append((x_index, x, W_matmul_h, h_2, h))" in source
    assert "for x_index, x, W_matmul_h, h_2, h_before in reversed(x_tape):" in source


def test_an_inactive_loop_has_no_tape():
    source = transform(programs.rnn, ("W",)).source
    assert "tape" in source  # W is read in the loop: the loop is differentiated
    source = transform(programs.list_of_arrays, ("x",)).source
    assert "w_index" not in source  # the loop variable is not differentiated: no enumerate


@pytest.mark.parametrize("n", [1000, 10000])
def test_mysum_whole_gradient_keeps_no_tape(n):
    """The float version of mysum replays range(len(x)) backwards: the whole gradient, primal
    included, costs the output array and a constant, nothing per iteration."""
    x = r(n)
    s2sad.grad(programs.mysum)(x[:3])   # transformed and loaded before measuring
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    dx = s2sad.grad(programs.mysum)(x)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    np.testing.assert_array_equal(dx, np.ones(n))
    assert peak < x.nbytes + 16384, f"peak {peak} bytes for an output of {x.nbytes}"


def test_a_range_loop_left_early_keeps_its_tape():
    source = transform(programs.mysum_until_large, ("x",)).source
    assert "_tape" in source.split("for Python floats")[1]
    for x in (np.array([0.5, 0.2, 3.0, 0.1]), np.array([0.1, 0.2, 0.3])):
        assert_gradients_match(programs.mysum_until_large, [x], (0,), [s2sad.grad(programs.mysum_until_large)(x)])
