"""Forward rules of rules/numpy_reductions.py: axes, keepdims, where, dtypes, zeros in prod, ties in
max/min, complex input."""
import warnings

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_method_rule, forward_rule
from s2sad.registry import all_rules
from s2sad.runtime.tangents import ZERO

rng = np.random.default_rng(29)
REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std]
AXES = [{}, {"axis": 0}, {"axis": -1}, {"axis": (0, 2)}, {"axis": (-1, -2)}, {"axis": 1, "keepdims": True},
        {"keepdims": True}, {"axis": (0, 1), "keepdims": True}]


def r(*shape):
    return rng.standard_normal(shape)


def c(*shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def push(f, args, kwargs, t):
    return forward_rule(f).pushforward(args, kwargs, {"a": t}, f(*args, **kwargs))


@pytest.mark.parametrize("kwargs", AXES, ids=str)
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reductions(f, kwargs):
    check_frule(f, r(2, 3, 4), **kwargs)
    check_frule(f, c(2, 3, 4), **kwargs)


@pytest.mark.parametrize("f", REDUCTIONS + [np.cumsum], ids=lambda f: f.__name__)
def test_float32_complex64_and_scalars(f):
    (t,) = check_frule(f, r(3, 4).astype(np.float32), axis=0)
    assert t.dtype == np.float32
    (t,) = check_frule(f, c(3, 4, dtype=np.complex64), axis=0)
    assert t.dtype == (np.float32 if f in (np.var, np.std) else np.complex64)
    check_frule(f, np.array(1.5))
    check_frule(f, 1.5)
    check_frule(f, np.complex128(1.5 - 0.5j))


@pytest.mark.parametrize("f", [np.sum, np.mean, np.prod, np.max, np.min, np.var, np.std], ids=lambda f: f.__name__)
def test_where_masks(f):
    mask = np.array([[True, False, True], [True, True, False]])
    extra = {"initial": 1.0 if f is not np.min else 10.0} if f in (np.max, np.min, np.prod) else {}
    check_frule(f, r(2, 3), axis=1, where=mask, **extra)
    check_frule(f, r(2, 3), where=mask, **extra)


def test_dtype_initial_ddof_and_mean_arguments():
    x = r(3, 4)
    check_frule(np.sum, x, axis=1, initial=2.0)
    check_frule(np.prod, x, axis=0, initial=1.5)
    check_frule(np.max, x, axis=1, initial=5.0)       # initial wins everywhere: no tangent gets through
    for f in (np.var, np.std):
        check_frule(f, x, axis=1, ddof=1)
        check_frule(f, x, axis=0, correction=1)
        check_frule(f, x, axis=1, keepdims=True, mean=np.mean(x, axis=1, keepdims=True))
    t = push(np.sum, (x,), {"dtype": np.float32}, r(3, 4))
    assert t.dtype == np.float32


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": -1}, {"dtype": np.complex128}])
def test_cumsum(kwargs):
    check_frule(np.cumsum, r(3, 4), **kwargs)
    check_frule(np.cumsum, c(3, 4), **kwargs)


@pytest.mark.parametrize("x", [[2.0, 3.0, 4.0], [2.0, 0.0, 4.0], [0.0, 0.0, 4.0], [5.0]], ids=str)
def test_prod_is_exact_with_zeros(x):
    x, t = np.array(x), r(len(x))
    with np.errstate(all="raise"):
        pushed = push(np.prod, (x,), {}, t)
    assert pushed == pytest.approx(sum(t[i] * np.prod(np.delete(x, i)) for i in range(len(x))), abs=1e-14)
    y = r(3, 4, 2)
    y[1, 2, 0] = 0.0
    y[0, :, 1] = 0.0
    for kwargs in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}):
        check_frule(np.prod, y, **kwargs)


def test_max_min_ties_share():
    x = np.array([1.0, 3.0, 3.0, 2.0])
    assert push(np.max, (x,), {}, np.array([0.0, 1.0, 3.0, 9.0])) == 2.0
    pushed = push(np.min, (np.array([[1.0, 2.0, 1.0]]),), {"axis": -1, "keepdims": True}, np.array([[4.0, 0.0, 2.0]]))
    np.testing.assert_array_equal(pushed, [[3.0]])
    z = np.array([1 + 2j, 3 - 1j, 3 + 0j, -1j])      # lexicographic: 3+0j wins
    assert push(np.max, (z,), {}, np.array([1, 2, 3j, 4])) == 3j


def test_std_at_zero_spread_pushes_zero():
    assert push(np.std, (np.ones(4),), {}, r(4)) == 0.0
    np.testing.assert_array_equal(push(np.std, (np.ones((2, 3)),), {"axis": 1}, r(2, 3)), [0.0, 0.0])


def test_methods_share_the_forward_rules():
    x = r(2, 3)
    for name in ("sum", "mean", "prod", "max", "min", "std", "var", "cumsum"):
        assert forward_method_rule(np.ndarray, name) is forward_rule(getattr(np, name))
        check_frule(None, x, method=name, axis=1)


# ------------------------------------------------------------------ every differentiable rule has a forward rule
def test_every_differentiable_rule_has_a_forward_rule():
    import ast

    import s2sad.rules.numpy_reductions as module

    tree = ast.parse(open(module.__file__).read())
    spellings = [ast.unparse(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and getattr(node.func, "id", None) in ("defvjp", "defvjp_all", "defrrule", "defderivative")]
    # a name this NumPy lacks is registered under `if hasattr(np, ...)` (np.trapz, gone in 2.4)
    functions = [eval(spelling, {"np": np}) for spelling in spellings if hasattr(np, spelling.removeprefix("np."))]
    assert len(functions) >= 10
    rules = [rule for rule in all_rules() if any(rule.function is f for f in functions) and not rule.nondifferentiable]
    assert len(rules) == len(functions)
    missing = [rule.name for rule in rules if forward_rule(rule.function) is None]
    assert not missing, f"no forward rule for {missing}"


# ------------------------------------------------------------------ median and ptp
@pytest.mark.parametrize("kwargs", AXES, ids=str)
@pytest.mark.parametrize("f", [np.median, np.ptp], ids=lambda f: f.__name__)
def test_median_and_ptp(f, kwargs):
    check_frule(f, r(2, 3, 4), **kwargs)
    check_frule(f, r(3, 5, 3), **kwargs)
    check_frule(f, c(2, 3, 4), **kwargs)


def test_median_and_ptp_ties():
    assert push(np.median, (np.array([2.0, 1.0, 2.0]),), {}, np.array([4.0, 100.0, 2.0])) == 3.0
    assert push(np.median, (np.array([2.0, 1.0, 3.0, 2.0]),), {}, np.array([4.0, 100.0, 50.0, 2.0])) == 3.0
    assert push(np.ptp, (np.array([3.0, 1.0, 3.0]),), {}, np.array([4.0, 1.0, 2.0])) == 2.0


# ------------------------------------------------------------------ NaN-ignoring reductions and trapezoid
NAN_REDUCTIONS = [np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanvar, np.nanstd]


def with_nans(x):
    x = np.array(x)
    x.flat[[1, 4, 5]] = np.nan
    return x


@pytest.mark.parametrize("kwargs", AXES, ids=str)
@pytest.mark.parametrize("f", NAN_REDUCTIONS, ids=lambda f: f.__name__)
def test_nan_reductions(f, kwargs):
    """Central differences step every element; a NaN stays NaN, so its tangent must not count."""
    (t,) = check_frule(f, with_nans(r(2, 3, 4)), **kwargs)
    assert np.all(np.isfinite(t))
    check_frule(f, with_nans(c(2, 3, 4)), **kwargs)
    (t,) = check_frule(f, with_nans(r(3, 4).astype(np.float32)), axis=0)
    assert t.dtype == np.float32


def test_nan_reductions_push_nothing_from_a_nan_or_an_all_nan_slice():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    t = np.array([[1.0, 100.0, 2.0], [5.0, 6.0, 7.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN row: NumPy warns, its value is NaN
        np.testing.assert_array_equal(push(np.nansum, (x,), {"axis": 1}, t), [3.0, 0.0])
        np.testing.assert_array_equal(push(np.nanmean, (x,), {"axis": 1}, t), [1.5, 0.0])
        np.testing.assert_array_equal(push(np.nanmax, (x,), {"axis": 1}, t), [2.0, 0.0])


TRAPEZOIDS = [((r(5),), {}), ((r(5),), {"dx": 0.3}), ((r(4, 3),), {"axis": 0}), ((r(5), np.sort(r(5))), {}),
              ((r(3, 5), np.sort(r(5))), {}), ((r(4, 3), np.sort(r(4))), {"axis": 0}),
              ((r(3, 5), np.sort(r(3, 5), axis=1)), {}), ((r(2, 4), None, r(3)), {}), ((c(5), np.sort(r(5))), {})]


@pytest.mark.parametrize("args, kwargs", TRAPEZOIDS, ids=[str(i) for i in range(len(TRAPEZOIDS))])
def test_trapezoid(args, kwargs):
    check_frule(np.trapezoid, *args, **kwargs)


def test_trapezoid_pushes_nothing_through_dx_when_x_is_given():
    y, x = r(4), np.sort(r(4))
    ans = np.trapezoid(y, x, 0.5)
    assert forward_rule(np.trapezoid).pushforward((y, x, 0.5), {}, {"dx": 1.0}, ans) is ZERO


@pytest.mark.parametrize("f", [np.sum, np.nansum, np.add.reduce])
def test_a_differentiated_initial_of_a_sum(f):
    # by position, so that check_frule pushes a tangent through `initial` too (it was dropped)
    x = r(3, 4)
    check_frule(f, x, 1, None, None, False, 0.7)
