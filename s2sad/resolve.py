"""Resolving the names a function uses to the real objects, as Python would when it runs.

Callees (``np.sin``, ``np.linalg.inv``, a helper function) are resolved at transform
time and their rules looked up by identity; the generated module is then bound to the
same objects when it is loaded (see ``binding_for``).
"""
from __future__ import annotations

import builtins
import inspect
import types
from typing import Any

_MISSING = object()


class Environment:
    """The names visible to a function: its closure, its module's globals, the builtins."""

    def __init__(self, function):
        self.function = function
        self.globals = function.__globals__
        code = function.__code__
        cells = function.__closure__ or ()
        self.closure = {name: cell for name, cell in zip(code.co_freevars, cells)}

    def lookup(self, name: str) -> Any:
        if name in self.closure:
            try:
                return self.closure[name].cell_contents
            except ValueError:
                return _MISSING
        if name in self.globals:
            return self.globals[name]
        builtin_namespace = self.globals.get("__builtins__", builtins)
        if isinstance(builtin_namespace, types.ModuleType):
            builtin_namespace = builtin_namespace.__dict__
        return builtin_namespace.get(name, _MISSING)

    def resolve_dotted(self, dotted: str) -> Any:
        root, *attributes = dotted.split(".")
        value = self.lookup(root)
        for attribute in attributes:
            if value is _MISSING:
                break
            value = getattr(value, attribute, _MISSING)
        return value

    def is_static_root(self, name: str) -> bool:
        """Modules, functions and classes are bound once; other globals are data, read per call."""
        value = self.lookup(name)
        return isinstance(value, types.ModuleType) or callable(value)


def found(value) -> bool:
    return value is not _MISSING


def importable_module_name(value) -> str | None:
    """The name to ``import`` for a module object, if importing it gives back the same object."""
    if isinstance(value, types.ModuleType):
        import sys

        name = value.__name__
        if sys.modules.get(name) is value and name != "__main__":
            return name
    return None


def unwrap(function):
    """The plain Python function behind a decorator object, a bound method or a partial."""
    seen = set()
    while id(function) not in seen:
        seen.add(id(function))
        if hasattr(function, "__s2sad_original__"):
            function = function.__s2sad_original__
        elif inspect.ismethod(function):
            function = function.__func__
        elif hasattr(function, "__wrapped__"):
            function = function.__wrapped__
        else:
            break
    return function
