"""A user function's parameters as compiled code passes them: every one by position (compile=True).

Numba passes arguments by position only. The split form of a function compiled code calls
takes each parameter positionally, in the order Python binds them: the positional ones; then,
for ``*args``, one parameter per extra argument the call gives (``args_0, args_1``); then the
keyword-only ones. ``rk4(model, y0, 0.0, 1.0, 100, a, b)`` of ``def rk4(f, y0, t0, t1, steps,
*args)`` is the call of a form of ``rk4`` whose parameters are ``f, y0, t0, t1, steps, args_0,
args_1``, and the cotangents its reverse half gives are those of the call's arguments, in
their places.

That form is made from the function's own text with its ``*args`` written out
(star_written_out.py). This module imports no front end: the pipeline reads a callee's flat
parameters when it binds a module loaded from the disk cache too.
"""
from __future__ import annotations

import dis
import inspect

from ..errors import NotCompiledError
from .resolve import signature


def flat_parameters(parameters: list, given: int | None, taken=frozenset()) -> list:
    """``parameters`` (a function's ``inspect.Parameter`` list, in order) as a call giving
    ``given`` positional arguments binds them, all positional: ``*args`` becomes one
    POSITIONAL_ONLY parameter per extra argument, named apart from ``taken`` (the function's
    own names). NotCompiledError for ``**kwargs``, and for ``*args`` when ``given`` is unknown."""
    flat = []
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for parameter in parameters:
        if parameter.kind is parameter.VAR_KEYWORD:
            raise NotCompiledError(f"takes **{parameter.name}, which the NumPy path binds")
        if parameter.kind is not parameter.VAR_POSITIONAL:
            flat.append(parameter)
            continue
        if given is None:
            raise NotCompiledError(f"takes *{parameter.name}, and the call's number of arguments is not known")
        flat += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
                 for name in star_names(parameter.name, max(0, given - len(positional)), taken)]
    return flat


def star_names(star: str, count: int, taken) -> tuple:
    """``args_0, args_1, ...``: the parameters ``*args`` is written out as, none of them a name
    the function uses (``taken``)."""
    stem = star
    while any(f"{stem}_{i}" in taken for i in range(count)):
        stem += "_"
    return tuple(f"{stem}_{i}" for i in range(count))


def names_used(function) -> set:
    """Every name a function's code (and the code of the functions and lambdas in it) uses."""
    found, codes = set(), [function.__code__]
    while codes:
        code = codes.pop()
        found.update(code.co_varnames, code.co_names, code.co_freevars, code.co_cellvars)
        codes += [c for c in code.co_consts if inspect.iscode(c)]
    return found


def only_read(function, name: str) -> bool:
    """Whether ``function`` (and every function and lambda inside it) only reads its parameter
    ``name``: never assigns or deletes it, and binds no name of its own so called."""
    code = function.__code__
    if any(i.opname in ("STORE_FAST", "DELETE_FAST", "STORE_DEREF", "DELETE_DEREF") and i.argval == name
           for i in dis.get_instructions(code)):
        return False
    nested = [c for c in code.co_consts if inspect.iscode(c)]
    while nested:
        inner = nested.pop()
        if name in inner.co_varnames or name in inner.co_cellvars:
            return False
        nested += [c for c in inner.co_consts if inspect.iscode(c)]
    return True


def function_flat_parameters(function, given: int | None) -> list:
    """``flat_parameters`` of a function's own signature."""
    return flat_parameters(list(signature(function).parameters.values()), given, names_used(function))


def written_star(function, flat: list) -> tuple | None:
    """The parameters of ``flat`` (``function``'s flat parameters) its ``*args`` is written out
    as; None when it takes no ``*args``."""
    declared = signature(function).parameters
    if not any(p.kind is p.VAR_POSITIONAL for p in declared.values()):
        return None
    return tuple(p.name for p in flat if p.name not in declared)


def split_defaults(function) -> tuple:
    """The defaults of the split form of ``function`` (a user function, or one specialised:
    specialisation.py), for the parameters a call leaves out: those of its last parameters,
    keyword-only ones included, up to the first without one. The parameters specialised away
    are not the split form's; those ``*args`` is written out as have none."""
    statics = {name for _, name, _ in getattr(function, "__s2sad_statics__", ())}
    star = getattr(function, "__s2sad_star__", None)
    defaults = []
    for parameter in reversed([p for p in signature(function).parameters.values() if p.name not in statics]):
        if parameter.kind is parameter.VAR_POSITIONAL:
            if star:
                break
            continue
        if parameter.default is parameter.empty:
            break
        defaults.append(parameter.default)
    return tuple(reversed(defaults))
