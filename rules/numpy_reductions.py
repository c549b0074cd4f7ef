"""Rules for NumPy's reductions and scans.

A reduction's cotangent is broadcast back over the reduced axes (``expand_reduced``:
``axis`` may be an int, a negative int, a tuple or None, with or without ``keepdims``)
and cast to the input's dtype. The result may be a read-only broadcast view: accumulate
cotangents out of place.

Conventions:

* ``max``/``min``/``amax``/``amin``: when several elements tie for the extreme value, the
  cotangent is split equally among them (each of ``k`` tied elements gets ``g / k``), so
  the gradient of ``np.max(x)`` always sums to ``g``.
* ``median``: the middle element of each sorted slice gets ``g`` (the two middle elements
  ``g / 2`` each when the slice has an even length, as NumPy averages them). Ties as for
  ``max``: the weight of a middle position is shared equally among all the elements equal to
  its value, which is the mean of the one-sided derivatives (``[1, 2, 2]``: each 2 gets
  ``g / 2``), and the exact derivative where it exists (``[1, 2, 2, 3]``: ``g / 2`` each).
  ``overwrite_input=True`` is refused: NumPy reorders the input, whose positions the
  cotangent is for.
* ``ptp``: ``max - min``, each with ``max``'s rule for ties; all elements equal gives 0.
* ``prod``: exact at zeros. The cotangent of ``x[i]`` is ``g`` times the product of the
  *other* elements, computed from exclusive left and right cumulative products along the
  reduced elements; nothing is divided by ``x``.
* ``std``: at zero spread (all elements equal) ``std`` has a kink like ``abs`` at 0; the
  rule gives the zero subgradient there, not NaN (through ``safe_divide``).
* ``where=``: the elements a mask leaves out get a zero cotangent, and do not count in
  ``mean``'s, ``var``'s and ``std``'s count or mean, nor in ``prod``'s product of the others.

* ``nansum``, ``nanmean``, ``nanprod``, ``nanmax``, ``nanmin``, ``nanvar``, ``nanstd``: the
  rule of the plain reduction with the NaN elements left out as a ``where`` mask leaves them
  out: a NaN element (a complex number with a NaN part too) gets a zero cotangent and does
  not count in the mean, the count or the product of the others. An all-NaN slice (whose
  value NumPy makes NaN, or 0 for ``nansum``) passes nothing back. Forward, a NaN element
  whose tangent is not finite is refused: a NaN made at this very point (``p * np.log(p)`` at
  ``p = 0`` is ``0 * -inf``; ``0 / 0``) is a number on either side, where NumPy's function has
  no derivative, and such a NaN's tangent is NaN or infinite (the operand at 0 or infinity
  moves it); a NaN of the data that only passes through sums keeps a finite tangent, and is
  left out. (Reverse, the same NaN meets the zero cotangent, and the NaN derivative is refused.)
* ``trapezoid`` (and ``trapz`` where NumPy still has it): ``sum_i d_i (y_i + y_(i+1)) / 2``
  with ``d = diff(x)`` (or ``dx``), bilinear in ``y`` and the widths: ``y_j`` gets half the
  width of each interval it ends, ``x_j`` the height of the interval on its left minus that
  of the one on its right, ``dx`` the sum of the heights (nothing when ``x`` is given).

Complex input (the convention of ``numpy_fft``): ``sum``, ``mean``, ``cumsum`` are linear
and ``prod`` is holomorphic, so ``prod`` pulls ``g`` back to ``g * conj(product of the
others)``. ``max``/``min`` order complex numbers lexicographically (real part, then
imaginary), as NumPy does, and pass ``g`` to the winners. ``var`` and ``std`` of complex
input are real: ``var = sum(|c|**2) / (n - ddof)`` with ``c = z - mean(z)``, and
``d var = 2 Re(sum(conj(c) dz)) / (n - ddof)`` (the ``mean(dz)`` term drops out since
``sum(c) = 0``), so the cotangent is ``2 g c / (n - ddof)``, the real formula read for
complex ``c``; ``std``'s is that divided by ``2 std``.

Forward rules follow the same conventions: ``sum``, ``mean`` and ``cumsum`` reduce the
tangent as they reduce the input (``where`` too; ``initial`` is a constant); ``prod``
pushes ``sum(dx * product of the others)`` (exact at zeros); ``max``/``min`` push the mean
of the tangents of the tied winners (0 where ``initial`` won), ``median`` the weighted sum of
the middle elements' tangents, ``ptp`` max's tangent minus min's; ``var`` pushes
``2 Re(sum(conj(c) dz)) / (n - ddof)`` and ``std`` that over ``2 std`` (0 at zero spread).
"""
import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import LINEAR, defjvp, deflinear
from s2sad.registry import defvjp, signature_from_text
from s2sad.runtime.projection import is_float_like
from s2sad.runtime.tangents import NO_TANGENT, ZERO

from .helpers import conj, dtype_of, expand_reduced, reduced_count, safe_divide, unbroadcast
from .numpy_shapes import as_tangent_of

_SUM = "a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True"
_MEAN = "a, axis=None, dtype=None, out=None, keepdims=False, *, where=True"
_EXTREME = "a, axis=None, out=None, keepdims=False, initial=None, where=True"
_MEDIAN = "a, axis=None, out=None, overwrite_input=False, keepdims=False"
_PTP = "a, axis=None, out=None, keepdims=False"
_TRAPEZOID = "y, x=None, dx=1.0, axis=-1"
_SPREAD = "a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=None, correction=None"


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(ax % ndim for ax in axis))
    return (axis % ndim,)


def _spread_count(a, axis, ddof, correction, where):
    """The divisor of ``var``: ``n - ddof`` (an array shaped for broadcasting, with a ``where`` mask)."""
    return reduced_count(a, axis, True, where) - (ddof if correction is None else correction)


def _centred(a, axis, where, mean):
    """``a`` minus its mean over ``axis``: the ``mean`` NumPy was given, or that of the selected elements."""
    if mean is None:
        mean = np.mean(a, axis=axis, keepdims=True, where=where)
    return a - mean


def prod_vjp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    """``g`` times the (conjugate) product of the other elements: exclusive cumulative products, no division."""
    if np.asarray(a).dtype.kind in "biu":
        return NO_TANGENT
    others = products_of_others(a, axis, initial, where)
    return unbroadcast(expand_reduced(g, a, axis, keepdims, where) * conj(others), a)


def products_of_others(a, axis, initial, where):
    """For each element, the product of the other elements reduced with it (and ``initial``)."""
    x = np.asarray(a)
    if where is not True:
        x = np.where(where, x, 1)  # elements left out of the product count as 1 (their own cotangent is 0)
    if x.size == 0 or x.ndim == 0:
        # no elements: no others to multiply (and no cotangent to share); a number (np.multiply.reduce
        # takes one, along its "axis 0"): its own product, no others
        return np.ones(x.shape, dtype=x.dtype)
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
    return others


def extreme_vjp(g, ans, a, axis, out, keepdims, initial, where):
    """Cotangent of max/min: shared equally among the elements that attain the extreme."""
    winners = np.equal(a, expand_reduced(ans, a, axis, keepdims))
    if where is not True:
        winners = winners & where
    count = np.maximum(np.sum(winners, axis=axis, keepdims=True), 1)  # no winner: ``initial`` won
    share = expand_reduced(g, a, axis, keepdims) / count.astype(dtype_of(a))
    return unbroadcast(np.where(winners, share, 0), a)


def _median_weights(a, axis, overwrite_input):
    """How much each element of ``a`` counts in the median of its slice: 1/2 for each of the
    two middle sorted positions (the same one twice for an odd length), each position's half
    shared equally among the elements equal to its value (ties)."""
    if overwrite_input:
        raise UnsupportedArgumentsError("no rule for np.median with overwrite_input=True: NumPy reorders the input "
                                        "in place, so its elements are no longer where the cotangent puts them")
    x = np.asarray(a)
    axes = _axes(axis, x.ndim)
    kept = [ax for ax in range(x.ndim) if ax not in axes]
    kept_shape = [1 if ax in axes else x.shape[ax] for ax in range(x.ndim)]  # the reduction's shape, keepdims
    ordered = np.sort(np.reshape(np.transpose(x, kept + list(axes)), [x.shape[ax] for ax in kept] + [-1]), axis=-1)
    n = ordered.shape[-1]
    weights = 0
    for position in ((n - 1) // 2, n // 2):
        middle = np.reshape(ordered[..., position], kept_shape)
        tied = np.equal(x, middle)
        weights = weights + tied / (2 * np.sum(tied, axis=axes, keepdims=True))
    return weights.astype(np.real(np.zeros((), x.dtype)).dtype)


def median_vjp(g, ans, a, axis, out, overwrite_input, keepdims):
    if np.asarray(a).dtype.kind in "biu":
        return NO_TANGENT
    weights = _median_weights(a, axis, overwrite_input)
    return unbroadcast(expand_reduced(g, a, axis, keepdims) * weights, a)


def ptp_vjp(g, ans, a, axis, out, keepdims):
    """``max - min``: the cotangent of ``max`` minus that of ``min``, ties shared as theirs are."""
    if np.asarray(a).dtype.kind in "biu":
        return NO_TANGENT
    highest = np.max(a, axis=axis, keepdims=keepdims)
    lowest = np.min(a, axis=axis, keepdims=keepdims)
    return (extreme_vjp(g, highest, a, axis, None, keepdims, None, True)
            - extreme_vjp(g, lowest, a, axis, None, keepdims, None, True))


def var_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """``2 g (a - mean) / (n - ddof)``, for real and complex ``a`` alike. A variance asked for
    in a complex ``dtype`` is complex with no imaginary part, whatever ``a``: only ``g``'s real
    part moves the loss."""
    centred = _centred(a, axis, where, mean)
    scale = 2 / _spread_count(a, axis, ddof, correction, where)
    return unbroadcast(expand_reduced(np.real(g), a, axis, keepdims, where) * centred * scale, a)


def std_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """``g (a - mean) / ((n - ddof) std)``: var's over ``2 std``; 0 where ``std`` is 0."""
    centred = _centred(a, axis, where, mean)
    spread = expand_reduced(np.real(ans), a, axis, keepdims) * _spread_count(a, axis, ddof, correction, where)
    return unbroadcast(safe_divide(expand_reduced(np.real(g), a, axis, keepdims, where) * centred, spread), a)


def cumsum_vjp(g, ans, a, axis, dtype, out):
    if axis is None:
        return unbroadcast(np.reshape(np.cumsum(np.ravel(g)[::-1])[::-1], np.shape(a)), a)
    reversed_g = np.flip(g, axis)
    return unbroadcast(np.flip(np.cumsum(reversed_g, axis), axis), a)



# ------------------------------------------------------------------ NaN-ignoring reductions and the trapezoid rule


def _present(a, where):
    """The elements a ``nan...`` reduction reads: not NaN (a complex number with a NaN part is
    NaN), and selected by ``where``. Its rule is the plain reduction's with this mask."""
    present = ~np.isnan(a)
    return present if where is True else present & where


def nansum_vjp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    return expand_reduced(g, a, axis, keepdims, _present(a, where))


def nanmean_vjp(g, ans, a, axis, dtype, out, keepdims, where):
    present = _present(a, where)
    count = np.maximum(reduced_count(a, axis, keepdims, present), 1)  # an all-NaN slice: nothing to share
    return expand_reduced(g / count, a, axis, keepdims, present)


def nanprod_vjp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    return prod_vjp(g, ans, a, axis, dtype, out, keepdims, initial, _present(a, where))


def nanvar_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    present = _present(a, where)  # (a NaN's distance from the mean is NaN: its zero share is put in)
    return unbroadcast(np.where(present, var_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, present, mean, correction), 0), a)


def nanstd_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    present = _present(a, where)
    return unbroadcast(np.where(present, std_vjp(g, ans, a, axis, dtype, out, ddof, keepdims, present, mean, correction), 0), a)


def _intervals(y, x, dx, axis):
    """The widths of ``trapezoid``'s intervals, shaped to broadcast against them (as NumPy
    shapes them: a 1-D ``x`` lies along ``axis``)."""
    if x is None:
        return dx
    x = np.asarray(x)
    if x.ndim == 1 and x.shape[0] != np.shape(y)[axis]:
        # NumPy then broadcasts the len(x) - 1 widths against another axis of y (a mistake it computes)
        raise UnsupportedArgumentsError(
            f"np.trapezoid is given {x.shape[0]} sample points x for {np.shape(y)[axis]} values along axis {axis}: "
            "no rule for NumPy's broadcast of the widths against another axis",
            hint="pass an x as long as y along the axis of integration")
    if x.ndim == 1:
        shape = [1] * np.ndim(y)
        shape[axis] = x.shape[0] - 1
        return np.reshape(np.diff(x), shape)
    return np.diff(x, axis=axis)


def _midpoints(y, axis):
    """``(y[i] + y[i + 1]) / 2`` along ``axis``: the heights of the trapezoids."""
    y = np.asarray(y)
    n = y.shape[axis]
    return (np.take(y, np.arange(1, n), axis=axis) + np.take(y, np.arange(n - 1), axis=axis)) / 2


def _both_ends(per_interval, axis):
    """Each interval's share given to its left and its right end: ``(before, after)``, each
    with one more element along ``axis`` (zero where an end has no interval on that side)."""
    edge = list(np.shape(per_interval))
    edge[axis] = 1
    zero = np.zeros(edge, dtype=np.result_type(per_interval))
    return np.concatenate([per_interval, zero], axis=axis), np.concatenate([zero, per_interval], axis=axis)


def trapezoid_vjp_y(g, ans, y, x, dx, axis):
    """``ans = sum_i d_i (y_i + y_(i+1)) / 2``: ``y_j`` gets ``g`` times half of each interval it ends."""
    if np.shape(y)[axis] == 0:
        return unbroadcast(np.zeros(np.shape(y)), y)
    half = np.expand_dims(g, axis) * conj(_intervals(y, x, dx, axis)) / 2
    half = np.broadcast_to(half, np.broadcast_shapes(np.shape(half), np.shape(_midpoints(y, axis))))
    left, right = _both_ends(half, axis)
    return unbroadcast(left + right, y)


def trapezoid_vjp_x(g, ans, y, x, dx, axis):
    """``d_i = x_(i+1) - x_i`` multiplies the height ``m_i``: ``x_j`` gets ``g (m_(j-1) - m_j)``."""
    if x is None:
        return NO_TANGENT
    if np.shape(y)[axis] == 0:
        return unbroadcast(np.zeros(np.shape(x)), x)
    weighted = np.expand_dims(g, axis) * conj(_midpoints(y, axis))
    weighted = np.broadcast_to(weighted, np.broadcast_shapes(np.shape(weighted), np.shape(_intervals(y, x, dx, axis))))
    left, right = _both_ends(weighted, axis)
    slopes = right - left
    if np.ndim(x) == 1:  # one coordinate per position along `axis`, shared by every other index
        kept = axis % slopes.ndim
        return unbroadcast(np.sum(slopes, axis=tuple(ax for ax in range(slopes.ndim) if ax != kept)), x)
    return unbroadcast(slopes, x)


def trapezoid_vjp_dx(g, ans, y, x, dx, axis):
    """``ans = sum_i dx m_i`` when no ``x`` is given (else ``dx`` is not read); an array ``dx``
    is one width per interval, broadcast as NumPy broadcasts it."""
    if x is not None:
        return unbroadcast(np.zeros(np.shape(dx)), dx)
    return unbroadcast(np.expand_dims(g, axis) * conj(_midpoints(y, axis)), dx)


# ------------------------------------------------------------------ keywords given a differentiated value
def initial_jvp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    """A sum's (or np.add.reduce's) ``initial=`` is added to every entry of the result."""
    return as_tangent_of(np.zeros_like(ans) + g, ans)


def refused_keyword(keyword: str, function: str, signature: str):
    """The rule slot of a keyword s2sad does not differentiate (np.max's ``initial=``, np.var's
    ``mean=`` and ``correction=``; ``signature``, the rule's): called when the value passed is
    differentiated, and refusing there. (None in the slot would say no gradient flows: a silent
    zero.) A rule's whole pullback (a method's, ``x.var(ddof=1)``) calls every slot: an int, a
    flag or None there has no tangent space."""
    position = list(signature_from_text(signature).parameters).index(keyword)

    def refused(g, ans, *params):
        if not is_float_like(params[position]):
            return NO_TANGENT
        raise UnsupportedArgumentsError(
            f"`{keyword}=` of {function} is given a differentiated value, which s2sad does not differentiate",
            hint=f"pass a constant `{keyword}=`, or compute the result without it")
    refused.__name__ = refused.__qualname__ = f"{function.split('.')[-1]}_refuses_{keyword}"
    return refused


_SUM_INITIAL = (None, None, None, None, "unbroadcast(g, initial)")  # after `a`: axis, dtype, out, keepdims, initial


def _extreme_initial(function):
    return (None, None, None, refused_keyword("initial", function, _EXTREME))  # after `a`: axis, out, keepdims, initial


def _spread_keywords(function):
    # after `a`: axis, dtype, out, ddof, keepdims, where, mean, correction
    return (None, None, None, refused_keyword("ddof", function, _SPREAD), None, None,
            refused_keyword("mean", function, _SPREAD), refused_keyword("correction", function, _SPREAD))


# ------------------------------------------------------------------ the table
defvjp(np.sum,    _SUM,      "expand_reduced(g, a, axis, keepdims, where)", *_SUM_INITIAL)
defvjp(np.mean,   _MEAN,     "expand_reduced(g / reduced_count(a, axis, keepdims, where), a, axis, keepdims, where)")
defvjp(np.prod,   _SUM,      prod_vjp, None, None, None, None, refused_keyword("initial", "np.prod", _SUM))
defvjp(np.max,    _EXTREME,  extreme_vjp, *_extreme_initial("np.max"))
defvjp(np.min,    _EXTREME,  extreme_vjp, *_extreme_initial("np.min"))
defvjp(np.amax,   _EXTREME,  extreme_vjp, *_extreme_initial("np.amax"))
defvjp(np.amin,   _EXTREME,  extreme_vjp, *_extreme_initial("np.amin"))
defvjp(np.median, _MEDIAN,  median_vjp, None, None, None, None)
defvjp(np.ptp,    _PTP,      ptp_vjp, None, None, None)
defvjp(np.var,    _SPREAD,   var_vjp, *_spread_keywords("np.var"))
defvjp(np.std,    _SPREAD,   std_vjp, *_spread_keywords("np.std"))
defvjp(np.cumsum, "a, axis=None, dtype=None, out=None", cumsum_vjp)
defvjp(np.nansum,  _SUM,      nansum_vjp, *_SUM_INITIAL)
defvjp(np.nanmean, _MEAN,     nanmean_vjp)
defvjp(np.nanmax,  _EXTREME,  extreme_vjp, *_extreme_initial("np.nanmax"))  # a NaN never equals the result: it is no winner
defvjp(np.nanmin,  _EXTREME,  extreme_vjp, *_extreme_initial("np.nanmin"))
defvjp(np.nanprod, _SUM,      nanprod_vjp, None, None, None, None, refused_keyword("initial", "np.nanprod", _SUM))
defvjp(np.nanvar,  _SPREAD,   nanvar_vjp, *_spread_keywords("np.nanvar"))
defvjp(np.nanstd,  _SPREAD,   nanstd_vjp, *_spread_keywords("np.nanstd"))
if hasattr(np, "trapezoid"):  # NumPy >= 2.0
    defvjp(np.trapezoid, _TRAPEZOID, trapezoid_vjp_y, trapezoid_vjp_x, trapezoid_vjp_dx, None)
if hasattr(np, "trapz"):  # NumPy < 2.4: the old name
    defvjp(np.trapz, _TRAPEZOID, trapezoid_vjp_y, trapezoid_vjp_x, trapezoid_vjp_dx, None)


# ------------------------------------------------------------------ forward rules: what a template cannot say


def prod_jvp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    others = products_of_others(a, axis, initial, where)
    return as_tangent_of(np.sum(others * g, axis=axis, keepdims=keepdims, where=where), ans)


def extreme_jvp(g, ans, a, axis, out, keepdims, initial, where):
    """The mean of the winners' tangents (the tied elements share, as in the reverse rule)."""
    winners = np.equal(a, expand_reduced(ans, a, axis, keepdims))
    if where is not True:
        winners = winners & where
    count = np.maximum(np.sum(winners, axis=axis, keepdims=keepdims), 1)  # no winner: ``initial`` won
    return as_tangent_of(np.sum(np.where(winners, g, 0), axis=axis, keepdims=keepdims) / count, ans)


def median_jvp(g, ans, a, axis, out, overwrite_input, keepdims):
    """The tangents of the middle elements, weighted as in the reverse rule."""
    weights = _median_weights(a, axis, overwrite_input)
    return as_tangent_of(np.sum(weights * g, axis=axis, keepdims=keepdims), ans)


def ptp_jvp(g, ans, a, axis, out, keepdims):
    highest = np.max(a, axis=axis, keepdims=keepdims)
    lowest = np.min(a, axis=axis, keepdims=keepdims)
    return as_tangent_of(extreme_jvp(g, highest, a, axis, None, keepdims, None, True)
                         - extreme_jvp(g, lowest, a, axis, None, keepdims, None, True), ans)


def _spread_tangent(g, a, axis, ddof, keepdims, where, mean, correction):
    """d var = 2 Re(sum(conj(c) dz)) / (n - ddof), reduced axes kept."""
    centred = _centred(a, axis, where, mean)
    total = np.sum(np.real(np.conj(centred) * g), axis=axis, keepdims=True, where=where)
    return 2 * total / _spread_count(a, axis, ddof, correction, where)


def var_jvp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    d_var = _spread_tangent(g, a, axis, ddof, keepdims, where, mean, correction)
    return as_tangent_of(np.reshape(d_var, np.shape(ans)), ans)


def std_jvp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    d_var = _spread_tangent(g, a, axis, ddof, keepdims, where, mean, correction)
    return as_tangent_of(safe_divide(np.reshape(d_var, np.shape(ans)), 2 * ans), ans)



def steady_nans(g, a, where, function: str) -> None:
    """Refuse a forward ``nan...`` reduction whose skipped NaN elements have a tangent that is not
    finite: such a NaN may hold at this point only (see the module's notes)."""
    skipped = np.isnan(a) if where is True else np.isnan(a) & where
    if np.any(skipped & ~np.isfinite(g)):
        raise UnsupportedArgumentsError(
            f"{function} skips a NaN whose tangent is not finite: a NaN made at this very point (0 * inf, as "
            "p * np.log(p) at p = 0, or 0 / 0) is a number on either side, where NumPy's function has no "
            "derivative, and forward mode cannot tell it from a NaN of the data",
            hint="put the value the NaN stands for in its place before the arithmetic (np.where(p > 0, p * "
                 "np.log(p), 0.0), np.where(np.isnan(data), 0.0, data)), or differentiate with grad")


def nansum_jvp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    steady_nans(g, a, where, "np.nansum")
    return as_tangent_of(np.sum(g, axis=axis, dtype=dtype, keepdims=keepdims, where=_present(a, where)), ans)


def nanmean_jvp(g, ans, a, axis, dtype, out, keepdims, where):
    steady_nans(g, a, where, "np.nanmean")
    present = _present(a, where)
    total = np.sum(g, axis=axis, dtype=dtype, keepdims=keepdims, where=present)
    return as_tangent_of(total / np.maximum(reduced_count(a, axis, keepdims, present), 1), ans)


def nanprod_jvp(g, ans, a, axis, dtype, out, keepdims, initial, where):
    steady_nans(g, a, where, "np.nanprod")
    return prod_jvp(g, ans, a, axis, dtype, out, keepdims, initial, _present(a, where))


def nanvar_jvp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    steady_nans(g, a, where, "np.nanvar")
    return var_jvp(g, ans, a, axis, dtype, out, ddof, keepdims, _present(a, where), mean, correction)


def nanmax_jvp(g, ans, a, axis, out, keepdims, initial, where):
    steady_nans(g, a, where, "np.nanmax")
    return extreme_jvp(g, ans, a, axis, out, keepdims, initial, where)


def nanmin_jvp(g, ans, a, axis, out, keepdims, initial, where):
    steady_nans(g, a, where, "np.nanmin")
    return extreme_jvp(g, ans, a, axis, out, keepdims, initial, where)


def nanstd_jvp(g, ans, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    steady_nans(g, a, where, "np.nanstd")
    return std_jvp(g, ans, a, axis, dtype, out, ddof, keepdims, _present(a, where), mean, correction)


def trapezoid_jvp_dx(g, ans, y, x, dx, axis):
    """Linear in ``dx``, which is read only when no ``x`` is given."""
    return ZERO if x is not None else as_tangent_of(np.sum(g * _midpoints(y, axis), axis=axis), ans)


# ---- forward rules
# linear in `a`, but not as the call is written: an `initial` value is a constant, not summed twice
defjvp(np.sum,    "np.sum(g, axis=axis, dtype=dtype, keepdims=keepdims, where=where)", None, None, None, None, initial_jvp)
defjvp(np.mean,   "np.mean(g, axis=axis, dtype=dtype, keepdims=keepdims, where=where)")
defjvp(np.prod,   prod_jvp, None, None, None, None, refused_keyword("initial", "np.prod", _SUM))
defjvp(np.max,    extreme_jvp, *_extreme_initial("np.max"))
defjvp(np.min,    extreme_jvp, *_extreme_initial("np.min"))
defjvp(np.amax,   extreme_jvp, *_extreme_initial("np.amax"))
defjvp(np.amin,   extreme_jvp, *_extreme_initial("np.amin"))
defjvp(np.median, median_jvp, None, None, None, None)
defjvp(np.ptp,    ptp_jvp, None, None, None)
defjvp(np.var,    var_jvp, *_spread_keywords("np.var"))
defjvp(np.std,    std_jvp, *_spread_keywords("np.std"))
deflinear(np.cumsum, "a")
defjvp(np.nansum,  nansum_jvp, None, None, None, None, initial_jvp)
defjvp(np.nanmean, nanmean_jvp)
defjvp(np.nanmax,  nanmax_jvp, *_extreme_initial("np.nanmax"))  # a NaN never equals the result: it is no winner
defjvp(np.nanmin,  nanmin_jvp, *_extreme_initial("np.nanmin"))
defjvp(np.nanprod, nanprod_jvp, None, None, None, None, refused_keyword("initial", "np.nanprod", _SUM))
defjvp(np.nanvar,  nanvar_jvp, *_spread_keywords("np.nanvar"))
defjvp(np.nanstd,  nanstd_jvp, *_spread_keywords("np.nanstd"))
if hasattr(np, "trapezoid"):  # linear in y, and in x (through its differences)
    defjvp(np.trapezoid, LINEAR, LINEAR, trapezoid_jvp_dx, None)
if hasattr(np, "trapz"):
    defjvp(np.trapz, LINEAR, LINEAR, trapezoid_jvp_dx, None)
