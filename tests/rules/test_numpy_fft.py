"""Rules of rules/numpy_fft.py, and check_rrule on complex values (the convention it states).

Every transform is linear over the reals, so besides finite differences each pullback is
compared with its adjoint built exactly, column by column: the cotangent of element ``j``
is ``<g, f(e_j)> + 1j * <g, f(1j * e_j)>`` with ``<a, b> = Re(sum(conj(a) * b))``.
"""
import warnings

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import defvjp, rule_for, unregister
from s2sad.runtime.tangents import NO_TANGENT, ZERO
from s2sad.testing import check_rrule, numerical_gradient

rng = np.random.default_rng(7)
F = np.fft
NORMS = [None, "backward", "ortho", "forward"]


def r(*shape):
    return rng.standard_normal(shape)


def c(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def cotangents(f, *args, g, **kwargs):
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(g)[1:]


def inner(a, b):
    return float(np.sum(np.conj(a) * b).real)


def adjoint_by_columns(f, x, g, **kwargs):
    """The exact pullback of the real-linear ``f`` at ``g``, one basis vector at a time."""
    units = (1.0, 1j) if np.iscomplexobj(x) else (1.0,)
    out = np.zeros(x.shape, dtype=complex if np.iscomplexobj(x) else float)
    for index in np.ndindex(x.shape):
        for unit in units:
            e = np.zeros_like(x)
            e[index] = unit
            out[index] += unit * inner(g, f(e, **kwargs))
    return out


def primal_runs(f, *args, **kwargs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # s with None entries
            f(*args, **kwargs)
    except (ValueError, TypeError, IndexError):
        return False  # numpy refuses these arguments (rfft of complex input, n < 1, ...)
    return True


# ------------------------------------------------------------------ check_rrule on complex values
def complex_cube(x):
    return x ** 3


@pytest.fixture
def cube_rule():
    yield
    unregister(complex_cube)


def test_check_rrule_catches_a_missing_conjugate(cube_rule):
    z = c(4)
    defvjp(complex_cube, "x", "3 * g * x ** 2")  # right for real x only
    check_rrule(complex_cube, r(4))
    with pytest.raises(AssertionError, match="complex_cube"):
        check_rrule(complex_cube, z)
    defvjp(complex_cube, "x", "3 * g * np.conj(x) ** 2")
    check_rrule(complex_cube, z)
    check_rrule(complex_cube, 0.5 - 1.5j)


def test_check_rrule_probes_the_imaginary_direction(cube_rule):
    defvjp(complex_cube, "x", "(3 * g * np.conj(x) ** 2).real.astype(x.dtype)")  # drops d/dIm
    with pytest.raises(AssertionError, match="finite differences"):
        check_rrule(complex_cube, c(4))


def test_check_rrule_wants_a_real_cotangent_for_a_real_argument(cube_rule):
    defvjp(complex_cube, "x", "3 * g * np.conj(x) ** 2 + 0j")
    with pytest.raises(AssertionError, match="dtype complex128, argument has dtype float64"):
        check_rrule(complex_cube, r(4))


def test_check_rrule_complex64_keeps_its_dtype_and_float32_tolerances(cube_rule):
    defvjp(complex_cube, "x", "3 * g * np.conj(x) ** 2")
    (dz,) = check_rrule(complex_cube, c(3).astype(np.complex64))
    assert dz.dtype == np.complex64
    defvjp(complex_cube, "x", "(3 * g * np.conj(x) ** 2).astype(np.complex128)")
    with pytest.raises(AssertionError, match="dtype complex128, argument has dtype complex64"):
        check_rrule(complex_cube, c(3).astype(np.complex64))


def test_numerical_gradient_of_complex_arguments():
    z, w = c(3), c(3)
    np.testing.assert_allclose(numerical_gradient(lambda z: np.sum(np.abs(z) ** 2), z), 2 * z, rtol=1e-7)
    # L = Re(sum(z * w)): dL/dRe(z) = Re(w), dL/dIm(z) = -Im(w), so the gradient is conj(w)
    np.testing.assert_allclose(numerical_gradient(lambda z: np.sum(z * w).real, z), np.conj(w), rtol=1e-7)
    gradient = numerical_gradient(lambda z: abs(z) ** 2, 1.0 + 2.0j)
    assert type(gradient) is complex and gradient == pytest.approx(2.0 + 4.0j)


# ------------------------------------------------------------------ one axis: fft ifft rfft irfft hfft ihfft
ONE_AXIS = [F.fft, F.ifft, F.rfft, F.irfft, F.hfft, F.ihfft]
ONE_AXIS_IDS = [f.__name__ for f in ONE_AXIS]
ONE_AXIS_INPUTS = [lambda: r(3, 6), lambda: r(3, 5), lambda: c(3, 6), lambda: c(3, 5), lambda: c(4, 1), lambda: r(2)]
LENGTHS = [None, 1, 2, 3, 4, 7, 10]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("f", ONE_AXIS, ids=ONE_AXIS_IDS)
def test_one_axis_finite_differences(f, norm):
    """Even and odd lengths, cut (n shorter) and zero-padded (n longer), both axes."""
    checked = 0
    for make in ONE_AXIS_INPUTS:
        x = make()
        for n in LENGTHS:
            for axis in (-1, 0):
                if primal_runs(f, x, n, axis, norm):
                    check_rrule(f, x, n, axis, norm)
                    checked += 1
    assert checked >= 40


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("f", ONE_AXIS, ids=ONE_AXIS_IDS)
def test_one_axis_is_the_exact_adjoint(f, norm):
    for x in (r(6), r(5), c(6), c(5)):
        for n in (None, 1, 2, 4, 5, 9):
            if not primal_runs(f, x, n, norm=norm):
                continue
            y = f(x, n, norm=norm)
            g = c(*y.shape) if np.iscomplexobj(y) else r(*y.shape)
            (dx, *_) = cotangents(f, x, n, norm=norm, g=g)
            np.testing.assert_allclose(dx, adjoint_by_columns(f, x, g, n=n, norm=norm), rtol=1e-10, atol=1e-12)


def test_fft_formula_is_the_conjugate_transpose_of_the_dft_matrix():
    n = 5
    dft = np.exp(-2j * np.pi * np.outer(np.arange(n), np.arange(n)) / n)
    z, g = c(n), c(n)
    (dz, *_) = cotangents(F.fft, z, g=g)
    np.testing.assert_allclose(dz, dft.conj().T @ g)
    (dz, *_) = cotangents(F.ifft, z, None, -1, "ortho", g=g)
    np.testing.assert_allclose(dz, dft @ g / np.sqrt(n))
    (dx, *_) = cotangents(F.fft, r(n), g=g)  # a real input keeps the real part
    np.testing.assert_allclose(dx, (dft.conj().T @ g).real)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8])
def test_rfft_every_bin_counts_once_dc_and_nyquist_included(n):
    """g = 1 at bin k pulls back to cos(2 pi j k / n); g = 1j there to -sin, which is 0 at DC and Nyquist."""
    j = np.arange(n)
    for k in range(n // 2 + 1):
        for unit, wave in ((1.0, np.cos), (1j, lambda t: -np.sin(t))):
            g = np.zeros(n // 2 + 1, complex)
            g[k] = unit
            (dx, *_) = cotangents(F.rfft, r(n), g=g)
            np.testing.assert_allclose(dx, wave(2 * np.pi * j * k / n), atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8])
def test_irfft_bins_other_than_dc_and_nyquist_count_twice(n):
    """irfft(e_k) = w_k cos(2 pi j k / n) / n, w_k = 2 except at DC and Nyquist: g = cos(...) pulls back to e_k."""
    j = np.arange(n)
    bins = n // 2 + 1
    for k in range(bins):
        (da, *_) = cotangents(F.irfft, c(bins), n, g=np.cos(2 * np.pi * j * k / n))
        np.testing.assert_allclose(da, np.eye(bins)[k], atol=1e-12)
    # the imaginary parts irfft ignores (DC; Nyquist for even n) get exactly zero
    (da, *_) = cotangents(F.irfft, c(bins), n, g=r(n))
    assert da[0].imag == 0.0
    if n % 2 == 0:
        assert da[-1].imag == 0.0
    elif n > 1:
        assert da[-1].imag != 0.0


def test_cut_and_padded_inputs():
    x, g = c(6), c(4)
    (dx, *_) = cotangents(F.fft, x, 4, g=g)  # cut: the elements left out get 0
    np.testing.assert_array_equal(dx[4:], 0)
    np.testing.assert_allclose(dx[:4], 4 * F.ifft(g))
    (dx, *_) = cotangents(F.fft, c(3), 8, g=c(8))  # padded: back to the input's length
    assert dx.shape == (3,)
    (da, *_) = cotangents(F.irfft, c(9), 6, g=r(6))  # irfft reads only n // 2 + 1 = 4 bins
    assert da.shape == (9,) and np.all(da[4:] == 0)
    (da, *_) = cotangents(F.hfft, c(2), 10, g=r(10))
    assert da.shape == (2,)


@pytest.mark.parametrize("f", ONE_AXIS, ids=ONE_AXIS_IDS)
def test_one_axis_dtypes(f):
    for x in (r(2, 6).astype(np.float32), c(2, 6).astype(np.complex64), r(2, 6), c(2, 6)):
        if primal_runs(f, x):
            (dx, *rest) = check_rrule(f, x, 5, 0)
            assert dx.dtype == x.dtype and dx.shape == x.shape
            assert all(ct is NO_TANGENT for ct in rest)
    (dx, *_) = check_rrule(f, np.arange(6) if f not in (F.irfft, F.hfft) else np.arange(6) + 0j)
    if f in (F.irfft, F.hfft):
        assert dx.dtype == np.complex128
    else:
        assert dx is NO_TANGENT  # an integer input has no tangent space


# ------------------------------------------------------------------ n-D: fft2 ifft2 rfft2 irfft2 fftn ifftn rfftn irfftn
N_AXES = [F.fft2, F.ifft2, F.rfft2, F.irfft2, F.fftn, F.ifftn, F.rfftn, F.irfftn]
N_AXES_IDS = [f.__name__ for f in N_AXES]
SHAPES_AND_AXES = [
    (None, None), ((3, 4), None), ((3, 4), (0, 2)), (None, (0, 2)), (None, (2, 0)), ((-1, 7), (1, 0)),
    ((2, 3, 5), None), ((2, 3, 5), (0, 1, 2)), (None, (1, 1)), ((4, 3), (-1, -1)), ((4,), (-1,)), ((5,), (0,)),
    ((None, 3), (0, 1)), ((3, None), (0, 1)), (None, ()),
]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("f", N_AXES, ids=N_AXES_IDS)
def test_n_axes_finite_differences(f, norm):
    """Default and explicit s/axes, cut and padded lengths, -1 and None in s, a repeated axis, no axes."""
    checked = 0
    for x in (r(3, 5, 4), c(3, 5, 4), r(2, 6, 3)):
        for s, axes in SHAPES_AND_AXES:
            if axes is None and f in (F.fft2, F.ifft2, F.rfft2, F.irfft2):
                axes = (-2, -1)
            if primal_runs(f, x, s, axes, norm):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    check_rrule(f, x, s, axes, norm)
                checked += 1
    assert checked >= 15


@pytest.mark.parametrize("f", N_AXES, ids=N_AXES_IDS)
def test_n_axes_is_the_exact_adjoint(f):
    for x, s, axes, norm in ((r(3, 4), None, (0, 1), "ortho"), (c(3, 4), (4, 5), (0, 1), None),
                             (c(2, 5), (3, 2), (1, 0), "forward"), (r(2, 3, 2), (2, 2), (0, 2), "backward")):
        if not primal_runs(f, x, s, axes, norm):
            continue
        y = f(x, s, axes, norm)
        g = c(*y.shape) if np.iscomplexobj(y) else r(*y.shape)
        (dx, *_) = cotangents(f, x, s, axes, norm, g=g)
        np.testing.assert_allclose(dx, adjoint_by_columns(f, x, g, s=s, axes=axes, norm=norm), rtol=1e-10, atol=1e-12)


def test_n_axes_dtypes():
    for f in N_AXES:
        for x in (r(4, 6).astype(np.float32), c(4, 6).astype(np.complex64)):
            if primal_runs(f, x):
                (dx, *_) = check_rrule(f, x)
                assert dx.dtype == x.dtype


def test_fft2_is_fftn_over_the_last_two_axes():
    x, g = c(2, 3, 4), c(2, 3, 4)
    (d2, *_) = cotangents(F.fft2, x, g=g)
    (dn, *_) = cotangents(F.fftn, x, None, (1, 2), g=g)
    np.testing.assert_allclose(d2, dn)
    np.testing.assert_allclose(d2, 12 * F.ifft2(g))


# ------------------------------------------------------------------ fftshift, ifftshift, fftfreq, rfftfreq
@pytest.mark.parametrize("f", [F.fftshift, F.ifftshift], ids=["fftshift", "ifftshift"])
def test_shifts(f):
    for x in (r(5), r(4, 5), c(3, 4), r(3, 4).astype(np.float32)):
        for axes in (None, 0, (1,), (-1, 0)):
            if x.ndim == 1 and axes not in (None, 0):
                continue
            (dx, _) = check_rrule(f, x, axes)
            assert dx.dtype == x.dtype
    g = r(7)
    undo = F.ifftshift if f is F.fftshift else F.fftshift
    (dx,) = cotangents(f, r(7), g=g)
    np.testing.assert_array_equal(dx, undo(g))


@pytest.mark.parametrize("f", [F.fftfreq, F.rfftfreq], ids=["fftfreq", "rfftfreq"])
def test_frequencies_move_with_the_sample_spacing_only(f):
    for n, d in ((8, 0.1), (7, 2.0), (1, 0.5), (6, np.array(0.25)), (5, np.float32(0.3))):
        dn, dd = check_rrule(f, n, d)
        assert dn is NO_TANGENT
        assert np.result_type(dd) == np.result_type(d) and np.shape(dd) == np.shape(d)
    g = r(len(f(8)))
    dn, dd = cotangents(f, 8, 0.5, g=g)
    assert type(dd) is float and dd == pytest.approx(-np.sum(g * f(8, 0.5)) / 0.5)


def test_zero_cotangent_stays_zero():
    assert cotangents(F.fft, c(4), g=ZERO)[0] is ZERO
    assert cotangents(F.irfftn, c(3, 4), g=ZERO)[0] is ZERO
    assert cotangents(F.fftfreq, 4, 1.0, g=ZERO)[1] is ZERO


# ------------------------------------------------------------------ the convention, end to end through rules
def test_power_spectrum_of_a_real_signal():
    """L = sum |rfft(x)|^2 through the rules of rfft, abs, square and sum, against finite differences."""
    x = r(7)
    spectrum, fft_pullback = rule_for(F.rfft).rrule(x)
    magnitude, abs_pullback = rule_for(np.abs).rrule(spectrum)
    (_, d_magnitude) = rule_for(np.square).rrule(magnitude)[1](np.ones_like(magnitude))
    (_, d_spectrum) = abs_pullback(d_magnitude)
    (_, dx, *_) = fft_pullback(d_spectrum)
    assert dx.dtype == np.float64
    np.testing.assert_allclose(dx, numerical_gradient(lambda x: np.sum(np.abs(F.rfft(x)) ** 2), x), rtol=1e-6)


def test_gradient_of_a_real_loss_of_a_complex_input():
    """L = sum |fft(z, ortho)|: dL/dRe(z) + 1j dL/dIm(z)."""
    z = c(6)
    spectrum, fft_pullback = rule_for(F.fft).rrule(z, None, -1, "ortho")
    magnitude, abs_pullback = rule_for(np.abs).rrule(spectrum)
    (_, dz, *_) = fft_pullback(abs_pullback(np.ones(6))[1])
    np.testing.assert_allclose(dz, numerical_gradient(lambda z: np.sum(np.abs(F.fft(z, norm="ortho"))), z), rtol=1e-6)
