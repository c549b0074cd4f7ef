"""Rules for ``np.interp(x, xp, fp, left=None, right=None, period=None)``, piecewise-linear
interpolation (NumPy's own code is compiled: s2sad differentiates it by this rule).

NumPy evaluates each ``x`` on one piece, found by binary search: the segment ``j`` with
``xp[j] <= x < xp[j+1]``, where the value is ``fp[j] + t (fp[j+1] - fp[j])`` with
``t = (x - xp[j]) / (xp[j+1] - xp[j])``; exactly ``fp[-1]`` at ``x == xp[-1]``; ``left``
(default ``fp[0]``) below ``xp[0]`` and ``right`` (default ``fp[-1]``) above ``xp[-1]``.
The derivative is that of the piece NumPy evaluates:

* ``fp``: weight ``1 - t`` to ``fp[j]`` and ``t`` to ``fp[j+1]`` (exact, also at a knot,
  where ``t = 0``); 1 to ``fp[0]`` below and ``fp[-1]`` above when ``left``/``right`` are
  not given, else 1 to ``left``/``right`` themselves.
* ``x``: the slope ``s = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])``; 0 outside ``[xp[0], xp[-1]]``
  and at ``xp[-1]``. At an interior knot ``x == xp[j]`` the curve has a corner: the rule
  gives the slope of the segment to its right (the one NumPy's search picks), a one-sided
  derivative, as ``abs`` gives one at 0.
* ``xp``: ``s (t - 1)`` to ``xp[j]`` and ``-s t`` to ``xp[j+1]`` (moving the knots moves the
  curve); 0 outside. At a knot, again the right-hand segment's.
* ``period``: NumPy wraps ``x`` and ``xp`` into ``[0, period)``, sorts ``xp`` (with ``fp``)
  and extends both by one knot at each end; the rule walks the same steps, so each
  cotangent goes back to the knot it came from (``x % period`` has derivative 1).
  ``period`` itself gets no gradient: refused if asked for.

Complex ``fp`` (which NumPy takes) is interpolated with real weights, so its cotangent is
``g`` times the weight; the real ``x`` and ``xp`` get ``Re(conj(s) g)``-type real parts.
The forward rules push the same derivatives (``fp``'s tangent is ``np.interp`` of it), in
operations that have rules themselves, so that Hessian-vector products differentiate them.
"""
import numpy as np

from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp
from s2sad.runtime.structure import tangent_filled

from .helpers import conj, unbroadcast
from .numpy_shapes import as_tangent_of
from .refusals import refusing

_INTERP = "x, xp, fp, left=None, right=None, period=None"


def _knots(x, xp, period):
    """``(x, xp, source)`` as NumPy interpolates them: with ``period``, wrapped, sorted and
    extended; ``source[k]`` is the position in the given ``xp`` (and ``fp``) of knot ``k``."""
    x, xp = np.asarray(x), np.asarray(xp)
    source = np.arange(len(xp))
    if period is None:
        return x, xp, source
    period = abs(period)
    wrapped = xp % period
    order = np.argsort(wrapped)
    source = np.concatenate([order[-1:], order, order[:1]])
    shift = np.concatenate([[-period], np.zeros(len(order)), [period]])
    return x % period, wrapped[source] + shift, source


def _pieces(x, xp):
    """For each ``x``: the segment ``j`` NumPy uses (clipped into range), its position ``t``
    in it (0 off any segment), and masks below ``xp[0]``, on a segment, above ``xp[-1]``."""
    n = len(xp)
    j = np.searchsorted(xp, x, side="right") - 1          # -1 below; n - 1 at or above the last knot
    below = j < 0
    above = x > xp[-1]
    inside = (j >= 0) & (j < n - 1)
    j = np.clip(j, 0, max(n - 2, 0))
    if n < 2:
        return j, np.zeros(np.shape(x)), below, inside, above
    width = xp[j + 1] - xp[j]
    t = np.where(inside, (x - xp[j]) / np.where(inside, width, 1), 0)
    return j, t, below, inside, above


def _slope(j, inside, xp, fp):
    """The slope of segment ``j`` where ``x`` is on one, else 0."""
    if len(xp) < 2:
        return np.zeros(np.shape(inside))
    width = np.where(inside, xp[j + 1] - xp[j], 1)
    return np.where(inside, (fp[j + 1] - fp[j]) / width, 0)


def _gathered(values, positions, count, source, size):
    """Sum ``values`` into ``count`` knots at ``positions``, then back to the ``size`` given knots."""
    knots = np.zeros(count, dtype=np.result_type(values, float))
    np.add.at(knots, positions, values)
    given = np.zeros(size, dtype=knots.dtype)
    np.add.at(given, source, knots)
    return given


def _like(values, given):
    """Per-knot cotangents shaped as the knots were given: an array, or a list or tuple of numbers."""
    if isinstance(given, (list, tuple)):
        return type(given)(unbroadcast(value, item) for value, item in zip(values, given))
    return unbroadcast(values, given)


# ------------------------------------------------------------------ reverse
def interp_vjp_x(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    fp_ = np.asarray(fp)[source]
    j, t, below, inside, above = _pieces(x_, xp_)
    return _like(g * conj(_slope(j, inside, xp_, fp_)), x)


def interp_vjp_xp(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    fp_ = np.asarray(fp)[source]
    j, t, below, inside, above = _pieces(x_, xp_)
    if len(xp_) < 2:
        return _like(np.zeros(np.shape(xp)), xp)
    g = np.broadcast_to(g, np.shape(x_))
    s = conj(_slope(j, inside, xp_, fp_))
    values = np.concatenate([np.ravel(g * s * (t - 1)), np.ravel(-g * s * t)])
    positions = np.concatenate([np.ravel(j), np.ravel(j + 1)])
    return _like(np.real(_gathered(values, positions, len(xp_), source, len(xp))), xp)


def interp_vjp_fp(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    j, t, below, inside, above = _pieces(x_, xp_)
    g = np.broadcast_to(g, np.shape(x_))
    n = len(xp_)
    lower = np.where(inside, 1 - t, 0) + ((below & (left is None)) if period is None else 0)
    upper = np.where(inside, t, 0)
    last = (~inside & ~below & ~above & ~np.isnan(x_)) | (above & (right is None))  # at xp[-1], or above on fp[-1]
    values = np.concatenate([np.ravel(g * lower), np.ravel(g * upper), np.ravel(g * last)])
    positions = np.concatenate([np.ravel(j), np.ravel(np.minimum(j + 1, n - 1)), np.full(np.size(g), n - 1)])
    return _like(_gathered(values, positions, n, source, len(xp)), fp)


def interp_vjp_left(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    return unbroadcast(np.sum(np.where(x_ < xp_[0], g, 0)), left)


def interp_vjp_right(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    return unbroadcast(np.sum(np.where(x_ > xp_[-1], g, 0)), right)


_period_refused = refusing("np.interp with respect to `period`",
                           "hold the period constant (a number, not a value computed from what you differentiate)")

defvjp(np.interp, _INTERP, interp_vjp_x, interp_vjp_xp, interp_vjp_fp, interp_vjp_left, interp_vjp_right,
       _period_refused)


# ------------------------------------------------------------------ forward
def interp_jvp_x(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    fp_ = np.asarray(fp)[source]
    j, t, below, inside, above = _pieces(x_, xp_)
    return as_tangent_of(g * _slope(j, inside, xp_, fp_), ans)


def interp_jvp_xp(g, ans, x, xp, fp, left, right, period):
    x_, xp_, source = _knots(x, xp, period)
    fp_ = np.asarray(fp)[source]
    j, t, below, inside, above = _pieces(x_, xp_)
    if len(xp_) < 2:
        return np.zeros(np.shape(ans), dtype=np.result_type(ans))
    d = np.asarray(tangent_filled(g, xp))[source]
    s = _slope(j, inside, xp_, fp_)
    return as_tangent_of(s * (t - 1) * d[j] - s * t * d[j + 1], ans)


def interp_jvp_fp(g, ans, x, xp, fp, left, right, period):
    """``interp`` is linear in ``fp`` (``left``/``right``, when given, are constants here)."""
    return np.interp(x, xp, tangent_filled(g, fp), left=None if left is None else 0.0,
                     right=None if right is None else 0.0, period=period)


def interp_jvp_left(g, ans, x, xp, fp, left, right, period):
    """(With a period NumPy ignores ``left`` and ``right``: every ``x`` is wrapped onto the knots.)"""
    if period is not None:
        return np.zeros(np.shape(ans), dtype=np.result_type(ans))
    return as_tangent_of(np.where(np.asarray(x) < np.asarray(xp)[0], g, 0), ans)


def interp_jvp_right(g, ans, x, xp, fp, left, right, period):
    if period is not None:
        return np.zeros(np.shape(ans), dtype=np.result_type(ans))
    return as_tangent_of(np.where(np.asarray(x) > np.asarray(xp)[-1], g, 0), ans)


defjvp(np.interp, interp_jvp_x, interp_jvp_xp, interp_jvp_fp, interp_jvp_left, interp_jvp_right, _period_refused)
