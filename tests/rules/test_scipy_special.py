"""Rules of rules/scipy_special.py: hand-derived slopes, finite differences, dtypes, edges (skipped without SciPy)."""
import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

import s2sad  # noqa: E402,F401
from s2sad.registry import rule_for  # noqa: E402
from s2sad.runtime.tangents import NO_TANGENT  # noqa: E402
from s2sad.errors import MissingRuleError  # noqa: E402
from s2sad.testing import check_rrule, numerical_gradient  # noqa: E402

rng = np.random.default_rng(6)

DOMAINS = {
    "real": lambda shape: rng.standard_normal(shape),
    "positive": lambda shape: rng.uniform(0.5, 3.0, shape),
    "unit": lambda shape: rng.uniform(0.1, 0.9, shape),
    "centred": lambda shape: rng.uniform(-0.8, 0.8, shape),
    "upper": lambda shape: rng.uniform(0.2, 1.8, shape),
}


def cotangents(f, *args, g=None, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


# ------------------------------------------------------------------ one float argument: (function, domain, slope)
UNARY = [
    (special.erf,       "real",     lambda x: 2 / np.sqrt(np.pi) * np.exp(-x ** 2)),
    (special.erfc,      "real",     lambda x: -2 / np.sqrt(np.pi) * np.exp(-x ** 2)),
    (special.erfcx,     "real",     lambda x: 2 * x * special.erfcx(x) - 2 / np.sqrt(np.pi)),
    (special.erfinv,    "centred",  lambda x: np.sqrt(np.pi) / 2 * np.exp(special.erfinv(x) ** 2)),
    (special.erfcinv,   "upper",    lambda x: -np.sqrt(np.pi) / 2 * np.exp(special.erfcinv(x) ** 2)),
    (special.ndtr,      "real",     lambda x: np.exp(-x ** 2 / 2) / np.sqrt(2 * np.pi)),
    (special.ndtri,     "unit",     lambda p: np.sqrt(2 * np.pi) * np.exp(special.ndtri(p) ** 2 / 2)),
    (special.log_ndtr,  "real",     lambda x: np.exp(-x ** 2 / 2) / np.sqrt(2 * np.pi) / special.ndtr(x)),
    (special.expit,     "real",     lambda x: special.expit(x) * (1 - special.expit(x))),
    (special.logit,     "unit",     lambda x: 1 / (x * (1 - x))),
    (special.log_expit, "real",     lambda x: 1 - special.expit(x)),
    (special.entr,      "positive", lambda x: -np.log(x) - 1),
    (special.gamma,     "positive", lambda x: special.gamma(x) * special.digamma(x)),
    (special.gammaln,   "positive", special.digamma),
    (special.digamma,   "positive", lambda x: special.polygamma(1, x)),
    (special.rgamma,    "positive", lambda x: -special.digamma(x) / special.gamma(x)),
    (special.i0,        "real",     special.i1),
    (special.i1,        "real",     lambda x: special.i0(x) - special.i1(x) / x),
    (special.i0e,       "real",     lambda x: special.i1e(x) - np.sign(x) * special.i0e(x)),
    (special.i1e,       "real",     lambda x: special.i0e(x) - special.i1e(x) / x - np.sign(x) * special.i1e(x)),
    (special.j0,        "real",     lambda x: -special.j1(x)),
    (special.j1,        "real",     lambda x: (special.j0(x) - special.jv(2, x)) / 2),
    (special.y0,        "positive", lambda x: -special.y1(x)),
    (special.y1,        "positive", lambda x: (special.y0(x) - special.yv(2, x)) / 2),
    (special.k0,        "positive", lambda x: -special.k1(x)),
    (special.k1,        "positive", lambda x: -special.k0(x) - special.k1(x) / x),
    (special.k0e,       "positive", lambda x: special.k0e(x) - special.k1e(x)),
    (special.k1e,       "positive", lambda x: special.k1e(x) * (1 - 1 / x) - special.k0e(x)),
    (special.dawsn,     "real",     lambda x: 1 - 2 * x * special.dawsn(x)),
    (special.erfi,      "real",     lambda x: 2 / np.sqrt(np.pi) * np.exp(x ** 2)),
    (special.exp1,      "positive", lambda x: -np.exp(-x) / x),
    (special.expi,      "positive", lambda x: np.exp(x) / x),
]
UNARY_IDS = [f.__name__ for f, _, _ in UNARY]


@pytest.mark.parametrize("f, domain, slope", UNARY, ids=UNARY_IDS)
def test_unary_formula(f, domain, slope):
    x = DOMAINS[domain](5)
    (dx,) = cotangents(f, x)
    np.testing.assert_allclose(dx, slope(x), rtol=1e-10)


@pytest.mark.parametrize("kind", ["array", "float32", "float", "0d"])
@pytest.mark.parametrize("f, domain, slope", UNARY, ids=UNARY_IDS)
def test_unary_finite_differences(f, domain, slope, kind):
    x = DOMAINS[domain]((2, 3))
    x = {"array": x, "float32": x.astype(np.float32), "float": float(x[0, 0]), "0d": np.array(x[0, 0])}[kind]
    (dx,) = check_rrule(f, x)
    if kind == "float32":
        assert dx.dtype == np.float32


# ------------------------------------------------------------------ two or three float arguments, with broadcasting
POS, POS2, UNIT, REAL = DOMAINS["positive"], lambda s: rng.uniform(0.5, 3.0, s), DOMAINS["unit"], DOMAINS["real"]
# (function, makers of the arguments, slopes of each argument or None)
SEVERAL = [
    (special.xlogy,     (REAL, POS),       (lambda x, y: np.log(y), lambda x, y: x / y)),
    (special.xlog1py,   (REAL, POS),       (lambda x, y: np.log1p(y), lambda x, y: x / (1 + y))),
    (special.rel_entr,  (POS, POS2),       (lambda x, y: np.log(x / y) + 1, lambda x, y: -x / y)),
    (special.kl_div,    (POS, POS2),       (lambda x, y: np.log(x / y), lambda x, y: 1 - x / y)),
    (special.beta,      (POS, POS2),       None),
    (special.betaln,    (POS, POS2),       (lambda a, b: special.digamma(a) - special.digamma(a + b),
                                            lambda a, b: special.digamma(b) - special.digamma(a + b))),
    (special.gammainc,  (POS, POS2),       (None, lambda a, x: x ** (a - 1) * np.exp(-x) / special.gamma(a))),
    (special.gammaincc, (POS, POS2),       (None, lambda a, x: -x ** (a - 1) * np.exp(-x) / special.gamma(a))),
    (special.betainc,   (POS, POS2, UNIT), (None, None,
                                            lambda a, b, x: x ** (a - 1) * (1 - x) ** (b - 1) / special.beta(a, b))),
]
SEVERAL_IDS = [f.__name__ for f, _, _ in SEVERAL]
SHAPES = [((4,), (4,)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (3,)), ((2, 3), ())]


@pytest.mark.parametrize("f, makers, slopes", [c for c in SEVERAL if c[2]], ids=[c[0].__name__ for c in SEVERAL if c[2]])
def test_several_formula(f, makers, slopes):
    args = [make(5) for make in makers]
    for dx, slope in zip(cotangents(f, *args), slopes):
        if slope is not None:
            np.testing.assert_allclose(dx, slope(*args), rtol=1e-10)


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("f, makers, slopes", SEVERAL, ids=SEVERAL_IDS)
def test_several_finite_differences(f, makers, slopes, shapes):
    shapes = (shapes + shapes[:1])[:len(makers)]
    check_rrule(f, *[make(shape) for make, shape in zip(makers, shapes)])


@pytest.mark.parametrize("f, makers, slopes", SEVERAL, ids=SEVERAL_IDS)
def test_several_float32_and_python_floats(f, makers, slopes):
    args = [make(3).astype(np.float32) for make in makers]
    for dx in check_rrule(f, *args):
        assert dx.dtype == np.float32
    floats = [float(make(())) for make in makers]
    for dx in check_rrule(f, *floats):
        assert type(dx) is float


# ------------------------------------------------------------------ Bessel functions of any order: the order gets no gradient
BESSEL = [
    (special.jv,  "real",     lambda v, x: (special.jv(v - 1, x) - special.jv(v + 1, x)) / 2),
    (special.jn,  "real",     lambda v, x: (special.jv(v - 1, x) - special.jv(v + 1, x)) / 2),
    (special.yv,  "positive", lambda v, x: (special.yv(v - 1, x) - special.yv(v + 1, x)) / 2),
    (special.yn,  "positive", lambda v, x: (special.yv(v - 1, x) - special.yv(v + 1, x)) / 2),
    (special.iv,  "real",     lambda v, x: (special.iv(v - 1, x) + special.iv(v + 1, x)) / 2),
    (special.ive, "positive", lambda v, x: (special.iv(v - 1, x) + special.iv(v + 1, x)) / 2 * np.exp(-x)
                                           - special.ive(v, x)),
    (special.kv,  "positive", lambda v, x: -(special.kv(v - 1, x) + special.kv(v + 1, x)) / 2),
    (special.kve, "positive", lambda v, x: special.kve(v, x) - (special.kv(v - 1, x) + special.kv(v + 1, x)) / 2 * np.exp(x)),
]
BESSEL_IDS = [f.__name__ for f, _, _ in BESSEL]


@pytest.mark.parametrize("f, domain, slope", BESSEL, ids=BESSEL_IDS)
def test_bessel_formula_and_no_gradient_for_the_order(f, domain, slope):
    x = DOMAINS[domain](6)
    orders = np.array([0, 1, 2, 3, -1, 5])
    dv, dx = cotangents(f, orders, x)
    assert dv is NO_TANGENT
    np.testing.assert_allclose(dx, slope(orders, x), rtol=1e-10)


@pytest.mark.parametrize("f, domain, slope", BESSEL, ids=BESSEL_IDS)
def test_bessel_finite_differences(f, domain, slope):
    x = DOMAINS[domain]((2, 3))
    check_rrule(f, 2, x)
    check_rrule(f, np.array([[0], [1]]), x)                # orders broadcast against x
    check_rrule(f, 1, float(x[0, 0]))
    (_, dx) = check_rrule(f, 1, x.astype(np.float32))
    assert dx.dtype == np.float32
    if f not in (special.jn, special.yn):                  # real orders (x > 0): no derivative in the order
        orders, x = np.array([0.5, 1.7, 2.25]), np.abs(x) + 0.1
        _, pullback = rule_for(f).rrule(orders, x)
        with pytest.raises(MissingRuleError, match="order"):  # refused, not a silent 0
            pullback(np.ones((2, 3)))


def bessel_at_a_real_constant_order(x):
    return np.sum(special.jv(1.5, x))


def bessel_at_a_differentiated_order(v, x):
    return np.sum(special.jv(v, x))


def test_bessel_real_order_constant_or_refused():
    x = np.array([0.5, 1.2, 2.0])
    np.testing.assert_allclose(s2sad.grad(bessel_at_a_real_constant_order)(x),
                               numerical_gradient(bessel_at_a_real_constant_order, x), rtol=1e-6)
    with pytest.raises(MissingRuleError) as caught:
        s2sad.grad(bessel_at_a_differentiated_order)(1.5, x)
    assert "test_scipy_special.py" in str(caught.value)


def test_i1_and_i1e_at_zero():
    for f in (special.i1, special.i1e):
        (dx,) = cotangents(f, np.array([0.0]))
        np.testing.assert_allclose(dx, [0.5])


# ------------------------------------------------------------------ multigammaln
def test_multigammaln():
    a = rng.uniform(2.0, 4.0, 5)
    for d in (1, 2, 3):
        da, dd = cotangents(special.multigammaln, a, d)
        assert dd is NO_TANGENT
        np.testing.assert_allclose(da, sum(special.digamma(a - j / 2) for j in range(d)), rtol=1e-12)
        check_rrule(special.multigammaln, a, d)
    check_rrule(special.multigammaln, 3.5, 2)
    (da, _) = check_rrule(special.multigammaln, a.astype(np.float32), 3)
    assert da.dtype == np.float32


# ------------------------------------------------------------------ shape derivatives of gammainc and betainc
def richardson(f, t, h):
    """d f / d t by central differences extrapolated twice (error about h ** 6)."""
    d1 = (f(t + h) - f(t - h)) / (2 * h)
    d2 = (f(t + h / 2) - f(t - h / 2)) / h
    d4 = (f(t + h / 4) - f(t - h / 4)) / (h / 2)
    e2 = (4 * d2 - d1) / 3
    e4 = (4 * d4 - d2) / 3
    return (16 * e4 - e2) / 15


# points on both sides of every branch switch (x = a + 1; x = (a + 1) / (a + b + 2))
GAMMA_POINTS = [(0.05, 0.3), (0.5, 0.01), (0.5, 4.0), (1.0, 1.99), (1.0, 2.01), (3.0, 0.5), (3.0, 9.0),
                (30.0, 25.0), (30.0, 31.5), (30.0, 45.0), (200.0, 180.0), (200.0, 230.0)]
BETA_POINTS = [(0.3, 0.4, 0.2), (0.3, 0.4, 0.8), (2.0, 3.0, 0.4), (2.0, 3.0, 0.45), (5.0, 1.5, 0.9),
               (0.8, 30.0, 0.01), (0.8, 30.0, 0.1), (40.0, 60.0, 0.39), (40.0, 60.0, 0.42)]


def test_gammainc_slope_in_a():
    a, x = np.array(GAMMA_POINTS).T
    da, _ = cotangents(special.gammainc, a, x)
    dqa, _ = cotangents(special.gammaincc, a, x)
    expected = np.array([richardson(lambda t: special.gammainc(t, xi), ai, 1e-3 * ai) for ai, xi in zip(a, x)])
    np.testing.assert_allclose(da, expected, rtol=1e-7, atol=1e-13)
    np.testing.assert_allclose(dqa, -expected, rtol=1e-7, atol=1e-13)


def test_betainc_slopes_in_a_and_b():
    a, b, x = np.array(BETA_POINTS).T
    da, db, _ = cotangents(special.betainc, a, b, x)
    expected_a = [richardson(lambda t: special.betainc(t, bi, xi), ai, 1e-3 * ai) for ai, bi, xi in zip(a, b, x)]
    expected_b = [richardson(lambda t: special.betainc(ai, t, xi), bi, 1e-3 * bi) for ai, bi, xi in zip(a, b, x)]
    np.testing.assert_allclose(da, expected_a, rtol=1e-7, atol=1e-13)
    np.testing.assert_allclose(db, expected_b, rtol=1e-7, atol=1e-13)


def test_shape_slopes_in_the_tails_keep_their_digits():
    # Q(2, 300) is about 1e-128: its slope must come from the fraction of Q, not from 1 - P
    dqa, _ = cotangents(special.gammaincc, np.array([2.0]), np.array([300.0]))
    expected = richardson(lambda t: special.gammaincc(t, 300.0), 2.0, 1e-3)
    assert 0 < dqa[0] < 1e-120
    np.testing.assert_allclose(dqa, [expected], rtol=1e-7)
    # I_0.3(3, 400) is 1 - 1e-60 or so; 1 - I_x(a, b) = I_{1-x}(b, a) is computed with all its digits
    da, db, _ = cotangents(special.betainc, np.array([3.0]), np.array([400.0]), np.array([0.3]))
    expected_a = -richardson(lambda t: special.betainc(400.0, t, 0.7), 3.0, 1e-3)
    expected_b = -richardson(lambda t: special.betainc(t, 3.0, 0.7), 400.0, 1e-1)
    assert -1e-40 < da[0] < 0 < db[0] < 1e-40
    np.testing.assert_allclose(da, [expected_a], rtol=1e-7)
    np.testing.assert_allclose(db, [expected_b], rtol=1e-7)


def test_incomplete_functions_at_the_ends_of_their_domain():
    da, dx = cotangents(special.gammainc, np.array([0.5, 1.0, 2.0, 2.0]), np.array([0.0, 0.0, 0.0, np.inf]))
    np.testing.assert_array_equal(da, [0, 0, 0, 0])
    np.testing.assert_array_equal(dx, [np.inf, 1, 0, 0])
    da, db, dx = cotangents(special.betainc, np.full(3, 2.0), np.full(3, 3.0), np.array([0.0, 1.0, 0.5]))
    assert np.all(np.isfinite(da)) and np.all(np.isfinite(db))
    assert da[0] == db[0] == da[1] == db[1] == 0


# ------------------------------------------------------------------ zeros: finite gradients, 0 * inf = 0
def test_xlogy_and_xlog1py_at_zero_have_finite_gradients():
    x = np.array([0.0, 0.0, 1.5])
    dx, dy = cotangents(special.xlogy, x, np.array([0.0, 2.0, 2.0]))
    np.testing.assert_array_equal(dx, [0.0, np.log(2.0), np.log(2.0)])  # at x = 0 the slope in x is still log(y)
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.75])
    dx, dy = cotangents(special.xlog1py, x, np.array([-1.0, 1.0, 1.0]))
    np.testing.assert_array_equal(dx, [0.0, np.log(2.0), np.log(2.0)])
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.75])
    # finite differences at x = 0 (y > 0): xlogy is smooth there
    check_rrule(special.xlogy, np.zeros(3), rng.uniform(0.5, 2, 3))
    check_rrule(special.xlog1py, np.zeros(3), rng.uniform(0.5, 2, 3))


def test_entropies_at_zero_with_zero_cotangent():
    (dx,) = cotangents(special.entr, np.array([0.0, 1.0]), g=np.array([0.0, 1.0]))
    np.testing.assert_array_equal(dx, [0.0, -1.0])
    dx, dy = cotangents(special.kl_div, np.array([0.0, 2.0]), np.array([1.0, 1.0]), g=np.array([0.0, 1.0]))
    np.testing.assert_array_equal(dx, [0.0, np.log(2.0)])
    np.testing.assert_array_equal(dy, [0.0, -1.0])


def test_log_ndtr_far_in_the_left_tail():
    x = np.array([-40.0, -10.0])
    (dx,) = cotangents(special.log_ndtr, x)
    assert np.all(np.isfinite(dx))
    np.testing.assert_allclose(dx, -x, rtol=0.01)  # the slope tends to -x


def test_gammasgn_is_nondifferentiable():
    assert rule_for(special.gammasgn).nondifferentiable
    assert rule_for(special.gammasgn).name == "scipy.special.gammasgn"
    check_rrule(special.gammasgn, rng.uniform(-3, 3, 4))


# ------------------------------------------------------------------ logsumexp, softmax, log_softmax
def test_logsumexp_formula():
    x = rng.standard_normal(5)
    (dx,) = cotangents(special.logsumexp, x)
    np.testing.assert_allclose(dx, np.exp(x) / np.sum(np.exp(x)), rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": (0, 2)},
                                    {"axis": -1, "keepdims": True}], ids=str)
def test_logsumexp_axes(kwargs):
    check_rrule(special.logsumexp, rng.standard_normal((3, 4, 2)), **kwargs)


def test_logsumexp_with_its_sign():
    """return_sign=True: (log|sum|, sign), weights of both signs (sums negative, then positive), complex too."""
    a, b = rng.standard_normal((3, 4)), np.array([1.0, -2.0, 0.5, -0.25])
    check_rrule(special.logsumexp, a, 1, b, False, True)
    check_rrule(special.logsumexp, a, 1, -b, False, True)
    check_rrule(special.logsumexp, a + 1j * rng.standard_normal((3, 4)), None, b, True, True)


def test_logsumexp_weights_broadcast_and_dtypes():
    a = rng.standard_normal((3, 4))
    check_rrule(special.logsumexp, a, 0, rng.uniform(0.5, 1, (3, 4)), True)
    check_rrule(special.logsumexp, a, 1, rng.uniform(0.5, 1, (4,)))
    check_rrule(special.logsumexp, rng.standard_normal((3, 1)), 1, rng.uniform(0.5, 1, (3, 4)))  # b wider than a
    check_rrule(special.logsumexp, a, None, 0.7)
    (da, *_) = check_rrule(special.logsumexp, a.astype(np.float32), 1)
    assert da.dtype == np.float32


def test_logsumexp_of_nothing_is_flat_in_a_and_refused_in_b():
    """A row of zero weights: -inf whatever ``a`` is (0, not NaN, in ``a``), exp(a) / 0 in ``b``."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[0.0, 0.0], [1.0, 1.0]])
    with np.errstate(divide="ignore"):
        ans = special.logsumexp(a, 1, b=b)
    vjps = rule_for(special.logsumexp).vjps
    np.testing.assert_array_equal(vjps["a"](np.ones(2), ans, a, 1, b, False, False)[0], [0.0, 0.0])
    with pytest.raises(NotImplementedError, match="differentiated in b only where the weighted sum is not 0"):
        vjps["b"](np.ones(2), ans, a, 1, b, False, False)


def test_logsumexp_with_its_sign_refuses_a_sum_of_zero():
    with pytest.raises(NotImplementedError, match="weighted sum is not 0"):
        cotangents(special.logsumexp, np.zeros(2), None, np.array([1.0, -1.0]), False, True)


@pytest.mark.parametrize("f", [special.softmax, special.log_softmax], ids=lambda f: f.__name__)
def test_softmax_family(f):
    x = rng.standard_normal((3, 4))
    check_rrule(f, x)
    check_rrule(f, x, axis=0)
    check_rrule(f, x, axis=-1)
    check_rrule(f, rng.standard_normal(5))
    (dx,) = check_rrule(f, x.astype(np.float32), axis=1)
    assert dx.dtype == np.float32
    # a shift along the axis changes nothing: the cotangent sums to 0 along it for softmax
    if f is special.softmax:
        (dx,) = cotangents(f, x, 1, g=rng.standard_normal((3, 4)))[:1]
        np.testing.assert_allclose(np.sum(dx, axis=1), 0, atol=1e-12)


# ------------------------------------------------------------------ hyp2f1
def gauss_hypergeometric(z):
    return np.sum(special.hyp2f1(0.5, 1.5, 2.5, z) ** 2)


def hyp2f1_through_a_value(z, fn=special.hyp2f1):
    return np.sum(fn(1.0, 2.0, 3.0, z))


def hyp2f1_in_a_differentiated_parameter(a, z):
    return np.sum(special.hyp2f1(a, 2.0, 3.0, z))


def test_hyp2f1_in_z_by_formula_finite_differences_and_both_modes():
    z = np.array([0.1, -0.4, 0.6])
    # hand-derived: d/dz 2F1(a, b; c; z) = a b / c 2F1(a + 1, b + 1; c + 1; z)
    _, pullback = rule_for(special.hyp2f1).lazy_rrule(0.5, 1.5, 2.5, z)  # the parameters' cotangents unread
    dz = pullback(np.ones(3))[4].unthunk()
    np.testing.assert_allclose(dz, 0.5 * 1.5 / 2.5 * special.hyp2f1(1.5, 2.5, 3.5, z), rtol=1e-12)
    for function in (gauss_hypergeometric, hyp2f1_through_a_value):
        expected = numerical_gradient(function, z)
        np.testing.assert_allclose(s2sad.grad(function)(z), expected, rtol=1e-6)
        v = np.array([0.3, -1.0, 0.5])
        np.testing.assert_allclose(s2sad.jvp(function, (z,), (v,))[1], expected @ v, rtol=1e-6)
    # complex z: the gradient of a real loss is the conjugate convention's, d/dRe + i d/dIm
    zc, h = np.array([0.1 + 0.2j, -0.3 + 0.1j]), 1e-6

    def loss(z):
        return np.sum(np.abs(special.hyp2f1(1.0, 2.0, 3.0, z)) ** 2)
    expected = [(loss(zc + h * e) - loss(zc - h * e)) / (2 * h) + 1j * (loss(zc + 1j * h * e) - loss(zc - 1j * h * e)) / (2 * h)
                for e in np.eye(2)]
    np.testing.assert_allclose(s2sad.grad(loss)(zc), expected, rtol=1e-6)


def test_hyp2f1_in_a_parameter_is_refused_at_its_line():
    with pytest.raises(MissingRuleError) as caught:
        s2sad.grad(hyp2f1_in_a_differentiated_parameter)(1.0, np.array([0.1, 0.2]))
    assert "test_scipy_special.py" in str(caught.value) and "parameters a, b, c" in str(caught.value)


def _erfcx_sum(x):
    return np.sum(special.erfcx(x))


def test_erfcx_slope_keeps_its_digits_far_out():
    """2x erfcx(x) - 2/sqrt(pi) cancels for large x: it gave 0 at x = 1e8 and was 1.6e-6 off at
    1e5. The reference is the asymptotic series of the slope, -(1/sqrt(pi)) (1/x^2 - 3/(2x^4) + ...)."""
    x = np.array([100.0, 1e3, 1e5, 1e8])
    expected = -(1 / np.sqrt(np.pi)) * (1 / x ** 2 - 1.5 / x ** 4 + 3.75 / x ** 6 - 13.125 / x ** 8)
    np.testing.assert_allclose(s2sad.grad(_erfcx_sum)(x), expected, rtol=1e-12)
    np.testing.assert_allclose(s2sad.jvp(_erfcx_sum, (x,), (np.ones(4),))[1], np.sum(expected), rtol=1e-12)


def _log_ndtr_sum(x):
    return np.sum(special.log_ndtr(x))


def _norm_logcdf_sum(x):
    from scipy import stats
    return np.sum(stats.norm.logcdf(x))


def _norm_logsf_of_minus_x_sum(x):
    from scipy import stats
    return np.sum(stats.norm.logsf(-x))


@pytest.mark.parametrize("f", [_log_ndtr_sum, _norm_logcdf_sum, _norm_logsf_of_minus_x_sum])
def test_log_normal_cdf_slopes_far_in_the_lower_tail(f):
    """The density over ndtr in logs, exp(-x^2/2 - log_ndtr(x)), cancels two numbers of size
    x^2/2: 1% off at x = -1e7, 94% at -1e8. The reference is the Mills ratio's series -x - 1/x + 2/x^3."""
    x = np.array([-1e5, -1e7, -1e8, -1e9])
    expected = -x - 1 / x + 2 / x ** 3
    np.testing.assert_allclose(s2sad.grad(f)(x), expected, rtol=1e-12)
    np.testing.assert_allclose(s2sad.jvp(f, (x,), (np.ones(4),))[1], np.sum(expected), rtol=1e-12)
