"""``del``: ``del xs[k]`` (a list's element, at any depth: ``xs.pop(k)`` with the item dropped),
``del y`` (the name unbound: a later read raises UnboundLocalError, as Python's does), several
at once; each differentiated program checked in grad, vjp, jvp and hvp against central
differences in float64. Refused at the line: ``del d[key]`` on a dict (with a spelling that
works), the list under another name or held by a tuple, the caller's list, a slice. ``del d[key]`` on
the function's own dict is differentiated (tests/test_refusals_users_meet.py); in a nested function
it stays refused."""
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import assert_every_mode_matches  # noqa: E402
from markers import line_marked  # noqa: E402

HERE = os.path.abspath(__file__)


def deletes_list_items(x):
    xs = [x[0], x[1], x[0] * 3.0, np.sin(x[1])]
    del xs[1]
    del xs[-1]
    return xs[0] * xs[1] + len(xs)


def deletes_in_a_nested_list(x):
    rows = [[x[0], x[1], x[0] * x[1]], [x[1]]]
    del rows[0][1]
    return rows[0][0] * rows[0][1] + rows[1][0]


def deletes_a_name_in_a_loop(x):
    total = 0.0
    for i in range(3):
        step = np.sin(x * (i + 1))
        total = total + np.sum(step ** 2)
        del step
    return total


def deletes_several(x):
    doubled = x * 2.0
    xs = [x[0], x[1], doubled[0]]
    del doubled, xs[0]
    return xs[0] * xs[1]


def deletes_from_the_front_in_a_loop(x):
    xs = [x[0] * (k + 1) + x[1] ** k for k in range(5)]
    for _ in range(2):
        del xs[0]
    return xs[0] * xs[-1]


def the_spelling_the_dict_refusal_names(x):
    d = {"a": x[0], "b": x[1]}
    d = {k: v for k, v in d.items() if k != "a"}
    return d["b"] ** 2 + len(d)


PROGRAMS = [deletes_list_items, deletes_in_a_nested_list, deletes_a_name_in_a_loop, deletes_several,
            deletes_from_the_front_in_a_loop, the_spelling_the_dict_refusal_names]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_every_mode_against_central_differences(f):
    rng = np.random.default_rng(len(f.__name__))
    assert_every_mode_matches(f, rng.standard_normal(2), rng.standard_normal(2), rng.standard_normal(2))


def reads_a_deleted_name(x):
    y = x * 2.0
    del y
    return np.sum(y)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_reading_a_deleted_name_raises_as_python_does(mode):
    x = np.array([1.0, 2.0])
    with pytest.raises(UnboundLocalError):
        reads_a_deleted_name(x)
    with pytest.raises(UnboundLocalError, match="'y'"):
        if mode == "grad":
            s2sad.grad(reads_a_deleted_name)(x)
        else:
            s2sad.jvp(reads_a_deleted_name, (x,), (x,))


def deletes_a_dict_key_in_a_nested_function(x):
    d = {"a": x[0], "b": x[1]}

    def drop(key):
        del d[key]  # MARK: del d
    drop("a")
    return d["b"] ** 2


def deletes_through_another_name(x):
    xs = [x[0], x[1]]
    ys = xs
    del xs[0]  # MARK: del xs other
    return ys[0] * x[0]


def deletes_from_a_list_a_tuple_holds(x):
    xs = [x[0], x[1]]
    t = (xs, 1)
    del xs[0]  # MARK: del xs tuple
    return t[0][0] * x[0]


def deletes_from_the_callers_list(x, xs):
    del xs[0]  # MARK: del caller
    return xs[0] * x[0]


REFUSED = [
    (deletes_a_dict_key_in_a_nested_function, (), "del d", "takes a key out of a dict in place"),
    (deletes_through_another_name, (), "del xs other", "and `ys` sees the same object"),
    (deletes_from_a_list_a_tuple_holds, (), "del xs tuple", "and `t` sees the same object"),
    (deletes_from_the_callers_list, ([1.0, 2.0],), "del caller", "which the caller passed in"),
]


@pytest.mark.parametrize("f, extra, marker, words", REFUSED, ids=[case[0].__name__ for case in REFUSED])
def test_refused_at_the_line(f, extra, marker, words):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(f)(np.array([0.5, -1.5]), *extra)
    message = str(raised.value)
    assert words in message
    assert f":{line_marked(HERE, 'MARK: ' + marker)}:" in message
