"""Objects built inside a differentiated function: ``Layer(W, b)``, a dataclass, a namedtuple.

A constructor that only stores its arguments (a dataclass without ``__post_init__``, a
namedtuple, a class whose ``__init__`` is ``self.name = parameter`` lines, and
``self.name = 2.0`` literals, which no argument reaches) makes an object
whose structural tangent has one field per stored argument: the pullback of the construction
reads each argument's cotangent from its field, and the object's tangent is built from the
arguments'. Any other constructor (one that computes, validates, calls ``super().__init__``)
is differentiated from its source as a function returning the object: initializers.py.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap

from .initializers import blank, initializer
from .tangents import NO_TANGENT, ZERO, Tangent, unthunk

_stored: dict = {}
_calls: dict = {}  # (initializer, number of positional arguments, keywords) -> its TransformedCall


def stored_fields(cls: type) -> dict[str, str] | None:
    """Parameter name -> the attribute ``cls(...)`` stores it in, or None when the constructor
    does more than store its arguments."""
    key = (cls, cls.__init__, cls.__new__)  # (an __init__ replaced, or a base's, is another constructor)
    found = _stored.get(key, _stored)
    if found is _stored:
        found = _stored[key] = _find_stored_fields(cls)
    return found


def _find_stored_fields(cls: type) -> dict[str, str] | None:
    # the __init__ that runs: the class's own or the nearest base's (a subclass inheriting it)
    owner = next(klass for klass in cls.__mro__ if "__init__" in klass.__dict__)
    init = owner.__dict__["__init__"]
    if dataclasses.is_dataclass(owner) and _made_by_dataclass(init):  # (not a subclass's own __init__)
        if hasattr(cls, "__post_init__"):
            return None
        return {field.name: field.name for field in dataclasses.fields(cls) if field.init}
    if issubclass(cls, tuple) and hasattr(cls, "_fields") and cls.__new__ is not tuple.__new__:
        return {name: name for name in cls._fields} if cls.__init__ is object.__init__ else None
    if cls.__init__ is object.__init__ and cls.__new__ is object.__new__:
        return {}  # no constructor of its own: an empty object, its attributes assigned afterwards
    if cls.__new__ is not object.__new__ or not inspect.isfunction(init):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
    except (OSError, TypeError, SyntaxError):
        return None
    definition = tree.body[0]
    parameters = [a.arg for a in definition.args.posonlyargs + definition.args.args + definition.args.kwonlyargs]
    if not parameters or definition.args.vararg or definition.args.kwarg:
        return None
    this, stored = parameters[0], {}
    for statement in definition.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Attribute)
                and isinstance(statement.targets[0].value, ast.Name) and statement.targets[0].value.id == this):
            return None
        if _is_constant(statement.value):
            continue  # `self.scale = 2.0`: a field no argument reaches
        if not (isinstance(statement.value, ast.Name) and statement.value.id in parameters[1:]):
            return None
        stored[statement.value.id] = statement.targets[0].attr
    return stored


def _made_by_dataclass(init) -> bool:
    """A dataclass's generated ``__init__`` (made by exec: its file is not a file)."""
    name = getattr(getattr(init, "__code__", None), "co_filename", "")
    return name.startswith("<") and name.endswith(">")


def _is_constant(node) -> bool:
    """A literal: a number, string, None, a negated number, or a tuple of literals."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Tuple):
        return all(_is_constant(element) for element in node.elts)
    return isinstance(node, ast.Constant)


def constructor_rrule(cls: type, *args, **kwargs):
    """``cls(*args, **kwargs)`` and its pullback ``(NO_TANGENT, *cotangents of args)``, the
    keywords' in its ``.keywords``."""
    from ..transformed import CotangentTuple

    fields = stored_fields(cls)
    if fields is None:
        return _computed_rrule(cls, args, kwargs)
    names = list(inspect.signature(cls).bind(*args, **kwargs).arguments)[:len(args)]
    made = cls(*args, **kwargs)

    def constructor_pullback(g):
        g = unthunk(g)
        if g is ZERO or g is NO_TANGENT:
            result = CotangentTuple((NO_TANGENT,) + (ZERO,) * len(args))
            result.keywords = {key: ZERO for key in kwargs}
            return result
        result = CotangentTuple((NO_TANGENT,) + tuple(stored_field_cotangent(g, cls, fields.get(name)) for name in names))
        result.keywords = {key: stored_field_cotangent(g, cls, fields.get(key)) for key in kwargs}
        return result

    constructor_pullback.__name__ = constructor_pullback.__qualname__ = f"{cls.__name__}_pullback"
    return made, constructor_pullback


def stores_only(cls: type) -> bool:
    """Whether ``cls(...)`` only stores its arguments: its pullback gives positional cotangents
    only (a constructor that computes is differentiated with its keywords too)."""
    return stored_fields(cls) is not None


def _computed_rrule(cls: type, args: tuple, kwargs: dict):
    """A constructor that computes: its initializer's generated code, given the blank object
    (which has no tangent) and the arguments."""
    from ..transform import transformed_call
    from ..transformed import CotangentTuple

    form, keywords = initializer(cls), tuple(kwargs)
    call = _calls.get((form, len(args), keywords))
    if call is None:  # (made once per initializer and call shape: making one reads its signature)
        if len(_calls) > 4096:
            _calls.clear()
        call = _calls[(form, len(args), keywords)] = transformed_call(form, range(1, 1 + len(args)), keywords)
    made, pullback = call(blank(cls), *args, **kwargs)

    def constructor_pullback(g):
        cotangents = pullback(g)
        result = CotangentTuple((NO_TANGENT,) + tuple(cotangents[2:]))
        result.keywords = getattr(cotangents, "keywords", {})
        return result

    constructor_pullback.__name__ = constructor_pullback.__qualname__ = f"{cls.__name__}_pullback"
    return made, constructor_pullback


def stored_field_cotangent(g, cls: type, attribute: str | None):
    """The cotangent of an object of ``cls``'s field ``attribute`` in ``g`` (None: an argument not kept)."""
    if attribute is None:
        return ZERO  # an argument the constructor does not keep
    if isinstance(g, Tangent):
        return g[attribute]
    if isinstance(g, tuple) and hasattr(cls, "_fields"):  # a namedtuple's cotangent given as a tuple
        return g[cls._fields.index(attribute)]
    return getattr(g, attribute, ZERO)


def constructor_jvp(cls: type, args: tuple, tangents: tuple, keyword_tangents=None, /, **kwargs):
    """The tangent of ``cls(*args, **kwargs)``: a structural tangent of the stored arguments', or
    the initializer's generated forward code run (``keyword_tangents``: the keywords' that are not ZERO)."""
    fields = stored_fields(cls)
    keyword_tangents = keyword_tangents or {}
    if fields is None:
        from ..transform import transformed_forward_call

        active = tuple(1 + i for i, t in enumerate(tangents) if t is not ZERO)
        call = transformed_forward_call(initializer(cls), active, tuple(keyword_tangents))
        given = tuple(tangents[i - 1] for i in active) + tuple(keyword_tangents.values())
        return call(given, blank(cls), *args, **kwargs)[1]
    names = list(inspect.signature(cls).bind(*args, **kwargs).arguments)[:len(args)]
    given = {fields[name]: tangent for name, tangent in [*zip(names, tangents), *keyword_tangents.items()]
             if tangent is not ZERO and name in fields}
    return Tangent(cls, given) if given else ZERO
