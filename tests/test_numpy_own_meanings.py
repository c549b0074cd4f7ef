"""NumPy's classes whose operators and functions compute otherwise than an ndarray's: np.matrix
(`*` is a matrix product), masked arrays (arithmetic and reductions pass over masked entries),
np.poly1d (`*` multiplies polynomials). The rules differentiate ndarray arithmetic, so such a value,
given, read from a global, held in a container or made inside, is refused where it is met.

Before this check each case below gave a number, and a wrong one: `np.sum(A * A)` of a 2x2
np.matrix gave 2A where central differences give A.T-plus-A's column sums, a masked entry of
`np.sum(np.sin(x))` got cos(x) where central differences give 0 (the sum passes over it).
"""
import warnings

import numpy as np
import pytest

import s2sad
from tests.finite_differences import numerical_gradient, refusal_in

X = np.array([[0.3, -0.2], [0.1, 0.7]])
MASK = [[False, True], [False, False]]
C = np.array([[1.0, 0.5], [-0.3, 2.0]])
MASKED_WEIGHTS = np.ma.masked_array([[1.0, 2.0], [3.0, 4.0]], mask=MASK)
DATA = np.array([[1.0, np.nan], [0.5, 2.0]])
POLY = np.poly1d([2.0, 1.0])


class Holder:
    def __init__(self, w):
        self.w = w


def matrix_squares(A):
    return np.sum(A * A)


def sum_of_sines(x):
    return np.sum(np.sin(x))


def weighted_by_a_masked_global(x):
    return np.sum(np.multiply(x, MASKED_WEIGHTS))


def through_a_matrix_made_here(x):
    M = np.asmatrix(C)
    return np.sum(np.dot(x, M) * M)


def against_masked_data(x):
    observed = np.ma.masked_invalid(DATA)
    return np.sum((x - observed) ** 2)


def item_of_a_dict(p):
    return np.sum(np.sin(p["w"]) * 2.0)


def attribute_of_an_object(h, x):
    return np.sum(np.sin(h.w) * x)


def times_a_polynomial(x):
    return np.sum(x * POLY)


def scaled(x, s):
    return np.sum(np.sin(x) * s)


def _masked(values):
    return np.ma.masked_array(values, mask=MASK)


def test_the_numbers_the_old_code_gave_are_not_numpys():
    """What the refusals below protect against: NumPy's own derivative differs from the rules'."""
    A = np.asmatrix(X)
    by_rules = 2.0 * X  # d/dA of sum(A * A) for an ndarray
    assert not np.allclose(numerical_gradient(lambda a: matrix_squares(np.asmatrix(a)), (X.copy(),), 0), by_rules)
    assert float(np.sum(A * A)) != float(np.sum(X * X))
    masked_gradient = numerical_gradient(lambda a: sum_of_sines(_masked(a)), (X.copy(),), 0)
    assert masked_gradient[0, 1] == 0.0 and np.cos(X[0, 1]) != 0.0


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f, given, match", [
    (matrix_squares, lambda: np.asmatrix(X), r"`A`, used with an operator, is a `numpy.matrix`"),
    (sum_of_sines, lambda: _masked(X), r"`x` is a `numpy.ma.MaskedArray`"),
    (weighted_by_a_masked_global, lambda: X, r"`MASKED_WEIGHTS` is a `numpy.ma.MaskedArray`"),
    (through_a_matrix_made_here, lambda: X, r"`np.asmatrix` makes a value"),
    (against_masked_data, lambda: X, r"`np.ma.masked_invalid` makes a value"),
    (times_a_polynomial, lambda: X, r"`POLY` is a `numpy.poly1d`"),
])
def test_refused_where_met(f, given, match, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # np.matrix's own
        # (in hvp a masked tangent, np.ones_like of the masked x, may be the first met: `dx`)
        error = refusal_in(mode, f, given(), match if mode != "hvp" else match.split("is a")[-1])
    assert error.location is not None and error.location.filename == __file__


def test_held_in_a_dict_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`p` holds a `numpy.ma.MaskedArray`"):
        s2sad.grad(item_of_a_dict)({"w": _masked(X)})


def test_read_from_an_object_refused_where_it_is_reduced():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"numpy.ma.MaskedArray"):
        s2sad.grad(attribute_of_an_object, argnums=1)(Holder(_masked(X)), X)


def test_a_masked_argument_after_plain_calls_refused():
    """The warm lanes run the generated rrule straight away: its first line checks the arguments."""
    gradient = s2sad.grad(scaled)
    for _ in range(3):
        np.testing.assert_allclose(gradient(X, np.ones((2, 2))), np.cos(X), rtol=1e-12)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`s`, used with an operator, is a `numpy.ma.MaskedArray`"):
        gradient(X, _masked(np.ones((2, 2))))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`x` is a `numpy.ma.MaskedArray`"):
        gradient(_masked(X), np.ones((2, 2)))


def test_compiled_refuses_a_masked_argument():
    pytest.importorskip("numba")
    gradient = s2sad.grad(sum_of_sines, compile=True)
    np.testing.assert_allclose(gradient(X), np.cos(X), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`x` is a `numpy.ma.MaskedArray`"):
            gradient(_masked(X))


class Tagged(np.ndarray):
    """A subclass that keeps every operator and function NumPy's: differentiated as an ndarray."""


def test_a_subclass_keeping_numpys_meanings_is_differentiated():
    tagged = X.copy().view(Tagged)
    gradient = s2sad.grad(matrix_squares)(tagged)
    np.testing.assert_allclose(np.asarray(gradient), numerical_gradient(matrix_squares, (X.copy(),), 0), rtol=1e-6)
