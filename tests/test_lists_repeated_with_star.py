"""A list or tuple written out and repeated with `*` (``[x[0] * x[1], x[2]] * n``, ``2 * (x, x ** 2)``) before a
NumPy call: each item's cotangent is the sum of its copies' (it was refused in grad and hvp). Also a list
written out times an array (``[0.5, x[0]] * x``, NumPy's product), whose hvp crashed with a TypeError. Every
mode against central differences (mixed second differences for hvp); the caller's arrays unchanged; an item
of the repeated list written in place (every slot is that one object) stays refused at its line."""
import numpy as np
import pytest

import s2sad

from finite_differences import assert_every_mode_matches

X = np.array([0.3, -1.2, 0.7])
V = np.array([1.0, 0.5, -2.0])
U = np.array([0.2, -1.0, 0.4])


def repeated_n_times(x, n=3):
    return np.sum(np.array([x[0] * x[1], x[2]] * n) ** 3)


def tuple_repeated_from_the_left(x):
    return np.sum(np.sum(2 * (x, x ** 2), axis=0) ** 2)


def read_by_numpy_as_one_array(x):
    return np.sum(np.sin([x[0] * x[2]] * 4) * np.arange(1.0, 5.0))


def rows_stacked(x):
    rows = [x * 1.0] * 2
    return np.sum(np.stack(rows) * np.stack([x, x ** 2]))


def written_out_times_an_array(x):
    return np.sum(([0.5, x[0], 2.0] * x) ** 2)


@pytest.mark.parametrize("f", [repeated_n_times, tuple_repeated_from_the_left, read_by_numpy_as_one_array,
                               rows_stacked, written_out_times_an_array], ids=lambda f: f.__name__)
def test_every_mode_against_central_differences(f):
    given = X.copy()
    assert_every_mode_matches(f, X, V, U)
    np.testing.assert_array_equal(X, given)


def one_slot_written(x):
    rows = [x * 1.0] * 2
    rows[0][0] = 5.0  # Python changes rows[1] too: both slots hold one array
    return np.sum(rows[1] ** 2)


def test_an_item_written_in_place_stays_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="held in more than one place") as caught:
        s2sad.grad(one_slot_written)(X)
    assert caught.value.location.text.strip().startswith("rows[0][0] = 5.0")
