"""Numba overloads of the compiled helpers for linear algebra past a matrix and a vector: ``@``
of stacks of matrices (3-d arrays, attention's ``q @ k.transpose(0, 2, 1)``), and the
cotangents of ``np.linalg.solve``, ``np.linalg.slogdet``, ``np.linalg.cholesky`` and ``np.diag`` of a
real matrix (the rules' own
functions, rules/numpy_linalg.py, which Numba cannot compile: ``for_numba`` imports these in
their place), computed as those compute them, with Numba's LAPACK calls in place of NumPy's.

Like those of ``compiled_helpers`` (generated code finds every helper in ``compiled_overloads``),
each overload serves the types it names and returns no
implementation for others, and a case met only at run time that it does not cover raises
``NotCompiledCase``: the NumPy path computes that call.
"""
import numpy as np

from numba.core import types

from .compiled_basics import NotCompiledCase, absent, compiled_only, real, real_array
from .compiled_helpers import matmul_otherwise, matmul_vjp_x1, matmul_vjp_x2_otherwise, overload, register_jitable

__all__ = ["slogdet_vjp_a", "solve_vjp_a", "solve_vjp_b", "cholesky_vjp_a", "diag_vjp_v"]


# ---------------------------------------------------------------------------- @ of stacks of matrices
# NumPy's ``x1 @ x2`` of 3-d arrays is a stack of products of matrices, the stacks' sizes
# broadcast (a matrix, or a stack of one, is used for each); each product here is Numba's (BLAS,
# as NumPy's), and the cotangent of an operand used for several products is their sum, in the
# stack's order, as the NumPy path's ``unbroadcast`` sums it.

def _stacked(x1, x2) -> bool:
    """Operands of ``@`` these overloads compute: real arrays of one dtype, each a matrix or a
    stack of them, one a stack at least (matrices and vectors alone are compiled_helpers')."""
    return real_array(x1) and real_array(x2) and x1.dtype == x2.dtype and x1.ndim in (2, 3) \
        and x2.ndim in (2, 3) and 3 in (x1.ndim, x2.ndim)


_matrix_at, _stack_size = map(compiled_only, ("_matrix_at", "_stack_size"))


@overload(_matrix_at)
def _matrix_at_overload(x, k):
    """The ``k``-th matrix of the stack ``x`` (its only one where it holds one: it broadcasts),
    or ``x`` itself, a matrix; a view, which a cotangent is added into."""
    if x.ndim == 3:
        return lambda x, k: x[k if x.shape[0] != 1 else 0]
    return lambda x, k: x


@overload(_stack_size)
def _stack_size_overload(x):
    if x.ndim == 3:
        return lambda x: x.shape[0]
    return lambda x: 1


@register_jitable
def _products(x1, x2):
    """How many products ``x1 @ x2`` makes: the stacks' sizes broadcast; sizes NumPy refuses go
    to the NumPy path, which raises its error."""
    n1, n2 = _stack_size(x1), _stack_size(x2)
    if x1.shape[-1] != x2.shape[-2]:
        raise NotCompiledCase("matrices multiplied whose sizes do not match")
    if n1 == n2 or n2 == 1:
        return n1
    if n1 == 1:
        return n2
    raise NotCompiledCase("stacks of matrices whose sizes do not broadcast")


@overload(matmul_otherwise)
def _numpy_matmul_stacked(x1, x2):
    if not _stacked(x1, x2):
        return None

    def stacked(x1, x2):
        n = _products(x1, x2)
        out = np.empty((n, x1.shape[-2], x2.shape[-1]), x1.dtype)
        for k in range(n):
            out[k] = _matrix_at(x1, k) @ _matrix_at(x2, k)
        return out
    return stacked


@register_jitable
def _summed_over_products(out, g, x1, x2, first):
    """The cotangent of ``x1`` (``first``: ``g @ x2.T`` for each product) or of ``x2`` (``x1.T @ g``)
    in ``x1 @ x2`` of stacks, added into ``out``, zeros of its shape: summed where it served several."""
    if g.shape[0] != _products(x1, x2) or g.shape[1] != x1.shape[-2] or g.shape[2] != x2.shape[-1]:
        raise NotCompiledCase("a cotangent of a product of stacks of another shape")
    for k in range(g.shape[0]):
        if first:
            _matrix_at(out, k)[:, :] += _matrix_at(g, k) @ _matrix_at(x2, k).T
        else:
            _matrix_at(out, k)[:, :] += _matrix_at(x1, k).T @ _matrix_at(g, k)
    return out


def _served_cotangent(g, x1, x2) -> bool:
    return _stacked(x1, x2) and real_array(g) and g.ndim == 3 and g.dtype == x1.dtype


@overload(matmul_vjp_x1)
def _matmul_vjp_x1_stacked(g, x1, x2):
    if _served_cotangent(g, x1, x2):
        return lambda g, x1, x2: _summed_over_products(np.zeros(x1.shape, x1.dtype), g, x1, x2, True)
    return None


@overload(matmul_vjp_x2_otherwise)
def _matmul_vjp_x2_stacked(g, x1, x2):
    if _served_cotangent(g, x1, x2):
        return lambda g, x1, x2: _summed_over_products(np.zeros(x2.shape, x2.dtype), g, x1, x2, False)
    return None


# ---------------------------------------------------------------------------- np.linalg.solve and slogdet
slogdet_vjp_a, solve_vjp_a, solve_vjp_b = map(compiled_only, ("slogdet_vjp_a", "solve_vjp_a", "solve_vjp_b"))


def _float64_matrix(t) -> bool:
    """A float64 matrix (a float32 one finds no implementation: its calls take the NumPy path,
    whose LAPACK routines for float32 these are not checked against)."""
    return real_array(t) and t.ndim == 2 and t.dtype == types.float64


def _solved(g, ans, a, b) -> bool:
    """The operands of ``solve``'s cotangents these compute: ``a`` a float64 matrix (no stacks),
    ``b``, ``ans`` and ``g`` float64 arrays alike, vectors or matrices."""
    return _float64_matrix(a) and real_array(b) and b.ndim in (1, 2) and b.dtype == types.float64 \
        and real_array(ans) and ans.ndim == b.ndim and real_array(g) and g.ndim == b.ndim \
        and g.dtype == types.float64


@register_jitable
def _solved_transposed(a, g):
    """``solve(a.T, g)``: the cotangent of ``b`` in ``solve(a, b)``, with ``g`` shaped like its answer."""
    if g.shape[0] != a.shape[0]:
        raise NotCompiledCase("a cotangent of a solve of another shape")
    return np.linalg.solve(a.T, g)


@overload(solve_vjp_b)
def _solve_vjp_b(g, ans, a, b):
    if _solved(g, ans, a, b):
        return lambda g, ans, a, b: _solved_transposed(a, g)
    return None


@overload(solve_vjp_a)
def _solve_vjp_a(g, ans, a, b):
    """The cotangent of ``a`` in ``x = solve(a, b)``: ``-solve(a.T, g) @ x.T`` (an outer product
    for vectors)."""
    if not _solved(g, ans, a, b):
        return None
    if b.ndim == 1:
        return lambda g, ans, a, b: -np.outer(_solved_transposed(a, g), ans)
    return lambda g, ans, a, b: -(_solved_transposed(a, g) @ ans.T)


@overload(slogdet_vjp_a)
def _slogdet_vjp_a(g, ans, a):
    """The cotangent of a real ``a`` in ``sign, logabsdet = slogdet(a)``: that of ``logabsdet``
    times ``inv(a).T`` (``sign``'s moves nothing for a real matrix)."""
    if not (_float64_matrix(a) and isinstance(g, types.BaseTuple) and len(g) == 2 and real(g[1])):
        return None
    return lambda g, ans, a: g[1] * np.linalg.inv(a).T


# ---------------------------------------------------------------------------- np.linalg.cholesky and np.diag
cholesky_vjp_a, diag_vjp_v = map(compiled_only, ("cholesky_vjp_a", "diag_vjp_v"))


@overload(cholesky_vjp_a)
def _cholesky_vjp_a(g, ans, a, upper=False):
    """The cotangent of ``a`` in ``L = cholesky(a)`` (the lower factor, as Numba's cholesky gives
    alone): Murray (2016), ``L^-T Phi(L^T g) L^-1`` with Phi the lower triangle, its diagonal
    halved, onto the lower triangle NumPy reads (rules/numpy_linalg.cholesky_vjp's steps)."""
    lower = absent(upper) or isinstance(upper, types.BooleanLiteral) and not upper.literal_value
    if not (lower and _float64_matrix(a) and _float64_matrix(ans) and _float64_matrix(g)):
        return None

    def murray(g, ans, a, upper=False):
        n = ans.shape[0]
        if g.shape != ans.shape or a.shape != ans.shape:
            raise NotCompiledCase("a cotangent of a Cholesky factor of another shape")
        inner = ans.T @ g
        phi = np.tril(inner) - 0.5 * np.eye(n) * inner
        left = np.linalg.solve(ans.T, phi)
        s = np.linalg.solve(ans.T, left.T).T
        both = s + s.T
        return np.tril(both, -1) + np.diag(np.diag(s))
    return murray


@overload(diag_vjp_v)
def _diag_vjp_v(g, ans, v, k=0):
    """The cotangent of the float64 matrix ``v`` in ``np.diag(v, k)``: ``g`` on that diagonal,
    zeros elsewhere."""
    if not (_float64_matrix(v) and real_array(g) and g.ndim == 1 and g.dtype == types.float64
            and (absent(k) or isinstance(k, types.Integer))):
        return None

    def onto_diagonal(g, ans, v, k=0):
        rows, cols = v.shape
        start_row, start_col = max(-k, 0), max(k, 0)
        length = max(0, min(rows - start_row, cols - start_col))
        if g.size != length:
            raise NotCompiledCase("a diagonal's cotangent of another length")
        out = np.zeros(v.shape)
        for i in range(length):
            out[start_row + i, start_col + i] = g[i]
        return out
    return onto_diagonal
