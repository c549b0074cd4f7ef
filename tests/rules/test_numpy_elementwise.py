"""Rules of rules/numpy_elementwise.py: the hand-derived slope, finite differences, dtypes, edges;
complex inputs (holomorphic rules conjugate their slope) and real losses of complex values."""
import math
import warnings

import numpy as np
import pytest
from scipy import special

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.runtime.tangents import ZERO
from s2sad.testing import check_rrule, numerical_gradient

rng = np.random.default_rng(1)

DOMAINS = {
    "real": lambda shape: rng.standard_normal(shape),
    "positive": lambda shape: rng.uniform(0.5, 2.0, shape),
    "unit": lambda shape: rng.uniform(-0.9, 0.9, shape),
    "above1": lambda shape: rng.uniform(1.2, 3.0, shape),
    "nonzero": lambda shape: rng.choice([-1, 1], shape) * rng.uniform(0.3, 2.0, shape),
}


def cotangents(f, *args, g=None, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


# ------------------------------------------------------------------ unary: (function, domain, slope)
UNARY = [
    (np.negative,   "real",     lambda x: -np.ones_like(x)),
    (np.positive,   "real",     lambda x: np.ones_like(x)),
    (np.sin,        "real",     np.cos),
    (np.cos,        "real",     lambda x: -np.sin(x)),
    (np.tan,        "unit",     lambda x: 1 / np.cos(x) ** 2),
    (np.arcsin,     "unit",     lambda x: 1 / np.sqrt(1 - x ** 2)),
    (np.arccos,     "unit",     lambda x: -1 / np.sqrt(1 - x ** 2)),
    (np.arctan,     "real",     lambda x: 1 / (1 + x ** 2)),
    (np.sinh,       "real",     np.cosh),
    (np.cosh,       "real",     np.sinh),
    (np.tanh,       "real",     lambda x: 1 - np.tanh(x) ** 2),
    (np.arcsinh,    "real",     lambda x: 1 / np.sqrt(x ** 2 + 1)),
    (np.arccosh,    "above1",   lambda x: 1 / np.sqrt(x ** 2 - 1)),
    (np.arctanh,    "unit",     lambda x: 1 / (1 - x ** 2)),
    (np.exp,        "real",     np.exp),
    (np.exp2,       "real",     lambda x: np.log(2) * 2 ** x),
    (np.expm1,      "real",     np.exp),
    (np.log,        "positive", lambda x: 1 / x),
    (np.log2,       "positive", lambda x: 1 / (x * np.log(2))),
    (np.log10,      "positive", lambda x: 1 / (x * np.log(10))),
    (np.log1p,      "positive", lambda x: 1 / (1 + x)),
    (np.sqrt,       "positive", lambda x: 0.5 / np.sqrt(x)),
    (np.cbrt,       "nonzero",  lambda x: 1 / (3 * np.cbrt(x) ** 2)),
    (np.square,     "real",     lambda x: 2 * x),
    (np.reciprocal, "nonzero",  lambda x: -1 / x ** 2),
    (np.abs,        "nonzero",  np.sign),
    (np.fabs,       "nonzero",  np.sign),
    (np.deg2rad,    "real",     lambda x: np.full_like(x, np.pi / 180)),
    (np.rad2deg,    "real",     lambda x: np.full_like(x, 180 / np.pi)),
    (np.radians,    "real",     lambda x: np.full_like(x, np.pi / 180)),
    (np.degrees,    "real",     lambda x: np.full_like(x, 180 / np.pi)),
    (np.sinc,       "nonzero",  lambda x: (np.cos(np.pi * x) - np.sinc(x)) / x),
    (np.conjugate,  "real",     lambda x: np.ones_like(x)),
    (np.real,       "real",     lambda x: np.ones_like(x)),
    (np.nan_to_num, "real",     lambda x: np.ones_like(x)),
]
UNARY_IDS = [f.__name__ for f, _, _ in UNARY]


@pytest.mark.parametrize("f, domain, slope", UNARY, ids=UNARY_IDS)
def test_unary_formula(f, domain, slope):
    x = DOMAINS[domain](5)
    (dx,) = cotangents(f, x)
    np.testing.assert_allclose(dx, slope(x), rtol=1e-12)


@pytest.mark.parametrize("kind", ["array", "float32", "float", "0d", "npscalar"])
@pytest.mark.parametrize("f, domain, slope", UNARY, ids=UNARY_IDS)
def test_unary_finite_differences(f, domain, slope, kind):
    x = DOMAINS[domain]((2, 3))
    x = {"array": x, "float32": x.astype(np.float32), "float": float(x[0, 0]),
         "0d": np.array(x[0, 0]), "npscalar": np.float64(x[0, 0])}[kind]
    check_rrule(f, x)


@pytest.mark.parametrize("f, domain, slope", UNARY, ids=UNARY_IDS)
def test_unary_float32_stays_float32(f, domain, slope):
    x = DOMAINS[domain](4).astype(np.float32)
    (dx,) = cotangents(f, x)
    assert dx.dtype == np.float32


# ------------------------------------------------------------------ binary: (function, domains, slopes)
BINARY = [
    (np.add,        ("real", "real"),         lambda a, b: (1, 1)),
    (np.subtract,   ("real", "real"),         lambda a, b: (1, -1)),
    (np.multiply,   ("real", "real"),         lambda a, b: (b, a)),
    (np.divide,     ("real", "nonzero"),      lambda a, b: (1 / b, -a / b ** 2)),
    (np.power,      ("positive", "real"),     lambda a, b: (b * a ** (b - 1), a ** b * np.log(a))),
    (np.float_power, ("positive", "real"),    lambda a, b: (b * a ** (b - 1), a ** b * np.log(a))),
    (np.remainder,  ("positive", "positive"), lambda a, b: (1, -np.floor(a / b))),
    (np.fmod,       ("real", "positive"),     lambda a, b: (1, -np.trunc(a / b))),
    (np.arctan2,    ("real", "nonzero"),      lambda a, b: (b / (a ** 2 + b ** 2), -a / (a ** 2 + b ** 2))),
    (np.hypot,      ("real", "nonzero"),      lambda a, b: (a / np.hypot(a, b), b / np.hypot(a, b))),
    (np.logaddexp,  ("real", "real"),         lambda a, b: (1 / (1 + np.exp(b - a)), 1 / (1 + np.exp(a - b)))),
    (np.logaddexp2, ("real", "real"),         lambda a, b: (1 / (1 + 2 ** (b - a)), 1 / (1 + 2 ** (a - b)))),
    (np.maximum,    ("real", "real"),         lambda a, b: (a > b, b > a)),
    (np.minimum,    ("real", "real"),         lambda a, b: (a < b, b < a)),
    (np.fmax,       ("real", "real"),         lambda a, b: (a > b, b > a)),
    (np.fmin,       ("real", "real"),         lambda a, b: (a < b, b < a)),
]
BINARY_IDS = [f.__name__ for f, _, _ in BINARY]
SHAPES = [((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((3, 1, 2), (4, 1))]


@pytest.mark.parametrize("f, domains, slopes", BINARY, ids=BINARY_IDS)
def test_binary_formula(f, domains, slopes):
    a, b = DOMAINS[domains[0]](5), DOMAINS[domains[1]](5)
    da, db = cotangents(f, a, b)
    want_a, want_b = slopes(a, b)
    np.testing.assert_allclose(da, np.broadcast_to(want_a, a.shape), rtol=1e-12)
    np.testing.assert_allclose(db, np.broadcast_to(want_b, b.shape), rtol=1e-12)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("f, domains, slopes", BINARY, ids=BINARY_IDS)
def test_binary_finite_differences(f, domains, slopes, shapes):
    a, b = DOMAINS[domains[0]](shapes[0]), DOMAINS[domains[1]](shapes[1])
    check_rrule(f, a, b)


@pytest.mark.parametrize("f, domains, slopes", BINARY, ids=BINARY_IDS)
def test_binary_scalars_and_float32(f, domains, slopes):
    a, b = DOMAINS[domains[0]](()), DOMAINS[domains[1]](())
    check_rrule(f, float(a), float(b))
    check_rrule(f, np.array(a), float(b))
    a32, b32 = DOMAINS[domains[0]](3).astype(np.float32), DOMAINS[domains[1]](3).astype(np.float32)
    da, db = check_rrule(f, a32, b32)
    assert da.dtype == db.dtype == np.float32


# ------------------------------------------------------------------ edges
def test_abs_slope_at_zero_is_zero():
    (dx,) = cotangents(np.abs, np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(dx, [-1.0, 0.0, 1.0])


@pytest.mark.parametrize("f", [np.sqrt, np.log, np.arcsin, np.arctanh, np.cbrt, np.log1p])
def test_zero_cotangent_at_infinite_slope_is_zero(f):
    x = np.array([{np.arcsin: 1.0, np.arctanh: 1.0, np.log1p: -1.0}.get(f, 0.0)])
    with np.errstate(all="ignore"):
        (dx,) = cotangents(f, x, g=np.zeros(1))
    np.testing.assert_array_equal(dx, [0.0])


def test_where_of_sqrt_at_zero_has_no_nan():
    """np.where(x > 0, np.sqrt(x), 0.0): the untaken branch gets 0, and sqrt keeps it 0."""
    x = np.array([0.0, -1.0, 4.0])
    with np.errstate(invalid="ignore"):
        root, sqrt_pullback = rule_for(np.sqrt).rrule(x)
    out, where_pullback = rule_for(np.where).rrule(x > 0, root, 0.0)
    _, _, g_root, _ = where_pullback(np.ones(3))
    (_, dx) = sqrt_pullback(g_root)
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.25])


def test_where_finite_differences_and_broadcasting():
    condition = rng.standard_normal((2, 3)) > 0
    check_rrule(np.where, condition, rng.standard_normal((2, 3)), rng.standard_normal(3))
    check_rrule(np.where, condition, 1.5, rng.standard_normal((2, 1)).astype(np.float32))
    _, dx, dy = cotangents(np.where, condition, np.zeros((2, 3)), 0.0)
    np.testing.assert_array_equal(dx, condition.astype(float))
    assert dy == float(np.sum(~condition))


@pytest.mark.parametrize("f", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_ties_split_equally(f):
    da, db = cotangents(f, np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0]))
    winner_a = {np.maximum: [0.5, 1, 0], np.fmax: [0.5, 1, 0], np.minimum: [0.5, 0, 1], np.fmin: [0.5, 0, 1]}[f]
    np.testing.assert_array_equal(da, winner_a)
    np.testing.assert_array_equal(da + db, [1.0, 1.0, 1.0])
    assert cotangents(f, 2.0, 2.0, g=1.0) == (0.5, 0.5)


def test_clip():
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    da, dlo, dhi = cotangents(np.clip, x, -1.0, 1.0)
    np.testing.assert_array_equal(da, [0, 1, 1, 0])
    assert (dlo, dhi) == (1.0, 1.0)
    check_rrule(np.clip, rng.standard_normal((3, 4)), -0.5, rng.uniform(0.1, 1, 4))
    check_rrule(np.clip, rng.standard_normal(5).astype(np.float32), -0.5, None)
    (da,) = cotangents(np.clip, x, max=1.0)
    np.testing.assert_array_equal(da, [1, 1, 1, 0])


def test_power_with_zero_base_and_zero_cotangent():
    with np.errstate(all="raise"):
        da, db = cotangents(np.power, np.array([0.0, 2.0]), np.array([2.0, 3.0]))
    np.testing.assert_array_equal(da, [0.0, 12.0])
    np.testing.assert_allclose(db, [0.0, 8 * np.log(2)])


@pytest.mark.parametrize("cast", [np.float64, np.float32, np.float16])
def test_scalar_type_casts(cast):
    (dx,) = check_rrule(cast, np.float32(1.5), atol=1e-2, rtol=1e-2)
    assert dx.dtype == np.float32


# ------------------------------------------------------------------ complex inputs: g * conj(f'(z)) for holomorphic f
def complex_sample(shape, domain="complex"):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return {"complex": z, "small": 0.4 * z, "nonzero": z + 0.2 * np.sign(z.real)}[domain]


HOLOMORPHIC = [
    (np.sin,        "complex", np.cos),
    (np.cos,        "complex", lambda z: -np.sin(z)),
    (np.tan,        "small",   lambda z: 1 / np.cos(z) ** 2),
    (np.arcsin,     "small",   lambda z: 1 / np.sqrt(1 - z ** 2)),
    (np.arccos,     "small",   lambda z: -1 / np.sqrt(1 - z ** 2)),
    (np.arctan,     "small",   lambda z: 1 / (1 + z ** 2)),
    (np.sinh,       "complex", np.cosh),
    (np.cosh,       "complex", np.sinh),
    (np.tanh,       "small",   lambda z: 1 / np.cosh(z) ** 2),
    (np.arcsinh,    "small",   lambda z: 1 / np.sqrt(1 + z ** 2)),
    (np.arccosh,    "complex", lambda z: 1 / (np.sqrt(z - 1) * np.sqrt(z + 1))),
    (np.arctanh,    "small",   lambda z: 1 / (1 - z ** 2)),
    (np.exp,        "complex", np.exp),
    (np.exp2,       "complex", lambda z: np.log(2) * 2 ** z),
    (np.expm1,      "complex", np.exp),
    (np.log,        "nonzero", lambda z: 1 / z),
    (np.log2,       "nonzero", lambda z: 1 / (z * np.log(2))),
    (np.log10,      "nonzero", lambda z: 1 / (z * np.log(10))),
    (np.log1p,      "small",   lambda z: 1 / (1 + z)),
    (np.sqrt,       "nonzero", lambda z: 0.5 / np.sqrt(z)),
    (np.square,     "complex", lambda z: 2 * z),
    (np.reciprocal, "nonzero", lambda z: -1 / z ** 2),
    (np.sinc,       "nonzero", lambda z: (np.cos(np.pi * z) - np.sinc(z)) / z),
    (np.negative,   "complex", lambda z: -np.ones_like(z)),
    (np.positive,   "complex", np.ones_like),
]
HOLOMORPHIC_IDS = [f.__name__ for f, _, _ in HOLOMORPHIC]


@pytest.mark.parametrize("f, domain, slope", HOLOMORPHIC, ids=HOLOMORPHIC_IDS)
def test_holomorphic_formula_conjugates_the_slope(f, domain, slope):
    z, g = complex_sample(5, domain), complex_sample(5)
    (dz,) = cotangents(f, z, g=g)
    np.testing.assert_allclose(dz, g * np.conj(slope(z)), rtol=1e-12)


@pytest.mark.parametrize("f, domain, slope", HOLOMORPHIC, ids=HOLOMORPHIC_IDS)
def test_holomorphic_finite_differences(f, domain, slope):
    z = complex_sample((2, 3), domain)
    check_rrule(f, z)
    check_rrule(f, -z)  # the other half plane: branch cuts of arccosh, sqrt, log
    (dz,) = check_rrule(f, z.astype(np.complex64))
    assert dz.dtype == np.complex64
    check_rrule(f, complex(z[0, 0]))
    check_rrule(f, np.array(z[0, 0]))


COMPLEX_BINARY = [np.add, np.subtract, np.multiply, np.divide]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("f", COMPLEX_BINARY, ids=[f.__name__ for f in COMPLEX_BINARY])
def test_complex_binary(f, shapes):
    a, b = complex_sample(shapes[0], "nonzero"), complex_sample(shapes[1], "nonzero")
    check_rrule(f, a, b)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # unbroadcast keeps the real part
        da, db = check_rrule(f, a.real, b)  # a real operand gets a real cotangent
        assert da.dtype == np.float64 and db.dtype == np.complex128
        check_rrule(f, a.astype(np.complex64), 1.5)


def test_multiply_and_divide_formulas():
    a, b, g = complex_sample(4), complex_sample(4, "nonzero"), complex_sample(4)
    np.testing.assert_allclose(cotangents(np.multiply, a, b, g=g), (g * np.conj(b), g * np.conj(a)))
    np.testing.assert_allclose(cotangents(np.divide, a, b, g=g), (g / np.conj(b), -g * np.conj(a / b ** 2)))


# ------------------------------------------------------------------ complex parts: abs, angle, real, imag, conj
def test_abs_of_complex_is_g_times_z_over_abs_z_and_zero_at_zero():
    z = np.array([3 + 4j, 0j, -1j])
    (dz,) = cotangents(np.abs, z, g=np.array([1.0, 1.0, 2.0]))
    np.testing.assert_allclose(dz, [0.6 + 0.8j, 0, -2j])
    check_rrule(np.abs, complex_sample((2, 3), "nonzero"))
    (dz,) = check_rrule(np.abs, complex_sample(3, "nonzero").astype(np.complex64))
    assert dz.dtype == np.complex64
    check_rrule(np.abs, 1.0 - 2.0j)


@pytest.mark.parametrize("deg", [False, True])
def test_angle(deg):
    z = complex_sample((2, 3), "nonzero")
    check_rrule(np.angle, z, deg)
    check_rrule(np.angle, z.astype(np.complex64), deg)
    check_rrule(np.angle, complex(z[0, 0]), deg)
    g = rng.standard_normal((2, 3))
    (dz, _) = cotangents(np.angle, z, deg, g=g)
    scale = 180 / np.pi if deg else 1.0
    np.testing.assert_allclose(dz, scale * g * 1j / np.conj(z))  # grad atan2(y, x) = (-y + 1j x) / |z|^2
    with np.errstate(all="raise"):
        (dz, _) = cotangents(np.angle, np.array([0j, 1j]), deg, g=np.ones(2))
    assert dz[0] == 0
    (dx, _) = cotangents(np.angle, np.array([-1.0, 2.0]), deg, g=np.ones(2))
    assert dx is ZERO  # a real number's angle is piecewise constant


def test_real_imag_conj():
    z, g = complex_sample((2, 3)), rng.standard_normal((2, 3))
    for f in (np.real, np.imag, np.conjugate, np.conj):
        check_rrule(f, z)
        (dz,) = check_rrule(f, z.astype(np.complex64))
        assert dz.dtype == np.complex64
        check_rrule(f, complex(z[0, 0]))
    np.testing.assert_array_equal(cotangents(np.real, z, g=g)[0], g + 0j)
    np.testing.assert_array_equal(cotangents(np.imag, z, g=g)[0], 1j * g)
    gz = complex_sample((2, 3))
    np.testing.assert_array_equal(cotangents(np.conjugate, z, g=gz)[0], np.conj(gz))
    x = rng.standard_normal(3)
    assert cotangents(np.imag, x, g=np.ones(3))[0] is ZERO
    np.testing.assert_array_equal(cotangents(np.real, x, g=np.ones(3))[0], np.ones(3))


def test_real_if_close():
    z = complex_sample((2, 3))
    check_rrule(np.real_if_close, z)  # not close: the identity
    nearly_real = z.real + 1e-20j
    (dz,) = check_rrule(np.real_if_close, nearly_real)  # close: the real part
    assert dz.dtype == np.complex128
    np.testing.assert_array_equal(cotangents(np.real_if_close, nearly_real, g=np.ones((2, 3)))[0], np.ones((2, 3)))
    check_rrule(np.real_if_close, rng.standard_normal(3).astype(np.float32))


# ------------------------------------------------------------------ real losses of complex values, rule by rule
def chain(z, *steps):
    """Run rules one after another; return the value and the cotangent of ``z`` for a seed of 1."""
    value, pullbacks = z, []
    for f, *extra in steps:
        value, pullback = rule_for(f).rrule(value, *extra)
        pullbacks.append(pullback)
    g = np.ones_like(value)
    for pullback in reversed(pullbacks):
        g = pullback(g)[1]
    return value, g


W = complex_sample(4, "nonzero")
LOSSES = {
    "sum(real(exp(z)))": lambda z: (z, (np.exp,), (np.real,), (np.sum,)),
    "sum(abs(z * w))": lambda z: (z, (np.multiply, W), (np.abs,), (np.sum,)),
    "sum(real(log(z) / w))": lambda z: (z, (np.log,), (np.divide, W), (np.real,), (np.sum,)),
    "sum(imag(tanh(z)) ** 2)": lambda z: (z, (np.tanh,), (np.imag,), (np.square,), (np.sum,)),
    "sum(angle(sqrt(z)))": lambda z: (z, (np.sqrt,), (np.angle,), (np.sum,)),
    "mean(abs(conj(z) + w))": lambda z: (z, (np.conjugate,), (np.add, W), (np.abs,), (np.mean,)),
}


@pytest.mark.parametrize("name", LOSSES)
def test_gradient_of_a_real_loss_is_d_by_d_real_plus_1j_d_by_d_imag(name):
    z = complex_sample(4, "nonzero")

    def loss(z):
        return chain(*LOSSES[name](z))[0]

    value, dz = chain(*LOSSES[name](z))
    assert np.isrealobj(value) and dz.dtype == np.complex128
    np.testing.assert_allclose(dz, numerical_gradient(loss, z), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ sign and abs of complex numbers
def test_sign_of_complex_moves():
    """NumPy's sign(z) is z / |z| for complex z: not piecewise constant."""
    z = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    check_rrule(np.sign, z)
    (dx,) = check_rrule(np.sign, rng.standard_normal(4))
    assert dx is ZERO


def sum_of_moduli(z):
    return np.sum(np.abs(z))


def sum_of_cubed_moduli(z):
    return np.sum(np.abs(z) ** 3)


def test_hvp_through_abs_of_complex():
    """Second order through |z|, against the hand-derived Hessians of R^2: the gradient of
    |z| is s = z/|z|, and moving z along v moves it by (v - s Re(conj(s) v)) / |z|; the
    gradient of |z|^3 is 3|z|z, moved by 3(|z| v + z Re(conj(z) v) / |z|)."""
    z = np.array([1 + 2j, 0.5 - 1j, -0.3 + 0.2j])
    v = np.array([0.3 - 0.1j, 1 + 0.2j, -0.7 + 0.5j])
    s, m = z / np.abs(z), np.abs(z)
    np.testing.assert_allclose(s2sad.hvp(sum_of_moduli, (z,), (v,)), (v - s * np.real(np.conj(s) * v)) / m)
    np.testing.assert_allclose(s2sad.hvp(sum_of_cubed_moduli, (z,), (v,)),
                               3 * (m * v + z * np.real(np.conj(z) * v) / m))


def test_nan_to_num_replacement_values_get_their_cotangents():
    # the values put in for NaN, +inf and -inf are differentiated (reverse mode gave them none,
    # forward mode did: np.nan_to_num(np.log(x), nan=c, neginf=-c) had d/dc 0 against 1.2)
    rng = np.random.default_rng(21)
    x = rng.standard_normal((2, 4))
    x[0, 0], x[0, 1], x[1, 2], x[1, 3] = np.nan, np.inf, -np.inf, np.nan
    check_rrule(np.nan_to_num, x, True, 1.5, 10.0, -10.0)
    check_rrule(np.nan_to_num, x, True, rng.standard_normal(4), 10.0, -10.0)  # broadcast along the rows
    z = x + 1j * rng.standard_normal((2, 4))
    z[1, 0] = complex(1.0, np.nan)  # the parts are replaced apart
    g = rng.standard_normal((2, 4)) + 1j * rng.standard_normal((2, 4))
    _, pullback = rule_for(np.nan_to_num).rrule(z, True, 1.5, 10.0, -10.0)
    d_nan = pullback(g)[3]
    assert d_nan == pytest.approx(g[0, 0].real + g[1, 3].real + g[1, 0].imag)
    # and x's: complex(1.0, nan) keeps its real part, whose cotangent is g's real part (it was 0)
    d_x = pullback(g)[1]
    assert d_x[1, 0] == g[1, 0].real and d_x[0, 0] == 1j * g[0, 0].imag and d_x[0, 2] == g[0, 2]


# ------------------------------------------------------------------ found by the sweep (test_systematic.py)
def test_real_squared_in_a_complex_dtype_has_a_real_gradient():
    """np.square(x, dtype=complex128) of a real x: its cotangent was complex (2 conj(x) g with
    a complex g), so a real argument's gradient came back complex."""
    x = rng.standard_normal((2, 3))
    (dx,) = check_rrule(np.square, x, dtype=np.complex128)
    assert dx.dtype == np.float64

    def loss(x):
        return np.real(np.sum(np.square(x, dtype=np.complex128) * (1 + 2j)))

    gradient = s2sad.grad(loss)(x)
    assert gradient.dtype == np.float64
    np.testing.assert_allclose(gradient, numerical_gradient(loss, x), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ unwrap
def phases(shape):
    return np.cumsum(rng.uniform(0.0, 2.5, shape), axis=-1)  # steps up to 2.5 rad: some jumps unwrapped


@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"discont": 4.0}, {"period": 3.0}, {"period": 360.0}],
                         ids=["default", "axis0", "discont", "period3", "degrees"])
def test_unwrap_passes_the_gradient_through(kwargs):
    p = phases((3, 6)) * (60 if kwargs.get("period") == 360.0 else 1)
    (dp,) = check_rrule(np.unwrap, p, **kwargs)
    check_rrule(np.unwrap, p.astype(np.float32), **kwargs)
    g = rng.standard_normal(p.shape)
    from s2sad.registry import rule_for

    _, pullback = rule_for(np.unwrap).rrule(p, **kwargs)
    np.testing.assert_array_equal(pullback(g)[1], g)  # the added periods are piecewise constant


def wrapped_phase_energy(theta):
    return np.sum(np.unwrap(np.angle(np.exp(1j * theta))) ** 2)


def unwrapped_with_a_differentiated_period(period):
    return np.sum(np.unwrap(np.array([0.0, 2.0, 4.0, 6.0]), period=period))


def test_unwrap_in_a_program():
    from s2sad.testing import check_grads

    check_grads(wrapped_phase_energy, modes=("fwd", "rev"), order=2)(phases(8))
    with pytest.raises(s2sad.S2SADError, match="period"):
        s2sad.grad(unwrapped_with_a_differentiated_period)(3.0)


def test_square_in_a_dtype_has_a_tangent_in_it():
    """np.square(x, dtype=np.float32) of float64 x is float32; its tangent was float64 (found by the sweep)."""
    from s2sad.registry.forward import forward_rule

    x = rng.standard_normal(3)
    for dtype in (np.float32, np.complex128):
        tangent = forward_rule(np.square).pushforward((x,), {"dtype": dtype}, {"x": np.ones(3)}, np.square(x, dtype=dtype))
        assert tangent.dtype == np.dtype(dtype)


# ------------------------------------------------------------------ heaviside: x2 is the value where x1 is 0
def weighted_heaviside(h):
    steps = np.array([0.0, 1.5, -2.0, 0.0])
    return np.sum(np.heaviside(steps, h) * np.array([1.0, 2.0, 3.0, 4.0]))


@pytest.mark.parametrize("h", [0.3, np.array([0.2, 0.3, 0.4, 0.5]), np.float32(0.3),
                               np.array([0.2, 0.3, 0.4, 0.5], dtype=np.float32)],
                         ids=["float", "array", "float32", "float32 array"])
def test_heaviside_moves_with_its_value_at_zero(h):
    """heaviside(x1, x2) is x2 where x1 == 0 (elements 0 and 3 here): slope 1 there, 0 elsewhere.
    It was declared nondifferentiable, and its gradient in x2 was 0 where this one is 1 and 4."""
    expected = np.array([1.0, 0.0, 0.0, 4.0]) if np.ndim(h) else 5.0
    reference = numerical_gradient(weighted_heaviside, np.asarray(h, dtype=np.float64))
    np.testing.assert_allclose(reference, expected, atol=1e-7)
    gradient = s2sad.grad(weighted_heaviside)(h)
    np.testing.assert_allclose(gradient, expected, rtol=0, atol=0)
    assert np.result_type(gradient) == np.result_type(h)
    direction = np.ones_like(h) if np.ndim(h) else 1.0
    np.testing.assert_allclose(s2sad.jvp(weighted_heaviside, (h,), (direction,))[1], 5.0)


def _expm1_sum(x):
    return np.sum(np.expm1(x))


def _math_expm1(x):
    return math.expm1(x)


def _expit_sum(x):
    return np.sum(special.expit(x))


def _log_expit_sum(x):
    return np.sum(special.log_expit(x))


def _sinc_sum(x):
    return np.sum(np.sinc(x))


def _sinc_slope_by_series(x):
    """d/dx sin(pi x)/(pi x) from the Taylor series of sin(y)/y, y = pi x (no cancellation near 0)."""
    y = np.pi * x
    return np.pi * sum((-1) ** k * 2 * k * y ** (2 * k - 1) / math.factorial(2 * k + 1) for k in range(1, 12))


@pytest.mark.parametrize("f, x, slope", [
    (_expm1_sum, np.array([-40.0, -30.0, 2.0]), np.exp),
    (_math_expm1, -40.0, math.exp),
    (_expit_sum, np.array([40.0, 30.0, -40.0]), lambda x: special.expit(x) * special.expit(-x)),
    (_log_expit_sum, np.array([40.0, 30.0, -2.0]), lambda x: special.expit(-x)),
    (_sinc_sum, np.array([1e-8, -3e-7, 1e-4, 0.0299, 0.031, 0.0]), _sinc_slope_by_series),
])
def test_slopes_keep_their_digits_where_their_formula_cancels(f, x, slope):
    """expm1's slope is exp(x), not expm1(x) + 1 (which is -1 + 1 = 0 below x = -37); expit's
    and log_expit's tails likewise (1 - expit(x) is 0 above x = 37); sinc's (cos(pi x) - sinc(x)) / x
    was a third off at x = 1e-8: both modes, hand-derived."""
    expected = slope(x)
    tangent = np.ones_like(x) if isinstance(x, np.ndarray) else 1.0
    np.testing.assert_allclose(s2sad.grad(f)(x), expected, rtol=1e-12)
    np.testing.assert_allclose(s2sad.jvp(f, (x,), (tangent,))[1], np.sum(expected), rtol=1e-12)
