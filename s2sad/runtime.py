"""What generated code calls at run time, besides the rules themselves.

Kept small on purpose: everything that can be decided when the code is generated is
decided then; only calls whose rule depends on the type of a value (methods and
attributes: ``x.sum()``, ``x.T``, ``params.W``) are looked up here when they run.
"""
from __future__ import annotations

from .accumulate import accumulate
from .errors import MissingRuleError
from .registry import method_rule
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk

__all__ = ["ZERO", "NO_TANGENT", "accumulate", "unthunk", "split_cotangent", "item_cotangent", "field_cotangent",
           "method_rrule", "attribute_rrule"]


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


def item_cotangent(g, index: int, count: int) -> tuple:
    """The cotangent of a sequence of ``count`` elements of which only element ``index`` was used."""
    parts = [ZERO] * count
    parts[index] = g
    return tuple(parts)


def field_cotangent(g, key):
    """The cotangent of one entry of a dict, from the cotangent of the whole dict."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT or g is None:
        return ZERO
    if isinstance(g, Tangent):
        return g[key]
    return g.get(key, ZERO) if isinstance(g, dict) else g[key]


def method_rrule(receiver, name: str, *args, **kwargs):
    """``receiver.name(*args, **kwargs)`` and its pullback, chosen by the receiver's type."""
    rule = method_rule(type(receiver), name)
    if rule is None:
        raise MissingRuleError(
            f"no rule for the method `{type(receiver).__name__}.{name}`",
            hint=f"register one with s2sad.defmethod({type(receiver).__name__}, {name!r}, function_with_a_rule)",
        )
    return rule.rrule(receiver, *args, **kwargs)


def attribute_rrule(receiver, name: str):
    """``receiver.name`` and its pullback: a property rule (``x.T``) or a structural field read."""
    rule = method_rule(type(receiver), name)
    if rule is not None:
        return rule.rrule(receiver)
    value = getattr(receiver, name)
    primal_type = type(receiver)

    def getattr_pullback(g):
        return NO_TANGENT, Tangent(primal_type, {name: g})

    return value, getattr_pullback
