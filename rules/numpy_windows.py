"""Rules for NumPy's window functions.

``np.hanning(M)``, ``hamming``, ``blackman`` and ``bartlett`` take only the integer length:
constants (no rule is needed, nothing differentiable reaches them). ``np.kaiser(M, beta)``
moves with ``beta``: with ``alpha = (M - 1) / 2`` and ``r_n = sqrt(1 - ((n - alpha) / alpha)**2)``,
``w_n = I0(beta r_n) / I0(beta)``, so ``dw_n / dbeta = (r_n I1(beta r_n) - w_n I1(beta)) / I0(beta)``
(``I0' = I1``). NumPy has ``I0`` (``np.i0``) but not ``I1``: it is summed from its power series,
written with array arithmetic so that a second derivative differentiates it again. NumPy
refuses a complex ``beta`` (``np.i0`` has no complex loop). ``np.i0`` itself has the rule
``I0' = I1`` here too (the kaiser rule's second derivative calls it).
"""
import numpy as np

from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp

from .helpers import unbroadcast

_SERIES_TERMS = 90  # all terms positive; enough for beta r below ~60 (I0(60) ~ 1e25; past ~700 it overflows)


def bessel_i1(x):
    """The modified Bessel function I1 (an odd function) by ``sum_k (x/2)**(2k+1) / (k! (k+1)!)``."""
    half = x / 2
    term = half
    total = half
    for k in range(1, _SERIES_TERMS):
        term = term * half * half / (k * (k + 1))
        total = total + term
    return total


def kaiser_slope(M, beta):
    """``dw / dbeta`` for each of the M points (zeros for M <= 1: NumPy returns ones(M) there)."""
    if M <= 1:
        return np.zeros(max(int(M), 0)) * beta
    n = np.arange(0, M)
    alpha = (M - 1) / 2.0
    r = np.sqrt(1 - ((n - alpha) / alpha) ** 2)
    peak = np.i0(beta)
    return (r * bessel_i1(beta * r) - np.i0(beta * r) / peak * bessel_i1(beta)) / peak


def kaiser_vjp_beta(g, ans, M, beta):
    return unbroadcast(np.sum(g * kaiser_slope(M, beta)), beta)


def kaiser_jvp_beta(g, ans, M, beta):
    return kaiser_slope(M, beta) * g


def i0_vjp(g, ans, x):
    return unbroadcast(g * bessel_i1(x), x)


def i0_jvp(g, ans, x):
    return bessel_i1(x) * g


defvjp(np.i0, "x", i0_vjp)
defjvp(np.i0, i0_jvp)
defvjp(np.kaiser, "M, beta", None, kaiser_vjp_beta)
defjvp(np.kaiser, None, kaiser_jvp_beta)
