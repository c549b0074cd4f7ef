"""Constructors that compute, differentiated from their source as functions that return the object.

``Lin(w, k)`` whose ``__init__`` is ``self.w2 = w * k; self.n = len(w)`` (with validation,
defaults, keywords, a ``super().__init__(...)`` chain, or inherited from a base) is the call
``__init__(blank, w, k)`` of its *initializer*: the ``__init__`` read as a function whose text
(frontend/initializer_written.py) starts with ``self = s2sad_own_copy(self)``, keeps every
line, and returns ``self``. Its attribute assignments are then the ones s2sad differentiates in
any function (``with_attribute`` on an object the function made), and the object's fields are
its structural output; ``super().__init__(...)`` calls the base's initializer on ``self``.

The initializer is a function object sharing ``__init__``'s code, defaults and closure (so the
pipeline reads the user's own lines, and every error names them), with two names laid over
its module's globals (specialisation.StaticGlobals): ``s2sad_own_copy`` (``copy.copy``) and
``s2sad_super_init``, the initializer of what ``super().__init__`` reaches from the class that
defines it, in the MRO of the class being built. A base that is a dataclass storing its fields
(its ``__init__`` generated, so without source) has its stores written out in place instead.

Refused, naming the line where the class says so: a ``__new__`` of the user's (what it makes is
not the blank object the constructor fills), a dataclass's ``__post_init__`` (its generated
``__init__`` has no source to read with it), an ``__init__`` without Python source.
"""
from __future__ import annotations

import copy
import dataclasses
import inspect
import types
import weakref

from ..errors import MissingRuleError, SourceLocation
from ..specialisation import StaticGlobals

OWN_COPY = "s2sad_own_copy"     # the name the initializer's text calls to make `self` its own
SUPER_INIT = "s2sad_super_init"  # the name it calls for `super().__init__(...)`

# class built -> {the __init__ function: its initializer}; weak, so a redefined class is let go
_made: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def initializes(function):
    """The class an initializer builds objects of, and the ``super().__init__`` it calls:
    ``(cls, "call" | "object" | "fields" | a refusal message, the dataclass whose fields "fields"
    stores)``; None for any other function."""
    return getattr(function, "__s2sad_initializes__", None)


def initializer(cls: type):
    """The initializer of ``cls``'s constructor (see above); MissingRuleError naming the line
    when the constructor cannot be differentiated this way."""
    _refuse_unseen_construction(cls)
    owner, init = _defining(cls, cls.__mro__)
    if init is None:
        raise _refusal(cls, "it has no `__init__` of Python source (a library's or a compiled one)")
    return _initializer_of(cls, owner, init)


def initialized(init, obj, *args, **kwargs):
    """``obj`` after the initializer ``init`` (``s2sad_super_init``) ran on it, where forward code
    calls one without tangents: the initializer shares ``__init__``'s code, which returns None,
    and the transformed initializer's value is the object."""
    init(obj, *args, **kwargs)
    return obj


def blank(cls: type):
    """The object ``cls(...)`` fills: made by ``object.__new__``, as the class has no ``__new__`` of its own."""
    return object.__new__(cls)


def _initializer_of(cls: type, owner: type, init):
    per_class = _made.setdefault(cls, {})
    # what it calls for `super().__init__` is part of what it is: a base's __init__ replaced (or
    # redefined in place) makes a new one, as a change of its own does
    following = cls.__mro__[cls.__mro__.index(owner):]
    key = tuple((k.__dict__["__init__"], getattr(k.__dict__["__init__"], "__code__", None),
                 getattr(k.__dict__["__init__"], "__defaults__", None)) for k in following if "__init__" in k.__dict__)
    found = per_class.get(key)
    if found is not None:
        return found
    base_owner, base_init = _defining(cls, following[1:])
    statics = {OWN_COPY: copy.copy}
    base = None
    if base_owner is object:
        chain = "object"
    elif base_init is None and _storing_dataclass(base_owner):
        chain, base = "fields", base_owner  # its generated __init__ stores its fields: written out in place
    elif base_init is None:
        chain = (f"`super().__init__` reaches the constructor of `{base_owner.__qualname__}`, which has no Python "
                 "source (a dataclass's generated one, a library's)")
    else:
        chain = "call"
        statics[SUPER_INIT] = _initializer_of(cls, base_owner, base_init)
    found = types.FunctionType(init.__code__, StaticGlobals(statics, init.__globals__), init.__name__,
                               init.__defaults__, init.__closure__)
    found.__qualname__, found.__module__, found.__kwdefaults__ = init.__qualname__, init.__module__, init.__kwdefaults__
    found.__s2sad_initializes__ = (cls, chain, base)
    found.__s2sad_origin__ = init
    per_class[key] = found
    return found


def _storing_dataclass(klass: type) -> bool:
    """A dataclass whose generated ``__init__`` only stores its fields (no ``__post_init__``, not frozen)."""
    params = getattr(klass, "__dataclass_params__", None)
    return dataclasses.is_dataclass(klass) and _generated(klass.__dict__["__init__"]) \
        and not hasattr(klass, "__post_init__") and params is not None and not params.frozen


def _defining(cls: type, classes) -> tuple:
    """The first of ``classes`` (a tail of ``cls``'s MRO) whose dict holds ``__init__``, and that
    ``__init__`` when it is a Python function with source to read (else None)."""
    for klass in classes:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        if klass is object:
            return object, None
        if not inspect.isfunction(init) or dataclasses.is_dataclass(klass) and _generated(init):
            return klass, None
        return klass, init
    return object, None


def _generated(init) -> bool:
    """A dataclass's generated ``__init__`` (made by exec: its file is not a file)."""
    name = init.__code__.co_filename
    return name.startswith("<") and name.endswith(">")


def _refuse_unseen_construction(cls: type) -> None:
    new = cls.__new__
    if new is not object.__new__:
        function = getattr(new, "__func__", new)
        raise _refusal(cls, "its class defines `__new__`, whose object s2sad does not see made",
                       _location(function), "drop `__new__`, or build the object outside the function and pass it in")
    post_init = getattr(cls, "__post_init__", None)
    if dataclasses.is_dataclass(cls) and post_init is not None:
        raise _refusal(cls, "it is a dataclass with a `__post_init__`, run by a generated `__init__` s2sad cannot "
                            "read with it", _location(post_init),
                       "compute the derived fields in a plain `__init__` (not a dataclass), or in a method")


def _location(function) -> SourceLocation | None:
    try:
        lines, first = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return None
    at = next((i for i, text in enumerate(lines) if text.lstrip().startswith("def ")), 0)
    return SourceLocation(function.__code__.co_filename, first + at, 1, lines[at].rstrip("\n"))


def _refusal(cls: type, why: str, location=None, hint: str = "") -> MissingRuleError:
    return MissingRuleError(
        f"constructing `{cls.__qualname__}` is not differentiated: {why}", location,
        hint=hint or "make it a class whose `__init__` s2sad can read, or build the object outside the function "
                     "and pass it in")
