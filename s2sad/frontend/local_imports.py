"""The names a function binds with ``import`` in its own body (``import numpy as np`` in a script's
function), read from its bytecode: a local name bound to a module or to what a module holds.

s2sad resolves them as it resolves globals, when it transforms the function and whenever the
generated code is bound or checked, through ``resolve.Environment``. The bytecode says exactly
what Python binds: ``import a.b`` binds ``a``, ``import a.b as c`` the module ``a.b``, ``from a
import b as c`` the attribute (or submodule) ``b`` of ``a``, relative imports from the
function's package. A name two import statements bind differently is ambiguous: it resolves to
nothing, and the normaliser refuses it.
"""
from __future__ import annotations

import dis
import functools
import importlib
from dataclasses import dataclass

_STORES = {"STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL"}


@dataclass(frozen=True)
class LocalImport:
    module: str                    # the module the statement imports (``scipy.special``)
    level: int                     # 0 for an absolute import, the number of leading dots otherwise
    kind: str                      # "top" (``import a.b``), "module" (``import a.b as c``), "from"
    attribute: str | None = None   # what ``from module import attribute`` takes


AMBIGUOUS = LocalImport("", 0, "ambiguous")


@functools.lru_cache(maxsize=1024)
def local_imports(code) -> dict[str, LocalImport]:
    """name -> how the function's own ``import`` statements bind it (AMBIGUOUS when they disagree)."""
    found: dict[str, LocalImport] = {}
    instructions = list(dis.get_instructions(code))
    for position, instruction in enumerate(instructions):
        if instruction.opname != "IMPORT_NAME" or position < 2:
            continue
        level, fromlist = instructions[position - 2].argval, instructions[position - 1].argval
        for name, imported in _bound_by(instructions, position, instruction.argval, level, fromlist):
            found[name] = imported if found.get(name, imported) == imported else AMBIGUOUS
    return found


def _bound_by(instructions, position: int, module: str, level: int, fromlist):
    """The ``(name, LocalImport)`` pairs one IMPORT_NAME binds, from the instructions after it."""
    following = instructions[position + 1:]
    if fromlist is None:
        store = next((i for i in following if i.opname in _STORES), None)
        if store is None:
            return []
        nested = following[0].opname == "IMPORT_FROM"  # `import a.b as c`: the attributes down to `b`
        return [(store.argval, LocalImport(module, level, "module" if nested else "top"))]
    pairs, attribute = [], None
    for instruction in following:
        if instruction.opname == "IMPORT_FROM":
            attribute = instruction.argval
        elif instruction.opname in _STORES and attribute is not None:
            pairs.append((instruction.argval, LocalImport(module, level, "from", attribute)))
            attribute = None
        else:
            break
    return pairs


def imported_value(imported: LocalImport, function_globals: dict):
    """What the import binds, importing the module if it is not yet (ImportError if it cannot be)."""
    if imported is AMBIGUOUS:
        raise ImportError("two import statements bind this name differently")
    fromlist = (imported.attribute,) if imported.kind == "from" else None
    top = __import__(imported.module, function_globals, None, fromlist, imported.level)
    if imported.kind == "top":
        return top
    if imported.kind == "module":
        return importlib.import_module(imported.module)
    try:
        return getattr(top, imported.attribute)
    except AttributeError:
        raise ImportError(f"cannot import name {imported.attribute!r} from {top.__name__!r}") from None
