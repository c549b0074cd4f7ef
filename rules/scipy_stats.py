"""Rules for ``scipy.stats`` distributions (registered once the user imports ``scipy.stats``).

``scipy.stats.norm.logpdf`` is a method bound to the distribution object ``norm``; the
registry finds its rule whatever bound-method object a lookup is handed (see
``s2sad.registry._bound_key``). Each rule has the signature SciPy documents for that
distribution, shape parameters first, then ``loc`` and ``scale``, and each vjp returns
the cotangents of all parameters at once (``defvjp_all``).

Conventions:

* location-scale families are differentiated through the standardised ``z = (x - loc) /
  scale``: ``d/dx = slope_z / scale``, ``d/dloc = -slope_z / scale``, and ``d/dscale =
  -(slope_z * z + jacobian) / scale``, where ``slope_z`` is the derivative of the output
  in ``z`` and ``jacobian`` is the derivative of ``log(1 / scale)`` carried by a density
  (1 for a log-density, the density itself for a density, 0 for probabilities);
* outside a distribution's support (a gamma density at x < 0) the output is constant and
  every slope is 0;
* counts (``k`` of ``poisson``) and flags (``allow_singular``) get no gradient;
* ``multivariate_normal``'s ``cov`` gets the symmetric gradient (SciPy reads one
  triangle: perturbing the other changes nothing, which no gradient of a symmetric matrix
  could say); with ``allow_singular=True`` the pseudo-inverse stands in for the inverse;
* ``dirichlet``'s ``x`` lies on the simplex: its cotangent is the gradient of the same
  formula in the whole space, so only its component along the simplex is meaningful.
  Given the first ``k - 1`` components only, ``x`` is free and the cotangent is exact;
* shape derivatives of cdfs (``gamma``'s ``a``, ``t``'s ``df``) come from the series and
  continued fractions of ``scipy_special``'s ``gammainc`` and ``betainc`` rules.

Forward rules (jvps) use the same slopes and conventions: each tangent term is the slope
times the parameter's tangent, in the output's shape and dtype (SciPy's distributions
answer in float64). A tangent of ``multivariate_normal``'s ``cov`` enters through its
symmetric part, the transpose of the symmetric gradient (for a symmetric tangent, the
usual case, that is SciPy's own derivative); a tangent of ``dirichlet``'s full ``x`` is
taken in the whole space, meaningful when it sums to 0 (stays on the simplex).
"""
import functools
import math

import numpy as np
from scipy import special, stats

from s2sad.errors import MissingRuleError
from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp, defvjp_all, rule_for
from s2sad.runtime.tangents import NO_TANGENT

from .helpers import unbroadcast
from s2sad.registry.slopes import jvp_of_slope, like_output

from .scipy_special import betainc_slopes_in_shapes, density_over_ndtr, lower_gamma_slope_in_a

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _location_scale(standard, jacobian):
    """The vjp_all of ``method(x, *shapes, loc, scale)`` of a location-scale family.

    ``standard(ans, z, *shapes)`` gives ``(slope_z, shape_slopes)``: the derivative of the
    output in ``z`` and in each shape parameter, at fixed ``scale``. ``jacobian(ans)`` is the
    density's own term in ``scale`` (see the module's conventions).
    """
    def vjp(g, ans, x, *rest):
        *shapes, loc, scale = rest
        z = (np.asarray(x, dtype=np.float64) - loc) / scale
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope_z, shape_slopes = standard(ans, z, *shapes)
            dx = g * slope_z / scale
            dscale = -g * (slope_z * z + jacobian(ans)) / scale
        return (unbroadcast(dx, x),
                *(unbroadcast(g * slope, shape) for slope, shape in zip(shape_slopes, shapes)),
                unbroadcast(-dx, loc), unbroadcast(dscale, scale))

    return vjp


def _log_density(ans):
    return 1.0


def _density(ans):
    return ans


def _probability(ans):
    return 0.0


def _in_support(inside, slope):
    """``slope`` where ``inside``, 0 elsewhere (where the output is a constant -inf, 0 or 1)."""
    return np.where(inside, slope, 0.0)


# ------------------------------------------------------------------ norm
def _norm_log_density(z):
    return -np.square(z) / 2 - _LOG_SQRT_2PI


def norm_logpdf(ans, z):
    return -z, ()


def norm_pdf(ans, z):
    return -z * ans, ()


def norm_cdf(ans, z):
    return np.exp(_norm_log_density(z)), ()


def norm_logcdf(ans, z):
    return density_over_ndtr(z, ans), ()


def norm_sf(ans, z):
    return -np.exp(_norm_log_density(z)), ()


def norm_logsf(ans, z):
    return -density_over_ndtr(-z, ans), ()   # sf(z) = ndtr(-z)


# ------------------------------------------------------------------ t
def _t_logpdf_slopes(z, df):
    """Derivatives of the standard t log-density in z and in df."""
    z2 = np.square(z)
    slope_z = -(df + 1) * z / (df + z2)
    slope_df = 0.5 * (special.digamma((df + 1) / 2) - special.digamma(df / 2) - 1 / df
                      - np.log1p(z2 / df) + (df + 1) * z2 / (df * (df + z2)))
    return slope_z, slope_df


def _t_log_density(z, df):
    return (special.gammaln((df + 1) / 2) - special.gammaln(df / 2) - 0.5 * np.log(df * np.pi)
            - (df + 1) / 2 * np.log1p(np.square(z) / df))


def _t_cdf_slopes(z, df):
    """The log-density of the standard t distribution (log of F's slope in z), and F's slope in df.

    F = K / 2 below 0 and 1 - K / 2 above, with K = I_w(df / 2, 1 / 2) and w = df / (df + z**2);
    K is taken from whichever of w and u = 1 - w = z**2 / (df + z**2) is below 1/2, each
    computed without a subtraction, so neither tail loses digits.
    """
    z, df = np.broadcast_arrays(np.asarray(z, dtype=np.float64), np.asarray(df, dtype=np.float64))
    z2 = np.square(z)
    w, u = df / (df + z2), z2 / (df + z2)
    log_density = _t_log_density(z, df)
    from_w = betainc_slopes_in_shapes(df / 2, 0.5, np.where(w <= 0.5, w, 0.5))[0]
    from_u = -betainc_slopes_in_shapes(0.5, df / 2, np.where(w <= 0.5, 0.5, u))[1]
    slope_a = np.where(w <= 0.5, from_w, from_u)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope_x = np.exp((df / 2 - 1) * np.log(w) - 0.5 * np.log(u) - special.betaln(df / 2, 0.5))
        dk = 0.5 * slope_a + slope_x * z2 / np.square(df + z2)
    slope_df = np.where(z == 0, 0.0, np.where(z < 0, 0.5, -0.5) * dk)  # F(0) = 1/2 for every df
    return log_density, slope_df


def t_logpdf(ans, z, df):
    slope_z, slope_df = _t_logpdf_slopes(z, df)
    return slope_z, (slope_df,)


def t_pdf(ans, z, df):
    slope_z, slope_df = _t_logpdf_slopes(z, df)
    return slope_z * ans, (slope_df * ans,)


def t_cdf(ans, z, df):
    log_density, slope_df = _t_cdf_slopes(z, df)
    return np.exp(log_density), (slope_df,)


def t_cdf_in_z(ans, z, df):
    return np.exp(_t_log_density(z, df))


def t_logcdf(ans, z, df):
    log_density, slope_df = _t_cdf_slopes(z, df)
    return np.exp(log_density - ans), (slope_df * np.exp(-ans),)


def t_logcdf_in_z(ans, z, df):
    return np.exp(_t_log_density(z, df) - ans)


# ------------------------------------------------------------------ gamma, chi2, beta
def _gamma_logpdf_slopes(z, a):
    inside = z > 0
    return _in_support(inside, (a - 1) / z - 1), _in_support(inside, np.log(z) - special.digamma(a))


def gamma_logpdf(ans, z, a):
    slope_z, slope_a = _gamma_logpdf_slopes(z, a)
    return slope_z, (slope_a,)


def gamma_pdf(ans, z, a):
    slope_z, slope_a = _gamma_logpdf_slopes(z, a)
    return slope_z * ans, (slope_a * ans,)


def gamma_cdf(ans, z, a):
    inside = z > 0
    return gamma_cdf_in_z(ans, z, a), (_in_support(inside, lower_gamma_slope_in_a(a, np.maximum(z, 0))),)


def gamma_cdf_in_z(ans, z, a):
    return _in_support(z > 0, np.exp(special.xlogy(a - 1, z) - z - special.gammaln(a)))


def _chi2_logpdf_slopes(z, df):
    inside = z > 0
    return (_in_support(inside, (df / 2 - 1) / z - 0.5),
            _in_support(inside, 0.5 * (np.log(z / 2) - special.digamma(df / 2))))


def chi2_logpdf(ans, z, df):
    slope_z, slope_df = _chi2_logpdf_slopes(z, df)
    return slope_z, (slope_df,)


def chi2_pdf(ans, z, df):
    slope_z, slope_df = _chi2_logpdf_slopes(z, df)
    return slope_z * ans, (slope_df * ans,)


def chi2_cdf(ans, z, df):
    # chi2(df) is gamma(df / 2) of z / 2
    slope_z, (slope_a,) = gamma_cdf(ans, z / 2, df / 2)
    return slope_z / 2, (slope_a / 2,)


def chi2_cdf_in_z(ans, z, df):
    return gamma_cdf_in_z(ans, z / 2, df / 2) / 2


def _beta_logpdf_slopes(z, a, b):
    inside = (z > 0) & (z < 1)
    psi_sum = special.digamma(a + b)
    return (_in_support(inside, (a - 1) / z - (b - 1) / (1 - z)),
            _in_support(inside, np.log(z) - special.digamma(a) + psi_sum),
            _in_support(inside, np.log1p(-z) - special.digamma(b) + psi_sum))


def beta_logpdf(ans, z, a, b):
    slope_z, slope_a, slope_b = _beta_logpdf_slopes(z, a, b)
    return slope_z, (slope_a, slope_b)


def beta_pdf(ans, z, a, b):
    slope_z, slope_a, slope_b = _beta_logpdf_slopes(z, a, b)
    return slope_z * ans, (slope_a * ans, slope_b * ans)


def beta_cdf(ans, z, a, b):
    inside = (z > 0) & (z < 1)
    slope_a, slope_b = betainc_slopes_in_shapes(a, b, np.clip(z, 0, 1))
    return beta_cdf_in_z(ans, z, a, b), (_in_support(inside, slope_a), _in_support(inside, slope_b))


def beta_cdf_in_z(ans, z, a, b):
    clipped = np.clip(z, 0, 1)
    density = np.exp(special.xlogy(a - 1, clipped) + special.xlog1py(b - 1, -clipped) - special.betaln(a, b))
    return _in_support((z > 0) & (z < 1), density)


# ------------------------------------------------------------------ poisson: gradient in mu only
def _poisson_log_slope(k, mu, loc):
    """d/dmu of logpmf: (k - loc) / mu - 1, and 0 where the pmf is 0 (k - loc not a count)."""
    count = np.asarray(k, dtype=np.float64) - loc
    is_count = (count >= 0) & (count == np.floor(count))
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(count == 0, -1.0, count / mu - 1)  # no 0 / 0 at mu = 0 for k = 0
    return _in_support(is_count, slope)


def poisson_logpmf_slope_mu(ans, k, mu, loc):
    return _poisson_log_slope(k, mu, loc)


def poisson_pmf_slope_mu(ans, k, mu, loc):
    return ans * _poisson_log_slope(k, mu, loc)


def poisson_cdf_slope_mu(ans, k, mu, loc):
    # cdf = gammaincc(floor(k - loc) + 1, mu), whose slope in mu is minus the pmf at floor(k - loc)
    count = np.floor(np.asarray(k, dtype=np.float64) - loc)
    with np.errstate(divide="ignore", invalid="ignore"):
        pmf = np.exp(special.xlogy(count, mu) - mu - special.gammaln(count + 1))
    return _in_support(count >= 0, -pmf)


def poisson_logpmf_vjp(g, ans, k, mu, loc):
    return NO_TANGENT, unbroadcast(g * poisson_logpmf_slope_mu(ans, k, mu, loc), mu), NO_TANGENT


def poisson_pmf_vjp(g, ans, k, mu, loc):
    return NO_TANGENT, unbroadcast(g * poisson_pmf_slope_mu(ans, k, mu, loc), mu), NO_TANGENT


def poisson_cdf_vjp(g, ans, k, mu, loc):
    return NO_TANGENT, unbroadcast(g * poisson_cdf_slope_mu(ans, k, mu, loc), mu), NO_TANGENT


# ------------------------------------------------------------------ multivariate_normal
def _mvn_dimension(x, mean, cov):
    if np.ndim(cov) == 2:
        return np.shape(cov)[0]
    if mean is not None:
        return np.size(mean)
    if np.ndim(cov) == 1:
        return np.shape(cov)[0]
    return 1


def _mvn_full_cov(cov, d):
    cov = np.asarray(cov, dtype=np.float64)
    if cov.ndim == 2:
        return cov
    return np.diag(np.broadcast_to(cov, (d,))) if cov.ndim == 1 else cov * np.eye(d)


def _as_cov(gradient, cov):
    """The gradient of the full covariance matrix, taken back to the form ``cov`` was given in."""
    if np.ndim(cov) == 2:
        return unbroadcast(gradient, cov)
    if np.ndim(cov) == 1:
        return unbroadcast(np.diagonal(gradient).copy(), cov)
    return unbroadcast(np.trace(gradient), cov)


def _mvn_logpdf_cotangents(weights, x, mean, cov, allow_singular):
    """Cotangents of x, mean, cov when the logpdf of each point is weighted by ``weights``."""
    d = _mvn_dimension(x, mean, cov)
    points = np.reshape(np.asarray(x, dtype=np.float64), (-1, d))
    centre = np.zeros(d) if mean is None else np.broadcast_to(np.asarray(mean, dtype=np.float64), (d,))
    sigma = _mvn_full_cov(cov, d)
    inverse = np.linalg.pinv(sigma, hermitian=True) if allow_singular else np.linalg.inv(sigma)
    weights = np.broadcast_to(np.reshape(weights, -1), (points.shape[0],))
    whitened = (points - centre) @ inverse                      # one row of Sigma^-1 (x - mean) per point
    dx = -weights[:, None] * whitened
    dcov = 0.5 * (whitened.T @ (weights[:, None] * whitened) - np.sum(weights) * inverse)
    dcov = (dcov + dcov.T) / 2                                   # exactly symmetric
    return (unbroadcast(np.reshape(dx, np.shape(x)), x),
            unbroadcast(-np.sum(dx, axis=0), mean) if mean is not None else NO_TANGENT,
            _as_cov(dcov, cov), NO_TANGENT)


def mvn_logpdf_vjp(g, ans, x, mean, cov, allow_singular):
    return _mvn_logpdf_cotangents(g, x, mean, cov, allow_singular)


def mvn_pdf_vjp(g, ans, x, mean, cov, allow_singular):
    return _mvn_logpdf_cotangents(np.multiply(g, ans), x, mean, cov, allow_singular)


def mvn_entropy_vjp_cov(g, ans, mean, cov):
    d = _mvn_dimension(None, mean, cov)
    inverse = np.linalg.inv(_mvn_full_cov(cov, d))
    return _as_cov(g * 0.5 * (inverse + inverse.T) / 2, cov)


# ------------------------------------------------------------------ dirichlet: components along the first axis
def _dirichlet_points(x, alpha):
    """``x`` with its last component (SciPy completes ``k - 1`` of them with ``1 - sum(x)``),
    ``alpha`` as a column against it, whether the last component was implicit, and the slopes
    of the log-density in each component of ``alpha``, point by point."""
    x64 = np.asarray(x, dtype=np.float64)
    alpha64 = np.asarray(alpha, dtype=np.float64)
    k = alpha64.shape[0]
    implicit_last = x64.shape[0] == k - 1
    full = np.concatenate([x64, 1 - np.sum(x64, axis=0, keepdims=True)]) if implicit_last else x64
    column = alpha64.reshape((k,) + (1,) * (full.ndim - 1))
    log_terms = np.log(full) - special.digamma(column) + special.digamma(np.sum(alpha64))
    return full, column, implicit_last, log_terms


def _dirichlet_cotangents(weights, x, alpha):
    full, column, implicit_last, log_terms = _dirichlet_points(x, alpha)
    k = column.shape[0]
    weights = np.asarray(weights, dtype=np.float64)[None]      # one weight per point (column)
    dfull = weights * (column - 1) / full
    dx = dfull[:-1] - dfull[-1:] if implicit_last else dfull
    dalpha = np.sum(np.broadcast_to(weights * log_terms, full.shape).reshape(k, -1), axis=1)
    return unbroadcast(dx, x), unbroadcast(dalpha, alpha)


def dirichlet_logpdf_vjp(g, ans, x, alpha):
    return _dirichlet_cotangents(g, x, alpha)


def dirichlet_pdf_vjp(g, ans, x, alpha):
    return _dirichlet_cotangents(np.multiply(g, ans), x, alpha)


def _real_only(rule_name, function):
    """``function`` (a vjp or jvp, ``(g, ans, *params)``), refusing complex parameters: SciPy's
    distributions compare their arguments with their support's bounds and so compute
    something at complex ones, but nothing these real derivatives describe."""
    if not callable(function):
        return function

    @functools.wraps(function)
    def real_only(g, ans, *params):
        if any(np.iscomplexobj(value) for value in params):
            raise MissingRuleError(f"no rule for `{rule_name}` at complex arguments",
                                   hint="the distributions of scipy.stats are differentiated for real arguments only")
        return function(g, ans, *params)

    return real_only


def _defstats(method, signature, vjp):
    """``defvjp_all`` under the name ``scipy.stats.<distribution>.<method>``, for real arguments."""
    owner = getattr(method.__self__, "name", None) or type(method.__self__).__name__.removesuffix("_gen")
    name = f"scipy.stats.{owner}.{method.__name__}"
    return defvjp_all(method, signature, _real_only(name, vjp), name=name)


def _defjvp(method, *jvps, **options):
    """``defjvp`` of a rule registered above, for real arguments."""
    name = rule_for(method).name
    return defjvp(method, *(_real_only(name, jvp) for jvp in jvps), **options)


# ------------------------------------------------------------------ the table
LOC_SCALE = "loc=0.0, scale=1.0"
_defstats(stats.norm.logpdf,  f"x, {LOC_SCALE}",         _location_scale(norm_logpdf, _log_density))
_defstats(stats.norm.pdf,     f"x, {LOC_SCALE}",         _location_scale(norm_pdf, _density))
_defstats(stats.norm.cdf,     f"x, {LOC_SCALE}",         _location_scale(norm_cdf, _probability))
_defstats(stats.norm.logcdf,  f"x, {LOC_SCALE}",         _location_scale(norm_logcdf, _probability))
_defstats(stats.norm.sf,      f"x, {LOC_SCALE}",         _location_scale(norm_sf, _probability))
_defstats(stats.norm.logsf,   f"x, {LOC_SCALE}",         _location_scale(norm_logsf, _probability))
_defstats(stats.t.logpdf,     f"x, df, {LOC_SCALE}",     _location_scale(t_logpdf, _log_density))
_defstats(stats.t.pdf,        f"x, df, {LOC_SCALE}",     _location_scale(t_pdf, _density))
_defstats(stats.t.cdf,        f"x, df, {LOC_SCALE}",     _location_scale(t_cdf, _probability))
_defstats(stats.t.logcdf,     f"x, df, {LOC_SCALE}",     _location_scale(t_logcdf, _probability))
_defstats(stats.gamma.logpdf, f"x, a, {LOC_SCALE}",      _location_scale(gamma_logpdf, _log_density))
_defstats(stats.gamma.pdf,    f"x, a, {LOC_SCALE}",      _location_scale(gamma_pdf, _density))
_defstats(stats.gamma.cdf,    f"x, a, {LOC_SCALE}",      _location_scale(gamma_cdf, _probability))
_defstats(stats.chi2.logpdf,  f"x, df, {LOC_SCALE}",     _location_scale(chi2_logpdf, _log_density))
_defstats(stats.chi2.pdf,     f"x, df, {LOC_SCALE}",     _location_scale(chi2_pdf, _density))
_defstats(stats.chi2.cdf,     f"x, df, {LOC_SCALE}",     _location_scale(chi2_cdf, _probability))
_defstats(stats.beta.logpdf,  f"x, a, b, {LOC_SCALE}",   _location_scale(beta_logpdf, _log_density))
_defstats(stats.beta.pdf,     f"x, a, b, {LOC_SCALE}",   _location_scale(beta_pdf, _density))
_defstats(stats.beta.cdf,     f"x, a, b, {LOC_SCALE}",   _location_scale(beta_cdf, _probability))
_defstats(stats.poisson.logpmf, "k, mu, loc=0",          poisson_logpmf_vjp)
_defstats(stats.poisson.pmf,    "k, mu, loc=0",          poisson_pmf_vjp)
_defstats(stats.poisson.cdf,    "k, mu, loc=0",          poisson_cdf_vjp)
_defstats(stats.multivariate_normal.logpdf, "x, mean=None, cov=1, allow_singular=False", mvn_logpdf_vjp)
_defstats(stats.multivariate_normal.pdf,    "x, mean=None, cov=1, allow_singular=False", mvn_pdf_vjp)
defvjp(stats.multivariate_normal.entropy, "mean=None, cov=1", None,
       _real_only("scipy.stats.multivariate_normal.entropy", mvn_entropy_vjp_cov),
       name="scipy.stats.multivariate_normal.entropy")
_defstats(stats.dirichlet.logpdf, "x, alpha",            dirichlet_logpdf_vjp)
_defstats(stats.dirichlet.pdf,    "x, alpha",            dirichlet_pdf_vjp)


# ------------------------------------------------------------------ jvps
def _location_scale_jvps(standard, jacobian, shape_count, in_z=None):
    """The jvps of ``method(x, *shapes, loc, scale)``, one per parameter, from the slopes the
    vjp uses (see ``_location_scale``): ``x``, each shape, ``loc``, ``scale``.

    ``in_z(ans, z, *shapes)``, where given, is ``standard``'s slope in ``z`` alone: the jvps in
    ``x``, ``loc`` and ``scale`` call it, so that differentiating them again (a Hessian in ``x``)
    never reaches the shape slopes, series that are not differentiated again (``lower_gamma_slope_in_a``)."""
    slope_in_z = in_z if in_z is not None else _first_slope(standard)

    def slopes(ans, x, rest):
        *shapes, loc, scale = rest
        z = (np.asarray(x, dtype=np.float64) - loc) / scale
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope_z, shape_slopes = standard(ans, z, *shapes)
        return z, scale, slope_z, shape_slopes

    def slopes_in_z(ans, x, rest):
        *shapes, loc, scale = rest
        z = (np.asarray(x, dtype=np.float64) - loc) / scale
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope_z = slope_in_z(ans, z, *shapes)
        return z, scale, slope_z

    def jvp_x(g, ans, x, *rest):
        z, scale, slope_z = slopes_in_z(ans, x, rest)
        with np.errstate(invalid="ignore"):
            return like_output(g * slope_z / scale, ans)

    def jvp_shape(i):
        def jvp(g, ans, x, *rest):
            with np.errstate(invalid="ignore"):
                return like_output(g * slopes(ans, x, rest)[3][i], ans)

        jvp.__name__ = jvp.__qualname__ = f"{standard.__name__}_jvp_shape_{i}"
        return jvp

    def jvp_loc(g, ans, x, *rest):
        z, scale, slope_z = slopes_in_z(ans, x, rest)
        with np.errstate(invalid="ignore"):
            return like_output(-g * slope_z / scale, ans)

    def jvp_scale(g, ans, x, *rest):
        z, scale, slope_z = slopes_in_z(ans, x, rest)
        with np.errstate(invalid="ignore", over="ignore"):
            return like_output(-g * (slope_z * z + jacobian(ans)) / scale, ans)

    for jvp, part in ((jvp_x, "x"), (jvp_loc, "loc"), (jvp_scale, "scale")):
        jvp.__name__ = jvp.__qualname__ = f"{standard.__name__}_jvp_{part}"
    return (jvp_x, *(jvp_shape(i) for i in range(shape_count)), jvp_loc, jvp_scale)


def _mvn_log_density_jvp(g, ans, x, mean, cov, allow_singular, of):
    """The tangent of the logpdf of each point, for a tangent ``g`` of ``x``, ``mean`` or ``cov``."""
    d = _mvn_dimension(x, mean, cov)
    points = np.reshape(np.asarray(x, dtype=np.float64), (-1, d))
    centre = np.zeros(d) if mean is None else np.broadcast_to(np.asarray(mean, dtype=np.float64), (d,))
    sigma = _mvn_full_cov(cov, d)
    inverse = np.linalg.pinv(sigma, hermitian=True) if allow_singular else np.linalg.inv(sigma)
    whitened = (points - centre) @ inverse                      # one row of Sigma^-1 (x - mean) per point
    if of == "x":
        per_point = -np.sum(whitened * np.reshape(g, (-1, d)), axis=1)
    elif of == "mean":
        per_point = whitened @ np.broadcast_to(np.asarray(g, dtype=np.float64), (d,))
    else:  # d log|Sigma| = tr(Sigma^-1 dSigma), d of the quadratic = -w^T dSigma w
        dsigma = _mvn_full_cov(g, d)
        per_point = 0.5 * (np.sum((whitened @ dsigma) * whitened, axis=1) - np.sum(inverse * dsigma.T))
    return np.reshape(per_point, np.shape(ans))


def _mvn_jvp(of, density):
    def jvp(g, ans, x, mean, cov, allow_singular):
        tangent = _mvn_log_density_jvp(g, ans, x, mean, cov, allow_singular, of)
        return like_output(tangent * ans if density else tangent, ans)

    jvp.__name__ = jvp.__qualname__ = f"mvn_{'pdf' if density else 'logpdf'}_jvp_{of}"
    return jvp


def mvn_entropy_jvp_cov(g, ans, mean, cov):
    d = _mvn_dimension(None, mean, cov)
    inverse = np.linalg.inv(_mvn_full_cov(cov, d))
    return like_output(0.5 * np.sum(inverse * _mvn_full_cov(g, d).T), ans)


def _dirichlet_log_density_jvp_x(g, ans, x, alpha):
    full, column, implicit_last, _ = _dirichlet_points(x, alpha)
    g = np.asarray(g, dtype=np.float64)
    dfull = np.concatenate([g, -np.sum(g, axis=0, keepdims=True)]) if implicit_last else g
    return np.reshape(np.sum((column - 1) / full * dfull, axis=0), np.shape(ans))


def _dirichlet_log_density_jvp_alpha(g, ans, x, alpha):
    full, column, _, log_terms = _dirichlet_points(x, alpha)
    dalpha = np.reshape(np.asarray(g, dtype=np.float64), column.shape)
    return np.reshape(np.sum(dalpha * log_terms, axis=0), np.shape(ans))


def dirichlet_logpdf_jvp_x(g, ans, x, alpha):
    return like_output(_dirichlet_log_density_jvp_x(g, ans, x, alpha), ans)


def dirichlet_logpdf_jvp_alpha(g, ans, x, alpha):
    return like_output(_dirichlet_log_density_jvp_alpha(g, ans, x, alpha), ans)


def dirichlet_pdf_jvp_x(g, ans, x, alpha):
    return like_output(ans * _dirichlet_log_density_jvp_x(g, ans, x, alpha), ans)


def dirichlet_pdf_jvp_alpha(g, ans, x, alpha):
    return like_output(ans * _dirichlet_log_density_jvp_alpha(g, ans, x, alpha), ans)


def _first_slope(standard):
    def in_z(ans, z, *shapes):
        return standard(ans, z, *shapes)[0]

    return in_z


def _defjvp_location_scale(method, standard, jacobian, in_z=None):
    """``defjvp`` of a location-scale family's method (its shapes counted from the rule's signature)."""
    shape_count = len(rule_for(method).params) - 3              # x, *shapes, loc, scale
    return _defjvp(method, *_location_scale_jvps(standard, jacobian, shape_count, in_z), elementwise=True)


# ---- forward rules
_defjvp_location_scale(stats.norm.logpdf,  norm_logpdf,  _log_density)
_defjvp_location_scale(stats.norm.pdf,     norm_pdf,     _density)
_defjvp_location_scale(stats.norm.cdf,    norm_cdf,     _probability)
_defjvp_location_scale(stats.norm.logcdf,  norm_logcdf,  _probability)
_defjvp_location_scale(stats.norm.sf,      norm_sf,      _probability)
_defjvp_location_scale(stats.norm.logsf,   norm_logsf,   _probability)
_defjvp_location_scale(stats.t.logpdf,     t_logpdf,     _log_density)
_defjvp_location_scale(stats.t.pdf,        t_pdf,        _density)
_defjvp_location_scale(stats.t.cdf,        t_cdf,        _probability, t_cdf_in_z)
_defjvp_location_scale(stats.t.logcdf,     t_logcdf,     _probability, t_logcdf_in_z)
_defjvp_location_scale(stats.gamma.logpdf, gamma_logpdf, _log_density)
_defjvp_location_scale(stats.gamma.pdf,    gamma_pdf,    _density)
_defjvp_location_scale(stats.gamma.cdf,    gamma_cdf,    _probability, gamma_cdf_in_z)
_defjvp_location_scale(stats.chi2.logpdf,  chi2_logpdf,  _log_density)
_defjvp_location_scale(stats.chi2.pdf,     chi2_pdf,     _density)
_defjvp_location_scale(stats.chi2.cdf,     chi2_cdf,     _probability, chi2_cdf_in_z)
_defjvp_location_scale(stats.beta.logpdf,  beta_logpdf,  _log_density)
_defjvp_location_scale(stats.beta.pdf,     beta_pdf,     _density)
_defjvp_location_scale(stats.beta.cdf,     beta_cdf,     _probability, beta_cdf_in_z)
_defjvp(stats.poisson.logpmf, None, jvp_of_slope(poisson_logpmf_slope_mu), None, elementwise=True)
_defjvp(stats.poisson.pmf,    None, jvp_of_slope(poisson_pmf_slope_mu),    None, elementwise=True)
_defjvp(stats.poisson.cdf,    None, jvp_of_slope(poisson_cdf_slope_mu),    None, elementwise=True)
_defjvp(stats.multivariate_normal.logpdf,  _mvn_jvp("x", False), _mvn_jvp("mean", False), _mvn_jvp("cov", False), None)
_defjvp(stats.multivariate_normal.pdf,     _mvn_jvp("x", True),  _mvn_jvp("mean", True),  _mvn_jvp("cov", True),  None)
_defjvp(stats.multivariate_normal.entropy, None, mvn_entropy_jvp_cov)
_defjvp(stats.dirichlet.logpdf, dirichlet_logpdf_jvp_x, dirichlet_logpdf_jvp_alpha)
_defjvp(stats.dirichlet.pdf,    dirichlet_pdf_jvp_x,    dirichlet_pdf_jvp_alpha)
