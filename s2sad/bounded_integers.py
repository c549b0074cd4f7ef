"""Which integer products in a compiled gradient's typed code cannot leave Numba's 64 bits.

Numba's integers wrap at 2**63 where Python's grow, so compiled.py refuses a gradient whose
typed code multiplies integers. One product is safe however large the call: that of two
numbers each below 2**31 in magnitude, whose product is below 2**62. Such a number is an int
argument of the function called (``compiled`` serves none past 2**31, and no fast lane serves
ints; not of the split forms it calls, whose arguments may be products), a bool, a literal
below 2**31, or ``weak(number, other)`` of one (weak_scalars.py: the number itself, or its
float32). ``2 * n_components`` of a parameter is such a product; its result is not such a
number (``2 * n * n`` stays refused), nor is a variable assigned anything else anywhere
(``n = n * 2`` in a loop). A dimension of a float array (``n = h.shape[1]``) may be larger, but
not past (2**63 - 1) / 4: times a literal of at most FEW (``2 * n``, ``4 * n``) it is safe too.
"""
from __future__ import annotations

SMALL = 2 ** 31
# NumPy (and Numba) make no array whose dimension times its itemsize passes 2**63 - 1 (`np.empty((0, 2**62))`
# raises: an empty array's dimensions are bounded too), so a float32 or float64 array's dimension is at most
# (2**63 - 1) / 4, and that times a number of at most FEW in magnitude stays within Numba's 64 bits
FEW = 4


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


def bounded_product(expression, assigned: dict, typemap: dict | None = None) -> bool:
    """Whether the binop ``expression`` (a product) multiplies two numbers below 2**31 in magnitude,
    or, given Numba's ``typemap``, a float array's dimension and a literal of at most FEW."""
    import operator

    if expression.fn not in (operator.mul, operator.imul):
        return False
    left, right = expression.lhs.name, expression.rhs.name
    if _small(left, assigned, set()) and _small(right, assigned, set()):
        return True
    return typemap is not None and (_few(left, assigned) and _dimension(right, assigned, typemap)
                                    or _dimension(left, assigned, typemap) and _few(right, assigned))


def _few(name: str, assigned: dict) -> bool:
    """A literal of at most FEW in magnitude, or ``weak(literal, other)`` of one."""
    from numba.core import ir

    values = assigned.get(name, [])
    if len(values) != 1:
        return False
    value = values[0]
    if isinstance(value, ir.Const):
        return isinstance(value.value, int) and -FEW <= value.value <= FEW
    if isinstance(value, ir.Var):
        return _few(value.name, assigned)
    return isinstance(value, ir.Expr) and value.op == "call" and _weak(value.func.name, assigned) \
        and len(value.args) == 2 and _few(value.args[0].name, assigned)


def _dimension(name: str, assigned: dict, typemap: dict) -> bool:
    """An entry of a float array's ``shape`` (``n = h.shape[1]``, ``rows, n = h.shape``)."""
    from numba.core import ir, types

    values = assigned.get(name, [])
    if len(values) != 1:
        return False
    value = values[0]
    if isinstance(value, ir.Var):
        return _dimension(value.name, assigned, typemap)
    if not (isinstance(value, ir.Expr) and value.op in ("static_getitem", "getitem")):
        return False
    shape = assigned.get(value.value.name, [])
    while len(shape) == 1 and isinstance(shape[0], (ir.Var, ir.Expr)) \
            and (isinstance(shape[0], ir.Var) or shape[0].op == "exhaust_iter"):  # (a copy, an unpacking)
        shape = assigned.get(shape[0].name if isinstance(shape[0], ir.Var) else shape[0].value.name, [])
    if not (len(shape) == 1 and isinstance(shape[0], ir.Expr) and shape[0].op == "getattr" and shape[0].attr == "shape"):
        return False
    array = typemap.get(shape[0].value.name)
    return isinstance(array, types.Array) and isinstance(array.dtype, types.Float) and array.dtype.bitwidth >= 32


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
