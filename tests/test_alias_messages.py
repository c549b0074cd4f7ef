"""Refusals that said something untrue (session 16, brief copies16 item 4), each now true.

* ``W, b = copies(w0, w1)`` then ``b += 1.0``, ``W`` read: refused as "`W` shares it (a view,
  or the same object under another name)", of two separate copies. The analysis joins names
  unpacked from one tuple a call returned (the call may return one array twice, ``(a, a)``,
  so the refusal stands): the message now says it may be one of those, and why.
* ``t = (a, b); t[-1][0] = v``: a TypeError from the generated code ("'tuple' object does not
  support item assignment", where Python writes into the array); now refused at the line.
* ``if model.ok():`` on a user object holding differentiated arrays: refused as a call that
  "does not use its result", which the test does; now it says where the result is used.
"""
import numpy as np
import pytest

from finite_differences import assert_every_mode_matches, refusal_in

X = np.array([0.3, -0.7, 1.1])
MODES = ["grad", "jvp", "hvp"]


def copies(w0, w1):
    return w0.copy(), w1.copy()


def copies_unpacked_then_one_added_into(x):
    w0, w1 = x * 1.0, x * 2.0
    W, b = copies(w0, w1)
    b += 1.0
    return np.sum(W * b)


def copies_unpacked_then_one_written(x):
    w0, w1 = x * 1.0, x * 2.0
    W, b = copies(w0, w1)
    b[0] = 1.0
    return np.sum(W * b)


def copies_unpacked_then_copied_again(x):  # the hint's way out
    w0, w1 = x * 1.0, x * 2.0
    W, b = copies(w0, w1)
    b = b.copy()
    b += 1.0
    b[0] = x[0] ** 2
    return np.sum(W * b)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f", [copies_unpacked_then_one_added_into, copies_unpacked_then_one_written],
                         ids=lambda f: f.__name__)
def test_names_unpacked_from_one_call_say_they_may_share(f, mode):
    error = refusal_in(mode, f, X, "`W` shares")
    text = str(error)
    assert "or one it may be: an item taken out of the same container or call" in text
    assert "b = b.copy()" in text


def test_the_hints_copy_is_exact():
    assert_every_mode_matches(copies_unpacked_then_copied_again, X, np.array([0.5, -1.0, 1.5]),
                              np.array([1.0, 0.25, -0.5]))


def item_of_a_tuple_written(x):
    t = (x * 1.0, x * 2.0)
    t[-1][0] = 1.0
    return np.sum(t[1]) + np.sum(t[0])


def item_of_a_list_written(x):
    t = [x * 1.0, x * 2.0]
    t[-1][0] = x[0] ** 3
    return np.sum(t[1] * x) + np.sum(t[0])


@pytest.mark.parametrize("mode", MODES)
def test_an_item_of_a_tuple_changed_in_place_is_refused_at_its_line(mode):
    error = refusal_in(mode, item_of_a_tuple_written, X, "`t\\[-1\\]` is an item of a tuple")
    assert error.location.line == item_of_a_tuple_written.__code__.co_firstlineno + 2


def test_the_same_in_a_list_is_exact():
    assert_every_mode_matches(item_of_a_list_written, X, np.array([0.5, -1.0, 1.5]), np.array([1.0, 0.25, -0.5]))


class Model:
    def __init__(self, W):
        self.W = W

    def positive(self):
        return bool(np.sum(self.W) > 0)


def method_read_as_a_test(x):
    model = Model(x * 2.0)
    if model.positive():
        return np.sum(model.W ** 2)
    return np.sum(model.W)


@pytest.mark.parametrize("mode", MODES)
def test_a_method_read_as_a_test_is_not_said_to_be_unused(mode):
    error = refusal_in(mode, method_read_as_a_test, X, "uses its result only where it carries no gradient")
    assert "does not use its result" not in str(error)
