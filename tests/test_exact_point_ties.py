"""Ties between two sides that move with the same input: ``np.max(x) == np.min(x)``, two elements a
loop walks, a value carried from the last iteration. Both sides move with ``x``, but not together:
at a tie the branch chosen holds at that point alone, and s2sad refuses it there; where the sides are
one value (``x == x``, a copy) or the tie is of the maximum with the elements it is of (a one-hot
mask), the outcome holds around the point and is differentiated."""
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import FULL
from finite_differences import assert_hvp_matches, numerical_gradient


def scaled(x):
    lo, hi = np.min(x), np.max(x)
    if hi == lo:
        return np.sum(x * 0.0)
    return np.sum(((x - lo) / (hi - lo)) ** 2)


def carried(x):
    total, prev = 0.0, x[0]
    for i in range(1, len(x)):
        if x[i] == prev:
            total = total + np.sin(x[i])
        else:
            total = total + x[i] * prev
        prev = x[i]
    return total


def sorted_neighbours(x):
    s = sorted(x)
    return sum(np.sin(a) if a == b else a * b for a, b in zip(s[:-1], s[1:]))


def pairs_counted(x):
    total = 0.0
    for i, a in enumerate(x):
        for j, b in enumerate(x):
            total = total + (a * 2.0 if a == b else a * b)
    return total


def pairs(x):
    total = 0.0
    for a in x:
        for b in x:
            total = total + (a * 2.0 if a == b else a * b)
    return total


def ties_counted(x):
    return np.sum(x[:, None] == x[None, :]) * np.sum(x ** 2)


def one_hot_weighted(x):
    mask = x == x.max(axis=1, keepdims=True)
    return np.sum(np.where(mask, x, 0.0) ** 2) + np.sum(x)


def largest_kept(x):
    return np.sum(np.where(x == np.max(x), x ** 2, 0.0))


def nan_safe(x):
    y = np.copy(x)
    kept = np.where(x == x, x, 0.0) + np.where(y == x, y, 0.0)
    return np.sum(kept ** 2)


@pytest.mark.parametrize("f, tie, line", [
    (scaled, [0.5, 0.5, 0.5], "if hi == lo:"),                        # was [0, 0, 0]: the function jumps there
    (carried, [0.5, 0.5, 0.2], "if x[i] == prev:"),                   # was [0.878, 0.878, 0.5], NumPy's [0.5, 0.7, 0.5]
    (sorted_neighbours, [0.2, 0.5, 0.5], "return sum(np.sin(a) if a == b else a * b for a, b in zip(s[:-1], s[1:]))"),
    (pairs_counted, [0.5, 0.5, 0.2], "total = total + (a * 2.0 if a == b else a * b)"),  # was [4.4, 4.4, 4], NumPy's [3.4, 3.4, 4]
    (ties_counted, [0.5, 0.5, 0.2], "return np.sum(x[:, None] == x[None, :]) * np.sum(x ** 2)"),  # counts jump there
    (largest_kept, [0.5, 0.5, 0.2], "return np.sum(np.where(x == np.max(x), x ** 2, 0.0))"),       # was [1, 1, 0]
])
def test_ties_of_sides_moving_with_one_input_are_refused(f, tie, line):
    x = np.array(tie)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal") as caught:
        s2sad.grad(f)(x)
    assert caught.value.location.text.strip() == line
    apart = x + np.array([0.1, 0.3, 0.2])
    np.testing.assert_allclose(s2sad.grad(f)(apart), numerical_gradient(f, [apart], 0), rtol=1e-6, atol=1e-8)


def test_a_one_hot_mask_is_refused_at_a_tie_of_its_row_only():
    x = np.array([[0.5, 0.2], [0.1, 0.7]])
    np.testing.assert_allclose(s2sad.grad(one_hot_weighted)(x), numerical_gradient(one_hot_weighted, [x], 0),
                               rtol=1e-6)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(one_hot_weighted)(np.array([[0.5, 0.2], [0.7, 0.7]]))


def test_a_value_compared_with_itself_or_its_copy_is_not_refused():
    x = np.array([0.5, 0.5, 0.2])
    np.testing.assert_allclose(s2sad.grad(nan_safe)(x), numerical_gradient(nan_safe, [x], 0), rtol=1e-7)


def pairwise_gaps(x):
    d = x[:, None] - x[None, :]
    return np.sum(np.where(d == 0, 0.0, d ** 2)) + np.sum(np.where(d != 0.0, x[:, None], 1.0))


@pytest.mark.parametrize("f", [ties_counted, pairwise_gaps])
def test_second_order_code_reads_a_diagonal_as_its_first_order_check_does(f):
    """hvp differentiates forward code, whose indices are variables ((slice_2, None)): the comparison was
    checked again alone there and refused on the diagonal, at every point; the forward code's own check
    of ties runs as it is."""
    x, v, u = np.array([0.5, -0.3, 0.2]), np.array([0.3, 0.7, 1.1]), np.array([-0.5, 0.2, 0.9])
    assert_hvp_matches(s2sad.hvp(f, (x,), (v,)), f, [x], [v], [u], rtol=1e-6)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.hvp(f, (np.array([0.5, 0.5, 0.2]),), (v,))


def relu_mask(z):
    r = np.maximum(z, 0.0)
    return np.sum(np.where(r == z, z ** 2, 0.5 * z))


def test_a_difference_of_an_array_with_itself_is_refused_off_its_diagonal_only():
    # refused everywhere before: its diagonal is 0 wherever x is, and stays put
    x = np.array([0.5, -0.3, 0.2])
    np.testing.assert_allclose(s2sad.grad(pairwise_gaps)(x), numerical_gradient(pairwise_gaps, [x], 0), rtol=1e-7)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(pairwise_gaps)(np.array([0.5, 0.5, 0.2]))


def test_a_value_compared_with_its_maximum_with_another_is_refused_where_they_tie():
    z = np.array([0.5, -0.3, 0.2])
    np.testing.assert_allclose(s2sad.grad(relu_mask)(z), numerical_gradient(relu_mask, [z], 0), rtol=1e-7)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):  # was [1, 0, 0.4]: its slope jumps at 0
        s2sad.grad(relu_mask)(np.array([0.5, 0.0, 0.2]))


def largest_by_hand(x):
    m = max(x)
    return sum(v ** 2 if v == m else np.sin(v) for v in x)


def test_an_element_compared_with_the_maximum_of_its_array_is_refused_where_two_tie_for_it():
    x = np.array([0.5, 0.2, 0.7])
    np.testing.assert_allclose(s2sad.grad(largest_by_hand)(x), numerical_gradient(largest_by_hand, [x], 0), rtol=1e-7)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):  # was [1, 0.98, 1], NumPy's [0.94, 0.98, 0.94]
        s2sad.grad(largest_by_hand)(np.array([0.5, 0.2, 0.5]))


def sorted_already(x):
    if np.array_equal(x, np.sort(x)):
        return np.sum(np.sin(x))
    return np.sum(x ** 2)


def test_an_array_compared_with_itself_sorted_is_refused_where_two_elements_tie():
    x = np.array([0.2, 0.5, 0.7])
    np.testing.assert_allclose(s2sad.grad(sorted_already)(x), numerical_gradient(sorted_already, [x], 0), rtol=1e-7)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):  # was cos(x), NumPy's jumps there
        s2sad.grad(sorted_already)(np.array([0.5, 0.5, 0.7]))


def max_then_changed(x):
    y = x * 1.0
    m = np.max(y)
    y[0] = 2.0 * y[1]
    return np.sum(np.where(y == m, np.sin(y), y ** 2))


def test_a_value_changed_after_its_maximum_was_taken_is_checked_wherever_equal():
    # y[0] == m ties 2 x[1] with x[0], one hit only: the count of the maximum's ties gave [0, 2.14, 0.6]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(max_then_changed)(np.array([0.9, 0.45, 0.3]))


def kept_where_unclipped(x):
    c = np.clip(x, -1.0, 1.0)
    return np.sum(np.where(c == x, x ** 2, c))


def test_a_value_compared_with_its_clip_is_refused_at_a_bound_only():
    """np.clip(x, lo, hi) is x itself away from its bounds: the mask holds around such a point (it was
    refused everywhere once sides sharing an input were checked); at a bound its slope jumps."""
    x = np.array([0.3, -1.7, 1.2, 0.5])
    np.testing.assert_allclose(s2sad.grad(kept_where_unclipped)(x), numerical_gradient(kept_where_unclipped, [x], 0),
                               rtol=1e-7, atol=1e-9)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(kept_where_unclipped)(np.array([0.3, -1.0, 1.2, 0.5]))


def column_largest_kept(x):
    return np.sum(np.where(x == np.max(x, axis=0), x ** 2, np.sin(x)))


def row_largest_put_back(x):
    return np.sum(np.where(x == np.max(x, axis=1)[:, None], x ** 2, np.sin(x)))


def row_largest_expanded(x):
    return np.sum(np.where(x == np.expand_dims(np.max(x, axis=1), 1), x ** 2, np.sin(x)))


def last_axis_largest(x):
    return np.sum(np.where(x == np.max(x, axis=-1), x ** 2, np.sin(x)))


def nan_smallest_kept(x):
    return np.sum(np.where(x == np.nanmin(x), x ** 2, np.sin(x)))


def running_largest_kept(x):
    m = x[0]
    for v in x:
        if v > m:
            m = v
    return np.sum(np.where(x == m, x ** 2, np.sin(x)))


def running_largest_by_element(x):
    m = x[0]
    for v in x:
        if v > m:
            m = v
    return sum(v ** 2 if v == m else np.sin(v) for v in x)


@pytest.mark.parametrize("f, apart, tie, line", [
    (pairs, [0.5, 0.2, 0.7], [0.5, 0.2, 0.5], "total = total + (a * 2.0 if a == b else a * b)"),
    (column_largest_kept, [[0.5, 0.2], [0.1, 0.7], [0.3, 0.4]], [[0.5, 0.7], [0.1, 0.7], [0.3, 0.4]],
     "return np.sum(np.where(x == np.max(x, axis=0), x ** 2, np.sin(x)))"),
    (row_largest_put_back, [[0.5, 0.2, 0.3], [0.1, 0.7, 0.4]], [[0.5, 0.2, 0.5], [0.1, 0.7, 0.4]],
     "return np.sum(np.where(x == np.max(x, axis=1)[:, None], x ** 2, np.sin(x)))"),
    (row_largest_expanded, [[0.5, 0.2, 0.3], [0.1, 0.7, 0.4]], [[0.5, 0.2, 0.3], [0.7, 0.7, 0.4]],
     "return np.sum(np.where(x == np.expand_dims(np.max(x, axis=1), 1), x ** 2, np.sin(x)))"),
    (last_axis_largest, [0.5, 0.2, 0.7], [0.7, 0.2, 0.7],
     "return np.sum(np.where(x == np.max(x, axis=-1), x ** 2, np.sin(x)))"),
    (nan_smallest_kept, [0.5, 0.2, 0.7], [0.5, 0.2, 0.2], "return np.sum(np.where(x == np.nanmin(x), x ** 2, np.sin(x)))"),
    (running_largest_kept, [0.5, 0.2, 0.7], [0.7, 0.2, 0.7], "return np.sum(np.where(x == m, x ** 2, np.sin(x)))"),
    (running_largest_by_element, [0.5, 0.2, 0.7], [0.5, 0.7, 0.7], "return sum(v ** 2 if v == m else np.sin(v) for v in x)"),
])
def test_sides_holding_elements_of_one_array_are_refused_at_ties_only(f, apart, tie, line):
    """Refused wherever equal before, as sides holding several values or not lined up: each side holds
    elements of one array (a loop's, a running maximum's ``m``), or a maximum along the axis it lines up
    with; where no two elements tie, equal sides hold one element, which moves with itself."""
    apart, tie = np.array(apart), np.array(tie)
    np.testing.assert_allclose(s2sad.grad(f)(apart), numerical_gradient(f, [apart], 0), rtol=1e-6, atol=1e-8)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal") as caught:
        s2sad.grad(f)(tie)
    assert caught.value.location.text.strip() == line


@pytest.mark.parametrize("f", [pairs, running_largest_by_element, row_largest_put_back])
def test_elements_of_one_array_apart_in_forward_and_second_order_code(f):
    x = np.array([[0.5, 0.2, 0.3], [0.1, 0.7, 0.4]]) if f is row_largest_put_back else np.array([0.5, 0.2, 0.7])
    v, u = np.linspace(0.3, 1.1, x.size).reshape(x.shape), np.linspace(-0.5, 0.9, x.size).reshape(x.shape)
    _, tangent = s2sad.jvp(f, (x,), (v,))
    assert tangent == pytest.approx((f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6, rel=1e-6)
    assert_hvp_matches(s2sad.hvp(f, (x,), (v,)), f, [x], [v], [u], rtol=1e-4, atol=1e-6)


def squares_of_members(x):
    return sum(v ** 2 if v in x else np.sin(v) for v in x)


def test_an_element_found_in_its_own_array_is_not_refused():
    """``v in x`` of an element of ``x`` is True wherever ``v`` is a number: it was refused wherever
    two elements were equal (and before, wherever it ran)."""
    for x in (np.array([0.5, 0.2, 0.7]), np.array([0.5, 0.5, 0.7])):
        np.testing.assert_allclose(s2sad.grad(squares_of_members)(x), 2 * x, rtol=1e-12)


def row_largest_not_lined_up(x):
    return np.sum(np.where(x == np.max(x, axis=1), x ** 2, np.sin(x)))


def running_largest_from_a_start(x, start):
    for v in x:
        if v > start:
            start = v
    return np.sum(np.where(x == start, x ** 2, np.sin(x)))


@pytest.mark.parametrize("f, args", [
    # x[i, j] is compared with the maximum of row j: two elements of two rows, whatever the ties in a row
    (row_largest_not_lined_up, (np.array([[0.5, 0.7], [0.7, 0.2]]),)),
    # start may keep the value given, no element of x: equal to x[0] here, with nothing tied in x
    (running_largest_from_a_start, (np.array([0.5, 0.2]), 0.5)),
])
def test_sides_not_shown_to_hold_one_element_are_checked_wherever_equal(f, args):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(f, argnums=(0, 1) if len(args) == 2 else 0)(*args)


@pytest.mark.skipif(not FULL, reason="Numba's compile time (S2SAD_TESTS=full)")
@pytest.mark.parametrize("f", [pairs, running_largest_kept])
def test_elements_of_one_array_compiled(f):
    pytest.importorskip("numba")
    gradient = s2sad.grad(f, compile=True)
    x = np.array([0.5, 0.2, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # compiled, not run on the NumPy path
        np.testing.assert_allclose(gradient(x), numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-8)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        gradient(np.array([0.7, 0.2, 0.7]))
