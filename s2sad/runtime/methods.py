"""Methods and attributes, differentiated by the receiver's type when the code runs.

``x.sum(axis=0)``, ``A.T``, ``layer.apply(x)``: which rule applies is known only from the
receiver, so generated code asks here as it runs: a ``defmethod`` rule for NumPy arrays and
registered types, or, for a method of a user class, that method's own generated code.
"""
from __future__ import annotations

import functools
import inspect
import types
from types import FunctionType

from ..errors import MissingRuleError
from ..registry import method_rule
from ..registry.forward import forward_method_rule
from ..transform import transformed_call, transformed_forward_call
from .calls import closure_call_jvp, closure_call_rrule, value_call_jvp, value_call_rrule
from .closures import Closure
from .structure import field_cotangent, split_cotangent, tangent_field
from .tangents import NO_TANGENT, ZERO, Tangent


def method_rrule(receiver, name: str, *args, **kwargs):
    """``receiver.name(*args, **kwargs)`` and its pullback, chosen by the receiver's type;
    ``receiver(*args, **kwargs)`` when ``name`` is ``"__call__"``."""
    if name == "__call__" and (receiver.__class__ is FunctionType or not _has_own_call(receiver)):  # (a function has none)
        return value_call_rrule(receiver, *args, **kwargs)
    rule = method_rule(type(receiver), name)
    if rule is None:
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            # a method of the user's class: differentiate its source, `self` a structural argument
            return _transformed_method(function, 1 + len(args), tuple(kwargs))(receiver, *args, **kwargs)
        if function is None and callable(getattr(receiver, name, None)):
            return value_call_rrule(getattr(receiver, name), *args, **kwargs)  # a function the object holds
        raise MissingRuleError(
            f"no rule for the method `{type(receiver).__name__}.{name}`",
            hint=f"register one with s2sad.defmethod({type(receiver).__name__}, {name!r}, function_with_a_rule)",
        )
    return rule.rrule(receiver, *args, **kwargs)


def differentiated_call_rrule(receiver, *args, **kwargs):
    """``receiver(*args, **kwargs)`` where ``receiver`` is itself differentiated: an object of
    the user's class with a ``__call__`` (``layer(x)``), differentiated as its method, ``self``
    a structural argument. A function made from differentiated values (a closure, a bound
    method) is refused: the gradient it carries would be lost."""
    if isinstance(receiver, Closure):
        return closure_call_rrule(receiver, *args, **kwargs)  # a lambda holding differentiated values it reads
    if _has_own_call(receiver):
        return method_rrule(receiver, "__call__", *args, **kwargs)
    if _holds_values(receiver):
        raise _computed_callee(receiver)
    return value_call_rrule(receiver, *args, **kwargs)  # np.sin taken from a differentiated list: holds nothing


def _holds_values(function) -> bool:
    """Whether a callable may hold a differentiated value: a bound method's object, a partial's
    arguments, a Python closure's cells (a function, a ufunc or a class holds none)."""
    if inspect.ismethod(function) or isinstance(function, functools.partial) or not callable(function):
        return True
    owner = getattr(function, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        return True  # a builtin method bound to its object (`x.sum` of an array)
    cells = getattr(function, "__closure__", None) or ()
    return any(not isinstance(_cell_value(cell), (str, int, bool, type(None))) and not callable(_cell_value(cell))
               for cell in cells)


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _has_own_call(receiver) -> bool:
    function = getattr(type(receiver), "__call__", None)
    return inspect.isfunction(function) and _is_user_code(function)


def _computed_callee(receiver) -> MissingRuleError:
    return MissingRuleError(
        f"this calls a {type(receiver).__name__} computed from a differentiated input (a closure over one, or a "
        "method of a differentiated object): s2sad cannot differentiate through the function itself",
        hint="call a function defined at module level and pass the differentiated values as its arguments")


_methods: dict = {}


def _transformed_method(function, count: int, keywords: tuple):
    key = (function, count, keywords)
    call = _methods.get(key)
    if call is None:
        call = _methods[key] = transformed_call(function, range(count), keywords)
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


def method_jvp(receiver, receiver_tangent, name: str, ans, args: tuple, tangents: tuple, **kwargs):
    """The tangent of ``receiver.name(*args, **kwargs)`` (whose value is ``ans``), by the receiver's type."""
    if name == "__call__" and (receiver.__class__ is FunctionType or not _has_own_call(receiver)):  # (a function has none)
        if receiver_tangent is not ZERO and isinstance(receiver, Closure):
            return closure_call_jvp(receiver, receiver_tangent, args, tangents, **kwargs)
        if receiver_tangent is not ZERO and _holds_values(receiver):
            raise _computed_callee(receiver)
        return value_call_jvp(receiver, ans, args, tangents, **kwargs)
    forward = forward_method_rule(type(receiver), name)
    if forward is None:
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            every = (receiver_tangent,) + tuple(tangents)
            active = tuple(i for i, t in enumerate(every) if t is not ZERO)
            call = transformed_forward_call(function, active, ())
            return call(tuple(every[i] for i in active), receiver, *args, **kwargs)[1]
        if function is None and callable(getattr(receiver, name, None)):
            return value_call_jvp(getattr(receiver, name), ans, args, tangents, **kwargs)
        raise MissingRuleError(f"no forward rule for the method `{type(receiver).__name__}.{name}`",
                               hint="register one with s2sad.registry.forward.defjvp_method(...)")
    params = list(forward.signature.parameters)
    given = dict(zip(params, (receiver_tangent,) + tuple(tangents)))
    return forward.pushforward((receiver,) + tuple(args), kwargs, given, ans)


def attribute_jvp(receiver, receiver_tangent, name: str):
    """The tangent of ``receiver.name``: a property's rule (``x.T``) or a structural field."""
    forward = forward_method_rule(type(receiver), name)
    if forward is not None:
        ans = getattr(receiver, name)
        return forward.pushforward((receiver,), {}, {next(iter(forward.signature.parameters)): receiver_tangent}, ans)
    return tangent_field(receiver_tangent, name)


def packed_rrule(receiver, name: str, positional, keywords):
    """``receiver.name(*positional, **keywords)``, or ``receiver(*positional, **keywords)``
    when ``name`` is ``"__call__"``, with a pullback that gives the cotangents of the whole
    ``positional`` tuple and ``keywords`` dict: ``(NO_TANGENT, dreceiver, dpositional, dkeywords)``."""
    positional, keywords = tuple(positional), dict(keywords)
    y, pullback = method_rrule(receiver, name, *positional, **keywords)
    count = len(positional)

    def packed_pullback(g):
        cotangents = pullback(g)
        by_keyword = getattr(cotangents, "keywords", {})
        return (NO_TANGENT, cotangents[1], tuple(cotangents[2:2 + count]),
                Tangent(dict, {key: by_keyword.get(key, ZERO) for key in keywords}))

    return y, packed_pullback


def packed_jvp(receiver, receiver_tangent, name: str, ans, positional, positional_tangent, keywords, keywords_tangent):
    """The tangent of ``receiver.name(*positional, **keywords)`` (or of ``receiver(...)``)."""
    positional, keywords = tuple(positional), dict(keywords)
    if any(field_cotangent(keywords_tangent, key) is not ZERO for key in keywords):
        raise MissingRuleError(
            f"a differentiated value is passed by `**` to `{name}` in forward mode, which s2sad does not differentiate yet",
            hint="pass it positionally")
    tangents = split_cotangent(positional_tangent, len(positional))
    return method_jvp(receiver, receiver_tangent, name, ans, positional, tangents, **keywords)
