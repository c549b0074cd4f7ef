"""Rules for Python builtins: ``abs``, ``pow``, ``float``, ``sum``, ``max``, ``min``,
``list``, ``tuple``, ``divmod`` (``np.divmod``'s rule: the quotient has no slope).

``max``/``min`` (of several arguments or of one sequence) send the cotangent to the element
Python returns; where numbers tie for it (and no ``key=`` chose), to each of them in equal parts,
as ``np.max`` and ``np.maximum`` do. Python returns the first of tied extremes, of ``min`` and
``max`` alike: a sorting network's ``a, b = min(a, b), max(a, b)`` sent both cotangents to ``a``
at ``a == b`` (grad (3, 0) of ``min(a, b) + 2 * max(a, b)``, whose slopes there are (1, 2) and
(2, 1)); the parts give their mean, the central difference. ``len``, ``int``, ``round`` and
friends return integers and carry no gradient.
"""
import builtins

import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import defjvp
from s2sad.registry import defrrule, defvjp, nondifferentiable
from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk

from .helpers import unbroadcast
from .numpy_elementwise import divmod_jvp_x1, divmod_jvp_x2, divmod_vjp_x1, divmod_vjp_x2, power_jvp_exponent


_DICT_VALUES = type({}.values())


def sum_vjp_iterable(g, ans, iterable, start):
    """Each summand receives the whole cotangent (summed back to its shape); over an array,
    the summands are its rows along the first axis, as Python walks it."""
    if isinstance(iterable, np.ndarray) and iterable.ndim > 0:
        if len(iterable) == 0:
            return np.zeros_like(iterable)
        row = unbroadcast(unthunk(g), iterable[0])
        return np.broadcast_to(row, iterable.shape).astype(np.result_type(row, iterable), copy=True)
    if not isinstance(iterable, (list, tuple, _DICT_VALUES)):
        raise UnsupportedArgumentsError("sum() is differentiated over a list, a tuple, a dict's values or an array, "
                                        "not an iterator", hint="build a list first: sum([...]), or use np.sum")
    # a dict's values (`sum(d.values())`) hand their list of cotangents to the view's own rule
    cotangents = [unbroadcast(g, item) for item in iterable]
    return tuple(cotangents) if isinstance(iterable, tuple) else cotangents


def sequence_vjp(g, ans, iterable=()):
    """``list(xs)`` / ``tuple(xs)``: the cotangent of each element goes back to its place in ``xs``."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT or isinstance(iterable, dict):
        return ZERO  # a dict's items are its keys, which carry no gradient (list(params) of a dict of arrays)
    items = [g[i] for i in range(len(ans))] if isinstance(g, Tangent) else list(g)
    if isinstance(iterable, np.ndarray):
        if not items:
            return np.zeros_like(iterable)
        return np.stack([np.zeros_like(iterable[i]) if is_zero(item) else unthunk(item) for i, item in enumerate(items)])
    return tuple(items) if isinstance(iterable, tuple) else list(items)


def sequence_jvp(g, ans, iterable=()):
    """``list(xs)`` / ``tuple(xs)``: the tangents of ``xs``'s items, in a list or a tuple. The
    tangent of a namedtuple or dataclass made in forward code is a structural ``Tangent``
    (``tuple(p)`` of it raised TypeError: ``f(*p)`` of a namedtuple ``p``), read field by
    field; a dict's items are its keys, which have none."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return ZERO
    if isinstance(g, Tangent):
        if isinstance(iterable, dict):
            return ZERO
        keys = type(iterable)._fields if hasattr(type(iterable), "_fields") else range(len(ans))
        g = [_item_tangent(g[key]) for key in keys]
    return type(ans)(g)


_REAL_NUMBERS = (int, float, np.integer, np.floating)


def tied_for(winner: int, items: list, key) -> list[int]:
    """The items ``max``/``min`` returned ``items[winner]`` among: the real numbers equal to it where no
    ``key=`` chose (each gets an equal part of the cotangent), else the winner alone (``key=`` only
    chooses which item is handed back: its slope is zero almost everywhere, as ``sorted``'s)."""
    if key is not None or not isinstance(items[winner], _REAL_NUMBERS):
        return [winner]
    return [i for i, item in enumerate(items) if isinstance(item, _REAL_NUMBERS) and item == items[winner]]


def _extremum_rrule(choose):
    def extremum_rrule(*args, key=None, default=None):
        items = list(args[0]) if len(args) == 1 else list(args)
        if not items:
            return default, lambda g: (NO_TANGENT,) * (len(args) + 1)
        ranks = [key(item) for item in items] if key is not None else items
        winner = choose(range(len(items)), key=ranks.__getitem__)
        tied = tied_for(winner, items, key)

        def extremum_pullback(g):
            part = g if len(tied) == 1 else unthunk(g) / len(tied)
            parts = [part if i in tied else ZERO for i in range(len(items))]
            if len(args) > 1:
                return (NO_TANGENT, *parts)
            sequence = args[0]
            if isinstance(sequence, np.ndarray):
                out = np.zeros(sequence.shape, dtype=sequence.dtype)
                out[tied] += unthunk(part)
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
defvjp(builtins.divmod, "x1, x2", divmod_vjp_x1, divmod_vjp_x2)  # np.divmod's, for floats and arrays
defrrule(builtins.max, _extremum_rrule(builtins.max), choosers=("key",))
defrrule(builtins.min, _extremum_rrule(builtins.min), choosers=("key",))

nondifferentiable(
    builtins.len, builtins.int, builtins.bool, builtins.round, builtins.range, builtins.isinstance,
    builtins.str, builtins.hash, builtins.id, builtins.ord, builtins.chr, builtins.type, builtins.slice,
)


# ---- forward rules
#
# ``sum`` pushes forward the sum of its items' tangents (a list's tangent holds ZERO for the
# items without one); ``list``/``tuple`` make the same container of the tangents; ``abs`` and
# ``pow`` are those of ``math`` and ``operator`` (templates over functions with rules, so
# forward code can be differentiated again). ``max``/``min`` push forward the tangent of the
# element Python returns, the mean of the tied numbers' (``key=`` allowed: it only chooses).
# They need a signature, ``iterable, *args``: ``max(xs)`` has ``xs`` as its iterable,
# ``max(a, b, c)`` has ``a`` and ``args == (b, c)``, whose tangent is the tuple of the
# tangents of ``b`` and ``c`` (ZERO for those without one).


def pow_jvp_exponent(g, ans, base, exp, mod):
    return power_jvp_exponent(g, ans, base, exp)  # with mod, every argument is an int: no tangents


def tied_indices(choose, iterable, args, key) -> list[int]:
    """The indices of the elements ``max``/``min`` returns among ``(iterable, *args)``, or among
    ``iterable``'s items: the one Python returns and the numbers tied with it (none if there are none)."""
    items = [iterable] + list(args) if args else list(iterable)
    if not items:
        return []
    value = items.__getitem__ if key is None else (lambda i: key(items[i]))
    return tied_for(choose(range(len(items)), key=value), items, key)


def _part_of(t, indices: list[int], count: int):
    """The tangents ``t`` holds at ``indices`` (ZERO for those without one), summed, over ``count``: their
    part of the mean of ``count`` tied items' tangents."""
    total = ZERO
    for i in indices:
        item = _item_tangent(t[i])
        if item is not ZERO:
            total = item if total is ZERO else total + item
    return total if total is ZERO or count == 1 else total / count


def _item_tangent(t):
    return ZERO if t is None or t is NO_TANGENT else unthunk(t)


def _extremum_jvps(choose):
    # the mean of the tied items' tangents: those of ``iterable`` and of ``args`` come to two rules,
    # each giving its items' part
    def extremum_jvp_iterable(g, ans, iterable, args, key, default):
        tied = tied_indices(choose, iterable, args, key)
        if not tied or g is ZERO:
            return ZERO
        if args:
            return (g if len(tied) == 1 else g / len(tied)) if 0 in tied else ZERO
        return _part_of(unthunk(g), tied, len(tied))

    def extremum_jvp_args(g, ans, iterable, args, key, default):
        tied = tied_indices(choose, iterable, args, key)
        if g is ZERO or not any(tied):
            return ZERO
        return _part_of(g, [i - 1 for i in tied if i], len(tied))

    def extremum_jvp_default(g, ans, iterable, args, key, default):
        return g if not tied_indices(choose, iterable, args, key) else ZERO

    for jvp in (extremum_jvp_iterable, extremum_jvp_args, extremum_jvp_default):
        jvp.__name__ = jvp.__qualname__ = jvp.__name__.replace("extremum", choose.__name__)
    return extremum_jvp_iterable, extremum_jvp_args, None, extremum_jvp_default


defjvp(builtins.abs,   "g * ((x > 0) - (x < 0)) if type(x) is float else np.real(g * conj(np.sign(x)))")
defjvp(builtins.pow,   "power_jvp_base(g, base, exp)", pow_jvp_exponent, None, elementwise=True)
defjvp(builtins.float, "float(g)")
defjvp(builtins.sum,   "sum(g)", "g", elementwise=True)
defjvp(builtins.list,  sequence_jvp)
defjvp(builtins.tuple, sequence_jvp)
defjvp(builtins.divmod, divmod_jvp_x1, divmod_jvp_x2)
defjvp(builtins.max,   *_extremum_jvps(builtins.max), signature="iterable, *args, key=None, default=None")
defjvp(builtins.min,   *_extremum_jvps(builtins.min), signature="iterable, *args, key=None, default=None")
