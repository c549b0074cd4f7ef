"""An int literal a function may return, which its compiled gradient would return as a float.

Numba types a variable once: a function returning ``x * i`` on one path and ``0`` on another
returns a float on both, where Python returns the int 0 (and the NumPy path's value is that
int). The copies that make the value returned (a ``return`` inside a loop, the branches'
merges) are followed back from the function's result; an int literal met on the way keeps
the function from compiling (``NotCompiledError`` says where to write a float).
"""
from __future__ import annotations

import ast

from ..errors import NotCompiledError
from ..frontend.ir import Const, Function, Var, operations_of


def refuse_returned_ints(function: Function) -> None:
    """NotCompiledError when the value ``function`` returns may be an int literal (see above)."""
    copies: dict = {}
    for operation in operations_of(function.statements):
        if operation.kind == "copy":
            copies.setdefault(operation.target, []).append(operation.args[0])
    pending, seen = [function.result], set()
    while pending:
        atom = pending.pop()
        if isinstance(atom, Const) and _int_literal(atom.code):
            raise NotCompiledError(f"it may return the int {atom.code}, which its compiled gradient would return "
                                   f"as a float (write `return {atom.code}.0` to compile)", function.location)
        if isinstance(atom, Var) and atom.name not in seen:
            seen.add(atom.name)
            pending.extend(copies.get(atom.name, ()))


def _int_literal(code: str) -> bool:
    try:
        value = ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError):
        return False
    return isinstance(value, int) and not isinstance(value, bool)
