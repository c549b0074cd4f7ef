"""Which functions compute on real scalars only, so their gradient code can skip reshaping.

``math.sin(x) * y + x ** 2 / y`` called with Python floats has a Python float (or a NumPy
float scalar) in every variable. Its cotangents then need no ``unbroadcast`` (nothing was
broadcast) and no ``conj`` (nothing is complex), and adding two of them is ``+``: the
generator writes a second, plain-arithmetic version of the rrule for that case
(``generate.py``), and the general rrule calls it when the parameters' types say so.

This module decides whether that version exists and which parameters its entry tests.
Seed 002's ``mysum`` (``total = total + x[i]`` over ``range(len(x))``) is such a function:
its float version saves only ``i`` per iteration and adds ``g`` at ``x[i]`` in place.
A value is a real scalar when its operation maps real scalars to a real scalar (arithmetic,
``math`` functions, NumPy ufuncs, ``abs``/``min``/``max``/``float``/``int``, the counter of a
``range`` loop, an element of a 1-d float array parameter: ``x[i]``, ``for v in x``) and its
operands are real scalars; a parameter is one when the entry test says so
(``x.__class__ is float``; ``x.ndim == 1`` and a float dtype for an array read by elements). Anything else (an array, a list, a call of another user
function, a global) is unknown, and an unknown value feeding the gradient means no
specialisation: the general code runs, so a wrong guess costs speed, never correctness.
"""
from __future__ import annotations

import ast
import builtins
import math
import operator
from dataclasses import dataclass

import numpy as np

from .activity import Activity
from ..frontend.ir import Function, Operation, Var, operations_of
from ..rules.helpers import written_into, written_into_argument, written_into_shared

_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
               operator.pow, operator.neg, operator.pos, operator.abs,
               operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.not_}
_BUILTINS = {builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int, builtins.round}
# `y op= v` (normalize_statements.py): on floats, `y op v`; the names the checked spellings are given (`'omega'`)
# are no numbers, so only the first two operands are
# the writes of `y += v`, `y[i] = v` on arrays: their second argument is the array changed in place
WRITTEN_INTO = (written_into, written_into_shared, written_into_argument)


def numeric_operands(operation: Operation) -> list:
    """The operands an operation computes with: all, but for ``written_into_argument(new, old,
    'name')`` and ``written_into_shared(new, old, 'name', 'other')``, whose names only say what
    a refusal names."""
    if operation.callee is not None and operation.callee.kind == "static" \
            and operation.callee.value in (written_into_shared, written_into_argument):
        return operation.args[:2]
    return operation.args


def _maps_scalars_to_a_scalar(operation: Operation) -> bool:
    callee = operation.callee
    if operation.kind != "call" or callee is None or callee.kind != "static" or operation.kwargs:
        return False
    value = callee.value
    try:
        if value in _ARITHMETIC or value in _BUILTINS or value in WRITTEN_INTO:  # `total += x` on floats: total + x
            return True
    except TypeError:  # an unhashable callee
        return False
    return (isinstance(value, np.ufunc) and value.nout == 1) or math_function(value)


def math_function(value) -> bool:
    """A function of the ``math`` module."""
    name = getattr(value, "__name__", None)
    return getattr(value, "__module__", None) == "math" or (name is not None and getattr(math, name, None) is value)


# the floats of math (and NumPy's): `2.0 * math.pi` is a real scalar like `2.0 * 3.14`
MATH_CONSTANTS = frozenset({"math.pi", "math.e", "math.tau", "np.pi", "np.e"})


def real_number(code: str) -> bool:
    """Whether ``code`` is an int or float written as a literal (``2``, ``-0.5``; not a bool)."""
    try:
        value = ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError):
        return False
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class FloatPlan:
    """How the plain-scalar rrule is entered and what it may assume."""

    floats: list[str]          # parameters that must be Python floats (the differentiated ones)
    numbers: list[str]         # parameters that must be Python ints or floats
    vectors: list[str]         # parameters that must be 1-d float arrays (read element by element)
    scalars: set[str]          # the variables holding real scalars: their cotangents add with `+`

    def entry_test(self, listed=()) -> str:
        """The test of the arguments: an int may stand for a float where only a number is needed
        (compiled code too: s2sad.compiled keeps Numba's 64-bit ints from products and from ints past 2**31);
        a vector among ``listed`` may be a list of Python floats or float64 scalars too (compiled code reads it
        as the float64 array of them, the same numbers, element by element)."""
        tests = [f"{p}.__class__ is float" for p in self.floats]
        tests += [f"({p}.__class__ is float or {p}.__class__ is int)" for p in self.numbers]
        tests += [f"({p}.__class__ is np.ndarray and {p}.ndim == 1 and {p}.dtype.kind == 'f'"
                  + (f" or {p}.__class__ is list and all(v.__class__ is float or v.__class__ is np.float64 for v in {p})" if p in listed else "") + ")"
                  for p in self.vectors]
        return " and ".join(tests)


def float_plan(function: Function, activity: Activity) -> FloatPlan | None:
    """The plain-scalar rrule's plan, or None when some value the gradient flows through may
    not be a real scalar (or an element of a 1-d float array parameter)."""
    operations = operations_of(function.statements)
    producers: dict[str, list[Operation]] = {}
    for operation in operations:
        producers.setdefault(operation.target, []).append(operation)
    ranges = {op.target for op in operations if op.calls(range)}
    params = set(function.params)

    # A parameter read only as x[i], len(x) or `for v in x` may be a 1-d float array: its
    # elements are NumPy float scalars, which compute like floats.
    vectors = {p for p in params if _read_only_elementwise(p, operations)}

    # Greatest fixpoint: assume every variable is a scalar, drop those an operation may
    # make something else, until nothing changes (a loop's carried values need the repeat).
    scalar = set(producers) | (params - vectors)

    def operand_is_scalar(atom) -> bool:
        return atom.name in scalar if isinstance(atom, Var) else real_number(atom.code) or atom.code in MATH_CONSTANTS

    def produces_a_scalar(operation: Operation) -> bool:
        if operation.kind == "copy":
            return operand_is_scalar(operation.args[0])
        if operation.kind == "element":
            iterable = operation.args[0]
            return isinstance(iterable, Var) and (iterable.name in ranges or iterable.name in vectors)
        if _reads_an_element(operation, vectors) or _length_of(operation, vectors):
            return all(operand_is_scalar(a) for a in operation.args[1:])
        return _maps_scalars_to_a_scalar(operation) and all(operand_is_scalar(a) for a in numeric_operands(operation))

    changed = True
    while changed:
        changed = False
        for name, made_by in producers.items():
            if name in scalar and name not in params and not all(produces_a_scalar(op) for op in made_by):
                scalar.discard(name)
                changed = True

    active = [op for op in operations if op.target in activity.active]
    if any(op.kind == "mutate" for op in operations) or not active:
        return None
    needed: set[str] = set()
    for operation in active:
        if operation.target not in scalar or not produces_a_scalar(operation):
            return None
        needed.update(operation.uses())
    # The parameters those operands come from, through the operations that made them.
    pending = list(needed)
    while pending:
        name = pending.pop()
        for operation in producers.get(name, ()):
            if operation.kind == "element" and operation.args[0].name in ranges:
                continue  # a counter is an int whatever the range was made of
            for used in operation.uses():
                if used not in needed:
                    needed.add(used)
                    pending.append(used)
    ordered = [p for p in function.params if p in needed]
    plan = FloatPlan(floats=[p for p in ordered if p not in vectors and p in activity.varied],
                     numbers=[p for p in ordered if p not in vectors and p not in activity.varied],
                     vectors=[p for p in ordered if p in vectors], scalars=scalar)
    return plan if plan.floats or plan.vectors else None


def _reads_an_element(operation: Operation, vectors: set[str]) -> bool:
    """``x[i]`` on a vector parameter."""
    return (operation.calls(operator.getitem) and not operation.kwargs and len(operation.args) == 2
            and isinstance(operation.args[0], Var) and operation.args[0].name in vectors)


def _length_of(operation: Operation, vectors: set[str]) -> bool:
    return (operation.calls(len) and len(operation.args) == 1 and not operation.kwargs
            and isinstance(operation.args[0], Var) and operation.args[0].name in vectors)


def _read_only_elementwise(param: str, operations: list[Operation]) -> bool:
    uses = [op for op in operations if param in op.uses()]
    return bool(uses) and all(
        _reads_an_element(op, {param}) and param not in [a.name for a in op.args[1:] if isinstance(a, Var)]
        or _length_of(op, {param})
        or (op.kind == "element" and len(op.args) == 1)
        for op in uses)
