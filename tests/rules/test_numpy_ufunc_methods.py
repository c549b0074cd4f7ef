"""Rules of rules/numpy_ufunc_methods.py (``np.add.reduce``, ``np.maximum.accumulate``,
``np.multiply.outer``, ...): each mode against central differences, ties and zeros against
formulas worked out by hand, and whole programs through grad, vjp, jvp and hvp."""
import os
import sys

import numpy as np
import pytest

import s2sad
from s2sad.forward_check import check_frule
from s2sad.registry import rule_for
from s2sad.registry.forward import forward_rule
from s2sad.testing import check_rrule

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from finite_differences import assert_gradients_match, assert_hvp_matches, numerical_gradient  # noqa: E402

rng = np.random.default_rng(14)

REDUCE = [np.add.reduce, np.multiply.reduce, np.maximum.reduce, np.minimum.reduce]
ACCUMULATE = [np.add.accumulate, np.multiply.accumulate, np.maximum.accumulate, np.minimum.accumulate]
OUTER = [np.add.outer, np.subtract.outer, np.multiply.outer]


def label(f):
    return f"{f.__self__.__name__}.{f.__name__}"


def cotangents(f, *args, g=None, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


def pushed(f, x, t):
    return forward_rule(f).pushforward((x,), {}, {"array": t}, f(x))


REDUCE_AXES = [{}, {"axis": 1}, {"axis": -1}, {"axis": None}, {"axis": (0, 2)}, {"axis": 1, "keepdims": True},
               {"axis": 0, "where": np.array([True, False, True, True])}]


@pytest.mark.parametrize("kwargs", REDUCE_AXES, ids=str)
@pytest.mark.parametrize("f", REDUCE, ids=label)
def test_reduce_both_modes(f, kwargs):
    x = rng.standard_normal((2, 3, 4))
    if "where" in kwargs:
        kwargs = {**kwargs, "initial": {np.add: 0.0, np.multiply: 1.0, np.maximum: -9.0, np.minimum: 9.0}[f.__self__]}
    check_rrule(f, x, **kwargs)
    check_frule(f, x, **kwargs)


def test_reduce_defaults_to_the_first_axis():
    x = rng.standard_normal((3, 2))
    (dx,) = cotangents(np.add.reduce, x, g=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dx, [[1, 2]] * 3)
    (dx,) = cotangents(np.multiply.reduce, np.array([[2.0, 0.0], [3.0, 0.0], [0.0, 5.0]]), g=np.array([1.0, 1.0]))
    np.testing.assert_array_equal(dx, [[0, 0], [0, 0], [6, 0]])  # exact at zeros: the product of the others


def test_maximum_reduce_shares_ties_as_np_max():
    x = np.array([[1.0, 4.0], [3.0, 4.0], [3.0, 0.0]])
    (dx,) = cotangents(np.maximum.reduce, x, g=np.array([2.0, 6.0]))
    np.testing.assert_array_equal(dx, [[0, 3], [1, 3], [1, 0]])
    np.testing.assert_array_equal(dx, cotangents(np.max, x, axis=0, g=np.array([2.0, 6.0]))[0])


ACCUMULATE_AXES = [{}, {"axis": 1}, {"axis": -1}]


@pytest.mark.parametrize("kwargs", ACCUMULATE_AXES, ids=str)
@pytest.mark.parametrize("f", ACCUMULATE, ids=label)
def test_accumulate_both_modes(f, kwargs):
    x = rng.standard_normal((3, 5, 2))
    check_rrule(f, x, **kwargs)
    check_frule(f, x, **kwargs)


@pytest.mark.parametrize("f", ACCUMULATE, ids=label)
def test_accumulate_complex_and_float32(f):
    if f.__self__ is not np.maximum and f.__self__ is not np.minimum:
        check_rrule(f, rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3)))
    (dx,) = check_rrule(f, rng.standard_normal(6).astype(np.float32))
    assert dx.dtype == np.float32


def test_running_maximum_shares_each_output_among_its_tied_winners():
    # y = [1, 3, 3, 3, 5]: y[2] = max(1, 3, 3) ties x[1] and x[2]; so does y[3] (x[3] = 2 loses)
    x = np.array([1.0, 3.0, 3.0, 2.0, 5.0])
    g = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    (dx,) = cotangents(np.maximum.accumulate, x, g=g)
    np.testing.assert_allclose(dx, [1, 10 + 50 + 500, 50 + 500, 0, 10000])
    assert dx.sum() == g.sum()  # as np.max's: every output's cotangent is passed on whole
    for k in range(len(x)):  # each output alone, against np.max of the prefix
        e = np.eye(len(x))[k]
        expected = np.zeros(len(x))
        expected[: k + 1] = cotangents(np.max, x[: k + 1], g=1.0)[0]
        np.testing.assert_allclose(cotangents(np.maximum.accumulate, x, g=e)[0], expected)
    t = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    np.testing.assert_allclose(pushed(np.maximum.accumulate, x, t), [1, 2, 3, 3, 16])  # the tied winners' mean


def test_running_minimum_with_ties_and_a_run_that_restarts():
    x = np.array([2.0, 2.0, 3.0, 1.0, 1.0, 0.5])
    g = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0])
    (dx,) = cotangents(np.minimum.accumulate, x, g=g)
    # y = [2, 2, 2, 1, 1, .5]: y[0] is x[0]'s; y[1], y[2] are shared by x[0] and x[1]; y[3] is x[3]'s,
    # y[4] shared by x[3] and x[4]; y[5] is x[5]'s
    np.testing.assert_allclose(dx, [1 + 1 + 2, 1 + 2, 0, 8 + 8, 8, 32])


def test_multiply_accumulate_is_exact_at_zeros():
    x = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    g = np.ones(5)
    (dx,) = cotangents(np.multiply.accumulate, x, g=g)
    expected = [sum(np.prod(np.delete(x[: k + 1], i)) for k in range(i, 5)) for i in range(5)]
    np.testing.assert_allclose(dx, expected)


@pytest.mark.parametrize("f", OUTER, ids=label)
@pytest.mark.parametrize("shapes", [((3,), (4,)), ((2, 3), (4,)), ((), (3,)), ((3,), (2, 2))], ids=str)
def test_outer_both_modes(f, shapes):
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    a = float(a) if shapes[0] == () else a
    check_rrule(f, a, b)
    check_frule(f, a, b)
    z = lambda shape: rng.standard_normal(shape) + 1j * rng.standard_normal(shape)  # noqa: E731
    check_rrule(f, z(shapes[0] or (1,)), z(shapes[1]))


# ------------------------------------------------------------------ whole programs, every mode

def running_peak_loss(x):
    return np.sum(np.maximum.accumulate(x, axis=1) ** 2) + np.sum(np.minimum.accumulate(x) * x)


def scan_and_reduce_loss(x):
    products = np.multiply.accumulate(x, axis=0)
    return np.add.reduce(products * np.sin(x), axis=None) + np.multiply.reduce(x, axis=1).sum()


def extremes_loss(x):
    return np.sum(np.maximum.reduce(x, axis=1, keepdims=True) * x) + np.sum(np.minimum.reduce(x) ** 3)


def outer_loss(x):
    row = x[0]
    return np.sum(np.add.outer(row, x[1]) ** 2) + np.sum(np.sin(np.multiply.outer(row, x[2]))) \
        - np.sum(np.subtract.outer(x[2], row) ** 3)


PROGRAMS = [running_peak_loss, scan_and_reduce_loss, extremes_loss, outer_loss]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_programs_in_every_mode(f):
    x = rng.standard_normal((3, 4))
    v, u = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    assert_gradients_match(f, [x], [0], [s2sad.grad(f)(x)])
    value, pullback = s2sad.vjp(f, x)
    assert_gradients_match(f, [x], [0], [pullback(2.0)[0] / 2])
    _, tangent = s2sad.jvp(f, (x,), (v,))
    np.testing.assert_allclose(tangent, np.sum(numerical_gradient(f, [x], 0) * v), rtol=1e-5, atol=1e-7)
    assert_hvp_matches(s2sad.hvp(f, (x,), (v,)), f, [x], [v], [u], rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------ found by the sweep (test_systematic.py)
@pytest.mark.parametrize("f", [np.maximum.reduce, np.minimum.reduce, np.maximum.accumulate, np.minimum.accumulate],
                         ids=lambda f: f"{f.__self__.__name__}.{f.__name__}")
def test_extremes_in_a_narrower_dtype_find_their_winners(f):
    """float64 values reduced with dtype=float32 are compared rounded: none equals the float32
    extreme, and the gradient was 0 (0.0 against -0.1136 by central differences)."""
    from s2sad.testing import check_rrule

    x = np.random.default_rng(5).standard_normal((3, 4))
    (dx,) = check_rrule(f, x, axis=0, dtype=np.float32)
    assert dx.dtype == np.float64 and np.count_nonzero(dx) > 0


@pytest.mark.parametrize("x", [1.5, np.array(-0.5), np.array(0.5 + 2j)], ids=["float", "0-d", "0-d-complex"])
def test_multiply_reduce_of_a_number(x):
    """NumPy reduces a number along its "axis 0" (its product is itself); the rule took an axis modulo 0."""
    from s2sad.testing import check_rrule
    from s2sad.registry.forward import forward_rule

    (dx,) = check_rrule(np.multiply.reduce, x)
    assert np.shape(dx) == np.shape(x)
    assert forward_rule(np.multiply.reduce).pushforward((x,), {}, {"array": x}, np.multiply.reduce(x)) == pytest.approx(x)


@pytest.mark.parametrize("f", [np.add.outer, np.subtract.outer], ids=["add", "subtract"])
def test_outer_tangents_keep_float32(f):
    """The forward rule added float64 zeros, widening a float32 tangent (found by the sweep)."""
    from s2sad.registry.forward import forward_rule

    a, b = np.ones(2, dtype=np.float32), np.arange(3, dtype=np.float32)
    for name in ("A", "B"):
        tangent = forward_rule(f).pushforward((a, b), {}, {name: a if name == "A" else b}, f(a, b))
        assert tangent.dtype == np.float32


def stacked_log_sums(x):
    return (np.sum(np.logaddexp.reduce(x, axis=1) * np.arange(1.0, 4.0)) + np.logaddexp.reduce(x, axis=None)
            + np.sum(np.logaddexp.reduce(x, axis=0, keepdims=True) ** 2))


def test_logaddexp_reduce_is_a_logsumexp():
    """Each element's slope is exp(x - ans) along the reduced axis (hand-derived); it was refused (no rule)."""
    x = np.random.default_rng(3).normal(size=(3, 4))
    gradient = s2sad.grad(lambda v: np.sum(np.logaddexp.reduce(v, axis=1) * np.arange(1.0, 4.0)))(x)
    total = np.log(np.sum(np.exp(x), axis=1, keepdims=True))
    np.testing.assert_allclose(gradient, np.exp(x - total) * np.arange(1.0, 4.0)[:, None], rtol=1e-13)
    np.testing.assert_allclose(s2sad.grad(stacked_log_sums)(x), numerical_gradient(stacked_log_sums, (x,), 0), rtol=1e-6)
    direction = np.ones_like(x)
    np.testing.assert_allclose(s2sad.jvp(stacked_log_sums, (x,), (direction,))[1],
                               np.sum(s2sad.grad(stacked_log_sums)(x)), rtol=1e-12)
