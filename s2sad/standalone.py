"""What a file written by ``s2sad emit`` calls when it is imported.

The emitted file holds the generated code; the names it uses from the function's own
module (its globals, helpers, the rules it calls) are bound here by importing that module
(not parsing it), exactly as the cache's loader binds them.
"""
from __future__ import annotations

import functools
import importlib.util
import inspect
import linecache
import os
import sys

from .arguments import hand_over, seed_for
from .errors import S2SADError, SourceLocation
from .cache.validity import definition, same_definition
from .frontend.resolve import Environment, unwrap
from .transform import bind


def bind_from_source(namespace: dict, emitted_file: str, relative_path: str, absolute_path: str, qualname: str,
                     digest: str | None = None):
    """Bind the ``BINDINGS`` of an emitted module from the module defining ``qualname``, and give
    back the function (whose defaults the emitted gradient takes). A function whose text no
    longer hashes to ``digest`` (the header's: its text when the file was emitted) is refused:
    the emitted code is the derivative of the old text (files emitted before there was a
    ``digest`` argument are not checked)."""
    here = os.path.dirname(os.path.abspath(emitted_file))
    path = os.path.normpath(os.path.join(here, relative_path))
    if not os.path.isfile(path):
        path = absolute_path
    if not os.path.isfile(path):
        raise ImportError(f"s2sad: the source of this derivative file is not found at {relative_path} "
                          f"(relative to {here}) nor at {absolute_path}: keep the two files together")
    module = _import_path(path)
    function = module
    for part in qualname.split("."):
        function = getattr(function, part)
    if digest is not None:
        _check_unchanged(unwrap(function), digest, emitted_file)

    function = unwrap(function)

    class Emitted:
        pass

    holder = Emitted()
    holder.__dict__ = namespace
    bind(holder, function)
    _follow_rebinding(namespace, holder, function)
    return function


def _follow_rebinding(namespace: dict, holder, function) -> None:
    """Make the emitted entry (``FUNC_rrule`` or ``FUNC_jvp``) bind its names again when one of
    them names another object than when it was bound (``source.helper = other`` after the import,
    as a notebook does), and refuse when the function itself was redefined in place (its code
    or defaults): the emitted code is the derivative of the definition it was emitted from."""
    recorded = definition(function)
    spellings = sorted(_references(namespace.get("BINDINGS", {})))
    env = Environment(function)
    bound = [env.resolve_dotted(spelling) for spelling in spellings]

    def still_bound() -> bool:
        return all(env.resolve_dotted(spelling) is value for spelling, value in zip(spellings, bound))

    def current() -> None:
        if not same_definition(function, recorded):
            code = function.__code__
            raise S2SADError(f"{function.__qualname__} was redefined after {namespace.get('__file__')} was imported: "
                             "the emitted code is the derivative of its definition when it was emitted",
                             SourceLocation(code.co_filename, code.co_firstlineno, 1),
                             hint="emit it again (the command is in the file's header, with --force)")
        if not still_bound():
            bind(holder, function)
            env.__init__(function)
            bound[:] = [env.resolve_dotted(spelling) for spelling in spellings]

    for suffix in ("_rrule", "_jvp"):
        entry = namespace.get(function.__name__ + suffix)
        if inspect.isfunction(entry):
            checked = _checked(entry, current)
            namespace[entry.__name__] = _with_defaults(checked, entry, function) if suffix == "_jvp" else checked


def _checked(entry, current):
    @functools.wraps(entry)
    def checked_entry(*args, **kwargs):
        current()
        return entry(*args, **kwargs)

    return checked_entry


def _with_defaults(checked, entry, function):
    """The emitted ``FUNC_jvp`` taking ``function``'s arguments as ``function`` does (its defaults,
    its keywords), then the tangents: the last positional arguments, or all given by name
    (``dx=...``). A call giving every argument by position, keyword-only ones too, is the
    generated code's own and means what it meant before."""
    signature = inspect.signature(function)
    kinds = {parameter.kind for parameter in signature.parameters.values()}
    if kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD}:
        return checked  # the generated code collects them itself
    tangent_names = list(inspect.signature(entry).parameters)[len(signature.parameters):]
    count = len(tangent_names)

    @functools.wraps(entry)
    def entry_with_defaults(*arguments, **keywords):
        if not keywords and len(arguments) == len(signature.parameters) + count:
            return checked(*arguments)  # every argument by position, as the generated code takes them
        named = [keywords.pop(name) for name in tangent_names if name in keywords]
        if named and len(named) != count:
            raise TypeError(f"{entry.__name__}() takes the tangents for {', '.join(tangent_names)} all by name "
                            "or all by position (after the arguments)")
        if not named:
            if len(arguments) < count:
                raise TypeError(f"{entry.__name__}() missing the tangents for {', '.join(tangent_names)}, "
                                "given after the arguments")
            arguments, named = arguments[:len(arguments) - count], list(arguments[len(arguments) - count:])
        bound = signature.bind(*arguments, **keywords)
        bound.apply_defaults()
        return checked(*bound.arguments.values(), *named)

    return entry_with_defaults


def _references(bindings: dict):
    """The names (dotted) in the function's environment that ``bindings`` read."""
    for recipe in bindings.values():
        if recipe[0] == "global":
            yield recipe[1]
        elif len(recipe) > 1 and isinstance(recipe[1], tuple) and recipe[1][:1] == ("env",):
            yield recipe[1][1]


def _check_unchanged(function, digest: str, emitted_file: str) -> None:
    from .emit import source_digest

    try:
        now = source_digest(function)
    except (OSError, TypeError):
        now = None
    if now != digest:
        code = function.__code__
        raise S2SADError(
            f"{emitted_file} is the derivative of {function.__qualname__} as it was when it was emitted "
            f"(source sha256 {digest}); its text in {code.co_filename} has changed since "
            f"({'sha256 ' + now if now else 'unreadable'})",
            SourceLocation(code.co_filename, code.co_firstlineno, 1, linecache.getline(code.co_filename,
                                                                                   code.co_firstlineno).rstrip("\n")),
            hint="emit it again (the command is in the file's header, with --force)")


def _import_path(path: str):
    for module in list(sys.modules.values()):
        if os.path.abspath(getattr(module, "__file__", "") or "") == os.path.abspath(path):
            return module
    importable = _importable_name(path)
    if importable is not None:  # the user's own module, which a later `import` of theirs gives them too
        return importlib.import_module(importable)
    name = "s2sad_source_" + "".join(ch if ch.isalnum() else "_" for ch in os.path.abspath(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


def _importable_name(path: str) -> str | None:
    """The name ``import`` finds the file ``path`` by, through ``sys.path``; None if there is none:
    the emitted code and the user's program then share one module (its globals, its helpers)."""
    path = os.path.abspath(path)
    for entry in sys.path:
        directory = os.path.abspath(entry or os.getcwd())
        if not path.startswith(directory + os.sep):
            continue
        name = path[len(directory) + 1:-len(".py")].replace(os.sep, ".")
        name = name[:-len(".__init__")] if name.endswith(".__init__") else name
        if not all(part.isidentifier() for part in name.split(".")):
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin and os.path.abspath(spec.origin) == path:
            return name
    return None


def gradient(rrule, values: tuple, positions: tuple[int, ...], name: str):
    """What ``s2sad.grad`` returns, from an emitted rrule: one gradient, or a tuple."""
    output, pullback = rrule(*values)
    cotangents = pullback(seed_for(output, name))
    gradients = tuple(hand_over(values[p], cotangents[1 + p]) for p in positions)
    return gradients[0] if len(gradients) == 1 else gradients
