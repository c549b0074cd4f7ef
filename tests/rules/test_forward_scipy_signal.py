"""Forward rules (jvps) of rules/scipy_signal.py: every mode and method, dtypes, complex inputs,
agreement with the reverse rules, lfilter, and coverage of every differentiable rule (skipped without SciPy)."""
import numpy as np
import pytest

signal = pytest.importorskip("scipy.signal")

import s2sad  # noqa: E402,F401
from s2sad.forward_check import check_frule, pushforward as push  # noqa: E402
from s2sad.registry.forward import forward_rule  # noqa: E402
from s2sad.registry import all_rules, rule_for  # noqa: E402

rng = np.random.default_rng(22)


def r(*shape):
    return rng.standard_normal(shape)


def assert_transposes(f, *args, count=2, **kwargs):
    """<jvp(v), w> = <v, vjp(w)> for random v of each of the first ``count`` inputs and a random w."""
    ans = f(*args, **kwargs)
    w = r(*np.shape(ans))
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    cotangents = pullback(w)[1:count + 1]
    params = list(forward_rule(f).signature.parameters)
    for i in range(count):
        v = r(*np.shape(args[i]))
        tangent = push(f, *args, tangents={params[i]: v}, **kwargs)
        np.testing.assert_allclose(np.sum(tangent * w), np.sum(cotangents[i] * v), rtol=1e-9, err_msg=f"input {i}")


# in1 larger, smaller, equal, mixed in 2-D (no valid mode: neither contains the other)
SHAPES = [((7,), (3,)), ((3,), (7,)), ((6,), (6,)), ((4, 5), (2, 3)), ((2, 3), (4, 5)), ((4, 2), (2, 4))]
MODES = ["full", "same", "valid"]


def has_valid_mode(s1, s2):
    return all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))


CASES = [(s1, s2, mode) for s1, s2 in SHAPES for mode in MODES if mode != "valid" or has_valid_mode(s1, s2)]


@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
@pytest.mark.parametrize("f", [signal.convolve, signal.correlate], ids=lambda f: f.__name__)
@pytest.mark.parametrize("s1, s2, mode", CASES, ids=str)
def test_convolve_and_correlate(f, s1, s2, mode, method):
    a, b = r(*s1), r(*s2)
    check_frule(f, a, b, mode, method)
    if method == "direct":
        assert_transposes(f, a, b, mode=mode, method=method)


@pytest.mark.parametrize("s1, s2, mode", CASES, ids=str)
def test_fftconvolve(s1, s2, mode):
    a, b = r(*s1), r(*s2)
    check_frule(signal.fftconvolve, a, b, mode)
    assert_transposes(signal.fftconvolve, a, b, mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_fftconvolve_along_some_axes(mode):
    check_frule(signal.fftconvolve, r(3, 8), r(1, 3), mode, axes=1)
    check_frule(signal.fftconvolve, r(3, 8), r(3, 3), mode, axes=[-1])
    ta, tb, _ = check_frule(signal.fftconvolve, r(1, 8), r(4, 3), mode, axes=(1,))  # in1 broadcast along axis 0
    assert ta.shape == tb.shape == signal.fftconvolve(r(1, 8), r(4, 3), mode, axes=(1,)).shape
    check_frule(signal.fftconvolve, r(5, 2, 6), r(3, 2, 1), mode, axes=(0, 2))
    assert_transposes(signal.fftconvolve, r(1, 8), r(4, 3), mode=mode, axes=(1,))


def test_tangents_are_the_jacobian():
    x, kernel, v = r(7), r(3), r(7)
    jacobian = np.array([[kernel[i - k] if 0 <= i - k < 3 else 0.0 for k in range(7)] for i in range(9)])
    np.testing.assert_allclose(push(signal.convolve, x, kernel, tangents={"in1": v}), jacobian @ v, rtol=1e-12)
    np.testing.assert_allclose(push(signal.convolve, x, kernel, "same", tangents={"in1": v}), (jacobian @ v)[1:8],
                               rtol=1e-12)


def test_dtypes_complex_and_integers():
    ta, tb = check_frule(signal.convolve, r(6).astype(np.float32), r(3).astype(np.float32))
    assert ta.dtype == tb.dtype == np.float32
    ta, tb = check_frule(signal.fftconvolve, r(6).astype(np.float32), r(3).astype(np.float32), mode="same")
    assert ta.dtype == tb.dtype == np.float32
    ta, tb = check_frule(signal.correlate, r(6).astype(np.float32), r(3))
    assert ta.dtype == tb.dtype == np.float64
    ta, tb = check_frule(signal.convolve, r(6), np.array([1, 2, 1]))
    assert tb is None
    check_frule(signal.convolve, 2.0, 3.0)
    for f in (signal.convolve, signal.correlate, signal.fftconvolve):     # correlate conjugates in2
        ta, tb = check_frule(f, r(6) + 1j * r(6), r(3) + 1j * r(3))
        assert ta.dtype == tb.dtype == np.complex128
        check_frule(f, r(6), r(3) + 1j * r(3))


# ------------------------------------------------------------------ lfilter
B, A = np.array([0.3, 0.2, 0.1]), np.array([1.0, -0.5, 0.2])


def test_lfilter_finite_differences():
    check_frule(signal.lfilter, B, A, r(20))
    check_frule(signal.lfilter, B, np.array([2.0, -0.5]), r(3, 10))               # a[0] != 1, along the last axis
    check_frule(signal.lfilter, B, A, r(10, 3), axis=0)
    check_frule(signal.lfilter, np.array([0.5]), np.array([1.0]), r(6))           # a plain gain
    check_frule(signal.lfilter, B, A, r(2))                                        # shorter than the filter
    check_frule(signal.lfilter, np.array([0.2, 0.5, 0.1, 0.4]), np.array([1.5]), r(9))   # FIR, a[0] != 1
    tb, ta, tx = check_frule(signal.lfilter, B.astype(np.float32), A.astype(np.float32), r(8).astype(np.float32))
    assert tb.dtype == ta.dtype == tx.dtype == np.float32
    tb, ta, tx = check_frule(signal.lfilter, B, A, r(8) + 1j * r(8))
    assert tb.dtype == ta.dtype == tx.dtype == np.complex128
    assert_transposes(signal.lfilter, B, A, r(3, 10), count=3)
    assert_transposes(signal.lfilter, B, np.array([2.0, -0.5]), r(10, 3), count=3, axis=0)


def test_lfilter_tangent_of_x_is_the_impulse_response():
    n = 12
    impulse = signal.lfilter(B, A, np.eye(n)[0])
    jacobian = np.array([[impulse[i - k] if i >= k else 0.0 for k in range(n)] for i in range(n)])
    v = r(n)
    np.testing.assert_allclose(push(signal.lfilter, B, A, r(n), tangents={"x": v}), jacobian @ v, rtol=1e-10)


def test_lfilter_refuses_initial_conditions():
    for param in ("b", "a", "x"):
        with pytest.raises(NotImplementedError):
            forward_rule(signal.lfilter).pushforward((B, A, r(5), -1, np.zeros(2)), {},
                                                     {param: r(3) if param != "x" else r(5)},
                                                     signal.lfilter(B, A, r(5), -1, np.zeros(2)))


# ------------------------------------------------------------------ coverage
def test_every_differentiable_rule_has_a_forward_rule():
    rule_for(signal.convolve)                                        # registers the module's rules
    rules = [r for r in all_rules() if r.library == "scipy" and r.name.startswith("scipy.signal.")]
    differentiable = [r for r in rules if not r.nondifferentiable]
    assert len(differentiable) >= 4, [r.name for r in differentiable]
    missing = [r.name for r in differentiable if forward_rule(r.function) is None]
    assert not missing, f"no forward rule for {missing}"
    for r in differentiable:
        forward = forward_rule(r.function)
        assert forward.rule is r
        for param, vjp in r.vjps.items():
            assert (forward.jvps.get(param) is None) == (vjp is None), (r.name, param)
