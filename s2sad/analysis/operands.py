"""Which operands of Python's operators must be shown to be numbers or arrays when the code runs.

Generated code differentiates ``a * b`` by the rule of multiplying numbers and arrays, ``x[i]``
by the rule of indexing, and a ``for`` loop by indexing its iterable. An object of a class with
its own ``__mul__``, ``__radd__``, ``__neg__``, ``__getitem__`` or ``__iter__`` computes
something else under the same syntax, and its gradient would come out wrong (a dual-number
class's ``__mul__``, a sequence whose ``__getitem__`` scales). So each such operand is checked
by ``plain_operands`` (rules/helpers.py) before the operation, unless it is known to be a
number, an array or a container built here:

* the result of an operator (but an item read with ``[]``) or of a NumPy or ``math`` function, a constant, a list, tuple or
  dict the function writes, and a copy of such a value (a loop's carried value when every
  assignment of it is one);
* a parameter is checked once, on entry, when it reaches an operand only through copies.

Everything else (an item read from a container, an attribute, what a user function, method or
constructor returns, a global) is checked where the operation runs.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend.ir import Function, Operation, Var, operations_of
from ..rules.helpers import NUMPY_OWN_MEANINGS
from .scalars import WRITTEN_INTO

# the operators whose operands' own classes could run code of their own in place of the rule
CHECKED_OPERATORS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.matmul, operator.neg, operator.pos, operator.getitem, abs,
})
# containers the function writes: lists, tuples and dicts of its own
_CONTAINER_KINDS = ("tuple", "list", "dict")
# calls whose results are numbers or arrays whatever their arguments were (their own classes' code aside)
_NUMERIC_BUILTINS = frozenset({float, int, complex, len, range, round, math.fsum})


class OperandChecks:
    """The checks of one function: ``on_entry``, the parameters checked once when it starts;
    ``before``, for an operation (by ``id``), the operands checked just before it runs."""

    def __init__(self, on_entry: tuple[str, ...], before: dict[int, tuple[str, ...]]):
        self.on_entry = on_entry
        self.before = before

    def of(self, op: Operation) -> tuple[str, ...]:
        return self.before.get(id(op), ())


def operand_checks(function: Function) -> OperandChecks:
    operations = operations_of(function.statements)
    definitions: dict[str, list[Operation]] = {}
    for op in operations:
        for name in (op.targets if op.kind == "unpack" and op.targets else (op.target,)):
            if name:
                definitions.setdefault(name, []).append(op)
    params = set(function.params)
    # plain: a number, an array or a container the function wrote (no check where it is an
    # operand; a parameter, plain here, is checked on entry); numeric: a number or an array,
    # whose items are numbers or arrays too. Optimistic first, then what a definition denies.
    plain = set(definitions) | params
    numeric = set(definitions) - params

    def kinds(op: Operation) -> tuple[bool, bool]:
        """(plain, numeric) of what ``op`` assigns, given what is known of its operands."""
        if op.kind in _CONTAINER_KINDS:
            return True, False
        first = op.args[0].name if op.args and isinstance(op.args[0], Var) else None
        if op.kind == "copy":
            return (first is None or first in plain), (first is None or first in numeric)
        if op.kind in ("element", "unpack"):
            return (first in numeric,) * 2  # an item of a number or an array; of anything else: anything
        if op.kind != "call" or op.callee is None or op.callee.kind != "static":
            return False, False
        value = op.callee.value
        if value is operator.getitem:
            return (first in numeric,) * 2
        if value in CHECKED_OPERATORS:  # its operands are checked: numbers and arrays (or joined lists)
            return True, all(atom.name in numeric for atom in op.args if isinstance(atom, Var))
        module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "") or ""
        made_by_numpy = module.split(".")[0] in ("numpy", "math") or isinstance(value, np.ufunc)
        return (made_by_numpy or value in _NUMERIC_BUILTINS,) * 2

    changed = True
    while changed:
        changed = False
        for name, ops in definitions.items():
            if name in params:
                continue
            is_plain, is_numeric = name in plain, name in numeric
            for op in ops:
                op_plain, op_numeric = kinds(op)
                is_plain, is_numeric = is_plain and op_plain, is_numeric and op_numeric
            if (is_plain, is_numeric) != (name in plain, name in numeric):
                changed = True
                if not is_plain:
                    plain.discard(name)
                if not is_numeric:
                    numeric.discard(name)

    def parameters_behind(name: str, seen: set) -> set[str]:
        if name in params:
            return {name}
        if name in seen or name in numeric:
            return set()
        seen.add(name)
        found = set()
        for op in definitions.get(name, ()):
            if op.kind == "copy" and isinstance(op.args[0], Var):
                found |= parameters_behind(op.args[0].name, seen)
        return found

    on_entry: set[str] = set()
    before: dict[int, tuple[str, ...]] = {}
    for op in operations:
        unchecked = []
        for name in _operands_to_check(op):
            if name in plain:
                on_entry |= parameters_behind(name, set())
            elif name not in unchecked:
                unchecked.append(name)
        if unchecked:
            before[id(op)] = tuple(unchecked)
    return OperandChecks(tuple(p for p in function.params if p in on_entry), before)


def _operands_to_check(op: Operation) -> list[str]:
    if op.kind == "mutate" and op.callee is not None and op.callee.name == "setitem":
        # `x[i] = v` is written as an element's change of a list, a dict or an array: an object whose
        # class defines its own `__setitem__` would do something else (write into a field, scale)
        return [atom.name for atom in op.args[:1] if isinstance(atom, Var)]
    if op.kind == "element":  # a for loop's element: the iterable is walked and indexed, as a list's would be
        return [atom.name for atom in op.args[:1] if isinstance(atom, Var)]
    if op.kind == "call" and op.callee is not None and op.callee.kind == "static" and op.callee.value in CHECKED_OPERATORS:
        return [atom.name for atom in op.args if isinstance(atom, Var)]
    return []


# NumPy's makers of the classes whose operators and functions mean something else (rules/helpers.py)
_NUMPY_OWN_MEANING_MAKERS = frozenset({np.asmatrix, np.bmat})
_NUMPY_OWN_MEANING_MODULES = ("numpy.ma", "numpy.char", "numpy.matrixlib")


def refuse_numpy_own_meanings(op: Operation, location) -> None:
    """Refuse a call making a masked array, an np.matrix, a poly1d or a chararray: what the function
    then computes with it is not what the rules differentiate, whatever reaches it."""
    if op.kind != "call" or op.callee is None or op.callee.kind != "static":
        return
    value = op.callee.value
    module = getattr(value, "__module__", None) or ""
    if value in _NUMPY_OWN_MEANING_MAKERS or module.startswith(_NUMPY_OWN_MEANING_MODULES) or \
            isinstance(value, type) and issubclass(value, NUMPY_OWN_MEANINGS):
        raise UnsupportedSyntaxError(
            f"`{op.callee.spelling}` makes a value whose operators and functions compute otherwise than NumPy's "
            "arrays' (a matrix product for `*`, masked entries passed over): s2sad differentiates np.ndarray "
            "arithmetic", location, hint="compute with plain arrays: np.asarray(value), and for a mask "
                                         "np.where(mask, 0.0, value) or np.isfinite(value)")


def joined_then_changed(function: Function) -> tuple[str, ...]:
    """The parameters joined with `+` or repeated with `*` (``ys = xs * 2``, ``xs + zs``) where an item
    of the result is taken out and changed in place (``a = ys[0]; a[0] = v``). Of arrays that item is
    new memory; of a list or tuple it is the very object the parameter holds, which the analyses,
    taking an argument's `+` for arithmetic, do not follow: such a parameter is checked on entry to
    be no list or tuple (``arguments_not_sequences``)."""
    operations = operations_of(function.statements)
    params = set(function.params)
    joined: dict[str, set] = {}
    for op in operations:
        if op.calls(operator.add, operator.mul):
            given = {atom.name for atom in op.args if isinstance(atom, Var) and atom.name in params}
            if given:
                joined[op.target] = given
    items: dict[str, set] = {}
    for op in operations:
        source = op.args[0].name if op.args and isinstance(op.args[0], Var) else None
        if source in joined and (op.kind == "element" or op.calls(operator.getitem)):
            items.setdefault(op.target, set()).update(joined[source])
    found: set = set()
    for op in operations:
        changed = None
        if op.kind == "mutate" and op.args and isinstance(op.args[0], Var):
            changed = op.args[0].name
        elif op.calls(*WRITTEN_INTO) and isinstance(op.args[1], Var):
            changed = op.args[1].name
        found |= items.get(changed, set())
    return tuple(p for p in function.params if p in found)
