"""`for` loops: gradients against finite differences, and the cost seed 002 promises.

The generated reverse pass replays the iterations backwards from a tape holding, per
iteration, the values its pullback reads; see s2sad/generate.py (reverse_loop).
"""
import math
import tracemalloc

import numpy as np
import pytest

import loop_programs as programs
import s2sad
from finite_differences import assert_gradients_match
from s2sad.runtime.tangents import Tangent
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


def test_gradient_of_a_list_is_a_list():
    ws, x = [r(3), r(3)], r(3)
    dws = s2sad.grad(programs.list_of_arrays)(ws, x)
    assert type(dws) is list and len(dws) == 2
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
    # x and W @ h are read for their shapes alone: large arrays are saved as stand-ins (tape_contents.py)
    assert ("x_tape.append((x_index, stand_in_for(x), stand_in_for(W_matmul_h), h_2, h) if x_tape_stands_in "
            "else (x_index, x, W_matmul_h, h_2, h))") in source
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


# ---------------------------------------------------------------- a variable first set in an inner loop
# An inner loop never carries a variable under the name an enclosing loop carries it by:
# the enclosing loop would lose its back edge for it, and its tape would then save the
# value under the name the code after the loops reads (UnboundLocalError in the pullback).

def first_set_in_an_inner_for(u):
    for k in range(2):
        for i in range(1):
            x = u * 2.0
        u = x * 0.5
    return np.sum(x)


def first_set_in_an_inner_while(u):
    k = 0
    while k < 3:
        j = 0
        while j < 2:
            x = np.sin(u) + j
            j = j + 1
        u = x * 0.5
        k = k + 1
    return np.sum(x * x)


def first_set_two_loops_deep(u):
    for k in range(2):
        for i in range(2):
            for m in range(1):
                x = np.tanh(u) * (i + 1.0)
            u = u + 0.1 * x
    return np.sum(x) + np.sum(u)


def carried_by_both_loops(u):
    x = u * 1.0
    for k in range(2):
        for i in range(2):
            x = np.sin(x) + u
    return np.sum(x)


def set_in_an_inner_loop_read_before_it(u):
    x = u * 1.0
    for k in range(3):
        y = x * x
        for i in range(1):
            x = u * 2.0 + y
        u = x * 0.5
    return np.sum(x) + np.sum(y)


def first_set_in_an_inner_loop_scalar(s):
    for k in range(2):
        for i in range(1):
            x = s * 2.0
        s = math.sin(x)
    return x + s


INNER_LOOP_CASES = {
    "first_set_in_an_inner_for": (first_set_in_an_inner_for, [np.array([-0.8, -0.5])]),
    "first_set_in_an_inner_while": (first_set_in_an_inner_while, [np.array([0.3, -0.2, 0.6])]),
    "first_set_two_loops_deep": (first_set_two_loops_deep, [r(3)]),
    "carried_by_both_loops": (carried_by_both_loops, [r(2)]),
    "set_in_an_inner_loop_read_before_it": (set_in_an_inner_loop_read_before_it, [0.3 * r(2)]),
    "first_set_in_an_inner_loop_scalar": (first_set_in_an_inner_loop_scalar, [0.4]),
}


@pytest.mark.parametrize("name", sorted(INNER_LOOP_CASES))
def test_a_variable_set_in_an_inner_loop_and_read_after_the_outer(name):
    function, args = INNER_LOOP_CASES[name]
    value, gradients = s2sad.value_and_grad(function, argnums=(0,))(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, args, (0,), gradients)


# ---------------------------------------------------------------- cotangents that may be ZERO around a loop
# A value read only inside a loop has the cotangent ZERO when the loop runs no iteration;
# a carried value whose cotangent the body may leave ZERO (it only reaches a helper's unused
# parameter, an unread tuple item) starts the next reverse iteration at ZERO. The rules of
# the operations before (np.reshape's, matmul's, a helper's pullback) must not be run on it.

W22 = np.array([[1.0, 0.5], [-0.5, 0.25]])


def _ignores_its_second(a, b):
    return np.tanh(a @ W22)


def read_only_in_a_loop(x, n):
    u = np.reshape(x, (2, 1))
    v = W22 @ x
    t = np.sum(x)
    for i in range(n):
        t = t + np.sum(u) + np.sum(v * v)
    return t


def carried_into_an_unused_parameter(x, n):
    h = x * 1.0
    for i in range(n):
        h = _ignores_its_second(x, W22 @ h)
    return np.sum(h)


def carried_into_an_unread_tuple_item(x, n):
    h = x * 1.0
    for i in range(n):
        pair = (W22 @ h, np.tanh(x + i))
        unread, kept = pair
        h = kept @ W22
    return np.sum(h)


def carried_through_a_while_into_an_unused_parameter(x, n):
    h = np.sin(x)
    k = 0
    while k < n:
        h = _ignores_its_second(h * 0.5, np.reshape(h, (1, 2))) + x
        h = _ignores_its_second(x, W22 @ h)
        k = k + 1
    return np.sum(h)


ZERO_AROUND_LOOP_CASES = [read_only_in_a_loop, carried_into_an_unused_parameter, carried_into_an_unread_tuple_item,
                          carried_through_a_while_into_an_unused_parameter]


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("function", ZERO_AROUND_LOOP_CASES, ids=lambda f: f.__name__)
def test_a_cotangent_that_may_be_zero_around_a_loop(function, n):
    x = np.array([0.3, -0.7])
    value, (dx,) = s2sad.value_and_grad(function, argnums=(0,))(x, n)
    assert np.allclose(value, function(x, n))
    assert isinstance(dx, np.ndarray) and dx.shape == x.shape
    assert_gradients_match(lambda x: function(x, n), [x], (0,), (dx,))


def delayed_through_a_loop(A, n):
    acc = np.where(A > 0.0, A, 2.0 * A)
    for i in range(n):
        acc = acc * 1.0
    return np.sum(acc[1])


def delayed_through_a_while(A, n):
    acc = np.reshape(A, (3, 2))
    k = 0
    while k < n:
        acc = np.sin(acc)
        k = k + 1
    return np.sum(acc[1] ** 2)


@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("function", [delayed_through_a_loop, delayed_through_a_while], ids=lambda f: f.__name__)
def test_a_delayed_cotangent_through_a_loop_that_may_not_run(function, n):
    """Reading ``acc[1]`` gives a delayed cotangent (an InplaceableThunk); with no iteration it
    leaves the reverse loop still delayed, and the rule before the loop must get its value."""
    A = np.array([[1.5, -0.5, 0.1], [-0.2, 0.8, 1.1]])
    value, (dA,) = s2sad.value_and_grad(function, argnums=(0,))(A, n)
    assert np.allclose(value, function(A, n))
    assert_gradients_match(lambda A: function(A, n), [A], (0,), (dA,))
