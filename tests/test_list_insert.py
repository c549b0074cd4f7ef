"""``xs.insert(k, v)`` on a list the function made (or holds: ``rows["a"].insert(0, v)``): the
reverse takes the item out where Python put it (a negative ``k`` counts from the end, and both
ends clamp: ``insert(99, v)`` appends), its cotangent to ``v``. Every program in grad, vjp, jvp
and hvp against central differences in float64; the caller's list changes as Python changes it.
Refused at the line: the list under another name, held by a tuple, or an inserted list changed
after while the outer one is read."""
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import assert_every_mode_matches, numerical_gradient  # noqa: E402
from markers import line_marked  # noqa: E402

HERE = os.path.abspath(__file__)


def inserts_in_the_middle(x):
    xs = [x[0], x[1]]
    xs.insert(1, x[0] * x[1])
    return xs[0] * xs[1] + xs[2]


def inserts_at_both_ends_and_beyond(x):
    xs = [x[0]]
    xs.insert(0, np.sin(x[1]))
    xs.insert(99, x[0] ** 2)
    xs.insert(-1, x[1] * 3.0)
    xs.insert(-99, x[0] + x[1])
    return xs[0] * xs[1] + xs[2] * xs[3] - xs[4] ** 2


def inserts_in_a_loop(x):
    xs = []
    for k in range(4):
        xs.insert(k // 2, x[k % 2] * (k + 1.0))
    return xs[0] * xs[1] + xs[2] * xs[3] ** 2


def inserts_into_held_lists(x):
    rows = {"a": [x[0]], "b": []}
    rows["a"].insert(0, x[1] ** 2)
    rows["b"].insert(5, x[0] * 4.0)
    return rows["a"][0] * rows["a"][1] + rows["b"][0]


PROGRAMS = [inserts_in_the_middle, inserts_at_both_ends_and_beyond, inserts_in_a_loop, inserts_into_held_lists]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_every_mode_against_central_differences(f):
    rng = np.random.default_rng(len(f.__name__))
    assert_every_mode_matches(f, rng.standard_normal(2), rng.standard_normal(2), rng.standard_normal(2))


def inserts_into_the_callers_list(x, xs):
    xs.insert(0, x[1] * 2.0)
    return xs[0] * x[0] + xs[1]


def test_the_callers_list_changes_as_python_changes_it():
    x = np.array([0.3, -1.2])
    theirs, python = [1.0], [1.0]
    gradient = s2sad.grad(inserts_into_the_callers_list)(x, theirs)
    inserts_into_the_callers_list(x, python)
    assert theirs == python
    expected = numerical_gradient(lambda y: inserts_into_the_callers_list(y, [1.0]), [x], 0)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6)


def inserts_through_another_name(x):
    xs = [x[0]]
    ys = xs
    xs.insert(0, x[1])  # MARK: other name
    return ys[0] * x[0]


def inserts_into_a_list_a_tuple_holds(x):
    xs = [x[0]]
    t = (xs,)
    xs.insert(0, x[1])  # MARK: tuple
    return t[0][0] * x[0]


def changes_an_inserted_list(x):
    v = [x[1]]
    xs = [x[0]]
    xs.insert(0, v)
    v.append(x[0])  # MARK: inserted list
    return xs[0][1] * x[0]


REFUSED = [(inserts_through_another_name, "other name", "`xs.insert(...)` changes the list `xs` in place, and `ys`"),
           (inserts_into_a_list_a_tuple_holds, "tuple", "and `t` sees the same object"),
           (changes_an_inserted_list, "inserted list", "`v.append(...)` changes the list `v` in place, and `xs`")]


@pytest.mark.parametrize("f, marker, words", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_refused_at_the_line(f, marker, words):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(f)(np.array([0.5, -1.5]))
    assert words in str(raised.value)
    assert f":{line_marked(HERE, 'MARK: ' + marker)}:" in str(raised.value)
