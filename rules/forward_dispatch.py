"""Rules of the calls forward code makes by the receiver's type, so that forward code can be
differentiated again (``hvp`` and ``hessian`` are reverse mode over it).

``method_jvp`` (``x.reshape(3, 1)``, ``x.sum(axis=0)``, a rule's function called through a
value), ``attribute_jvp`` (``A.T``) and ``packed_jvp`` (``f(*args)``) push tangents through
a forward rule found as the code runs. Their reverse rule finds the same forward rule and
pulls the cotangent back through each of its terms:

* a parameter the function is linear in (``LINEAR``): the term is the function itself with
  the tangent in that parameter's place, so its pullback is the function's own reverse rule
  at that call (the tangent's cotangent, and the other arguments' for the cross terms);
* a template or a callable jvp ``jvp(g, ans, *params)``: differentiated from its source
  (templates are compiled with one) through ``call_rrule``, as any function called through a
  value; ``ans``'s cotangent flows back to the call's output.

A user function called through a value in forward code (``f(*args)``, a default argument) has
no forward rule: its reverse is that of its own generated forward code. A method of the user's
class has none either: its second derivative is refused here, with an error naming it.
"""
import functools
import inspect

import numpy as np

from s2sad.errors import MissingRuleError
from s2sad.registry import bound_to_rule, defrrule, restore_template_source
from s2sad.registry.forward import LINEAR, forward_method_rule, forward_rule, linear_call
from s2sad.runtime.accumulate import add
from s2sad.runtime.projection import is_float_like
from s2sad.frontend.resolve import is_library
from s2sad.runtime.calls import call_jvp, call_rrule, called, differentiable_source, value_call_rrule
from s2sad.runtime.constructors import constructor_jvp, stored_field_cotangent, stored_fields
from s2sad.runtime.initializers import blank, initialized, initializer
from s2sad.transformed import CotangentTuple
from s2sad.runtime.closures import Closure, held_parts, held_tangent, refuse_held_numbers
from s2sad.transform import transformed_forward_call
from s2sad.runtime.methods import (CONSTANT, FIELD, NOT_HELD, attribute_jvp, attribute_rrule, held_in_place_of_a_method,
                                   how_read, method_jvp, nonzero_keyword_tangents, not_given_the_receiver, packed_jvp)
from s2sad.runtime.structural_replace import is_structural_replace, replaced_cotangents
from s2sad.runtime.structure import split_cotangent
from s2sad.runtime.super_calls import with_supers_resolved
from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent, unthunk

from .generated_code import summand_cotangent
from .helpers import fit, unbroadcast


def _is_zero(value) -> bool:
    return value is ZERO or value is NO_TANGENT or value is None


def _sum(a, b):
    if _is_zero(a):
        return b
    if _is_zero(b):
        return a
    return add(a, b)


def pushforward_rrule(forward, args: tuple, kwargs: dict, tangents: dict, ans):
    """``forward.pushforward(args, kwargs, tangents, ans)`` and its pullback, which gives
    ``(cotangents of args, cotangents of the tangents by parameter, cotangent of ans)``."""
    rule = forward.rule
    if rule.nondifferentiable:
        return ZERO, lambda g: ([NO_TANGENT] * len(args), {}, ZERO)
    bound = bound_to_rule(forward.signature, rule.name, args, kwargs)
    params = tuple(bound.arguments)
    values = tuple(bound.arguments.values())
    terms = []  # (parameter, term, pullback of the term: g -> (d tangent, d ans, {parameter: d value}))
    for param, tangent in tangents.items():
        jvp = forward.jvps.get(param)
        if jvp is None or _is_zero(tangent):
            continue
        if getattr(jvp, "gives_none", False):  # a user's rule without this jvp: refuses, or gives no term
            jvp(tangent, ans, *values)
            continue
        if jvp == LINEAR:
            term, pullback = _linear_term(rule, param, tangent, values, params)
        else:
            term, pullback = _function_term(forward.jvp_function(param), tangent, ans, values, params)
        terms.append((param, term, pullback))
    total = ZERO
    for _, term, _ in terms:
        total = term if total is ZERO else add(total, term)
    y = fit(total, ans) if forward.elementwise and total is not ZERO else total
    keyword_names = set(kwargs)

    def pushforward_pullback(g):
        g = unthunk(g)
        if forward.elementwise and total is not ZERO:
            g = unbroadcast(g, total)
        d_values, d_tangents, d_ans = {}, {}, ZERO
        for param, term, pullback in terms:
            d_tangent, d_term_ans, d_term_values = pullback(summand_cotangent(g, term))
            d_tangents[param] = d_tangent
            d_ans = _sum(d_ans, d_term_ans)
            for name, value in d_term_values.items():
                d_values[name] = _sum(d_values.get(name, ZERO), value)
        for name in keyword_names:
            if name in d_values and not _vanishes(d_values[name]):
                raise MissingRuleError(
                    f"`{name}` is passed by keyword to {rule.name}, whose second derivative s2sad takes only for "
                    "arguments passed positionally", hint=f"pass `{name}` positionally")
        d_args = _by_position(rule, args, d_values)
        return d_args, d_tangents, d_ans

    return y, pushforward_pullback


def _is_inexact(value) -> bool:
    return isinstance(value, (float, complex)) or getattr(getattr(value, "dtype", None), "kind", "") in ("f", "c")


def _vanishes(value) -> bool:
    value = unthunk(value)
    if _is_zero(value) or isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (tuple, list)):
        return all(_vanishes(item) for item in value)
    if isinstance(value, Tangent):
        return all(_vanishes(item) for item in value.fields.values())
    try:
        return not np.any(np.asarray(value) != 0)
    except (TypeError, ValueError):
        return False


def _by_position(rule, args, d_values):
    """The cotangents by parameter as one per positional argument (a ``*args`` parameter's
    cotangent a tuple, one per argument it collected)."""
    d_args = []
    for (name, item), value in zip(rule.positional_slots(len(args)), args):
        d = d_values.get(name, ZERO)
        if item is not None and not _is_zero(d):
            d = d[item]
        # nothing reached a number: ZERO (NO_TANGENT, "no tangent space", was read as a value and crashed)
        d_args.append(((ZERO if _is_inexact(value) else NO_TANGENT) if _is_zero(d) else d))
    return d_args


def _linear_term(rule, param, tangent, values, params):
    """The function with the tangent in ``param``'s place; pulled back by the function's rule."""
    args, kwargs, origins = linear_call(rule.signature, param)(tangent, values)
    for name, value in kwargs.items():  # a rule's pullback gives positional arguments' cotangents only
        if name == param or _is_inexact(value):
            raise MissingRuleError(
                f"`{name}` goes to {rule.name} by keyword in its forward rule, whose second derivative s2sad "
                "takes only for arguments passed positionally", hint=f"pass `{name}` positionally")
    term, pullback = rule.rrule(*args, **kwargs)

    def linear_term_pullback(g):
        cotangents = pullback(g)[1:]
        d_tangent, d_values = ZERO, {}
        star = {}
        for (name, item), cotangent in zip(origins, cotangents):
            if item is not None:
                star.setdefault(name, {})[item] = cotangent
            elif name == param:
                d_tangent = cotangent
            else:
                d_values[name] = cotangent
        for name, items in star.items():
            collected = tuple(items.get(i, ZERO) for i in range(len(items)))
            if name == param:
                d_tangent = collected
            else:
                d_values[name] = collected
        return d_tangent, ZERO, d_values

    return term, linear_term_pullback


def _function_term(jvp, tangent, ans, values, params):
    """A template or callable jvp, differentiated from its source as a function called through a value."""
    restore_template_source(getattr(getattr(jvp, "__code__", None), "co_filename", ""))
    term, pullback = call_rrule(jvp, tangent, ans, *values)

    def function_term_pullback(g):
        cotangents = pullback(g)[2:]  # (call, function, g, ans, *values)
        return cotangents[0], cotangents[1], dict(zip(params, cotangents[2:]))

    return term, function_term_pullback


def _no_second_order(what: str) -> MissingRuleError:
    return MissingRuleError(
        f"no second derivative through {what} called in forward code by the receiver's type",
        hint="call the function directly (not through a value or a method of your class) where you take a Hessian")


def method_jvp_rrule(receiver, receiver_tangent, name, ans, args, tangents, **kwargs):
    """``method_jvp`` and its pullback: ``(NO_TANGENT, d receiver, d receiver_tangent, NO_TANGENT,
    d ans, d args, d tangents)``."""
    return keyword_method_jvp_rrule(receiver, receiver_tangent, name, ans, args, tangents, kwargs, None)


def keyword_method_jvp_rrule(receiver, receiver_tangent, name, ans, args, tangents, kwargs, keyword_tangents):
    """``method_jvp_rrule`` for a call whose keywords may have tangents (``keyword_tangents``,
    the nonzero ones; None when the caller has no place for the keywords' cotangents, whose
    float values are then refused where they could be differentiated). Where it has, the
    pullback's output carries them: ``.keywords`` (the values') and ``.keyword_tangents``."""
    args, tangents = tuple(args), tuple(tangents)
    if keyword_tangents is None:
        return _method_jvp_rrule(receiver, receiver_tangent, name, ans, args, tangents, kwargs, None)
    return _method_jvp_rrule(receiver, receiver_tangent, name, ans, args, tangents, kwargs, keyword_tangents)


def _method_jvp_rrule(receiver, receiver_tangent, name, ans, args, tangents, kwargs, keyword_tangents):
    if is_structural_replace(receiver, name):
        pullback = _replace_jvp_pullback(receiver, receiver_tangent, kwargs)
        return method_jvp(receiver, receiver_tangent, name, ans, args, tangents, **kwargs), \
            lambda g: pullback(g)[:7]
    own_call = getattr(type(receiver), "__call__", None)
    if name == "__call__" and not (inspect.isfunction(own_call) and differentiable_source(own_call)):
        # (an object of the user's class with a __call__ is called through that method, below)
        if not _is_zero(receiver_tangent):
            method_jvp(receiver, receiver_tangent, name, ans, args, tangents, **kwargs)  # raises: a computed callee
        found = _forward_of_value(receiver)
        if found is None and isinstance(receiver, type) and not is_library(receiver) \
                and (not issubclass(receiver, tuple) or hasattr(receiver, "_fields")):
            # (of tuples, a namedtuple's, whose items are its fields: another tuple's are not reversed here)
            return _constructor_jvp_rrule(receiver, args, tangents, kwargs, keyword_tangents)
        if found is None:
            return _source_call_rrule(receiver, receiver_tangent, args, tangents, kwargs, keyword_tangents)
        _refuse_keyword_tangents(keyword_tangents, getattr(receiver, "__name__", name))
        forward, held_args, held_keywords = found
        every = (ZERO,) * len(held_args) + tangents
        given = dict(forward.signature.bind_partial(*every).arguments)
        y, pullback = pushforward_rrule(forward, held_args + args, {**held_keywords, **kwargs}, given, ans)
        held, receiver_part = len(held_args), False
    else:
        own = held_in_place_of_a_method(receiver, name)
        if own is not NOT_HELD:  # model.forward = other: Python calls what the object holds
            return _source_call_rrule(own, ZERO, args, tangents, kwargs, keyword_tangents)
        forward = forward_method_rule(type(receiver), name)
        if forward is None and not_given_the_receiver(receiver, name):  # self.activation(z), a staticmethod
            return _source_call_rrule(getattr(receiver, name), ZERO, args, tangents, kwargs, keyword_tangents)
        function = getattr(type(receiver), name, None) if forward is None else None
        if inspect.isfunction(function) and differentiable_source(function):  # a method of the user's class
            # specialised as forward code called it: super() as it reaches for the receiver's type
            function = with_supers_resolved(function, type(receiver))
            return _users_method_jvp_rrule(function, receiver, receiver_tangent, args, tangents, kwargs, keyword_tangents)
        if forward is None:
            raise _no_second_order(f"`{type(receiver).__name__}.{name}`")
        _refuse_keyword_tangents(keyword_tangents, f"{type(receiver).__name__}.{name}")
        every = (receiver_tangent,) + tangents
        given = dict(zip(list(forward.signature.parameters), every))
        y, pullback = pushforward_rrule(forward, (receiver,) + args, kwargs, given, ans)
        held, receiver_part = 0, True

    params = list(forward.signature.parameters)

    def method_jvp_pullback(g):
        d_args, d_tangents, d_ans = pullback(g)
        d_every = _tangent_cotangents(forward, params, d_tangents, len(every))
        if receiver_part:
            return (NO_TANGENT, d_args[0], d_every[0], NO_TANGENT, d_ans, tuple(d_args[1:]), tuple(d_every[1:]))
        return (NO_TANGENT, NO_TANGENT, ZERO, NO_TANGENT, d_ans, tuple(d_args[held:]), tuple(d_every[held:]))

    return y, method_jvp_pullback


def _replace_jvp_pullback(receiver, receiver_tangent, keywords: dict):
    """The pullback of ``packed_jvp`` for ``receiver._replace(**keywords)``: its tangent is the
    receiver's tangent with the keywords' tangents in their fields, linear in both and not
    reading a value, so the fields' cotangents go back to where the tangents came from (the
    receiver's tangent's keyed by its own type, as ``attribute_jvp_rrule`` keys it)."""
    tangent_kind = type(receiver) if _is_zero(receiver_tangent) else type(receiver_tangent)

    def replace_jvp_pullback(g):
        d_receiver_tangent, by_keyword = replaced_cotangents(receiver, keywords, g, tangent_kind)
        given = {key: d for key, d in by_keyword.items() if not _is_zero(d)}
        return (NO_TANGENT, ZERO, d_receiver_tangent, NO_TANGENT, ZERO, (), (), ZERO,
                Tangent(dict, given) if given else ZERO)

    return replace_jvp_pullback


def _source_call_rrule(function, function_tangent, args, tangents, kwargs, keyword_tangents=None):
    """A Python function with source called through a value in forward code (``f(*args)``, a
    default argument, a lambda holding the function's variables): the reverse of its own
    generated forward code, in ``method_jvp``'s form (see ``keyword_method_jvp_rrule`` for
    ``keyword_tangents``)."""
    target, held_args, held_keywords = called(function)
    keywords = {**held_keywords, **kwargs}
    label = getattr(target, "__qualname__", type(target).__name__)
    # a float a lambda holds by keyword, or (without a place for their cotangents) a keyword's, may
    # be differentiated here: its cotangent would be lost. A functools.partial's never is: making
    # one of a differentiated value is refused (it has no rule), and a partial is no argument to
    # differentiate with respect to (`functools.partial(scale, a=2.5)` passed to a helper)
    held_floats = () if isinstance(function, functools.partial) else tuple(held_keywords.values())
    floats = held_floats if keyword_tangents is not None else held_floats + tuple(kwargs.values())
    if not differentiable_source(target) or any(is_float_like(value) for value in floats):
        raise _no_second_order(label)
    keyword_tangents = keyword_tangents or {}
    if _is_zero(function_tangent):
        held_tangents = (ZERO,) * len(held_args)
    elif isinstance(function, Closure):  # a lambda's held values have tangents: theirs come first
        held_tangents = held_parts(function_tangent, len(held_args))
    else:
        raise _no_second_order(label)
    every = held_tangents + tuple(tangents)
    active = tuple(i for i, t in enumerate(every) if not _is_zero(t))
    keys = tuple(keyword_tangents)
    call = transformed_forward_call(target, active, keys)  # its pullback spreads a *args tuple's cotangent
    given = tuple(every[i] for i in active) + tuple(keyword_tangents.values())
    pair, pullback = call.rrule(given, *held_args, *args, **keywords)
    held = len(held_args)

    def source_call_pullback(g):
        parts = pullback((ZERO, g))  # (NO_TANGENT, cotangents of the tangents given, *of the arguments)
        by_position = dict(zip(active, parts[1][:len(active)]))
        d_tangents = tuple(by_position.get(i, ZERO) for i in range(held, len(every)))
        d_function_tangent = held_tangent([by_position.get(i, ZERO) for i in range(held)]) \
            if isinstance(function, Closure) else ZERO
        d_function = held_tangent(parts[2:2 + held]) if isinstance(function, Closure) else NO_TANGENT
        result = CotangentTuple((NO_TANGENT, d_function, d_function_tangent, NO_TANGENT, ZERO,
                                 tuple(parts[2 + held:]), d_tangents))
        result.keywords = {key: parts.keywords.get(key, ZERO) for key in kwargs}
        result.keyword_tangents = dict(zip(keys, parts[1][len(active):]))
        return result

    return pair[1], source_call_pullback


def _users_method_jvp_rrule(function, receiver, receiver_tangent, args, tangents, kwargs, keyword_tangents):
    """A method of the user's class in forward code: the reverse of its generated forward code,
    the receiver its first argument (its tangent, a structural one, the first tangent)."""
    _, pullback = _source_call_rrule(function, ZERO, (receiver,) + args, (receiver_tangent,) + tangents, kwargs,
                                     keyword_tangents)
    y = method_jvp(receiver, receiver_tangent, function.__name__, None, args, tangents, **kwargs) \
        if not keyword_tangents else None

    def users_method_jvp_pullback(g):
        parts = pullback(g)
        d_args, d_tangents = parts[5], parts[6]
        result = CotangentTuple((NO_TANGENT, d_args[0], d_tangents[0], NO_TANGENT, ZERO,
                                 tuple(d_args[1:]), tuple(d_tangents[1:])))
        result.keywords, result.keyword_tangents = parts.keywords, parts.keyword_tangents
        return result

    return y, users_method_jvp_pullback


def _constructor_jvp_rrule(cls, args, tangents, kwargs, keyword_tangents):
    """``cls(*args)`` in forward code, a class of the user's that stores its arguments (one that
    computes: ``_computed_constructor_jvp_rrule``): its
    tangent holds the arguments' tangents in their fields, linear in them and reading no
    value, so each field's cotangent goes back to the tangent stored there."""
    fields = stored_fields(cls)
    if fields is None:
        return _computed_constructor_jvp_rrule(cls, args, tangents, kwargs, keyword_tangents)
    if keyword_tangents is None and any(is_float_like(value) for value in kwargs.values()):
        raise _no_second_order(cls.__name__)  # a keyword's tangent, had it one, would have no place to go back to
    y = constructor_jvp(cls, args, tangents, keyword_tangents, **kwargs)
    names = list(inspect.signature(cls).bind(*args, **kwargs).arguments)[:len(args)]

    def field_of(g, name):
        return ZERO if _is_zero(g) else unthunk(stored_field_cotangent(g, cls, fields.get(name)))

    def constructor_jvp_pullback(g):
        g = unthunk(g)
        d_tangents = tuple(field_of(g, name) for name in names)
        result = CotangentTuple((NO_TANGENT, NO_TANGENT, ZERO, NO_TANGENT, ZERO, (ZERO,) * len(args), d_tangents))
        result.keywords = {key: ZERO for key in kwargs}  # (the tangent reads no value)
        result.keyword_tangents = {key: field_of(g, key) for key in keyword_tangents or ()}
        return result

    return y, constructor_jvp_pullback


def _computed_constructor_jvp_rrule(cls, args, tangents, kwargs, keyword_tangents):
    """``cls(*args, **kwargs)`` in forward code, a constructor that computes: the reverse of its
    initializer's generated forward code (initializers.py), given the blank object, which has no
    tangent, first."""
    _, pullback = _source_call_rrule(initializer(cls), ZERO, (blank(cls),) + args, (ZERO,) + tangents, kwargs,
                                     keyword_tangents)
    y = constructor_jvp(cls, args, tangents, keyword_tangents, **kwargs)

    def computed_constructor_jvp_pullback(g):
        parts = pullback(g)
        result = CotangentTuple((NO_TANGENT, NO_TANGENT, ZERO, NO_TANGENT, ZERO, tuple(parts[5][1:]),
                                 tuple(parts[6][1:])))
        result.keywords, result.keyword_tangents = parts.keywords, parts.keyword_tangents
        return result

    return y, computed_constructor_jvp_pullback


def initialized_rrule(init, obj, *args, **kwargs):
    """``initialized`` (forward code's ``super().__init__(...)`` given no tangent) and its pullback:
    the base's initializer differentiated from its source, which hands back a copy of ``obj``
    filled (the object ``initialized`` fills in place is that copy's primal)."""
    y, pullback = value_call_rrule(init, obj, *args, **kwargs)

    def initialized_pullback(g):
        parts = pullback(g)  # (call, init, obj, *args), the keywords' in .keywords
        result = CotangentTuple(parts[:2] + (parts[2],) + tuple(parts[3:]))
        result.keywords = getattr(parts, "keywords", {})
        return result

    return y, initialized_pullback


def _refuse_keyword_tangents(keyword_tangents, label: str) -> None:
    """The reverse of a forward rule gives no cotangent for a keyword's tangent: refused, not dropped."""
    if keyword_tangents:
        keyword = next(iter(keyword_tangents))
        raise MissingRuleError(
            f"no second derivative through `{label}` given the differentiated value `{keyword}` by keyword "
            "in forward code", hint=f"pass `{keyword}` positionally where you take a Hessian")


def _dict_cotangent(by_key: dict):
    given = {key: d for key, d in by_key.items() if not _is_zero(unthunk(d))}
    return Tangent(dict, given) if given else ZERO


def _forward_of_value(function):
    """``(forward rule, held args, held keywords)`` of a function with a rule called through a value."""
    target, held_args, held_keywords = called(function)
    forward = forward_rule(target)
    return None if forward is None else (forward, tuple(held_args), dict(held_keywords))


def _tangent_cotangents(forward, params, d_tangents, count):
    """The cotangents of the tangents given positionally (a ``*args`` parameter's spread out)."""
    out = []
    for name, item in forward.rule.positional_slots(count):
        d = d_tangents.get(name, ZERO)
        if item is not None and not _is_zero(d):
            d = d[item] if isinstance(d, (tuple, list)) else ZERO
        out.append(ZERO if _is_zero(d) else d)
    return out


def attribute_jvp_rrule(receiver, receiver_tangent, name):
    """``attribute_jvp`` and its pullback: ``(NO_TANGENT, d receiver, d receiver_tangent, NO_TANGENT)``."""
    forward = forward_method_rule(type(receiver), name)
    read = how_read(receiver, name) if forward is None else None
    if read is CONSTANT:
        return ZERO, _constant_jvp_pullback
    if forward is None and read is not FIELD:  # a property of the user's class: the reverse of its getter's forward code
        y, pullback = _source_call_rrule(read, ZERO, (receiver,), (receiver_tangent,), {})

        def property_jvp_pullback(g):
            _, _, _, _, _, d_args, d_tangents = pullback(g)
            return NO_TANGENT, d_args[0], d_tangents[0], NO_TANGENT

        return y, property_jvp_pullback
    if forward is None:  # a field of a structure: the tangent's field
        y = attribute_jvp(receiver, receiver_tangent, name)

        def field_pullback(g):
            g = unthunk(g)
            return NO_TANGENT, NO_TANGENT, (ZERO if _is_zero(g) else Tangent(type(receiver_tangent), {name: g})), NO_TANGENT

        return y, field_pullback
    ans, ans_pullback = attribute_rrule(receiver, name)
    param = next(iter(forward.signature.parameters))
    y, pullback = pushforward_rrule(forward, (receiver,), {}, {param: receiver_tangent}, ans)

    def attribute_jvp_pullback(g):
        d_args, d_tangents, d_ans = pullback(g)
        d_receiver = d_args[0]
        if not _is_zero(unthunk(d_ans)):
            d_receiver = _sum(d_receiver, ans_pullback(d_ans)[1])
        return NO_TANGENT, d_receiver, d_tangents.get(param, ZERO), NO_TANGENT

    return y, attribute_jvp_pullback


def _constant_jvp_pullback(g):
    return NO_TANGENT, ZERO, ZERO, NO_TANGENT


def packed_jvp_rrule(receiver, receiver_tangent, name, ans, positional, positional_tangent, keywords, keywords_tangent):
    """``packed_jvp`` (``f(*args)``, or ``obj.method(x, scale=s)`` with ``s`` varied, in forward code)
    and its pullback."""
    positional, keywords = tuple(positional), dict(keywords)
    y = packed_jvp(receiver, receiver_tangent, name, ans, positional, positional_tangent, keywords, keywords_tangent)
    keyword_tangents = nonzero_keyword_tangents(keywords, keywords_tangent)
    if is_structural_replace(receiver, name):
        return y, _replace_jvp_pullback(receiver, receiver_tangent, keywords)
    tangents = split_cotangent(positional_tangent, len(positional))
    _, pullback = keyword_method_jvp_rrule(receiver, receiver_tangent, name, ans, positional, tangents, keywords,
                                           keyword_tangents)

    def packed_jvp_pullback(g):
        parts = pullback(g)
        _, d_receiver, d_receiver_tangent, _, d_ans, d_args, d_tangents = parts
        by_keyword = getattr(parts, "keywords", None)  # (a forward rule's reverse gives none)
        return (NO_TANGENT, d_receiver, d_receiver_tangent, NO_TANGENT, d_ans, d_args, d_tangents,
                NO_TANGENT if by_keyword is None else _dict_cotangent(by_keyword),
                _dict_cotangent(getattr(parts, "keyword_tangents", {})))

    return y, packed_jvp_pullback


def call_jvp_rrule(function, ans, args, tangents, **kwargs):
    """``call_jvp`` (what a rule given a function, ``functools.reduce``'s, calls for a step's
    tangent) and its pullback: that of ``method_jvp`` calling the function, which is not
    differentiated. An object of the user's class with a ``__call__`` of its own is called
    through it there, and not here: refused rather than pulled back through another path."""
    refuse_held_numbers(function)
    if not isinstance(function, functools.partial) and inspect.isfunction(getattr(type(function), "__call__", None)):
        raise _no_second_order(f"`{type(function).__name__}.__call__`")
    y = call_jvp(function, ans, args, tangents, **kwargs)
    _, pullback = method_jvp_rrule(function, ZERO, "__call__", ans, tuple(args), tuple(tangents), **kwargs)

    def call_jvp_pullback(g):
        parts = pullback(g)  # (call, receiver, receiver's tangent, name, ans, args, tangents)
        return NO_TANGENT, NO_TANGENT, parts[4], parts[5], parts[6]

    return y, call_jvp_pullback


defrrule(initialized, initialized_rrule, "init, obj, *args, **kwargs")
defrrule(call_jvp, call_jvp_rrule, "function, ans, args, tangents, **kwargs")
defrrule(method_jvp, method_jvp_rrule, "receiver, receiver_tangent, name, ans, args, tangents, **kwargs")
defrrule(attribute_jvp, attribute_jvp_rrule, "receiver, receiver_tangent, name")
defrrule(packed_jvp, packed_jvp_rrule,
         "receiver, receiver_tangent, name, ans, positional, positional_tangent, keywords, keywords_tangent")
