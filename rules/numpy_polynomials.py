"""Rules for ``np.polyval(p, x)``, the polynomial ``p[0] x**(n-1) + ... + p[-1]``, and for
``np.vander(x, N, increasing)``, the matrix of the powers of ``x`` (NumPy's own Python code,
which s2sad does not read: library code is differentiated by rules).

The polynomial is holomorphic in ``x`` and linear in ``p``: the cotangent of ``x`` is ``g``
times the conjugate of the derivative ``polyval(polyder(p), x)``; that of ``p[i]`` is the sum of
``g`` times the conjugate of ``x ** (n - 1 - i)``. The tangent in ``p`` is ``polyval`` of the
tangent. The rule covers a 1-D ``p`` (a sequence of coefficients); a 2-D ``p`` (one polynomial
per column) and ``np.poly1d`` are refused.

``np.vander`` is holomorphic too: column ``j`` holds ``x ** e_j``, whose slope is
``e_j * x ** (e_j - 1)`` (zero for the constant column, at ``x = 0`` too); the cotangent of
``x`` sums ``g`` times the conjugate slope along each row, the tangent is the slope times it.

``np.polyfit`` is a least-squares fit, linear in ``y`` (below): differentiated in ``y``; its
derivatives in ``x`` and ``w`` are refused.
"""
import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp
from s2sad.runtime.structure import tangent_filled
from s2sad.runtime.projection import is_float_like
from s2sad.runtime.tangents import NO_TANGENT

from .helpers import conj, unbroadcast


def _coefficients(p) -> np.ndarray:
    if isinstance(p, np.poly1d) or np.ndim(p) != 1:
        raise UnsupportedArgumentsError("the rule for np.polyval covers a 1-D array or list of coefficients only")
    return np.asarray(p)


def _powers(x, count: int) -> list:
    """``x ** (count - 1), ..., x, 1``: the monomials the coefficients multiply, in their order."""
    powers = [np.ones_like(np.asarray(x))]
    for _ in range(count - 1):
        powers.append(powers[-1] * x)
    return powers[::-1]


def _derivative(coefficients: np.ndarray) -> np.ndarray:
    """``np.polyder(coefficients)`` written with operations that have rules, so that the forward
    rule can be differentiated again (second order)."""
    return coefficients[:-1] * np.arange(len(coefficients) - 1, 0, -1)


def polyval_vjp_p(g, ans, p, x):
    coefficients = _coefficients(p)
    g = np.asarray(g)
    sums = np.array([np.sum(g * conj(power)) for power in _powers(x, len(coefficients))])
    if isinstance(p, (list, tuple)):
        return type(p)(unbroadcast(value, item) for value, item in zip(sums, p))
    return unbroadcast(sums, coefficients)


def polyval_vjp_x(g, ans, p, x):
    return unbroadcast(g * conj(np.polyval(_derivative(_coefficients(p)), x)), x)


def polyval_jvp_p(g, ans, p, x):
    _coefficients(p)
    return np.polyval(np.asarray(tangent_filled(g, p)), x)  # a list's tangent may hold ZERO for a constant item


def polyval_jvp_x(g, ans, p, x):
    return g * np.polyval(_derivative(_coefficients(p)), x)


def _vander_slope(x, N, increasing):
    """``d vander(x, N, increasing) / dx`` row by row: ``e * x ** max(e - 1, 0)`` for the exponents
    ``e`` of the columns, written with operations that have rules (second order)."""
    count = len(x) if N is None else N
    exponents = np.arange(count) if increasing else np.arange(count - 1, -1, -1)
    return exponents * np.asarray(x)[:, None] ** np.maximum(exponents - 1, 0)


def vander_vjp_x(g, ans, x, N, increasing):
    return unbroadcast(np.sum(g * conj(_vander_slope(x, N, increasing)), axis=1), x)


def vander_jvp_x(g, ans, x, N, increasing):
    return np.asarray(g)[:, None] * _vander_slope(x, N, increasing)


defvjp(np.polyval, "p, x", polyval_vjp_p, polyval_vjp_x)
defjvp(np.polyval, polyval_jvp_p, polyval_jvp_x)
defvjp(np.vander, "x, N=None, increasing=False", vander_vjp_x)
defjvp(np.vander, vander_jvp_x)


# ------------------------------------------------------------------ polyfit: linear in y
# np.polyfit's coefficients are a least-squares solution c = P y, with P fixed by x, deg,
# rcond and w (NumPy scales the Vandermonde columns and solves with lstsq). The tangent is
# polyfit of the tangent (the same P); the cotangent is P^T g, with P read off by fitting the
# columns of the identity (P exactly as NumPy forms it). x and w move P: refused, as are
# full=True and cov=True (residuals, rank, singular values, covariance: other outputs).
_POLYFIT = "x, y, deg, rcond=None, full=False, w=None, cov=False"


def _plain_fit(full, cov):
    if full or cov is not False:
        raise UnsupportedArgumentsError("the rule for np.polyfit covers the coefficients only (full=False, cov=False)",
                                        hint="call np.polyfit without full= and cov= to differentiate the coefficients")


def polyfit_vjp_y(g, ans, x, y, deg, rcond, full, w, cov):
    _plain_fit(full, cov)
    fit = np.polyfit(x, np.eye(np.shape(x)[0]), deg, rcond=rcond, w=w)  # P: (deg + 1, n)
    return unbroadcast(fit.T @ g, y)


def polyfit_jvp_y(g, ans, x, y, deg, rcond, full, w, cov):
    _plain_fit(full, cov)
    return np.polyfit(x, g, deg, rcond=rcond, w=w)


def _refused_in(name):
    def refused(g, ans, x, y, deg, rcond, full, w, cov):
        if not is_float_like(x if name == "x" else w):
            return NO_TANGENT  # integer knots or weights, or no weights: nothing is differentiated
        raise UnsupportedArgumentsError(f"no rule for np.polyfit's derivative in `{name}` (it moves the least-squares "
                                        "matrix)", hint=f"pass a constant `{name}`, or fit with np.linalg.lstsq on "
                                                        "np.vander(x, deg + 1), which s2sad differentiates")
    refused.__name__ = refused.__qualname__ = f"polyfit_refuses_{name}"
    return refused


defvjp(np.polyfit, _POLYFIT, _refused_in("x"), polyfit_vjp_y, None, None, None, _refused_in("w"), None)
defjvp(np.polyfit, _refused_in("x"), polyfit_jvp_y, None, None, None, _refused_in("w"), None)
