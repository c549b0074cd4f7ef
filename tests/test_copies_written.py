"""Writes into NumPy's copies (session 16, brief copies16 item 3).

``y[[0, 2]]`` and ``y[y > 0]`` (an advanced index) are copies NumPy makes: writing into one
leaves ``y`` as it was. Before, s2sad linked every ``y[...]`` to ``y`` and refused the write
where ``y`` was read after ("changes memory that `y` shares"). Now such an index of an array
NumPy or an operator made is a copy (aliasing._a_copy_by_advanced_index). What may be a view
stays refused: a slice, an index a branch may make a slice, an index of a list (which hands
back the object it holds) or of an argument, and ``ravel``/``ascontiguousarray``, which copy or
not by the array's layout. Every gradient is checked against central differences in float64
in grad, vjp, jvp and hvp."""
import numpy as np
import pytest

from finite_differences import assert_every_mode_matches, refusal_in

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, -1.0, 1.5])
U = np.array([1.0, 0.25, -0.5])


# ---------------------------------------------------------------- exact
def fancy_copy_written_original_read(x):
    y = np.sin(x)
    z = y[[0, 2]]
    z[0] = 5.0 * z[1]
    return np.sum(z * x[:2]) + np.sum(y * y)


def index_list_in_a_variable(x):
    y = np.tanh(x) * 2.0
    i = [0, 2]
    z = y[i]
    z[1] += x[0] ** 2
    return np.sum(z ** 2) + np.sum(y * x)


def mask_copy_written_original_read(x):
    y = np.exp(x)
    z = y[y > 1.0]
    z[0] = z[0] * x[1]
    return np.sum(z) + np.sum(y ** 2)


def mask_of_a_number(x):
    y = np.cos(x) * 3.0
    z = y[np.sum(x) > 0]  # a boolean scalar index: a copy with one more axis
    z[0, 1] = x[2] ** 3
    return np.sum(z * z) + np.sum(y)


def fancy_columns_of_a_matrix(x):
    m = np.outer(x, x)
    z = m[:, [0, 2]]
    z[1, 0] = np.cos(x[1])
    return np.sum(z * 2.0) + np.sum(m * m)


def original_held_in_a_tuple_and_a_dict(x):
    y = np.sin(x)
    t, d = (y, 1.0), {"y": y}
    z = y[[1, 2]]
    z[0] = x[0] * 4.0
    return np.sum(t[0] * d["y"]) + np.sum(z)


def the_copy_written_twice(x):
    y = np.exp(x) ** 2
    z = y[y >= 0.0]
    z[0] = 1.0
    z[1:] = z[1:] * x[0]
    return np.sum(z) * np.sum(y)


EXACT = [fancy_copy_written_original_read, index_list_in_a_variable, mask_copy_written_original_read,
         mask_of_a_number, fancy_columns_of_a_matrix, original_held_in_a_tuple_and_a_dict, the_copy_written_twice]


@pytest.mark.parametrize("f", EXACT, ids=lambda f: f.__name__)
def test_every_mode_matches_finite_differences(f):
    assert_every_mode_matches(f, X, V, U)


# ---------------------------------------------------------------- refused: may be a view
def slice_written_original_read(x):
    y = np.sin(x)
    z = y[0:2]
    z[0] = 1.0
    return np.sum(y)


def index_a_branch_may_make_a_slice(x):
    y = np.sin(x)
    if np.sum(x) > 0:
        i = [0, 1]
    else:
        i = slice(0, 2)
    z = y[i]
    z[0] = 1.0
    return np.sum(y)


def index_of_an_argument(x):
    z = x[[0, 1]]  # x may be anything the caller passed: a user object's [] may hand back what it holds
    z[0] = 1.0
    return np.sum(x * 2.0)


def index_of_a_list(x):
    rows = [x * 1.0, x * 2.0]
    r = rows[len(rows) > 1]  # a list's [True] is its item 1 itself
    r[0] = 1.0
    return np.sum(rows[1])


def ravel_of_a_transpose(x):
    m = np.outer(x, x)
    r = m.T.ravel()  # a copy here, a view when the array is contiguous: decided by layout
    r[0] = 1.0
    return np.sum(r * m)


def index_of_a_repeated_tuple(x):
    t = (x * 1.0, x * 2.0)
    twice = t * 2  # holds the very arrays t holds (a wrong number on main: taken for new memory)
    r = twice[len(t) > 1]
    r[0] = 1.0
    return np.sum(t[1] * x)


def item_of_two_lists_added(x):
    a, b = [x * 1.0], [x * 2.0]
    c = a + b  # holds the very arrays a and b hold (a wrong number on main: taken for new memory)
    r = c[1]
    r[0] = 1.0
    return np.sum(b[0] * x)


def item_of_a_repeated_list_added_into(x):
    t = [x * 1.0, x * 2.0]
    r = (t * 2)[3]
    r += 1.0  # (a wrong number on main)
    return np.sum(t[1] * x)


def contiguous_copy(x):
    m = np.outer(x, x)
    c = np.ascontiguousarray(m)  # m itself: already contiguous
    c[0, 0] = 1.0
    return np.sum(m)


REFUSED = [slice_written_original_read, index_a_branch_may_make_a_slice, index_of_an_argument, index_of_a_list,
           index_of_a_repeated_tuple, item_of_two_lists_added,
           item_of_a_repeated_list_added_into, ravel_of_a_transpose, contiguous_copy]


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
def test_what_may_be_a_view_stays_refused(f, mode):
    error = refusal_in(mode, f, X, "in place|shares")
    assert error.location is not None
    if f in (ravel_of_a_transpose, contiguous_copy):  # said to depend on the layout, not to be a view
        assert "gives a view or a copy by the array's layout" in str(error)
