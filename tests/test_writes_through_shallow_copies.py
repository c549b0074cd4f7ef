"""A write in place into an item of a new container made from what the caller gave (``h = {**d}``,
``dict(d)``, ``d.copy()``, ``d | e``, ``list(rows)``, ``sorted(rows)``, a view ``w = a[:2]``): Python
changes the caller's very array, which s2sad's derivative code did not, and nothing refused it.
A caller reading its dict after the helper got a wrong number (session 17, found probing the
brief's item 7): grad of ``outer`` below gave [0.02, 1.9, 2.0] where central differences give
[0.02, 1.8, 2.0] (so with ``a = list(rows).pop(); a[0] = v``), and with ``h["w"] += x`` [1.0, 2.2, 3.4]
against [0.0, 2.4, 4.8]. Now refused at
the line, checked as the code runs (``not_the_callers``): an array's own ``.copy()``, a number
rebound, a slot of the copy given a new value, pass as before. Item 7 itself: ``h = a | {...}``
then ``h["w"][0] = v`` says that ``h`` was merged from ``a``, instead of a value the function
"did not make itself"."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches

X = np.linspace(-0.5, 0.7, 3)


def _written_through_a_display_copy(x, d):
    h = {**d, "c": x}
    h["w"][0] = x[1] ** 2  # marker: through a copy
    return np.sum(h["w"] * x)


def _added_into_through_a_copy(x, d):
    h = d.copy()
    h["w"] += x  # marker: through a copy
    return np.sum(h["w"] * x)


def _scaled_through_a_list(x, rows):
    r = list(rows)
    r[0] *= x  # marker: through a copy
    return np.sum(r[0])


def _written_after_a_pop(x, rows):
    r = list(rows)
    a = r.pop()  # (the copy's own list loses its item: the caller's `rows` keeps it)
    a[0] = x[1] ** 2  # marker: the popped item, which `rows` holds too, written
    return np.sum(a * x)


def reads_its_list_after_the_helper_wrote_a_popped_item(x):
    rows = [np.ones(3)]
    s = _written_after_a_pop(x, rows)
    return s + np.sum(rows[0] * x)


def reads_its_dict_after_the_helper_wrote_it(x):
    d = {"w": np.ones(3)}
    s = _written_through_a_display_copy(x, d)
    return s + np.sum(d["w"] * x)


def reads_its_dict_after_the_helper_added_into_it(x):
    d = {"w": np.ones(3)}
    s = _added_into_through_a_copy(x, d)
    return s + np.sum(d["w"] * x)


def reads_its_list_after_the_helper_scaled_it(x):
    rows = [np.ones(3)]
    s = _scaled_through_a_list(x, rows)
    return s + np.sum(rows[0] * x)


def merged_then_written_the_source_read_after(x):
    a = {"w": x * 1.0}
    h = a | {"c": x * 2.0}
    h["w"][0] = x[1] ** 2  # marker: merged
    return np.sum(h["w"] * x + h["c"] + a["w"])


@pytest.mark.parametrize("function, message", [
    (reads_its_dict_after_the_helper_wrote_it, "it is the caller's `d`"),
    (reads_its_dict_after_the_helper_added_into_it, "it is the caller's `d`"),
    (reads_its_list_after_the_helper_scaled_it, "it is the caller's `rows`"),
    (merged_then_written_the_source_read_after, "`h` was merged from `a`"),
    (reads_its_list_after_the_helper_wrote_a_popped_item, "in place"),
])
def test_a_write_reaching_what_the_caller_holds_is_refused_at_its_line(function, message):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=message) as caught:
        s2sad.grad(function)(X)
    assert "# marker:" in caught.value.location.text


def test_the_callers_dict_is_left_as_it_was_when_refused():
    d = {"w": np.ones(3)}
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="it is the caller's `d`"):
        s2sad.grad(_added_into_through_a_copy)(X, d)
    np.testing.assert_array_equal(d["w"], np.ones(3))


def copies_that_hold_nothing_of_the_callers(x):
    d = {"w": x * 1.0, "n": 2.0}
    h = dict(d)
    h["w"] = h["w"] * 2.0  # a slot of the copy given a new array
    h["n"] += 1.0  # a number, rebound
    y = np.outer(x, x).copy()
    r = y[0:2]
    r += 1.0  # a view of the array's own copy
    return np.sum(h["w"] * x) * h["n"] + np.sum(r * x[:1])


def test_writes_into_what_the_function_made_are_differentiated():
    assert_every_mode_matches(copies_that_hold_nothing_of_the_callers, X, np.cos(np.arange(3.0)),
                              np.sin(np.arange(3.0) + 1.0))


def given_copies_written_into_the_function_own_objects(x, d):
    scale = d["w"] * 1.0
    h = dict(d)
    h["w"] = x * 1.0
    h["w"][0] = x[1] ** 2  # the array put in the copy here, not the caller's
    return np.sum(h["w"] * x * scale)


def test_a_given_dicts_copy_given_a_new_array_then_written_is_differentiated():
    d = {"w": np.array([1.0, 2.0, 3.0])}
    expected = np.array([X[1] ** 2, 2.0 * X[1] * X[0] + 4.0 * X[1], 6.0 * X[2]])
    np.testing.assert_allclose(s2sad.grad(given_copies_written_into_the_function_own_objects)(X, d), expected, rtol=1e-12)
    np.testing.assert_array_equal(d["w"], [1.0, 2.0, 3.0])
