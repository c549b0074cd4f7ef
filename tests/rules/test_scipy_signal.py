"""Rules of rules/scipy_signal.py: every mode and method, explicit Jacobians, lfilter (skipped without SciPy)."""
import numpy as np
import pytest

signal = pytest.importorskip("scipy.signal")

import s2sad  # noqa: E402,F401
from s2sad.registry import rule_for  # noqa: E402
from s2sad.runtime.tangents import NO_TANGENT  # noqa: E402
from s2sad.testing import check_rrule  # noqa: E402

rng = np.random.default_rng(21)


def r(*shape):
    return rng.standard_normal(shape)


def cotangents(f, *args, g, **kwargs):
    """The cotangents of the two inputs (or three, for lfilter); flags passed positionally get none."""
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(g)[1:4 if f is signal.lfilter else 3]


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
    check_rrule(f, r(*s1), r(*s2), mode, method)


@pytest.mark.parametrize("s1, s2, mode", CASES, ids=str)
def test_fftconvolve(s1, s2, mode):
    check_rrule(signal.fftconvolve, r(*s1), r(*s2), mode)


@pytest.mark.parametrize("mode", MODES)
def test_fftconvolve_along_some_axes(mode):
    check_rrule(signal.fftconvolve, r(3, 8), r(1, 3), mode, axes=1)
    check_rrule(signal.fftconvolve, r(3, 8), r(3, 3), mode, axes=[-1])
    check_rrule(signal.fftconvolve, r(1, 8), r(4, 3), mode, axes=(1,))    # in1 broadcast along axis 0
    check_rrule(signal.fftconvolve, r(5, 2, 6), r(3, 2, 1), mode, axes=(0, 2))


def convolution_matrix(kernel, n):
    """J with convolve(x, kernel, 'full') = J @ x, built entry by entry."""
    m = len(kernel)
    matrix = np.zeros((n + m - 1, n))
    for i in range(n + m - 1):
        for k in range(n):
            if 0 <= i - k < m:
                matrix[i, k] = kernel[i - k]
    return matrix


@pytest.mark.parametrize("mode", MODES)
def test_cotangents_are_the_transposed_jacobian(mode):
    x, kernel = r(7), r(3)
    full = convolution_matrix(kernel, 7)
    rows = {"full": slice(None), "same": slice(1, 8), "valid": slice(2, 7)}[mode]
    g = r(full[rows].shape[0])
    dx, dkernel = cotangents(signal.convolve, x, kernel, mode, g=g)
    np.testing.assert_allclose(dx, full[rows].T @ g, rtol=1e-12)
    np.testing.assert_allclose(dkernel, convolution_matrix(x, 3)[rows].T @ g, rtol=1e-12)
    # correlate(x, kernel) = convolve(x, kernel reversed)
    dx, dkernel = cotangents(signal.correlate, x, kernel, mode, g=g)
    np.testing.assert_allclose(dx, convolution_matrix(kernel[::-1], 7)[rows].T @ g, rtol=1e-12)
    np.testing.assert_allclose(dkernel[::-1], convolution_matrix(x, 3)[rows].T @ g, rtol=1e-12)


def test_methods_give_the_same_cotangents():
    a, b = r(6, 5), r(3, 2)
    g = r(*signal.convolve(a, b, "same").shape)
    results = [cotangents(f, a, b, "same", method, g=g) for f in (signal.convolve, signal.correlate)
               for method in ("direct", "fft", "auto")]
    for i in (1, 2, 4, 5):
        base = results[0 if i < 3 else 3]
        for got, expected in zip(results[i], base):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    fft = cotangents(signal.fftconvolve, a, b, "same", g=g)
    for got, expected in zip(fft, results[0]):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_dtypes_and_integers():
    da, db = check_rrule(signal.convolve, r(6).astype(np.float32), r(3).astype(np.float32))
    assert da.dtype == db.dtype == np.float32
    da, db = check_rrule(signal.fftconvolve, r(6).astype(np.float32), r(3).astype(np.float32), mode="same")
    assert da.dtype == db.dtype == np.float32
    da, db = check_rrule(signal.convolve, r(6), np.array([1, 2, 1]))
    assert db is NO_TANGENT
    check_rrule(signal.convolve, 2.0, 3.0)


# ------------------------------------------------------------------ lfilter
B, A = np.array([0.3, 0.2, 0.1]), np.array([1.0, -0.5, 0.2])


def test_lfilter_finite_differences():
    check_rrule(signal.lfilter, B, A, r(20))
    check_rrule(signal.lfilter, B, np.array([2.0, -0.5]), r(3, 10))               # a[0] != 1, along the last axis
    check_rrule(signal.lfilter, B, A, r(10, 3), axis=0)
    check_rrule(signal.lfilter, np.array([0.5]), np.array([1.0]), r(6))           # a plain gain
    check_rrule(signal.lfilter, B, A, r(2))                                        # shorter than the filter
    db, da, dx = check_rrule(signal.lfilter, B.astype(np.float32), A.astype(np.float32), r(8).astype(np.float32))
    assert db.dtype == da.dtype == dx.dtype == np.float32


def test_lfilter_cotangent_of_x_is_the_transposed_impulse_response():
    n = 12
    impulse = signal.lfilter(B, A, np.eye(n)[0])
    jacobian = np.array([[impulse[i - k] if i >= k else 0.0 for k in range(n)] for i in range(n)])
    g = r(n)
    _, _, dx = cotangents(signal.lfilter, B, A, r(n), g=g)
    np.testing.assert_allclose(dx, jacobian.T @ g, rtol=1e-10)


def test_lfilter_refuses_initial_conditions():
    _, pullback = rule_for(signal.lfilter).rrule(B, A, r(5), -1, np.zeros(2))
    with pytest.raises(NotImplementedError):
        pullback((r(5), r(2)))


# ------------------------------------------------------------------ convolve2d
SHAPE_PAIRS = [((4, 5), (2, 3)), ((2, 3), (4, 5)), ((3, 3), (3, 3)), ((5, 2), (2, 2)), ((1, 4), (1, 2))]


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_convolve2d_with_zero_fill(shapes, mode):
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    check_rrule(signal.convolve2d, a, b, mode)
    check_rrule(signal.convolve2d, a + 1j * rng.standard_normal(shapes[0]), b, mode)
    check_rrule(signal.convolve2d, a.astype(np.float32), b.astype(np.float32), mode, boundary="fill", fillvalue=0)


def blurred_energy(image, kernel):
    return np.sum(signal.convolve2d(image, kernel, mode="same") ** 2) + np.sum(signal.convolve2d(image, kernel) * image[0, 0])


def wrapped(image):
    return np.sum(signal.convolve2d(image, np.ones((2, 2)), boundary="wrap"))


def filled_with_one(image):
    return np.sum(signal.convolve2d(image, np.ones((2, 2)), fillvalue=1.0))


def test_convolve2d_in_a_program_to_second_order():
    from s2sad.testing import check_grads

    check_grads(blurred_energy, argnums=(0, 1), modes=("fwd", "rev"), order=2)(rng.standard_normal((4, 5)),
                                                                                 rng.standard_normal((2, 3)))


@pytest.mark.parametrize("f", [wrapped, filled_with_one], ids=lambda f: f.__name__)
def test_convolve2d_other_boundaries_are_refused(f):
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(f)(rng.standard_normal((3, 4)))
    assert "boundary='fill'" in str(caught.value) and "test_scipy_signal.py" in str(caught.value)


def test_convolve2d_of_an_empty_image():
    da, db, _ = check_rrule(signal.convolve2d, np.zeros((2, 0)), rng.standard_normal((2, 2)), "same")
    assert da.shape == (2, 0) and np.all(db == 0)


@pytest.mark.parametrize("function", [signal.convolve, signal.correlate, signal.fftconvolve],
                         ids=lambda f: f.__name__)
def test_an_empty_operand(function):
    """An empty operand gives an empty output; the rules' valid convolution of the cotangent refused it (ValueError)."""
    for a, b in ((np.zeros(0), rng.standard_normal(3)), (np.zeros((2, 0)), rng.standard_normal((2, 2)))):
        da, db, _ = check_rrule(function, a, b, "same")
        assert da.shape == a.shape and not np.any(db)
