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
from .calls import (closure_call_jvp, closure_call_rrule, keyword_tangents_by_parameter, value_call_jvp,
                    value_call_rrule)
from ..transformed import CotangentTuple
from .closures import Closure
from .structural_replace import is_structural_replace, replace_rrule, replaced_tangent
from .structure import field_cotangent, split_cotangent, tangent_field
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk


def method_rrule(receiver, name: str, *args, **kwargs):
    """``receiver.name(*args, **kwargs)`` and its pullback, chosen by the receiver's type;
    ``receiver(*args, **kwargs)`` when ``name`` is ``"__call__"``."""
    if name == "__call__" and (receiver.__class__ is FunctionType or not _has_own_call(receiver)):  # (a function has none)
        return value_call_rrule(receiver, *args, **kwargs)
    if is_structural_replace(receiver, name):
        return replace_rrule(receiver, *args, **kwargs)
    rule = method_rule(type(receiver), name)
    if rule is None:
        if not_given_the_receiver(receiver, name):
            return value_call_rrule(getattr(receiver, name), *args, **kwargs)
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
    y, pullback = rule.rrule(receiver, *args, **kwargs)
    if not kwargs:
        return y, pullback
    label = f"{type(receiver).__name__}.{name}"

    def method_pullback(g):  # a rule's pullback gives positional cotangents: a keyword's is refused when read
        result = CotangentTuple(pullback(g))
        result.keywords = _KeywordsWithoutCotangents(label)
        return result

    return y, method_pullback


class _KeywordsWithoutCotangents(dict):
    """The ``.keywords`` of a method rule's pullback, which has none: reading one (the generated
    code reads only a differentiated keyword's) is refused, naming the method and the keyword."""

    def __init__(self, label: str):
        super().__init__()
        self.label = label

    def __missing__(self, keyword):
        raise MissingRuleError(
            f"`{keyword}` is a differentiated value passed by keyword to `{self.label}`, whose rule gives "
            "cotangents of positional arguments only",
            hint=f"pass `{keyword}` positionally")


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


def not_given_the_receiver(receiver, name: str) -> bool:
    """Whether ``receiver.name`` is a static method (given no receiver) or a class method (given
    the class): called as the function it is, not with the object first."""
    return isinstance(inspect.getattr_static(type(receiver), name, None), (staticmethod, classmethod))


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
    getter = property_getter(receiver, name)
    if getter is not None:  # computed from the object's fields: the getter's own derivative
        value, pullback = _transformed_method(getter, 1, ())(receiver)

        def property_pullback(g):
            return NO_TANGENT, pullback(g)[1]

        return value, property_pullback
    value = getattr(receiver, name)
    primal_type = type(receiver)

    def getattr_pullback(g):
        return NO_TANGENT, Tangent(primal_type, {name: g})

    return value, getattr_pullback


def method_jvp(receiver, receiver_tangent, name: str, ans, args: tuple, tangents: tuple, **kwargs):
    """The tangent of ``receiver.name(*args, **kwargs)`` (whose value is ``ans``), by the receiver's type."""
    return keyword_method_jvp(receiver, receiver_tangent, name, ans, args, tangents, kwargs, {})


def keyword_method_jvp(receiver, receiver_tangent, name: str, ans, args: tuple, tangents: tuple,
                       kwargs: dict, keyword_tangents: dict):
    """``method_jvp`` given the tangents of keyword arguments too: ``keyword_tangents`` holds
    those that are not ZERO, by keyword."""
    if name == "__call__" and (receiver.__class__ is FunctionType or not _has_own_call(receiver)):  # (a function has none)
        if receiver_tangent is not ZERO and isinstance(receiver, Closure):
            return closure_call_jvp(receiver, receiver_tangent, args, tangents, keyword_tangents, **kwargs)
        if receiver_tangent is not ZERO and _holds_values(receiver):
            raise _computed_callee(receiver)
        return value_call_jvp(receiver, ans, args, tangents, keyword_tangents, **kwargs)
    if is_structural_replace(receiver, name):
        return replaced_tangent(receiver, receiver_tangent, kwargs, keyword_tangents)
    forward = forward_method_rule(type(receiver), name)
    if forward is None:
        if not_given_the_receiver(receiver, name):
            return value_call_jvp(getattr(receiver, name), ans, args, tangents, keyword_tangents, **kwargs)
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            every = (receiver_tangent,) + tuple(tangents)
            active = tuple(i for i, t in enumerate(every) if t is not ZERO)
            call = transformed_forward_call(function, active, tuple(keyword_tangents))
            given = tuple(every[i] for i in active) + tuple(keyword_tangents.values())
            return call(given, receiver, *args, **kwargs)[1]
        if function is None and callable(getattr(receiver, name, None)):
            return value_call_jvp(getattr(receiver, name), ans, args, tangents, keyword_tangents, **kwargs)
        raise MissingRuleError(f"no forward rule for the method `{type(receiver).__name__}.{name}`",
                               hint="register one with s2sad.registry.forward.defjvp_method(...)")
    params = list(forward.signature.parameters)
    given = dict(zip(params, (receiver_tangent,) + tuple(tangents)))
    given.update(keyword_tangents_by_parameter(forward, keyword_tangents, f"{type(receiver).__name__}.{name}"))
    return forward.pushforward((receiver,) + tuple(args), kwargs, given, ans)


def attribute_jvp(receiver, receiver_tangent, name: str):
    """The tangent of ``receiver.name``: a property's rule (``x.T``) or a structural field."""
    forward = forward_method_rule(type(receiver), name)
    if forward is not None:
        ans = getattr(receiver, name)
        return forward.pushforward((receiver,), {}, {next(iter(forward.signature.parameters)): receiver_tangent}, ans)
    getter = property_getter(receiver, name)
    if getter is not None:
        if receiver_tangent is ZERO:
            return ZERO
        return transformed_forward_call(getter, (0,), ())((receiver_tangent,), receiver)[1]
    return tangent_field(receiver_tangent, name)


def property_getter(receiver, name: str):
    """The getter of ``name`` when it is a property of the receiver's class, not a field: None
    for a field. Read as a field, a property's cotangent would be dropped (the object's
    fields do not hold it); a getter without Python source of the user's is refused."""
    found = inspect.getattr_static(type(receiver), name, None)
    if not isinstance(found, property):
        return None
    if inspect.isfunction(found.fget) and _is_user_code(found.fget):
        return found.fget
    raise MissingRuleError(
        f"no rule for the property `{type(receiver).__name__}.{name}`, and its getter has no Python source of yours "
        "to differentiate",
        hint=f"register one with s2sad.defmethod({type(receiver).__name__}, {name!r}, function_with_a_rule)")


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
    tangents = split_cotangent(positional_tangent, len(positional))
    return keyword_method_jvp(receiver, receiver_tangent, name, ans, positional, tangents, keywords,
                              nonzero_keyword_tangents(keywords, keywords_tangent))


def nonzero_keyword_tangents(keywords: dict, keywords_tangent) -> dict:
    """The keywords' tangents that are not ZERO, by keyword, from the tangent of the whole dict."""
    found = {key: unthunk(field_cotangent(keywords_tangent, key)) for key in keywords}
    return {key: tangent for key, tangent in found.items() if tangent is not ZERO and tangent is not NO_TANGENT}
