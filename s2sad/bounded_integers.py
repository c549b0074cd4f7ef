"""Which integer products in a compiled gradient's typed code cannot leave Numba's 64 bits.

Numba's integers wrap at 2**63 where Python's grow, so compiled.py refuses a gradient whose
typed code multiplies integers. One product is safe however large the call: that of two
numbers each below 2**31 in magnitude, whose product is below 2**62. Such a number is an int
argument of the function called (``compiled`` serves none past 2**31, and no fast lane serves
ints; not of the split forms it calls, whose arguments may be products), a bool, a literal
below 2**31, or ``weak(number, other)`` of one (weak_scalars.py: the number itself, or its
float32). ``2 * n_components`` of a parameter is such a product; its result is not such a
number (``2 * n * n`` stays refused), nor is a variable assigned anything else anywhere
(``n = n * 2`` in a loop).
"""
from __future__ import annotations

SMALL = 2 ** 31


def definitions(blocks, arguments_small: bool) -> dict:
    """Each variable's name in Numba IR ``blocks`` -> the values assigned to it; its arguments left
    out unless ``arguments_small`` (those of a function the user's call gave them to: a split form
    called by compiled code may be given any product)."""
    from numba.core import ir

    found: dict = {}
    for block in blocks.values():
        for instruction in block.body:
            if isinstance(instruction, ir.Assign) and (arguments_small or not isinstance(instruction.value, ir.Arg)):
                found.setdefault(instruction.target.name, []).append(instruction.value)
    return found


def bounded_product(expression, assigned: dict) -> bool:
    """Whether the binop ``expression`` (a product) multiplies two numbers below 2**31 in magnitude."""
    import operator

    if expression.fn not in (operator.mul, operator.imul):
        return False
    return _small(expression.lhs.name, assigned, set()) and _small(expression.rhs.name, assigned, set())


def _small(name: str, assigned: dict, seen: set) -> bool:
    from numba.core import ir

    if name in seen or name not in assigned:
        return False  # (a cycle: a variable assigned in a loop from itself)
    seen.add(name)
    for value in assigned[name]:
        if isinstance(value, ir.Arg):
            continue
        if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)) and _small_number(value.value):
            continue
        if isinstance(value, ir.Var) and _small(value.name, assigned, seen):
            continue
        if isinstance(value, ir.Expr) and value.op == "call" and _weak(value.func.name, assigned) \
                and len(value.args) == 2 and _small(value.args[0].name, assigned, seen):
            continue
        return False
    return True


def _small_number(value) -> bool:
    return isinstance(value, (bool, int)) and -SMALL < value < SMALL


def _weak(name: str, assigned: dict) -> bool:
    from numba.core import ir

    from .compiled_helpers import weak

    values = assigned.get(name, [])
    return len(values) == 1 and isinstance(values[0], (ir.Global, ir.FreeVar)) and values[0].value is weak
