"""Keeping the caller's arrays and s2sad's apart.

A pullback handed to the user (``vjp``, ``rrule``) outlives the call: it reads the values
the primal computed and the arrays it was given. Nothing the user does afterwards to the
arrays they hold (the inputs they passed, the output they got, the cotangent they pass)
may change what that pullback returns, and no gradient handed out may be an array the
user already holds (``f(x) = x`` pulls the cotangent back unchanged: it must come back
as a copy).
"""
from __future__ import annotations

import numpy as np

from .tangents import Tangent

_ndarray = np.ndarray


def detached(value, copies=None):
    """``value`` with each array in it (inside tuples, lists and dicts too) copied. An array or
    container held in two places is copied once, held by both, as ``copy.deepcopy`` keeps it: weights
    tied as ``{"W": W, "W_out": W}`` stay tied, and a function that writes into one (through a deep
    copy of its own) sees the change in the other as NumPy's call does."""
    kind = value.__class__
    if kind is float:
        return value
    copies = {} if copies is None else copies
    if id(value) in copies:
        return copies[id(value)]
    if isinstance(value, _ndarray):
        copied = value.copy()
    elif kind is tuple or kind is list:
        copied = kind([detached(item, copies) for item in value])
    elif kind is dict:
        copied = {key: detached(item, copies) for key, item in value.items()}
    else:
        return value
    copies[id(value)] = copied
    return copied


def arrays_in(value, found=None) -> list:
    """The arrays in ``value`` (inside tuples, lists, dicts and structural tangents)."""
    found = [] if found is None else found
    if isinstance(value, _ndarray):
        found.append(value)
    elif isinstance(value, (tuple, list)):
        for item in value:
            if item.__class__ is float:
                continue  # (the arguments of a scalar function: no call for each)
            arrays_in(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            arrays_in(item, found)
    elif isinstance(value, Tangent):
        arrays_in(value._fields, found)
    return found


def _owner(array):
    """What holds ``array``'s memory: the array that owns it, or the buffer it was made from.
    A view of an array (reshape, slice, ``x[...]``) has its owner's: that is the sharing to catch,
    and a look at ``.base`` costs far less than ``np.may_share_memory``."""
    base = array.base
    while isinstance(base, _ndarray):
        array, base = base, base.base
    return array if base is None else base


def unshared(gradient, held: list):
    """``gradient``, with each of its arrays that is, or is a view of, an array in ``held``
    (or another of its arrays) copied; ``held`` gains the arrays handed out."""
    kind = gradient.__class__
    if kind is float:
        return gradient  # nothing to share: the set of owners is not needed
    if kind is _ndarray:  # one array (grad's common case): its owner compared with each held array's, no set made
        owner = _owner(gradient)
        for array in held:
            if _owner(array) is owner:
                gradient = gradient.copy()
                break
        held.append(gradient)
        return gradient
    owners = {id(_owner(array)) for array in held}
    return _unshared(gradient, owners, held)


def unshared_from(gradient, values):
    """``unshared(gradient, arrays_in(values))`` for an ndarray ``gradient`` and the arguments of a
    call, ``values``: floats skipped, arrays compared by owner where they stand, with no list made."""
    owner = _owner(gradient)
    for value in values:
        kind = value.__class__
        if kind is _ndarray:
            if _owner(value) is owner:
                return gradient.copy()
        elif kind is not float:  # a container, an ndarray subclass, ...: the general look
            return unshared(gradient, arrays_in(values))
    return gradient


def _unshared(gradient, owners: set, held: list):
    if gradient.__class__ is float:
        return gradient
    if isinstance(gradient, _ndarray):
        if id(_owner(gradient)) in owners:
            gradient = gradient.copy()
        owners.add(id(_owner(gradient)))
        held.append(gradient)  # kept alive with the ids above
        return gradient
    kind = gradient.__class__
    if kind is tuple or kind is list:
        return kind([_unshared(item, owners, held) for item in gradient])
    if kind is dict:
        return {key: _unshared(item, owners, held) for key, item in gradient.items()}
    if isinstance(gradient, Tangent):  # handed out, owned by nobody: its fields may be replaced
        for key, item in list(gradient._fields.items()):
            gradient._fields[key] = _unshared(item, owners, held)
    return gradient
