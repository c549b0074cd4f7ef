"""Rules for Python builtins: ``abs``, ``pow``, ``float``, ``sum``, ``max``, ``min``,
``list``, ``tuple``.

``max``/``min`` (of several arguments or of one sequence) send the cotangent to the element
Python returns: the first of tied extremes. ``len``, ``int``, ``round`` and friends return
integers and carry no gradient.
"""
import builtins

import numpy as np

from s2sad.registry import defrrule, defvjp, nondifferentiable
from s2sad.tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk

from .helpers import unbroadcast


def sum_vjp_iterable(g, ans, iterable, start):
    """Each summand receives the whole cotangent (summed back to its shape)."""
    if not isinstance(iterable, (list, tuple)):
        raise NotImplementedError("sum() is differentiated over a list or tuple, not an iterator")
    cotangents = [unbroadcast(g, item) for item in iterable]
    return cotangents if isinstance(iterable, list) else tuple(cotangents)


def sequence_vjp(g, ans, iterable=()):
    """``list(xs)`` / ``tuple(xs)``: the cotangent of each element goes back to its place in ``xs``."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return ZERO
    items = [g[i] for i in range(len(ans))] if isinstance(g, Tangent) else list(g)
    if isinstance(iterable, np.ndarray):
        if not items:
            return np.zeros_like(iterable)
        return np.stack([np.zeros_like(iterable[i]) if is_zero(item) else unthunk(item) for i, item in enumerate(items)])
    return tuple(items) if isinstance(iterable, tuple) else list(items)


def _extremum_rrule(choose):
    def extremum_rrule(*args, key=None, default=None):
        if key is not None:
            raise NotImplementedError(f"{choose.__name__}(..., key=...) has no rule: compare the values themselves")
        items = list(args[0]) if len(args) == 1 else list(args)
        if not items:
            return default, lambda g: (NO_TANGENT,) * (len(args) + 1)
        winner = choose(range(len(items)), key=items.__getitem__)

        def extremum_pullback(g):
            parts = [ZERO] * len(items)
            parts[winner] = g
            if len(args) > 1:
                return (NO_TANGENT, *parts)
            sequence = args[0]
            if isinstance(sequence, np.ndarray):
                out = np.zeros(sequence.shape, dtype=sequence.dtype)
                out[winner] += unthunk(g)
                return NO_TANGENT, out
            return NO_TANGENT, (tuple(parts) if isinstance(sequence, tuple) else parts)

        extremum_pullback.__name__ = f"{choose.__name__}_pullback"
        return items[winner], extremum_pullback

    return extremum_rrule


defvjp(builtins.abs,   "x", "g * ((x > 0) - (x < 0)) if type(x) is float else g * np.sign(x)")
defvjp(builtins.pow,   "base, exp, mod=None", "power_vjp_base(g, base, exp)", "power_vjp_exponent(g, ans, base, exp)")
defvjp(builtins.float, "x=0.0", "unbroadcast(g, x)")
defvjp(builtins.sum,   "iterable, start=0", sum_vjp_iterable, "unbroadcast(g, start)")
defvjp(builtins.list,  "iterable=()", sequence_vjp)
defvjp(builtins.tuple, "iterable=()", sequence_vjp)
defrrule(builtins.max, _extremum_rrule(builtins.max))
defrrule(builtins.min, _extremum_rrule(builtins.min))

nondifferentiable(
    builtins.len, builtins.int, builtins.bool, builtins.round, builtins.range, builtins.isinstance,
    builtins.str, builtins.hash, builtins.id, builtins.ord, builtins.chr,
)
