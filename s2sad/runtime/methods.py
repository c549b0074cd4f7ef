"""Methods and attributes, differentiated by the receiver's type when the code runs.

``x.sum(axis=0)``, ``A.T``, ``layer.apply(x)``: which rule applies is known only from the
receiver, so generated code asks here as it runs: a ``defmethod`` rule for NumPy arrays and
registered types, or, for a method of a user class, that method's own generated code.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import inspect
import types
from types import FunctionType

import numpy as np

from ..analysis.argument_writes import may_write_into_parameters
from .super_calls import with_supers_resolved
from ..errors import MissingRuleError, UnsupportedSyntaxError, refusal_at
from ..registry import method_rule
from ..registry.forward import forward_method_rule
from ..transform import transformed_call, transformed_forward_call
from .calls import (closure_call_jvp, closure_call_rrule, keyword_tangents_by_parameter, value_call_jvp,
                    value_call_rrule)
from ..transformed import CotangentTuple
from .closures import Closure
from .structural_replace import is_structural_replace, replace_rrule, replaced_tangent
from .structure import field_cotangent, split_cotangent, tangent_field, zeros_like_primal
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk


def _missing_method_hint(receiver, name: str, register: str) -> str:
    """What to write instead of a method that has no rule."""
    return f"register one with {register}({type(receiver).__name__}, {name!r}, function_with_a_rule)"


def method_rrule(receiver, name: str, *args, **kwargs):
    """``receiver.name(*args, **kwargs)`` and its pullback, chosen by the receiver's type;
    ``receiver(*args, **kwargs)`` when ``name`` is ``"__call__"``."""
    if name == "__call__" and (receiver.__class__ is FunctionType or not _has_own_call(receiver)):  # (a function has none)
        return value_call_rrule(receiver, *args, **kwargs)
    if is_structural_replace(receiver, name):
        return replace_rrule(receiver, *args, **kwargs)
    held = held_in_place_of_a_method(receiver, name)
    if held is not NOT_HELD:
        return value_call_rrule(held, *args, **kwargs)
    rule = method_rule(type(receiver), name)
    if rule is None:
        if not_given_the_receiver(receiver, name):
            return value_call_rrule(getattr(receiver, name), *args, **kwargs)
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            # a method of the user's class: differentiate its source, `self` a structural argument
            function = with_supers_resolved(function, type(receiver))  # super() as it reaches for this type
            return _transformed_method(function, 1 + len(args), tuple(kwargs))(receiver, *args, **kwargs)
        if function is None and callable(getattr(receiver, name, None)):
            return value_call_rrule(getattr(receiver, name), *args, **kwargs)  # a function the object holds
        raise MissingRuleError(f"no rule for the method `{type(receiver).__name__}.{name}`",
                               hint=_missing_method_hint(receiver, name, "s2sad.defmethod"))
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
    if isinstance(receiver, functools.partial):
        # its held values carry no derivative in any program s2sad accepts: making a partial of a
        # differentiated value is refused (functools.partial has no rule), and a partial is no
        # argument to differentiate with respect to. It is "differentiated" here only as a
        # parameter of forward code read again for a Hessian (`apply(fn, x)` given a partial)
        return value_call_rrule(receiver, *args, **kwargs)
    if _holds_values(receiver):
        raise _computed_callee(receiver)
    return value_call_rrule(receiver, *args, **kwargs)  # np.sin taken from a differentiated list: holds nothing


def held_in_place_of_a_method(receiver, name: str):
    """What ``receiver`` holds itself under ``name`` (``model.forward = other``), which Python calls
    for ``receiver.name(...)`` in place of its class's method or of a rule for that method (an
    object's own attributes come before everything of its class but data descriptors);
    ``NOT_HELD`` when it holds nothing of that name."""
    own = getattr(receiver, "__dict__", None)
    if name == "__call__" or not isinstance(own, dict) or name not in own:
        return NOT_HELD  # (`receiver(...)` calls its class's `__call__`, whatever the object holds)
    in_class = type(_class_attribute(type(receiver), name))
    if hasattr(in_class, "__set__") or hasattr(in_class, "__delete__"):
        return NOT_HELD  # a property or another data descriptor: the class's wins
    return own[name]


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
    """``receiver.name`` and its pullback: a property rule (``x.T``), a property of the user's
    class (its getter differentiated as a method), a class constant, or a structural field read."""
    rule = method_rule(type(receiver), name)
    if rule is not None:
        return rule.rrule(receiver)
    read = how_read(receiver, name)
    if read is CONSTANT:
        return getattr(receiver, name), _constant_pullback
    if read is not FIELD:  # a property of the user's class: computed from the object's fields by its getter
        value, pullback = _transformed_method(read, 1, ())(receiver)

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
    held = held_in_place_of_a_method(receiver, name)
    if held is not NOT_HELD:
        return value_call_jvp(held, ans, args, tangents, keyword_tangents, **kwargs)
    forward = forward_method_rule(type(receiver), name)
    if forward is None:
        if not_given_the_receiver(receiver, name):
            return value_call_jvp(getattr(receiver, name), ans, args, tangents, keyword_tangents, **kwargs)
        function = getattr(type(receiver), name, None)
        if inspect.isfunction(function) and _is_user_code(function):
            function = with_supers_resolved(function, type(receiver))  # super() as it reaches for this type
            every = (receiver_tangent,) + tuple(tangents)
            active = tuple(i for i, t in enumerate(every) if t is not ZERO)
            call = transformed_forward_call(function, active, tuple(keyword_tangents))
            given = tuple(every[i] for i in active) + tuple(keyword_tangents.values())
            return call(given, receiver, *args, **kwargs)[1]
        if function is None and callable(getattr(receiver, name, None)):
            return value_call_jvp(getattr(receiver, name), ans, args, tangents, keyword_tangents, **kwargs)
        raise MissingRuleError(f"no forward rule for the method `{type(receiver).__name__}.{name}`",
                               hint=_missing_method_hint(receiver, name, "s2sad.registry.forward.defjvp_method"))
    params = list(forward.signature.parameters)
    given = dict(zip(params, (receiver_tangent,) + tuple(tangents)))
    given.update(keyword_tangents_by_parameter(forward, keyword_tangents, f"{type(receiver).__name__}.{name}"))
    return forward.pushforward((receiver,) + tuple(args), kwargs, given, ans)


def attribute_jvp(receiver, receiver_tangent, name: str):
    """The tangent of ``receiver.name``: a property's rule (``x.T``), a user property's getter
    differentiated, zero for a class constant, or a structural field."""
    forward = forward_method_rule(type(receiver), name)
    if forward is not None:
        ans = getattr(receiver, name)
        return forward.pushforward((receiver,), {}, {next(iter(forward.signature.parameters)): receiver_tangent}, ans)
    read = how_read(receiver, name)
    if read is CONSTANT or (read is not FIELD and receiver_tangent is ZERO):
        return ZERO
    if read is not FIELD:
        return transformed_forward_call(read, (0,), ())((receiver_tangent,), receiver)[1]
    if receiver_tangent is not ZERO and _is_bound_method(receiver, name):
        raise _bound_method_of_a_differentiated_object(receiver, name)
    tangent = tangent_field(receiver_tangent, name)
    if tangent is ZERO:
        # a field without a tangent (a constant the caller stored) read in a callee's forward
        # code, which computes with its tangent as with any number
        value = getattr(receiver, name)
        if isinstance(value, (float, complex, np.floating, np.complexfloating)) or (
                isinstance(value, np.ndarray) and value.dtype.kind in "fc"):
            return zeros_like_primal(value)
    return tangent


def _is_bound_method(receiver, name: str) -> bool:
    """``receiver.name`` is a method of its class bound to it (``g = model.__call__``), not a value it holds."""
    return isinstance(_class_attribute(type(receiver), name), FunctionType) and name not in getattr(receiver, "__dict__", ())


def _bound_method_of_a_differentiated_object(receiver, name: str) -> MissingRuleError:
    """Forward mode's word for what reverse mode refuses where the method is called (``_computed_callee``):
    the bound method carries the object's derivative, and its tangent is no field of the object's
    (``g = a.__call__; g(x)`` raised AttributeError '__call__' from jvp)."""
    return MissingRuleError(
        f"`.{name}` of a differentiated {type(receiver).__name__} is read as a value (a method bound to the object): "
        "s2sad differentiates a method where it is called on its object",
        hint=f"call it on its object where it is needed (`obj.{name}(...)`)")


FIELD, CONSTANT = "a value the object holds", "a constant of the class"
# Descriptors through which a class gives an object's own stored values: `__slots__` members and
# namedtuple fields.
_STORED = (types.MemberDescriptorType, type(collections.namedtuple("_Pair", "a").a))


def how_read(receiver, name: str):
    """What ``receiver.name`` runs, in Python's own lookup order (data descriptors of the class,
    then the object's ``__dict__``, then the class): ``FIELD`` for a value the object holds,
    ``CONSTANT`` for a plain value of its class, or the user's property getter to differentiate
(specialised to ``receiver``'s type, as a method is).
    Anything else computes the value in code s2sad does not see (a cached_property, a descriptor,
    ``__getattr__``), so it is refused: its cotangent would go to a field that does not exist."""
    cls = type(receiver)
    if _overrides(cls, "__getattribute__"):
        raise _unseen_attribute(cls, name, "its class defines `__getattribute__`")
    found = _class_attribute(cls, name)
    is_data_descriptor = hasattr(type(found), "__set__") or hasattr(type(found), "__delete__")
    if isinstance(found, property):
        if found.fget is not None and inspect.isfunction(found.fget) and _is_user_code(found.fget):
            return with_supers_resolved(found.fget, cls)  # a getter reading `super().name`: for this type
        raise _unseen_attribute(cls, name, "it is a property whose getter s2sad cannot read")
    if isinstance(found, _STORED) or (is_data_descriptor and isinstance(found, types.GetSetDescriptorType)):
        return FIELD
    if is_data_descriptor:
        raise _unseen_attribute(cls, name, f"it is computed by a `{type(found).__name__}` descriptor")
    if isinstance(found, functools.cached_property):
        # once read, its value sits in the object's __dict__ like a field, but it was computed by
        # code s2sad did not see (forward code reads it after the value did: it must not pass then)
        raise _unseen_attribute(cls, name, "it is computed by a `cached_property`")
    if name in getattr(receiver, "__dict__", ()):
        return FIELD
    if found is _ABSENT:
        if _overrides(cls, "__getattr__"):
            raise _unseen_attribute(cls, name, "its class computes it in `__getattr__`")
        return FIELD  # no such attribute: reading it raises Python's own AttributeError
    if hasattr(type(found), "__get__") and not isinstance(found, (FunctionType, staticmethod, classmethod)):
        raise _unseen_attribute(cls, name, f"it is computed by a `{type(found).__name__}`")
    return FIELD if isinstance(found, (FunctionType, staticmethod, classmethod)) else CONSTANT


_ABSENT = object()
NOT_HELD = _ABSENT  # what held_in_place_of_a_method gives for an object holding nothing of the name


def _class_attribute(cls: type, name: str):
    """What ``cls`` or a base holds under ``name``, as an object's attribute lookup finds it in
    the class (without running a descriptor); ``_ABSENT`` if none. ``inspect.getattr_static``
    answers the same, about ten times slower, and this runs at every attribute read."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name, _ABSENT)
        if found is not _ABSENT:
            return found
    return _ABSENT


def check_stored_write(obj, name: str) -> None:
    """Refuse ``obj.name = v`` unless Python stores ``v`` as the object's own field: a property
    setter, a descriptor or ``__setattr__`` would run code s2sad does not see, and the
    cotangent of ``v`` would go to a field that does not hold it."""
    cls = type(obj)
    found = _class_attribute(cls, name)
    if isinstance(found, property):
        raise _unseen_write(cls, name, "it is a property, and its setter runs code s2sad does not see")
    if (hasattr(type(found), "__set__") or hasattr(type(found), "__delete__")) and not isinstance(found, _STORED):
        raise _unseen_write(cls, name, f"the class's `{type(found).__name__}` computes what is stored")
    if _overrides(cls, "__setattr__") and not _frozen_dataclass(cls):
        raise _unseen_write(cls, name, "its class defines `__setattr__`")


def check_dataclass_field(obj, name: str, value) -> None:
    """Refuse ``p.extra = v`` on a dataclass object when ``extra`` is not one of its fields and
    ``v`` may carry a derivative: the tangent of a dataclass holds its fields, and nowhere else
    to put ``v``'s (it failed later, reading ``p.extra``, with a TypeError naming no write)."""
    cls = type(obj)
    if not dataclasses.is_dataclass(cls) or isinstance(value, (str, int, bool, type(None))):
        return
    fields = [field.name for field in dataclasses.fields(cls)]
    if name not in fields:
        raise MissingRuleError(
            f"`.{name} = ...` gives the dataclass `{cls.__name__}` an attribute that is not one of its fields "
            f"({', '.join(fields) or 'none'}): s2sad's derivative of a dataclass holds its fields, and has no place "
            f"for `{name}`'s",
            hint=f"declare it a field of `{cls.__name__}` (`{name}: np.ndarray = None`), or keep the value in a "
                 f"variable of its own")


def _frozen_dataclass(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen)  # its __setattr__ raises, as Python's would


def _unseen_write(cls: type, name: str, why: str) -> MissingRuleError:
    return MissingRuleError(
        f"s2sad cannot differentiate assigning `{cls.__name__}.{name}`: {why}",
        hint=f"assign the stored field itself, or build a new `{cls.__name__}` from the values")


def _overrides(cls: type, method: str) -> bool:
    function = _class_attribute(cls, method)
    return inspect.isfunction(function) and _is_user_code(function)


def _unseen_attribute(cls: type, name: str, why: str) -> MissingRuleError:
    return MissingRuleError(
        f"s2sad cannot differentiate reading `{cls.__name__}.{name}`: {why}",
        hint=f"make `{name}` a plain @property, or a method called as `obj.{name}()`, or register a rule "
             f"with s2sad.defmethod({cls.__name__}, {name!r}, ...)")


def _constant_pullback(g):
    return NO_TANGENT, ZERO


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


def _method_of(receiver, name: str, bases: tuple) -> bool:
    """Whether ``receiver.name`` is the method (or attribute) of the first of ``bases`` the receiver
    is an instance of, NumPy's or a builtin's, not one a subclass gives its own."""
    kind = type(receiver)
    for base in bases:
        if isinstance(receiver, base):
            return kind is base or kind.__module__ == "numpy" or getattr(kind, name, None) is getattr(base, name, None)
    return False


# The types whose methods the analysis lets pass by name (analysis/opaque.py, _LEAVE_THE_RECEIVER):
# NumPy's arrays and scalars, and the builtin containers and strings whose readers are listed there
_READ_BY_NAME = (np.ndarray, np.generic, dict, list, tuple, str, float, int, complex)


def receiver_left_alone(receiver, name: str, filename: str, line: int, column: int) -> None:
    """Refuse ``receiver.name(...)``, called for its effect or a test on a differentiated value,
    unless the method is NumPy's or a builtin container's own (``x.max()``, ``d.get(k)``) or one
    whose source only reads its arguments: a class of the user's (or a subclass overriding the
    method) may change its object there (``self.W = ...``), a change s2sad would not follow into the
    derivative. Decided by the receiver's type, as it runs, since the name alone cannot tell
    ``model.get(k)`` from ``params.get(k)``."""
    if _method_of(receiver, name, _READ_BY_NAME):
        return
    kind = type(receiver)
    method = getattr(kind, name, None)
    function = getattr(method, "__func__", method)
    if inspect.isfunction(function) and not may_write_into_parameters(function):
        return  # the class's own method, which only reads its object (`return self.w`)
    raise refusal_at(
        UnsupportedSyntaxError,
        f"`.{name}` is called on an object of {kind.__qualname__} with a differentiated value, and its result is "
        f"not differentiated: a method of your class may change its object (`self.W = ...`), which s2sad does not follow "
        "into the derivative", filename, line, column,
        f"make `.{name}` return what it computes and use that (`W = obj.{name}(...)`), or build a new object")



# receivers whose methods of an ndarray method's name return new memory
_NEW_FROM = (np.ndarray, np.generic, float, int, complex, str)


def numpy_receiver(receiver, name: str, filename: str, line: int, column: int) -> None:
    """Refuse ``receiver.name(...)`` unless the method is NumPy's (or a number's), whose result is new
    memory: the aliasing analysis took it for that, and a later write through the result (or the
    receiver) is differentiated as changing nothing else. A dict's or list's ``.copy()`` is shallow
    (it holds the very arrays), and a user class's ``.copy()`` may return ``self.w`` itself."""
    if _method_of(receiver, name, _NEW_FROM):
        return
    kind = type(receiver)
    written = "the function writes into it in place while another name for it is read: s2sad differentiates " \
              "such a write only where it can tell the memory apart"
    if isinstance(receiver, (list, dict)) and name == "copy":
        raise refusal_at(
            UnsupportedSyntaxError, f"`.copy()` of a {kind.__name__} holds the very objects the {kind.__name__} "
            f"holds (a shallow copy), and {written}", filename, line, column,
            "write `list(c)` or `dict(c)` where you wrote `c.copy()` (s2sad follows what those copies hold), or copy "
            "the arrays themselves: `[a.copy() for a in c]`")
    raise refusal_at(
        UnsupportedSyntaxError, f"`.{name}()` of {kind.__qualname__} may hand back memory the object holds, and "
        f"{written}", filename, line, column,
        f"copy the array yourself (`w = h.w.copy()`), give the method another name than NumPy's `.{name}`, or write "
        "`w = w + v` instead of `w += v`")




def copy_receiver(receiver, name: str, filename: str, line: int, column: int) -> None:
    """Refuse ``c.copy()`` unless it is NumPy's (a new array) or a list's or dict's (a new list or dict
    holding the very objects ``c`` holds): the aliasing analysis took a change of a slot of the copy
    (``ps["W"] = v``) for a change of nothing ``c`` holds, which a user class's ``.copy()``, free to
    return an array the object holds, would not give."""
    if _method_of(receiver, name, _NEW_FROM + (list, dict)):
        return
    raise refusal_at(
        UnsupportedSyntaxError, f"`.{name}()` of {type(receiver).__qualname__} may hand back memory the object "
        f"holds, and the function writes into what it returns while the object is read: s2sad differentiates such "
        f"a write only where it can tell the memory apart", filename, line, column,
        f"give the method another name than `.{name}`, or build the new value: `w = w + v`")


def constant_result(receiver, value, name: str, filename: str, line: int, column: int) -> None:
    """Refuse ``value = receiver.name`` (or ``receiver.name()``), taken for a constant by its name
    (``x.shape``, ``x.argmax()``: NumPy's are), when neither NumPy made the receiver nor the value is
    discrete: a user class's ``.shape`` or ``.all()`` computing from differentiated values would
    otherwise be a constant's (a gradient of 0)."""
    if _method_of(receiver, name, (np.ndarray, np.generic)):
        return
    kind = type(receiver)
    if _discrete(value):
        return  # an int, a tuple of ints, a flag: a constant whatever made it
    raise refusal_at(
        UnsupportedSyntaxError,
        f"`.{name}` of {kind.__qualname__} gives a {type(value).__name__}, and s2sad takes `.{name}` for a constant "
        f"(NumPy's `.{name}` is one): your class's would not be differentiated", filename, line, column,
        "give the method or attribute another name, so s2sad differentiates it")


def _discrete(value) -> bool:
    if value is None or isinstance(value, (bool, int, str, np.integer, np.bool_, np.dtype)):
        return True
    if isinstance(value, (tuple, list)):
        return all(_discrete(item) for item in value)
    return isinstance(value, np.ndarray) and value.dtype.kind in "biu"


# (forward code calling them is differentiated again for hvp)
receiver_left_alone.reads_its_arguments_only = numpy_receiver.reads_its_arguments_only = True
copy_receiver.reads_its_arguments_only = True
constant_result.reads_its_arguments_only = True
