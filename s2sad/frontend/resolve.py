"""Resolving the names a function uses to the real objects, as Python would when it runs.

Callees (``np.sin``, ``np.linalg.inv``, a helper function) are resolved at transform
time and their rules looked up by identity; the generated module is then bound to the
same objects when it is loaded (see ``binding_for``).
"""
from __future__ import annotations

import builtins
import inspect
import sys
import types
from typing import Any

from ..errors import UnsupportedSyntaxError, untaken_branch_error
from .local_imports import imported_value, local_imports
from .wrappers import forwarded_function

_MISSING = object()

# Names s2sad itself writes into a function's code before transforming it (frontend/untaken.py),
# resolved ahead of the user's: the call a refused branch is replaced with.
REFUSED_BRANCH = "s2sad_refused_branch"
S2SAD_NAMES = {REFUSED_BRANCH: untaken_branch_error}


class Environment:
    """The names visible to a function: its closure, the names its own ``import`` statements bind,
    its module's globals, the builtins."""

    def __init__(self, function):
        self.function = function
        self.globals = function.__globals__
        code = function.__code__
        cells = function.__closure__ or ()
        self.closure = {name: cell for name, cell in zip(code.co_freevars, cells)}
        self.imports = local_imports(code)

    def lookup(self, name: str) -> Any:
        if name in S2SAD_NAMES:
            return S2SAD_NAMES[name]
        if name in self.closure:
            try:
                return self.closure[name].cell_contents
            except ValueError:
                return _MISSING
        imported = self.imports.get(name)
        if imported is not None:  # `import numpy as np` in the function's own body
            try:
                return imported_value(imported, self.globals)
            except ImportError:
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
        """Modules, functions and classes are bound once; other globals are data, read per call,
        but for the constants a specialised function was made for (``keepdims=True``: its globals'
        ``laid_over``, specialisation.py), which are part of what it is."""
        value = self.lookup(name)
        laid_over = getattr(self.globals, "laid_over", None)
        return isinstance(value, types.ModuleType) or callable(value) \
            or laid_over is not None and name not in self.closure and laid_over(name)


def found(value) -> bool:
    return value is not _MISSING


def importable_module_name(value) -> str | None:
    """The name to ``import`` for a module object, if importing it gives back the same object."""
    if isinstance(value, types.ModuleType):
        name = value.__name__
        if sys.modules.get(name) is value and name != "__main__":
            return name
    return None


def unwrap(function):
    """The plain Python function behind s2sad's own ``@differentiate`` object or a bound method.

    Not ``__wrapped__``: a decorator's wrapper is code of its own (``10 * fn(x)``), so it
    is differentiated as written, calling the function it wraps through that function's own
    transform. The one exception is a wrapper whose source shows it returns
    ``fn(*args, **kwargs)`` untouched (s2sad.frontend.wrappers): its derivative is ``fn``'s.
    s2sad's own transforms (``grad(f)``, ``jacrev(f)``, ...) are never followed to ``f`` (their
    ``__wrapped__``): they have rules of their own (s2sad.compositions), or are refused.
    """
    seen = set()
    while id(function) not in seen:
        seen.add(id(function))
        if hasattr(function, "__s2sad_original__"):
            function = function.__s2sad_original__
        elif inspect.ismethod(function):
            function = function.__func__
        elif type(function).__name__ == "_ArrayFunctionDispatcher" and hasattr(function, "__wrapped__"):
            function = function.__wrapped__  # np.polyval's dispatcher: NumPy's code, refused as library code
        elif forwarded_function(function) is not None:
            function = forwarded_function(function)  # a timing or logging wrapper: returns fn(*args) as it is
        else:
            break
    if transform_kind(function) is not None:
        refuse_transform(function)  # made with has_aux: no rule of its own, and not its __wrapped__ either
    return function


# The transforms whose functions s2sad differentiates again (s2sad.compositions gives them rules).
COMPOSABLE_KINDS = frozenset({"grad", "value_and_grad", "jacfwd", "jacrev", "hessian"})

# What does work in place of calling a transform inside a differentiated function, for the refusals' hint.
COMPOSITION_HINT = ("s2sad.vjp's pullback is a function computed from the differentiated argument, which s2sad "
                    "does not differentiate; differentiate the function s2sad.grad, jacfwd, jacrev or hessian "
                    "returns instead (jacfwd(jacrev(f)), grad(lambda x: np.sum(grad(f)(x)))), or call s2sad.jvp")


def mark_transform(function, kind: str, recipe=None):
    """Mark ``function`` as what s2sad's transform ``kind`` returned (``grad(f)``, ...);
    ``recipe``, ``(transform, f, argnums)``, says how to make it again: with one it is
    differentiated again through the rules s2sad.compositions makes for it."""
    # The function itself is named in the mark: a user's functools.wraps around it copies
    # its __dict__, and that user's wrapper is code to differentiate, not a transform.
    function.__s2sad_transform__ = (kind, function, recipe)
    return function


def _mark(function):
    try:
        mark = function.__dict__.get("__s2sad_transform__")
    except AttributeError:  # no __dict__: no transform of ours
        return None
    return mark if mark is not None and mark[1] is function else None


def transform_kind(function) -> str | None:
    """``"grad"``, ``"jacrev"``, ... for a function one of s2sad's transforms returned; else None."""
    mark = _mark(function)
    return mark[0] if mark is not None else None


def transform_recipe(function):
    """``(transform, f, argnums)`` that made ``function``, for a transform s2sad differentiates again; else None."""
    mark = _mark(function)
    return mark[2] if mark is not None else None


_PUBLIC_TRANSFORMS = {"grad", "value_and_grad", "vjp", "rrule", "jvp", "jacfwd", "jacrev", "hessian", "hvp",
                      "derivative"}


def value_transform(function) -> str | None:
    """``"vjp"``, ``"jvp"``, ... for s2sad's transforms that give values, not functions
    (``s2sad.vjp`` itself); else None."""
    module = getattr(function, "__module__", None) or ""
    if inspect.isfunction(function) and function.__name__ in _PUBLIC_TRANSFORMS and (
            module == "s2sad" or module.startswith("s2sad.")) and not module.startswith("s2sad.rules"):
        return function.__name__
    return None


def refuse_value_transform(kind: str, location=None):
    """The error for ``s2sad.vjp(f, x)`` (``kind``) called inside a differentiated function."""
    return UnsupportedSyntaxError(f"cannot differentiate a call of s2sad.{kind} inside a differentiated function",
                                  location, hint=COMPOSITION_HINT)


def refuse_transform(function, location=None) -> None:
    """Raise when ``function`` is one of s2sad's transforms that gives values (``s2sad.vjp``
    called inside a differentiated function), or a transform's function made with
    ``has_aux=True`` or ``holomorphic=True``: neither is differentiated. The functions ``grad``, ``jacrev``, ... return
    have rules of their own (s2sad.compositions), and are not refused."""
    kind = transform_kind(function)
    if kind is None:
        kind = value_transform(function)  # s2sad.vjp(f, x) called in the function differentiated
        if kind is not None:
            raise refuse_value_transform(kind, location)
        return
    if transform_recipe(function) is not None:
        return
    inner = getattr(getattr(function, "__wrapped__", None), "__qualname__", "f")
    raise UnsupportedSyntaxError(
        f"cannot differentiate s2sad.{kind}({inner}): a transform made with has_aux=True or holomorphic=True "
        "is not differentiated again", location,
        hint="differentiate a function without has_aux (which returns what you need), or without holomorphic")


def describe_decorated(value) -> str | None:
    """What a callable object without source that a decorator made is, or None:
    ``functools.lru_cache`` objects and other C-implemented wrappers carry ``__wrapped__``."""
    if inspect.isfunction(value) or type(value).__module__.split(".")[0] == "numpy":
        return None  # NumPy's dispatchers carry __wrapped__ too: they are NumPy functions, no decorator of the user's
    try:
        wrapped = getattr(value, "__wrapped__", None)
    except Exception:
        return None
    if wrapped is None:
        return None
    kind = type(value)
    target = getattr(wrapped, "__qualname__", wrapped)
    if inspect.isfunction(getattr(kind, "__call__", None)):
        return (f"a callable `{kind.__qualname__}` object that a decorator class made around {target} "
                f"(s2sad differentiates functions, not objects' __call__)")
    decorator = "functools.lru_cache" if kind.__name__ == "_lru_cache_wrapper" else f"{kind.__module__}.{kind.__qualname__}"
    return f"a `{decorator}` object (a decorator implemented without Python source) wrapping {target}"


def signature(function):
    """``inspect.signature`` of the function itself: a decorator's wrapper has its own
    parameters (``*args, **kwargs``), not those ``__wrapped__`` advertises."""
    return inspect.signature(function, follow_wrapped=False)


def is_library(function) -> bool:
    """Library code is called as it is; everything else without a rule is differentiated from
    its source. Library code is NumPy and the standard library, written around compiled
    internals: their Python functions without a rule are refused, with a message that says so.
    Any other package's Python functions without a rule (``scipy.optimize.rosen``) are
    differentiated from their source, in both modes, as the user's are; whatever in them
    s2sad cannot differentiate is refused at its own line. The rules' own helper functions
    count as source: that is how generated code (which calls them) is differentiated again,
    for Hessians and higher derivatives."""
    module = getattr(function, "__module__", "") or ""
    if module.startswith("s2sad.rules."):
        return False
    return module.split(".")[0] in {"numpy", "builtins", "math", "operator", "s2sad", "functools"}


# A function under functools.lru_cache / functools.cache is not followed: the cache may
# answer with a value computed before a global it reads changed (its derivative would then be
# that of another computation), and a cached function of arrays fails (they are unhashable).
CACHED_HINT = ("differentiate the function under the cache, `{name}.__wrapped__(...)`, in the code s2sad "
               "differentiates (s2sad does not follow the cache: it may answer with a value computed "
               "before a global changed, and arrays are unhashable, so a cached function of arrays fails anyway)")


def missing_rule_hint(value) -> str:
    """The hint of a call with no rule and no source: the generic one, or the cache's."""
    if type(value).__name__ == "_lru_cache_wrapper" and type(value).__module__ == "functools":
        return CACHED_HINT.format(name=getattr(value, "__name__", "f"))
    return "register one with s2sad.defvjp(...) or s2sad.defrrule(...), or s2sad.nondifferentiable(...) if it has no gradient"


def describe_callee(value) -> str:
    decorated = describe_decorated(value)
    if decorated is not None:
        return decorated
    module = getattr(value, "__module__", None)
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or type(value).__name__
    return f"{module}.{name}" if module else name
