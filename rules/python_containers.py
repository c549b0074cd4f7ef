"""Rules for Python's functions over containers: ``sorted``, ``zip``, ``reversed``,
``itertools.chain``, ``dict(...)`` and ``dict.get``.

Each moves values without arithmetic, so each cotangent goes back to the place its value
came from, and each tangent goes along with its value:

* ``sorted(xs, key=, reverse=)``: the permutation Python's (stable) sort makes, recomputed
  from ``xs``; the item at sorted position ``k`` came from ``order[k]``.
* ``zip(*iterables)`` used as a value is ``zipped(*iterables)``, the list of its tuples (a list,
  not a one-pass iterator, so that generated code may read it again; ``a, b = zip(*pairs)``
  and loops read it the same; a loop ``for a, b in zip(xs, ys)`` is the loop's own);
  the j-th entry of each tuple goes back to the j-th iterable, the items ``zip`` cut off
  (a longer iterable's tail) get ZERO.
* ``reversed(xs)``, ``itertools.chain(*iterables)`` and ``chain.from_iterable(iterables)``,
  where the normaliser has seen them consumed in one pass (a loop, a comprehension,
  ``list``/``tuple``/``sum``/``sorted``/``min``/``max``, unpacking; it refuses them elsewhere),
  are ``reversed_items(xs)``, ``chained((a, b))`` and ``chained(iterables)``, the lists of their items: the
  item at position ``k`` of ``reversed`` goes back to position ``n - 1 - k``; a chain's
  items go back, in order, to the iterables they came from.
* ``dict(mapping, **kwargs)`` copies a dict (or a list of ``(key, value)`` pairs): the
  cotangent of each value is the copy's at the same key, for the value Python kept (the
  last pair of a repeated key; none where a keyword replaced it). ``dict(w=a, b=2.0)`` never
  reaches a rule: the normaliser writes it as the display ``{"w": a, "b": 2.0}``.
* ``{**a, **b}`` (``dict_merged``, also ``dict(a, **b)``) and ``a | b`` of two dicts (``or_merged``):
  each key's value came from the last dict holding it, and its cotangent goes back there
  only; ``|`` of anything else (boolean masks, sets, integers) carries no gradient.
* ``d.get(key, default)``: the key's value, or ``default`` where the key is absent.
* ``d.values()`` and ``d.items()``: each value's cotangent goes back to its key (from the
  list, tuple or sorted list made of them); ``d.keys()`` carries no gradient.
* ``[y] * n`` and ``n * (x,)`` (one side written as a list or tuple holding more than constants) are
  ``repeated(left, right)``: each item's cotangent is the sum of its copies', read from a list of
  cotangents or from the rows of the array a NumPy function gave the list; an array on the other side
  makes it NumPy's product, ``operator.mul``'s rule.
"""
import builtins
import collections
import operator

import numpy as np

from s2sad.registry import defmethod, defrrule, defvjp, nondifferentiable, rule_for
from s2sad.registry.forward import defjvp
from s2sad.runtime.structure import field_cotangent, split_cotangent, tangent_filled, tangent_item
from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent, is_zero, plus, unthunk

from .builtins import sequence_jvp, sequence_vjp
from .helpers import array_like, chained, dict_merged, dict_without, repeated, reversed_items, or_merged, zipped


# ------------------------------------------------------------------ sorted
def _sorted_order(iterable, key, reverse) -> list[int]:
    items = list(iterable)
    # (a lambda, not `items.__getitem__`: the forward rule is differentiated again for a Hessian)
    value = (lambda i: items[i]) if key is None else (lambda i: key(items[i]))
    return sorted(range(len(items)), key=value, reverse=reverse)


def items_like(items: list, primal):
    """Per-item cotangents as ``primal``'s container: a list, a tuple, or an array's rows."""
    if isinstance(primal, np.ndarray):
        rows = [np.zeros_like(primal[i]) if is_zero(item) else unthunk(item) for i, item in enumerate(items)]
        return np.stack(rows) if rows else np.zeros_like(primal)
    return tuple(items) if isinstance(primal, tuple) else list(items)


def sorted_vjp_iterable(g, ans, iterable, key, reverse):
    if isinstance(iterable, dict):
        return ZERO  # sorted(params) of a dict sorts its keys, which carry no gradient
    order = _sorted_order(iterable, key, reverse)
    parts = split_cotangent(g, len(order))
    items = [ZERO] * len(order)
    for position, source in enumerate(order):
        items[source] = parts[position]
    return items_like(items, iterable)


def sorted_jvp_iterable(g, ans, iterable, key, reverse):
    if isinstance(iterable, dict):
        return ZERO  # its keys
    order = _sorted_order(iterable, key, reverse)
    parts = split_cotangent(g, len(order))
    return [parts[source] for source in order]


defvjp(builtins.sorted, "iterable, key=None, reverse=False", sorted_vjp_iterable, None, None, choosers=("key",))
defjvp(builtins.sorted, sorted_jvp_iterable, None, None)


# ------------------------------------------------------------------ zip
def zipped_rrule(*iterables, strict=False):
    sequences = [list(iterable) for iterable in iterables]
    pairs = zipped(*sequences, strict=strict)

    def zipped_pullback(g):
        rows = split_cotangent(g, len(pairs))
        cotangents = []
        for j, (iterable, sequence) in enumerate(builtins.zip(iterables, sequences)):
            items = [ZERO if is_zero(row) else split_cotangent(row, len(iterables))[j] for row in rows]
            cotangents.append(items_like(items + [ZERO] * (len(sequence) - len(pairs)), iterable))
        return (NO_TANGENT, *cotangents)

    return pairs, zipped_pullback


def zipped_jvp_iterables(g, ans, iterables, strict):
    """``g`` holds one tangent per iterable (ZERO for those without): the k-th tuple's tangent
    is the tuple of their k-th items'."""
    columns = [split_cotangent(ZERO if is_zero(g) else g[j], len(list(iterable)))
               for j, iterable in enumerate(iterables)]
    return [tuple(column[k] for column in columns) for k in range(len(ans))]


defrrule(zipped, zipped_rrule)
defjvp(zipped, zipped_jvp_iterables, None, signature="*iterables, strict=False")


# ------------------------------------------------------------------ reversed, itertools.chain
def reversed_items_rrule(sequence):
    items = reversed_items(sequence)

    def reversed_items_pullback(g):
        if isinstance(sequence, dict):
            return NO_TANGENT, ZERO  # its keys, which carry no gradient
        return NO_TANGENT, items_like(list(split_cotangent(g, len(items)))[::-1], sequence)

    return items, reversed_items_pullback


def _tangent_items(t, count: int) -> list:
    """The items of a sequence's tangent, by indexing (an array's rows): what forward code may
    differentiate again, for a Hessian, with the index's own rule."""
    t = unthunk(t)
    if is_zero(t):
        return [ZERO] * count
    return [t[k] for k in range(count)]


def reversed_items_jvp_sequence(g, ans, sequence):
    return _tangent_items(g, len(ans))[::-1]


def _pieces_of(g, lengths) -> list[list]:
    """The items of a chain's cotangent (or tangent), cut into runs of ``lengths``."""
    items = list(split_cotangent(g, sum(lengths)))
    starts = [sum(lengths[:k]) for k in range(len(lengths))]
    return [items[start:start + length] for start, length in builtins.zip(starts, lengths)]


def chained_rrule(iterables):
    sequences = [list(iterable) for iterable in iterables]  # each read once: an iterator given is used up
    items = chained(sequences)

    def chained_pullback(g):
        pieces = _pieces_of(g, [len(sequence) for sequence in sequences])
        given = iterables if isinstance(iterables, (list, tuple, np.ndarray)) else sequences
        parts = [ZERO if isinstance(iterable, dict) else items_like(piece, iterable)  # a dict's keys: no gradient
                 for piece, iterable in builtins.zip(pieces, given)]
        return NO_TANGENT, items_like(parts, iterables)

    return items, chained_pullback


def chained_jvp_iterables(g, ans, iterables):
    """The items of the iterables' tangents, in order (ZERO for an iterable without one)."""
    items = []
    for j, iterable in enumerate(iterables):
        for item in _tangent_items(ZERO if is_zero(g) else g[j], len(list(iterable))):
            items.append(item)
    return items


defrrule(reversed_items, reversed_items_rrule)
defjvp(reversed_items, reversed_items_jvp_sequence, signature="sequence")
defrrule(chained, chained_rrule)
defjvp(chained, chained_jvp_iterables, signature="iterables")


# ------------------------------------------------------------------ [y] * n
def _is_sequence(value) -> bool:
    return isinstance(value, (list, tuple))


def repeated_rrule(left, right):
    """``left * right``, one side written as a list or tuple. A repetition (the result a list or tuple)
    gives each item the sum of its copies' cotangents, the int nothing; NumPy's product of the array
    the list makes (``[0.5, x[0]] * x``) is ``operator.mul``'s rule."""
    ans = left * right
    if not _is_sequence(ans):
        product, product_pullback = rule_for(operator.mul).rrule(left, right)
        return product, product_pullback
    sequence_first = _is_sequence(left)
    sequence = left if sequence_first else right
    width = len(sequence)

    def repeated_pullback(g):
        copies = split_cotangent(g, len(ans))
        items = [ZERO] * width
        for position, cotangent in enumerate(copies):
            items[position % width] = plus(items[position % width], cotangent)
        summed = items_like(items, sequence)
        return (NO_TANGENT, summed, NO_TANGENT) if sequence_first else (NO_TANGENT, NO_TANGENT, summed)

    return ans, repeated_pullback


def repeated_jvp_left(g, ans, left, right):
    if not _is_sequence(ans):  # NumPy's product: linear in each side
        return np.multiply(array_like(tangent_filled(g, left)), array_like(right))
    if not _is_sequence(left):
        return ZERO  # the int count
    # (written as a call to `repeated` again: forward code is differentiated again for a Hessian)
    return items_like(repeated(list(_tangent_items(g, len(left))), right), ans)


def repeated_jvp_right(g, ans, left, right):
    if not _is_sequence(ans):
        return np.multiply(array_like(left), array_like(tangent_filled(g, right)))
    if not _is_sequence(right):
        return ZERO
    return items_like(repeated(left, list(_tangent_items(g, len(right)))), ans)


defrrule(repeated, repeated_rrule)
defjvp(repeated, repeated_jvp_left, repeated_jvp_right, signature="left, right")


# ------------------------------------------------------------------ dict(mapping), d.get(key, default)
def _kept_pairs(pairs) -> dict:
    """key -> the position of the pair whose value ``dict(pairs)`` keeps: the last with that key."""
    return {key: position for position, (key, _) in enumerate(pairs)}


def dict_vjp_mapping(g, ans, mapping, kwargs):
    g = unthunk(g)
    if is_zero(g):
        return ZERO
    if isinstance(mapping, dict):
        return Tangent(dict, {key: field_cotangent(g, key) for key in mapping if key not in kwargs})
    pairs = list(mapping)
    kept = _kept_pairs(pairs)
    return items_like([(NO_TANGENT, field_cotangent(g, key) if kept[key] == position and key not in kwargs else ZERO)
                  for position, (key, _) in enumerate(pairs)], mapping)


def dict_jvp_mapping(g, ans, mapping, kwargs):
    g = unthunk(g)
    if is_zero(g):
        return ZERO
    if isinstance(mapping, dict):
        return {key: ZERO if key in kwargs else field_cotangent(g, key) for key in ans}
    pairs = list(mapping)
    items, kept = split_cotangent(g, len(pairs)), _kept_pairs(pairs)
    return {key: ZERO if key in kwargs or is_zero(items[kept[key]]) else split_cotangent(items[kept[key]], 2)[1]
            for key in ans}


defvjp(builtins.dict, "mapping=(), /, **kwargs", dict_vjp_mapping)
defjvp(builtins.dict, dict_jvp_mapping)


def dict_without_vjp_mapping(g, ans, mapping, key):
    """``del d[key]``: each kept key's cotangent goes back to it; the deleted one gets none."""
    g = unthunk(g)
    if is_zero(g):
        return ZERO
    return Tangent(dict, {k: ZERO if k == key else field_cotangent(g, k) for k in mapping})


def dict_without_jvp_mapping(g, ans, mapping, key):
    g = unthunk(g)
    if is_zero(g):
        return ZERO
    return {k: field_cotangent(g, k) for k in ans}


defvjp(dict_without, "mapping, key", dict_without_vjp_mapping, None)
defjvp(dict_without, dict_without_jvp_mapping, None)


# ------------------------------------------------------------------ {**a, **b}, a | b
def _merges_dicts(a, b) -> bool:
    """Whether ``a | b`` merges two dicts (a Counter's ``|`` keeps the larger count: numbers only)."""
    return isinstance(a, dict) and isinstance(b, dict) and not isinstance(a, collections.Counter)


def merged_vjp_parts(g, ans, parts):
    """Each key's cotangent goes back to the last of the two dicts holding it."""
    g = unthunk(g)
    first, second = parts
    if is_zero(g) or not _merges_dicts(first, second):
        return ZERO
    return (Tangent(dict, {key: ZERO if key in second else field_cotangent(g, key) for key in first}),
            Tangent(dict, {key: field_cotangent(g, key) for key in second}))


def merged_jvp_parts(g, ans, parts):
    """Each key's tangent is the one of the last of the two dicts holding it."""
    g = unthunk(g)
    first, second = parts
    if is_zero(g) or not _merges_dicts(first, second):
        return ZERO
    of_first, of_second = tangent_item(g, 0), tangent_item(g, 1)
    return {key: field_cotangent(of_second, key) if key in second else field_cotangent(of_first, key) for key in ans}


defvjp(dict_merged, "parts", merged_vjp_parts)
defjvp(dict_merged, merged_jvp_parts)
defvjp(or_merged, "parts", merged_vjp_parts)
defjvp(or_merged, merged_jvp_parts)


def dict_get(mapping, key, default=None):
    """``mapping.get(key, default)``, as a function with a rule (``d.get(...)`` goes through it)."""
    return mapping.get(key, default)


def dict_get_vjp_mapping(g, ans, mapping, key, default):
    return Tangent(dict, {key: g}) if key in mapping and not is_zero(g) else ZERO


def dict_get_vjp_default(g, ans, mapping, key, default):
    return ZERO if key in mapping else g


def dict_get_jvp_mapping(g, ans, mapping, key, default):
    return field_cotangent(g, key) if key in mapping else ZERO


def dict_get_jvp_default(g, ans, mapping, key, default):
    return ZERO if key in mapping else g


defvjp(dict_get, "mapping, key, default=None", dict_get_vjp_mapping, None, dict_get_vjp_default)
defjvp(dict_get, dict_get_jvp_mapping, None, dict_get_jvp_default)
defmethod(dict, "get", dict_get)


def dict_values(mapping):
    """``mapping.values()``, as a function with a rule."""
    return mapping.values()


def dict_items(mapping):
    """``mapping.items()``, as a function with a rule."""
    return mapping.items()


def dict_keys(mapping):
    """``mapping.keys()``: no gradient."""
    return mapping.keys()


def _entries_cotangent(mapping, parts):
    return Tangent(dict, {key: part for key, part in builtins.zip(mapping, parts) if not is_zero(part)})


def dict_values_vjp(g, ans, mapping):
    """The cotangent of a dict from that of the list of its values (list(), tuple(), sorted())."""
    return _entries_cotangent(mapping, split_cotangent(g, len(mapping)))


def dict_items_vjp(g, ans, mapping):
    """The cotangent of a dict from that of the list of its (key, value) pairs: the values' parts."""
    return _entries_cotangent(mapping, [ZERO if is_zero(part) else split_cotangent(part, 2)[1]
                                        for part in split_cotangent(g, len(mapping))])


def dict_values_jvp(g, ans, mapping):
    return [ZERO if is_zero(g) else field_cotangent(g, key) for key in mapping]


def dict_items_jvp(g, ans, mapping):
    return [(NO_TANGENT, ZERO if is_zero(g) else field_cotangent(g, key)) for key in mapping]


defvjp(dict_values, "mapping", dict_values_vjp)
defvjp(dict_items, "mapping", dict_items_vjp)
defjvp(dict_values, dict_values_jvp)
defjvp(dict_items, dict_items_jvp)
nondifferentiable(dict_keys)
defmethod(dict, "values", dict_values)
defmethod(dict, "items", dict_items)
defmethod(dict, "keys", dict_keys)


# ------------------------------------------------------------------ c.copy() of a dict or list given
def dict_copy(mapping: dict) -> dict:
    """``mapping.copy()`` of a dict the function was given (one it made is written as ``dict(c)``):
    a new dict holding the very objects ``mapping`` holds, as the aliasing analysis knows
    (aliasing._check_writes: a slot of the copy written changes nothing ``mapping`` holds)."""
    return mapping.copy()


def dict_copy_vjp(g, ans, mapping):
    g = unthunk(g)
    return ZERO if is_zero(g) else Tangent(dict, {key: field_cotangent(g, key) for key in mapping})


def dict_copy_jvp(g, ans, mapping):
    g = unthunk(g)
    return ZERO if is_zero(g) else {key: field_cotangent(g, key) for key in ans}


def list_copy(items: list) -> list:
    """``items.copy()`` of a list the function was given: ``list(items)``, as :func:`dict_copy`."""
    return items.copy()


defvjp(dict_copy, "mapping", dict_copy_vjp)
defjvp(dict_copy, dict_copy_jvp)
defmethod(dict, "copy", dict_copy)
defvjp(list_copy, "items", sequence_vjp)
defjvp(list_copy, sequence_jvp)
defmethod(list, "copy", list_copy)
