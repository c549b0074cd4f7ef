"""compile=True through a branch chosen by ``==`` or ``!=`` on a differentiated value
(runtime/exact_points.py): the compiled gradient checks each such comparison as the NumPy path
does, compiled code of arrays by the overload of ``at_an_exact_point`` (compiled_exact_points.py),
code of floats by an ``if`` written in its place (codegen/for_numba.py). Where no element is equal
it compiles and gives NumPy's numbers; where one is, the call runs again on the NumPy path, which
refuses it at the user's line, as it does without compile=True. (Before, every such function ran
on the NumPy path: Numba had no ``at_an_exact_point``.)"""
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import FULL
from test_compiled_arrays import compiled_against_references
from test_exact_point_guards import expm1_over_x_scalar

numba = pytest.importorskip("numba")
# a gradient of arrays costs Numba seconds to compile: the overload is checked alone below, and in a
# whole gradient with S2SAD_TESTS=full
ARRAYS = pytest.mark.skipif(not FULL, reason="an array gradient's compile time (S2SAD_TESTS=full)")


def expm1_over_x_twice_guarded(x):
    safe = np.where(x == 0, 1.0, x)
    return np.sum(np.where(x != 1.0, np.expm1(safe) / safe, np.e - 1.0) * x)


def scaled_unless_one(a, b):
    if a != 1.0:
        return a * b * b
    return b * b


def expm1_over_x_if_truthy(x):
    if x:
        return np.expm1(x) / x
    return 1.0


@pytest.mark.parametrize("f, args", [pytest.param(expm1_over_x_twice_guarded, (np.array([0.2, -0.4]),), marks=ARRAYS),
                                     (expm1_over_x_scalar, (0.3,)), (scaled_unless_one, (0.5, 3.0))])
def test_compiled_where_nothing_is_equal(f, args):
    compiled_against_references(f, args, tuple(range(len(args))))


@pytest.mark.parametrize("f, args, line", [
    pytest.param(expm1_over_x_twice_guarded, (np.array([0.0, 0.3]),), "safe = np.where(x == 0, 1.0, x)", marks=ARRAYS),
    pytest.param(expm1_over_x_twice_guarded, (np.array([0.3, 1.0]),),
                 "return np.sum(np.where(x != 1.0, np.expm1(safe) / safe, np.e - 1.0) * x)", marks=ARRAYS),
    (expm1_over_x_scalar, (0.0,), "if x == 0.0:"),
    (expm1_over_x_if_truthy, (0.0,), "if x:"),  # the float code's check of a truth never raised: 0, NumPy's 0.5
    (scaled_unless_one, (1.0, 3.0), "if a != 1.0:")])
def test_refused_at_the_equal_point_as_on_the_numpy_path(f, args, line):
    gradient = s2sad.grad(f, argnums=tuple(range(len(args))), compile=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient(*(a + 0.25 for a in args))  # compiled, at a point where nothing is equal
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as refused:
            gradient(*args)
    assert refused.value.location.text.strip() == line
    # the compiled code ran first and sent the call to the NumPy path (not compiled at all, it would say why)
    assert not [w for w in caught if "runs on the NumPy path" in str(w.message) and "met a case" not in str(w.message)]


def test_the_overload_refuses_where_the_numpy_path_does():
    from s2sad.compiled_overloads import NotCompiledCase, at_an_exact_point as compiled_check
    from s2sad.runtime.exact_points import at_an_exact_point

    @numba.njit
    def check(found, operand, equal):
        compiled_check(found, operand, equal, "x == 0", "f.py", 1, 1)

    for found, operand in [(np.array([False, False]), np.array([0.5, 1.0])), (np.array([False, True]), np.zeros(2)),
                           (np.array([True, True]), np.zeros(2)), (np.array([False, True]), np.array([0, 1])),
                           (True, 0.0), (False, 0.0)]:
        for equal in (True, False):
            try:
                at_an_exact_point(found, operand, equal, "x == 0", "f.py", 1, 1)
            except s2sad.UnsupportedSyntaxError:
                with pytest.raises(NotCompiledCase):
                    check(found, operand, equal)
            else:
                check(found, operand, equal)
