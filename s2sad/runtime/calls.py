"""Calls of values, differentiated by what the value turns out to be when the code runs.

``nonlinearity(x)`` where ``nonlinearity=np.tanh`` is a default argument, ``f(a)`` where
``f`` was passed in, ``ACTIVATIONS[name](z)``, and every call written with ``*`` or ``**``
(``np.ones(*shape)``, ``helper(x, *args, **kwargs)``): which derivative applies is known only
from the callee, so generated code asks here as it runs. A function with a rule goes through
its rule; a Python function of the user's through its own generated code (made once per
function and call shape, then kept); a user's class through its constructor
(``constructors.py``); a ``functools.partial`` or a bound method is taken apart into its
function and the arguments it already holds.

The callee itself has no tangent: the generators refuse to call a value computed from a
differentiated input (a closure over one, a bound method of a differentiated object), so the
arguments a partial or a bound method already holds are constants of the differentiation.
"""
from __future__ import annotations

import functools
import inspect
from types import FunctionType

import numpy as np

from ..errors import MissingRuleError
from ..frontend.resolve import describe_callee, is_library
from ..registry import bound_to_rule, registry_generation, rule_for
from ..registry.forward import forward_rule
from ..transform import transformed_call, transformed_forward_call
from ..transformed import CotangentTuple
from .closures import Closure, held_parts, held_tangent, refuse_held_numbers
from .constructors import constructor_jvp, constructor_rrule
from .projection import is_float_like
from .tangents import NO_TANGENT, ZERO


def called(function):
    """``(target, held arguments, held keywords)``: what calling ``function`` really calls."""
    held_args: tuple = ()
    held_keywords: dict = {}
    while True:
        if isinstance(function, functools.partial):
            held_args = function.args + held_args
            held_keywords = {**function.keywords, **held_keywords}
            function = function.func
        elif inspect.ismethod(function) and rule_for(function) is None:
            held_args = (function.__self__,) + held_args
            function = function.__func__
        else:
            return function, held_args, held_keywords


def differentiable_source(function) -> bool:
    original = getattr(function, "__s2sad_original__", function)
    return inspect.isfunction(original) and not is_library(original)


def _user_class(target) -> bool:
    return isinstance(target, type) and not is_library(target)


def _no_way(function, mode: str) -> MissingRuleError:
    if isinstance(function, np.vectorize):
        return MissingRuleError(
            "a `np.vectorize` object called through a value is not differentiated",
            hint="call it where it is made, `np.vectorize(f)(x)` (s2sad writes out the calls of f), or write the "
                 "NumPy expression f computes on the whole array")
    return MissingRuleError(
        f"no {'forward ' if mode == 'forward' else ''}rule for {describe_callee(function)}, called through a value, "
        "and it has no Python source to differentiate",
        hint="register one with s2sad.defvjp(...) or s2sad.defrrule(...), or call a Python function")


_transformed: dict = {}


def _transformed_call(function, first: int, count: int, keywords: tuple):
    key = (function, first, count, keywords)
    call = _transformed.get(key)
    if call is None:
        call = _transformed[key] = transformed_call(function, range(first, first + count), keywords)
    return call


def call_rrule(function, *args, **kwargs):
    """What a rule calling a function it is given uses (``functools.reduce``): ``value_call_rrule``,
    refusing a closure that holds a number (see closures.py)."""
    refuse_held_numbers(function)
    return value_call_rrule(function, *args, **kwargs)


def call_jvp(function, ans, args: tuple, tangents: tuple, **kwargs):
    """What a rule calling a function it is given uses: ``value_call_jvp``, refusing a closure that
    holds a number."""
    refuse_held_numbers(function)
    return value_call_jvp(function, ans, args, tangents, **kwargs)


def closure_call_rrule(receiver: Closure, *args, **kwargs):
    """``receiver(*args, **kwargs)`` for a differentiated closure, and its pullback ``(NO_TANGENT,
    the closure's cotangent, *cotangents of args)``: the held values differentiated with the arguments."""
    held = receiver.args
    call = _transformed_call(receiver.func, 0, len(held) + len(args), tuple(kwargs))
    y, pullback = call(*held, *args, **{**receiver.keywords, **kwargs})

    def closure_pullback(g):
        cotangents = pullback(g)
        result = CotangentTuple((NO_TANGENT, held_tangent(cotangents[1:1 + len(held)]))
                                + tuple(cotangents[1 + len(held):]))
        result.keywords = getattr(cotangents, "keywords", {})
        return result

    return y, closure_pullback


def closure_call_jvp(receiver: Closure, receiver_tangent, args: tuple, tangents: tuple, keyword_tangents=None, /,
                     **kwargs):
    """The tangent of ``receiver(*args, **kwargs)`` for a differentiated closure
    (``keyword_tangents``: the keywords' tangents that are not ZERO)."""
    held = receiver.args
    keyword_tangents = keyword_tangents or {}
    every = held_parts(receiver_tangent, len(held)) + tuple(tangents)
    active = tuple(i for i, t in enumerate(every) if t is not ZERO)
    call = transformed_forward_call(receiver.func, active, tuple(keyword_tangents))
    given = tuple(every[i] for i in active) + tuple(keyword_tangents.values())
    return call(given, *held, *args, **{**receiver.keywords, **kwargs})[1]


# id(function) -> (function, registry generation, its __module__): a Python function called through a
# value that has no rule and is differentiated from its source (what ``value_call_rrule`` found), so
# that calls of it giving every parameter in order go straight to its generated code
_from_source: dict = {}
_NO_TANGENTS = (NO_TANGENT, NO_TANGENT)


def value_call_rrule(function, *args, **kwargs):
    """``function(*args, **kwargs)`` and its pullback, which gives ``(NO_TANGENT, NO_TANGENT,
    *cotangents of args)``: the first for the call, the second for ``function`` itself; the
    cotangents of ``kwargs`` in its ``.keywords`` (a ``**`` call passes them on). ``function`` is
    not differentiated (the generated code says so, or a rule vouched for it)."""
    if not kwargs:
        known = _from_source.get(id(function))
        if known is not None and known[0] is function and known[1] == registry_generation() \
                and function.__module__ is known[2]:
            call = _transformed_call(function, 0, len(args), ())
            if call.in_order == len(args):
                return call.call_in_order(args, _NO_TANGENTS, function.__name__)
    generation = registry_generation()  # (what rule_for finds below is found under it)
    target, held_args, held_keywords = called(function)
    keywords = {**held_keywords, **kwargs}
    held = len(held_args)
    rule = rule_for(target)
    if rule is not None:
        # a rule's pullback gives positional cotangents only: a number passed by keyword, which may
        # be differentiated, would get none (a constructor's gives the keywords' too)
        floats = [key for key, value in kwargs.items() if is_float_like(value)]
        if floats:
            raise MissingRuleError(
                f"`{floats[0]}` is passed by keyword to {describe_callee(target)} through a value or `**`, where "
                "s2sad does not differentiate keywords", hint=f"pass `{floats[0]}` positionally")
    if rule is not None:  # which arguments are differentiated is not known here: cotangents computed if read
        y, pullback = rule.lazy_rrule(*held_args, *args, **keywords)
    elif _user_class(target):
        y, pullback = constructor_rrule(target, *held_args, *args, **keywords)
    elif differentiable_source(target):
        y, pullback = _transformed_call(target, held, len(args), tuple(kwargs))(*held_args, *args, **keywords)
        if target is function and function.__class__ is FunctionType:  # looked up here again only if the registry changes
            if len(_from_source) > 4096:
                _from_source.clear()
            _from_source[id(function)] = (function, generation, function.__module__)
    else:
        raise _no_way(target, "reverse")

    def call_pullback(g):
        cotangents = pullback(g)
        result = CotangentTuple((NO_TANGENT, NO_TANGENT) + tuple(cotangents[1 + held:]))
        by_keyword = getattr(cotangents, "keywords", {})
        result.keywords = {key: by_keyword.get(key, ZERO) for key in kwargs}
        return result

    call_pullback.__name__ = call_pullback.__qualname__ = f"{getattr(target, '__name__', 'call')}_pullback"
    return y, call_pullback


def value_call_jvp(function, ans, args: tuple, tangents: tuple, keyword_tangents=None, /, **kwargs):
    """The tangent of ``function(*args, **kwargs)`` (whose value is ``ans``), given the
    tangents of the positional arguments and, in ``keyword_tangents``, those of the keywords
    that are not ZERO; ``function`` not differentiated."""
    target, held_args, held_keywords = called(function)
    keywords = {**held_keywords, **kwargs}
    keyword_tangents = keyword_tangents or {}
    every = (ZERO,) * len(held_args) + tuple(tangents)
    forward = forward_rule(target)
    if forward is not None:
        try:
            given = dict(forward.signature.bind_partial(*every).arguments)  # *args collect their tangents in a tuple
        except TypeError:  # more arguments than the rule takes (`math.hypot(*xs)` of three): says so, located
            bound_to_rule(forward.signature, forward.rule.name, held_args + tuple(args), keywords)
            raise
        given.update(keyword_tangents_by_parameter(forward, keyword_tangents, describe_callee(target)))
        return forward.pushforward(held_args + tuple(args), keywords, given, ans)
    if _user_class(target):
        # (a constructor that computes runs its initializer's forward code; one that stores, the fields')
        return constructor_jvp(target, held_args + tuple(args), every, keyword_tangents, **keywords)
    if differentiable_source(target):
        active = tuple(i for i, t in enumerate(every) if t is not ZERO)
        call = transformed_forward_call(target, active, tuple(keyword_tangents))
        given = tuple(every[i] for i in active) + tuple(keyword_tangents.values())
        return call(given, *held_args, *args, **keywords)[1]
    raise _no_way(target, "forward")


def keyword_tangents_by_parameter(forward, keyword_tangents: dict, label: str) -> dict:
    """A forward rule's tangents of keyword arguments, by its parameter: a keyword its signature
    does not name (one collected by ``**``) is refused, the rule giving it no tangent."""
    parameters = forward.signature.parameters
    for keyword in keyword_tangents:
        if keyword not in parameters or parameters[keyword].kind in (parameters[keyword].VAR_POSITIONAL,
                                                                     parameters[keyword].VAR_KEYWORD):
            raise MissingRuleError(
                f"`{keyword}` is a differentiated value passed by keyword to {label}, whose forward rule "
                "has no parameter of that name", hint=f"pass `{keyword}` positionally")
    return dict(keyword_tangents)


def held_call(function):
    """``called(function)`` for a ``functools.partial`` or a bound method without a rule of its
    own (what ``grad(model.loss)`` differentiates: ``loss`` with ``model`` held), else None."""
    if not (isinstance(function, functools.partial) or inspect.ismethod(function)) or rule_for(function) is not None:
        return None
    return called(function)
