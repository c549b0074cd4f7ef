"""Rules of rules/numpy_reductions.py: axes, keepdims, dtypes, zeros in prod, ties in max/min."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import method_rule, rule_for
from s2sad.testing import check_rrule

rng = np.random.default_rng(2)


def cotangents(f, *args, g=None, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std]
AXES = [
    ("all", {}),
    ("axis0", {"axis": 0}),
    ("axis-1", {"axis": -1}),
    ("tuple", {"axis": (0, 2)}),
    ("negative-tuple", {"axis": (-1, -2)}),
    ("keepdims", {"axis": 1, "keepdims": True}),
    ("keepdims-all", {"keepdims": True}),
    ("tuple-keepdims", {"axis": (0, 1), "keepdims": True}),
]


@pytest.mark.parametrize("name, kwargs", AXES, ids=[a[0] for a in AXES])
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_finite_differences(f, name, kwargs):
    check_rrule(f, rng.standard_normal((2, 3, 4)), **kwargs)


@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_float32_and_scalars(f):
    (dx,) = check_rrule(f, rng.standard_normal((3, 4)).astype(np.float32), axis=0)
    assert dx.dtype == np.float32
    if f not in (np.var, np.std):
        (dx,) = cotangents(f, 1.5, g=2.0)
        assert dx == 2.0
        check_rrule(f, np.array(1.5))


# ------------------------------------------------------------------ formulas
def test_sum_and_mean_formulas():
    x = rng.standard_normal((2, 3))
    (dx,) = cotangents(np.sum, x, axis=1, g=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dx, [[1, 1, 1], [2, 2, 2]])
    (dx,) = cotangents(np.mean, x, axis=(0, 1), g=6.0)
    np.testing.assert_allclose(dx, np.ones((2, 3)))
    (dx,) = cotangents(np.sum, x, where=np.array([True, False, True]), g=1.0)
    np.testing.assert_array_equal(dx, [[1, 0, 1], [1, 0, 1]])


def test_mean_with_where_divides_by_the_selected_count():
    mask = np.array([[True, False, True], [True, True, True]])
    (dx,) = cotangents(np.mean, np.zeros((2, 3)), axis=1, where=mask, g=np.array([1.0, 1.0]))
    np.testing.assert_allclose(dx, [[0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    check_rrule(np.mean, rng.standard_normal((2, 3)), axis=1, where=mask)


def test_var_and_std_formulas():
    x = np.array([1.0, 2.0, 4.0])
    (dx,) = cotangents(np.var, x, g=1.0)
    np.testing.assert_allclose(dx, 2 * (x - x.mean()) / 3)
    (dx,) = cotangents(np.var, x, ddof=1, g=1.0)
    np.testing.assert_allclose(dx, 2 * (x - x.mean()) / 2)
    (dx,) = cotangents(np.std, x, g=1.0)
    np.testing.assert_allclose(dx, (x - x.mean()) / (3 * x.std()))
    check_rrule(np.std, rng.standard_normal((3, 4)), axis=1, ddof=1)


def test_std_of_constant_is_zero_not_nan():
    (dx,) = cotangents(np.std, np.ones(4), g=1.0)
    np.testing.assert_array_equal(dx, np.zeros(4))


# ------------------------------------------------------------------ prod: exact with zeros
@pytest.mark.parametrize("x, expected", [
    ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
    ([2.0, 0.0, 4.0], [0.0, 8.0, 0.0]),
    ([0.0, 0.0, 4.0], [0.0, 0.0, 0.0]),
    ([5.0], [1.0]),
])
def test_prod_is_exact_with_zeros(x, expected):
    (dx,) = cotangents(np.prod, np.array(x), g=1.0)
    np.testing.assert_array_equal(dx, expected)


def test_prod_zeros_along_axes():
    x = rng.standard_normal((3, 4, 2))
    x[1, 2, 0] = 0.0
    x[0, :, 1] = 0.0
    for kwargs in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}):
        check_rrule(np.prod, x, **kwargs)


# ------------------------------------------------------------------ max/min: ties split equally
@pytest.mark.parametrize("f", [np.max, np.amax])
def test_max_ties_split_equally(f):
    (dx,) = cotangents(f, np.array([1.0, 3.0, 3.0, 2.0]), g=1.0)
    np.testing.assert_array_equal(dx, [0.0, 0.5, 0.5, 0.0])
    (dx,) = cotangents(f, np.array([[1.0, 1.0], [2.0, 0.0]]), axis=1, g=np.array([4.0, 4.0]))
    np.testing.assert_array_equal(dx, [[2.0, 2.0], [4.0, 0.0]])


@pytest.mark.parametrize("f", [np.min, np.amin])
def test_min_ties_split_equally(f):
    (dx,) = cotangents(f, np.array([[1.0, 2.0, 1.0]]), axis=-1, keepdims=True, g=np.array([[3.0]]))
    np.testing.assert_array_equal(dx, [[1.5, 0.0, 1.5]])


# ------------------------------------------------------------------ cumsum
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": -1}])
def test_cumsum(kwargs):
    check_rrule(np.cumsum, rng.standard_normal((3, 4)), **kwargs)
    (dx,) = cotangents(np.cumsum, np.zeros(3), g=np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(dx, [6.0, 5.0, 3.0])


def test_int_input_has_no_tangent():
    from s2sad.tangents import NO_TANGENT

    assert cotangents(np.sum, np.arange(3), g=1.0) == (NO_TANGENT,)
    assert cotangents(np.prod, np.arange(1, 4), g=1.0) == (NO_TANGENT,)


def test_methods_share_the_rules():
    x = rng.standard_normal((2, 3))
    for name in ("sum", "mean", "prod", "max", "min", "std", "var", "cumsum"):
        assert method_rule(np.ndarray, name) is rule_for(getattr(np, name))
        check_rrule(getattr(x, name), axis=1)
