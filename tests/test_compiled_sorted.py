"""compile=True through Python's ``sorted`` of floats (compiled_sorting.py): its value and its
cotangent's order are Python's stable sort (before, every such function ran on the NumPy path:
Numba's code could not call the rule's pullback)."""
import numpy as np
import pytest

from corpus_cases import FULL
from test_compiled_arrays import compiled_against_references

numba = pytest.importorskip("numba")


def ranked_penalties(w):
    penalties = sorted([np.sum(w ** 2), np.sum(np.abs(w)), np.sum(np.sin(w))], reverse=True)
    return penalties[0] + 2 * penalties[-1] + 0.5 * sorted((penalties[1], w[0]))[0]


@pytest.mark.skipif(not FULL, reason="an array gradient's compile time (S2SAD_TESTS=full; the corpus's sorted_penalties)")
def test_sorted_compiles_and_gives_numpys_gradient():
    compiled_against_references(ranked_penalties, (np.array([0.3, -1.2, 0.8]),), (0,))


def test_equal_numbers_keep_their_places_as_in_python():
    """0.0 and -0.0 are equal: Python's sort keeps them in the order given, both ways, and the
    cotangent of each sorted place goes back to the item Python put there."""
    from s2sad.compiled_overloads import sorted_items, sorted_vjp_iterable

    @numba.njit
    def sort(xs, g, reverse):
        return sorted_items(sorted, xs, reverse=reverse), sorted_vjp_iterable(g, None, xs, None, reverse)

    numbers = [0.0, 2.0, -0.0, -1.0, 0.0]
    g = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    (ascending, back), (descending, back_reversed) = (sort(tuple(numbers), g, reverse) for reverse in (False, True))
    for got, expected in ((ascending, sorted(numbers)), (descending, sorted(numbers, reverse=True))):
        assert got == expected and list(np.signbit(got)) == list(np.signbit(expected))
    # by hand: ascending, -1.0 (item 3), 0.0 (0), -0.0 (2), 0.0 (4), 2.0 (1); descending 1, 0, 2, 4, 3
    np.testing.assert_array_equal(back, [10.0, 10000.0, 100.0, 1.0, 1000.0])
    np.testing.assert_array_equal(back_reversed, [10.0, 1.0, 100.0, 10000.0, 1000.0])
