"""Ties between two sides that move with the same input: ``np.max(x) == np.min(x)``, two elements a
loop walks, a value carried from the last iteration. Both sides move with ``x``, but not together:
at a tie the branch chosen holds at that point alone, and s2sad refuses it there; where the sides are
one value (``x == x``, a copy) or the tie is of the maximum with the elements it is of (a one-hot
mask), the outcome holds around the point and is differentiated."""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient


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


def test_two_elements_a_loop_walks_without_a_counter_are_refused():
    # was [6, 6, 6], NumPy's [4, 4, 4]; the diagonal (a is b) cannot be told from a tie without a counter,
    # so it is refused wherever it runs
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(pairs)(np.array([0.5, 0.5, 0.5]))


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
