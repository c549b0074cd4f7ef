"""Rules of rules/scipy_stats.py: finite differences, closed forms, edges, and a gradient end to end."""
import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")

import scipy.stats  # noqa: E402
from scipy.stats import norm, t  # noqa: E402

import s2sad  # noqa: E402
from s2sad.registry import rule_for  # noqa: E402
from s2sad.runtime.tangents import NO_TANGENT  # noqa: E402
from s2sad.testing import check_rrule, numerical_gradient  # noqa: E402

rng = np.random.default_rng(11)


def cotangents(f, *args, g=None, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


def real(*shape):
    return rng.standard_normal(shape)


def positive(*shape, low=0.5, high=3.0):
    return rng.uniform(low, high, shape)


def unit(*shape):
    return rng.uniform(0.1, 0.9, shape)


# ------------------------------------------------------------------ location-scale families
# (distribution, method, maker of x, makers of the shape parameters)
CONTINUOUS = [(stats.norm, method, real, ()) for method in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")]
CONTINUOUS += [(stats.t, method, lambda *s: 3 * real(*s), (lambda *s: positive(*s, high=12.0),))
               for method in ("pdf", "logpdf", "cdf", "logcdf")]
CONTINUOUS += [(stats.gamma, method, positive, (positive,)) for method in ("pdf", "logpdf", "cdf")]
CONTINUOUS += [(stats.chi2, method, positive, (positive,)) for method in ("pdf", "logpdf", "cdf")]
CONTINUOUS += [(stats.beta, method, unit, (positive, positive)) for method in ("pdf", "logpdf", "cdf")]
CONTINUOUS_IDS = [f"{d.name}.{m}" for d, m, _, _ in CONTINUOUS]


@pytest.mark.parametrize("dist, method, make_x, make_shapes", CONTINUOUS, ids=CONTINUOUS_IDS)
def test_continuous_finite_differences(dist, method, make_x, make_shapes):
    f = getattr(dist, method)
    shapes = [make(5) for make in make_shapes]
    check_rrule(f, make_x(5), *shapes)                                                # standard: loc 0, scale 1
    check_rrule(f, 0.2 + 1.3 * make_x(5), *shapes, 0.2, 1.3)                          # Python float loc, scale
    loc, scale = 0.05 * real(2, 1), positive(5, low=1.5, high=2.5)                     # broadcasting
    check_rrule(f, loc + scale * make_x(2, 5), *[make(5) for make in make_shapes], loc, scale)
    check_rrule(f, float(make_x(1)[0]), *[float(make(1)[0]) for make in make_shapes], 0.0, 1.0)
    check_rrule(f, make_x(1).reshape(()), *[make(1).reshape(()) for make in make_shapes])     # 0-d arrays


@pytest.mark.parametrize("dist, method, make_x, make_shapes", CONTINUOUS, ids=CONTINUOUS_IDS)
def test_continuous_float32_and_keywords(dist, method, make_x, make_shapes):
    f = getattr(dist, method)
    args = [make_x(4).astype(np.float32)] + [make(4).astype(np.float32) for make in make_shapes]
    for cotangent in check_rrule(f, *args, np.float32(0.0), np.float32(1.0)):
        assert cotangent.dtype == np.float32
    (dx, *_) = check_rrule(f, make_x(3), *[make(3) for make in make_shapes], loc=0.1, scale=1.1)
    assert dx.shape == (3,)


def test_norm_closed_forms():
    x, loc, scale = real(6), 0.3, 1.7
    z = (x - loc) / scale
    dx, dloc, dscale = cotangents(stats.norm.logpdf, x, loc, scale)
    np.testing.assert_allclose(dx, -z / scale, rtol=1e-12)
    np.testing.assert_allclose(dloc, np.sum(z / scale), rtol=1e-12)
    np.testing.assert_allclose(dscale, np.sum((z ** 2 - 1) / scale), rtol=1e-12)
    dx, dloc, dscale = cotangents(stats.norm.cdf, x, loc, scale)
    np.testing.assert_allclose(dx, stats.norm.pdf(x, loc, scale), rtol=1e-12)
    np.testing.assert_allclose(dscale, -np.sum(stats.norm.pdf(x, loc, scale) * z), rtol=1e-12)


def test_norm_tails_stay_finite():
    x = np.array([-40.0, 40.0])
    (dx,) = cotangents(stats.norm.logcdf, x)
    np.testing.assert_allclose(dx, [40.0, 0.0], rtol=0.01, atol=1e-300)       # d log cdf / dx tends to -x
    (dx,) = cotangents(stats.norm.logsf, x)
    np.testing.assert_allclose(dx, [0.0, -40.0], rtol=0.01, atol=1e-300)


def test_t_closed_form_in_df_and_large_df_is_normal():
    x, df = real(5), positive(5, low=2, high=6)
    dx, ddf = cotangents(stats.t.logpdf, x, df)
    expected = 0.5 * (special.digamma((df + 1) / 2) - special.digamma(df / 2) - 1 / df
                      - np.log1p(x ** 2 / df) + (df + 1) * x ** 2 / (df * (df + x ** 2)))
    np.testing.assert_allclose(ddf, expected, rtol=1e-12)
    np.testing.assert_allclose(dx, -(df + 1) * x / (df + x ** 2), rtol=1e-12)
    dx, _ = cotangents(stats.t.cdf, x, np.full(5, 1e7))
    np.testing.assert_allclose(dx, stats.norm.pdf(x), rtol=1e-6)


def test_t_cdf_slope_in_df_in_the_tails_and_at_zero():
    x = np.array([-1e3, -30.0, -0.01, 0.0, 0.01, 30.0])
    df = np.full(6, 2.5)
    _, ddf = cotangents(stats.t.cdf, x, df)
    h = 1e-5
    expected = (stats.t.cdf(x, df + h) - stats.t.cdf(x, df - h)) / (2 * h)
    np.testing.assert_allclose(ddf[:3], expected[:3], rtol=1e-5)
    assert ddf[3] == 0.0
    np.testing.assert_allclose(ddf[3:], expected[3:], rtol=1e-4, atol=1e-12)
    _, ddf = cotangents(stats.t.logcdf, x[:2], df[:2])
    expected = (stats.t.logcdf(x[:2], df[:2] + h) - stats.t.logcdf(x[:2], df[:2] - h)) / (2 * h)
    np.testing.assert_allclose(ddf, expected, rtol=1e-5)


def test_gamma_and_chi2_agree_and_have_closed_forms():
    x, k = positive(5), positive(5, low=1, high=6)
    chi2 = cotangents(stats.chi2.logpdf, x, k, 0.0, 1.0)
    gamma = cotangents(stats.gamma.logpdf, x, k / 2, 0.0, 2.0)
    np.testing.assert_allclose(chi2[0], gamma[0], rtol=1e-12)
    np.testing.assert_allclose(chi2[1], gamma[1] / 2, rtol=1e-12)
    dx, da = cotangents(stats.gamma.cdf, x, k)
    np.testing.assert_allclose(dx, stats.gamma.pdf(x, k), rtol=1e-12)
    np.testing.assert_allclose(da, cotangents(special.gammainc, k, x)[0], rtol=1e-12)


def test_outside_the_support_every_slope_is_zero():
    for f, args in [(stats.gamma.logpdf, (np.array([-1.0]), np.array([2.0]))),
                    (stats.gamma.cdf, (np.array([-1.0]), np.array([2.0]))),
                    (stats.chi2.pdf, (np.array([-1.0]), np.array([3.0]))),
                    (stats.beta.logpdf, (np.array([1.5]), np.array([2.0]), np.array([2.0]))),
                    (stats.beta.cdf, (np.array([-0.5]), np.array([2.0]), np.array([2.0])))]:
        for cotangent in cotangents(f, *args):
            np.testing.assert_array_equal(cotangent, 0.0)


# ------------------------------------------------------------------ poisson: the count has no gradient
@pytest.mark.parametrize("method", ["pmf", "logpmf", "cdf"])
def test_poisson(method):
    f = getattr(stats.poisson, method)
    k = np.array([0, 1, 2, 5, 3])
    mu = positive(5)
    dk, dmu = check_rrule(f, k, mu)
    assert dk is NO_TANGENT
    assert check_rrule(f, k, mu, 0)[2] is NO_TANGENT
    check_rrule(f, k, 2.5)                           # a Python float mu, broadcast against k
    check_rrule(f, np.array([[3], [1]]), mu, 1)      # with loc
    (_, dmu) = check_rrule(f, k, mu.astype(np.float32))
    assert dmu.dtype == np.float32


def test_poisson_closed_forms():
    k, mu = np.array([0, 1, 4]), np.array([0.5, 2.0, 3.0])
    _, dmu = cotangents(stats.poisson.logpmf, k, mu)
    np.testing.assert_allclose(dmu, k / mu - 1, rtol=1e-12)
    _, dmu = cotangents(stats.poisson.cdf, k, mu)
    np.testing.assert_allclose(dmu, -stats.poisson.pmf(k, mu), rtol=1e-12)
    _, dmu = cotangents(stats.poisson.logpmf, np.array([0, 2]), np.array([0.0, 0.0]))
    assert dmu[0] == -1.0                            # log pmf(0; mu) = -mu, also at mu = 0
    _, dmu = cotangents(stats.poisson.pmf, np.array([1.5]), np.array([2.0]))
    assert dmu[0] == 0.0                             # not a count: the pmf is 0 all around


# ------------------------------------------------------------------ multivariate_normal: symmetric directions for cov
def spd(n):
    a = real(n, n)
    return a @ a.T + n * np.eye(n)


def symmetric(n):
    a = real(n, n)
    return (a + a.T) / 2


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_multivariate_normal(method):
    f = getattr(stats.multivariate_normal, method)
    cov = spd(3)
    check_rrule(f, real(4, 3), real(3), cov, directions=[real(4, 3), real(3), symmetric(3)])
    check_rrule(f, real(3), real(3), cov, directions=[real(3), real(3), symmetric(3)])   # one point: a scalar out
    check_rrule(f, real(2, 5, 3), real(3), cov, directions=[real(2, 5, 3), real(3), symmetric(3)])
    check_rrule(f, real(4, 3), real(3), positive(3))                                      # a diagonal cov, as a vector
    check_rrule(f, real(4, 2), real(2), 1.7)                                              # a scalar cov
    (dx, dmean, dcov) = check_rrule(f, real(4, 3), None, cov, directions=[real(4, 3), None, symmetric(3)])
    assert dmean is NO_TANGENT
    np.testing.assert_allclose(dcov, dcov.T)


def test_multivariate_normal_closed_form():
    x, mean, cov = real(4, 3), real(3), spd(3)
    dx, dmean, dcov = cotangents(stats.multivariate_normal.logpdf, x, mean, cov)
    inverse = np.linalg.inv(cov)
    np.testing.assert_allclose(dx, -(x - mean) @ inverse, rtol=1e-10)
    np.testing.assert_allclose(dmean, np.sum((x - mean) @ inverse, axis=0), rtol=1e-10)
    r = (x - mean) @ inverse
    np.testing.assert_allclose(dcov, 0.5 * (r.T @ r - 4 * inverse), rtol=1e-10)


def test_multivariate_normal_entropy():
    cov = spd(3)
    dmean, dcov = check_rrule(stats.multivariate_normal.entropy, real(3), cov, directions=[real(3), symmetric(3)])
    assert dmean is NO_TANGENT
    _, dcov = cotangents(stats.multivariate_normal.entropy, real(3), cov)
    np.testing.assert_allclose(dcov, np.linalg.inv(cov) / 2, rtol=1e-10)
    check_rrule(stats.multivariate_normal.entropy, real(3), positive(3))   # a diagonal cov, as a vector


# ------------------------------------------------------------------ dirichlet: directions along the simplex
def on_simplex(k, n=None):
    return rng.dirichlet(np.ones(k), n).T if n else rng.dirichlet(np.ones(k))


def along_simplex(*shape):
    v = real(*shape)
    return v - v.mean(axis=0)


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_dirichlet(method):
    f = getattr(stats.dirichlet, method)
    alpha = positive(3)
    check_rrule(f, on_simplex(3), alpha, directions=[along_simplex(3), real(3)])
    check_rrule(f, on_simplex(3, 4), alpha, directions=[along_simplex(3, 4), real(3)])
    check_rrule(f, on_simplex(3, 4)[:2], alpha)    # the last component implied: x is free
    dx, dalpha = cotangents(f, on_simplex(4)[:3].astype(np.float32), positive(4).astype(np.float32))
    assert dx.dtype == dalpha.dtype == np.float32


def test_dirichlet_closed_form():
    x, alpha = on_simplex(3), positive(3)
    dx, dalpha = cotangents(stats.dirichlet.logpdf, x, alpha)
    np.testing.assert_allclose(dx, (alpha - 1) / x, rtol=1e-12)
    np.testing.assert_allclose(dalpha, np.log(x) - special.digamma(alpha) + special.digamma(alpha.sum()), rtol=1e-12)


# ------------------------------------------------------------------ end to end: a bound method called in user code
def normal_log_likelihood(x):
    return scipy.stats.norm.logpdf(x, 0.0, 2.0).sum()


def test_end_to_end_gradient_through_a_distribution_method():
    x = real(5)
    gradient = s2sad.grad(normal_log_likelihood)(x)
    np.testing.assert_allclose(gradient, -x / 4, rtol=1e-12)


def model(x, scale):
    return stats.norm.logpdf(x, 0.5, scale).sum() + norm.cdf(x[0]) + t.logpdf(x, 4.0).sum()


def test_end_to_end_with_scale_and_several_distributions():
    x, scale = real(4), 1.3
    dx, dscale = s2sad.grad(model, argnums=(0, 1))(x, scale)
    np.testing.assert_allclose(dx, numerical_gradient(model, x, scale, argnums=0), rtol=1e-6)
    assert type(dscale) is float
    np.testing.assert_allclose(dscale, numerical_gradient(model, x, scale, argnums=1), rtol=1e-6)
