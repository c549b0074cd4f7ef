"""``params._replace(b=new_b)`` on a namedtuple, differentiated as the structural copy it is.

``_replace`` builds a namedtuple of the same type whose named fields are the keyword values
and whose other fields are the receiver's. Its derivative moves cotangents field by field:
a replaced field's reaches the keyword value given for it, every other field's reaches the
receiver; the replaced fields of the receiver get nothing. (Its source, in ``collections``,
builds the result with ``map(kwds.pop, ...)``, which s2sad cannot read: hence these rules.)
The forward rule is the same copy made of the tangents; it is linear in them, so the
reverse of the forward rule (``hvp``) is this module's reverse again.
"""
from __future__ import annotations

from ..transformed import CotangentTuple
from .structure import tangent_field
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk


def is_namedtuple_replace(receiver, name: str) -> bool:
    return name == "_replace" and isinstance(receiver, tuple) and hasattr(type(receiver), "_fields")


def _field_of(t, name: str, primal_type: type):
    """Field ``name`` of a namedtuple's tangent: a ``Tangent``, a namedtuple, or a plain tuple
    in field order (as a user may seed a cotangent)."""
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
    """The tangent of ``receiver._replace(**changes)``: ``change_tangents`` holds the changed
    fields' tangents (a field absent from it has a zero tangent). A receiver's tangent given
    as a namedtuple of its type (as a user seeds one) gives one too, so that a loop carrying it
    carries one kind of tangent."""
    primal_type = type(receiver)
    if type(receiver_tangent) is primal_type:
        return receiver_tangent._replace(**{name: change_tangents.get(name, ZERO) for name in changes})
    return _structure(primal_type, {
        name: change_tangents.get(name, ZERO) if name in changes else _field_of(receiver_tangent, name, primal_type)
        for name in primal_type._fields})


def replaced_cotangents(receiver, changes, g, kind: type | None = None) -> tuple:
    """``(the receiver's cotangent, {keyword: its cotangent})`` from ``g``, the result's; the
    receiver's a structural tangent of ``kind`` (its type unless said)."""
    primal_type = type(receiver)
    kept = _structure(kind or primal_type, {name: _field_of(g, name, primal_type)
                                            for name in primal_type._fields if name not in changes})
    return kept, {key: _field_of(g, key, primal_type) for key in changes}


def replace_rrule(receiver, **changes):
    """``receiver._replace(**changes)`` and its pullback, in ``method_rrule``'s form:
    ``(NO_TANGENT, d receiver)`` with the keywords' cotangents in ``.keywords``."""
    y = receiver._replace(**changes)

    def replace_pullback(g):
        d_receiver, by_keyword = replaced_cotangents(receiver, changes, g)
        result = CotangentTuple((NO_TANGENT, d_receiver))
        result.keywords = by_keyword
        return result

    return y, replace_pullback
