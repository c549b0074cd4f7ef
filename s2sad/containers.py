"""Gradients in the user's own containers, and the user's containers taken as tangents.

Inside s2sad the cotangent of a container is a structural ``Tangent``; at the API boundary the
user gets back the kind of container they passed in, as JAX does with pytrees: a dict for a
dict (same keys, same order), a list for a list, a tuple for a tuple, the namedtuple or
dataclass for a namedtuple or dataclass, nested to any depth, with zeros where nothing
flowed. A leaf without a tangent space (an int, a string, a function, None) gets None, as a
JAX tree has None where there is nothing. An object of any other class keeps its
``Tangent``: it has no container to fill in.

The other way, a cotangent the user gives in such a container (for a dict output) becomes
what pullbacks expect: a ``Tangent`` for a dict, namedtuple or dataclass, a plain tuple or
list of cotangents for a tuple or list, ZERO for None; a tangent the user gives for a
container input of forward code (jvp) keeps the container, with zeros for None.
"""
from __future__ import annotations

import copy
import dataclasses

import numpy as np

from .errors import ArgumentError
from .runtime.structure import zeros_like_primal
from .runtime.tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk


def fields(value):
    """``(key, item)`` pairs of a container handed back in kind, keyed as its ``Tangent`` is;
    None for anything else (a leaf, or a plain object whose gradient stays a ``Tangent``)."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return list(zip(type(value)._fields, value))
    if isinstance(value, (list, tuple)):
        return list(enumerate(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(field.name, getattr(value, field.name)) for field in dataclasses.fields(value)]
    return None


def in_container(like, tangent, leaf):
    """``tangent`` (a ``Tangent``, a symbolic zero, a thunk or a container of tangents) of
    ``like`` rebuilt in ``like``'s own container, each leaf made by ``leaf(tangent, like)``."""
    tangent = unthunk(tangent)
    pairs = fields(like)
    if pairs is None:
        return leaf(tangent, like)
    return remade(like, [(key, in_container(item, field_of(tangent, key, index), leaf))
                         for index, (key, item) in enumerate(pairs)])


def as_container(primal, gradient):
    """``gradient`` (projected onto ``primal``: every field present) in ``primal``'s own container."""
    if type(gradient) is not Tangent:
        return None if gradient is NO_TANGENT else gradient
    return in_container(primal, gradient, _user_leaf)


def _user_leaf(gradient, primal):
    return None if gradient is NO_TANGENT else gradient


def as_tangent(like, given):
    """A tangent or cotangent the user gave for ``like`` in its container, as rules take it:
    a ``Tangent`` for a dict, namedtuple or dataclass, a tuple or list for a tuple or list
    (their cotangents add item by item), ZERO for None."""
    if given is None:
        return ZERO
    pairs = fields(like)
    if pairs is None or is_zero(given) or type(given) is Tangent:
        return given
    items = {key: as_tangent(item, field_of(given, key, index)) for index, (key, item) in enumerate(pairs)}
    if type(like) in (list, tuple):
        return type(like)(items.values())
    return Tangent._of(type(like), {key: item for key, item in items.items() if item is not ZERO})


def filled_tangent(like, given):
    """A tangent the user gave for the input ``like`` of forward code, in ``like``'s container
    with real zeros where it has None or ZERO (forward code computes with every leaf's
    tangent); a ZERO or None for the whole input is ZERO (that input is not pushed forward)."""
    if given is None:
        return ZERO
    if is_zero(given) or fields(like) is None:
        return given
    return in_container(like, given, _filled_leaf)


def user_tangent(like, given, where: str):
    """A tangent the caller of ``jvp`` or ``hvp`` gave for the input ``like``, filled in as
    :func:`filled_tangent` does, each array leaf checked against its primal: a number for a 0-d
    array becomes a 0-d array of the primal's dtype (generated code indexes it as the primal),
    and a tangent shaped unlike its array is refused here rather than met as a NumPy error (or a
    silent broadcast) inside generated code."""
    _check_items(like, given, where)
    filled = filled_tangent(like, given)
    if is_zero(filled):
        return filled
    return in_container(like, filled, lambda tangent, primal: _checked_leaf(tangent, primal, where))


def _check_items(like, given, where):
    """Refuse a tangent of a list or tuple that has another number of items, or an array (NumPy's
    reading of the list, whose rows are the items' tangents) of another shape."""
    if like.__class__ is not list and like.__class__ is not tuple:
        return
    if given.__class__ is np.ndarray:
        try:
            shape = np.shape(like)
        except ValueError:
            shape = None  # items of unequal shapes: no array reads them
        if shape != given.shape:
            raise ArgumentError(f"the tangent for {where} is an array of shape {given.shape}, but the "
                                f"{type(like).__name__} it moves reads as "
                                + (f"an array of shape {shape}" if shape is not None else "no array")
                                + ": give a tangent shaped like its primal (a list of its items' tangents)")
    elif given.__class__ is list or given.__class__ is tuple:
        if len(given) != len(like):
            raise ArgumentError(f"the tangent for {where} has {len(given)} items, but the {type(like).__name__} "
                                f"it moves has {len(like)}: give one tangent per item (None for a zero)")
        for item, tangent in zip(like, given):
            _check_items(item, tangent, where)


def _checked_leaf(tangent, like, where):
    if not isinstance(like, np.ndarray) or tangent is None or is_zero(tangent) or isinstance(tangent, Tangent):
        return tangent
    shape = np.shape(tangent)
    if shape != like.shape:
        raise ArgumentError(f"the tangent for {where} has shape {shape}, but the array it moves has shape "
                            f"{like.shape}: give a tangent shaped like its primal")
    if not isinstance(tangent, np.ndarray):  # a number, a list: in the primal's float dtype (complex kept complex)
        dtype = like.dtype if like.dtype.kind in "fc" else np.dtype(np.float64)
        return np.asarray(tangent, dtype=np.result_type(dtype, np.complex64) if np.iscomplexobj(tangent) else dtype)
    return tangent


def _filled_leaf(tangent, like):
    if (tangent is None or is_zero(tangent)) and isinstance(like, (float, int, complex, np.ndarray, np.generic)):
        return zeros_like_primal(like)
    return tangent


def field_of(tangent, key, index: int):
    """The tangent of the field ``key`` (the ``index``-th) of a container, from a tangent in
    any form it may take: a ``Tangent``, a zero, None, or the user's own container."""
    if tangent is None or is_zero(tangent):
        return ZERO
    if type(tangent) is Tangent:
        return tangent[key]
    if isinstance(tangent, dict):
        return tangent.get(key, ZERO)
    if isinstance(tangent, (list, tuple)):
        return tangent[index]  # a namedtuple's tangent given by position, or a list's
    if tangent.__class__ is np.ndarray and isinstance(key, int):
        return tangent[index]  # a list's tangent given as NumPy reads the list: a row an item
    return getattr(tangent, key)  # a dataclass given as its own tangent


def remade(like, pairs):
    """``like``'s container holding the items of ``pairs`` (keyed as ``fields`` keys it)."""
    kind = type(like)
    if isinstance(like, dict):
        return dict(pairs) if kind is dict else _rebuilt(kind, pairs)
    items = [item for _, item in pairs]
    if isinstance(like, tuple) and hasattr(kind, "_fields"):
        return kind(*items)
    if isinstance(like, (list, tuple)):
        return items if kind is list else tuple(items) if kind is tuple else _rebuilt(kind, items)
    # a copy with its fields replaced, not the constructor: __post_init__ and init=False
    # fields would compute from the gradients as if they were values
    made = copy.copy(like)
    for name, item in pairs:
        object.__setattr__(made, name, item)
    return made


def leaves(value) -> list:
    """The leaves of ``value``, depth first in the containers' own order (``value`` itself
    when it is no container)."""
    pairs = fields(value)
    if pairs is None:
        return [value]
    return [leaf for _, item in pairs for leaf in leaves(item)]


def with_leaves(like, values):
    """``like`` with its leaves (as ``leaves`` lists them) replaced by ``values``, in order."""
    remaining = iter(values)
    return in_container(like, ZERO, lambda tangent, leaf: next(remaining))


def _rebuilt(kind, items):
    """A subclass of dict, list or tuple rebuilt from its items, or the plain container if it
    cannot be (a defaultdict needs its factory)."""
    try:
        return kind(items)
    except TypeError:
        base = dict if issubclass(kind, dict) else list if issubclass(kind, list) else tuple
        return base(items)
