"""Rules for ``scipy.linalg`` (registered once the user imports ``scipy.linalg``).

Every solve ``x = M^-1 b`` has the same two cotangents: ``db = M^-H g`` (a solve with the
conjugate transposed matrix), and ``dM = -db x^H``. What differs is how ``M`` is stored, and each
rule takes ``dM`` back to the storage it read:

* ``solve_triangular`` reads one triangle of ``a`` (not its diagonal either, with
  ``unit_diagonal``): the other entries get a zero cotangent;
* ``cho_solve`` reads the Cholesky factor ``c`` of ``M = L L^H``: ``dL = (dM + dM^H) L``,
  in ``c``'s triangle; the cotangent of ``(c, lower)`` is ``(dc, NO_TANGENT)``;
* ``cholesky`` reads one triangle of ``a`` (the lower one with ``lower``) as
  ``numpy.linalg.cholesky`` does, whose rules it shares; so does the factor of ``cho_factor``,
  whose other triangle is ``a``'s own, passed through. ``overwrite_a=True`` is refused;
* ``solve_banded`` reads the band of ``ab`` (LAPACK's diagonal ordered form): padding
  entries outside the matrix get 0.

Matrix functions: ``solve_sylvester``'s ``X`` solves ``A X + X B = Q``, and its cotangents
come from one more Sylvester equation with the conjugate transposes, ``A^H Y + Y B^H = G``:
``dQ = Y``, ``dA = -Y X^H``, ``dB = -X^H Y``. Given an empty ``a`` or ``b``, SciPy solves nothing and
returns uninitialised memory of ``q``'s shape: refused, unless ``q`` is empty too. ``sqrtm`` is the same equation with
``A = B = sqrtm(M)`` (from ``S S = M``; a real M with a complex root gets the real part),
and ``expm``'s cotangent is the Frechet derivative of ``expm`` at ``M^H`` in the direction
of the cotangent; ``expm`` also for stacks of matrices. Real and complex matrices alike. ``lu_factor``'s factors
move with A but have no rule: a derivative of them is refused (differentiate ``solve``).

Forward rules: a solve's tangent is ``dx = M^-1 (db - dM x)``, with ``dM`` read from the
tangent of the matrix's storage the way the function reads the matrix (one triangle,
the band, ``dL L^H + L dL^H`` from a Cholesky factor). ``solve_sylvester``'s is one more
Sylvester equation with the same matrices, ``A dX + dX B = dQ - dA X - X dB``; ``sqrtm``'s
solves ``S dS + dS S = dM``; ``expm``'s is its Frechet derivative at ``M`` in the tangent's
direction. These also hold for complex matrices (``trans='C'`` included). Tangents are
solved with ``overwrite_b=False``; a call setting an ``overwrite_*`` flag is refused (registry.bound_to_rule):
the argument, read after, would hold what SciPy wrote into it.
"""
import numpy as np
from scipy import linalg

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import defjvp
from s2sad.registry import defvjp
from s2sad.runtime.tangents import NO_TANGENT, ZERO

from .helpers import conj, mH, mT, output_parts, unbroadcast
from .numpy_linalg import cholesky_jvp, cholesky_vjp
from .refusals import defrefused


def _as_columns(b, a):
    """``b`` as a stack of column blocks (a vector right-hand side gains an axis)."""
    b = np.asarray(b)
    return b[..., None] if b.ndim == np.ndim(a) - 1 else b


def _from_columns(v, b):
    return v[..., 0] if np.ndim(b) == np.ndim(v) - 1 else v


# ------------------------------------------------------------------ solve_triangular
_TRANS_NAMES = {0: "N", 1: "T", 2: "C", "N": "N", "T": "T", "C": "C"}


def _triangular_db(g, ans, a, trans, lower, unit_diagonal):
    """``M^-H g``, M the matrix solved with (A, A^T or A^H: ``trans``)."""
    trans = _TRANS_NAMES[trans]
    if trans == "T":  # M^H = conj(A)
        return conj(linalg.solve_triangular(a, conj(g), trans="N", lower=lower, unit_diagonal=unit_diagonal))
    return linalg.solve_triangular(a, g, trans="C" if trans == "N" else "N", lower=lower, unit_diagonal=unit_diagonal)


def solve_triangular_vjp_a(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b, check_finite):
    db = _as_columns(_triangular_db(g, ans, a, trans, lower, unit_diagonal), a)
    dm = -(db @ mH(_as_columns(ans, a)))
    trans = _TRANS_NAMES[trans]
    da = dm if trans == "N" else mT(dm) if trans == "T" else mH(dm)
    # only the triangle is read (and not the diagonal if unit_diagonal): the rest gets 0
    da = np.tril(da, -1 if unit_diagonal else 0) if lower else np.triu(da, 1 if unit_diagonal else 0)
    return unbroadcast(da, a)


def solve_triangular_vjp_b(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b, check_finite):
    return unbroadcast(_triangular_db(g, ans, a, trans, lower, unit_diagonal), b)


# ------------------------------------------------------------------ cho_solve
def cho_solve_vjp_c(g, ans, c_and_lower, b, overwrite_b, check_finite):
    c, lower = c_and_lower
    db = _as_columns(linalg.cho_solve(c_and_lower, g), c)
    dm = -(db @ mH(_as_columns(ans, c)))
    symmetric = dm + mH(dm)
    factor = _triangle(c, lower)  # cho_factor leaves other entries in the triangle cho_solve does not read
    dc = np.tril(symmetric @ factor) if lower else np.triu(factor @ symmetric)
    return unbroadcast(dc, c), NO_TANGENT


def cho_solve_vjp_b(g, ans, c_and_lower, b, overwrite_b, check_finite):
    return unbroadcast(linalg.cho_solve(c_and_lower, g), b)


# ------------------------------------------------------------------ solve_banded
def _band_transposed(lower_width, upper_width, ab):
    """The diagonal ordered form of A^T, given that of A (bandwidths swap)."""
    ab = np.asarray(ab)
    n = ab.shape[1]
    transposed = np.zeros_like(ab)
    for d in range(-upper_width, lower_width + 1):          # d = i - j: the d-th subdiagonal of A
        if d >= 0:
            transposed[lower_width - d, d:] = ab[upper_width + d, :n - d]
        else:
            transposed[lower_width - d, :n + d] = ab[upper_width + d, -d:]
    return transposed


def _banded_db(g, l_and_u, ab):
    lower_width, upper_width = l_and_u
    return linalg.solve_banded((upper_width, lower_width), conj(_band_transposed(lower_width, upper_width, ab)), g)  # A^H


def solve_banded_vjp_ab(g, ans, l_and_u, ab, b, overwrite_ab, overwrite_b, check_finite):
    lower_width, upper_width = l_and_u
    db = _banded_db(g, l_and_u, ab).reshape(len(ans), -1)
    x = np.asarray(ans).reshape(len(ans), -1)
    n = np.shape(ab)[1]
    dab = np.zeros(np.shape(ab), dtype=np.result_type(db, x))
    for d in range(-upper_width, lower_width + 1):           # entry (j + d, j) of A sits at ab[u + d, j]
        if d >= 0:
            dab[upper_width + d, :n - d] = -np.sum(db[d:] * conj(x[:n - d]), axis=1)
        else:
            dab[upper_width + d, -d:] = -np.sum(db[:n + d] * conj(x[-d:]), axis=1)
    return unbroadcast(dab, ab)


def solve_banded_vjp_b(g, ans, l_and_u, ab, b, overwrite_ab, overwrite_b, check_finite):
    return unbroadcast(_banded_db(g, l_and_u, ab), b)


# ------------------------------------------------------------------ Sylvester equations and matrix functions
def _sylvester_adjoint(g, a, b):
    """Y with A^H Y + Y B^H = G."""
    return linalg.solve_sylvester(mH(np.asarray(a)), mH(np.asarray(b)), g)


def unsolved_sylvester(a, b, q) -> bool:
    """Whether SciPy skipped the solve: given an empty ``a`` or ``b`` it returns ``np.empty``
    of ``q``'s shape (SciPy 1.17), unchecked. An empty result has nothing to differentiate
    (True: every derivative is zero); a non-empty one is uninitialised memory, not a function
    of the arguments: refused."""
    if np.size(a) and np.size(b):
        return False
    if np.size(q):
        raise UnsupportedArgumentsError(
            f"scipy.linalg.solve_sylvester with a {np.shape(a)} a and a {np.shape(b)} b returns uninitialised "
            f"memory of q's shape {np.shape(q)} (SciPy solves nothing when a or b is empty): it has no derivative",
            hint="pass square matrices a (M x M) and b (N x N) with q of shape (M, N)")
    return True


def solve_sylvester_vjp_a(g, ans, a, b, q):
    if unsolved_sylvester(a, b, q):
        return ZERO
    return unbroadcast(-(_sylvester_adjoint(g, a, b) @ mH(ans)), a)


def solve_sylvester_vjp_b(g, ans, a, b, q):
    if unsolved_sylvester(a, b, q):
        return ZERO
    return unbroadcast(-(mH(ans) @ _sylvester_adjoint(g, a, b)), b)


def solve_sylvester_vjp_q(g, ans, a, b, q):
    if unsolved_sylvester(a, b, q):
        return ZERO
    return unbroadcast(_sylvester_adjoint(g, a, b), q)


def sqrtm_vjp(g, ans, A):
    refuse_scalar_matrix(A, "sqrtm")
    return unbroadcast(_sylvester_adjoint(g, ans, ans), A)  # a real A's cotangent: the real part


def expm_vjp(g, ans, A):
    refuse_scalar_matrix(A, "expm")
    a, g = np.asarray(A, dtype=np.result_type(A, np.float64)), np.asarray(g)
    if a.ndim == 2:
        return unbroadcast(linalg.expm_frechet(mH(a), g, compute_expm=False), A)
    shape = np.broadcast_shapes(a.shape, g.shape)
    a, g = np.broadcast_to(a, shape).reshape(-1, *shape[-2:]), np.broadcast_to(g, shape).reshape(-1, *shape[-2:])
    cotangents = [linalg.expm_frechet(mH(one), cotangent, compute_expm=False) for one, cotangent in zip(a, g)]
    return unbroadcast(np.reshape(cotangents, shape), A)


def _factor_and_rest(c, lower):
    """``cho_factor``'s ``c``: the Cholesky factor in one triangle (diagonal included), and what
    LAPACK left of ``a`` in the other (strictly), which ``c`` carries unchanged."""
    factor = np.tril(c) if lower else np.triu(c)
    return factor, c - factor


def refuse_overwrite(overwrite_a, name):
    """``overwrite_a=True`` may leave the factor in the differentiated matrix, which other code reads."""
    if overwrite_a:
        raise UnsupportedArgumentsError(f"scipy.linalg.{name}(..., overwrite_a=True) may write the factor into "
                                        "the differentiated matrix", hint="leave overwrite_a=False")


def refuse_scalar_matrix(a, name):
    """SciPy reads a number (0-d or 1-element 1-D) as a 1 x 1 matrix in these functions, and
    ``sqrtm`` of one returns its *exponential* (SciPy 1.17): no rule for a number."""
    if np.ndim(a) < 2:
        raise UnsupportedArgumentsError(f"the rule for scipy.linalg.{name} covers matrices (at least 2-D), "
                                        f"not a {np.ndim(a)}-D argument"
                                        + (" (for which SciPy's sqrtm returns exp(a))" if name == "sqrtm" else ""),
                                        hint="pass a matrix, or use np.sqrt / np.exp for a number")


def cholesky_scipy_vjp(g, ans, a, lower, overwrite_a, check_finite):
    """``np.linalg.cholesky``'s rule: SciPy's upper factor by default, read from the upper triangle."""
    refuse_scalar_matrix(a, "cholesky")
    refuse_overwrite(overwrite_a, "cholesky")
    return cholesky_vjp(g, ans, a, not lower)


def cho_factor_vjp_a(g, ans, a, lower, overwrite_a, check_finite):
    """The factor is ``np.linalg.cholesky`` of the triangle of ``a`` LAPACK reads; the other
    triangle of ``c`` is ``a``'s own, passed through."""
    refuse_scalar_matrix(a, "cho_factor")
    refuse_overwrite(overwrite_a, "cho_factor")
    (g_c, _) = output_parts(g, 2)                                # the flag `lower` has no cotangent
    if g_c is ZERO:
        return ZERO
    factor, _ = _factor_and_rest(ans[0], lower)
    g_factor, g_rest = _factor_and_rest(np.asarray(g_c), lower)
    return unbroadcast(cholesky_vjp(g_factor, factor, a, not lower) + g_rest, a)


def deflinalg(function, signature, *vjps):
    return defvjp(function, signature, *vjps, name=f"scipy.linalg.{function.__name__}")


# ------------------------------------------------------------------ the table
SOLVE_FLAGS = "overwrite_b=False, check_finite=True"
deflinalg(linalg.solve_triangular, f"a, b, trans=0, lower=False, unit_diagonal=False, {SOLVE_FLAGS}",
          solve_triangular_vjp_a, solve_triangular_vjp_b)
deflinalg(linalg.cho_solve,        f"c_and_lower, b, {SOLVE_FLAGS}", cho_solve_vjp_c, cho_solve_vjp_b)
deflinalg(linalg.cho_factor,       "a, lower=False, overwrite_a=False, check_finite=True", cho_factor_vjp_a)
deflinalg(linalg.cholesky,         "a, lower=False, overwrite_a=False, check_finite=True", cholesky_scipy_vjp)
deflinalg(linalg.solve_banded,     f"l_and_u, ab, b, overwrite_ab=False, {SOLVE_FLAGS}",
          None, solve_banded_vjp_ab, solve_banded_vjp_b)
deflinalg(linalg.solve_sylvester,  "a, b, q", solve_sylvester_vjp_a, solve_sylvester_vjp_b, solve_sylvester_vjp_q)
deflinalg(linalg.sqrtm,            "A", sqrtm_vjp)
deflinalg(linalg.expm,             "A", expm_vjp)
defrefused(linalg.lu_factor, "a, overwrite_a=False, check_finite=True", ("a",), "scipy.linalg.lu_factor",
           "differentiate solve (or scipy.linalg.solve) instead of lu_factor and lu_solve",
           name="scipy.linalg.lu_factor")


# ------------------------------------------------------------------ jvps
def _like_output(term, ans):
    term = np.asarray(term)
    return term if term.dtype == np.asarray(ans).dtype else term.astype(np.asarray(ans).dtype)


def _mH(a):
    return np.conjugate(mT(a)) if np.iscomplexobj(a) else mT(a)


def _triangle(g, lower, unit_diagonal=False):
    """The part of a tangent a triangular solve reads: one triangle, without the diagonal if unit."""
    g = np.asarray(g)
    return np.tril(g, -1 if unit_diagonal else 0) if lower else np.triu(g, 1 if unit_diagonal else 0)


def solve_triangular_jvp_a(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b, check_finite):
    da = _triangle(g, lower, unit_diagonal)
    op_da = {0: da, "N": da, 1: mT(da), "T": mT(da), 2: _mH(da), "C": _mH(da)}[trans]
    rhs = -(op_da @ _as_columns(ans, a))
    dx = linalg.solve_triangular(a, rhs, trans=trans, lower=lower, unit_diagonal=unit_diagonal)
    return _like_output(_from_columns(dx, ans), ans)


def solve_triangular_jvp_b(g, ans, a, b, trans, lower, unit_diagonal, overwrite_b, check_finite):
    return _like_output(linalg.solve_triangular(a, g, trans=trans, lower=lower, unit_diagonal=unit_diagonal), ans)


def cho_solve_jvp_c(g, ans, c_and_lower, b, overwrite_b, check_finite):
    (dc, _) = output_parts(g, 2)                                # the flag `lower` has no tangent
    if dc is ZERO:
        return ZERO
    c, lower = c_and_lower
    factor, dfactor = _triangle(c, lower), _triangle(dc, lower)
    # M = L L^H (lower) or U^H U (upper)
    dm = dfactor @ _mH(factor) + factor @ _mH(dfactor) if lower else _mH(dfactor) @ factor + _mH(factor) @ dfactor
    dx = linalg.cho_solve(c_and_lower, -(dm @ _as_columns(ans, c)))
    return _like_output(_from_columns(dx, ans), ans)


def cholesky_scipy_jvp(g, ans, a, lower, overwrite_a, check_finite):
    refuse_scalar_matrix(a, "cholesky")
    refuse_overwrite(overwrite_a, "cholesky")
    return cholesky_jvp(g, ans, a, not lower)


def cho_factor_jvp_a(g, ans, a, lower, overwrite_a, check_finite):
    refuse_scalar_matrix(a, "cho_factor")
    refuse_overwrite(overwrite_a, "cho_factor")
    factor, _ = _factor_and_rest(ans[0], lower)
    d_factor = cholesky_jvp(g, factor, a, not lower)
    _, d_rest = _factor_and_rest(np.asarray(g), lower)
    return (_like_output(d_factor + d_rest, ans[0]), NO_TANGENT)


def cho_solve_jvp_b(g, ans, c_and_lower, b, overwrite_b, check_finite):
    return _like_output(linalg.cho_solve(c_and_lower, g), ans)


def _band_times(l_and_u, dab, x):
    """``dA @ x`` for the band matrix stored in ``dab`` (entry (j + d, j) at ``dab[u + d, j]``)."""
    lower_width, upper_width = l_and_u
    x = np.asarray(x)
    n = np.shape(dab)[1]
    columns = x.reshape(n, -1)
    product = np.zeros(columns.shape, dtype=np.result_type(dab, columns))
    for d in range(-upper_width, lower_width + 1):
        row = dab[upper_width + d]
        if d >= 0:
            product[d:] += row[:n - d, None] * columns[:n - d]
        else:
            product[:n + d] += row[-d:, None] * columns[-d:]
    return product.reshape(x.shape)


def solve_banded_jvp_ab(g, ans, l_and_u, ab, b, overwrite_ab, overwrite_b, check_finite):
    return _like_output(-linalg.solve_banded(l_and_u, ab, _band_times(l_and_u, np.asarray(g), ans)), ans)


def solve_banded_jvp_b(g, ans, l_and_u, ab, b, overwrite_ab, overwrite_b, check_finite):
    return _like_output(linalg.solve_banded(l_and_u, ab, g), ans)


def _solve_sylvester(a, b, q):
    """``solve_sylvester`` in one dtype: SciPy 1.17 solves A X + X B = Q wrongly for a complex
    ``a`` and a real ``b`` (a real tangent meets a complex matrix here)."""
    dtype = np.result_type(a, b, q)
    return linalg.solve_sylvester(np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype), np.asarray(q, dtype=dtype))


def solve_sylvester_jvp_a(g, ans, a, b, q):
    if unsolved_sylvester(a, b, q):
        return np.zeros_like(ans)
    return _like_output(_solve_sylvester(a, b, -(g @ ans)), ans)


def solve_sylvester_jvp_b(g, ans, a, b, q):
    if unsolved_sylvester(a, b, q):
        return np.zeros_like(ans)
    return _like_output(_solve_sylvester(a, b, -(ans @ g)), ans)


def solve_sylvester_jvp_q(g, ans, a, b, q):
    if unsolved_sylvester(a, b, q):
        return np.zeros_like(ans)
    return _like_output(_solve_sylvester(a, b, g), ans)


def sqrtm_jvp(g, ans, A):
    refuse_scalar_matrix(A, "sqrtm")
    tangent = _solve_sylvester(ans, ans, g)
    return _like_output(np.real(tangent) if not np.iscomplexobj(ans) else tangent, ans)


def expm_jvp(g, ans, A):
    """The Frechet derivative as the upper right block of ``expm([[A, dA], [0, A]])``: written
    with ``expm`` itself (not ``expm_frechet``), so that a Hessian differentiates it again."""
    refuse_scalar_matrix(A, "expm")
    shape = np.broadcast_shapes(np.shape(A), np.shape(g))
    a = np.broadcast_to(np.asarray(A, dtype=np.result_type(A, g, np.float64)), shape)
    g = np.broadcast_to(np.asarray(g, dtype=a.dtype), shape)
    n = shape[-1]
    block = np.concatenate([np.concatenate([a, g], axis=-1),
                            np.concatenate([np.zeros(shape, dtype=a.dtype), a], axis=-1)], axis=-2)
    return _like_output(linalg.expm(block)[..., :n, n:], ans)


# ---- forward rules
defjvp(linalg.solve_triangular, solve_triangular_jvp_a, solve_triangular_jvp_b)
defjvp(linalg.cho_solve,        cho_solve_jvp_c, cho_solve_jvp_b)
defjvp(linalg.cho_factor,       cho_factor_jvp_a, None, None, None)
defjvp(linalg.cholesky,         cholesky_scipy_jvp, None, None, None)
defjvp(linalg.solve_banded,     None, solve_banded_jvp_ab, solve_banded_jvp_b)
defjvp(linalg.solve_sylvester,  solve_sylvester_jvp_a, solve_sylvester_jvp_b, solve_sylvester_jvp_q)
defjvp(linalg.sqrtm,            sqrtm_jvp)
defjvp(linalg.expm,             expm_jvp)
