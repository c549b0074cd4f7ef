"""Rules for ``scipy.special`` (registered only when SciPy imports).

Templates may use ``np`` and ``math`` but not SciPy, so derivatives that need another
special function (``gammaln`` needs ``digamma``) are small vjp functions here.
"""
import math

import numpy as np
from scipy import special

from s2sad.registry import defvjp

from .helpers import expand_reduced, safe_divide, unbroadcast

_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def gamma_vjp(g, ans, x):
    return g * ans * special.digamma(x)


def gammaln_vjp(g, ans, x):
    return g * special.digamma(x)


def digamma_vjp(g, ans, x):
    return g * special.polygamma(1, x)


def polygamma_vjp_x(g, ans, n, x):
    return unbroadcast(g * special.polygamma(n + 1, x), x)


def rgamma_vjp(g, ans, x):
    return -g * ans * special.digamma(x)


def beta_vjp_a(g, ans, a, b):
    return unbroadcast(g * ans * (special.digamma(a) - special.digamma(a + b)), a)


def beta_vjp_b(g, ans, a, b):
    return unbroadcast(g * ans * (special.digamma(b) - special.digamma(a + b)), b)


def betaln_vjp_a(g, ans, a, b):
    return unbroadcast(g * (special.digamma(a) - special.digamma(a + b)), a)


def betaln_vjp_b(g, ans, a, b):
    return unbroadcast(g * (special.digamma(b) - special.digamma(a + b)), b)


def i0_vjp(g, ans, x):
    return g * special.i1(x)


def i1_vjp(g, ans, x):
    # I1' = I0 - I1 / x, where I1(x) / x tends to 1/2 at 0
    ratio = np.where(np.equal(x, 0), 0.5, safe_divide(ans, x))
    return unbroadcast(g * (special.i0(x) - ratio), x)


def j0_vjp(g, ans, x):
    return -g * special.j1(x)


def j1_vjp(g, ans, x):
    return g * (special.j0(x) - special.jv(2, x)) / 2


def y0_vjp(g, ans, x):
    return -g * special.y1(x)


def y1_vjp(g, ans, x):
    return g * (special.y0(x) - special.yv(2, x)) / 2


def _logsumexp_terms(g, ans, a, axis, keepdims, return_sign):
    """``g`` and ``exp(a - ans)``, both broadcast to ``a``'s shape."""
    if return_sign:
        raise NotImplementedError("the rule for logsumexp does not support return_sign=True")
    a = np.asarray(a)
    g_full = np.broadcast_to(expand_reduced(np.asarray(g), a, axis, keepdims), a.shape)
    return g_full, np.exp(a - expand_reduced(np.asarray(ans), a, axis, keepdims))


def logsumexp_vjp_a(g, ans, a, axis, b, keepdims, return_sign):
    g_full, terms = _logsumexp_terms(g, ans, a, axis, keepdims, return_sign)
    return unbroadcast(g_full * terms * (1 if b is None else b), a)


def logsumexp_vjp_b(g, ans, a, axis, b, keepdims, return_sign):
    g_full, terms = _logsumexp_terms(g, ans, a, axis, keepdims, return_sign)
    return unbroadcast(g_full * terms, b)


def softmax_vjp(g, ans, x, axis):
    return unbroadcast(ans * (g - np.sum(g * ans, axis=axis, keepdims=True)), x)


def log_softmax_vjp(g, ans, x, axis):
    return unbroadcast(g - np.exp(ans) * np.sum(g, axis=axis, keepdims=True), x)


def defspecial(function, signature, *vjps):
    """``defvjp`` under the name ``scipy.special.<name>`` (SciPy's ufuncs have no ``__module__``)."""
    return defvjp(function, signature, *vjps, name=f"scipy.special.{function.__name__}")


# ------------------------------------------------------------------ the table
defspecial(special.erf,         "x",      f"g * {_TWO_OVER_SQRT_PI!r} * np.exp(-x ** 2)")
defspecial(special.erfc,        "x",      f"-g * {_TWO_OVER_SQRT_PI!r} * np.exp(-x ** 2)")
defspecial(special.erfinv,      "x",      f"g * np.exp(ans ** 2) / {_TWO_OVER_SQRT_PI!r}")
defspecial(special.erfcinv,     "x",      f"-g * np.exp(ans ** 2) / {_TWO_OVER_SQRT_PI!r}")
defspecial(special.expit,       "x",      "g * ans * (1 - ans)")
defspecial(special.logit,       "x",      "safe_divide(g, x * (1 - x))")
defspecial(special.log_expit,   "x",      "g * (1 - np.exp(ans))")
defspecial(special.ndtr,        "x",      f"g * {1 / math.sqrt(2 * math.pi)!r} * np.exp(-x ** 2 / 2)")
defspecial(special.xlogy,       "x, y",   "unbroadcast(g * np.log(np.where(np.equal(x, 0), 1, y)), x)",
                                          "unbroadcast(safe_divide(g * x, y), y)")
defspecial(special.xlog1py,     "x, y",   "unbroadcast(g * np.log1p(np.where(np.equal(x, 0), 0, y)), x)",
                                          "unbroadcast(safe_divide(g * x, 1 + y), y)")
defspecial(special.gamma,       "x",      gamma_vjp)
defspecial(special.gammaln,     "x",      gammaln_vjp)
defspecial(special.digamma,     "x",      digamma_vjp)  # special.psi is special.digamma
defspecial(special.polygamma,   "n, x",   None, polygamma_vjp_x)
defspecial(special.rgamma,      "x",      rgamma_vjp)
defspecial(special.beta,        "a, b",   beta_vjp_a, beta_vjp_b)
defspecial(special.betaln,      "a, b",   betaln_vjp_a, betaln_vjp_b)
defspecial(special.i0,          "x",      i0_vjp)
defspecial(special.i1,          "x",      i1_vjp)
defspecial(special.j0,          "x",      j0_vjp)
defspecial(special.j1,          "x",      j1_vjp)
defspecial(special.y0,          "x",      y0_vjp)
defspecial(special.y1,          "x",      y1_vjp)
defspecial(special.logsumexp,   "a, axis=None, b=None, keepdims=False, return_sign=False",
                                          logsumexp_vjp_a, None, logsumexp_vjp_b)
defspecial(special.softmax,     "x, axis=None", softmax_vjp)
defspecial(special.log_softmax, "x, axis=None", log_softmax_vjp)
