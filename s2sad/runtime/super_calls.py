"""``super().method(...)`` in a method of the user's class, resolved for the object's type.

Which function ``super().forward(x)`` calls depends on two classes: the one whose body defines
the method (its ``__class__`` cell) and the type of ``self``, whose MRO ``super()`` walks past the
first. A method called on an object (runtime/methods.py) is specialised to the object's type: a
function object sharing the method's code, defaults and closure, its globals laid over with
``s2sad_super_forward`` = the ``forward`` that ``super()`` reaches for that type (specialisation's
StaticGlobals); its text calls that name with ``self`` first (frontend/super_written_out.py), a
call of a user function s2sad differentiates from its source. One specialisation per (type,
method): a subclass inheriting from several bases, whose MRO puts another class between, gets its
own. A ``super().name`` reaching a property reads it by calling its getter, ``s2sad_super_name(self)``.
A ``super()`` reaching something else than a plain function or a property (a classmethod, a
library's method), and a method differentiated otherwise (called by name, ``grad(obj.method)``),
keeps ``super()`` in its text, which the fence refuses with its line.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import types
import weakref

SUPER_PREFIX = "s2sad_super_"  # + the method's name: what a specialised method's text calls for `super().name`

# receiver type -> {method function: its specialisation}; weak, so a redefined class is let go
_made: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def supers_resolved(function):
    """``(receiver type, {method name: the function super() reaches})`` of a specialised method; None for any other.
    A property's name maps to its getter, and is among ``super_properties(function)``."""
    return getattr(function, "__s2sad_supers__", None)


def super_properties(function) -> frozenset:
    """The names ``super().name`` reads of a property in a specialised method (read by calling its getter)."""
    return getattr(function, "__s2sad_super_properties__", frozenset())


def with_supers_resolved(function, receiver_type: type):
    """``function``, a method of ``receiver_type``'s (or a base's) that calls ``super().name(...)``,
    specialised to objects of ``receiver_type``; ``function`` itself when it calls no ``super()``."""
    code = function.__code__
    if "super" not in code.co_names or "__class__" not in code.co_freevars:
        return function
    owner = function.__closure__[code.co_freevars.index("__class__")].cell_contents
    mro = receiver_type.__mro__
    if owner not in mro:
        return function
    reached, properties = {}, set()
    for name in _names_called_on_super(function):
        value = next((klass.__dict__[name] for klass in mro[mro.index(owner) + 1:] if name in klass.__dict__), None)
        if isinstance(value, property) and inspect.isfunction(value.fget):  # `super().scale`: its getter, given self
            value = value.fget
            properties.add(name)
        if inspect.isfunction(value):  # else (a classmethod, a library's, object's own): left to the fence
            reached[name] = value
    if not reached:
        return function
    # what super() reaches is part of what the specialisation is: a base's method replaced makes a new one
    key = (function, tuple(sorted((name, value, value.__code__, name in properties) for name, value in reached.items())))
    per_type = _made.setdefault(receiver_type, {})
    found = per_type.get(key)
    if found is not None:
        return found
    from ..specialisation import StaticGlobals

    # the function reached calls its own super() further up the same MRO
    statics = {SUPER_PREFIX + name: with_supers_resolved(value, receiver_type) for name, value in reached.items()}
    found = types.FunctionType(code, StaticGlobals(statics, function.__globals__), function.__name__,
                               function.__defaults__, function.__closure__)
    found.__qualname__, found.__module__, found.__kwdefaults__ = \
        function.__qualname__, function.__module__, function.__kwdefaults__
    found.__s2sad_supers__ = (receiver_type, reached)
    found.__s2sad_super_properties__ = frozenset(properties)
    found.__s2sad_origin__ = function
    per_type[key] = found
    return found


_names_by_code: dict = {}  # code object -> the names its source calls on super()


def _names_called_on_super(function) -> set:
    """The names ``function``'s source calls on ``super()`` (``forward`` of ``super().forward(x)``)."""
    names = _names_by_code.get(function.__code__)
    if names is None:
        names = _names_by_code[function.__code__] = _read_names_called_on_super(function)
    return names


def _read_names_called_on_super(function) -> set:
    from ..frontend.wrappers import source_lines

    try:
        lines, _ = source_lines(function)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return set()
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name) and node.value.func.id == "super" and not node.value.args}
