"""Cotangents and tangents of containers and objects, and undoing changes made in place.

Generated code splits a tuple's cotangent into its items (``split_cotangent``), reads a
field of a structural tangent (``tangent_field``), puts back what ``y[i] = v`` overwrote
(``overwritten``/``restore``), and rebuilds a list's cotangent as ``append``/``pop`` are
undone. None of it depends on how a value's derivative is found: that is ``methods.py``.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..errors import UnsupportedSyntaxError
from .accumulate import add
from .indexing import untake, written_once
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk


def split_cotangent(g, count: int) -> tuple:
    """The cotangents of the elements of a tuple or list, from the cotangent of the whole."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT or g is None:
        return (ZERO,) * count
    if isinstance(g, Tangent):
        return tuple(g[index] for index in range(count))
    parts = tuple(g)
    if len(parts) != count:
        raise ValueError(f"a cotangent of {len(parts)} elements was given for a sequence of {count}")
    return parts


def item_cotangent(g, index: int, count: int, sequence=None):
    """The cotangent of a sequence of ``count`` elements of which only element ``index`` was used
    (``a, b, c = sequence``): a tuple of cotangents (a list for a list, as an item read by index
    gives it, so that the two add up), or, when ``sequence`` is an array (its rows unpacked), an
    array like it."""
    if isinstance(sequence, np.ndarray):
        return unthunk(untake(g, index, sequence)) if g is not ZERO else ZERO
    parts = [ZERO] * count
    parts[index] = g
    return parts if isinstance(sequence, list) else tuple(parts)


def field_cotangent(g, key):
    """The cotangent of one entry of a dict, from the cotangent of the whole dict."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT or g is None:
        return ZERO
    if isinstance(g, Tangent):
        return g[key]
    return g.get(key, ZERO) if isinstance(g, dict) else g[key]


# ---------------------------------------------------------------- in-place changes (y[i] = v, xs.append(v))
ABSENT = object()  # what overwritten() returns for a dict key that was not there


def a_slot_replaced(container, spelled: str, seen: str) -> None:
    """Refuse ``y[i] = v`` as it runs unless ``y`` is a list or a dict: the analysis let it through
    (``W, b = params[i]; params[i] = (W - lr * gW, b)``, then ``W`` read) because giving a list's or
    dict's slot a new object leaves the objects taken out of it as they were. An array's ``y[i] = v``
    writes into memory that ``W``, a view of ``y``, shares."""
    if container.__class__ is list or container.__class__ is dict:
        return
    raise UnsupportedSyntaxError(
        f"`{spelled}[...] = ...` writes into `{spelled}`, of type {type(container).__name__} (not a list or a dict), "
        f"whose memory `{seen}`, taken out of it, may share, and `{seen}` is read after the change: s2sad would "
        f"differentiate it as if `{seen}` were unchanged",
        hint=f"pass a list (of tuples) for `{spelled}`, or take a copy of what you read first (`{seen} = {seen}.copy()`)")


a_slot_replaced.reads_its_arguments_only = True  # (forward code calling it is differentiated again for hvp)


def overwritten(container, index):
    """What ``container[index] = ...`` is about to overwrite, copied (restore() puts it back)."""
    try:
        old = container[index]
    except (KeyError, IndexError):
        return ABSENT
    return old.copy() if isinstance(old, np.ndarray) else old


def restore(container, index, old) -> None:
    if old is ABSENT:
        del container[index]
    else:
        container[index] = old


def item_of(g, index):
    """The cotangent of ``container[index]`` from the cotangent ``g`` of the whole container
    (a copy for arrays: the caller is about to zero those entries of ``g``)."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return ZERO
    if isinstance(g, np.ndarray):
        part = g[index]
        return part.copy() if isinstance(part, np.ndarray) else part
    if isinstance(g, Tangent):
        return g[index]
    if isinstance(g, dict):
        return g.get(index, ZERO)
    return g[index]


def written_item_of(g, index):
    """The cotangent of ``v`` in ``container[index] = v``: ``item_of``, with zeros for the
    writes a later write to the same element overwrote (a repeated fancy index)."""
    g = unthunk(g)
    part = item_of(g, index)
    if isinstance(part, np.ndarray) and isinstance(g, np.ndarray):
        kept = written_once(index, g.shape)
        if kept is not None:
            part[~kept] = 0
    return part


def _items(g, length: int) -> list:
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return [ZERO] * length
    if isinstance(g, Tangent):
        return [g[i] for i in range(length)]
    return list(g)


def prefix_of(g, length: int):
    """The cotangent of a list's first ``length`` elements (the list before an append)."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return g
    if isinstance(g, Tangent):
        return [g[i] for i in range(length)]
    return list(g)[:length]


def items_of(g, start: int, stop: int):
    """The cotangent of the elements ``start:stop`` of a list (what an ``extend`` added)."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return ZERO
    return _items(g, stop)[start:stop]


def inserted_at(g, index: int, item, length: int):
    """The cotangent of a list of ``length`` elements from that of the list without element
    ``index`` (after a ``pop``) and the cotangent of the popped element."""
    if (g is ZERO or g is NO_TANGENT) and (item is ZERO or item is NO_TANGENT):
        return ZERO
    items = _items(g, length - 1)
    items.insert(index if index >= 0 else length + index, item)
    return items


# ---------------------------------------------------------------- forward mode (tangents)
def add_tangents(a, b):
    """``a + b`` for tangents of any structure (a tuple output's tangents add item by item)."""
    return add(a, b)


def tangent_item(t, index):
    """The tangent of ``xs[index]`` (a loop's element, an unpacked item) from the tangent of ``xs``."""
    t = unthunk(t)
    if t is ZERO or t is NO_TANGENT:
        return ZERO
    if isinstance(t, Tangent):
        return t[index]
    if isinstance(t, dict):
        return t.get(index, ZERO)
    return t[index]


def tangent_filled(t, like):
    """A list or tuple tangent handed to a NumPy function, its ZERO items (constants in the
    primal sequence) as zeros of their items' shapes: NumPy reads the sequence as an array
    and cannot read the symbolic zero inside it."""
    t = unthunk(t)
    if t.__class__ is dict and like.__class__ is dict:
        return {key: zeros_like_primal(value) if t.get(key, ZERO) is ZERO else tangent_filled(t[key], value)
                for key, value in like.items()}
    if t.__class__ not in (list, tuple) or like.__class__ not in (list, tuple) or len(t) != len(like):
        return t
    items = [zeros_like_primal(primal) if item is ZERO or item is NO_TANGENT else tangent_filled(item, primal)
             for item, primal in zip(t, like)]
    return items if t.__class__ is list else tuple(items)


def zeros_like_primal(primal):
    """A zero tangent as a value: 0.0 for a Python number, zeros of a float (or complex) dtype."""
    if primal.__class__ in (float, int, bool):
        return 0.0
    if primal.__class__ in (list, tuple):
        return [zeros_like_primal(item) for item in primal]
    if (callable(primal) and not isinstance(primal, np.ndarray)) or primal is None or primal.__class__ in (str, bytes):
        return ZERO  # a function (`[np.sin, lambda v: v * s]`), a name or a flag in a sequence has no tangent space
    dtype = np.result_type(primal)
    return np.zeros(np.shape(primal), dtype if dtype.kind in "fc" else np.float64)  # float32 stays float32


def tangent_field(t, name):
    t = unthunk(t)
    if t is ZERO or t is NO_TANGENT:
        return ZERO
    if isinstance(t, Tangent):
        return getattr(t, name) if not isinstance(name, int) else t[name]
    return getattr(t, name)


def _materialised(t, like):
    """A tangent of ``like`` that may be written into: ZERO becomes real zeros."""
    if t is ZERO or t is NO_TANGENT:
        if isinstance(like, np.ndarray):
            return np.zeros(like.shape, dtype=like.dtype if like.dtype.kind in "fc" else np.float64)
        if isinstance(like, list):
            return [ZERO] * len(like)
        if isinstance(like, dict):  # every key: forward code reads an entry's tangent as t[key]
            return {key: ZERO for key in like}
        raise TypeError(f"cannot hold the tangent of a {type(like).__name__} that is changed in place")
    return t


def _holds_no_tangent(container) -> bool:
    """An int or bool array: what is written into it is cast, and carries no derivative."""
    return isinstance(container, np.ndarray) and container.dtype.kind not in "fc"


# id(tangent) -> (the tangent, the array it is the tangent of), both held weakly: the tangents forward
# code may write into. A rule may hand a tangent on unchanged to a new array (`z = y + 1.0` has y's
# tangent), which a write into z's tangent in place would change for y too: a tangent is written in
# place only where it was made (copied, or made of zeros) for the array written, else copied first.
_own_tangents: dict = {}


def _own_tangent(t, container: np.ndarray) -> np.ndarray:
    """``t``, the tangent of the array ``container``, as one that may be written in place: real
    zeros for ZERO, a copy of a tangent made for something else."""
    if t is ZERO or t is NO_TANGENT:
        t = _materialised(t, container)
    else:
        entry = _own_tangents.get(id(t))
        if entry is not None and entry[0]() is t and entry[1]() is container:
            return t
        t = t.copy()
    key = id(t)
    _own_tangents[key] = (weakref.ref(t, lambda _, key=key: _own_tangents.pop(key, None)), weakref.ref(container))
    return t


def tangent_setitem(t, container, index, value_tangent):
    """The tangent of ``container`` after ``container[index] = value``, written in place (into a
    tangent of ``container``'s own: see ``_own_tangent``)."""
    t = unthunk(t)
    if isinstance(container, np.ndarray) and (t is ZERO or t is NO_TANGENT or isinstance(t, np.ndarray)):
        t = _own_tangent(t, container)
    else:
        t = _materialised(t, container)
    value_tangent = unthunk(value_tangent)
    if isinstance(t, np.ndarray):
        if value_tangent is ZERO or value_tangent is NO_TANGENT or _holds_no_tangent(container):
            value_tangent = 0  # (an int array keeps int(value): no tangent flows into it)
        elif t.dtype.kind != "c" and np.iscomplexobj(value_tangent):
            # NumPy keeps the real part of a complex value written into a real array (with a
            # ComplexWarning): the tangent of what it keeps is the real part of the tangent
            value_tangent = np.real(value_tangent)
        t[index] = value_tangent
    else:
        t[index] = value_tangent
    return t


def tangent_append(t, container, value_tangent):
    """After ``container.append(value)`` (``container`` already holds it)."""
    if (t is ZERO or t is NO_TANGENT) and value_tangent is ZERO:
        return ZERO
    items = [ZERO] * (len(container) - 1) if t is ZERO or t is NO_TANGENT else list(t)
    items.append(value_tangent)
    return items


def tangent_extend(t, container, values_tangent, values):
    if (t is ZERO or t is NO_TANGENT) and values_tangent is ZERO:
        return ZERO
    before = len(container) - len(values)
    items = [ZERO] * before if t is ZERO or t is NO_TANGENT else list(t)
    items += [ZERO] * len(values) if values_tangent is ZERO else [tangent_item(values_tangent, i) for i in range(len(values))]
    return items


def insertion_index(index: int, length: int) -> int:
    """Where ``xs.insert(index, v)`` put ``v`` in a list of ``length`` items before it: Python
    counts a negative index from the end and clamps both ways (``insert(99, v)`` appends)."""
    if index < 0:
        index += length
    return min(max(index, 0), length)


def removed_at(g, index: int, length: int):
    """The cotangent of a list of ``length - 1`` items from that of the list with one more at
    ``index`` (before an ``insert``; the inverse of ``inserted_at``)."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return g
    items = _items(g, length)
    del items[index]
    return items


def tangent_insert(t, container, index, value_tangent):
    """After ``container.insert(index, value)`` (``container`` already holds it)."""
    if (t is ZERO or t is NO_TANGENT) and value_tangent is ZERO:
        return ZERO
    items = [ZERO] * (len(container) - 1) if t is ZERO or t is NO_TANGENT else list(t)
    items.insert(insertion_index(index, len(container) - 1), value_tangent)
    return items


def tangent_without(t, index):
    """The tangent of ``container`` after ``container.pop(index)``: a new list without that item
    (the popped item's tangent is ``tangent_item(t, index)``). Not in place: forward code read
    again for a second derivative must not see a value change under it."""
    t = unthunk(t)
    if t is ZERO or t is NO_TANGENT:
        return ZERO
    items = list(t)
    del items[index]
    return items
