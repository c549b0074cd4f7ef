"""Rules for NumPy's reductions and scans.

A reduction's cotangent is broadcast back over the reduced axes (``expand_reduced``:
``axis`` may be an int, a negative int, a tuple or None, with or without ``keepdims``)
and cast to the input's dtype. The result may be a read-only broadcast view: accumulate
cotangents out of place.

Conventions:

* ``max``/``min``/``amax``/``amin``: when several elements tie for the extreme value, the
  cotangent is split equally among them (each of ``k`` tied elements gets ``g / k``), so
  the gradient of ``np.max(x)`` always sums to ``g``.
* ``prod``: exact at zeros. The cotangent of ``x[i]`` is ``g`` times the product of the
  *other* elements, computed from exclusive left and right cumulative products along the
  reduced elements; nothing is divided by ``x``.
* ``std``: at zero spread (all elements equal) ``std`` has a kink like ``abs`` at 0; the
  rule gives the zero subgradient there, not NaN (through ``safe_divide``).
"""
import numpy as np

from s2sad.registry import defvjp
from s2sad.tangents import NO_TANGENT

from .helpers import expand_reduced, safe_divide, unbroadcast

_SUM = "a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True"
_MEAN = "a, axis=None, dtype=None, out=None, keepdims=False, *, where=True"
_EXTREME = "a, axis=None, out=None, keepdims=False, initial=None, where=True"
_SPREAD = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None"


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(ax % ndim for ax in axis))
    return (axis % ndim,)


def _spread_count(a, axis, ddof, correction):
    count = 1
    for ax in _axes(axis, np.ndim(a)):
        count *= np.shape(a)[ax]
    return count - (ddof if correction is None else correction)


def prod_vjp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    """``g`` times the product of the other elements: exclusive cumulative products, no division."""
    x = np.asarray(a)
    if x.dtype.kind in "biu":
        return NO_TANGENT
    axes = _axes(axis, x.ndim)
    kept = [ax for ax in range(x.ndim) if ax not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = moved.reshape(moved.shape[: len(kept)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (left * right).reshape(moved.shape)
    others = np.transpose(others, np.argsort(kept + list(axes)))
    if initial is not None:
        others = others * initial
    return unbroadcast(expand_reduced(g, a, axis, keepdims, where) * others, a)


def extreme_vjp(g, ans, a, axis, out, keepdims, initial, where):
    """Cotangent of max/min: shared equally among the elements that attain the extreme."""
    winners = np.equal(a, expand_reduced(ans, a, axis, keepdims))
    if where is not True:
        winners = winners & where
    count = np.sum(winners, axis=axis, keepdims=True)
    share = expand_reduced(g, a, axis, keepdims) / count.astype(np.result_type(a))
    return unbroadcast(np.where(winners, share, 0), a)


def var_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    centred = a - np.mean(a, axis=axis, keepdims=True)
    scale = 2 / _spread_count(a, axis, ddof, correction)
    return unbroadcast(expand_reduced(g, a, axis, keepdims) * centred * scale, a)


def std_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    centred = a - np.mean(a, axis=axis, keepdims=True)
    count = _spread_count(a, axis, ddof, correction)
    spread = expand_reduced(ans * count, a, axis, keepdims)
    return unbroadcast(safe_divide(expand_reduced(g, a, axis, keepdims) * centred, spread), a)


def cumsum_vjp(g, ans, a, axis, dtype, out):
    if axis is None:
        return unbroadcast(np.reshape(np.cumsum(np.ravel(g)[::-1])[::-1], np.shape(a)), a)
    reversed_g = np.flip(g, axis)
    return unbroadcast(np.flip(np.cumsum(reversed_g, axis), axis), a)


# ------------------------------------------------------------------ the table
defvjp(np.sum,    _SUM,      "expand_reduced(g, a, axis, keepdims, where)")
defvjp(np.mean,   _MEAN,     "expand_reduced(g / reduced_count(a, axis, keepdims, where), a, axis, keepdims, where)")
defvjp(np.prod,   _SUM,      prod_vjp)
defvjp(np.max,    _EXTREME,  extreme_vjp)
defvjp(np.min,    _EXTREME,  extreme_vjp)
defvjp(np.amax,   _EXTREME,  extreme_vjp)
defvjp(np.amin,   _EXTREME,  extreme_vjp)
defvjp(np.var,    _SPREAD,   var_vjp)
defvjp(np.std,    _SPREAD,   std_vjp)
defvjp(np.cumsum, "a, axis=None, dtype=None, out=None", cumsum_vjp)
