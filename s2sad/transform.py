"""The pipeline: function -> (memory cache | disk cache | parse, fence, normalise, generate) -> rrule.

``generated_rrule(f, wrt)`` returns the generated primal-plus-pullback function of ``f``,
specialised to the parameters in ``wrt``. The first call for a function transforms it
(or loads it from the disk cache); later calls find it in memory and do no parsing and
no file I/O.
"""
from __future__ import annotations

import dataclasses
import hashlib
import inspect
import operator
import os
import re
import threading
import weakref
from typing import TYPE_CHECKING

from . import cache
from .compiled_helper_modules import HELPER_MODULES
from .version import __version__
from .errors import NotCompiledError, S2SADError
from .rules import helpers
from .registry import load_optional_rules, all_method_rules, all_rules, forget_generated, registry_generation, registry_version, rule_for
from .frontend.resolve import Environment, found, signature
from .frontend.resolve import unwrap as _unwrap
from .frontend.source import read_function, source_lines_for_key, without_parameters
from .frontend.source_current import check_source_is_current
from .specialisation import STATIC_CONSTANTS, StaticGlobals, built_written_out, methods_current, nones_written_in, \
    objects_written_out, origin_of, specialised, star_written_out, statics_of
from .frontend.flat_parameters import function_flat_parameters, written_star
from .runtime.local_classes import defined_class
from .runtime.initializers import initializes
from .runtime.super_calls import super_properties, supers_resolved
from .registry.forward import forward_fingerprint, forward_rule
from .transformed import BoundCall, TransformedCall, TransformedForwardCall, is_bound_users_method, is_forward_call
from .cache.validity import current_check, dependencies, identity, refused_table, table_text, verified, without_table
from .cache.validity import warn_refused_branches

if TYPE_CHECKING:
    from .codegen.reverse import GeneratedModule

# The modules whose code decides the generated text: a change to any of them (in a
# development checkout, or an upgrade without a version bump) makes a new cache key.
GENERATOR_PACKAGES = ("frontend", "analysis", "codegen")
GENERATOR_MODULES = ("cache/validity.py", *(f"{module}.py" for module in HELPER_MODULES), "compiled_overloads.py")
_generator_hash: str | None = None


def generator_fingerprint() -> str:
    global _generator_hash
    if _generator_hash is None:
        digest = hashlib.sha256()
        here = os.path.dirname(os.path.abspath(__file__))
        paths = [os.path.join(package, name) for package in GENERATOR_PACKAGES
                 for name in sorted(os.listdir(os.path.join(here, package))) if name.endswith(".py")]
        for path in paths + list(GENERATOR_MODULES):
            with open(os.path.join(here, path), "rb") as handle:
                digest.update(path.encode() + b"\0" + handle.read())
        _generator_hash = digest.hexdigest()[:16]
    return _generator_hash


_memory: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # function -> {wrt: rrule}
_sources: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # function -> {wrt: source}
_lock = threading.RLock()
_registry_fingerprint: tuple[int, str] | None = None


def registry_fingerprint(libraries: frozenset = frozenset()) -> str:
    """A hash of the rules of library code (NumPy, operators, builtins, ...) and of method rules;
    an optional library's rules count only for ``libraries``.

    The rule of a user's own function takes part only in the keys of the functions that name
    it (see validity.identity), so registering one regenerates exactly those. Whether scipy's rules
    are loaded depends on whether the process imported scipy, so they take part only in the
    keys of functions that use scipy.
    """
    global _registry_fingerprint
    version = registry_version()  # (an optional library's rules loaded change it, but not the generation)
    if _registry_fingerprint is None or _registry_fingerprint[0] != (version, libraries):
        # Computed once per process and registry state, but on every warm start: one hash
        # over every rule's text (a few hundred rules), not one per rule.
        texts = [rule.fingerprint_text() for rule in sorted(all_rules(), key=lambda r: r.name)
                 if (rule.library is None or rule.library in libraries)
                 and not _is_users(rule.function)]  # a user's rule is in the keys of its callers only
        texts += [f"{owner.__module__}.{owner.__qualname__}.{name}->{rule.name}" for (owner, name), rule in
                  sorted(all_method_rules().items(), key=lambda item: (item[0][0].__qualname__, item[0][1]))]
        digest = hashlib.sha256("\n".join(texts).encode())
        _registry_fingerprint = ((version, libraries), digest.hexdigest())
    return _registry_fingerprint[1]


def _is_users(function) -> bool:
    """A function of the user's own code (not of a library s2sad has rules for)."""
    module = getattr(function, "__module__", None) or ""
    return inspect.isfunction(function) and module.split(".")[0] not in (
        "numpy", "scipy", "math", "operator", "builtins", "s2sad", "rules", "functools")


_forward_fingerprint: tuple[int, str] | None = None


def _forward_rules_fingerprint() -> str:
    """``forward_rules.forward_fingerprint()``, once per registry state (registering a
    forward rule changes the registry's version, as any rule does)."""
    global _forward_fingerprint
    version = registry_version()
    if _forward_fingerprint is None or _forward_fingerprint[0] != version:
        _forward_fingerprint = (version, forward_fingerprint())
    return _forward_fingerprint[1]


def cache_key(function, wrt: tuple[str, ...], mode: str = "reverse") -> str:
    """A hash of everything the generated text depends on, computable without parsing.

    The function's text is read without tokenizing it (``source_lines_for_key``: a few
    lines more than ``inspect.getsource`` at most), so a warm start imports no front end
    and spends no time in ``tokenize``.
    """
    lines, first_line = source_lines_for_key(function)
    check_source_is_current(function, lines, first_line)  # a file edited since: its text is not what runs
    env = Environment(function)
    names = sorted(set(function.__code__.co_names) | set(function.__code__.co_freevars))
    identities = []
    for name in names:
        value = env.lookup(name)
        if found(value):
            identities.append(f"{name}:{identity(value)}")
    libraries = frozenset(library for library in ("scipy",) if any(f":{library}" in i or f".{library}" in i or
                                                                  f"module:{library}" in i for i in identities))
    if libraries:
        load_optional_rules()
    parts = [
        f"s2sad {__version__} generator {generator_fingerprint()}",
        function.__code__.co_filename, function.__qualname__, str(first_line), "".join(lines),
        "wrt=" + ",".join(wrt), "mode=" + mode, "rules=" + registry_fingerprint(libraries), *identities,
    ]
    if mode == "forward":
        parts.append("forward rules=" + _forward_rules_fingerprint())
    if mode in ("compiled", "compiled_split"):  # Numba's cache keeps a caller's machine code with its callees'
        parts += _callee_definitions(function, {function})
        if star_written_out(function) is not None:  # its *args written out as these parameters
            parts.append("star=" + ",".join(star_written_out(function)))
        if nones_written_in(function):  # given None there
            parts.append("nones=" + ",".join(nones_written_in(function)))
        for layout in objects_written_out(function):  # the objects written out, and their classes' methods
            parts.append(f"object {layout!r}")
            for method, name in layout.methods:
                value = inspect.getattr_static(layout.cls, method)
                parts.append("method " + _definition(name, value))
                parts += _callee_definitions(value, {function, value})
        for built in built_written_out(function):  # the classes it builds (their text), and their methods
            parts.append(f"built {built!r}")
            for method, name in built.methods:
                value = inspect.getattr_static(built.cls, method)
                parts.append("method " + _definition(name, value))
                parts += _callee_definitions(value, {function, value})
        for position, name, value in statics_of(function):  # the functions it was specialised to, and theirs
            if type(value) is bool:  # a constant a call passes (`keepdims=True`)
                parts.append(f"static {position}:{name}={value!r}")
                continue
            if not _is_users(value):  # a library function with a rule: which one
                parts.append(f"static {position}:{name}={identity(value)}")
                continue
            parts.append(f"static {position}:" + _definition(name, value))
            parts += _callee_definitions(value, {function, value})
    if supers_resolved(function) is not None:  # what each super() of the method reaches, for its object's type
        receiver_type, reached = supers_resolved(function)
        parts.append(f"supers for {receiver_type.__module__}.{receiver_type.__qualname__}: "
                     + "; ".join(_definition(name, value) for name, value in sorted(reached.items()))
                     + f"; properties {sorted(super_properties(function))}")
    if initializes(function) is not None:  # a constructor's __init__ read as the function returning the object
        cls, chain, base = initializes(function)
        parts.append(f"initializes {cls.__module__}.{cls.__qualname__}: {chain}")
        if base is not None:  # a dataclass base's fields, written out in place: their names and defaults
            parts.append("fields " + repr([(f.name, f.init, repr(f.default), f.default_factory is dataclasses.MISSING)
                                           for f in dataclasses.fields(base)]))
    if function.__name__ == "<lambda>":  # lambdas on one line share their text and name: tell them apart by column
        parts.append("positions=" + repr(list(function.__code__.co_positions())))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _callee_definitions(function, seen: set) -> list[str]:
    """The text and defaults of each user function ``function`` calls by a global name, and of
    theirs: compiled code links in its callees' split forms, and Numba's disk cache, keyed by
    the caller's file alone, would give back the old machine code after a callee changed."""
    found = []
    names = sorted(set(function.__code__.co_names))
    modules = [value for value in map(function.__globals__.get, names) if inspect.ismodule(value)]
    # called by name, or as an attribute of a module (`p.helper`: co_names holds attribute names too)
    candidates = [(name, function.__globals__.get(name)) for name in names]
    candidates += [(f"{m.__name__}.{name}", getattr(m, name, None)) for m in modules for name in names]
    for name, value in candidates:
        if not (inspect.isfunction(value) and _is_users(value)) or value in seen:
            continue
        seen.add(value)
        found.append("callee " + _definition(name, value))
        found += _callee_definitions(value, seen)
    return found


def _definition(name: str, value) -> str:
    """A user function's name, text and defaults, for a compiled mode's cache key."""
    try:
        text = "".join(source_lines_for_key(value)[0])
    except (OSError, TypeError):
        text = value.__code__.co_code.hex()  # no source: its split form is not made anyway
    return f"{name}={value.__module__}.{value.__qualname__}:{text}defaults={value.__defaults__!r}," \
        f"{value.__kwdefaults__!r}"


def transform(function, wrt: tuple[str, ...], mode: str = "reverse", optimize: bool = True) -> GeneratedModule:
    """Parse, fence, normalise and generate: the whole transformation, uncached."""
    return _transformed(function, wrt, mode, optimize)[0]


def _transformed(function, wrt, mode="reverse", optimize=True):
    """``transform``'s module, and the text of its ``DEPENDS`` table (see validity.py)."""
    # The front end (libcst) and the generator are imported only when something is
    # transformed: a warm process that loads generated modules from the cache never pays
    # for them (nor for compiling them, where Python writes no bytecode).
    from .frontend.fence import check
    from .frontend.loop_else_and_walrus import with_loop_else_and_walrus_written_out
    from .codegen.reverse import generate
    from .frontend.naming import Namer
    from .frontend.ir import names_of, static_callees
    from .frontend.normalize import normalize

    from .frontend.untaken import MOST_BRANCHES, without_refused_branch

    source = with_loop_else_and_walrus_written_out(read_function(function))
    if star_written_out(function) is not None:  # specialised to calls giving its *args so many arguments
        from .frontend.star_written_out import with_star_written_out

        source = with_star_written_out(source, star_written_out(function))
    if objects_written_out(function):  # specialised to objects some parameters receive: written out as their fields
        from .frontend.objects_written_out import with_objects_written_out

        source = with_objects_written_out(source, objects_written_out(function))
    if built_written_out(function):  # specialised to the objects it builds: written out as their fields
        from .frontend.built_objects_written_out import with_built_objects_written_out

        source = with_built_objects_written_out(source, built_written_out(function))
    if nones_written_in(function):  # specialised to None given to some parameters: their `is None` tests folded
        from .frontend.nones_written_in import with_nones_written_in

        source = with_nones_written_in(source, nones_written_in(function))
    if supers_resolved(function) is not None:  # a method specialised to its object's type: super() resolved
        from .frontend.super_written_out import with_supers_written_out

        source = with_supers_written_out(source, supers_resolved(function)[1], super_properties(function))
    if initializes(function) is not None:  # a constructor's __init__, returning the object it fills
        from .frontend.initializer_written import with_initializer_written

        source = with_initializer_written(source, *initializes(function)[1:])
    if mode in ("compiled", "compiled_split"):  # `sum(... for ...)` as the loop it runs (on the NumPy path a rule)
        from .frontend.flat_parameters import names_used
        from .frontend.sums_written_out import with_sums_written_out

        source = with_sums_written_out(source, names_used(function))
    if statics_of(function):  # specialised to functions some parameters receive: those become its globals
        source = without_parameters(source, {name for _, name, _ in statics_of(function)})
    refused = []
    while True:
        try:
            check(source)
            ir = normalize(source)
            namer = Namer()
            # The normaliser's names are taken; the generator continues with the same namer.
            namer.reserve(*names_of(ir))
            if mode == "forward":
                from .codegen.forward import generate_forward

                generated = generate_forward(ir, wrt, source.function, namer)
            elif mode == "compiled":
                from .codegen.reverse import generate_compiled

                generated = generate_compiled(ir, wrt, source.function, namer, _splits_for(function))
            elif mode.startswith("typed"):
                from .codegen.reverse import generate_typed

                generated = generate_typed(ir, wrt, source.function, namer, typed_signature(mode))
            elif mode == "compiled_split":
                from .codegen.reverse import generate_compiled_split

                generated = generate_compiled_split(ir, wrt, source.function, namer, _splits_for(function))
            else:
                generated = generate(ir, wrt, source.function, namer, optimize)
            break
        except NotCompiledError:
            raise  # compile=True falls back to the NumPy path: nothing to narrow
        except S2SADError as error:
            narrowed = without_refused_branch(source, error) if len(refused) < MOST_BRANCHES else None
            if narrowed is None:
                _name_the_decorator(error, function)
                raise
            source = narrowed
            refused.append(error)
    table = table_text(dependencies(function, static_callees(ir)))
    return generated, table + refused_table(refused)


_splitting = threading.local()  # the functions whose split forms this thread is making (recursion)


def _splits_for(function):
    """What the compiled generator asks of a call of ``spelling`` in ``function`` (see
    codegen/reverse.split_calls): the callee's number of parameters, once its split form is
    made; NotCompiledError naming the construct when the call cannot compile. ``statics``:
    ((position, the global name passed there), ...), the functions the call passes as values,
    to which the callee is specialised (specialisation.py), as it is to the functions its
    parameters past the ``given`` arguments the call passes default to."""
    env = Environment(function)

    def splits(spelling: str, positions: tuple, statics: tuple = (), given: int | None = None) -> int:
        where = f"the call of `{spelling}`"
        callee = _module_level_users(env, function, spelling, where)
        try:  # all positional, *args written out as the arguments the call gives it (flat_parameters.py)
            parameters = function_flat_parameters(callee, given)
        except NotCompiledError as error:
            raise NotCompiledError(f"{where}: `{spelling}` {error.message}") from None
        if any(position >= len(parameters) for position in positions):
            raise NotCompiledError(f"{where} gives `{spelling}` more arguments than it takes (Python's TypeError)")
        in_progress = getattr(_splitting, "functions", None)
        if in_progress is None:
            in_progress = _splitting.functions = set()
        if callee is origin_of(_unwrap(function)) or callee in in_progress:
            raise NotCompiledError(f"{where} is recursive, which compiled code does not follow")
        callee = _specialised_call(env, function, callee, parameters, statics, given, where,
                                   written_star(callee, parameters))
        in_progress.add(origin_of(_unwrap(function)))
        try:
            split = generated_split(callee, tuple(parameters[p].name for p in positions))
            if split.__globals__.get("WRITES_BACK_ARGUMENTS"):  # the NumPy path refuses the call (transformed.py)
                raise NotCompiledError(f"`{spelling}` changes its arguments in place")
        except NotCompiledError as error:
            raise NotCompiledError(f"{where} cannot compile: {error.message}", error.location) from None
        except S2SADError as error:  # the NumPy path, which makes the callee's own rrule, says what is wrong
            raise NotCompiledError(f"{where} cannot compile: {error.message}", error.location) from None
        finally:
            in_progress.discard(origin_of(_unwrap(function)))
        return len(parameters)

    def parameters_of(spelling: str):
        """The parameters of the user function a call of ``spelling`` calls split (its signature's,
        ``*args`` and keyword-only ones included); None for others."""
        try:
            return list(signature(_module_level_users(env, function, spelling, "")).parameters.values())
        except NotCompiledError:
            return None

    def takes_constant(spelling: str, position: int) -> bool:
        """Whether the callee ``spelling`` names may be specialised to a constant given at
        ``position``: a plain parameter there it never assigns, and not a method written out."""
        try:
            callee = _module_level_users(env, function, spelling, "")
            parameters = function_flat_parameters(callee, None)
        except NotCompiledError:
            return False
        return position < len(parameters) and not objects_written_out(callee) \
            and plain_parameter(parameters[position], rebound_names(callee))

    splits.parameters = parameters_of  # keyword calls are written positionally first (codegen/keyword_calls.py)
    splits.takes_constant = takes_constant  # `keepdims=True` (codegen/reverse.split_calls)
    return splits


def _module_level_users(env: Environment, function, spelling: str, where: str):
    """The module-level function of the user's that ``spelling`` names in ``function``'s
    environment; NotCompiledError for anything else (only those compile, split)."""
    owner, _, name = spelling.rpartition(".")
    value = env.resolve_dotted(spelling)
    home = function.__globals__ if not owner else getattr(env.resolve_dotted(owner), "__dict__", {}) \
        if inspect.ismodule(env.resolve_dotted(owner)) else {}
    # (a method of an object written out as its fields is bound by such a name: specialisation.py)
    if not (inspect.isfunction(value) and _is_users(value)) or home.get(name) is not value \
            or (value.__qualname__ != value.__name__ and not objects_written_out(value)):
        raise NotCompiledError(f"{where} is not of a module-level function of the user's (a closure, a method, "
                               "a value, a library's function without a rule): only those compile")
    return value


def _specialised_call(env: Environment, function, callee, parameters: list, statics: tuple, given: int | None,
                      where: str, star: tuple | None = None):
    """``callee`` specialised to the functions and the constants ``True`` and ``False`` a call
    passes it (``statics``: ((position, global name or constant), ...)) and to those its
    parameters left out (past the ``given`` arguments) default to: a module-level function of
    the user's, or a library function with a rule (``np.tanh``), or a bool; and
    to its ``*args`` written out as the parameters ``star`` (``parameters``: its flat ones,
    flat_parameters.py). ``callee`` itself when there is nothing to specialise to.
    NotCompiledError when a parameter receiving a function is not a plain one the callee only reads."""
    chosen = []
    for position, spelling in statics:
        if spelling in STATIC_CONSTANTS:  # `keepdims=True`: the callee made for that value
            chosen.append((position, spelling, STATIC_CONSTANTS[spelling]))
            continue
        value = env.resolve_dotted(spelling)
        if rule_for(value) is None:
            value = _module_level_users(env, function, spelling, f"{where}'s argument `{spelling}`")
        chosen.append((position, spelling, value))
    rebound = rebound_names(callee)
    for position, parameter in enumerate(parameters):
        if given is None or position < given:
            continue
        if static_default(parameter.default):
            chosen.append((position, f"the default of `{parameter.name}`", parameter.default))
        elif type(parameter.default) is bool and plain_parameter(parameter, rebound) and not objects_written_out(callee):
            # a flag left to its default (`keepdims=False`): its branches may return arrays of other ranks
            chosen.append((position, f"the default of `{parameter.name}`", parameter.default))
    if not chosen and star is None:
        return callee
    if objects_written_out(callee):  # (a method of an object written out given a function: not followed)
        raise NotCompiledError(f"{where} passes a function to a method of an object written out as its fields")
    for position, spelling, _ in chosen:
        parameter = parameters[position] if position < len(parameters) else None
        if parameter is None or not plain_parameter(parameter, rebound):
            raise NotCompiledError(f"{where} passes `{spelling}` to a parameter that is not a plain positional one "
                                   "it only calls (assigned, captured, or *args)")
    return specialised(callee, tuple((position, parameters[position].name, value) for position, _, value in chosen),
                       star)


def rebound_names(function) -> set:
    """The names ``function`` assigns, deletes or captures in a closure."""
    import dis

    return {instruction.argval for instruction in dis.get_instructions(function.__code__)
            if instruction.opname in ("STORE_FAST", "DELETE_FAST")} | set(function.__code__.co_cellvars)


def plain_parameter(parameter, rebound: set) -> bool:
    """A parameter named (not ``*args``) that the function never assigns or captures (``rebound``)."""
    return parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY) and parameter.name not in rebound


def static_default(value) -> bool:
    """A parameter's default the callee may be specialised to: a function of the user's, defined
    at module level, or a library function with a rule."""
    if inspect.isfunction(value) and _is_users(value):
        return value.__qualname__ == value.__name__ and value.__globals__.get(value.__name__) is value
    return callable(value) and rule_for(value) is not None


def _name_the_decorator(error: S2SADError, function) -> None:
    """A refusal inside a decorator's wrapper says so: the user wrote ``@timed``, not ``wrapper``."""
    wrapped = getattr(function, "__wrapped__", None)
    if wrapped is None:
        return
    code = function.__code__  # functools.wraps gave the wrapper the wrapped function's names; its code keeps its own
    decorator = getattr(code, "co_qualname", code.co_name).split(".<locals>.")[0]
    error.hint = (f"{function.__qualname__} is the wrapper that the decorator `{decorator}` put around "
                  f"{getattr(wrapped, '__qualname__', wrapped)}; s2sad differentiates the wrapper's own code, "
                  "so give it explicit parameters (def wrapper(x): ... fn(x)) or differentiate the undecorated "
                  "function" + (f"; {error.hint}" if error.hint else ""))
    error.args = (error.render(),)



def forget() -> None:
    """Drop the generated functions held in memory: the next call loads each from the disk
    cache (or makes it) again, as a new process would."""
    _memory.clear()
    forget_generated()


def generated_rrule(function, wrt: tuple[str, ...]):
    """The generated primal-plus-pullback function of ``function`` for the parameters ``wrt``."""
    return _generated(function, wrt, "reverse")


def generated_compiled(function, wrt: tuple[str, ...]):
    """The generated gradient of a function of Python floats for Numba (``compile=True``):
    ``f_grad_compiled(*params) -> (y, gradients with respect to wrt)``; NotCompiledError when
    the function is not one s2sad compiles."""
    return _generated(function, wrt, "compiled")


def generated_split(function, wrt: tuple[str, ...]):
    """The split compiled form of a user function a compiled gradient calls: its module's
    ``SPLIT`` is ``(f_forward, f_reverse)`` (codegen/reverse.generate_compiled_split); the entry
    returned is the forward half, whose ``__s2sad_current__`` covers what it calls too."""
    return _generated(function, wrt, "compiled_split")


def generated_typed(function, wrt: tuple[str, ...], signature: tuple):
    """The rrule specialised to calls whose arguments have ``signature``
    (analysis/array_types.signature_of), or None when the function has no such version:
    ``f_typed_rrule(*args)`` returns ``(value, pullback)``, or None for a call of another signature."""
    entry = _generated(function, wrt, typed_mode(signature))
    return entry if entry.__s2sad_module__.TYPED else None


def typed_mode(signature: tuple) -> str:
    """The mode (a part of the cache key) of the typed version for ``signature``."""
    return "typed" + repr(signature)


def typed_signature(mode: str) -> tuple:
    import ast

    return ast.literal_eval(mode[len("typed"):])


def generated_jvp(function, wrt: tuple[str, ...]):
    """The generated primal-plus-pushforward function: ``f_jvp(*params, *tangents of wrt) -> (y, dy)``."""
    return _generated(function, wrt, "forward")


def _generated(function, wrt, mode):
    function = _unwrap(function)
    if not inspect.isfunction(function):
        read_function(function)  # raises the error that says why it has no source
    generation = registry_generation()
    per_function = _memory.get(function)
    if per_function is not None:
        entry = per_function.get((mode, wrt))
        # made before a rule was registered, or from definitions no longer current: make it again
        if entry is not None and entry[0] == generation and entry[1].__s2sad_current__(function):
            return entry[1]
    with _lock:
        per_function = _memory.setdefault(function, {})
        entry = per_function.get((mode, wrt))
        if entry is not None and entry[0] == generation and entry[1].__s2sad_current__(function):
            return entry[1]
        generated = _load_or_generate(function, wrt, mode)
        per_function[(mode, wrt)] = (generation, generated)
        return generated


def transformed_call(function, active_positions, active_keywords) -> TransformedCall:
    """A call of ``function`` through its generated rrule, differentiated at the given arguments."""
    return TransformedCall(function, active_positions, active_keywords, generated_rrule)


def transformed_forward_call(function, active_positions, active_keywords) -> TransformedForwardCall:
    """The same in forward mode: ``function``'s generated jvp."""
    return TransformedForwardCall(function, active_positions, active_keywords, generated_jvp, generated_rrule)


def generated_source(function, wrt: tuple[str, ...], mode: str = "reverse") -> str:
    _generated(function, wrt, mode)
    return _sources[_unwrap(function)][(mode, wrt)]


def entry_name(function, mode: str) -> str:
    """The name of the generated module of ``function`` in ``mode`` (its disk cache file's stem
    before the key)."""
    return function.__qualname__.replace("<locals>.", "").replace("<lambda>", "lambda") + \
        {"forward": "_jvp", "compiled": "_compiled", "compiled_split": "_split"}.get(mode, "_typed" if mode.startswith("typed") else "")


def _load_or_generate(function, wrt, mode):
    name = entry_name(function, mode)
    directory = cache.usable_directory()
    source = None
    path = None
    if directory is not None:
        try:
            key = cache_key(function, wrt, mode)
        except (OSError, TypeError):
            transform(function, wrt, mode)  # raises the error that says why there is no source
            raise
        path = cache.entry_path(directory, name, key)
        source = cache.read_entry(path)
    if source is None:
        source, path = _generate_and_store(function, wrt, path, mode)
    module = cache.load_module(name, source, path)
    try:
        still_current = _bind_current(module, function)
    except _Stale:  # the entry refers to a rule or name that no longer resolves as it did: make it again
        source, path = _generate_and_store(function, wrt, path, mode)
        module = cache.load_module(name, source, path)
        still_current = _bind_current(module, function)
    _sources.setdefault(function, {})[(mode, wrt)] = without_table(source)
    if not mode.startswith("typed"):  # (a typed version's refused branches are the general one's: said once)
        warn_refused_branches(module, function)
    entry = module.SPLIT[0] if mode == "compiled_split" else \
        _entry_of(module, {"forward": "_jvp", "compiled": "_grad_compiled"}.get(mode, "_rrule"))
    entry.__s2sad_module__ = module
    entry.__s2sad_current__ = still_current  # run before each call: see validity.py
    return entry


def _generate_and_store(function, wrt, path, mode="reverse"):
    """Transform ``function``; write the source to ``path`` (None when it cannot be written)."""
    generated, depends = _transformed(function, wrt, mode)
    source = generated.source + depends
    if path is not None and not cache.write_entry(path, source):
        path = None
    return source, path


def _entry_of(module, suffix="_rrule"):
    functions = [value for value in module.__dict__.values()
                 if inspect.isfunction(value) and value.__module__ == module.__name__]
    for value in functions:
        if value.__name__.endswith(suffix):
            return value
    for value in functions:  # `method_rrule_2`: the namer found `method_rrule` taken (a method's own name)
        if re.search(re.escape(suffix) + r"_\d+$", value.__name__):
            return value
    raise S2SADError(f"generated module {module.__name__} has no rrule function")


class _Stale(Exception):
    """A cached module refers to a rule or name that no longer resolves the same way."""


def _bind_current(module, function):
    """Check the module's ``DEPENDS``, then ``bind`` it; return the check run before each call
    that it is still current (``validity.current_check``)."""
    resolved = verified(getattr(module, "DEPENDS", None), function)
    if resolved is None:
        raise _Stale("DEPENDS")
    bind(module, function)
    check = current_check(function, resolved)
    if isinstance(getattr(function, "__globals__", None), StaticGlobals):  # and the objects' methods it calls
        of_the_function = check

        def check(function):
            return of_the_function(function) and methods_current(function)
    splits = module.__dict__.get("__s2sad_splits__")
    if not splits:
        return check

    def still_current(function):  # and each split callee's own code, two levels down and more
        return check(function) and all(entry.__s2sad_current__(callee) for callee, entry in splits)

    return still_current


def bind(module, function) -> None:
    """Give the module's ``BINDINGS`` their values from the function's environment."""
    env = Environment(function)
    splits: list = []  # (callee, its split entry) of the compiled code's calls: see _bind_current
    for name, recipe in getattr(module, "BINDINGS", {}).items():
        if recipe[0] in ("compiled_forward", "compiled_reverse"):
            module.__dict__[name] = _split_half(recipe, env, splits)
        else:
            module.__dict__[name] = _resolve_recipe(recipe, env, function)
    module.__dict__["__s2sad_splits__"] = splits
    # Block comments name the user's file short, for reading; an error raised as the code runs
    # names it in full (api._user_location), as the errors raised while transforming do.
    module.__dict__["__s2sad_source_file__"] = function.__code__.co_filename


def _split_half(recipe, env: Environment, splits: list):
    """The Numba dispatcher of one half of a callee's split form (compiled code's calls)."""
    from .compiled import split_dispatchers

    callee = _unwrap(_resolve_reference(recipe[1], env))
    statics, given = (recipe[4], recipe[5]) if len(recipe) > 5 else ((), None)
    try:
        parameters = function_flat_parameters(callee, given) if inspect.isfunction(callee) else []
    except NotCompiledError:  # it takes **kwargs now: made again, which says so
        raise _Stale(str(recipe)) from None
    if not all(p < len(parameters) for p in recipe[2]):
        raise _Stale(str(recipe))
    if not all(p < len(parameters) for p, _ in statics):
        raise _Stale(str(recipe))
    # specialised as when it was made (specialisation.py): to the functions the call passes, the defaults, *args
    callee = _specialised_call(env, env.function, callee, parameters, statics, given, f"the call of `{recipe[1][1]}`",
                               written_star(callee, parameters))
    # NotCompiledError (the callee changed into one that does not compile) goes to compile=True's fallback
    entry, halves = split_dispatchers(callee, tuple(parameters[p].name for p in recipe[2]))
    if not any(entry is e for _, e in splits):
        splits.append((callee, entry))
    return halves[0 if recipe[0] == "compiled_forward" else 1]


def _resolve_reference(reference, env: Environment):
    kind, spelling = reference
    value = getattr(operator, spelling) if kind == "operator" else env.resolve_dotted(spelling)
    if not found(value) and spelling in helpers.__all__:
        value = getattr(helpers, spelling)  # what the normaliser writes calls of itself (zipped, merged_keywords)
    if not found(value):
        raise _Stale(spelling)
    return value


def _resolve_recipe(recipe, env: Environment, function):
    kind = recipe[0]
    if kind == "global":
        value = env.lookup(recipe[1])
        if not found(value):
            raise _Stale(recipe[1])
        return value
    if kind == "globals":
        return function.__globals__
    if kind == "cell":
        return env.closure[recipe[1]]
    if kind == "class":
        return defined_class(*recipe[1:], function.__globals__)
    callee = _resolve_reference(recipe[1], env)
    if kind in ("transformed", "transformed_forward") and is_bound_users_method(callee):
        # `Linear.from_flat(flat)`: the function's call with the class first, one position on
        shifted = tuple(position + 1 for position in recipe[2])
        make = transformed_call if kind == "transformed" else transformed_forward_call
        return BoundCall(make(callee.__func__, shifted, recipe[3]), callee.__self__, kind == "transformed_forward")
    if kind == "transformed":
        return transformed_call(callee, recipe[2], recipe[3])
    if kind == "transformed_forward":
        return transformed_forward_call(callee, recipe[2], recipe[3])
    if kind == "forward_call_rrule":
        if not is_forward_call(callee):
            raise _Stale(str(recipe))
        return callee.rrule
    if kind == "jvp":
        forward = forward_rule(callee)
        jvp = forward.jvp_function(recipe[2]) if forward is not None else None
        if jvp is None:
            raise _Stale(str(recipe))
        return jvp
    rule = rule_for(callee)
    if rule is None:
        raise _Stale(str(recipe))
    if kind == "vjp":
        vjp = rule.vjp_function(recipe[2])
        if vjp is None:
            raise _Stale(str(recipe))
        return vjp
    if kind == "vjp_all":
        return rule.vjp_all
    if kind == "rrule":
        return rule.rrule
    raise _Stale(str(recipe))


