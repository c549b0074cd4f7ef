"""Forward rules of rules/numpy_fft.py: each transform's pushforward against finite differences
(real and complex inputs, cut and zero-padded lengths, every norm, float32), and against the
transform's own linearity: the tangent of ``f`` at ``x`` along ``v`` is ``f(v)``."""
import warnings

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.registry import all_rules

rng = np.random.default_rng(17)
F = np.fft
NORMS = [None, "backward", "ortho", "forward"]


def r(*shape):
    return rng.standard_normal(shape)


def c(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


ONE_AXIS = [F.fft, F.ifft, F.rfft, F.irfft, F.hfft, F.ihfft]
N_AXES = [F.fft2, F.ifft2, F.rfft2, F.irfft2, F.fftn, F.ifftn, F.rfftn, F.irfftn]
REAL_INPUT_ONLY = (F.rfft, F.ihfft, F.rfft2, F.rfftn)


def inputs(f, *shape):
    return [r(*shape)] if f in REAL_INPUT_ONLY else [r(*shape), c(*shape)]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("f", ONE_AXIS, ids=lambda f: f.__name__)
def test_one_axis(f, norm):
    for x in inputs(f, 3, 6):
        for n, axis in ((None, -1), (4, -1), (9, 1), (None, 0), (5, 0)):
            check_frule(f, x, n, axis, norm)


@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("f", N_AXES, ids=lambda f: f.__name__)
def test_n_axes(f, norm):
    for x in inputs(f, 3, 4, 5):
        for s, axes in ((None, None), (None, (0, 2)), ((4, 3), (-1, 0)), ((2, 6), None), ((3, 4, 6), (2, 0, 1))):
            if f in (F.fft2, F.ifft2, F.rfft2, F.irfft2) and axes is None:
                axes = (-2, -1)
                s = None if s is None or len(s) == 2 else s[:2]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                check_frule(f, x, s, axes, norm)


def test_float32_stays_single_precision():
    for f in ONE_AXIS:
        (t, *_) = check_frule(f, r(3, 8).astype(np.float32))
        assert t.dtype in (np.complex64, np.float32)
    (t, *_) = check_frule(F.fft, c(8).astype(np.complex64))
    assert t.dtype == np.complex64
    for f in N_AXES:
        check_frule(f, r(4, 6).astype(np.float32))


@pytest.mark.parametrize("f", ONE_AXIS + N_AXES, ids=lambda f: f.__name__)
def test_the_tangent_is_the_transform_of_the_tangent(f):
    x = r(4, 6)
    v = r(4, 6) if f in REAL_INPUT_ONLY else c(4, 6)
    x = x if f in REAL_INPUT_ONLY else c(4, 6)
    pushed = forward_rule(f).pushforward((x,), {"norm": "ortho"}, {"a": v}, f(x, norm="ortho"))
    np.testing.assert_allclose(pushed, f(v, norm="ortho"), rtol=1e-12, atol=1e-12)


def test_out_is_not_written():
    x, v = c(8), c(8)
    out = np.zeros(8, complex)
    ans = F.fft(x, out=out)
    pushed = forward_rule(F.fft).pushforward((x,), {"out": out}, {"a": v}, ans)
    np.testing.assert_allclose(out, F.fft(x))       # still the primal
    np.testing.assert_allclose(pushed, F.fft(v))


def test_shifts_and_frequencies():
    for f in (F.fftshift, F.ifftshift):
        check_frule(f, r(5))
        check_frule(f, r(4, 5), (0,))
        check_frule(f, c(3, 4), -1)
        check_frule(f, r(4, 5).astype(np.float32))
    for f in (F.fftfreq, F.rfftfreq):
        check_frule(f, 8, 0.1)
        check_frule(f, 7, 2.5)
        check_frule(f, 7, np.float64(0.5))


# ------------------------------------------------------------------ every differentiable rule has a forward rule
def test_every_differentiable_rule_has_a_forward_rule():
    functions = [getattr(F, name) for name in dir(F) if callable(getattr(F, name)) and not name.startswith("_")]
    rules = [rule for rule in all_rules() if any(rule.function is f for f in functions) and not rule.nondifferentiable]
    assert len(rules) == 18
    missing = [rule.name for rule in rules if forward_rule(rule.function) is None]
    assert not missing, f"no forward rule for {missing}"
