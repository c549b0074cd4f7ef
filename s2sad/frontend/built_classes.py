"""The classes whose objects a function builds itself (compile=True): which, and how a call fills them.

``Gaussian(mean, log_std).log_prob(data)`` or ``model = Linear(w)`` then ``model(X)`` make an
object Numba cannot hold. But an object whose constructor only stores its arguments, one field
each, is no more than those values under one name: ``model = Linear(w)`` is ``model_weights = w``,
and a method called on it is the method with its ``self`` written out as those fields, as for an
object given as an argument (object_layouts.py). built_objects_written_out.py rewrites the text;
this module says which classes qualify and what their constructors take:

* a dataclass whose ``__init__`` is the one ``dataclasses`` wrote, without ``__post_init__``,
  default factories, fields left out of ``__init__`` or keyword-only ones;
* a ``collections.namedtuple``;
* a plain class (no base but ``object``) whose ``__init__`` only stores each of its parameters,
  once, as a field (``self.weights = weights``);

each defined at module level or in the function's own body, with no ``__new__``,
``__setattr__``, ``__getattr__`` or ``__getattribute__`` of its own, no metaclass, no property
by a field's name, and constructor defaults that are numbers. Any class the function calls
that is not one of those raises NotCompiledError naming it, and the NumPy path runs.

The quick test (``may_build``) reads the function's bytecode alone: a function that names no
class of the user's never parses its text here.
"""
from __future__ import annotations

import dataclasses
import dis
import inspect
import math

from ..errors import NotCompiledError
from .object_layouts import NOT_USER_MODULES, fresh_names, plain_methods


@dataclasses.dataclass(frozen=True)
class BuiltClass:
    """A class the function builds objects of. A call's arguments bind to ``parameters``; the
    one at ``parameters[i]`` is stored as ``fields[i]``. ``defaults``: ((parameter, number), ...).
    ``methods``: ((method name, the module-level name it is called by, its self written out), ...).
    ``definition``: its text (or its fields, for a namedtuple), for the cache key."""
    spelling: str
    cls: type
    parameters: tuple
    fields: tuple
    defaults: tuple
    methods: tuple
    local: bool
    definition: str

    def method_names(self) -> dict:
        return dict(self.methods)


def may_build(function) -> bool:
    """Whether ``function``'s code (or a function inside it) reads a global naming a class of the
    user's, or defines a class: those whose text classes_built reads."""
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        for instruction in dis.get_instructions(code):
            if instruction.opname == "LOAD_BUILD_CLASS":
                return True
            if instruction.opname == "LOAD_GLOBAL" and _users_class(function.__globals__.get(instruction.argval)):
                return True
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    return False


def _users_class(value) -> bool:
    return isinstance(value, type) and (value.__module__ or "").split(".")[0] not in NOT_USER_MODULES


def classes_built(function, taken: set) -> tuple:
    """The BuiltClass of each class ``function`` calls by name (a module-level one, or one its
    body defines); their methods' names are apart from ``taken`` and from each other.
    NotCompiledError, located, for a class it calls that cannot be written out."""
    if not may_build(function):
        return ()
    import libcst as cst

    from .source import read_function

    source = read_function(function)
    local = {statement.name.value: statement for statement in source.funcdef.body.body
             if isinstance(statement, cst.ClassDef)}
    own = set(function.__code__.co_varnames) | set(function.__code__.co_cellvars)
    used = set(taken)
    found = []
    for spelling, call in _first_calls(source.funcdef.body).items():
        if spelling in local:
            cls = _local_class(function, source, local[spelling])
        elif spelling not in own and _users_class(function.__globals__.get(spelling)):
            cls = function.__globals__[spelling]
        else:
            continue
        try:
            found.append(_built(spelling, cls, spelling in local, used, source, local.get(spelling)))
        except NotCompiledError as error:
            raise NotCompiledError(error.message, source.location(call)) from None
    return tuple(found)


def _built(spelling: str, cls: type, local: bool, used: set, source, statement) -> BuiltClass:
    _check_plain_class(cls)
    if dataclasses.is_dataclass(cls):
        parameters, defaults = _dataclass_constructor(cls)
        fields = parameters
    elif issubclass(cls, tuple):
        parameters, defaults = _namedtuple_constructor(cls)
        fields = parameters
    else:
        parameters, fields, defaults = _stored_by_init(cls)
    for field in fields:
        if hasattr(type(inspect.getattr_static(cls, field, None)), "__set__") and not issubclass(cls, tuple):
            raise NotCompiledError(f"builds a {cls.__name__}, whose class reads its field `{field}` through a "
                                   "descriptor (a property): compiled code writes the object out as its fields")
    fresh = fresh_names(used)
    methods = tuple((name, fresh(f"{spelling}_{name.strip('_')}")) for name in plain_methods(cls) if name not in fields)
    if local:
        definition = _local_text(source, statement)[0]
    elif issubclass(cls, tuple):
        definition = repr((cls.__module__, cls.__qualname__, cls._fields, cls._field_defaults))
    else:
        try:
            definition = inspect.getsource(cls)
        except (OSError, TypeError):
            raise NotCompiledError(f"builds a {cls.__name__}, whose class has no source to read") from None
    return BuiltClass(spelling, cls, parameters, fields, defaults, methods, local, definition)


def _check_plain_class(cls: type) -> None:
    named_tuple = issubclass(cls, tuple) and hasattr(cls, "_fields")
    bases = (tuple,) if named_tuple else (object,)
    reason = None
    if type(cls) is not type:
        reason = "has a metaclass"
    elif cls.__bases__ != bases:
        reason = f"derives from {', '.join(b.__name__ for b in cls.__bases__)}"
    elif cls.__getattribute__ is not bases[0].__getattribute__ or hasattr(cls, "__getattr__"):
        reason = "reads its attributes its own way (__getattribute__, __getattr__)"
    elif not named_tuple and cls.__new__ is not object.__new__:
        reason = "has a __new__ of its own"
    elif not named_tuple and not dataclasses.is_dataclass(cls) and cls.__setattr__ is not object.__setattr__:
        reason = "has a __setattr__ of its own"
    if reason is not None:
        raise NotCompiledError(f"builds a {cls.__name__}, whose class {reason}: compiled code writes an object it "
                               "builds out as its fields, which needs a class that only holds them")


def _dataclass_constructor(cls: type) -> tuple:
    init = inspect.getattr_static(cls, "__init__")
    if getattr(getattr(init, "__code__", None), "co_filename", None) != "<string>" or hasattr(cls, "__post_init__"):
        raise NotCompiledError(f"builds a {cls.__name__}, a dataclass whose __init__ does more than store its "
                               "fields (its own __init__, or __post_init__)")
    parameters, defaults = [], []
    for field in dataclasses.fields(cls):
        if not field.init or field.kw_only or field.default_factory is not dataclasses.MISSING:
            raise NotCompiledError(f"builds a {cls.__name__} whose field `{field.name}` is left out of __init__, "
                                   "keyword-only or made by a default factory")
        parameters.append(field.name)
        if field.default is not dataclasses.MISSING:
            defaults.append((field.name, _number(cls, field.name, field.default)))
    return tuple(parameters), tuple(defaults)


def _namedtuple_constructor(cls: type) -> tuple:
    new = getattr(inspect.getattr_static(cls, "__new__"), "__func__", None)  # (a staticmethod)
    if not hasattr(cls, "_fields") or not getattr(new, "__qualname__", "").startswith(f"{cls.__name__}.") \
            or getattr(new, "__module__", None) != f"namedtuple_{cls.__name__}":
        raise NotCompiledError(f"builds a {cls.__name__}, a tuple that is not a collections.namedtuple")
    defaults = tuple((name, _number(cls, name, value)) for name, value in cls._field_defaults.items())
    return tuple(cls._fields), defaults


def _stored_by_init(cls: type) -> tuple:
    """``(parameters, fields, defaults)`` of a plain class whose ``__init__`` stores each
    parameter once, as a field; NotCompiledError for any other ``__init__``."""
    import libcst as cst

    from .source import read_function

    init = cls.__dict__.get("__init__")
    if not inspect.isfunction(init):
        raise NotCompiledError(f"builds a {cls.__name__}, whose class has no __init__ of its own")
    params = list(inspect.signature(init).parameters.values())
    if not params or any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in params):
        raise NotCompiledError(f"builds a {cls.__name__}, whose __init__ takes *args, **kwargs or keyword-only "
                               "parameters")
    self_name, names = params[0].name, [p.name for p in params[1:]]
    stored = {}
    funcdef = read_function(init).funcdef
    for statement in funcdef.body.body:
        lines = statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]
        for line in lines:
            if isinstance(line, cst.Expr) and isinstance(line.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue  # a docstring
            for field, parameter in _stores(line, self_name):
                if parameter not in names or parameter in stored or field in stored.values():
                    stored = None
                    break
                stored[parameter] = field
            if stored is None:
                break
        if stored is None:
            break
    if stored is None or set(stored) != set(names):
        raise NotCompiledError(f"builds a {cls.__name__}, whose __init__ does more than store each of its "
                               "parameters once, as a field")
    defaults = tuple((p.name, _number(cls, p.name, p.default)) for p in params[1:] if p.default is not p.empty)
    return tuple(names), tuple(stored[name] for name in names), defaults


def _stores(line, self_name: str) -> list:
    """((field, parameter), ...) of ``self.field = parameter`` (or ``self.a, self.b = a, b``);
    a pair ``(None, None)`` for any other statement."""
    import libcst as cst

    if not isinstance(line, cst.Assign) or len(line.targets) != 1:
        return [(None, None)]
    target, value = line.targets[0].target, line.value
    if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
        pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
    else:
        pairs = [(target, value)]
    found = []
    for target, value in pairs:
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and target.value.value == self_name and isinstance(value, cst.Name):
            found.append((target.attr.value, value.value))
        else:
            found.append((None, None))
    return found


def _number(cls: type, name: str, value):
    """A default written into the text as a literal: a finite int or float."""
    if value.__class__ in (int, float) and math.isfinite(value):
        return value
    raise NotCompiledError(f"builds a {cls.__name__} whose `{name}` defaults to a {type(value).__name__}, "
                           "not a number compiled code writes in")


_made_locally: dict = {}  # (file, line, text) -> the class a function's body defines, made once


def _local_class(function, source, statement) -> type:
    """The class a ``class`` statement of the function's body defines, made from the user's own
    text as the generated module makes it (runtime/local_classes.py); NotCompiledError when it
    reads a variable of the function (each call's class would be another)."""
    from ..runtime.local_classes import defined_class
    from .normalize_classes import ClassNormalizer

    text, first = _local_text(source, statement)
    own = set(function.__code__.co_varnames) | set(function.__code__.co_cellvars) | set(function.__code__.co_freevars)
    read = ClassNormalizer.local_variables_read(text) & own
    if read:
        raise NotCompiledError(f"builds a {statement.name.value}, a class reading the variable `{sorted(read)[0]}` "
                               "of the function it is defined in", source.location(statement))
    key = (source.filename, first, text)
    made = _made_locally.get(key)
    if made is None:
        made = _made_locally[key] = defined_class(statement.name.value, text, source.filename, first,
                                                  function.__globals__)
    return made


def _local_text(source, statement) -> tuple:
    """``(text, first line in the file)`` of a class statement of the function's body."""
    start = source.positions[statement.decorators[0] if statement.decorators else statement].start.line
    end = source.positions[statement].end.line
    return "\n".join(source.text.splitlines()[start - 1:end]) + "\n", source.first_line + start - 1


def _first_calls(body) -> dict:
    """name -> the first call of it by name (``Gaussian(mean, log_std)``) in ``body``."""
    import libcst as cst

    found: dict = {}

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name):
                found.setdefault(node.func.value, node)

    body.visit(Calls())
    return found
