"""Writes into an element a local variable holds: ``history["loss"].append(l)``, ``rows[i].append(v)``,
``y[i][j] = v`` on nested lists and on arrays (``y[i]`` a view of ``y``, so ``y[i][j] = v``
changes ``y``, as NumPy does), ``y[i][j] += v``, at any depth. Each is taken out, changed
and put back (normalize_mutation.py, ``taken_out``); every program is checked in grad, vjp,
jvp and hvp against central differences in float64. Each way another name may see the changed
element (a name for the inner list, a tuple or a dict holding it, an element taken before,
a view of the array, the caller's list, the same list held in two places, NumPy's copy for a
fancy index) is refused, at the line,
naming the element as written."""
import copy
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bad_programs  # noqa: E402
from finite_differences import assert_every_mode_matches  # noqa: E402


# ------------------------------------------------------------------ differentiated
def history_of_losses(x):
    history = {"loss": [], "step": []}
    for i in range(3):
        history["loss"].append(np.sum(np.sin(x * (i + 1))) ** 2)
        history["step"].append(i)
    return history["loss"][-1] + history["loss"][1] * len(history["step"])


def rows_of_lists(x):
    rows = [[], []]
    for i in range(2):
        rows[i].append(x[i] * 2.0)
        rows[i].append(np.sin(x[i] * x[1 - i]))
    return rows[0][1] * rows[1][0] + rows[1][1]


def grows_while_reading_itself(x):
    rows = [[], []]
    for i in range(2):
        for k in range(3):
            rows[i].append(x[i] * (len(rows[i]) + 1.0) + np.sum(rows[i]))
    return rows[0][2] * rows[1][1] + sum(rows[1])


def pops_from_a_held_list(x):
    held = {"a": [x[0], x[1] * 2.0]}
    last = held["a"].pop()
    return last * held["a"][0]


def nested_list_element(x):
    y = [[x[0], x[1]], [x[1], x[0]]]
    y[0][1] = x[0] ** 2
    y[1][0] += x[0] * 2.0
    y[1][0] *= x[1]
    return y[0][0] * y[0][1] + y[1][0] * y[1][1]


def three_levels(x):
    y = [[[x[0], x[1]]], [[x[1], x[0]]]]
    y[1][0][1] = x[0] ** 3
    return y[1][0][1] * y[0][0][1] + y[1][0][0]


def array_rows(x):
    y = np.zeros((3, 2))
    for i in range(3):
        y[i][0] = x[0] * i
        y[i][1] = np.sin(x[1] * y[i][0])
    return np.sum(y ** 2)


def array_of_three_axes(x):
    y = np.ones((2, 2, 2)) * x[0]
    y[1][0][1] = x[1] ** 3
    y[0][1] += x[1]
    y[1][1:][0] = np.cos(x)  # a slice then an index: still a view of y
    return np.sum(y ** 2)


PROGRAMS = [history_of_losses, rows_of_lists, grows_while_reading_itself, pops_from_a_held_list, nested_list_element,
            three_levels, array_rows, array_of_three_axes]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_every_mode_against_central_differences(f):
    rng = np.random.default_rng(len(f.__name__))
    assert_every_mode_matches(f, rng.standard_normal(2), rng.standard_normal(2), rng.standard_normal(2))


def test_the_array_changes_as_numpy_changes_it():
    """``y[i][j] = v`` writes through the view ``y[i]``: ``y`` itself changes (checked on NumPy)."""
    y = np.zeros((2, 2))
    y[1][0] = 5.0
    assert y[1, 0] == 5.0
    x = np.array([0.7, -0.4])
    assert array_rows(x) == pytest.approx(np.sum(np.array([[0.0 * x[0], np.sin(0.0)]] + [
        [x[0] * i, np.sin(x[1] * x[0] * i)] for i in (1, 2)]) ** 2))


def test_a_nested_write_into_a_float_raises_as_python_does():
    x = np.array([1.0, 2.0])
    with pytest.raises(TypeError):
        bad_programs.mutates_nested_element(x)
    with pytest.raises(TypeError):
        s2sad.grad(bad_programs.mutates_nested_element)(x)


# ------------------------------------------------------------------ refused
def inner_list_named(x):
    inner = [x[0]]
    history = {"loss": inner}
    history["loss"].append(x[1] * 3.0)
    return inner[-1] * x[0]


def held_by_a_tuple(x):
    history = {"loss": [x[0]]}
    t = (history, 1)
    history["loss"].append(x[1] * 3.0)
    return t[0]["loss"][-1] * x[0]


def inner_list_in_a_dict(x):
    inner = [x[0]]
    d = {"a": inner}
    rows = [inner]
    rows[0].append(x[1] * 3.0)
    return d["a"][-1] * x[0]


def element_taken_before(x):
    rows = [[x[0]], [x[1]]]
    row = rows[0]
    rows[0].append(x[1] * 3.0)
    return row[-1] * x[0]


def row_of_a_nested_list_taken_before(x):
    y = [[x[0], x[1]], [x[1], x[0]]]
    row = y[0]
    y[0][1] = x[0] ** 2
    return row[1] * x[1]


def the_callers_list(x, losses):
    history = {"loss": losses}
    history["loss"].append(x[1] * 3.0)
    return history["loss"][-1] * x[0]


def the_callers_dict(x, hist):
    hist["loss"].append(x[1] * 3.0)
    return hist["loss"][-1] * x[0]


def a_view_read_after(x):
    y = np.zeros((2, 2)) + x[0]
    r = y[0]
    y[0][1] = x[1] * 3.0
    return np.sum(r * y)


def a_transpose_read_after(x):
    y = np.zeros((2, 2)) + x[0]
    t = y.T
    y[0][1] = x[1] * 3.0
    return np.sum(t * t)


def a_fancy_index(x):
    y = np.zeros((2, 2)) + x[0]
    y[[0, 1]][0] = x[1] * 3.0  # NumPy writes into a copy: y is unchanged
    return np.sum(y * y)


def a_mask(x):
    y = np.zeros((2, 2)) + x[0]
    y[y > 0][0] = x[1] * 3.0
    return np.sum(y * y)


def the_same_row_twice(x):
    row = [x[0], x[1]]
    y = [row, row]
    y[0][1] = x[0] ** 2  # Python: y[1] is the same list, so y[1][1] is x[0] ** 2 too
    return y[1][1] * x[1]


def the_same_row_appended_twice(x):
    row = [x[0]]
    rows = []
    for _ in range(2):
        rows.append(row)
    rows[0].append(x[1] * 2.0)
    return rows[1][1] * x[0]


def the_same_array_twice(x):
    a = np.zeros(2) + x[0]
    y = [a, a]
    y[0][1] = x[1] ** 2
    return np.sum(y[1]) * x[0]


REFUSED = [
    # found on the way: the put-back of y[0] told the derivative code y[0] changed, not y[1], the
    # same list: grad gave [0, -1.11] for [-0.72, 0.09]; refused now
    (the_same_row_twice, (), "`y[0]` is a list, dict or array the function did not make itself"),
    (the_same_row_appended_twice, (), "`rows[0]` is a list, dict or array the function did not make itself"),
    (the_same_array_twice, (), "`y[0]` is a list, dict or array the function did not make itself"),
    (inner_list_named, (), "`history[\"loss\"].append(...)` changes the list `history[\"loss\"]` in place, and `inner`"),
    (held_by_a_tuple, (), "`history[\"loss\"]` in place, and `t` sees"),
    (inner_list_in_a_dict, (), "`rows[0]` in place, and `d` sees"),
    (element_taken_before, (), "`rows[0]` in place, and `row` sees"),
    (row_of_a_nested_list_taken_before, (), "changes `y[0]` in place, and `row` sees"),
    (the_callers_list, ([1.0],), "`history[\"loss\"]` is a list, dict or array the function did not make itself"),
    (the_callers_dict, ({"loss": [1.0]},), "changes `hist[\"loss\"]` in place, which may be `hist`"),
    (a_view_read_after, (), "changes memory that `r` shares"),
    (a_transpose_read_after, (), "changes memory that `t` shares"),
    (a_fancy_index, (), "`y[[0, 1]]` is a copy NumPy makes"),
    (a_mask, (), "`y[y > 0]` is a copy NumPy makes"),
]


# hvp differentiates every argument it is given: the cases given the caller's list are checked in grad and jvp
MODES = [(f, extra, words, mode) for f, extra, words in REFUSED
         for mode in (("grad", "jvp") if extra else ("grad", "jvp", "hvp"))]


@pytest.mark.parametrize("f, extra, words, mode", MODES, ids=[f"{case[0].__name__}-{case[3]}" for case in MODES])
def test_another_name_that_sees_the_element_is_refused_at_the_line(f, extra, words, mode):
    x = np.array([0.3, -1.2])
    with pytest.raises(s2sad.S2SADError) as raised:
        if mode == "grad":
            s2sad.grad(f)(x, *copy.deepcopy(extra))
        elif mode == "jvp":
            s2sad.jvp(f, (x, *copy.deepcopy(extra)), (np.ones(2), *[None] * len(extra)))
        else:
            s2sad.hvp(f, (x,), (np.ones(2),))
    message = str(raised.value)
    assert words in message
    assert f"{os.path.basename(__file__)}:" in message
