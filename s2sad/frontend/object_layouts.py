"""An object of the user's class written out as its fields (compile=True): which objects, and their names.

Numba cannot take an object of a Python class. But ``model.loss(ratings, mask)`` of a
``FactorModel`` holding ``users``, ``items`` and ``l2`` reads nothing of ``model`` but those
three values and the code of ``FactorModel.loss``. So a call giving such an object is served
by a form of the function whose parameter ``model`` is written out as one parameter per field
(``model_users, model_items, model_l2``): in its body ``model.users`` is ``model_users``, and
``model.loss(ratings, mask)`` is ``model_loss(model_users, model_items, model_l2, ratings,
mask)``, where the module-level name ``model_loss`` means ``FactorModel.loss`` with its own
``self`` written out the same way (specialisation.py binds it). The cotangents of the fields
are put back together as the NumPy path gives the object's gradient (compiled.py).

Only what is the same program is written out: an object whose instance fields are all Python
floats or float arrays, read by field and by calling its class's plain methods. Anything else
(a field of another kind, ``model`` passed on, stored, or a method taken without calling it,
a write to a field) raises NotCompiledError naming it, and the NumPy path runs.

This module imports no front end: compiled calls read an argument's layout on every call; the
rewrite of the text is objects_written_out.py.
"""
from __future__ import annotations

import dataclasses
import inspect

import numpy as np

from ..errors import NotCompiledError
from .flat_parameters import only_read

NOT_USER_MODULES = {"numpy", "scipy", "builtins", "s2sad", "functools", "dataclasses", "typing"}


@dataclasses.dataclass(frozen=True)
class ObjectLayout:
    """How a parameter receiving an object of ``cls`` is written out: its ``fields`` as the
    parameters ``written``, the class's methods it may call as the module-level names
    ``methods`` ((method name, global name), ...), and its fields holding functions (``statics``:
    ((field, function), ...)) read as the expressions ``spelled`` ((field, text), ...): ``np.tanh``,
    or a module-level function of the user's by its name; and the calls passing it on to a
    function of the user's (``passed``: ((callee's global name, position in the call, the
    callee's parameter, global name of the callee written out), ...), objects_passed_on.py)."""
    parameter: str
    cls: type
    fields: tuple
    written: tuple
    methods: tuple
    statics: tuple = ()
    spelled: tuple = ()
    passed: tuple = ()

    def field_names(self) -> dict:
        return dict(zip(self.fields, self.written))

    def method_names(self) -> dict:
        return dict(self.methods)

    def passed_names(self) -> tuple:
        """The global names of the callees written out for it."""
        return tuple(name for *_, name in self.passed)


def is_user_object(value) -> bool:
    """Whether a value is an object of a user's class (what may be written out as its fields)."""
    cls = value.__class__
    module = (getattr(cls, "__module__", "") or "").split(".")[0]
    return module not in NOT_USER_MODULES and hasattr(value, "__dict__") and not isinstance(value, type) \
        and not callable(getattr(value, "__array__", None)) and not inspect.isroutine(value) \
        and not isinstance(value, (tuple, list, dict))


def fields_of(value) -> tuple:
    """``(fields, statics)``: the names of an object's instance fields holding numbers, in the
    order they were set, and ((field, function), ...) of those holding functions (a NumPy
    function, a module-level function of the user's); NotCompiledError when one holds anything
    else than those, Python floats and float64 or float32 arrays."""
    cls = value.__class__
    if cls.__getattribute__ is not object.__getattribute__ or hasattr(cls, "__getattr__"):
        raise NotCompiledError(f"was given a {cls.__name__}, whose class reads its attributes its own way "
                               "(__getattribute__, __getattr__): compiled code writes an object out as its fields")
    fields, statics = [], []
    for name in vars(value):
        if hasattr(type(inspect.getattr_static(cls, name, None)), "__set__"):  # a property: it, not the field, is read
            raise NotCompiledError(f"was given a {cls.__name__} whose field `{name}` its class reads through a "
                                   "descriptor (a property): compiled code writes an object out as its fields")
        item = vars(value)[name]
        if item.__class__ is float or (item.__class__ is np.ndarray and item.dtype in (np.float64, np.float32)):
            fields.append(name)
        elif _numpy_name(item) is not None or is_module_level_users(item):
            statics.append((name, item))
        else:
            raise NotCompiledError(f"was given a {type(value).__name__} whose field `{name}` holds a "
                                   f"{type(item).__name__}: compiled code writes an object out as its fields, which "
                                   "needs them Python floats, float arrays, NumPy functions or module-level functions")
    if not fields:
        raise NotCompiledError(f"was given a {type(value).__name__} without fields holding numbers")
    return tuple(fields), tuple(statics)


def _numpy_name(function) -> str | None:
    """``tanh`` of ``np.tanh``; None for anything that is not NumPy's own by that name."""
    name = getattr(function, "__name__", None)
    return name if isinstance(name, str) and callable(function) and getattr(np, name, None) is function else None


def is_module_level_users(function) -> bool:
    """Whether ``function`` is a plain module-level function of the user's."""
    module = (getattr(function, "__module__", "") or "").split(".")[0]
    return inspect.isfunction(function) and function.__qualname__ == function.__name__ \
        and module not in NOT_USER_MODULES


def spelling_in(function, field: str, value) -> str:
    """How ``function``'s text names ``value`` (a field's function): ``np.tanh`` through its own
    name for NumPy, a user function by its own name; NotCompiledError when it cannot."""
    names = function.__globals__
    local = set(function.__code__.co_varnames) | set(function.__code__.co_cellvars)
    if _numpy_name(value) is not None:
        alias = next((name for name in ("np", "numpy") if names.get(name) is np and name not in local), None)
        if alias is not None:
            return f"{alias}.{_numpy_name(value)}"
    elif names.get(value.__name__) is value and value.__name__ not in local:
        return value.__name__
    raise NotCompiledError(f"reads the field `{field}` holding `{getattr(value, '__qualname__', value)}`, which its "
                           "module does not name (as np.<name>, or the function's own name)")


def plain_methods(cls) -> tuple:
    """The names of ``cls``'s methods that are plain functions of the user's (``__call__`` the
    only dunder among them): those a written-out object may call."""
    found = []
    for name in dir(cls):
        if name.startswith("__") and name != "__call__":
            continue
        function = inspect.getattr_static(cls, name, None)
        if inspect.isfunction(function) and \
                (getattr(function, "__module__", "") or "").split(".")[0] not in NOT_USER_MODULES:
            found.append(name)
    return tuple(found)


def layout_for(function, parameter: str, cls: type, fields: tuple, taken: set, statics: tuple = ()) -> ObjectLayout:
    """The layout of ``parameter`` of ``function`` given an object of ``cls`` with ``fields``
    (and ``statics``, fields_of's); its new names are apart from ``taken`` (every name the
    function uses) and from each other."""
    _check_only_read(function, parameter)
    fresh = fresh_names(set(taken))
    written = tuple(fresh(f"{parameter}_{field}") for field in fields)
    held = set(fields) | {name for name, _ in statics}
    methods = tuple((name, fresh(f"{parameter}_{name.strip('_')}")) for name in plain_methods(cls) if name not in held)
    spelled = tuple((field, spelling_in(function, field, value)) for field, value in statics)
    from .objects_passed_on import calls_passing

    passed = tuple((callee, position, callee_parameter, fresh(f"{callee}_{parameter}"))
                   for callee, position, callee_parameter in calls_passing(function, parameter))
    return ObjectLayout(parameter, cls, fields, written, methods, statics, spelled, passed)


def fresh_names(used: set):
    """``fresh(stem)``: ``stem``, or ``stem_``, ``stem__``, ..., the first not in ``used`` (which it joins)."""
    def fresh(stem: str) -> str:
        name = stem
        while name in used:
            name += "_"
        used.add(name)
        return name

    return fresh


def _check_only_read(function, parameter: str) -> None:
    """NotCompiledError unless the function (and any function inside it) only reads ``parameter``."""
    if not only_read(function, parameter):
        raise NotCompiledError(f"assigns its parameter `{parameter}` (or a function inside it binds its own "
                               f"`{parameter}`): compiled code writes the object it is given out as its fields, "
                               "which needs it only read")


def objects_in(args: tuple) -> tuple:
    """((position, class, fields, statics), ...) of the arguments that are objects of the user's
    classes (fields_of's fields and statics) or dicts of numbers (entries_of's); NotCompiledError
    when one cannot be written out."""
    found = ()
    for position, a in enumerate(args):
        if a.__class__ in _NOT_OBJECTS:  # (the first test keeps the calls of floats fast)
            continue
        if a.__class__ is dict:
            found += ((position, dict, entries_of(a), ()),)
        elif a.__class__ is tuple:
            found += ((position, tuple, items_of(a), ()),)
        elif is_user_object(a):
            found += ((position, a.__class__, *fields_of(a)),)
    return found


_NOT_OBJECTS = frozenset({float, int, bool, complex, str, type(None), np.ndarray, list})


def items_of(value: tuple) -> tuple:
    """The positions of a tuple of parameters (``Wz, Wr, Wh = params``, ``params[0]``) written out as
    its items, as names (``("0", "1", "2")``): each a Python float or a float64 or float32 array;
    NotCompiledError for any other tuple."""
    for position, item in enumerate(value):
        if not _number_or_array(item):
            raise NotCompiledError(f"was given a tuple whose item {position} is a {type(item).__name__}: compiled code "
                                   "writes a tuple out as its items, which needs them Python floats or float arrays")
    if not value:
        raise NotCompiledError("was given an empty tuple")
    return tuple(map(str, range(len(value))))


def _number_or_array(item) -> bool:
    return item.__class__ is float or item.__class__ is np.ndarray and item.dtype in (np.float64, np.float32)


def entries_of(value: dict) -> tuple:
    """The keys of a dict of parameters (``params["W"]``) written out as its entries, in their
    order: each a name, each value a Python float or a float64 or float32 array; NotCompiledError
    for any other dict."""
    for key, item in value.items():
        if not (key.__class__ is str and key.isidentifier()):
            raise NotCompiledError(f"was given a dict with the key {key!r}: compiled code writes a dict out as its "
                                   "entries, which needs their keys names")
        if not _number_or_array(item):
            raise NotCompiledError(f"was given a dict whose entry {key!r} holds a {type(item).__name__}: compiled code "
                                   "writes a dict out as its entries, which needs them Python floats or float arrays")
    if not value:
        raise NotCompiledError("was given an empty dict")
    return tuple(value)


def written_out(args: tuple, objects: tuple) -> tuple:
    """``args`` with each object of ``objects`` (``objects_in``) replaced by its fields' values."""
    flat, start = [], 0
    for position, _, fields, _ in objects:
        flat += args[start:position]
        given = args[position]
        if given.__class__ is tuple:
            flat += given
        else:
            held = given if given.__class__ is dict else vars(given)
            flat += [held[name] for name in fields]
        start = position + 1
    return (*flat, *args[start:])
