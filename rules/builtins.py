"""Rules for Python builtins: ``abs``, ``pow``, ``float``, ``sum``, ``max``, ``min``,
``list``, ``tuple``, ``sorted``, ``dict`` and the methods ``get``, ``keys``, ``values`` and
``items`` of a dict.

``max``/``min`` (of several arguments or of one sequence) send the cotangent to the element
Python returns: the first of tied extremes. ``sorted`` sends each item's cotangent back to
the position it came from (the permutation Python's stable sort chose, ``key`` and
``reverse`` included; the order itself has no derivative). A dict's cotangent holds one
entry per key read: ``d.get(k, default)`` sends it to ``d[k]`` if the key is there and to
``default`` otherwise; ``dict(mapping_or_pairs)`` sends each entry to the value it came
from (the last of repeated keys, which Python keeps). ``len``, ``int``, ``round`` and
friends return integers and carry no gradient, and so do a dict's keys.
"""
import builtins

import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import defjvp
from s2sad.registry import defmethod, defrrule, defvjp, nondifferentiable
from s2sad.runtime.structure import split_cotangent, tangent_item
from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk

from .helpers import unbroadcast
from .numpy_elementwise import power_jvp_exponent


def sum_vjp_iterable(g, ans, iterable, start):
    """Each summand receives the whole cotangent (summed back to its shape); over an array,
    the summands are its rows along the first axis, as Python walks it."""
    if isinstance(iterable, np.ndarray) and iterable.ndim > 0:
        if len(iterable) == 0:
            return np.zeros_like(iterable)
        row = unbroadcast(unthunk(g), iterable[0])
        return np.broadcast_to(row, iterable.shape).astype(np.result_type(row, iterable), copy=True)
    if not isinstance(iterable, (list, tuple)):
        raise UnsupportedArgumentsError("sum() is differentiated over a list, a tuple or an array, not an iterator",
                                        hint="build a list first: sum([...]), or use np.sum")
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


def _listed(iterable, function: str) -> list:
    """The items of a list, tuple, array or dict view (a dict gives its keys, as Python does);
    an iterator is refused: it cannot be walked again to send cotangents back."""
    if not isinstance(iterable, (list, tuple, np.ndarray, dict, type({}.keys()), type({}.values()), type({}.items()))):
        raise UnsupportedArgumentsError(f"{function}() is differentiated over a list, a tuple, an array or a dict, "
                                        f"not a {type(iterable).__name__}", hint="build a list first: list(...)")
    return list(iterable)


def sorting_permutation(iterable, key, reverse):
    """Where each item of ``sorted(iterable, key=key, reverse=reverse)`` came from: Python's
    sort is stable either way, so sorting the positions by their items' keys picks the same order."""
    items = _listed(iterable, "sorted")
    by = items.__getitem__ if key is None else (lambda i: key(items[i]))
    return sorted(range(len(items)), key=by, reverse=reverse)


def sorted_vjp(g, ans, iterable, key, reverse):
    if isinstance(iterable, (dict, type({}.keys()))):
        return ZERO  # the keys of a dict: they carry no gradient
    order = sorting_permutation(iterable, key, reverse)
    parts = split_cotangent(g, len(order))
    if isinstance(iterable, np.ndarray):
        cotangent = np.zeros(iterable.shape, dtype=np.result_type(iterable, np.float32))
        for position, part in zip(order, parts):
            if part is not ZERO:
                cotangent[position] = unthunk(part)
        return cotangent
    back = [ZERO] * len(order)
    for position, part in zip(order, parts):
        back[position] = part
    return tuple(back) if isinstance(iterable, tuple) else back


def sorted_jvp(g, ans, iterable, key, reverse):
    return [tangent_item(g, position) for position in sorting_permutation(iterable, key, reverse)]


# ---- dicts
def _pairs(iterable):
    """``dict(iterable)``'s entries: key -> the position of the pair it keeps (the last)."""
    if isinstance(iterable, dict):
        return None
    return {pair[0]: position for position, pair in enumerate(_listed(iterable, "dict"))}


def dict_vjp_iterable(g, ans, iterable, kwargs):
    g = unthunk(g)
    entries = {key: field for key, field in ((key, tangent_item(g, key)) for key in ans if key not in kwargs)
               if field is not ZERO}
    positions = _pairs(iterable)
    if positions is None:
        return Tangent(type(iterable), entries)
    back = [ZERO] * len(iterable)
    for key, field in entries.items():
        position = positions[key]
        back[position] = tuple((ZERO, field)) if isinstance(iterable[position], tuple) else [ZERO, field]
    return tuple(back) if isinstance(iterable, tuple) else back


def dict_jvp_iterable(g, ans, iterable, kwargs):
    positions = _pairs(iterable)
    if positions is None:
        return {key: tangent_item(g, key) if key not in kwargs else ZERO for key in ans}
    return {key: tangent_item(tangent_item(g, positions[key]), 1) if key not in kwargs else ZERO for key in ans}


# the methods, spelt as functions to carry their rules (listed as ``builtins.dict.<name>``)
def dict_get(d, key, default=None):
    return d.get(key, default)


def dict_keys(d):
    return d.keys()


def dict_values(d):
    return d.values()


def dict_items(d):
    return d.items()


def dict_get_vjp_d(g, ans, d, key, default):
    return Tangent(type(d), {key: g}) if key in d else ZERO


def dict_get_vjp_default(g, ans, d, key, default):
    return ZERO if key in d else g


def dict_get_jvp_d(g, ans, d, key, default):
    return tangent_item(g, key) if key in d else ZERO


def dict_get_jvp_default(g, ans, d, key, default):
    return ZERO if key in d else g


def _entries_cotangent(d, parts):
    entries = {key: part for key, part in zip(d, parts) if part is not ZERO and part is not NO_TANGENT}
    return Tangent(type(d), entries)


def dict_values_vjp(g, ans, d):
    """The cotangent of a dict from that of the list of its values (from list(), tuple(), sorted())."""
    return _entries_cotangent(d, split_cotangent(g, len(d)))


def dict_items_vjp(g, ans, d):
    """The cotangent of a dict from that of the list of its (key, value) pairs: the values' parts."""
    return _entries_cotangent(d, [ZERO if part is ZERO or part is NO_TANGENT else tangent_item(part, 1)
                                  for part in split_cotangent(g, len(d))])


def dict_values_jvp(g, ans, d):
    return [tangent_item(g, key) for key in d]


def dict_items_jvp(g, ans, d):
    return [(ZERO, tangent_item(g, key)) for key in d]


def _extremum_rrule(choose):
    def extremum_rrule(*args, key=None, default=None):
        if key is not None:
            raise UnsupportedArgumentsError(f"{choose.__name__}(..., key=...) has no rule: compare the values themselves")
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
defvjp(builtins.sorted, "iterable, /, *, key=None, reverse=False", sorted_vjp)
defvjp(builtins.dict,  "iterable=(), /, **kwargs", dict_vjp_iterable)
defmethod(dict, "get",    defvjp(dict_get, "d, key, default=None", dict_get_vjp_d, None, dict_get_vjp_default,
                                 name="dict.get"))
defmethod(dict, "values", defvjp(dict_values, "d", dict_values_vjp, name="dict.values"))
defmethod(dict, "items",  defvjp(dict_items, "d", dict_items_vjp, name="dict.items"))
nondifferentiable(dict_keys)
defmethod(dict, "keys", dict_keys)
defrrule(builtins.max, _extremum_rrule(builtins.max))
defrrule(builtins.min, _extremum_rrule(builtins.min))

nondifferentiable(
    builtins.len, builtins.int, builtins.bool, builtins.round, builtins.range, builtins.isinstance,
    builtins.str, builtins.hash, builtins.id, builtins.ord, builtins.chr, builtins.type,
)


# ---- forward rules
#
# ``sum`` pushes forward the sum of its items' tangents (a list's tangent holds ZERO for the
# items without one); ``list``/``tuple`` make the same container of the tangents; ``abs`` and
# ``pow`` are those of ``math`` and ``operator`` (templates over functions with rules, so
# forward code can be differentiated again). ``max``/``min`` push forward the tangent of the
# element Python returns (the first of tied extremes; ``key=`` allowed: it only chooses).
# They need a signature, ``iterable, *args``: ``max(xs)`` has ``xs`` as its iterable,
# ``max(a, b, c)`` has ``a`` and ``args == (b, c)``, whose tangent is the tuple of the
# tangents of ``b`` and ``c`` (ZERO for those without one).


def pow_jvp_exponent(g, ans, base, exp, mod):
    return power_jvp_exponent(g, ans, base, exp)  # with mod, every argument is an int: no tangents


def _winner(choose, iterable, args, key):
    """The index of the element ``max``/``min`` returns among ``(iterable, *args)``, or among
    ``iterable``'s items (None if there are none)."""
    items = [iterable, *args] if args else list(iterable)
    if not items:
        return None
    value = items.__getitem__ if key is None else (lambda i: key(items[i]))
    return choose(range(len(items)), key=value)


def _item_tangent(t):
    return ZERO if t is None or t is NO_TANGENT else unthunk(t)


def _extremum_jvps(choose):
    def extremum_jvp_iterable(g, ans, iterable, args, key, default):
        winner = _winner(choose, iterable, args, key)
        if winner is None or g is ZERO:
            return ZERO
        if args:
            return g if winner == 0 else ZERO
        return _item_tangent(unthunk(g)[winner])

    def extremum_jvp_args(g, ans, iterable, args, key, default):
        winner = _winner(choose, iterable, args, key)
        return _item_tangent(g[winner - 1]) if winner and g is not ZERO else ZERO

    def extremum_jvp_default(g, ans, iterable, args, key, default):
        return g if _winner(choose, iterable, args, key) is None else ZERO

    for jvp in (extremum_jvp_iterable, extremum_jvp_args, extremum_jvp_default):
        jvp.__name__ = jvp.__qualname__ = jvp.__name__.replace("extremum", choose.__name__)
    return extremum_jvp_iterable, extremum_jvp_args, None, extremum_jvp_default


defjvp(builtins.abs,   "g * ((x > 0) - (x < 0)) if type(x) is float else np.real(g * conj(np.sign(x)))")
defjvp(builtins.pow,   "power_jvp_base(g, base, exp)", pow_jvp_exponent, None, elementwise=True)
defjvp(builtins.float, "float(g)")
defjvp(builtins.sum,   "sum(g)", "g", elementwise=True)
defjvp(builtins.list,  "list(g)")
defjvp(builtins.tuple, "tuple(g)")
defjvp(builtins.sorted, sorted_jvp)
defjvp(builtins.dict,  dict_jvp_iterable)
defjvp(dict_get,       dict_get_jvp_d, None, dict_get_jvp_default)
defjvp(dict_values,    dict_values_jvp)
defjvp(dict_items,     dict_items_jvp)
defjvp(builtins.max,   *_extremum_jvps(builtins.max), signature="iterable, *args, key=None, default=None")
defjvp(builtins.min,   *_extremum_jvps(builtins.min), signature="iterable, *args, key=None, default=None")
