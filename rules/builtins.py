"""Rules for Python builtins that act on numbers: ``abs``, ``pow``, ``float``, ``sum``.

``max``/``min`` take ``*args`` and are not covered yet (see the registry note in the
package's report); ``len``, ``int``, ``round`` and friends return integers and carry no
gradient.
"""
import builtins

from s2sad.registry import defvjp, nondifferentiable

from .helpers import unbroadcast


def sum_vjp_iterable(g, ans, iterable, start):
    """Each summand receives the whole cotangent (summed back to its shape)."""
    if not isinstance(iterable, (list, tuple)):
        raise NotImplementedError("sum() is differentiated over a list or tuple, not an iterator")
    cotangents = [unbroadcast(g, item) for item in iterable]
    return cotangents if isinstance(iterable, list) else tuple(cotangents)


defvjp(builtins.abs,   "x", "g * ((x > 0) - (x < 0)) if type(x) is float else g * np.sign(x)")
defvjp(builtins.pow,   "base, exp, mod=None", "power_vjp_base(g, base, exp)", "power_vjp_exponent(g, ans, base, exp)")
defvjp(builtins.float, "x=0.0", "unbroadcast(g, x)")
defvjp(builtins.sum,   "iterable, start=0", sum_vjp_iterable, "unbroadcast(g, start)")

nondifferentiable(
    builtins.len, builtins.int, builtins.bool, builtins.round, builtins.range, builtins.isinstance,
    builtins.str, builtins.hash, builtins.id, builtins.ord, builtins.chr,
)
