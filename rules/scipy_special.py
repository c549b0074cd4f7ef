"""Rules for ``scipy.special`` (registered once the user imports ``scipy.special``).

Templates may use ``np`` and ``math`` but not SciPy, so derivatives that need another
special function (``gammaln`` needs ``digamma``) are small vjp functions here. Each vjp
returns its cotangent through ``unbroadcast``: summed back over broadcast axes, in the
argument's dtype, a Python float for a Python float.

Conventions:

* orders of Bessel functions (``v`` in ``jv(v, x)``) and the dimension of
  ``multigammaln`` get no gradient (``None``): a derivative in the order has no closed
  form, and the order is almost always a constant;
* the derivatives of the regularized incomplete gamma and beta functions in their shape
  parameters have no closed form either; they are summed from series and continued
  fractions differentiated term by term (see "Shape derivatives" below): within 1e-11
  relative of high-precision values for shapes from 0.01 to 1000 (slower, about
  ``sqrt(shape)`` terms, for larger ones);
* where a derivative is infinite (``entr`` at 0, ``logit`` at 0 and 1), a zero cotangent
  still gives 0 (``0 * inf = 0``), as everywhere in s2sad.
"""
import math

import numpy as np
from scipy import special

from s2sad.errors import MissingRuleError, UnsupportedArgumentsError
from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp, nondifferentiable, rule_for
from s2sad.registry.slopes import Explicit, defderivative, defslopes, jvp_of_slope, like_output
from s2sad.runtime.tangents import NO_TANGENT, ZERO

from .helpers import conj, expand_reduced, output_parts, safe_divide, unbroadcast

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2 * math.pi)
_SQRT_2 = math.sqrt(2)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_EPS = np.finfo(np.float64).eps
# The functions a slope below computes with, bound now: a slope must not follow a user who
# replaces `scipy.special.expit` by a function of theirs (s2sad then differentiates theirs,
# through the original's rule)
_EXPIT, _ERFCX = special.expit, special.erfcx


# Slopes: ``<name>_slope(ans, *params)`` is the partial derivative of the output in one
# parameter, elementwise. One slope gives both rules (``defslopes``, see the table at the end):
# the reverse vjp ``unbroadcast(g * conj(slope), param)`` and the forward jvp ``g * slope``.
# ------------------------------------------------------------------ gamma and beta family
def gamma_slope(ans, x):
    return ans * special.digamma(x)


def gammaln_slope(ans, x):
    return special.digamma(x)


def digamma_slope(ans, x):
    if np.iscomplexobj(x):  # SciPy's polygamma (the slope) is real only
        raise MissingRuleError("no rule for scipy.special.digamma (psi) at complex arguments",
                               hint="its derivative, polygamma(1, z), has no complex version in SciPy")
    return special.polygamma(1, x)


def order_without_derivative(g, ans, v, x):
    """The order of a Bessel function gets no derivative: refused when it has a tangent
    (an int order has none), rather than passing a silent 0."""
    if np.result_type(v).kind in "fc":
        raise MissingRuleError("no rule for the derivative of a Bessel function in its order",
                               hint="make the order a constant: an int, or a float not computed from "
                                    "the differentiated inputs")
    return NO_TANGENT


def hyp2f1_slope_z(ans, a, b, c, z):
    return a * b / c * special.hyp2f1(a + 1, b + 1, c + 1, z)


# Written out with the parameters named, not made from the slope (``*params``): differentiated
# again (a Hessian in z), constant a, b, c are then seen to be constants, and hyp2f1's refusal
# in its parameters is not reached.
def hyp2f1_vjp_z(g, ans, a, b, c, z):
    return unbroadcast(g * conj(hyp2f1_slope_z(ans, a, b, c, z)), z)


def hyp2f1_jvp_z(g, ans, a, b, c, z):
    return like_output(g * hyp2f1_slope_z(ans, a, b, c, z), ans)


def hyp2f1_parameter_without_derivative(g, ans, a, b, c, z):
    """hyp2f1's parameters get no derivative (no closed form): refused when one has a tangent."""
    raise MissingRuleError("no rule for the derivative of scipy.special.hyp2f1 in its parameters a, b, c",
                           hint="make a, b and c constants (not computed from the differentiated inputs); "
                                "its derivative in z is a * b / c * hyp2f1(a + 1, b + 1, c + 1, z)")


def polygamma_slope_x(ans, n, x):
    return special.polygamma(n + 1, x)


def rgamma_slope(ans, x):
    return -ans * special.digamma(x)


def multigammaln_slope(ans, a, d):
    # multigammaln(a, d) = const + sum over j < d of gammaln(a - j / 2)
    return sum(special.digamma(np.asarray(a, dtype=np.float64) - j / 2) for j in range(int(d)))


def beta_slope_a(ans, a, b):
    return ans * (special.digamma(a) - special.digamma(a + b))


def beta_slope_b(ans, a, b):
    return ans * (special.digamma(b) - special.digamma(a + b))


def betaln_slope_a(ans, a, b):
    return special.digamma(a) - special.digamma(a + b)


def betaln_slope_b(ans, a, b):
    return special.digamma(b) - special.digamma(a + b)


def _gamma_density(a, x):
    """``x ** (a - 1) * exp(-x) / gamma(a)``: the slope of ``gammainc`` in ``x`` (1 at a = 1, x = 0; 0 at inf)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        density = np.exp(special.xlogy(a - 1, x) - x - special.gammaln(a))
    return np.where(np.equal(x, np.inf), 0.0, density)


def gammainc_slope_a(ans, a, x):
    return lower_gamma_slope_in_a(a, x)


def gammainc_slope_x(ans, a, x):
    return _gamma_density(a, x)


def gammaincc_slope_a(ans, a, x):
    return -lower_gamma_slope_in_a(a, x)


def gammaincc_slope_x(ans, a, x):
    return -_gamma_density(a, x)


def betainc_slope_a(ans, a, b, x):
    return betainc_slopes_in_shapes(a, b, x)[0]


def betainc_slope_b(ans, a, b, x):
    return betainc_slopes_in_shapes(a, b, x)[1]


def betainc_slope_x(ans, a, b, x):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.exp(special.xlogy(a - 1, x) + special.xlog1py(b - 1, -x) - special.betaln(a, b))


# ------------------------------------------------------------------ Bessel functions
# Orders get no gradient. Derivatives in x by the recurrences
# J'_v = (J_{v-1} - J_{v+1}) / 2 (Y likewise), I'_v = (I_{v-1} + I_{v+1}) / 2,
# K'_v = -(K_{v-1} + K_{v+1}) / 2; the exponentially scaled ive = iv * exp(-|x|) and
# kve = kv * exp(x) add the derivative of their scale factor.
def jv_slope_x(ans, v, x):
    return (special.jv(v - 1, x) - special.jv(v + 1, x)) / 2


def yv_slope_x(ans, v, x):
    return (special.yv(v - 1, x) - special.yv(v + 1, x)) / 2


def yn_slope_x(ans, n, x):
    return (special.yn(n - 1, x) - special.yn(n + 1, x)) / 2


def iv_slope_x(ans, v, x):
    return (special.iv(v - 1, x) + special.iv(v + 1, x)) / 2


def ive_slope_x(ans, v, x):
    if np.iscomplexobj(x):  # ive(v, z) = iv(v, z) exp(-|Re z|): not holomorphic, no rule
        raise MissingRuleError("no rule for scipy.special.ive at complex arguments",
                               hint="use iv(v, z) * np.exp(-np.abs(z.real)), which s2sad differentiates")
    return (special.ive(v - 1, x) + special.ive(v + 1, x)) / 2 - np.sign(x) * ans


def kv_slope_x(ans, v, x):
    return -(special.kv(v - 1, x) + special.kv(v + 1, x)) / 2


def kve_slope_x(ans, v, x):
    return ans - (special.kve(v - 1, x) + special.kve(v + 1, x)) / 2


def _i1_over_x(i1, x):
    """``I1(x) / x`` (also for the scaled i1e), which tends to 1/2 at 0."""
    return np.where(np.equal(x, 0), 0.5, safe_divide(i1, x))


def i0_slope(ans, x):
    return special.i1(x)


def i1_slope(ans, x):
    return special.i0(x) - _i1_over_x(ans, x)


def i0e_slope(ans, x):
    return special.i1e(x) - np.sign(x) * ans


def i1e_slope(ans, x):
    return special.i0e(x) - _i1_over_x(ans, x) - np.sign(x) * ans


def j0_slope(ans, x):
    return -special.j1(x)


def j1_slope(ans, x):
    return (special.j0(x) - special.jv(2, x)) / 2


def y0_slope(ans, x):
    return -special.y1(x)


def y1_slope(ans, x):
    return (special.y0(x) - special.yv(2, x)) / 2


def k0_slope(ans, x):
    return -special.k1(x)


def k1_slope(ans, x):
    return -(special.k0(x) + ans / x)


def k0e_slope(ans, x):
    return ans - special.k1e(x)


def k1e_slope(ans, x):
    return ans - special.k0e(x) - ans / x


# ------------------------------------------------------------------ error function, normal distribution
def erfcx_slope(ans, x):
    # 2 x erfcx(x) - 2/sqrt(pi) cancels for large x (it is 0 from x = 1e8, where the slope is -5.6e-17):
    # there the asymptotic series 2/sqrt(pi) sum_n (-1)^n (2n-1)!! / (2x^2)^n, to n = 6 (good to 1e-13 from x = 25)
    far = x >= 25
    u = 1 / np.square(np.where(far, x, 1))
    series = _TWO_OVER_SQRT_PI * u * (-0.5 + u * (0.75 + u * (-1.875 + u * (6.5625 + u * (-29.53125 + u * 162.421875)))))
    return np.where(far, series, 2 * x * ans - _TWO_OVER_SQRT_PI)


def expit_slope(ans, x):
    # not ans * (1 - ans): 1 - ans is 0 for x above 37, where the slope is exp(-x)
    return ans * _EXPIT(-x)


def log_expit_slope(ans, x):
    return _EXPIT(-x)


def log_ndtr_slope(ans, x):
    return density_over_ndtr(x, ans)


def density_over_ndtr(x, log_ndtr):
    """The normal density over ndtr at ``x``, given ``log_ndtr(x)``. For x >= 0 in logs; below 0
    through erfcx (density / ndtr = sqrt(2/pi) / erfcx(-x/sqrt(2))), as there the logs
    -x^2/2 - log_ndtr(x) cancel two numbers of size x^2/2: 1% off at x = -1e7, 94% at -1e8.
    Each side is taken of x masked to 0 where the other is used: finite there, so no inf * 0 in
    second derivatives."""
    below, above = x < 0, x >= 0
    through_erfcx = _SQRT_2_OVER_PI / _ERFCX(-(x * below) / _SQRT_2)
    in_logs = np.exp(-np.square(x * above) / 2 - log_ndtr * above) / _SQRT_2PI
    return np.where(below, through_erfcx, in_logs)


# ------------------------------------------------------------------ information theory
# entr and the x slopes are infinite at x = 0: their rows in the table are guarded
def entr_slope(ans, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(np.log(x) + 1)


def rel_entr_slope_x(ans, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / y) + 1


def kl_div_slope_x(ans, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x / y)


def rel_entr_vjp_y(g, ans, x, y):
    return unbroadcast(-safe_divide(g * x, y), y)


def kl_div_vjp_y(g, ans, x, y):
    return unbroadcast(g - safe_divide(g * x, y), y)


# ------------------------------------------------------------------ reductions
def _signed_sum_checked(sign):
    """Refuse where the weighted sum is exactly 0 (SciPy's sign 0): log|sum| has no derivative there."""
    if np.any(sign == 0):
        raise UnsupportedArgumentsError(
            "logsumexp(..., return_sign=True) is differentiated only where the weighted sum is not 0: it is 0 "
            "here (its log is -inf, and the derivative of log|sum| is infinite)")


def _weighted_sum_checked(ans, return_sign):
    """Refuse the derivative in the weights ``b`` where the weighted sum is exactly 0 (its log is -inf):
    ``exp(a) / sum`` is infinite there (0/0 where ``a`` is -inf too), not the 0 that flows in ``a``."""
    r = ans[0] if return_sign else ans
    if np.any(np.isneginf(np.real(r))):
        raise UnsupportedArgumentsError(
            "logsumexp(a, b=...) is differentiated in b only where the weighted sum is not 0: it is 0 here (its "
            "log is -inf, and the derivative in the weights is infinite)")


def _logsumexp_seed(g, ans, return_sign):
    """The cotangent of ``log sum(b exp(a))`` (its tangent ``t``: ``conj(sign) * sum(exp(a - r) (b da + db))``)
    times ``sign``, and ``r``, the log of the sum's magnitude. With ``return_sign`` the output is ``(r, sign)``:
    r moves by Re t, a complex sign (a phase) by ``i sign Im t``, a real one (+-1) not at all."""
    if not return_sign:
        return g, ans
    r, sign = ans
    _signed_sum_checked(sign)
    g_r, g_sign = output_parts(g, 2)
    seed = np.zeros(np.shape(r)) if g_r is ZERO else g_r
    if g_sign is not ZERO and np.iscomplexobj(sign):
        seed = seed + 1j * np.imag(g_sign * np.conjugate(sign))
    return seed * sign, r


def _logsumexp_terms(g, ans, a, axis, b, keepdims, return_sign):
    """``g`` (the seed of ``_logsumexp_seed``) and ``exp(a - ans)``, both broadcast to the shape of ``a``
    and ``b`` together."""
    g, ans = _logsumexp_seed(g, ans, return_sign)
    a = np.asarray(a)
    full = np.broadcast_shapes(a.shape, np.shape(b)) if b is not None else a.shape
    like = np.broadcast_to(a, full)
    g_full = np.broadcast_to(expand_reduced(np.asarray(g, dtype=np.result_type(g, a)), like, axis, keepdims), full)
    lse = expand_reduced(np.asarray(ans, dtype=np.result_type(ans, a)), like, axis, keepdims)
    with np.errstate(invalid="ignore"):
        terms = np.exp(like - lse)
    # where every weight is 0 the sum is 0 and ans is -inf: no gradient flows there
    # (logsumexp is holomorphic in a complex a: the terms are conjugated by the vjps)
    return g_full, np.where(np.isneginf(np.real(lse)), 0.0, terms)


def logsumexp_vjp_a(g, ans, a, axis, b, keepdims, return_sign):
    g_full, terms = _logsumexp_terms(g, ans, a, axis, b, keepdims, return_sign)
    return unbroadcast(g_full * conj(terms * (1 if b is None else b)), a)


def logsumexp_vjp_b(g, ans, a, axis, b, keepdims, return_sign):
    _weighted_sum_checked(ans, return_sign)
    g_full, terms = _logsumexp_terms(g, ans, a, axis, b, keepdims, return_sign)
    return unbroadcast(g_full * conj(terms), b)


def softmax_vjp(g, ans, x, axis):
    return unbroadcast(conj(ans) * (g - np.sum(g * conj(ans), axis=axis, keepdims=True)), x)


def log_softmax_vjp(g, ans, x, axis):
    return unbroadcast(g - conj(np.exp(ans)) * np.sum(g, axis=axis, keepdims=True), x)


# ------------------------------------------------------------------ shape derivatives
# d/da of gammainc(a, x) and d/da, d/db of betainc(a, b, x): the series and continued
# fractions that compute these functions (Numerical Recipes' gser, gcf and betacf),
# run on dual numbers so each term carries its derivative in the shape parameters.
# Every branch is taken where its terms do not cancel: the series of P below x = a + 1,
# the fraction of Q above; the fraction of I_x(a, b) below x = (a + 1) / (a + b + 2),
# of I_{1-x}(b, a) above.
_TINY = 1e-300
_MAX_TERMS = 20000
_FRACTION_TOLERANCE = 4 * _EPS  # a fraction's factor settles to 1 within rounding, not exactly


class _Dual:
    """A value ``v`` with its derivatives ``d[k]`` in k parameters (forward mode)."""

    __slots__ = ("v", "d")
    __array_ufunc__ = None  # ``array - dual`` must come here, not be taken element by element

    def __init__(self, v, d):
        self.v, self.d = v, d

    def __add__(self, other):
        if isinstance(other, _Dual):
            return _Dual(self.v + other.v, self.d + other.d)
        return _Dual(self.v + other, self.d)

    __radd__ = __add__

    def __neg__(self):
        return _Dual(-self.v, -self.d)

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, other):
        if isinstance(other, _Dual):
            return _Dual(self.v * other.v, self.d * other.v + self.v * other.d)
        return _Dual(self.v * other, self.d * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, _Dual):
            quotient = self.v / other.v
            return _Dual(quotient, (self.d - quotient * other.d) / other.v)
        return _Dual(self.v / other, self.d / other)

    def __rtruediv__(self, other):
        quotient = other / self.v
        return _Dual(quotient, -quotient * self.d / self.v)

    def away_from_zero(self):
        """Lentz's guard: a vanishing denominator is nudged to a tiny number."""
        return _Dual(np.where(np.abs(self.v) < _TINY, _TINY, self.v), self.d)


def _dual_exp(log):
    value = np.exp(log.v)
    return _Dual(value, value * log.d)


def _converged(step, total, tolerance=_EPS):
    """A term (or a fraction's factor minus 1) that no longer moves the total or its derivatives."""
    size = np.abs(total.v)
    return bool(np.all(np.abs(step.v) <= tolerance * size)
                and np.all(np.abs(step.d) <= tolerance * (np.abs(total.d) + size)))


def lower_gamma_slope_in_a(a, x):
    """d/da of gammainc(a, x); 0 at x = 0 and x = inf, NaN for a <= 0."""
    a, x = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    slope = np.where((x == 0) | (x == np.inf), 0.0, np.nan)
    inside = (a > 0) & (x > 0) & (x < np.inf)
    series = inside & (x < a + 1)
    fraction = inside & ~series
    if series.any():
        slope[series] = _lower_gamma_series(a[series], x[series]).d[0]
    if fraction.any():
        slope[fraction] = -_upper_gamma_fraction(a[fraction], x[fraction]).d[0]
    return slope[()] if slope.ndim == 0 else slope


def _lower_gamma_series(a, x):
    """P(a, x) = sum over n of x ** (a + n) * exp(-x) / gamma(a + n + 1), as a dual in a."""
    shape = _Dual(a, np.ones((1,) + a.shape))
    log_x = np.log(x)
    term = _dual_exp(_Dual(a * log_x - x - special.gammaln(a + 1), (log_x - special.digamma(a + 1))[None]))
    total = term
    for n in range(1, _MAX_TERMS):
        term = term * x / (shape + n)
        total = total + term
        if _converged(term, total):
            return total
    return _Dual(np.full(a.shape, np.nan), np.full((1,) + a.shape, np.nan))


def _upper_gamma_fraction(a, x):
    """Q(a, x) = exp(-x) x ** a / gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), as a dual in a."""
    shape = _Dual(a, np.ones((1,) + a.shape))
    b = x + 1 - shape
    c = _Dual(np.full(a.shape, 1 / _TINY), np.zeros((1,) + a.shape))
    d = 1 / b
    h = d
    for i in range(1, _MAX_TERMS):
        an = (shape - i) * i
        b = b + 2
        d = (an * d + b).away_from_zero()
        c = (b + an / c).away_from_zero()
        d = 1 / d
        factor = d * c
        h = h * factor
        if _converged(factor - 1, _Dual(np.ones(a.shape), h.d / h.v), _FRACTION_TOLERANCE):
            log_x = np.log(x)
            front = _dual_exp(_Dual(a * log_x - x - special.gammaln(a), (log_x - special.digamma(a))[None]))
            return front * h
    return _Dual(np.full(a.shape, np.nan), np.full((1,) + a.shape, np.nan))


def betainc_slopes_in_shapes(a, b, x):
    """(d/da, d/db) of betainc(a, b, x); 0 at x = 0 and 1, NaN outside the domain."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, x)))
    edge = ((x == 0) | (x == 1)) & (a > 0) & (b > 0)
    slopes = np.where(edge, 0.0, np.nan) * np.ones((2,) + x.shape)
    inside = (a > 0) & (b > 0) & (x > 0) & (x < 1)
    if inside.any():
        slopes[:, inside] = _betainc_fraction(a[inside], b[inside], x[inside])
    if x.ndim == 0:
        return slopes[0][()], slopes[1][()]
    return slopes[0], slopes[1]


def _betainc_fraction(a, b, x):
    """The derivatives in (a, b) of I_x(a, b) = x**a (1-x)**b / (a B(a, b)) / (1 + d1 / (1 + d2 / (1 + ...)))."""
    swap = x > (a + 1) / (a + b + 2)  # there the fraction of I_{1-x}(b, a) converges fast
    p, q = np.where(swap, b, a), np.where(swap, a, b)
    y = np.where(swap, 1 - x, x)
    log_y = np.where(swap, np.log1p(-x), np.log(x))  # not log(1 - x): keeps the digits of a tiny x
    log_1my = np.where(swap, np.log(x), np.log1p(-x))
    seed_p = np.stack([~swap, swap]).astype(np.float64)  # p is a where not swapped, b where swapped
    seed_q = seed_p[::-1]
    p_, q_ = _Dual(p, seed_p), _Dual(q, seed_q)
    p_plus_q = p_ + q_
    c = _Dual(np.ones(x.shape), np.zeros((2,) + x.shape))
    d = 1 / (1 - p_plus_q * y / (p_ + 1)).away_from_zero()
    h = d
    for m in range(1, _MAX_TERMS):
        even = m * (q_ - m) * y / ((p_ + (2 * m - 1)) * (p_ + 2 * m))
        d = 1 / (1 + even * d).away_from_zero()
        c = (1 + even / c).away_from_zero()
        h = h * d * c
        odd = -(p_ + m) * (p_plus_q + m) * y / ((p_ + 2 * m) * (p_ + (2 * m + 1)))
        d = 1 / (1 + odd * d).away_from_zero()
        c = (1 + odd / c).away_from_zero()
        factor = d * c
        h = h * factor
        if _converged(factor - 1, _Dual(np.ones(x.shape), h.d / h.v), _FRACTION_TOLERANCE):
            psi_sum = special.digamma(p + q)
            log_front = _Dual(p * log_y + q * log_1my - special.betaln(p, q),
                              seed_p * (log_y - special.digamma(p) + psi_sum)
                              + seed_q * (log_1my - special.digamma(q) + psi_sum))
            value = _dual_exp(log_front) * h / p_
            return np.where(swap, -value.d, value.d)  # I_x(a, b) = 1 - I_{1-x}(b, a)
    return np.full((2,) + x.shape, np.nan)


# ------------------------------------------------------------------ rules written out per mode
# Where a slope does not serve both modes: the tangent of y in xlogy (a float64 result for a
# float32 array: the jvp casts), divisions made safe, and the reductions (not elementwise).
# xlogy(0.5, float32 array) is float64 (so is xlog1py): jvps cast, which templates could not
def xlogy_slope_x(ans, x, y):
    return np.log(np.where(np.equal(x, 0) & np.equal(y, 0), 1, y))


def xlog1py_slope_x(ans, x, y):
    return np.log1p(np.where(np.equal(x, 0) & np.equal(y, -1), 0, y))


def xlogy_jvp_y(g, ans, x, y):
    return like_output(safe_divide(g * x, y), ans)


def xlog1py_jvp_y(g, ans, x, y):
    return like_output(safe_divide(g * x, 1 + y), ans)


def rel_entr_jvp_y(g, ans, x, y):
    return like_output(-safe_divide(g * x, y), ans)


def kl_div_jvp_y(g, ans, x, y):
    return like_output(g - safe_divide(g * x, y), ans)


def _logsumexp_jvp(g, ans, a, axis, b, keepdims, return_sign, times_b):
    """``sum(exp(a - ans) * g)`` over ``axis`` (``* b`` for the tangent of ``a``); with ``return_sign``
    the tangents of ``(r, sign)`` from it (see ``_logsumexp_seed``)."""
    r, sign = ans if return_sign else (ans, None)
    if return_sign:
        _signed_sum_checked(sign)
    a = np.asarray(a)
    full = np.broadcast_shapes(a.shape, np.shape(b)) if b is not None else a.shape
    lse = np.asarray(r)
    if not keepdims:  # put the reduced axes back as 1s, so ans lines up with a
        reduced = range(len(full)) if axis is None else [axis % len(full) for axis in np.atleast_1d(axis)]
        lse = np.reshape(lse, tuple(1 if i in reduced else n for i, n in enumerate(full)))
    with np.errstate(invalid="ignore", over="ignore"):
        terms = np.exp(a - lse)
    # where every weight is 0 the sum is 0 and ans is -inf: no tangent flows there
    terms = np.where(np.isneginf(np.real(lse)), 0.0, terms)
    if times_b and b is not None:
        terms = terms * b
    t = np.sum(np.broadcast_to(terms * g, full), axis=axis, keepdims=keepdims)
    if not return_sign:
        return like_output(t, ans)
    t = np.conjugate(sign) * t
    d_sign = sign * (1j * np.imag(t)) if np.iscomplexobj(sign) else np.zeros_like(sign)
    return like_output(np.real(t), r), like_output(d_sign, sign)


def logsumexp_jvp_a(g, ans, a, axis, b, keepdims, return_sign):
    return _logsumexp_jvp(g, ans, a, axis, b, keepdims, return_sign, times_b=True)


def logsumexp_jvp_b(g, ans, a, axis, b, keepdims, return_sign):
    _weighted_sum_checked(ans, return_sign)
    return _logsumexp_jvp(g, ans, a, axis, b, keepdims, return_sign, times_b=False)


# ------------------------------------------------------------------ the table
def defspecial(function, signature, *vjps):
    """``defvjp`` under the name ``scipy.special.<name>`` (SciPy's ufuncs have no ``__module__``)."""
    return defvjp(function, signature, *vjps, name=f"scipy.special.{function.__name__}")


def special_slopes(function, signature, *slopes, guarded=()):
    """Both modes from the slopes (``defslopes``), under the name ``scipy.special.<name>``."""
    return defslopes(function, signature, *slopes, guarded=guarded, name=f"scipy.special.{function.__name__}")


ORDER = Explicit(order_without_derivative)  # a Bessel function's order: refused if it has a tangent
HYP2F1_PARAMETER = Explicit(hyp2f1_parameter_without_derivative)
ELEMENTWISE = {"elementwise": True}

# One slope per parameter, both modes
special_slopes(special.erfcx,        "x",       erfcx_slope)
special_slopes(special.expit,        "x",       expit_slope)
special_slopes(special.log_expit,    "x",       log_expit_slope)
special_slopes(special.log_ndtr,     "x",       log_ndtr_slope)
special_slopes(special.entr,         "x",       entr_slope, guarded=True)
special_slopes(special.rel_entr,     "x, y",    rel_entr_slope_x, Explicit(rel_entr_vjp_y, rel_entr_jvp_y), guarded=("x",))
special_slopes(special.kl_div,       "x, y",    kl_div_slope_x, Explicit(kl_div_vjp_y, kl_div_jvp_y), guarded=("x",))
special_slopes(special.gamma,        "x",       gamma_slope)
special_slopes(special.gammaln,      "x",       gammaln_slope)
special_slopes(special.digamma,      "x",       digamma_slope)  # special.psi is special.digamma
special_slopes(special.polygamma,    "n, x",    None, polygamma_slope_x)
special_slopes(special.rgamma,       "x",       rgamma_slope)
special_slopes(special.multigammaln, "a, d",    multigammaln_slope, None)
special_slopes(special.beta,         "a, b",    beta_slope_a, beta_slope_b)
special_slopes(special.betaln,       "a, b",    betaln_slope_a, betaln_slope_b)
special_slopes(special.gammainc,     "a, x",    gammainc_slope_a, gammainc_slope_x, guarded=True)
special_slopes(special.gammaincc,    "a, x",    gammaincc_slope_a, gammaincc_slope_x, guarded=True)
special_slopes(special.betainc,      "a, b, x", betainc_slope_a, betainc_slope_b, betainc_slope_x, guarded=True)
special_slopes(special.hyp2f1,       "a, b, c, z", HYP2F1_PARAMETER, HYP2F1_PARAMETER, HYP2F1_PARAMETER,
               Explicit(hyp2f1_vjp_z, hyp2f1_jvp_z))
# Bessel functions (special.jn is special.jv)
special_slopes(special.jv,           "v, x",    ORDER, jv_slope_x)
special_slopes(special.yv,           "v, x",    ORDER, yv_slope_x)
special_slopes(special.yn,           "n, x",    None, yn_slope_x)
special_slopes(special.iv,           "v, x",    ORDER, iv_slope_x)
special_slopes(special.ive,          "v, x",    ORDER, ive_slope_x)
special_slopes(special.kv,           "v, x",    ORDER, kv_slope_x)
special_slopes(special.kve,          "v, x",    ORDER, kve_slope_x)
special_slopes(special.i0,           "x",       i0_slope)
special_slopes(special.i1,           "x",       i1_slope)
special_slopes(special.i0e,          "x",       i0e_slope)
special_slopes(special.i1e,          "x",       i1e_slope)
special_slopes(special.j0,           "x",       j0_slope)
special_slopes(special.j1,           "x",       j1_slope)
special_slopes(special.y0,           "x",       y0_slope)
special_slopes(special.y1,           "x",       y1_slope)
special_slopes(special.k0,           "x",       k0_slope)
special_slopes(special.k1,           "x",       k1_slope)
special_slopes(special.k0e,          "x",       k0e_slope)
special_slopes(special.k1e,          "x",       k1e_slope)

# One slope expression per parameter, both modes, inlined in generated code
defderivative(special.dawsn,         "x",       "1 - 2 * x * ans", name="scipy.special.dawsn")
defderivative(special.erfi,          "x",       f"{_TWO_OVER_SQRT_PI!r} * np.exp(x ** 2)", name="scipy.special.erfi")
defderivative(special.exp1,          "x",       "-np.exp(-x) / x", name="scipy.special.exp1")
defderivative(special.expi,          "x",       "np.exp(x) / x", name="scipy.special.expi")

# Templates, one per mode: inlined in generated code; the forward ones compute in the
# output's dtype (``np.square(x, dtype=ans.dtype)``), which a float16 input would not give
defspecial(special.erf,          "x",       f"g * {_TWO_OVER_SQRT_PI!r} * np.exp(-conj(x) ** 2)")
defjvp(special.erf,              f"g * {_TWO_OVER_SQRT_PI!r} * np.exp(-np.square(x, dtype=ans.dtype))", **ELEMENTWISE)
defspecial(special.erfc,         "x",       f"-g * {_TWO_OVER_SQRT_PI!r} * np.exp(-conj(x) ** 2)")
defjvp(special.erfc,             f"-g * {_TWO_OVER_SQRT_PI!r} * np.exp(-np.square(x, dtype=ans.dtype))", **ELEMENTWISE)
defspecial(special.erfinv,       "x",       f"g * np.exp(conj(ans) ** 2) / {_TWO_OVER_SQRT_PI!r}")
defjvp(special.erfinv,           f"g * np.exp(ans ** 2) / {_TWO_OVER_SQRT_PI!r}", **ELEMENTWISE)
defspecial(special.erfcinv,      "x",       f"-g * np.exp(conj(ans) ** 2) / {_TWO_OVER_SQRT_PI!r}")
defjvp(special.erfcinv,          f"-g * np.exp(ans ** 2) / {_TWO_OVER_SQRT_PI!r}", **ELEMENTWISE)
defspecial(special.ndtr,         "x",       f"g * {1 / _SQRT_2PI!r} * np.exp(-conj(x) ** 2 / 2)")
defjvp(special.ndtr,             f"g * {1 / _SQRT_2PI!r} * np.exp(-np.square(x, dtype=ans.dtype) / 2)", **ELEMENTWISE)
defspecial(special.ndtri,        "y",       f"g * {_SQRT_2PI!r} * np.exp(conj(ans) ** 2 / 2)")
defjvp(special.ndtri,            f"g * {_SQRT_2PI!r} * np.exp(ans ** 2 / 2)", **ELEMENTWISE)
defspecial(special.logit,        "x",       "safe_divide(g, conj(x * (1 - x)))")
defjvp(special.logit,            "safe_divide(g, np.multiply(x, 1 - x, dtype=ans.dtype))", **ELEMENTWISE)
# logarithms that are 0 where x is 0: the slope in y is then 0 too, and the slope in x
# stays finite where both are 0; the reverse side inlined, the forward side cast
defspecial(special.xlogy,        "x, y",    "unbroadcast(g * conj(np.log(np.where(np.equal(x, 0) & np.equal(y, 0), 1, y))), x)",
                                            "unbroadcast(safe_divide(g * conj(x), conj(y)), y)")
defjvp(special.xlogy,            jvp_of_slope(xlogy_slope_x), xlogy_jvp_y, **ELEMENTWISE)
defspecial(special.xlog1py,      "x, y",    "unbroadcast(g * conj(np.log1p(np.where(np.equal(x, 0) & np.equal(y, -1), 0, y))), x)",
                                            "unbroadcast(safe_divide(g * conj(x), conj(1 + y)), y)")
defjvp(special.xlog1py,          jvp_of_slope(xlog1py_slope_x), xlog1py_jvp_y, **ELEMENTWISE)
# reductions (not elementwise: the output has the reduced shape)
defspecial(special.logsumexp,    "a, axis=None, b=None, keepdims=False, return_sign=False",
                                            logsumexp_vjp_a, None, logsumexp_vjp_b)
defjvp(special.logsumexp,        logsumexp_jvp_a, None, logsumexp_jvp_b)
defspecial(special.softmax,      "x, axis=None", softmax_vjp)
defjvp(special.softmax,          "ans * (g - np.sum(ans * g, axis=axis, keepdims=True))")
defspecial(special.log_softmax,  "x, axis=None", log_softmax_vjp)
defjvp(special.log_softmax,      "g - np.sum(np.exp(ans) * g, axis=axis, keepdims=True)")
# piecewise constant
nondifferentiable(special.gammasgn)
rule_for(special.gammasgn).name = "scipy.special.gammasgn"
# gammasgn is nondifferentiable: its forward rule pushes ZERO (see s2sad.registry.forward)
