"""What generated code calls at run time, besides the rules themselves.

Kept small on purpose: everything that can be decided when the code is generated is
decided then; only calls whose rule depends on the type of a value (methods and
attributes: ``x.sum()``, ``x.T``, ``params.W``) are looked up here when they run.
"""
from __future__ import annotations

from .accumulate import accumulate, add_at, zeroed_at
from ..errors import MissingRuleError
from ..registry import method_rule
from ..rules.helpers import written_once
import inspect

import numpy as np

from .tangents import NO_TANGENT, ZERO, Tangent, unthunk

__all__ = ["ZERO", "NO_TANGENT", "accumulate", "add_at", "unthunk", "split_cotangent", "item_cotangent", "field_cotangent",
           "method_rrule", "attribute_rrule", "overwritten", "restore", "item_of", "written_item_of", "zeroed_at", "prefix_of",
           "items_of", "inserted_at", "add_tangents", "tangent_item", "tangent_field", "tangent_setitem", "tangent_append",
           "tangent_extend", "tangent_pop", "tangent_filled", "method_jvp", "attribute_jvp"]


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
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            # a method of the user's class: differentiate its source, `self` a structural argument
            return _transformed_method(function, 1 + len(args), tuple(kwargs))(receiver, *args, **kwargs)
        raise MissingRuleError(
            f"no rule for the method `{type(receiver).__name__}.{name}`",
            hint=f"register one with s2sad.defmethod({type(receiver).__name__}, {name!r}, function_with_a_rule)",
        )
    return rule.rrule(receiver, *args, **kwargs)


_methods: dict = {}


def _transformed_method(function, count: int, keywords: tuple):
    key = (function, count, keywords)
    call = _methods.get(key)
    if call is None:
        from ..transform import TransformedCall

        call = _methods[key] = TransformedCall(function, range(count), keywords)
    return call


def _is_user_code(function) -> bool:
    module = getattr(function, "__module__", "") or ""
    return module.split(".")[0] not in {"numpy", "scipy", "builtins", "s2sad", "functools"}


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


# ---------------------------------------------------------------- in-place changes (y[i] = v, xs.append(v))
_ABSENT = object()  # what overwritten() returns for a dict key that was not there


def overwritten(container, index):
    """What ``container[index] = ...`` is about to overwrite, copied (restore() puts it back)."""
    try:
        old = container[index]
    except (KeyError, IndexError):
        return _ABSENT
    return old.copy() if isinstance(old, np.ndarray) else old


def restore(container, index, old) -> None:
    if old is _ABSENT:
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
    from .accumulate import add

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
        if isinstance(like, dict):
            return {}
        raise TypeError(f"cannot hold the tangent of a {type(like).__name__} that is changed in place")
    return t


def tangent_setitem(t, container, index, value_tangent):
    """The tangent of ``container`` after ``container[index] = value``, written in place."""
    t = _materialised(unthunk(t), container)
    value_tangent = unthunk(value_tangent)
    if isinstance(t, np.ndarray):
        t[index] = 0 if value_tangent is ZERO or value_tangent is NO_TANGENT else value_tangent
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


def tangent_pop(t, index):
    """The tangent of what ``container.pop(index)`` took; ``t`` loses that element too."""
    if t is ZERO or t is NO_TANGENT:
        return ZERO
    return t.pop(index)


def method_jvp(receiver, receiver_tangent, name: str, ans, args: tuple, tangents: tuple, **kwargs):
    """The tangent of ``receiver.name(*args, **kwargs)`` (whose value is ``ans``), by the receiver's type."""
    from ..registry.forward import forward_method_rule

    forward = forward_method_rule(type(receiver), name)
    if forward is None:
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            from ..transform import TransformedForwardCall

            every = (receiver_tangent,) + tuple(tangents)
            active = tuple(i for i, t in enumerate(every) if t is not ZERO)
            call = TransformedForwardCall(function, active, ())
            return call(tuple(every[i] for i in active), receiver, *args, **kwargs)[1]
        raise MissingRuleError(f"no forward rule for the method `{type(receiver).__name__}.{name}`",
                               hint="register one with s2sad.registry.forward.defjvp_method(...)")
    params = list(forward.signature.parameters)
    given = dict(zip(params, (receiver_tangent,) + tuple(tangents)))
    return forward.pushforward((receiver,) + tuple(args), kwargs, given, ans)


def attribute_jvp(receiver, receiver_tangent, name: str):
    """The tangent of ``receiver.name``: a property's rule (``x.T``) or a structural field."""
    from ..registry.forward import forward_method_rule

    forward = forward_method_rule(type(receiver), name)
    if forward is not None:
        ans = getattr(receiver, name)
        return forward.pushforward((receiver,), {}, {next(iter(forward.signature.parameters)): receiver_tangent}, ans)
    return tangent_field(receiver_tangent, name)
