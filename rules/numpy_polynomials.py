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

``np.roots(p)``: each root ``r`` of ``P(z) = sum p[i] z ** (n - 1 - i)`` moves as implicit
differentiation of ``P(r) = 0`` says, ``dr = -polyval(dp, r) / polyval(polyder(p), r)``: the
cotangent of ``p[i]`` sums ``g`` times the conjugate of ``-r ** (n - 1 - i) / P'(r)`` over the
roots (its real part for real ``p``, whose roots may be complex). Refused where that does not
hold: a repeated root (``P'(r) = 0``; two roots closer than 1e-6 of their size, where NumPy's
eigenvalues are off by the square root of the rounding error anyway), and leading or trailing
zero coefficients (NumPy drops them; moved off zero, a root comes from infinity or leaves 0).

``np.polyfit`` is a least-squares fit (below): differentiated in ``y`` (it is linear there) and
in ``x`` where the fit has full rank; its derivative in ``w`` is refused.
"""
import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp
from s2sad.runtime.structure import tangent_filled
from s2sad.runtime.projection import is_float_like
from s2sad.runtime.tangents import NO_TANGENT

from .helpers import conj, unbroadcast
from .numpy_shapes import as_tangent_of


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


def _distinct_roots(p, roots) -> np.ndarray:
    """The coefficients of ``np.roots(p)``, refused where its roots do not move smoothly with them."""
    coefficients = np.asarray(p)
    if coefficients.ndim != 1:
        raise UnsupportedArgumentsError("np.roots takes a 1-D array or list of coefficients")
    if coefficients.size and (coefficients[0] == 0 or coefficients[-1] == 0):
        raise UnsupportedArgumentsError(
            "np.roots is differentiated for coefficients whose first and last are not 0: NumPy drops leading and "
            "trailing zeros, and moved off zero they give a root from infinity or move one away from 0",
            hint="pass the coefficients without the zeros, and add the roots at 0 yourself")
    roots = np.asarray(roots)
    if roots.size > 1:
        gaps = np.abs(roots[:, None] - roots[None, :]) + np.diag(np.full(roots.size, np.inf))
        scale = np.maximum(1.0, np.maximum(np.abs(roots)[:, None], np.abs(roots)[None, :]))
        if np.any(gaps <= 1e-6 * scale):
            raise UnsupportedArgumentsError(
                "np.roots is differentiated at distinct roots only: two roots here (nearly) coincide, where a root "
                "moves as the square root of a change in the coefficients and has no derivative",
                hint="differentiate at coefficients with distinct roots")
    return coefficients


def roots_vjp(g, ans, p):
    coefficients = _distinct_roots(p, ans)
    slope = np.polyval(_derivative(coefficients), ans)
    weights = -np.asarray(g) * conj(1 / slope)
    sums = np.array([np.sum(weights * conj(power)) for power in _powers(ans, len(coefficients))])
    if isinstance(p, (list, tuple)):
        return type(p)(unbroadcast(value, item) for value, item in zip(sums, p))
    return unbroadcast(sums, coefficients)


def roots_jvp(g, ans, p):
    coefficients = _distinct_roots(p, ans)
    moved = -np.polyval(np.asarray(tangent_filled(g, p)), ans) / np.polyval(_derivative(coefficients), ans)
    return as_tangent_of(moved, ans)


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
    return as_tangent_of(np.polyval(np.asarray(tangent_filled(g, p)), x), ans)  # a list's tangent may hold ZERO for a constant item


def polyval_jvp_x(g, ans, p, x):
    return as_tangent_of(g * np.polyval(_derivative(_coefficients(p)), x), ans)  # the exponents are ints: float64


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
defvjp(np.roots, "p", roots_vjp)
defjvp(np.roots, roots_jvp)
defjvp(np.vander, vander_jvp_x)


# ------------------------------------------------------------------ polyfit
# np.polyfit's coefficients solve the least-squares problem min |W (V c - y)| with V the
# Vandermonde matrix of x and W = diag(w): c = P y, linear in y, with P fixed by x, deg, rcond
# and w (NumPy scales V's columns and solves with lstsq). In y: the tangent is polyfit of the
# tangent; the cotangent is P^T g, P read off by fitting the columns of the identity (P exactly
# as NumPy forms it). In x, where V has full column rank: from the normal equations A c = V^T W^2 y
# (A = V^T W^2 V), dc = A^-1 (dV^T W^2 r - V^T W^2 dV c) with the residual r = y - V c and
# dV = diag(dx) V', V' the column-wise derivative of V. A rank-deficient fit (NumPy warns) moves
# with rcond's cut: refused in x. w, full=True and cov=True (other outputs) are refused.
_POLYFIT = "x, y, deg, rcond=None, full=False, w=None, cov=False"


def _plain_fit(full, cov):
    if full or cov is not False:
        raise UnsupportedArgumentsError("the rule for np.polyfit covers the coefficients only (full=False, cov=False)",
                                        hint="call np.polyfit without full= and cov= to differentiate the coefficients")


def polyfit_vjp_y(g, ans, x, y, deg, rcond, full, w, cov):
    _plain_fit(full, cov)
    fit = np.polyfit(x, np.eye(np.shape(x)[0]), deg, rcond=rcond, w=w)  # P: (deg + 1, n), complex for complex x
    return unbroadcast(np.conj(fit).T @ g, y)


def polyfit_jvp_y(g, ans, x, y, deg, rcond, full, w, cov):
    _plain_fit(full, cov)
    return np.polyfit(x, g, deg, rcond=rcond, w=w)


def _fit_in_x(x, y, deg, rcond, w):
    """The fit's pieces for its derivative in x: V, V', the row weights W^2 (shaped for y's
    columns), A = V^T W^2 V, the coefficients c and the residual r; refused at a rank-deficient fit."""
    if np.iscomplexobj(x):
        raise UnsupportedArgumentsError("no rule for np.polyfit's derivative in complex x (the fit reads V^H: "
                                        "not holomorphic)", hint="fit at real x, or keep x constant")
    x = np.asarray(x, dtype=np.result_type(x, np.float64))
    c = np.polyfit(x, y, deg, rcond=rcond, w=w)
    powers = np.arange(deg, -1, -1)
    vander = x[:, None] ** powers
    # the rank lstsq finds in polyfit: columns scaled to unit length, singular values below rcond
    # times the largest cut (rcond's default as polyfit's)
    lhs = vander if w is None else vander * np.reshape(w, (-1, 1))
    lhs = lhs / np.sqrt(np.sum(lhs * lhs, axis=0))
    rank = np.linalg.matrix_rank(lhs, rtol=len(x) * np.finfo(x.dtype).eps if rcond is None else rcond)
    if rank < deg + 1:
        raise UnsupportedArgumentsError(
            f"np.polyfit's fit of degree {deg} has rank {rank} here (fewer distinct x than coefficients, or rcond "
            "cut a direction): no rule for its derivative in x, which moves with that cut",
            hint="fit a lower degree, or keep x constant")
    slopes = powers * x[:, None] ** np.maximum(powers - 1, 0)
    weights = np.ones_like(x) if w is None else np.asarray(w, dtype=x.dtype) ** 2
    weights = weights if np.ndim(y) == 1 else weights[:, None]
    normal = vander.T @ (np.reshape(weights, (-1, 1)) * vander)
    return vander, slopes, weights, normal, c, np.asarray(y) - vander @ c


def polyfit_vjp_x(g, ans, x, y, deg, rcond, full, w, cov):
    _plain_fit(full, cov)
    vander, slopes, weights, normal, c, residual = _fit_in_x(x, y, deg, rcond, w)
    u = np.conj(np.linalg.solve(normal, g))
    per_point = weights * ((slopes @ u) * residual - (vander @ u) * (slopes @ c))
    per_point = np.real(per_point if np.ndim(per_point) == 1 else np.sum(per_point, axis=1))
    return unbroadcast(per_point, x)


def polyfit_jvp_x(g, ans, x, y, deg, rcond, full, w, cov):
    _plain_fit(full, cov)
    vander, slopes, weights, normal, c, residual = _fit_in_x(x, y, deg, rcond, w)
    moved = np.reshape(g, (-1, 1)) * slopes  # dV
    return np.linalg.solve(normal, moved.T @ (weights * residual) - vander.T @ (weights * (moved @ c)))


def polyfit_refuses_w(g, ans, x, y, deg, rcond, full, w, cov):
    if not is_float_like(w):
        return NO_TANGENT  # integer weights, or none: nothing is differentiated
    raise UnsupportedArgumentsError("no rule for np.polyfit's derivative in `w`",
                                    hint="pass constant weights, or fit with np.linalg.lstsq on np.vander(x, deg + 1) "
                                         "scaled by w, which s2sad differentiates")


defvjp(np.polyfit, _POLYFIT, polyfit_vjp_x, polyfit_vjp_y, None, None, None, polyfit_refuses_w, None)
defjvp(np.polyfit, polyfit_jvp_x, polyfit_jvp_y, None, None, None, polyfit_refuses_w, None)
