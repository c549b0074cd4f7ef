"""``params._replace(b=new_b)`` on a namedtuple and ``dataclasses.replace(state, v=new_v)``,
differentiated as the structural copies they are.

Each builds an object of the receiver's type whose named fields are the keyword values and
whose other fields are the receiver's. The derivative moves cotangents field by field: a
replaced field's reaches the keyword value given for it, every other field's reaches the
receiver; the replaced fields of the receiver get nothing. (Their sources, in ``collections``
and ``dataclasses``, build the result with ``map(kwds.pop, ...)`` and ``getattr``, which s2sad
cannot read: hence these rules.) Generated code calls ``dataclasses.replace(obj, ...)`` as the
method ``__replace__`` of ``obj`` (its name in Python 3.13's ``copy.replace``), so that both go
where methods go. The forward rule is the same copy made of the tangents; it is linear in them,
so the reverse of the forward rule (``hvp``) is this module's reverse again.

A dataclass whose ``__init__`` does more than store its arguments (a ``__post_init__``, a field
with ``init=False``) computes on replace: refused.
"""
from __future__ import annotations

import dataclasses

from ..errors import MissingRuleError
from ..frontend.ir import DATACLASS_REPLACE
from ..transformed import CotangentTuple
from .constructors import stored_fields
from .structure import tangent_field
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk



def is_structural_replace(receiver, name: str) -> bool:
    if name == "_replace":
        return isinstance(receiver, tuple) and hasattr(type(receiver), "_fields")
    return name == DATACLASS_REPLACE and dataclasses.is_dataclass(receiver) and not isinstance(receiver, type)


def _fields(primal_type: type) -> tuple:
    if hasattr(primal_type, "_fields"):
        return primal_type._fields
    stored = stored_fields(primal_type)
    if stored is None or any(not field.init for field in dataclasses.fields(primal_type)):
        raise MissingRuleError(
            f"dataclasses.replace of a {primal_type.__qualname__}, whose __init__ computes more than it stores "
            "(a __post_init__ or a field with init=False), is not differentiated",
            hint=f"build the new {primal_type.__qualname__} with its constructor")
    return tuple(stored.values())


def replaced(receiver, changes: dict):
    return receiver._replace(**changes) if hasattr(type(receiver), "_fields") else dataclasses.replace(receiver, **changes)


def _field_of(t, name: str, primal_type: type):
    """Field ``name`` of a tangent: a ``Tangent``, an object of the primal's type, or (for a
    namedtuple) a plain tuple in field order, as a user may seed a cotangent."""
    t = unthunk(t)
    if t is ZERO or t is NO_TANGENT or t is None:
        return ZERO
    if isinstance(t, tuple) and not hasattr(type(t), "_fields"):
        return t[primal_type._fields.index(name)]
    return tangent_field(t, name)


def _structure(kind: type, fields: dict):
    """The structural tangent of a ``kind`` holding ``fields`` (ZERO fields left out), or ZERO if none is left."""
    kept = {name: value for name, value in fields.items() if value is not ZERO and value is not NO_TANGENT}
    return Tangent(kind, kept) if kept else ZERO


def replaced_tangent(receiver, receiver_tangent, changes: dict, change_tangents: dict):
    """The tangent of the replace: ``change_tangents`` holds the changed fields' tangents (a
    field absent from it has a zero tangent). A receiver's tangent given as an object of its
    type (as a user seeds one) gives one too, so that a loop carrying it carries one kind."""
    primal_type = type(receiver)
    names = _fields(primal_type)
    if type(receiver_tangent) is primal_type:
        return replaced(receiver_tangent, {name: change_tangents.get(name, ZERO) for name in changes})
    return _structure(primal_type, {
        name: change_tangents.get(name, ZERO) if name in changes else _field_of(receiver_tangent, name, primal_type)
        for name in names})


def replaced_cotangents(receiver, changes, g, kind: type | None = None) -> tuple:
    """``(the receiver's cotangent, {keyword: its cotangent})`` from ``g``, the result's; the
    receiver's a structural tangent of ``kind`` (its type unless said)."""
    primal_type = type(receiver)
    kept = _structure(kind or primal_type, {name: _field_of(g, name, primal_type)
                                            for name in _fields(primal_type) if name not in changes})
    return kept, {key: _field_of(g, key, primal_type) for key in changes}


def replace_rrule(receiver, **changes):
    """The replace and its pullback, in ``method_rrule``'s form: ``(NO_TANGENT, d receiver)``
    with the keywords' cotangents in ``.keywords``."""
    _fields(type(receiver))  # (refuses a dataclass that computes on replace)
    y = replaced(receiver, changes)

    def replace_pullback(g):
        d_receiver, by_keyword = replaced_cotangents(receiver, changes, g)
        result = CotangentTuple((NO_TANGENT, d_receiver))
        result.keywords = by_keyword
        return result

    return y, replace_pullback
