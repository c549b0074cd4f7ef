"""Rules for NumPy functions that move, copy, select or build arrays without arithmetic.

Each cotangent undoes the move: ``reshape`` reshapes back, ``transpose`` applies the
inverse permutation, ``flip`` flips again, selections (``diagonal``, ``triu``, ``sort``,
``partition``, ``take_along_axis``, ``take``) scatter into zeros, replications (``tile``, ``repeat``,
``broadcast_to``, ``pad``) sum. Functions taking a sequence of arrays (``concatenate``,
``stack``, ``vstack``, ``hstack``, ``np.array`` of a list) return a list (or tuple) of
cotangents, one per element, each with its element's shape and dtype; functions returning
a list of arrays (``split`` and its kin, ``gradient``) take a list or tuple of cotangents
in which unused pieces may be ZERO (see ``helpers.output_parts``).

Also here, as stencils and scans that fit no other table: ``np.gradient``, ``cumprod``
and ``average``.

Conventions:

* ``sort`` and ``partition``: elements that tie may be told apart in any order; each
  output slot's cotangent goes to one element holding that value.
* ``pad``: every mode but ``'empty'`` and a callable. ``'maximum'``/``'minimum'`` share
  the cotangent of a padded value equally among the tied extremes of the statistic's
  window (like ``np.max``); ``'median'`` gives it to the middle element (half to each of
  the two middle ones for an even window). Corners are what NumPy makes them: it pads one
  axis after another, each from the array padded so far, and the rule walks the axes
  back in reverse. ``constant_values`` and ``end_values`` get cotangents too (as keyword
  arguments: generated code asks for them, ``check_rrule`` does not).
* ``gradient``: the spacing arguments are differentiable, scalars and coordinate arrays
  alike; coordinates are differentiated through NumPy's non-uniform formulas even when
  they happen to be evenly spaced (NumPy then takes its uniform branch, whose values are
  the same).
* ``cumprod`` is exact at zeros: nothing is divided by an element that is 0, and where ``x``
  holds one the rules run step by step (``running_products``), so that their own derivatives
  (``hvp``, ``hessian``) are exact there too.
"""
import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import LINEAR, defjvp, deflinear
from s2sad.registry import defvjp
from s2sad.runtime.tangents import NO_TANGENT, ZERO

from .helpers import conj, dtype_of, expand_reduced, no_tangent_kind, output_parts, reduced_count, unbroadcast
from .running_products import running_product_cotangent, running_product_tangent


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


def dstack_vjp(g, ans, tup):
    """Third-axis blocks back to their arrays (each was made at least 3-d: ``(n,)`` -> ``(1, n, 1)``,
    ``(m, n)`` -> ``(m, n, 1)``, which keeps its elements' order)."""
    return _split_along(g, tup, 2, [np.shape(np.atleast_3d(x))[2] for x in tup])


def compress_vjp(g, ans, condition, a, axis, out):
    """``g`` put back where ``condition`` was true (a shorter condition leaves the rest out), zeros elsewhere."""
    shape = np.shape(a)
    kept = np.flatnonzero(condition)
    out = np.zeros((int(np.prod(shape)),) if axis is None else shape, dtype=np.result_type(dtype_of(a), g))
    if axis is None:
        out[kept] = g
    else:
        np.moveaxis(out, axis, 0)[kept] = np.moveaxis(np.asarray(g), axis, 0)
    return unbroadcast(np.reshape(out, shape), a)


def extract_vjp(g, ans, condition, arr):
    """``np.extract(condition, arr)`` is ``np.compress`` of both flattened."""
    return compress_vjp(g, ans, np.ravel(condition), arr, None, None)


def choose_vjp(g, ans, a, choices, out, mode):
    """Each choice gets the cotangent where ``a`` (as ``mode`` reads it) picked it."""
    picked = np.asarray(a)
    if mode == "wrap":
        picked = np.mod(picked, len(choices))
    elif mode == "clip":
        picked = np.clip(picked, 0, len(choices) - 1)
    cotangents = [unbroadcast(np.where(picked == k, g, 0), choice) for k, choice in enumerate(choices)]
    return cotangents if isinstance(choices, list) else tuple(cotangents)


def append_vjp_arr(g, ans, arr, values, axis):
    if axis is None:
        return unbroadcast(np.reshape(np.ravel(g)[:np.size(arr)], np.shape(arr)), arr)
    return unbroadcast(np.take(g, np.arange(np.shape(arr)[axis]), axis=axis), arr)


def append_vjp_values(g, ans, arr, values, axis):
    if axis is None:
        return unbroadcast(np.reshape(np.ravel(g)[np.size(arr):], np.shape(values)), values)
    return unbroadcast(np.take(g, np.arange(np.shape(arr)[axis], np.shape(g)[axis]), axis=axis), values)


def column_stack_vjp(g, ans, tup):
    """Columns back to their arrays: a 1-D array was one column, a 2-D array its own columns."""
    widths = [1 if np.ndim(x) < 2 else np.shape(x)[1] for x in tup]
    pieces = np.split(g, np.cumsum(widths)[:-1], axis=1)
    cotangents = [unbroadcast(np.reshape(piece, np.shape(x)), x) for piece, x in zip(pieces, tup)]
    return cotangents if isinstance(tup, list) else tuple(cotangents)


def select_vjp(g, ans, condlist, choicelist, default):
    """Each choice gets the cotangent where it was the first condition true; the rest goes to default."""
    taken = np.zeros(np.shape(ans), dtype=bool)
    cotangents = []
    for condition, choice in zip(condlist, choicelist):
        here = np.asarray(condition) & ~taken
        cotangents.append(unbroadcast(np.where(here, g, 0), choice))
        taken = taken | here
    return cotangents if isinstance(choicelist, list) else tuple(cotangents)


def select_vjp_default(g, ans, condlist, choicelist, default):
    taken = np.zeros(np.shape(ans), dtype=bool)
    for condition in condlist:
        taken = taken | np.asarray(condition)
    return unbroadcast(np.where(taken, 0, g), default)


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
    out = np.zeros(np.shape(v), dtype=dtype_of(v))
    rows, cols = _matrix_positions(*np.shape(v), k)
    out[rows, cols] = g
    return unbroadcast(out, v)


def diagonal_vjp(g, ans, a, offset, axis1, axis2):
    out = np.zeros(np.shape(a), dtype=dtype_of(a))
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a view: writes land in out
    rows, cols = _matrix_positions(view.shape[-2], view.shape[-1], offset)
    view[..., rows, cols] = g
    return unbroadcast(out, a)


def trace_vjp(g, ans, a, offset, axis1, axis2, dtype, out):
    shape = np.shape(a)
    eye = np.eye(shape[axis1], shape[axis2], k=offset, dtype=dtype_of(a))
    spread = np.expand_dims(np.asarray(g), (-2, -1)) * eye
    return unbroadcast(np.moveaxis(spread, (-2, -1), (axis1, axis2)), a)


def sort_vjp(g, ans, a, axis, kind, order, stable):
    if axis is None:
        order_ = np.argsort(np.ravel(a), kind="stable")
        out = np.zeros(np.size(a), dtype=dtype_of(a))
        out[order_] = g
        return unbroadcast(np.reshape(out, np.shape(a)), a)
    order_ = np.argsort(a, axis=axis, kind="stable")
    out = np.zeros(np.shape(a), dtype=dtype_of(a))
    np.put_along_axis(out, order_, g, axis=axis)
    return unbroadcast(out, a)


def _diff_joined_cotangent(g, n, axis):
    """The cotangent of the array np.diff differences: ``a`` with its prepend= and append= ends joined."""
    for _ in range(n):
        widths = [(0, 0)] * np.ndim(g)
        widths[axis] = (1, 0)
        before = np.pad(g, widths)
        widths[axis] = (0, 1)
        g = before - np.pad(g, widths)
    return g


def _diff_slices(joined, axis, start, stop):
    """``joined[start:stop]`` along ``axis``."""
    index = [slice(None)] * np.ndim(joined)
    index[axis] = slice(start, stop)
    return joined[tuple(index)]


def _diff_end_size(end, a, axis):
    """How many slices an end puts next to ``a``: a 0-d one is broadcast to one slice, as np.diff does."""
    if end is None:
        return 0
    return 1 if np.ndim(end) == 0 else np.shape(end)[axis]


def diff_vjp(g, ans, a, n, axis, prepend, append):
    if n == 0:
        return unbroadcast(g, a)  # np.diff gives `a` back, its ends unread
    joined = _diff_joined_cotangent(g, n, axis)
    before = _diff_end_size(prepend, a, axis)
    part = _diff_slices(joined, axis, before, before + np.shape(a)[axis])
    return unbroadcast(part, a)


def diff_vjp_prepend(g, ans, a, n, axis, prepend, append):
    if n == 0:
        return ZERO
    return unbroadcast(_diff_slices(_diff_joined_cotangent(g, n, axis), axis, 0, _diff_end_size(prepend, a, axis)), prepend)


def diff_vjp_append(g, ans, a, n, axis, prepend, append):
    if n == 0:
        return ZERO
    joined = _diff_joined_cotangent(g, n, axis)
    start = np.shape(joined)[axis] - _diff_end_size(append, a, axis)
    return unbroadcast(_diff_slices(joined, axis, start, np.shape(joined)[axis]), append)


def _ediff1d_lengths(ary, to_begin):
    """How many slots of np.ediff1d's output its ``to_begin`` holds, and how many its differences."""
    begin = 0 if to_begin is None else np.size(to_begin)
    return begin, max(np.size(ary) - 1, 0)


def ediff1d_vjp_ary(g, ans, ary, to_end, to_begin):
    begin, between = _ediff1d_lengths(ary, to_begin)
    if np.size(ary) == 0:
        return array_vjp(np.zeros(np.shape(ary), dtype=np.asarray(g).dtype), None, ary)
    # the flattened ``ary``'s cotangent: each difference pulls its later element up and its earlier one down
    flat = _diff_joined_cotangent(np.ravel(g)[begin:begin + between], 1, 0)
    return array_vjp(np.reshape(flat, np.shape(ary)), None, ary)


def ediff1d_vjp_to_end(g, ans, ary, to_end, to_begin):
    if to_end is None:
        return NO_TANGENT
    begin, between = _ediff1d_lengths(ary, to_begin)
    return array_vjp(np.reshape(np.ravel(g)[begin + between:], np.shape(to_end)), None, to_end)


def ediff1d_vjp_to_begin(g, ans, ary, to_end, to_begin):
    if to_begin is None:
        return NO_TANGENT
    return array_vjp(np.reshape(np.ravel(g)[:np.size(to_begin)], np.shape(to_begin)), None, to_begin)


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


def broadcast_arrays_vjp(g, ans, args, subok):
    """Each array's cotangent summed back over what broadcasting added (one per argument)."""
    return tuple(unbroadcast(part, like) for part, like in zip(output_parts(g, len(args)), args))


def broadcast_arrays_jvp(g, ans, args, subok):
    """Each tangent broadcast as its array is (ZERO for an array without one)."""
    return tuple(ZERO if t is ZERO or t is None else np.broadcast_to(t, np.shape(out))
                 for t, out in zip(varargs_tangents(g, args), ans))


def _cotangent_like(v, like):
    """``v`` (an array) as the cotangent of ``like``, which may be a nested tuple or list of numbers."""
    if isinstance(like, (list, tuple)):
        return type(like)(_cotangent_like(item_v, item) for item_v, item in zip(v, like))
    return unbroadcast(v, like)


def _along(vector, axis, ndim):
    """A 1-D array shaped to broadcast along ``axis`` of an ``ndim``-dimensional array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(vector, shape)


# ------------------------------------------------------------------ kron


def _kron_grid(g, a, b):
    """``g`` reshaped to (a0, b0, a1, b1, ...), and the shapes of a and b padded to one ndim."""
    a_shape, b_shape = np.shape(a), np.shape(b)
    ndim = max(len(a_shape), len(b_shape))
    a_shape = (1,) * (ndim - len(a_shape)) + a_shape
    b_shape = (1,) * (ndim - len(b_shape)) + b_shape
    return np.reshape(g, [n for pair in zip(a_shape, b_shape) for n in pair]), a_shape, b_shape


def kron_vjp_a(g, ans, a, b):
    grid, a_shape, b_shape = _kron_grid(g, a, b)
    ndim = len(a_shape)
    partial = np.tensordot(grid, conj(np.reshape(b, b_shape)), axes=(list(range(1, 2 * ndim, 2)), list(range(ndim))))
    return unbroadcast(np.reshape(partial, np.shape(a)), a)


def kron_vjp_b(g, ans, a, b):
    grid, a_shape, b_shape = _kron_grid(g, a, b)
    ndim = len(a_shape)
    partial = np.tensordot(grid, conj(np.reshape(a, a_shape)), axes=(list(range(0, 2 * ndim, 2)), list(range(ndim))))
    return unbroadcast(np.reshape(partial, np.shape(b)), b)


# ------------------------------------------------------------------ pad

_PAD_LINEAR = ("edge", "linear_ramp", "reflect", "symmetric", "wrap")  # and "constant", the simplest
_PAD_STATISTICS = ("maximum", "minimum", "mean", "median")


def _pad_pairs(value, ndim):
    """A (before, after) pair per axis, read as ``np.pad`` reads ``pad_width`` and ``stat_length``."""
    if value is None:
        return [(None, None)] * ndim
    if isinstance(value, dict):
        pairs = [(0, 0)] * ndim
        for axis, width in value.items():
            pairs[axis] = (width, width) if np.ndim(width) == 0 else tuple(width)
        return pairs
    value = np.round(np.asarray(value)).astype(np.intp)
    if value.size == 1:
        return [(int(value.ravel()[0]),) * 2] * ndim
    if value.size == 2 and value.shape != (2, 1):
        return [tuple(value.ravel().tolist())] * ndim
    return [tuple(pair) for pair in np.broadcast_to(value, (ndim, 2)).tolist()]


def _check_pad_mode(mode):
    if callable(mode) or mode not in ("constant",) + _PAD_LINEAR + _PAD_STATISTICS:
        raise UnsupportedArgumentsError(f"no rule for np.pad with mode={mode!r}: 'empty' pads with garbage, "
                                  "and a callable mode is not differentiated")


def _pad_weights(n, before, after, mode, reflect_type):
    """How the padded values along one axis of length n combine the n originals (linear modes).

    Returns (weights, sources): the padded values, ``before`` then ``after`` of them, are
    ``weights @ x[sources]``. Found by padding unit vectors, so it is NumPy's own
    arithmetic (odd reflections, the legacy edge-padding of a length-1 axis included).
    Only elements near the ends can reach the padding: when both ends' reaches fit in the
    axis, a short stand-in made of those elements is padded instead of the whole axis.
    """
    reach = 1 if mode in ("edge", "linear_ramp") else max(before, after) + 1
    if 2 * reach <= n:
        sources = np.concatenate([np.arange(reach), np.arange(n - reach, n)])
    else:
        sources = np.arange(n)
    options = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
    unit = np.eye(len(sources))
    padded = np.pad(unit, [(before, after), (0, 0)], mode=mode, **options)
    return np.concatenate([padded[:before], padded[before + len(sources):]]), sources


def _statistic_share(window, g, mode):
    """The cotangent of ``window`` (axis 0 reduced) when its statistic received ``g``."""
    m = window.shape[0]
    if mode == "mean":
        return np.broadcast_to(g / m, window.shape)
    if mode in ("maximum", "minimum"):
        extreme = np.max(window, axis=0) if mode == "maximum" else np.min(window, axis=0)
        winners = np.equal(window, extreme)
        return np.where(winners, g / np.sum(winners, axis=0), 0)
    order = np.argsort(window, axis=0, kind="stable")
    middle = order[(m - 1) // 2: m // 2 + 1]  # one index for an odd window, two for an even one
    share = np.zeros(window.shape, dtype=np.result_type(window, g))
    np.put_along_axis(share, middle, np.broadcast_to(g / len(middle), middle.shape), axis=0)
    return share


def pad_vjp_array(g, ans, array, pad_width, mode, stat_length, constant_values, end_values, reflect_type):
    _check_pad_mode(mode)
    x = np.asarray(array)
    if x.dtype.kind not in "fc" or x.ndim == 0:
        return unbroadcast(g, array)
    widths = _pad_pairs(pad_width, x.ndim)
    lengths = _pad_pairs(stat_length, x.ndim)
    if x.size == 0:
        return unbroadcast(np.zeros(x.shape), array)
    g = np.asarray(g)
    # np.pad pads axis 0, then axis 1 of the result, and so on: undo them last to first
    for axis in reversed(range(x.ndim)):
        before, after = widths[axis]
        if before == 0 and after == 0:
            continue
        n = x.shape[axis]
        moved = np.moveaxis(g, axis, 0)
        inner = np.array(moved[before:before + n])
        if mode in _PAD_LINEAR:
            weights, sources = _pad_weights(n, before, after, mode, reflect_type)
            outer = np.concatenate([moved[:before], moved[before + n:]])
            inner[sources] += np.tensordot(weights.T, outer, axes=1)
        elif mode in _PAD_STATISTICS:
            # the statistic reads the array as padded so far: earlier axes done, this one not yet
            so_far = np.pad(x, [width if ax < axis else (0, 0) for ax, width in enumerate(widths)],
                            mode=mode, stat_length=stat_length)
            so_far = np.moveaxis(so_far, axis, 0)
            for count, side, at_start in ((lengths[axis][0], moved[:before], True),
                                          (lengths[axis][1], moved[before + n:], False)):
                if len(side) == 0:
                    continue
                count = n if count is None else min(count, n)
                window = slice(0, count) if at_start else slice(n - count, n)
                inner[window] += _statistic_share(so_far[window], np.sum(side, axis=0), mode)
        g = np.moveaxis(inner, 0, axis)
    return unbroadcast(g, array)


def _pad_values_vjp(g, array, pad_width, mode, keyword, values):
    """Cotangent of ``constant_values``/``end_values``: np.pad is linear in them on a zero array."""
    given = np.asarray(values)
    if given.dtype.kind != "f":
        return NO_TANGENT
    shape = np.shape(array)
    ndim = len(shape)
    if given.size == 1 or ndim == 0:
        unit = np.pad(np.zeros(shape), pad_width, mode=mode, **{keyword: 1.0})
        total = np.sum(g * unit)
        return _cotangent_like(np.full(given.shape, total), values)
    per_side = np.zeros((ndim, 2))
    for axis in range(ndim):
        for side in (0, 1):
            one_hot = np.zeros((ndim, 2))
            one_hot[axis, side] = 1.0
            per_side[axis, side] = np.sum(g * np.pad(np.zeros(shape), pad_width, mode=mode, **{keyword: one_hot}))
    if given.size == 2 and given.shape != (2, 1):
        reduced = np.reshape(np.sum(per_side, axis=0), given.shape)
    else:
        reduced = unbroadcast(per_side, np.zeros(given.shape))
    return _cotangent_like(reduced, values)


def pad_vjp_constant_values(g, ans, array, pad_width, mode, stat_length, constant_values, end_values, reflect_type):
    if mode != "constant":
        return ZERO
    return _pad_values_vjp(g, array, pad_width, mode, "constant_values", constant_values)


def pad_vjp_end_values(g, ans, array, pad_width, mode, stat_length, constant_values, end_values, reflect_type):
    if mode != "linear_ramp":
        return ZERO
    return _pad_values_vjp(g, array, pad_width, mode, "end_values", end_values)


# ------------------------------------------------------------------ partition, take_along_axis, rollaxis


def partition_vjp(g, ans, a, kth, axis, kind, order):
    """Slot j of the output holds the element of ``a`` with the same rank: match both by sorting."""
    x = np.asarray(a)
    if axis is None:
        x, g, ans, axis = np.ravel(x), np.ravel(g), np.ravel(ans), 0
    sources = np.argsort(x, axis=axis, kind="stable")
    slots = np.argsort(ans, axis=axis, kind="stable")
    out = np.zeros(x.shape, dtype=np.result_type(x, g))
    np.put_along_axis(out, sources, np.take_along_axis(np.asarray(g), slots, axis=axis), axis=axis)
    return unbroadcast(np.reshape(out, np.shape(a)), a)


def take_along_axis_vjp(g, ans, arr, indices, axis):
    if g is NO_TANGENT or no_tangent_kind(dtype_of(arr)):
        return NO_TANGENT  # ints taken out of ints (the count of a running max, differentiated again)
    shape = np.shape(arr)
    if axis is None:
        shape, axis = (int(np.prod(shape)),), 0
    axis %= len(shape)
    index = tuple(indices if dim == axis else _along(np.arange(n), dim, len(shape)) for dim, n in enumerate(shape))
    out = np.zeros(shape, dtype=np.result_type(arr, g))
    np.add.at(out, index, g)  # an index taken twice gets both cotangents
    return unbroadcast(np.reshape(out, np.shape(arr)), arr)


def _taken_positions(indices, n, mode):
    """The positions ``np.take`` reads along an axis of length ``n``: negative indices count
    from the end; ``mode='wrap'`` wraps, ``'clip'`` clamps to the ends (what NumPy reads)."""
    index = np.asarray(indices)
    if mode == "wrap":
        return np.mod(index, n)
    if mode == "clip":
        return np.clip(index, 0, n - 1)
    return np.where(index < 0, index + n, index)


def take_vjp(g, ans, a, indices, axis, out, mode):
    """``g`` scattered back into zeros shaped like ``a``; an index taken twice gets both cotangents."""
    shape = np.shape(a)
    length = int(np.prod(shape)) if axis is None else shape[axis]
    positions = _taken_positions(indices, length, mode)
    out = np.zeros((length,) if axis is None else shape, dtype=np.result_type(dtype_of(a), g))
    if axis is None:
        np.add.at(out, positions, g)
    else:
        axis %= len(shape)  # the index's axes sit where `axis` was in the output: move both to the front
        front = np.moveaxis(np.asarray(g), list(range(axis, axis + positions.ndim)), list(range(positions.ndim)))
        np.add.at(np.moveaxis(out, axis, 0), positions, front)
    return unbroadcast(np.reshape(out, shape), a)


def _rollaxis_order(ndim, axis, start):
    """The axes permutation ``np.rollaxis(a, axis, start)`` applies (NumPy's own reading of start)."""
    axis %= ndim
    start = start + ndim if start < 0 else start
    if axis < start:
        start -= 1
    order = [ax for ax in range(ndim) if ax != axis]
    order.insert(start, axis)
    return order


def rollaxis_vjp(g, ans, a, axis, start):
    return np.transpose(g, np.argsort(_rollaxis_order(np.ndim(a), axis, start)))


# ------------------------------------------------------------------ splits: one cotangent per piece, some ZERO


def _join_pieces(g, pieces, ary, axis):
    parts = output_parts(g, len(pieces))
    if all(part is ZERO for part in parts):
        return ZERO
    blocks = [np.zeros(np.shape(piece), dtype=piece.dtype) if part is ZERO else part
              for part, piece in zip(parts, pieces)]
    return unbroadcast(np.concatenate(blocks, axis=axis), ary)


def split_vjp(g, ans, ary, indices_or_sections, axis):
    return _join_pieces(g, ans, ary, axis)


def hsplit_vjp(g, ans, ary, indices_or_sections):
    return _join_pieces(g, ans, ary, 1 if np.ndim(ary) > 1 else 0)


def vsplit_vjp(g, ans, ary, indices_or_sections):
    return _join_pieces(g, ans, ary, 0)


def dsplit_vjp(g, ans, ary, indices_or_sections):
    return _join_pieces(g, ans, ary, 2)


# ------------------------------------------------------------------ np.gradient


def _gradient_spacings(varargs, count):
    """One spacing (a scalar or a coordinate array) per differentiated axis, as np.gradient reads them."""
    if len(varargs) == 0:
        return [1.0 for _ in range(count)]
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:  # (a comprehension, not [h] * count: hvp differentiates this)
        return [varargs[0] for _ in range(count)]
    return list(varargs)


def _gradient_blocks(steps, edge_order):
    """np.gradient along one axis as blocks of rows (``steps[i]`` = x[i+1] - x[i], float64).

    Each block is (rows, left, right, terms): ``rows`` the outputs it makes, ``left`` and
    ``right`` the slices of ``steps`` its formulas use, and ``terms`` a list of
    (input slice, coefficient, d coefficient/d left step, d coefficient/d right step),
    the coefficients being arrays over the block's rows.
    """
    n = len(steps) + 1
    hs, hd = steps[:-1], steps[1:]
    s = hs + hd
    # (built as list displays, not with .append: the forward rule's code is differentiated again for hvp)
    interior = (slice(1, n - 1), slice(0, n - 2), slice(1, n - 1), [
        (slice(0, n - 2), -hd / (hs * s), hd * (2 * hs + hd) / (hs ** 2 * s ** 2), -1 / s ** 2),
        (slice(1, n - 1), (hd - hs) / (hs * hd), -1 / hs ** 2, 1 / hd ** 2),
        (slice(2, n), hs / (hd * s), 1 / s ** 2, -hs * (hs + 2 * hd) / (hd ** 2 * s ** 2)),
    ])
    if edge_order == 1:
        return [interior] + [_first_order_edge(steps[step], rows, step, lower)
                             for rows, step, lower in ((slice(0, 1), slice(0, 1), 0),
                                                       (slice(n - 1, n), slice(n - 2, n - 1), n - 2))]
    p, q = steps[0:1], steps[1:2]
    s = p + q
    first = (slice(0, 1), slice(0, 1), slice(1, 2), [
        (slice(0, 1), -(2 * p + q) / (p * s), (2 * p ** 2 + 2 * p * q + q ** 2) / (p ** 2 * s ** 2), 1 / s ** 2),
        (slice(1, 2), s / (p * q), -1 / p ** 2, -1 / q ** 2),
        (slice(2, 3), -p / (q * s), -1 / s ** 2, p * (p + 2 * q) / (q ** 2 * s ** 2)),
    ])
    p, q = steps[n - 3:n - 2], steps[n - 2:n - 1]
    s = p + q
    last = (slice(n - 1, n), slice(n - 3, n - 2), slice(n - 2, n - 1), [
        (slice(n - 3, n - 2), q / (p * s), -q * (2 * p + q) / (p ** 2 * s ** 2), 1 / s ** 2),
        (slice(n - 2, n - 1), -s / (p * q), 1 / p ** 2, 1 / q ** 2),
        (slice(n - 1, n), (2 * q + p) / (q * s), -1 / s ** 2, -(2 * q ** 2 + 2 * p * q + p ** 2) / (q ** 2 * s ** 2)),
    ])
    return [interior, first, last]


def _first_order_edge(h, rows, step, lower):
    """An end row of np.gradient with edge_order=1: a one-sided difference over the step ``h``."""
    return (rows, step, step, [(slice(lower, lower + 1), -1 / h, 1 / h ** 2, 0 * h),
                               (slice(lower + 1, lower + 2), 1 / h, -1 / h ** 2, 0 * h)])


def _gradient_steps(spacing, n):
    if np.ndim(spacing) == 0:
        return np.full(n - 1, float(spacing))
    return np.diff(np.asarray(spacing, dtype=np.float64))


def _gradient_axes(f, axis):
    ndim = np.ndim(f)
    if axis is None:
        return tuple(range(ndim))
    return tuple(ax % ndim for ax in ((axis,) if np.ndim(axis) == 0 else axis))


def gradient_vjp_f(g, ans, f, varargs, axis, edge_order):
    axes = _gradient_axes(f, axis)
    parts = (g,) if len(axes) == 1 else output_parts(g, len(axes))
    shape = np.shape(f)
    out = np.zeros(shape, dtype=np.result_type(f, np.float64))  # the coefficients are real: complex f, complex g
    for ax, part, spacing in zip(axes, parts, _gradient_spacings(varargs, len(axes))):
        if part is ZERO:
            continue
        moved_g = np.moveaxis(np.asarray(part, dtype=np.result_type(part, np.float64)), ax, 0)
        moved_out = np.moveaxis(out, ax, 0)  # a view: adding into it adds into out
        for rows, _, _, terms in _gradient_blocks(_gradient_steps(spacing, shape[ax]), edge_order):
            for columns, coefficient, _, _ in terms:
                moved_out[columns] += _along(coefficient, 0, len(shape)) * moved_g[rows]
    return unbroadcast(out, f)


def gradient_vjp_varargs(g, ans, f, varargs, axis, edge_order):
    axes = _gradient_axes(f, axis)
    parts = (g,) if len(axes) == 1 else output_parts(g, len(axes))
    values = np.asarray(f, dtype=np.result_type(f, np.float64))
    step_cotangents = []
    for ax, part, spacing in zip(axes, parts, _gradient_spacings(varargs, len(axes))):
        n = values.shape[ax]
        d_steps = np.zeros(n - 1)
        if part is not ZERO:
            moved_g = np.moveaxis(np.asarray(part, dtype=np.result_type(part, np.float64)), ax, 0)
            moved_f = np.moveaxis(values, ax, 0)
            others = tuple(range(1, values.ndim))
            for rows, left, right, terms in _gradient_blocks(_gradient_steps(spacing, n), edge_order):
                for columns, _, d_left, d_right in terms:
                    weight = np.real(np.sum(conj(moved_g[rows]) * moved_f[columns], axis=others))  # real steps
                    d_steps[left] += weight * d_left
                    d_steps[right] += weight * d_right
        step_cotangents.append(d_steps)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:  # one spacing shared by every axis
        return (unbroadcast(sum(np.sum(d) for d in step_cotangents), varargs[0]),)
    cotangents = []
    for spacing, d_steps in zip(varargs, step_cotangents):
        if np.ndim(spacing) == 0:
            cotangents.append(unbroadcast(np.sum(d_steps), spacing))
        else:  # steps are differences of coordinates
            cotangents.append(unbroadcast(np.concatenate([[0.0], d_steps]) - np.concatenate([d_steps, [0.0]]), spacing))
    return tuple(cotangents)


# ------------------------------------------------------------------ scans and weighted means


def cumprod_vjp(g, ans, a, axis, dtype, out):
    """Without zeros, ``g`` times the product of the others: the reversed running sum of ``g * conj(y)``
    divided by ``conj(x)``; with zeros, step by step (``running_products``: exact to every order).

    Complex values take the conjugate slopes (``np.cumprod`` is holomorphic), as ``a * b`` does."""
    x = np.asarray(a)
    if x.dtype.kind not in "fc" or x.size == 0:  # (an empty array: nothing to carry a cotangent)
        return unbroadcast(np.reshape(g, np.shape(a)) if x.size == 0 else g, a)
    g = np.broadcast_to(g, np.shape(ans))
    if axis is None:
        x, g, ans, axis = np.ravel(x), np.ravel(g), np.ravel(ans), 0
    if np.any(np.equal(x, 0)):
        slope = np.moveaxis(running_product_cotangent(np.moveaxis(g, axis, 0), np.moveaxis(x, axis, 0)), 0, axis)
    else:
        slope = np.flip(np.cumsum(np.flip(g * conj(ans), axis), axis), axis) / conj(x)
    return unbroadcast(np.reshape(slope, np.shape(a)), a)


def _average_setup(a, axis, weights):
    """Normalised axes, and the weights reshaped to broadcast against ``a`` (as np.average does)."""
    shape = np.shape(a)
    axes = tuple(range(len(shape))) if axis is None else _gradient_axes(a, axis)
    w = np.asarray(weights)
    if w.shape != shape:
        w = np.transpose(w, np.argsort(axes))
        w = np.reshape(w, tuple(n if ax in axes else 1 for ax, n in enumerate(shape)))
    return axes, w


def _with_reduced_axes(g, ndim, axes, keepdims):
    """A reduction's cotangent with its reduced axes kept as length 1 (broadcastable to the input)."""
    if keepdims:
        return g
    return np.expand_dims(g, axes) if axes else g


def average_vjp_a(g, ans, a, axis, weights, returned, keepdims):
    g_avg = output_parts(g, 2)[0] if returned else g
    if g_avg is ZERO:
        return ZERO
    if weights is None:
        return expand_reduced(g_avg / reduced_count(a, axis), a, axis, keepdims)
    axes, w = _average_setup(a, axis, weights)
    total = np.sum(w, axis=axes, keepdims=True)
    expanded = _with_reduced_axes(np.asarray(g_avg), np.ndim(a), axes, keepdims)
    return unbroadcast(np.broadcast_to(expanded * (w / total), np.shape(a)), a)


def average_vjp_weights(g, ans, a, axis, weights, returned, keepdims):
    if weights is None:
        return NO_TANGENT
    g_avg, g_total = output_parts(g, 2) if returned else (g, ZERO)
    avg = ans[0] if returned else ans
    axes, w = _average_setup(a, axis, weights)
    total = np.sum(w, axis=axes, keepdims=True)
    slope = np.zeros(np.broadcast_shapes(np.shape(a), w.shape))
    if g_avg is not ZERO:
        kept_avg = _with_reduced_axes(np.asarray(avg), np.ndim(a), axes, keepdims)
        slope = slope + _with_reduced_axes(np.asarray(g_avg), np.ndim(a), axes, keepdims) * (a - kept_avg) / total
    if g_total is not ZERO:  # the returned sum of weights, broadcast to the average's shape
        slope = slope + _with_reduced_axes(np.asarray(g_total), np.ndim(a), axes, keepdims)
    slope = np.broadcast_to(slope, np.shape(a))
    if np.shape(weights) != np.shape(a):  # 1-D (or per-axes) weights: sum over the other axes, back in their order
        kept = np.sum(slope, axis=tuple(ax for ax in range(np.ndim(a)) if ax not in axes))
        slope = np.transpose(kept, np.argsort(np.argsort(axes)))
    return _cotangent_like(np.asarray(slope), weights)


# ------------------------------------------------------------------ moves and views
defvjp(np.reshape,      "a, shape=None, order='C', *, newshape=None, copy=None",
       "np.reshape(g, np.shape(a), order=order)")
defvjp(np.ravel,        "a, order='C'", "np.reshape(g, np.shape(a), order='F' if order == 'F' else 'C')")
defvjp(np.transpose,    "a, axes=None", "np.transpose(g, inverse_axes(axes, np.ndim(a)))")
defvjp(np.swapaxes,     "a, axis1, axis2", "np.swapaxes(g, axis1, axis2)")
defvjp(np.moveaxis,     "a, source, destination", "np.moveaxis(g, destination, source)")
defvjp(np.rollaxis,     "a, axis, start=0", rollaxis_vjp)
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
defvjp(np.ascontiguousarray, "a, dtype=None, *, like=None", array_vjp)
defvjp(np.asfortranarray,    "a, dtype=None, *, like=None", array_vjp)
defvjp(np.array,        "object, dtype=None, *, copy=True, order='K', subok=False, ndmin=0, ndmax=0, like=None",
       array_vjp)
defvjp(np.broadcast_to, "array, shape, subok=False", broadcast_to_vjp)
defvjp(np.broadcast_arrays, "*args, subok=False", broadcast_arrays_vjp)

if hasattr(np, "permute_dims"):  # NumPy >= 2
    defvjp(np.permute_dims, "a, axes=None", "np.transpose(g, inverse_axes(axes, np.ndim(a)))")
    defvjp(np.astype,       "x, dtype, *, copy=True, device=None", "unbroadcast(g, x)")

# ------------------------------------------------------------------ joins and replications
defvjp(np.concatenate,  "arrays, axis=0, out=None, *, dtype=None, casting='same_kind'", concatenate_vjp)
defvjp(np.stack,        "arrays, axis=0, out=None, *, dtype=None, casting='same_kind'", stack_vjp)
defvjp(np.vstack,       "tup, *, dtype=None, casting='same_kind'", vstack_vjp)
defvjp(np.row_stack,    "tup, *, dtype=None, casting='same_kind'", vstack_vjp)
defvjp(np.column_stack, "tup", column_stack_vjp)
defvjp(np.dstack,       "tup", dstack_vjp)
defvjp(np.append,       "arr, values, axis=None", append_vjp_arr, append_vjp_values)
defvjp(np.select,       "condlist, choicelist, default=0", None, select_vjp, select_vjp_default)
defvjp(np.hstack,       "tup, *, dtype=None, casting='same_kind'", hstack_vjp)
defvjp(np.tile,         "A, reps", tile_vjp)
defvjp(np.repeat,       "a, repeats, axis=None", repeat_vjp)
defvjp(np.kron,         "a, b", kron_vjp_a, kron_vjp_b)
defvjp(np.pad,          "array, pad_width, mode='constant', *, stat_length=None, constant_values=0, end_values=0, "
                        "reflect_type='even'",
       pad_vjp_array, None, None, None, pad_vjp_constant_values, pad_vjp_end_values, None)

# ------------------------------------------------------------------ splits (a list out)
defvjp(np.split,        "ary, indices_or_sections, axis=0", split_vjp)
defvjp(np.array_split,  "ary, indices_or_sections, axis=0", split_vjp)
defvjp(np.hsplit,       "ary, indices_or_sections", hsplit_vjp)
defvjp(np.vsplit,       "ary, indices_or_sections", vsplit_vjp)
defvjp(np.dsplit,       "ary, indices_or_sections", dsplit_vjp)

# ------------------------------------------------------------------ selections
defvjp(np.diag,         "v, k=0", diag_vjp)
defvjp(np.diagonal,     "a, offset=0, axis1=0, axis2=1", diagonal_vjp)
defvjp(np.trace,        "a, offset=0, axis1=0, axis2=1, dtype=None, out=None", trace_vjp)
defvjp(np.triu,         "m, k=0", "unbroadcast(np.triu(g, k), m)")  # a 1-D m is broadcast to a square first
defvjp(np.tril,         "m, k=0", "unbroadcast(np.tril(g, k), m)")
defvjp(np.sort,         "a, axis=-1, kind=None, order=None, *, stable=None", sort_vjp)
defvjp(np.partition,    "a, kth, axis=-1, kind='introselect', order=None", partition_vjp)
defvjp(np.take_along_axis, "arr, indices, axis=-1", take_along_axis_vjp)
defvjp(np.take,         "a, indices, axis=None, out=None, mode='raise'", take_vjp, None, None, None, None)
defvjp(np.bincount,     "x, weights=None, minlength=0", None, "unbroadcast(np.asarray(g)[x], weights)", None)
defvjp(np.compress,     "condition, a, axis=None, out=None", None, compress_vjp, None, None)
defvjp(np.choose,       "a, choices, out=None, mode='raise'", None, choose_vjp, None, None)
defvjp(np.extract,      "condition, arr", None, extract_vjp)
defvjp(np.diff,         "a, n=1, axis=-1, prepend=None, append=None", diff_vjp, None, None, diff_vjp_prepend,
       diff_vjp_append)
defvjp(np.ediff1d,      "ary, to_end=None, to_begin=None", ediff1d_vjp_ary, ediff1d_vjp_to_end, ediff1d_vjp_to_begin)

# ------------------------------------------------------------------ stencils, scans, weighted means
defvjp(np.gradient,     "f, *varargs, axis=None, edge_order=1", gradient_vjp_f, gradient_vjp_varargs)
defvjp(np.cumprod,      "a, axis=None, dtype=None, out=None", cumprod_vjp)
defvjp(np.average,      "a, axis=None, weights=None, returned=False, *, keepdims=False",
       average_vjp_a, None, average_vjp_weights)

# ------------------------------------------------------------------ builders with float inputs
defvjp(np.linspace,     "start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None",
       linspace_vjp_start, linspace_vjp_stop)
defvjp(np.full,         "shape, fill_value, dtype=None, order='C', *, device=None, like=None",
       None, "unbroadcast(g, fill_value)")  # a fill value that is an array broadcasts like an operand
defvjp(np.full_like,    "a, fill_value, dtype=None, order='K', subok=True, shape=None, *, device=None",
       None, "unbroadcast(g, fill_value)")  # a fill value that is an array broadcasts like an operand


# ================================================================== forward rules: what a template cannot say
#
# Tangents mirror the primal: a view's tangent is a view of the tangent (``reshape``,
# ``transpose``), a copy's a copy; each is cast to the output's dtype (float32 stays
# float32, a real output of a complex tangent keeps the real part). A sequence argument
# (``concatenate``, ``np.array`` of a list) takes a sequence of tangents in which the
# elements without one (ints) are None, ZERO or NO_TANGENT; a ``*varargs`` parameter
# (``gradient``'s spacings) takes a tuple of tangents, one per argument it collected.


def as_tangent_of(t, ans):
    """``t`` as the tangent of the output ``ans``: in its dtype (real part for a real output);
    ZERO for an output without a tangent space (ints, bools)."""
    if t is ZERO or t is NO_TANGENT or t is None:
        return ZERO
    if type(ans) is float:
        return float(np.real(t))
    if type(ans) is complex:
        return complex(t)
    dtype = getattr(ans, "dtype", None)
    if dtype is None:
        dtype = np.result_type(ans)
    if dtype.kind not in "fc":
        return ZERO
    if dtype.kind != "c" and np.iscomplexobj(t):
        t = np.real(t)
    if isinstance(ans, np.generic):
        return dtype.type(t)
    return np.asarray(t, dtype=dtype)


def _each_as_tangent_of(t, ans):
    """``as_tangent_of`` for each element of a tuple or list output."""
    if isinstance(ans, (tuple, list)):
        return type(ans)(as_tangent_of(item, out) for item, out in zip(t, ans))
    return as_tangent_of(t, ans)


def _filled(t, like):
    """The tangent of a (nested) sequence ``like``, with zeros where an element has none."""
    if isinstance(like, (list, tuple)):
        if t is None or t is ZERO or t is NO_TANGENT:
            t = [None] * len(like)
        items = [_filled(item, element) for item, element in zip(t, like)]
        return items if isinstance(like, list) else tuple(items)
    if t is None or t is ZERO or t is NO_TANGENT:
        return np.zeros(np.shape(like))
    return t


def varargs_tangents(g, varargs):
    """One tangent per argument a ``*varargs`` parameter collected (a lone argument's may come bare)."""
    if type(g) is tuple and len(g) == len(varargs):
        return g
    if len(varargs) == 1:
        return (g,)
    raise ValueError(f"a tangent for {len(varargs)} collected arguments must be a tuple of {len(varargs)} tangents")


def _read_order(a, order):
    """The index order ``order`` reads ``a`` in: 'A' follows ``a``'s memory layout, not the tangent's."""
    if order in ("A", "a"):
        return "F" if isinstance(a, np.ndarray) and np.isfortran(a) else "C"
    return order


def reshape_jvp(g, ans, a, shape, order, newshape, copy):
    return np.reshape(g, np.shape(ans), order=_read_order(a, order))


def ravel_jvp(g, ans, a, order):
    if order not in ("K", "k") or not isinstance(a, np.ndarray):
        return np.ravel(g, order=_read_order(a, "C" if order in ("K", "k") else order))
    positions = np.empty_like(a, dtype=np.intp)  # a's layout ('K'), holding each element's C-order position
    positions[...] = np.reshape(np.arange(positions.size), positions.shape)
    return np.ravel(g)[np.ravel(positions, order="K")]


def array_jvp(g, ans, object, *rest):
    return as_tangent_of(np.reshape(np.array(_filled(g, object)), np.shape(ans)), ans)  # a copy, as np.array's


def asarray_jvp(g, ans, a, *rest):
    return as_tangent_of(np.reshape(np.asarray(_filled(g, a)), np.shape(ans)), ans)


# np.ediff1d is linear in ``ary`` and its two ends together: each one's tangent goes through it
# with the others' tangents zero
def ediff1d_jvp_ary(g, ans, ary, to_end, to_begin):
    begin, between = _ediff1d_lengths(ary, to_begin)
    differences = np.diff(np.ravel(np.asarray(_filled(g, ary))))
    return as_tangent_of(np.concatenate((np.zeros(begin), differences, np.zeros(np.size(ans) - begin - between))), ans)


def ediff1d_jvp_to_end(g, ans, ary, to_end, to_begin):
    return as_tangent_of(np.concatenate((np.zeros(np.size(ans) - np.size(to_end)),
                                         np.ravel(np.asarray(_filled(g, to_end))))), ans)


def ediff1d_jvp_to_begin(g, ans, ary, to_end, to_begin):
    return as_tangent_of(np.concatenate((np.ravel(np.asarray(_filled(g, to_begin))),
                                         np.zeros(np.size(ans) - np.size(to_begin)))), ans)


def astype_jvp(g, ans, x, dtype, copy, device):
    return as_tangent_of(g, ans)


def column_stack_jvp(g, ans, tup):
    return as_tangent_of(np.column_stack(_filled(g, tup)), ans)


def select_jvp(g, ans, condlist, choicelist, default):
    return as_tangent_of(np.select(condlist, _filled(g, choicelist), 0), ans)


def select_jvp_default(g, ans, condlist, choicelist, default):
    """``g`` where no condition holds (broadcast to the output); a Python float default's tangent
    is float64, the output's dtype the choices'. (Zeros of the output's shape, not ``0 * ans``: NaN where it is inf.)"""
    return as_tangent_of(np.where(np.any(np.asarray(condlist), axis=0), 0, g) + np.zeros_like(ans), ans)


def concatenate_jvp(g, ans, arrays, axis, out, dtype, casting):
    return as_tangent_of(np.concatenate(_filled(g, arrays), axis=axis), ans)


def dstack_jvp(g, ans, tup):
    return as_tangent_of(np.dstack(_filled(g, tup)), ans)


def choose_jvp(g, ans, a, choices, out, mode):
    return as_tangent_of(np.choose(a, _filled(g, choices), mode=mode), ans)


def stack_jvp(g, ans, arrays, axis, out, dtype, casting):
    return as_tangent_of(np.stack(_filled(g, arrays), axis=axis), ans)


def vstack_jvp(g, ans, tup, dtype, casting):
    return as_tangent_of(np.vstack(_filled(g, tup)), ans)


def hstack_jvp(g, ans, tup, dtype, casting):
    return as_tangent_of(np.hstack(_filled(g, tup)), ans)


def sort_jvp(g, ans, a, axis, kind, order, stable):
    """The tangent follows its element to its slot (stably: tied elements keep their order)."""
    if axis is None:
        return as_tangent_of(np.ravel(g)[np.argsort(np.ravel(a), kind="stable")], ans)
    return as_tangent_of(np.take_along_axis(np.asarray(g), np.argsort(a, axis=axis, kind="stable"), axis=axis), ans)


def partition_jvp(g, ans, a, kth, axis, kind, order):
    """Slot j of the output holds the element of ``a`` with the same rank: match both by sorting."""
    x, g = np.asarray(a), np.asarray(g)
    if axis is None:
        x, g, axis = np.ravel(x), np.ravel(g), 0
    sources = np.argsort(x, axis=axis, kind="stable")
    slots = np.argsort(ans, axis=axis, kind="stable")
    index = np.take_along_axis(sources, np.argsort(slots, axis=axis), axis=axis)  # ans[..., j] is x[..., index[j]]
    return as_tangent_of(np.take_along_axis(g, index, axis=axis), ans)


def _diff_between(a, n, axis, prepend, append):
    """np.diff with an absent end given as None (np.diff takes none), its keywords spelled out:
    hvp differentiates this code again, and keywords through `**` are not differentiated."""
    if prepend is None and append is None:
        return np.diff(a, n, axis)
    if append is None:
        return np.diff(a, n, axis, prepend=prepend)
    if prepend is None:
        return np.diff(a, n, axis, append=append)
    return np.diff(a, n, axis, prepend=prepend, append=append)


def _zeros_of(end):
    return None if end is None else np.zeros(np.shape(end))


# np.diff is linear in `a` and its two ends together: each one's tangent goes through it with
# the others' tangents zero (an end can be a differentiated value: append=u[:, -1:])
def diff_jvp(g, ans, a, n, axis, prepend, append):
    return as_tangent_of(_diff_between(g, n, axis, _zeros_of(prepend), _zeros_of(append)), ans)


def diff_jvp_prepend(g, ans, a, n, axis, prepend, append):
    return as_tangent_of(_diff_between(np.zeros(np.shape(a)), n, axis, g, _zeros_of(append)), ans)


def diff_jvp_append(g, ans, a, n, axis, prepend, append):
    return as_tangent_of(_diff_between(np.zeros(np.shape(a)), n, axis, _zeros_of(prepend), g), ans)


def _pad_statistic_tangent(window, t, mode):
    """The tangent of ``window``'s statistic over axis 0 (``t`` its tangent): ties share, like the reverse rule."""
    if mode == "mean":
        return np.mean(t, axis=0)
    if mode in ("maximum", "minimum"):
        extreme = np.max(window, axis=0) if mode == "maximum" else np.min(window, axis=0)
        winners = np.equal(window, extreme)
        return np.sum(np.where(winners, t, 0), axis=0) / np.sum(winners, axis=0)
    m = window.shape[0]
    order = np.argsort(window, axis=0, kind="stable")
    middle = order[(m - 1) // 2: m // 2 + 1]  # one index for an odd window, two for an even one
    return np.mean(np.take_along_axis(t, middle, axis=0), axis=0)


def pad_jvp_array(g, ans, array, pad_width, mode, stat_length, constant_values, end_values, reflect_type):
    _check_pad_mode(mode)
    if mode in _PAD_LINEAR or mode == "constant":
        # linear in the array once constant_values and end_values are held at 0
        options = {"reflect_type": reflect_type} if mode in ("reflect", "symmetric") else {}
        return as_tangent_of(np.pad(g, pad_width, mode=mode, **options), ans)
    x, t = np.asarray(array), np.asarray(g)
    widths = _pad_pairs(pad_width, x.ndim)
    lengths = _pad_pairs(stat_length, x.ndim)
    # np.pad pads axis 0, then axis 1 of the result, and so on, each from the array padded so far
    for axis in range(x.ndim):
        before, after = widths[axis]
        if before == 0 and after == 0:
            continue
        so_far = np.pad(x, [width if ax < axis else (0, 0) for ax, width in enumerate(widths)],
                        mode=mode, stat_length=stat_length)
        window_x, moved = np.moveaxis(so_far, axis, 0), np.moveaxis(t, axis, 0)
        n = window_x.shape[0]
        blocks = [moved]
        for count, width, at_start in ((lengths[axis][0], before, True), (lengths[axis][1], after, False)):
            if width == 0:
                continue
            count = n if count is None else min(count, n)
            window = slice(0, count) if at_start else slice(n - count, n)
            value = _pad_statistic_tangent(window_x[window], moved[window], mode)
            block = np.broadcast_to(value, (width,) + value.shape)
            blocks = [block] + blocks if at_start else blocks + [block]
        t = np.moveaxis(np.concatenate(blocks, axis=0), 0, axis)
    return as_tangent_of(t, ans)


def _pad_values_jvp(keyword, its_mode):
    """np.pad is linear in ``constant_values`` (``end_values``) when the array is zero."""
    def pad_values_jvp(g, ans, array, pad_width, mode, stat_length, constant_values, end_values, reflect_type):
        if mode != its_mode:
            return ZERO
        values = constant_values if keyword == "constant_values" else end_values
        zeros = np.zeros(np.shape(array), dtype=np.result_type(ans, np.float64))
        return as_tangent_of(np.pad(zeros, pad_width, mode=mode, **{keyword: _filled(g, values)}), ans)

    pad_values_jvp.__name__ = f"pad_jvp_{keyword}"
    return pad_values_jvp


def gradient_jvp_f(g, ans, f, varargs, axis, edge_order):
    return _each_as_tangent_of(np.gradient(g, *varargs, axis=axis, edge_order=edge_order), ans)


def gradient_jvp_varargs(g, ans, f, varargs, axis, edge_order):
    """A scalar spacing h divides the output (d/dh = -out / h); coordinates move NumPy's non-uniform formulas."""
    axes = _gradient_axes(f, axis)
    outputs = ans if isinstance(ans, (tuple, list)) else (ans,)
    tangents = varargs_tangents(g, varargs)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:  # one spacing shared by every axis
        tangents = [tangents[0] for _ in axes]  # (not tangents * len(axes): hvp differentiates this code)
    values = np.asarray(f, dtype=np.result_type(f, np.float64))
    result = []
    for ax, out, spacing, d_spacing in zip(axes, outputs, _gradient_spacings(varargs, len(axes)), tangents):
        if d_spacing is None or d_spacing is ZERO or d_spacing is NO_TANGENT:
            result.append(np.zeros_like(out))
            continue
        if np.ndim(spacing) == 0:
            result.append(as_tangent_of(-np.asarray(out, dtype=np.result_type(out, np.float64)) * (d_spacing / spacing), out))
            continue
        n = values.shape[ax]
        d_steps = np.diff(np.asarray(d_spacing, dtype=np.float64))
        moved_f = np.moveaxis(values, ax, 0)
        # built along axis 0 in an array of its own, then moved back: written under one name, so that
        # reverse mode over this code (hvp) can differentiate the writes
        moved_d = np.zeros(moved_f.shape, dtype=values.dtype)
        for rows, left, right, terms in _gradient_blocks(_gradient_steps(spacing, n), edge_order):
            for columns, _, d_left, d_right in terms:
                moved_d[rows] += _along(d_left * d_steps[left] + d_right * d_steps[right], 0, values.ndim) * \
                    moved_f[columns]
        result.append(as_tangent_of(np.moveaxis(moved_d, 0, ax), out))
    return type(ans)(result) if isinstance(ans, (tuple, list)) else result[0]


def cumprod_jvp(g, ans, a, axis, dtype, out):
    """Without zeros, ``y * cumsum(g / x)``; with zeros, step by step (``running_products``)."""
    x, g = np.asarray(a), np.asarray(g)
    if x.size == 0:
        return as_tangent_of(np.zeros(np.shape(ans)), ans)
    if axis is None:
        x, g, axis = np.ravel(x), np.ravel(g), 0
    if np.any(np.equal(x, 0)):
        t = np.moveaxis(running_product_tangent(np.moveaxis(g, axis, 0), np.moveaxis(x, axis, 0)), 0, axis)
    else:
        t = np.reshape(ans, x.shape) * np.cumsum(g / x, axis=axis)
    return as_tangent_of(np.reshape(t, np.shape(ans)), ans)


def average_jvp_a(g, ans, a, axis, weights, returned, keepdims):
    t = np.average(g, axis=axis, weights=weights, keepdims=keepdims)  # linear in a for given weights
    if returned:
        return as_tangent_of(t, ans[0]), np.zeros_like(ans[1])
    return as_tangent_of(t, ans)


def average_jvp_weights(g, ans, a, axis, weights, returned, keepdims):
    """d avg = sum(dw * (a - avg)) / sum(w); the returned sum of weights moves by sum(dw)."""
    avg = ans[0] if returned else ans
    axes, w = _average_setup(a, axis, weights)
    _, dw = _average_setup(a, axis, np.asarray(_filled(g, weights), dtype=np.float64))
    kept_shape = tuple(1 if ax in axes else n for ax, n in enumerate(np.shape(a)))  # reduced axes kept
    total = np.sum(w, axis=axes, keepdims=True)
    kept = np.reshape(avg, kept_shape)
    d_avg = np.sum(dw * (np.asarray(a) - kept), axis=axes, keepdims=True) / total
    d_avg = as_tangent_of(np.reshape(np.broadcast_to(d_avg, kept_shape), np.shape(avg)), avg)
    if not returned:
        return d_avg
    d_total = np.broadcast_to(np.sum(dw, axis=axes, keepdims=True), kept_shape)
    return d_avg, as_tangent_of(np.reshape(d_total, np.shape(ans[1])), ans[1])


def _linspace_tangent(d_start, d_stop, ans, num, endpoint, retstep, axis):
    out = np.linspace(d_start, d_stop, num, endpoint, retstep, axis=axis)  # linear in (start, stop)
    return _each_as_tangent_of(tuple(out), ans) if retstep else as_tangent_of(out, ans)


def linspace_jvp_start(g, ans, start, stop, num, endpoint, retstep, dtype, axis, device):
    return _linspace_tangent(g, np.zeros(np.shape(stop)), ans, num, endpoint, retstep, axis)


def linspace_jvp_stop(g, ans, start, stop, num, endpoint, retstep, dtype, axis, device):
    return _linspace_tangent(np.zeros(np.shape(start)), g, ans, num, endpoint, retstep, axis)


# ---- forward rules
# ------------------------------------------------------------------ moves and views
defjvp(np.reshape,      reshape_jvp)
defjvp(np.ravel,        ravel_jvp)
defjvp(np.transpose,    LINEAR)
defjvp(np.swapaxes,     LINEAR)
defjvp(np.moveaxis,     LINEAR)
defjvp(np.rollaxis,     LINEAR)
defjvp(np.squeeze,      LINEAR)
defjvp(np.expand_dims,  LINEAR)
defjvp(np.atleast_1d,   "np.atleast_1d(g)")
defjvp(np.atleast_2d,   "np.atleast_2d(g)")
defjvp(np.atleast_3d,   "np.atleast_3d(g)")
defjvp(np.flip,         LINEAR)
defjvp(np.fliplr,       LINEAR)
defjvp(np.flipud,       LINEAR)
defjvp(np.roll,         LINEAR)
defjvp(np.rot90,        LINEAR)
defjvp(np.copy,         LINEAR)
defjvp(np.asarray,      asarray_jvp)
defjvp(np.ascontiguousarray, asarray_jvp)
defjvp(np.asfortranarray,    asarray_jvp)
defjvp(np.array,        array_jvp)
defjvp(np.broadcast_to, LINEAR)
defjvp(np.broadcast_arrays, broadcast_arrays_jvp)

if hasattr(np, "permute_dims"):  # NumPy >= 2
    defjvp(np.permute_dims, LINEAR)
    defjvp(np.astype,       astype_jvp)

# ------------------------------------------------------------------ joins and replications
defjvp(np.concatenate,  concatenate_jvp)
defjvp(np.stack,        stack_jvp)
defjvp(np.vstack,       vstack_jvp)
defjvp(np.row_stack,    vstack_jvp)
defjvp(np.column_stack, column_stack_jvp)
defjvp(np.dstack,       dstack_jvp)
defjvp(np.append,       "np.append(g, np.zeros_like(values, dtype=ans.dtype), axis=axis)",
                        "np.append(np.zeros_like(arr, dtype=ans.dtype), g, axis=axis)")
defjvp(np.select,       None, select_jvp, select_jvp_default)
defjvp(np.hstack,       hstack_jvp)
defjvp(np.tile,         LINEAR)
defjvp(np.repeat,       LINEAR)
defjvp(np.kron,         LINEAR, LINEAR)
defjvp(np.pad,          pad_jvp_array, None, None, None, _pad_values_jvp("constant_values", "constant"),
       _pad_values_jvp("end_values", "linear_ramp"), None)

# ------------------------------------------------------------------ splits (a list out)
defjvp(np.split,        LINEAR)
defjvp(np.array_split,  LINEAR)
defjvp(np.hsplit,       LINEAR)
defjvp(np.vsplit,       LINEAR)
defjvp(np.dsplit,       LINEAR)

# ------------------------------------------------------------------ selections
defjvp(np.diag,         LINEAR)
defjvp(np.diagonal,     LINEAR)
defjvp(np.trace,        "np.trace(g, offset, axis1, axis2, dtype)")
defjvp(np.triu,         LINEAR)
defjvp(np.tril,         LINEAR)
defjvp(np.sort,         sort_jvp)
defjvp(np.partition,    partition_jvp)
defjvp(np.take_along_axis, LINEAR)
deflinear(np.take, "a")
deflinear(np.compress, "a")
deflinear(np.extract, "arr")
defjvp(np.bincount,     None, "np.bincount(x, weights=g, minlength=minlength)", None)
defjvp(np.choose,       None, choose_jvp)
defjvp(np.diff,         diff_jvp, None, None, diff_jvp_prepend, diff_jvp_append)
defjvp(np.ediff1d,      ediff1d_jvp_ary, ediff1d_jvp_to_end, ediff1d_jvp_to_begin)

# ------------------------------------------------------------------ stencils, scans, weighted means
defjvp(np.gradient,     gradient_jvp_f, gradient_jvp_varargs)
defjvp(np.cumprod,      cumprod_jvp)
defjvp(np.average,      average_jvp_a, None, average_jvp_weights)

# ------------------------------------------------------------------ builders with float inputs
defjvp(np.linspace,     linspace_jvp_start, linspace_jvp_stop)
defjvp(np.full,         None, "np.full(np.shape(ans), g, dtype=ans.dtype)")
defjvp(np.full_like,    None, "np.full(np.shape(ans), g, dtype=ans.dtype)")
