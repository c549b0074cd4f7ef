"""Rules for the names NumPy 2 added for the array API: ``np.vecdot``, ``np.matvec``,
``np.vecmat``, ``np.matrix_transpose``, ``np.cumulative_sum``, ``np.cumulative_prod``,
``np.unstack``, and ``numpy.linalg``'s spellings of products it already had (``matmul``,
``outer``, ``tensordot``, ``vecdot``, ``cross``, ``trace``, ``diagonal``, ``matrix_transpose``),
which read the last two axes where ``np.trace`` and ``np.diagonal`` read the first two; and
``np.meshgrid``, an array-API creation function, whose cotangents sum each grid over the axes
its input is repeated along.

Complex input, in the convention of ``np.vdot``'s rule (a cotangent is ``g`` times the
conjugate slope):

* ``vecdot(x1, x2) = sum(conj(x1) * x2)`` along ``axis`` (NumPy conjugates the first
  vector): ``x2``'s cotangent is ``g * x1``, ``x1``'s ``conj(g) * x2``;
* ``matvec(x1, x2) = x1 @ x2`` conjugates nothing: ``g x2^H`` and ``x1^H g``;
* ``vecmat(x1, x2) = conj(x1) @ x2`` conjugates the vector: ``x2 @ conj(g)`` and ``x1 g^T``.

Batch axes broadcast as NumPy broadcasts them; each cotangent is summed back to its
operand's shape (``unbroadcast``). ``axes=`` of these generalised ufuncs is refused by the
signatures (no rule reads it); ``axis=`` and ``keepdims=`` of ``vecdot`` are read.

``cumulative_sum`` and ``cumulative_prod`` are ``cumsum`` and ``cumprod`` (their rules, exact at
zeros: nothing is divided by an element that is 0) with ``include_initial``: the leading 0 or
1 depends on nothing, so its cotangent is dropped and its tangent is 0. Without ``axis`` they
run along the one axis of a 1-D input (a 0-d one is read as 1-D, as NumPy reads it).
"""
import numpy as np

from s2sad.registry import defvjp
from s2sad.registry.forward import LINEAR, defjvp, deflinear
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero

from .helpers import conj, dtype_of, mH, output_parts, unbroadcast
from .numpy_linalg import cross_vjp_a, cross_vjp_b, tensordot_vjp_a, tensordot_vjp_b
from .numpy_reductions import cumsum_vjp
from .numpy_shapes import as_tangent_of, cumprod_jvp, cumprod_vjp, diagonal_vjp, trace_vjp, varargs_tangents

_GUFUNC = "x1, x2, /, out=None, *, dtype=None"
_VECDOT = "x1, x2, /, out=None, *, axis=-1, keepdims=False, dtype=None"
_CUMULATIVE = "x, /, *, axis=None, dtype=None, out=None, include_initial=False"


# ------------------------------------------------------------------ vector products


def _vectors_last(x, axis):
    """``x`` with the axis ``vecdot`` contracts moved last (``axis`` read in ``x``'s own axes, as NumPy reads it)."""
    return np.moveaxis(x, axis, -1)


def _output_along_vectors(g, axis, keepdims):
    """The cotangent of ``vecdot``'s output with a trailing length-1 axis, against the vectors."""
    return np.moveaxis(g, axis, -1) if keepdims else np.expand_dims(g, -1)


def _vector_cotangent(full, x, axis):
    """A cotangent computed with the vectors last, summed to ``x``'s batch shape and put back in its layout."""
    moved = _vectors_last(x, axis)
    return unbroadcast(np.moveaxis(unbroadcast(full, moved), -1, axis), x)


def vecdot_vjp_x1(g, ans, x1, x2, out, axis, keepdims, dtype):
    """``d sum(conj(x1) x2) = sum(conj(dx1) x2)``: ``conj(g) * x2``."""
    if dtype_of(x1).kind not in "fc":
        return NO_TANGENT
    full = conj(_output_along_vectors(g, axis, keepdims)) * _vectors_last(x2, axis)
    return _vector_cotangent(full, x1, axis)


def vecdot_vjp_x2(g, ans, x1, x2, out, axis, keepdims, dtype):
    """``sum(conj(x1) dx2)``: ``g * x1``."""
    if dtype_of(x2).kind not in "fc":
        return NO_TANGENT
    full = _output_along_vectors(g, axis, keepdims) * _vectors_last(x1, axis)
    return _vector_cotangent(full, x2, axis)


def linalg_vecdot_vjp_x1(g, ans, x1, x2, axis):
    return vecdot_vjp_x1(g, ans, x1, x2, None, axis, False, None)


def linalg_vecdot_vjp_x2(g, ans, x1, x2, axis):
    return vecdot_vjp_x2(g, ans, x1, x2, None, axis, False, None)


def matvec_vjp_x1(g, ans, x1, x2, out, dtype):
    """``y_i = sum_j x1_ij x2_j``: ``x1``'s cotangent is the outer product ``g x2^H``."""
    return unbroadcast(np.expand_dims(g, -1) * np.expand_dims(conj(x2), -2), x1)


def matvec_vjp_x2(g, ans, x1, x2, out, dtype):
    """``x1^H g``."""
    return unbroadcast(np.matmul(mH(x1), np.expand_dims(g, -1))[..., 0], x2)


def vecmat_vjp_x1(g, ans, x1, x2, out, dtype):
    """``y_j = sum_i conj(x1_i) x2_ij``: ``x1``'s cotangent is ``x2 @ conj(g)``."""
    return unbroadcast(np.matmul(x2, np.expand_dims(conj(g), -1))[..., 0], x1)


def vecmat_vjp_x2(g, ans, x1, x2, out, dtype):
    """``x1 g^T``: the outer product of the vector and ``g``."""
    return unbroadcast(np.expand_dims(x1, -1) * np.expand_dims(g, -2), x2)


# ------------------------------------------------------------------ cumulative sums and products


def _scan_axis(axis):
    """The output axis a ``cumulative_*`` runs along (without ``axis``, the only one)."""
    return 0 if axis is None else axis


def _without_initial(value, axis, include_initial):
    """``value`` (shaped like the output) without the leading 0 or 1 ``include_initial`` put along ``axis``."""
    if not include_initial:
        return value
    return np.moveaxis(np.moveaxis(value, axis, 0)[1:], 0, axis)


def _with_initial(tangent, axis, include_initial):
    """A tangent of the scan, with the zero tangent of the initial 0 or 1 put back in front."""
    if not include_initial:
        return tangent
    moved = np.moveaxis(tangent, axis, 0)
    initial = np.zeros((1,) + moved.shape[1:], dtype=moved.dtype)
    return np.moveaxis(np.concatenate([initial, moved]), 0, axis)


def cumulative_sum_vjp(g, ans, x, axis, dtype, out, include_initial):
    """``cumsum``'s (the reversed running sum of ``g``), without the initial 0's cotangent."""
    return cumsum_vjp(_without_initial(g, _scan_axis(axis), include_initial), ans, x, axis, dtype, out)


def cumulative_prod_vjp(g, ans, x, axis, dtype, out, include_initial):
    """``cumprod``'s (exact at zeros), without the initial 1."""
    along = _scan_axis(axis)
    return cumprod_vjp(_without_initial(g, along, include_initial), _without_initial(ans, along, include_initial),
                       x, axis, dtype, out)


def cumulative_prod_jvp(g, ans, x, axis, dtype, out, include_initial):
    along = _scan_axis(axis)
    scanned = _without_initial(ans, along, include_initial)
    tangent = cumprod_jvp(g, scanned, x, axis, dtype, out)
    return as_tangent_of(_with_initial(tangent, along, include_initial), ans)


# ------------------------------------------------------------------ unstack: one cotangent per slice


def unstack_vjp(g, ans, x, axis):
    """The slices' cotangents stacked back along ``axis`` (zeros for the slices nobody used)."""
    parts = output_parts(g, len(ans))
    if all(part is ZERO for part in parts):
        return ZERO
    blocks = [np.zeros(np.shape(piece), dtype=piece.dtype) if part is ZERO else part for part, piece in zip(parts, ans)]
    return unbroadcast(np.stack(blocks, axis=axis), x)


# ------------------------------------------------------------------ meshgrid: each input spread along its own axis


def _grid_axis(k, count, indexing):
    """The output axis input ``k`` of ``count`` runs along: ``'xy'`` swaps the first two."""
    return 1 - k if indexing == "xy" and count >= 2 and k < 2 else k


def meshgrid_vjp(g, ans, xi, copy, sparse, indexing):
    """Each grid's cotangent summed over the axes its input is repeated along (one per input)."""
    cotangents = []
    for k, (part, x) in enumerate(zip(output_parts(g, len(xi)), xi)):
        if part is ZERO:
            cotangents.append(ZERO)
            continue
        axis = _grid_axis(k, len(xi), indexing)
        repeated = tuple(ax for ax in range(np.ndim(part)) if ax != axis)
        cotangents.append(unbroadcast(np.reshape(np.sum(part, axis=repeated), np.shape(x)), x))
    return tuple(cotangents)


def meshgrid_jvp(g, ans, xi, copy, sparse, indexing):
    """Each input's tangent spread as the input is."""
    tangents = []
    for k, (t, grid) in enumerate(zip(varargs_tangents(g, xi), ans)):
        if t is None or is_zero(t):
            tangents.append(ZERO)
            continue
        along = [1] * np.ndim(grid)
        along[_grid_axis(k, len(xi), indexing)] = -1
        tangents.append(as_tangent_of(np.broadcast_to(np.reshape(t, along), np.shape(grid)), grid))
    return type(ans)(tangents)


# ------------------------------------------------------------------ numpy.linalg's array-API spellings


def linalg_tensordot_vjp_x1(g, ans, x1, x2, axes):
    return tensordot_vjp_a(g, ans, x1, x2, axes)


def linalg_tensordot_vjp_x2(g, ans, x1, x2, axes):
    return tensordot_vjp_b(g, ans, x1, x2, axes)


def linalg_cross_vjp_x1(g, ans, x1, x2, axis):
    return cross_vjp_a(g, ans, x1, x2, -1, -1, -1, axis)


def linalg_cross_vjp_x2(g, ans, x1, x2, axis):
    return cross_vjp_b(g, ans, x1, x2, -1, -1, -1, axis)


def linalg_trace_vjp(g, ans, x, offset, dtype):
    return trace_vjp(g, ans, x, offset, -2, -1, dtype, None)


def linalg_diagonal_vjp(g, ans, x, offset):
    return diagonal_vjp(g, ans, x, offset, -2, -1)


# ------------------------------------------------------------------ the table
defvjp(np.meshgrid, "*xi, copy=True, sparse=False, indexing='xy'", meshgrid_vjp, None, None, None)
# (NumPy 2.0 brought vecdot, matrix_transpose and numpy.linalg's spellings; 2.1 the cumulative
# scans and unstack; 2.2 matvec and vecmat)
if hasattr(np, "vecdot"):
    defvjp(np.vecdot,           _VECDOT, vecdot_vjp_x1, vecdot_vjp_x2, None, None, None, None)
    defvjp(np.matrix_transpose, "x, /", "unbroadcast(mT(g), x)")
    defvjp(np.linalg.vecdot,    "x1, x2, /, *, axis=-1", linalg_vecdot_vjp_x1, linalg_vecdot_vjp_x2, None)
    defvjp(np.linalg.matmul,    "x1, x2, /", "matmul_vjp_x1(g, x1, x2)", "matmul_vjp_x2(g, x1, x2)")
    defvjp(np.linalg.outer,     "x1, x2, /", "unbroadcast(np.dot(g, conj(np.asarray(x2))), x1)",
                                             "unbroadcast(np.dot(conj(np.asarray(x1)), g), x2)")
    defvjp(np.linalg.tensordot, "x1, x2, /, *, axes=2", linalg_tensordot_vjp_x1, linalg_tensordot_vjp_x2, None)
    defvjp(np.linalg.cross,     "x1, x2, /, *, axis=-1", linalg_cross_vjp_x1, linalg_cross_vjp_x2, None)
    defvjp(np.linalg.trace,     "x, /, *, offset=0, dtype=None", linalg_trace_vjp, None, None)
    defvjp(np.linalg.diagonal,  "x, /, *, offset=0", linalg_diagonal_vjp, None)
    defvjp(np.linalg.matrix_transpose, "x, /", "unbroadcast(mT(g), x)")
if hasattr(np, "cumulative_sum"):
    defvjp(np.cumulative_sum,   _CUMULATIVE, cumulative_sum_vjp, None, None, None, None)
    defvjp(np.cumulative_prod,  _CUMULATIVE, cumulative_prod_vjp, None, None, None, None)
    defvjp(np.unstack,          "x, /, *, axis=0", unstack_vjp, None)
if hasattr(np, "matvec"):
    defvjp(np.matvec,           _GUFUNC, matvec_vjp_x1, matvec_vjp_x2, None, None)
    defvjp(np.vecmat,           _GUFUNC, vecmat_vjp_x1, vecmat_vjp_x2, None, None)

# ---- forward rules: each is linear in every argument it differentiates (vecdot in each
# vector separately: its conjugation of x1 is the tangent's too), but for cumulative_prod
defjvp(np.meshgrid, meshgrid_jvp, None, None, None)
if hasattr(np, "vecdot"):
    defjvp(np.vecdot,           LINEAR, LINEAR, None, None, None, None)
    deflinear(np.matrix_transpose)
    defjvp(np.linalg.vecdot,    LINEAR, LINEAR, None)
    defjvp(np.linalg.matmul,    LINEAR, LINEAR)
    defjvp(np.linalg.outer,     LINEAR, LINEAR)
    defjvp(np.linalg.tensordot, LINEAR, LINEAR, None)
    defjvp(np.linalg.cross,     LINEAR, LINEAR, None)
    deflinear(np.linalg.trace, "x")
    deflinear(np.linalg.diagonal, "x")
    deflinear(np.linalg.matrix_transpose)
if hasattr(np, "cumulative_sum"):
    deflinear(np.cumulative_sum, "x")
    defjvp(np.cumulative_prod,  cumulative_prod_jvp, None, None, None, None)
    deflinear(np.unstack, "x")
if hasattr(np, "matvec"):
    defjvp(np.matvec,           LINEAR, LINEAR, None, None)
    defjvp(np.vecmat,           LINEAR, LINEAR, None, None)
