"""Rules for NumPy functions that move, copy, select or build arrays without arithmetic.

Each cotangent undoes the move: ``reshape`` reshapes back, ``transpose`` applies the
inverse permutation, ``flip`` flips again, selections (``diagonal``, ``triu``, ``sort``)
scatter into zeros, replications (``tile``, ``repeat``, ``broadcast_to``) sum. Functions
taking a sequence of arrays (``concatenate``, ``stack``, ``vstack``, ``hstack``,
``np.array`` of a list) return a list (or tuple) of cotangents, one per element, each with
its element's shape and dtype.
"""
import numpy as np

from s2sad.registry import defvjp

from .helpers import unbroadcast


def _piece_like(piece, like):
    """``piece`` (a block of a cotangent) as the cotangent of one element of a sequence."""
    if type(like) is float:
        return float(np.reshape(piece, ()))
    return unbroadcast(np.reshape(piece, np.shape(like)), like)


def _split_along(g, arrays, axis, sizes):
    pieces = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    cotangents = [_piece_like(piece, like) for piece, like in zip(pieces, arrays)]
    return cotangents if isinstance(arrays, list) else tuple(cotangents)


def concatenate_vjp(g, ans, arrays, axis, out, dtype, casting):
    if axis is None:
        sizes = [np.size(x) for x in arrays]
        return _split_along(np.ravel(g), arrays, 0, sizes)
    return _split_along(g, arrays, axis, [np.shape(x)[axis] for x in arrays])


def stack_vjp(g, ans, arrays, axis, out, dtype, casting):
    pieces = [_piece_like(piece, like) for piece, like in zip(np.moveaxis(g, axis, 0), arrays)]
    return pieces if isinstance(arrays, list) else tuple(pieces)


def vstack_vjp(g, ans, tup, dtype, casting):
    return _split_along(g, tup, 0, [np.shape(np.atleast_2d(x))[0] for x in tup])


def hstack_vjp(g, ans, tup, dtype, casting):
    axis = 0 if np.ndim(ans) == 1 else 1
    return _split_along(g, tup, axis, [np.shape(np.atleast_1d(x))[axis] for x in tup])


def array_vjp(g, ans, obj, *rest):
    """Cotangent of ``np.array(obj)``: the same nesting of lists and tuples as ``obj``."""
    if isinstance(obj, (list, tuple)):
        cotangents = [array_vjp(g[i], None, item) for i, item in enumerate(obj)]
        return cotangents if isinstance(obj, list) else tuple(cotangents)
    return _piece_like(g, obj)


def tile_vjp(g, ans, A, reps):
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    shape = np.shape(A)
    ndim = max(len(shape), len(reps))
    shape = (1,) * (ndim - len(shape)) + shape
    reps = (1,) * (ndim - len(reps)) + reps
    interleaved = [n for pair in zip(reps, shape) for n in pair]
    summed = np.sum(np.reshape(g, interleaved), axis=tuple(range(0, 2 * ndim, 2)))
    return unbroadcast(np.reshape(summed, np.shape(A)), A)


def repeat_vjp(g, ans, a, repeats, axis):
    if axis is None:
        source = np.ravel(a)
        g_source, axis = np.ravel(g), 0
    else:
        source, g_source = np.asarray(a), g
    length = np.shape(source)[axis]
    owner = np.repeat(np.arange(length), repeats)
    moved = np.moveaxis(g_source, axis, 0)
    summed = np.zeros((length,) + moved.shape[1:], dtype=moved.dtype)
    np.add.at(summed, owner, moved)
    return unbroadcast(np.reshape(np.moveaxis(summed, 0, axis), np.shape(a)), a)


def _matrix_positions(rows, cols, offset):
    length = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    start_row, start_col = max(-offset, 0), max(offset, 0)
    return np.arange(length) + start_row, np.arange(length) + start_col


def diag_vjp(g, ans, v, k):
    if np.ndim(v) == 1:
        return unbroadcast(np.diagonal(g, k), v)
    out = np.zeros(np.shape(v), dtype=np.result_type(v))
    rows, cols = _matrix_positions(*np.shape(v), k)
    out[rows, cols] = g
    return unbroadcast(out, v)


def diagonal_vjp(g, ans, a, offset, axis1, axis2):
    out = np.zeros(np.shape(a), dtype=np.result_type(a))
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a view: writes land in out
    rows, cols = _matrix_positions(view.shape[-2], view.shape[-1], offset)
    view[..., rows, cols] = g
    return unbroadcast(out, a)


def trace_vjp(g, ans, a, offset, axis1, axis2, dtype, out):
    shape = np.shape(a)
    eye = np.eye(shape[axis1], shape[axis2], k=offset, dtype=np.result_type(a))
    spread = np.expand_dims(np.asarray(g), (-2, -1)) * eye
    return unbroadcast(np.moveaxis(spread, (-2, -1), (axis1, axis2)), a)


def sort_vjp(g, ans, a, axis, kind, order, stable):
    if axis is None:
        order_ = np.argsort(np.ravel(a), kind="stable")
        out = np.zeros(np.size(a), dtype=np.result_type(a))
        out[order_] = g
        return unbroadcast(np.reshape(out, np.shape(a)), a)
    order_ = np.argsort(a, axis=axis, kind="stable")
    out = np.zeros(np.shape(a), dtype=np.result_type(a))
    np.put_along_axis(out, order_, g, axis=axis)
    return unbroadcast(out, a)


def diff_vjp(g, ans, a, n, axis, prepend, append):
    if prepend is not None or append is not None:
        raise NotImplementedError("the rule for np.diff does not support prepend= or append=")
    for _ in range(n):
        widths = [(0, 0)] * np.ndim(g)
        widths[axis] = (1, 0)
        before = np.pad(g, widths)
        widths[axis] = (0, 1)
        g = before - np.pad(g, widths)
    return unbroadcast(g, a)


def linspace_vjp_start(g, ans, start, stop, num, endpoint, retstep, dtype, axis, device):
    steps = _linspace_fractions(num, endpoint, np.ndim(g), axis)
    return unbroadcast(np.sum(g * (1 - steps), axis=axis), start)


def linspace_vjp_stop(g, ans, start, stop, num, endpoint, retstep, dtype, axis, device):
    steps = _linspace_fractions(num, endpoint, np.ndim(g), axis)
    return unbroadcast(np.sum(g * steps, axis=axis), stop)


def _linspace_fractions(num, endpoint, ndim, axis):
    divisions = (num - 1 if endpoint else num) or 1
    shape = [1] * ndim
    shape[axis] = num
    return np.reshape(np.arange(num) / divisions, shape)


def broadcast_to_vjp(g, ans, array, shape, subok):
    return unbroadcast(g, array)


# ------------------------------------------------------------------ moves and views
defvjp(np.reshape,      "a, shape=None, order='C', *, newshape=None, copy=None",
       "np.reshape(g, np.shape(a), order=order)")
defvjp(np.ravel,        "a, order='C'", "np.reshape(g, np.shape(a), order='F' if order == 'F' else 'C')")
defvjp(np.transpose,    "a, axes=None", "np.transpose(g, inverse_axes(axes, np.ndim(a)))")
defvjp(np.swapaxes,     "a, axis1, axis2", "np.swapaxes(g, axis1, axis2)")
defvjp(np.moveaxis,     "a, source, destination", "np.moveaxis(g, destination, source)")
defvjp(np.squeeze,      "a, axis=None", "np.reshape(g, np.shape(a))")
defvjp(np.expand_dims,  "a, axis", "np.reshape(g, np.shape(a))")
defvjp(np.atleast_1d,   "ary", "np.reshape(g, np.shape(ary))")
defvjp(np.atleast_2d,   "ary", "np.reshape(g, np.shape(ary))")
defvjp(np.atleast_3d,   "ary", "np.reshape(g, np.shape(ary))")
defvjp(np.flip,         "m, axis=None", "np.flip(g, axis)")
defvjp(np.fliplr,       "m", "np.fliplr(g)")
defvjp(np.flipud,       "m", "np.flipud(g)")
defvjp(np.roll,         "a, shift, axis=None", "np.roll(g, np.negative(shift), axis)")
defvjp(np.rot90,        "m, k=1, axes=(0, 1)", "np.rot90(g, -k, axes)")
defvjp(np.copy,         "a, order='K', subok=False", "unbroadcast(g, a)")
defvjp(np.asarray,      "a, dtype=None, order=None, *, device=None, copy=None, like=None", array_vjp)
defvjp(np.array,        "object, dtype=None, *, copy=True, order='K', subok=False, ndmin=0, ndmax=0, like=None",
       array_vjp)
defvjp(np.broadcast_to, "array, shape, subok=False", broadcast_to_vjp)

if hasattr(np, "permute_dims"):  # NumPy >= 2
    defvjp(np.permute_dims, "a, axes=None", "np.transpose(g, inverse_axes(axes, np.ndim(a)))")
    defvjp(np.astype,       "x, dtype, *, copy=True, device=None", "unbroadcast(g, x)")

# ------------------------------------------------------------------ joins and replications
defvjp(np.concatenate,  "arrays, axis=0, out=None, *, dtype=None, casting='same_kind'", concatenate_vjp)
defvjp(np.stack,        "arrays, axis=0, out=None, *, dtype=None, casting='same_kind'", stack_vjp)
defvjp(np.vstack,       "tup, *, dtype=None, casting='same_kind'", vstack_vjp)
defvjp(np.hstack,       "tup, *, dtype=None, casting='same_kind'", hstack_vjp)
defvjp(np.tile,         "A, reps", tile_vjp)
defvjp(np.repeat,       "a, repeats, axis=None", repeat_vjp)

# ------------------------------------------------------------------ selections
defvjp(np.diag,         "v, k=0", diag_vjp)
defvjp(np.diagonal,     "a, offset=0, axis1=0, axis2=1", diagonal_vjp)
defvjp(np.trace,        "a, offset=0, axis1=0, axis2=1, dtype=None, out=None", trace_vjp)
defvjp(np.triu,         "m, k=0", "np.triu(g, k)")
defvjp(np.tril,         "m, k=0", "np.tril(g, k)")
defvjp(np.sort,         "a, axis=-1, kind=None, order=None, *, stable=None", sort_vjp)
defvjp(np.diff,         "a, n=1, axis=-1, prepend=None, append=None", diff_vjp)

# ------------------------------------------------------------------ builders with float inputs
defvjp(np.linspace,     "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None",
       linspace_vjp_start, linspace_vjp_stop)
defvjp(np.full,         "shape, fill_value, dtype=None, order='C', *, device=None, like=None",
       None, "unbroadcast(np.sum(g), fill_value)")
defvjp(np.full_like,    "a, fill_value, dtype=None, order='K', subok=True, shape=None, *, device=None",
       None, "unbroadcast(np.sum(g), fill_value)")
