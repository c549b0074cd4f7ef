"""Rules of rules/numpy_interpolation.py: np.interp in x, xp, fp, left and right, against central
differences and the slopes worked out by hand, at knots, outside the knots and with a period."""
import numpy as np
import pytest

import s2sad
from s2sad.forward_check import check_frule
from s2sad.registry import rule_for
from s2sad.registry.forward import forward_rule
from s2sad.testing import check_rrule, numerical_gradient

rng = np.random.default_rng(13)
XP = np.array([0.0, 0.7, 1.5, 2.0, 3.1])
FP = np.array([1.0, -0.4, 2.0, 0.5, 0.9])
X = np.array([-0.5, 0.2, 0.9, 1.7, 2.5, 3.5])     # below, on each segment, above: none at a knot


def cotangents(*args, g=None, **kwargs):
    y, pullback = rule_for(np.interp).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


CASES = [
    ("plain", (X, XP, FP), {}),
    ("left-right", (X, XP, FP), {"left": 0.3, "right": -1.2}),
    ("complex-fp", (X, XP, FP + 1j * rng.standard_normal(5)), {"left": 0.5j}),
    ("period", (np.array([-4.0, 0.4, 2.2, 6.9, 11.3]), np.array([4.4, 0.3, 1.2, 2.0]), FP[:4]), {"period": 5.0}),
    ("scalar-x", (0.4, XP, FP), {}),
    ("2-d-x", (X.reshape(2, 3), XP, FP), {}),
    ("lists", (list(X), list(XP), list(FP)), {}),
    ("one-knot", (np.array([-1.0, 2.0]), np.array([0.5]), np.array([3.0])), {"left": 1.5}),
]


@pytest.mark.parametrize("args, kwargs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_interp_finite_differences(args, kwargs):
    check_rrule(np.interp, *args, **kwargs)
    check_frule(np.interp, *args, **kwargs)


def test_interp_float32_in_float32_out():
    dx, dxp, dfp = check_rrule(np.interp, X.astype(np.float32), XP.astype(np.float32), FP.astype(np.float32))
    assert dx.dtype == dxp.dtype == dfp.dtype == np.float32


def test_interp_by_hand():
    # x = 0.9 on the segment [0.7, 1.5]: t = 0.25, slope s = (2.0 + 0.4) / 0.8 = 3
    dx, dxp, dfp = cotangents(np.array([0.9]), XP, FP, g=np.array([2.0]))
    np.testing.assert_allclose(dx, [2 * 3.0])
    np.testing.assert_allclose(dfp, [0, 2 * 0.75, 2 * 0.25, 0, 0])
    np.testing.assert_allclose(dxp, [0, 2 * 3.0 * (0.25 - 1), -2 * 3.0 * 0.25, 0, 0])
    # below and above: fp[0] and fp[-1] by default, left and right when given; no slope
    dx, dxp, dfp = cotangents(np.array([-1.0, 4.0]), XP, FP)
    np.testing.assert_array_equal(dx, [0, 0])
    np.testing.assert_array_equal(dfp, [1, 0, 0, 0, 1])
    dx, dxp, dfp, dleft, dright = cotangents(np.array([-1.0, -2.0, 4.0]), XP, FP, 0.0, 9.0)
    np.testing.assert_array_equal(dfp, [0, 0, 0, 0, 0])
    assert (dleft, dright) == (2.0, 1.0)


def test_interp_at_the_knots():
    # At a knot NumPy returns fp[j] exactly: fp's derivative is e_j; x's is the right-hand segment's
    # slope (NumPy's search puts x in [xp[j], xp[j+1])), and 0 at the last knot.
    x = np.array([0.7, 1.5, 3.1, 0.0])
    dx, dxp, dfp = cotangents(x, XP, FP, g=np.ones(4))
    right_slopes = [(2.0 + 0.4) / 0.8, (0.5 - 2.0) / 0.5, 0.0, (-0.4 - 1.0) / 0.7]
    np.testing.assert_allclose(dx, right_slopes)
    np.testing.assert_allclose(dfp, [1, 1, 1, 0, 1])
    h = 1e-7
    for k, slope in enumerate(right_slopes):       # the one-sided difference to the right agrees
        step = np.eye(4)[k] * h
        assert abs((np.interp(x + step, XP, FP)[k] - np.interp(x, XP, FP)[k]) / h - slope) < 1e-6
    # the forward rule pushes the same slopes
    pushed = forward_rule(np.interp).pushforward((x, XP, FP), {}, {"x": np.ones(4)}, np.interp(x, XP, FP))
    np.testing.assert_allclose(pushed, right_slopes)


def test_interp_period_refuses_its_own_derivative():
    def loss(p):
        return np.sum(np.interp(X, XP, FP, period=p))

    with pytest.raises(s2sad.S2SADError, match="period"):
        s2sad.grad(loss)(5.0)


def test_interp_in_user_code_against_central_differences():
    def loss(x, fp, xp):
        y = np.interp(x * 1.1, xp, np.tanh(fp), right=fp[0] * 2)
        return np.sum(y ** 2)

    args = (X, FP, XP)
    got = s2sad.grad(loss, argnums=(0, 1, 2))(*args)
    for k in range(3):
        np.testing.assert_allclose(got[k], numerical_gradient(loss, *args, argnums=k), rtol=1e-6, atol=1e-8)
    v = rng.standard_normal(5)
    w = rng.standard_normal(6)
    jvp = s2sad.jvp(loss, args, (w, v, v))[1]
    expected = sum(np.dot(numerical_gradient(loss, *args, argnums=k), d) for k, d in enumerate((w, v, v)))
    assert abs(jvp - expected) < 1e-6
    # Hessian-vector product in fp against central differences of central differences
    hvp = s2sad.hvp(lambda fp: loss(X, fp, XP), (FP,), (v,))
    h = 1e-4
    numeric = (numerical_gradient(loss, X, FP + h * v, XP, argnums=1)
               - numerical_gradient(loss, X, FP - h * v, XP, argnums=1)) / (2 * h)
    np.testing.assert_allclose(hvp, numeric, rtol=1e-4, atol=1e-4)


def test_interp_float32_tangents_take_the_float64_output_dtype():
    """np.interp computes in float64 whatever its arguments' dtype: so do the tangents (those of x
    and xp were float32, the slopes of float32 knots)."""
    x, xp, fp = X.astype(np.float32), XP.astype(np.float32), FP.astype(np.float32)
    pushed = check_frule(np.interp, x, xp, fp, np.float32(0.3), np.float32(-1.2))
    assert [t.dtype for t in pushed] == [np.float64] * 5
