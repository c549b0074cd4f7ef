"""Branches, conditional expressions, `and`/`or`, `while`, `break`/`continue`, early
`return`, and the `enumerate`/`zip`/`dict.items()` iteration forms: each gradient against
central finite differences on every path."""
import numpy as np
import pytest

import control_flow_programs as programs
import s2sad
from finite_differences import assert_gradients_match
from s2sad.transform import transform

rng = np.random.default_rng(5)


def r(*shape):
    return rng.standard_normal(shape)


# name -> (function, argument lists covering its paths, argnums)
CASES = {
    "relu_sum": (programs.relu_sum, [(np.abs(r(4)), r(4)), (-np.abs(r(4)), r(4))], (0, 1)),
    "early_return": (programs.early_return, [(1.5,), (0.5,)], (0,)),
    "elif_chain": (programs.elif_chain, [(1.5,), (0.5,), (-0.5,)], (0,)),
    "loop_with_branch": (programs.loop_with_branch, [(r(6),)], (0,)),
    "loop_with_continue": (programs.loop_with_continue, [(r(6),)], (0,)),
    "loop_with_break": (programs.loop_with_break, [(np.array([0.3, 0.4, 0.9, 0.2, 0.5]),), (np.array([0.1, 0.1]),)], (0,)),
    "newton_sqrt": (programs.newton_sqrt, [(2.0,), (7.0,)], (0,)),
    "while_count": (programs.while_count, [(0.7,)], (0,)),
    "enumerate_zip": (programs.enumerate_zip, [([r(2) for _ in range(3)], [r(2) for _ in range(3)])], (0, 1)),
    "dict_items": (programs.dict_items, [({"a": r(3), "b": r(3)}, r(3))], (1,)),
    "ifexp": (programs.ifexp, [(1.5,), (-0.5,)], (0,)),
    "boolean_ops": (programs.boolean_ops, [(1.5, 2.0), (-0.5, 2.0), (1.0, -1.0)], (0, 1)),
    "nested_loops_with_break": (programs.nested_loops_with_break, [(np.array([[0.5, 1.5, 0.2], [0.3, 0.4, 2.0]]),)], (0,)),
    "while_with_continue": (programs.while_with_continue, [(0.3,)], (0,)),
    "or_default": (programs.or_default, [(r(3), 2.0)], (0, 1)),
    "or_default_falsy": (programs.or_default, [(r(3), 0.0)], (0,)),  # at 0 the choice flips: no derivative in scale
    "branch_in_loop_only_one_side_assigns": (programs.branch_in_loop_only_one_side_assigns, [(r(3),)], (0,)),
    "not_condition": (programs.not_condition, [(0.5,), (-0.5,)], (0,)),
    "conv1d": (programs.conv1d, [(r(9), r(3))], (0, 1)),
    "copy_then_set": (programs.copy_then_set, [(r(4),)], (0,)),
    "read_then_overwrite": (programs.read_then_overwrite, [(r(3),)], (0,)),
    "list_append": (programs.list_append, [(r(3),)], (0,)),
    "list_pop": (programs.list_pop, [(r(3),)], (0,)),
    "list_extend_and_set": (programs.list_extend_and_set, [(r(3),)], (0,)),
    "dict_assign": (programs.dict_assign, [(r(3),)], (0,)),
    "comprehension_sum": (programs.comprehension_sum, [([r(2) for _ in range(3)], r(2))], (0, 1)),
    "list_comprehension_with_condition": (programs.list_comprehension_with_condition, [(r(5),)], (0,)),
    "nested_comprehension": (programs.nested_comprehension, [(r(2, 3),)], (0,)),
    "dict_comprehension": (programs.dict_comprehension, [(r(3),)], (0,)),
    "comprehension_variable_does_not_leak": (programs.comprehension_variable_does_not_leak, [(r(3),)], (0,)),
    "nested_function_closure": (programs.nested_function_closure, [(r(3), 0.5 * r(3, 3))], (0, 1)),
    "lambda_closure": (programs.lambda_closure, [(r(3),)], (0,)),
    "nested_function_with_loop": (programs.nested_function_with_loop, [([r(2) for _ in range(3)],)], (0,)),
    "calls_varargs": (programs.calls_varargs, [(r(3), r(3))], (0, 1)),
    "first_large": (programs.first_large, [(np.array([0.2, 1.5, 3.0]),), (np.array([0.2, 0.5]),)], (0,)),
    "return_from_nested_loops": (programs.return_from_nested_loops,
                                 [(np.array([[0.5, 0.7], [0.9, 0.1]]),), (np.array([[0.1, 0.2], [0.3, 0.1]]),)], (0,)),
}

PARAMETERS = [(name, i) for name, (_, arglists, _) in sorted(CASES.items()) for i in range(len(arglists))]


@pytest.mark.parametrize("name, path", PARAMETERS, ids=[f"{n}-{i}" for n, i in PARAMETERS])
def test_every_path_matches_finite_differences(name, path):
    function, arglists, argnums = CASES[name]
    args = list(arglists[path])
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, args, argnums, gradients)


def test_dict_gradient_is_read_by_the_dicts_keys():
    params = {"a": r(3), "b": r(3)}
    g = s2sad.grad(programs.values_of_dict)(params)
    np.testing.assert_allclose(g["a"], 2 * params["a"])
    np.testing.assert_allclose(g["b"], 2 * params["b"])
    x = r(3)
    g = s2sad.grad(programs.dict_items)(params, x)
    np.testing.assert_allclose(g["a"], x)


def test_a_while_loop_whose_trip_count_depends_on_the_input():
    for a in (2.0, 50.0, 1e4):
        da = s2sad.grad(programs.newton_sqrt)(a)
        assert da == pytest.approx(0.5 / np.sqrt(a), rel=1e-6)


def test_only_the_branch_taken_is_differentiated():
    # the branch not taken would give NaN (log of a negative): it never runs, forwards or backwards
    with np.errstate(all="raise"):
        assert s2sad.grad(programs.safe_log)(-0.5) == pytest.approx(2.0)
        assert s2sad.grad(programs.safe_log)(0.5) == pytest.approx(2.0)


def test_generated_if_reads_like_the_source():
    source = transform(programs.ifexp, ("x",)).source
    assert """\
    x_gt_0 = x > 0
    if x_gt_0:
        y = x * 2.0
    else:
        y = -x
""" in source
    assert """\
        if x_gt_0:
            dx = unbroadcast(dy * 2.0, x)
        else:
            dx = -dy
""" in source


def test_every_return_writes_the_same_result_name():
    source = transform(programs.boolean_ops, ("x", "y")).source
    general, floats = source.split("for Python floats")  # the general rrule, then its versions for floats
    floats, fused = floats.split("in one function")
    assert general.count(" result = ") == floats.count(" result = ") == fused.count(" result = ") == 2
    assert "result_2" not in source


def test_while_with_a_one_operation_test_is_written_as_while():
    source = transform(programs.while_count, ("x",)).source
    assert "while i < 5:" in source
    source = transform(programs.newton_sqrt, ("a",)).source
    assert "while True:" in source and "if not " in source


def test_continue_saves_the_iteration_and_copies_carried_values_back():
    source = transform(programs.loop_with_continue, ("x",)).source
    for version in source.split("for Python floats"):  # the general rrule, and the one for floats
        assert "            continue\n" in version
        assert version.count("i_tape.append(") == 2  # at the `continue`, and at the end of the body


def test_changing_an_argument_in_place_changes_the_callers_array_as_python_does():
    # differentiated at the value on entry: d/dx sum(x with x[0] set to 1) = [0, 1, 1]
    x = np.ones(3) * 5.0
    np.testing.assert_allclose(s2sad.grad(programs.mutates_argument)(x), [0.0, 1.0, 1.0])
    np.testing.assert_allclose(x, [1.0, 5.0, 5.0])


@pytest.mark.parametrize("name", ["read_then_overwrite", "list_append", "conv1d"])
def test_a_pullback_that_undoes_changes_can_run_again(name):
    function, arglists, argnums = CASES[name]
    args = arglists[0]
    value, pullback = s2sad.vjp(function, *args)
    first, second = pullback(1.0), pullback(2.0)
    for a, b in zip(first, second):
        np.testing.assert_allclose(2.0 * np.asarray(a), np.asarray(b))


def test_filling_an_array_saves_nothing_it_does_not_need():
    source = transform(programs.conv1d, ("x", "w")).source
    assert "        out[i] = sum_x_window_mul_w\n" in source
    assert "overwritten" not in source  # nothing reads `out` before or during the loop
    assert "dout = zeroed_at(dout, i)" in source
    source = transform(programs.read_then_overwrite, ("x",)).source
    assert "y_overwritten = overwritten(y, 0)" in source and "restore(y, 0, y_overwritten)" in source


def test_a_generator_expression_in_sum_reads_like_a_loop():
    source = transform(programs.comprehension_sum, ("xs", "w")).source
    assert "    items = []\n" in source and "        items.append(sum_tanh_w_mul_x)\n" in source
    assert "    result = sum(items)\n" in source
    # one line of source: one comment per pass, and the def line heading the check of the arguments
    assert source.count("# control_flow_programs.py") == 3


# ---------------------------------------------------------------- return from an inner loop
# The inner loop carries the flag `returned` (and the result) under names of its own, not
# under the outer loop's: sharing them took them out of the outer loop's carried values,
# and its tape then saved them under the names the pullback reads after the loops.

def return_in_a_nested_while(s, A):
    k = 0
    while k < 3:
        acc = s / (2.0 + np.cos(A))
        j = 0
        while j < 2:
            if np.sum(acc) > 1.0 or k == 2:
                return np.mean(acc) + 0.5 * np.sin(s)
            acc = acc * 1.5
            j = j + 1
        s = np.tanh(s) + 0.5
        k = k + 1
    return 2.0 * s


def return_in_the_first_iteration_of_a_nested_while(s, A):
    k = 0
    while k < 3:
        acc = s / (2.0 + np.cos(A))
        j = 0
        while j < 2:
            return np.mean(acc) + 0.5 * np.sin(s)
        s = np.tanh(s)
    return 2.0


def return_in_a_nested_for(s, A):
    for k in range(3):
        for row in A:
            if np.sum(row) * s > 0.5:
                return np.sum(row) * s
            s = s + 0.25 * np.sum(row)
    return s * s


NESTED_RETURN_CASES = {
    "return_in_a_nested_while": (return_in_a_nested_while, [(0.13, 0.2 * r(2, 3)), (0.9, 0.1 * r(2, 3) + 2.0),
                                                            (-1.5, np.full((2, 3), 3.0))]),
    "return_in_the_first_iteration_of_a_nested_while": (return_in_the_first_iteration_of_a_nested_while,
                                                        [(0.13, np.array([[-0.77, -0.27, -0.07], [-0.07, -0.07, -0.67]]))]),
    "return_in_a_nested_for": (return_in_a_nested_for, [(0.3, np.array([[0.5, 1.5], [0.2, 0.1]])),
                                                        (0.3, np.array([[-0.5, 0.1], [0.2, -0.4]])),
                                                        (-0.2, np.array([[0.1, 0.1], [0.2, -0.1]]))]),
}
NESTED_RETURN_PATHS = [(name, i) for name, (_, arglists) in sorted(NESTED_RETURN_CASES.items()) for i in range(len(arglists))]


@pytest.mark.parametrize("name, path", NESTED_RETURN_PATHS, ids=[f"{n}-{i}" for n, i in NESTED_RETURN_PATHS])
def test_return_from_an_inner_loop(name, path):
    function, arglists = NESTED_RETURN_CASES[name]
    args = list(arglists[path])
    value, gradients = s2sad.value_and_grad(function, argnums=(0, 1))(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, args, (0, 1), gradients)


# ---------------------------------------------------------------- zero cotangents through in-place writes

def filled_array_read_on_one_branch(x):
    y = np.zeros(3)
    y[0] = np.dot(np.array([0.5, -1.0, 1.5]), x)
    y[1:] = np.outer(x[:2], x[:1])[:, 0]
    if np.sum(x) > 0.5:
        v = np.sin(x)
    else:
        v = y * 2.0
    return np.sum(v)


def filled_list_read_on_one_branch(x):
    items = [0.0, 0.0]
    items[0] = np.reshape(x, (3, 1))
    items[1] = x @ np.ones((3, 2))
    if np.sum(x) > 0.5:
        v = np.sin(x)
    else:
        v = items[1]
    return np.sum(v)


def appended_item_never_read(x):
    items = []
    items.append(np.reshape(x, (1, 3)))
    items.append(np.tanh(x))
    items.extend([x @ np.ones((3, 2)), np.cos(x)])
    return np.sum(items[1]) + np.sum(items[3])


FILLED_CASES = {
    "filled_array_read_on_one_branch": filled_array_read_on_one_branch,
    "filled_list_read_on_one_branch": filled_list_read_on_one_branch,
    "appended_item_never_read": appended_item_never_read,
}


@pytest.mark.parametrize("name", sorted(FILLED_CASES))
@pytest.mark.parametrize("x", [np.array([0.4, 0.2, 0.3]), np.array([-0.4, 0.2, 0.3])], ids=["taken", "not-taken"])
def test_a_value_written_into_a_container_nobody_reads(name, x):
    function = FILLED_CASES[name]
    value, gradients = s2sad.value_and_grad(function, argnums=(0,))(x)
    assert np.allclose(value, function(x))
    assert_gradients_match(function, [x], (0,), gradients)


# ---------------------------------------------------------------- popping an item nobody reads
# The reverse of ``xs.pop()`` gives the list's cotangent its item back, ZERO when nobody
# read the popped value: the code before the pop reads the list's cotangent by position.

def pop_unread_then_read_the_last(c):
    items = [np.reshape(c, (2,)) for i in range(2)]
    unread = items.pop()
    return np.mean(items[-1])


def pop_first_unread(c):
    items = []
    for i in range(3):
        items.append(np.sin(c[:, 0]) * (i + 1.0))
    unread = items.pop(0)
    return np.sum(items[0] * items[1])


def pop_unread_then_append(c):
    items = [c[:, 0] @ np.ones((2, 3)), np.tanh(c[:, 0])]
    unread = items.pop()
    items.append(np.cos(c[:, 0]))
    return np.sum(items[0]) + np.sum(items[1])


def pop_twice_one_read(c):
    items = [c * 1.0, c * 2.0, np.exp(c)]
    last = items.pop()
    unread = items.pop()
    return np.sum(last) + np.sum(items[0] ** 2)


POP_CASES = [pop_unread_then_read_the_last, pop_first_unread, pop_unread_then_append, pop_twice_one_read]


@pytest.mark.parametrize("function", POP_CASES, ids=lambda f: f.__name__)
def test_popping_an_item_nobody_reads(function):
    c = np.array([[-1.5], [0.4]])
    value, (dc,) = s2sad.value_and_grad(function, argnums=(0,))(c)
    assert np.allclose(value, function(c))
    assert_gradients_match(function, [c], (0,), (dc,))


@pytest.mark.parametrize("name", ["overwrite_through_a_list", "overwrite_through_an_object",
                                  "overwrite_through_a_method", "overwrite_through_a_star_call"])
def test_a_pullback_that_undoes_changes_can_run_again_when_its_caller_calls_it_through_a_value(name):
    """vjp's pullback run twice: the helper's pullback, reached through a value, an object, a
    method or a `*` call, runs once per primal call; its second run used to start from the
    restored array and give 2 x0 (0.6) for 4 x0 ** 3 (0.108) (found by the fuzzer, fuzz21)."""
    x = np.array([0.3, -0.7, 1.1])
    expected = np.array([4.0 * x[0] ** 3, 2.0 * x[1], 2.0 * x[2]])   # d/dx (x0 ** 4 + x1 ** 2 + x2 ** 2)
    _, pullback = s2sad.vjp(getattr(programs, name), x)
    for seed in (1.0, 1.0, -0.5):
        np.testing.assert_allclose(pullback(seed)[0], seed * expected, rtol=1e-12)
