"""The rule of ``np.apply_along_axis(func1d, axis, arr, *args)``: the callee's own derivative,
slice by slice.

``func1d`` runs on each 1-D slice of ``arr`` along ``axis`` (``arr[i, :, k]`` for ``axis=1``),
and its results fill the output with their axes in place of ``axis``. Each call is
differentiated by what ``func1d`` is when the code runs (a rule, a lambda or a function of the
user's, differentiated from its source: ``runtime/calls.py``), as ``functools.reduce``'s steps
are; the pullback gives each slice the cotangent of its call's result, and sums the
cotangents of ``args`` over the calls. A lambda holding a differentiated number of the caller
is refused (``refuse_held_numbers``), as for ``functools.reduce``: pass such values in ``args``.
Keywords passed on to ``func1d`` are not differentiated: a differentiated one is refused.
"""
import numpy as np

from s2sad.errors import MissingRuleError
from s2sad.registry import defrrule
from s2sad.registry.forward import defjvp
from s2sad.runtime.calls import call_jvp, call_rrule
from s2sad.runtime.projection import is_float_like
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero, plus, unthunk

from .helpers import unbroadcast
from .numpy_shapes import as_tangent_of

_SIGNATURE = "func1d, axis, arr, *args, **kwargs"


def _refuse_keywords(kwargs):
    floats = [key for key, value in kwargs.items() if is_float_like(value)]
    if floats:
        raise MissingRuleError(
            f"`{floats[0]}=` is passed on by np.apply_along_axis to its function by keyword, where s2sad does not "
            "differentiate it", hint=f"pass `{floats[0]}` positionally, after the array")


def _slices(arr, axis):
    """``arr`` with ``axis`` moved last, and the indices of its 1-D slices."""
    moved = np.moveaxis(np.asarray(arr), axis, -1)
    return moved, list(np.ndindex(moved.shape[:-1]))


def _assembled(results, outer_shape, axis):
    """The results of the slices' calls placed as NumPy places them: their axes at ``axis``, in
    the dtype of the first."""
    first = np.asarray(results[0])
    stacked = np.asarray(np.stack([np.asarray(r) for r in results]), dtype=first.dtype)
    buffer = np.reshape(stacked, tuple(outer_shape) + first.shape)
    count = len(outer_shape)
    return np.moveaxis(buffer, list(range(count, count + first.ndim)), list(range(axis, axis + first.ndim)))


def _per_slice(value, outer_ndim, result_ndim, axis):
    """``value`` (the output's shape) with the result's axes moved back last, so that
    ``value[index]`` is the part of slice ``index``."""
    return np.moveaxis(np.asarray(value), list(range(axis, axis + result_ndim)),
                       list(range(outer_ndim, outer_ndim + result_ndim)))


def apply_along_axis_rrule(func1d, axis, arr, *args, **kwargs):
    _refuse_keywords(kwargs)
    axis = axis % np.ndim(arr)
    moved, indices = _slices(arr, axis)
    if not indices:  # no slice to call func1d on: NumPy's own error
        np.apply_along_axis(func1d, axis, arr, *args, **kwargs)
    results, pullbacks = [], []
    for index in indices:
        value, pullback = call_rrule(func1d, moved[index], *args, **kwargs)
        results.append(value)
        pullbacks.append(pullback)
    ans = _assembled(results, moved.shape[:-1], axis)
    result_ndim = np.ndim(results[0])

    def apply_along_axis_pullback(g):
        g = _per_slice(unthunk(g), len(indices[0]), result_ndim, axis)
        slices = np.zeros(moved.shape, dtype=np.result_type(moved.dtype, g.dtype))
        arg_cotangents = [ZERO] * len(args)
        for index, pullback in zip(indices, pullbacks):
            cotangents = pullback(g[index])  # (call, function, slice, *args)
            piece = unthunk(cotangents[2])
            if not (piece is NO_TANGENT or is_zero(piece)):
                slices[index] = piece
            arg_cotangents = [plus(total, unthunk(c)) for total, c in zip(arg_cotangents, cotangents[3:])]
        arr_cotangent = unbroadcast(np.moveaxis(slices, -1, axis), arr) if np.asarray(arr).dtype.kind in "fc" \
            else NO_TANGENT
        return (NO_TANGENT, NO_TANGENT, NO_TANGENT, arr_cotangent, *arg_cotangents)

    return ans, apply_along_axis_pullback


def _tangent(ans, func1d, axis, arr, args, kwargs, slice_tangents, arg_tangents):
    """The output's tangent: each slice's call pushed forward, the results placed as NumPy does."""
    _refuse_keywords(kwargs)
    axis = axis % np.ndim(arr)
    moved, indices = _slices(arr, axis)
    result_ndim = np.ndim(ans) - np.ndim(arr) + 1
    answers = _per_slice(ans, len(indices[0]), result_ndim, axis)
    tangents = []
    for index in indices:
        slice_tangent = ZERO if slice_tangents is None else slice_tangents[index]
        tangent = call_jvp(func1d, answers[index], (moved[index], *args), (slice_tangent, *arg_tangents), **kwargs)
        tangent = unthunk(tangent)
        tangents.append(np.zeros(np.shape(answers[index])) if tangent is ZERO else tangent)
    return as_tangent_of(_assembled(tangents, moved.shape[:-1], axis), ans)


def apply_along_axis_jvp_arr(g, ans, func1d, axis, arr, args, kwargs):
    moved_g = np.moveaxis(np.broadcast_to(unthunk(g), np.shape(arr)), axis % np.ndim(arr), -1)
    return _tangent(ans, func1d, axis, arr, args, kwargs, moved_g, (ZERO,) * len(args))


def apply_along_axis_jvp_args(g, ans, func1d, axis, arr, args, kwargs):
    return _tangent(ans, func1d, axis, arr, args, kwargs, None, tuple(unthunk(t) for t in g))


defrrule(np.apply_along_axis, apply_along_axis_rrule, _SIGNATURE, name="numpy.apply_along_axis")
defjvp(np.apply_along_axis, None, None, apply_along_axis_jvp_arr, apply_along_axis_jvp_args, None)
