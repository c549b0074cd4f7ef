"""Rules of rules/ndarray_methods.py: methods and properties of arrays and numpy scalars."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import method_rule, rule_for
from s2sad.tangents import NO_TANGENT
from s2sad.testing import check_rrule

rng = np.random.default_rng(5)
X = rng.standard_normal((2, 3, 4))
M = rng.standard_normal((3, 3))

# (method name, receiver, further positional args, keyword args)
CALLS = [
    ("sum", X, (), {}), ("sum", X, (1,), {"keepdims": True}), ("mean", X, ((0, 2),), {}),
    ("prod", X, (), {"axis": -1}), ("max", X, (0,), {}), ("min", X, (), {}),
    ("std", X, (), {"axis": 1}), ("var", X, (None, None, None, 1), {}), ("cumsum", X, (2,), {}),
    ("reshape", X, ((6, 4),), {}), ("reshape", X, (4, 6), {}), ("reshape", X, (-1,), {"order": "F"}),
    ("transpose", X, (), {}), ("transpose", X, ((2, 0, 1),), {}),
    ("T", X, (), {}), ("mT", X, (), {}),
    ("dot", M, (rng.standard_normal(3),), {}), ("dot", M, (M,), {}),
    ("copy", X, (), {}), ("flatten", X, (), {}), ("flatten", X, ("F",), {}), ("ravel", X, (), {}),
    ("astype", X, (np.float64,), {}), ("clip", X, (-0.5, 0.5), {}), ("clip", X, (), {"max": 0.2}),
    ("squeeze", X[:1], (), {}), ("swapaxes", X, (0, 2), {}), ("trace", M, (), {}), ("diagonal", X, (1, 0, 2), {}),
    ("repeat", X, (2, 1), {}), ("conj", X, (), {}), ("real", X, (), {}), ("item", X[:1, :1, :1], (), {}),
    ("item", X, (5,), {}),
]


@pytest.mark.parametrize("name, x, args, kwargs", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_method_finite_differences(name, x, args, kwargs):
    check_rrule(name, x, *args, **kwargs)


@pytest.mark.parametrize("name, x, args, kwargs", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_method_float32(name, x, args, kwargs):
    if name == "astype":
        args = (np.float32,)
    args = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args)
    check_rrule(name, x.astype(np.float32), *args, **kwargs)


def test_bound_methods_and_properties():
    check_rrule(X.sum, 1)
    check_rrule(M.dot, M)
    (dx,) = check_rrule("T", M)
    assert dx.shape == M.shape


def test_astype_casts_the_cotangent_back():
    (dx, ddtype) = check_rrule("astype", X.astype(np.float32), np.float64)
    assert dx.dtype == np.float32 and ddtype is NO_TANGENT
    (dx, _) = check_rrule("astype", X, np.float32)
    assert dx.dtype == np.float64


GENERIC_METHODS = ["sum", "mean", "max", "min", "prod", "reshape", "transpose", "T", "copy", "flatten",
                   "ravel", "astype", "squeeze", "item", "conj", "real", "std", "var", "cumsum", "clip"]


@pytest.mark.parametrize("name", GENERIC_METHODS)
def test_numpy_scalars_have_the_methods(name):
    assert method_rule(np.float64, name) is not None
    args = {"astype": (np.float64,), "clip": (-1.0, 1.0), "reshape": (1,)}.get(name, ())
    check_rrule(name, np.float64(0.7), *args)


def test_methods_reuse_the_function_rules():
    assert method_rule(np.ndarray, "sum") is rule_for(np.sum)
    assert method_rule(np.ndarray, "dot") is rule_for(np.dot)
    assert method_rule(np.ndarray, "clip") is rule_for(np.clip)


def test_reshape_with_more_varargs_than_parameters():
    check_rrule("reshape", X, 2, 3, 4)


def test_transpose_with_axes_as_varargs():
    check_rrule("transpose", M, 1, 0)


def test_varargs_methods_give_the_right_cotangent_for_the_receiver():
    _, pullback = method_rule(np.ndarray, "transpose").rrule(X, 2, 0, 1)
    np.testing.assert_array_equal(pullback(np.transpose(X, (2, 0, 1)))[1], X)
