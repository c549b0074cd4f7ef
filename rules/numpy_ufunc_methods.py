"""Rules for the methods of NumPy's ufuncs: ``np.add.reduce``, ``np.maximum.accumulate``,
``np.multiply.outer`` and their kin.

Each method is the function of ``rules/numpy_reductions.py`` or ``rules/numpy_shapes.py`` it
computes, with the ufunc method's own signature (``axis=0`` by default, where ``np.sum``'s is
``None``; ``dtype`` in ``reduce``'s third place), so the rules are theirs:

* ``np.add.reduce`` is ``np.sum``, ``np.multiply.reduce`` is ``np.prod`` (exact at zeros),
  ``np.maximum.reduce`` / ``np.minimum.reduce`` are ``np.max`` / ``np.min`` (ties share the
  cotangent equally), with ``axis``, ``keepdims``, ``initial`` and ``where``.
* ``np.logaddexp.reduce`` is a logsumexp along ``axis``: each element's slope is ``exp(x - ans)``
  (``initial=`` refused where it is differentiated).
* ``np.add.accumulate`` is ``np.cumsum``, ``np.multiply.accumulate`` is ``np.cumprod`` (exact at
  zeros).
* ``np.maximum.accumulate`` / ``np.minimum.accumulate``: the running extreme ``y[k]`` is the
  ``max`` of ``x[:k + 1]``, and its cotangent is shared as ``np.max``'s: equally among the
  elements of ``x[:k + 1]`` equal to ``y[k]`` (a tie at a kink gets the mean of the one-sided
  derivatives). Those elements are the ones that set or tied the running extreme since it last
  changed: a *run* of equal ``y``. Computed with cumulative sums along each run, no loop.
* ``np.add.reduceat``: ``y[k]`` sums ``array[indices[k]:indices[k + 1]]`` along ``axis`` (the
  last slice runs to the end), or is ``array[indices[k]]`` alone where ``indices[k] >=
  indices[k + 1]``; each element's cotangent is the sum of ``g[k]`` over the slices holding it
  (slices of unsorted indices overlap), gathered with ``np.add.at``, not by differences of
  running sums, which would round away a small ``g[k]`` beside a large one.
* ``np.multiply.reduceat``: ``y[k]`` multiplies the same slices; each element's cotangent sums
  ``g[k]`` times the conjugate product of the other elements of each slice holding it, from
  running products from the left and from the right within the slice (``np.prod``'s rule), so
  a zero in a slice gives the exact slopes (nothing is divided by an element).
* ``np.add.outer``, ``np.subtract.outer``, ``np.multiply.outer``: ``A``'s cotangent sums ``g``
  over ``B``'s axes (the last ``B.ndim``), ``B``'s over ``A``'s (the first ``A.ndim``);
  ``multiply`` weighs each by the other factor, conjugated (it is holomorphic, as ``a * b``).

Complex input: ``add`` and ``subtract`` are linear, ``multiply`` holomorphic; ``maximum`` and
``minimum`` order complex numbers lexicographically as NumPy does, and pass ``g`` to the winners.
"""
import numpy as np

from s2sad.registry import defvjp, nondifferentiable
from s2sad.registry.forward import LINEAR, defjvp, deflinear
from s2sad.runtime.tangents import NO_TANGENT

from .helpers import added_at, conj, dtype_of, expand_reduced, unbroadcast
from .numpy_reductions import (cumsum_vjp, extreme_jvp, extreme_vjp, initial_jvp, prod_jvp, prod_vjp, products_of_others,
                               refused_keyword)
from .numpy_shapes import as_tangent_of, cumprod_jvp, cumprod_vjp

_REDUCE = "array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True"
_ACCUMULATE = "array, axis=0, dtype=None, out=None"
_OUTER = "A, B"
_REDUCEAT = "array, /, indices, axis=0, dtype=None, out=None"


def as_compared(array, dtype):
    """The values a reduction with ``dtype=`` compares: ``array`` cast to ``dtype`` (a float64
    array reduced in float32 has its maximum among the rounded values, which the float64
    values never equal)."""
    return array if dtype is None else np.asarray(array, dtype=dtype)


def extreme_reduce_vjp(g, ans, array, axis, dtype, out, keepdims, initial, where):
    return unbroadcast(extreme_vjp(g, ans, as_compared(array, dtype), axis, out, keepdims, initial, where), array)


def extreme_reduce_jvp(g, ans, array, axis, dtype, out, keepdims, initial, where):
    return extreme_jvp(g, ans, as_compared(array, dtype), axis, out, keepdims, initial, where)


# ------------------------------------------------------------------ running extremes


def _along_last(value, axis):
    value = np.asarray(value)
    if axis is None:
        return np.ravel(value)
    return np.moveaxis(value, axis, -1)


def _back(value, a, axis):
    """A result computed along the last axis, put back in ``a``'s layout."""
    if axis is None:
        return np.reshape(value, np.shape(a))
    return np.moveaxis(value, -1, axis)


def running_winners(x, y):
    """Along the last axis of a running extreme ``y`` of ``x``: which elements win (``x[j] ==
    y[j]``: they set or tie the extreme), for each position the first and the last position of
    its run (the stretch over which ``y`` keeps its value), and how many winners its run has
    up to it (at least 1: a NaN equals nothing). No tangent flows through any of them."""
    n = y.shape[-1]
    position = np.arange(n)
    edge = np.ones(y.shape[:-1] + (1,), dtype=bool)
    differs = y[..., 1:] != y[..., :-1]
    starts = np.concatenate([edge, differs], axis=-1)
    ends = np.concatenate([differs, edge], axis=-1)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, position, n), axis=-1), axis=-1), axis=-1)
    winners = x == y
    count = np.maximum(_within_run(winners.astype(int), first), 1)
    return winners, first, last, count


def _within_run(values, first):
    """For each position ``k``: the sum of ``values`` from the start of ``k``'s run to ``k``."""
    total = np.cumsum(values, axis=-1)
    before = total - values
    return total - np.take_along_axis(before, first, axis=-1)


def running_extreme_vjp(g, ans, array, axis, dtype, out):
    """``y[k]``'s cotangent shared equally among the winners of its run up to ``k``: winner
    ``j`` gets ``sum(g[k] / count[k])`` over the positions ``k`` from ``j`` to its run's end."""
    if dtype_of(array).kind not in "fc":
        return NO_TANGENT
    x, y = _along_last(as_compared(array, dtype), axis), _along_last(ans, axis)
    g = np.broadcast_to(_along_last(g, axis), y.shape)
    winners, first, last, count = running_winners(x, y)
    share = g / count
    from_the_end = np.flip(np.cumsum(np.flip(share, axis=-1), axis=-1), axis=-1)  # sum over k >= j
    after_the_run = np.concatenate([from_the_end[..., 1:], np.zeros_like(from_the_end[..., :1])], axis=-1)
    through_the_run = from_the_end - np.take_along_axis(after_the_run, last, axis=-1)
    return unbroadcast(_back(np.where(winners, through_the_run, 0), array, axis), array)


def running_extreme_jvp(g, ans, array, axis, dtype, out):
    """The mean of the tangents of the winners of ``y[k]``'s run up to ``k``."""
    x, y = _along_last(as_compared(array, dtype), axis), _along_last(ans, axis)
    t = np.broadcast_to(_along_last(g, axis), y.shape)
    winners, first, last, count = running_winners(x, y)
    mean = _within_run(np.where(winners, t, 0), first) / count
    return as_tangent_of(np.reshape(_back(mean, array, axis), np.shape(ans)), ans)


# ------------------------------------------------------------------ sums of slices


def reduceat_slices(indices, length):
    """Which slice of ``np.add.reduceat`` each element read belongs to, and where it is: two
    integer arrays, one entry per (slice, element) pair, as NumPy reads ``indices`` (``indices[k]
    >= indices[k + 1]`` reads ``array[indices[k]]`` alone; the last slice runs to ``length``)."""
    starts = np.asarray(indices, dtype=np.intp).reshape(-1)
    following = np.append(starts[1:], length)
    stops = np.where(starts < following, following, starts + 1)
    sizes = stops - starts
    owner = np.repeat(np.arange(starts.size), sizes)
    offset = np.arange(owner.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return owner, starts[owner] + offset


def add_reduceat_vjp(g, ans, array, indices, axis, dtype, out):
    if dtype_of(array).kind not in "fc":
        return NO_TANGENT
    moved_g = np.moveaxis(np.asarray(g), axis, 0)
    length = np.shape(array)[axis]
    owner, position = reduceat_slices(indices, length)
    gathered = added_at(np.zeros((length,) + moved_g.shape[1:], dtype=moved_g.dtype), position, moved_g[owner])
    return unbroadcast(np.moveaxis(gathered, 0, axis), array)


def reduceat_products_of_others(array, indices, axis):
    """For each (slice, element) pair of ``reduceat_slices``, the product of the slice's other
    elements along ``axis`` (moved first): exact at zeros."""
    moved = np.moveaxis(np.asarray(array), axis, 0)
    owner, position = reduceat_slices(indices, moved.shape[0])
    others = np.empty((owner.size,) + moved.shape[1:], dtype=moved.dtype)
    for k in range(np.size(indices)):
        pairs = np.flatnonzero(owner == k)
        others[pairs] = products_of_others(moved[position[pairs]], 0, None, True)
    return owner, position, others


def multiply_reduceat_vjp(g, ans, array, indices, axis, dtype, out):
    if dtype_of(array).kind not in "fc":
        return NO_TANGENT
    moved_g = np.moveaxis(np.asarray(g), axis, 0)
    owner, position, others = reduceat_products_of_others(array, indices, axis)
    length = np.shape(array)[axis]
    gathered = added_at(np.zeros((length,) + moved_g.shape[1:], dtype=np.result_type(moved_g, others)), position,
                        moved_g[owner] * conj(others))
    return unbroadcast(np.moveaxis(gathered, 0, axis), array)


def multiply_reduceat_jvp(g, ans, array, indices, axis, dtype, out):
    """The sum over each slice of an element's tangent times the product of the others."""
    owner, position, others = reduceat_products_of_others(array, indices, axis)
    moved_t = np.moveaxis(np.broadcast_to(g, np.shape(array)), axis, 0)
    per_pair = moved_t[position] * others
    moved = np.add.reduceat(per_pair, np.searchsorted(owner, np.arange(np.size(indices))), axis=0)
    return as_tangent_of(np.moveaxis(moved, 0, axis), ans)


# ------------------------------------------------------------------ outer products


def add_outer_vjp_a(g, ans, A, B):
    """``g`` summed over ``B``'s axes (the last ones): shaped like ``A``."""
    return unbroadcast(np.sum(g, axis=tuple(range(np.ndim(A), np.ndim(g)))), A)


def add_outer_vjp_b(g, ans, A, B):
    """``g`` summed over ``A``'s axes (the first ones): shaped like ``B``."""
    return unbroadcast(np.sum(g, axis=tuple(range(np.ndim(A)))), B)


def subtract_outer_vjp_b(g, ans, A, B):
    return unbroadcast(-np.sum(g, axis=tuple(range(np.ndim(A)))), B)


def multiply_outer_vjp_a(g, ans, A, B):
    return unbroadcast(np.tensordot(g, conj(np.asarray(B)), axes=np.ndim(B)), A)


def multiply_outer_vjp_b(g, ans, A, B):
    return unbroadcast(np.tensordot(conj(np.asarray(A)), g, axes=np.ndim(A)), B)


def logaddexp_reduce_vjp(g, ans, array, axis, dtype, out, keepdims, initial, where):
    """``log(sum(exp(array)))`` along ``axis``, as logsumexp: each element's slope is ``exp(x - ans)``."""
    spread = expand_reduced(g, array, axis, keepdims, where)
    return unbroadcast(spread * np.exp(array - expand_reduced(ans, array, axis, keepdims)), array)


def logaddexp_reduce_jvp(g, ans, array, axis, dtype, out, keepdims, initial, where):
    weights = np.exp(array - expand_reduced(ans, array, axis, keepdims))
    return as_tangent_of(np.sum(g * weights, axis=axis, keepdims=keepdims, where=where), ans)


def _refused_initial(function):
    return (None, None, None, None, refused_keyword("initial", function, _REDUCE))  # after `array`: axis, dtype, out, keepdims


# ------------------------------------------------------------------ the table
defvjp(np.add.reduce,        _REDUCE, "expand_reduced(g, array, axis, keepdims, where)", None, None, None, None,
       "unbroadcast(g, initial)", name="numpy.add.reduce")
defvjp(np.multiply.reduce,   _REDUCE, prod_vjp, *_refused_initial("np.multiply.reduce"), name="numpy.multiply.reduce")
defvjp(np.maximum.reduce,    _REDUCE, extreme_reduce_vjp, *_refused_initial("np.maximum.reduce"), name="numpy.maximum.reduce")
defvjp(np.minimum.reduce,    _REDUCE, extreme_reduce_vjp, *_refused_initial("np.minimum.reduce"), name="numpy.minimum.reduce")
defvjp(np.logaddexp.reduce,  _REDUCE, logaddexp_reduce_vjp, *_refused_initial("np.logaddexp.reduce"),
       name="numpy.logaddexp.reduce")
defvjp(np.add.accumulate,    _ACCUMULATE, cumsum_vjp, name="numpy.add.accumulate")
defvjp(np.multiply.accumulate, _ACCUMULATE, cumprod_vjp, name="numpy.multiply.accumulate")
defvjp(np.maximum.accumulate, _ACCUMULATE, running_extreme_vjp, name="numpy.maximum.accumulate")
defvjp(np.minimum.accumulate, _ACCUMULATE, running_extreme_vjp, name="numpy.minimum.accumulate")
defvjp(np.add.reduceat,      _REDUCEAT, add_reduceat_vjp, None, None, None, name="numpy.add.reduceat")
defvjp(np.multiply.reduceat, _REDUCEAT, multiply_reduceat_vjp, None, None, None, name="numpy.multiply.reduceat")
defvjp(np.add.outer,         _OUTER, add_outer_vjp_a, add_outer_vjp_b, name="numpy.add.outer")
defvjp(np.subtract.outer,    _OUTER, add_outer_vjp_a, subtract_outer_vjp_b, name="numpy.subtract.outer")
defvjp(np.multiply.outer,    _OUTER, multiply_outer_vjp_a, multiply_outer_vjp_b, name="numpy.multiply.outer")

nondifferentiable(running_winners, reduceat_slices)  # which elements win: bools and counts; positions

# ---- forward rules
defjvp(np.add.reduce, "np.sum(g, axis=axis, dtype=dtype, keepdims=keepdims, where=where)", None, None, None, None,
       initial_jvp)
defjvp(np.multiply.reduce, prod_jvp, *_refused_initial("np.multiply.reduce"))
defjvp(np.maximum.reduce, extreme_reduce_jvp, *_refused_initial("np.maximum.reduce"))
defjvp(np.logaddexp.reduce, logaddexp_reduce_jvp, *_refused_initial("np.logaddexp.reduce"))
defjvp(np.minimum.reduce, extreme_reduce_jvp, *_refused_initial("np.minimum.reduce"))
deflinear(np.add.accumulate, "array")
defjvp(np.multiply.accumulate, cumprod_jvp)
defjvp(np.maximum.accumulate, running_extreme_jvp)
defjvp(np.minimum.accumulate, running_extreme_jvp)
# (the zeros in the output's dtype: float64 zeros widened a float32 tangent)
defjvp(np.add.reduceat, LINEAR, None, None, None)
defjvp(np.multiply.reduceat, multiply_reduceat_jvp, None, None, None)
defjvp(np.add.outer, "np.add.outer(g, np.zeros(np.shape(B), dtype=np.result_type(ans)))",
       "np.add.outer(np.zeros(np.shape(A), dtype=np.result_type(ans)), g)")
defjvp(np.subtract.outer, "np.subtract.outer(g, np.zeros(np.shape(B), dtype=np.result_type(ans)))",
       "np.subtract.outer(np.zeros(np.shape(A), dtype=np.result_type(ans)), g)")
defjvp(np.multiply.outer, LINEAR, LINEAR)
