"""A function of a list (or tuple) of floats that NumPy reads as one array (``np.sum(np.sin(xs))``):
the rule's cotangent is an array, and the gradient comes back in the caller's structure, a list
of floats for a list of floats, also where the list's items are read one by one as well. These
raised "a ndarray was given as the cotangent of a list" (or "cannot add a ndarray to a list of 3
cotangents"). Checked in grad, vjp, jvp and hvp against central differences in float64."""
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import mixed_second_difference, numerical_gradient  # noqa: E402


def sines_of_a_list(xs):
    return np.sum(np.sin(xs)) * np.linalg.norm(xs)


def read_as_an_array_and_by_item(xs):
    return np.sum(np.sin(xs)) + xs[1] ** 2


def a_list_made_from_the_list(xs):
    ys = [x * 2.0 for x in xs]
    return np.std(ys) + ys[0] * 3.0


def rows_of_a_nested_list(rows):
    return np.sum(np.tanh(rows) @ np.array([1.0, -2.0]))


def _flat(structure):
    return np.array(structure, dtype=np.float64).ravel()


def _like(flat, structure):
    """``flat`` back in ``structure``'s lists and tuples, of Python floats."""
    if isinstance(structure, (list, tuple)):
        sizes = [np.size(item) for item in structure]
        pieces = np.split(flat, np.cumsum(sizes)[:-1])
        return type(structure)(_like(piece, item) for piece, item in zip(pieces, structure))
    return float(flat[0])


CASES = [
    (sines_of_a_list, [0.3, -1.2, 2.0]),
    (sines_of_a_list, (0.5, 1.5)),
    (read_as_an_array_and_by_item, [0.3, -1.2, 2.0]),
    (a_list_made_from_the_list, [0.3, -1.2, 2.0]),
    (rows_of_a_nested_list, [[0.3, -1.2], [2.0, 0.1], [0.7, -0.4]]),
]


@pytest.mark.parametrize("f, xs", CASES, ids=lambda case: getattr(case, "__name__", type(case).__name__))
def test_every_mode_of_a_function_of_a_list(f, xs):
    kept = repr(xs)
    flat = _flat(xs)
    on_flat = lambda a: f(_like(a, xs))  # noqa: E731
    expected = numerical_gradient(on_flat, [flat], 0)
    gradient = s2sad.grad(f)(xs)
    assert type(gradient) is type(xs) and len(gradient) == len(xs)
    assert all(type(item) is type(x) for item, x in zip(gradient, xs))  # floats for floats, lists for lists
    np.testing.assert_allclose(_flat(gradient), expected, rtol=1e-5, atol=1e-7)
    value, pullback = s2sad.vjp(f, xs)
    assert value == pytest.approx(f(xs))
    np.testing.assert_allclose(_flat(pullback(2.0)[0]), 2.0 * expected, rtol=1e-5, atol=1e-7)
    v = np.linspace(0.5, -0.3, flat.size)
    u = np.linspace(-0.2, 0.9, flat.size)
    _, slope = s2sad.jvp(f, (xs,), (_like(v, xs),))
    assert slope == pytest.approx(float(expected @ v), rel=1e-5, abs=1e-7)
    product = s2sad.hvp(f, (xs,), (_like(v, xs),))
    assert float(_flat(product) @ u) == pytest.approx(mixed_second_difference(on_flat, [flat], [v], [u]),
                                                      rel=1e-4, abs=1e-6)
    assert repr(xs) == kept


def test_a_list_of_arrays_read_as_one_array():
    xs = [np.array([0.3, -1.2]), np.array([2.0, 0.1])]
    gradient = s2sad.grad(lambda xs: np.sum(np.exp(xs) * np.array([1.0, 2.0])))(xs)
    assert type(gradient) is list
    for item, x in zip(gradient, xs):
        np.testing.assert_allclose(item, np.exp(x) * [1.0, 2.0], rtol=1e-12)


def test_an_array_cotangent_of_a_list_is_split_only_into_its_items_rows():
    from s2sad.runtime.projection import project
    from s2sad.runtime.tangents import ZERO, plus
    assert plus([1.0, ZERO, 2.0], np.array([1.0, 2.0, 3.0])) == [2.0, 2.0, 5.0]
    leading = np.arange(9.0).reshape(3, 3)  # a cotangent not yet summed over the axis broadcasting put in front
    with pytest.raises(ValueError, match="structures differ"):
        plus([1.0, ZERO, 2.0], leading)
    assert plus([ZERO, ZERO, ZERO], leading) is leading
    projected = project([1.0, 2.0, 3.0], leading)  # summed over that axis, then one row an item
    assert [projected[i] for i in range(3)] == [9.0, 12.0, 15.0]
