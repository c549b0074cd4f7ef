"""Python's ``max(a, b)`` and ``min(a, b)`` in compiled code, computed as Python computes them.

CPython's ``max(a, b)`` is ``a`` unless ``b > a`` (``min``: unless ``b < a``): of two equal values
(``0.0`` and ``-0.0`` among them) it returns the first, and so it does of a NaN given first. The
rule (rules/builtins.py) sends the cotangent to the value returned, the other getting none, and
where the two are equal, half to each. The compiled code writes that out; what the pullback
closure kept becomes the index of the value returned (2: both), an int the loops' tapes keep like
any value:

    y, y_pullback = max_rrule(a, b)   ->  y, y_pullback = (b, 1) if b > a else (a, 2) if b == a else (a, 0)
    _, da, db = y_pullback(g)         ->  _, da, db = (0.0, g if y_pullback == 0 else 0.5 * g if y_pullback == 2 else 0.0,
                                                            g if y_pullback == 1 else 0.5 * g if y_pullback == 2 else 0.0)

In the version for arrays, whose values may be arrays too, the test is ``greater(b, a)`` (or
``less``), overloads of compiled_helpers for real numbers alone (Python's ``max`` of two arrays
compares them whole, or raises: the NumPy path says which), and the other cotangent is
``zero_like(g)``.

What compiled code cannot give as Python does is not compiled (``NotCompiledError`` names it):
an int literal among the operands (``max(x, 0)`` returns the int 0 where Python picks it, which
compiled code, one type per variable, would make a float), and ``max`` of other than two values
or with ``key=``/``default=``.
"""
from __future__ import annotations

import builtins

import libcst as cst

from ..errors import NotCompiledError, SourceLocation
from ..frontend.ir import Function, operations_of
from .core import callee_reference
from .nodes import called_name

_CODE = cst.Module([])
# the builtin, and the comparison by which its second value wins
_COMPARISONS = {builtins.max: ">", builtins.min: "<"}
# the version for arrays: the comparisons as overloads of compiled_helpers (real numbers alone)
ARRAY_COMPARISONS = {">": "greater", "<": "less"}


def extremes_bound(function: Function, bindings: dict) -> dict:
    """The module-level names of the rrules of the builtins ``max`` and ``min`` the generated code
    calls -> (the comparison by which a second value wins, ``>`` for max; the builtin's spelling)."""
    found = {}
    for operation in operations_of(function.statements):
        callee = operation.callee
        comparison = _COMPARISONS.get(callee.value) if callee is not None and callee.kind == "static" \
            and callee.operator_code is None and _hashable(callee.value) else None
        if comparison is None:
            continue
        for name, recipe in bindings.items():
            if recipe == ("rrule", callee_reference(operation)):
                found[name] = (comparison, callee.spelling)
    return found


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def extremes_written_out(module: cst.Module, extremes: dict, bindings: dict, arrays: bool,
                         location: SourceLocation | None) -> cst.Module:
    """``module`` with the calls of ``extremes`` (extremes_bound) and of their pullbacks written
    out (see above); their bindings, and the builtins' own where only they read them, taken from
    ``bindings``."""
    if not extremes:
        return module
    pullbacks = _Pullbacks(extremes, location)
    module.visit(pullbacks)
    module = module.visit(_WrittenOut(extremes, pullbacks.found, arrays))
    for name, (_, spelling) in extremes.items():
        bindings.pop(name, None)
        if bindings.get(spelling) == ("global", spelling):
            del bindings[spelling]  # (read anywhere else, the check of what the code reads names it)
    return module


class _Pullbacks(cst.CSTVisitor):
    """``y, y_pullback = max_rrule(a, b)``: ``y_pullback``; a call of another shape refused."""

    def __init__(self, extremes: dict, location):
        super().__init__()
        self.extremes = extremes
        self.location = location
        self.found: set = set()

    def visit_Call(self, node: cst.Call) -> None:
        if called_name(node) not in self.extremes:
            return
        if len(node.args) != 2 or any(a.keyword or a.star for a in node.args):
            raise NotCompiledError(f"it calls `{_CODE.code_for_node(node)}`: compiled code computes Python's max and "
                                   "min of two values given by position only", self.location)
        for argument in node.args:
            if _int_literal(argument.value):
                raise NotCompiledError(
                    f"it calls `{_CODE.code_for_node(node)}`, which returns the int {_CODE.code_for_node(argument.value)} "
                    "where Python picks it: compiled code would make it a float (write it as a float literal, "
                    "`0.0`, to compile)", self.location)

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(node.value, cst.Call) and called_name(node.value) in self.extremes \
                and isinstance(target, cst.Tuple) and len(target.elements) == 2 \
                and isinstance(target.elements[1].value, cst.Name):
            self.found.add(target.elements[1].value.value)


def _int_literal(value) -> bool:
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        value = value.expression
    return isinstance(value, cst.Integer)


class _WrittenOut(cst.CSTTransformer):
    def __init__(self, extremes: dict, pullbacks: set, arrays: bool):
        super().__init__()
        self.extremes = extremes
        self.pullbacks = pullbacks
        self.arrays = arrays

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        name = called_name(updated)
        if name in self.extremes:
            a, b = (_CODE.code_for_node(argument.value) for argument in updated.args)
            comparison = self.extremes[name][0]
            test = f"{ARRAY_COMPARISONS[comparison]}({b}, {a})" if self.arrays else f"{b} {comparison} {a}"
            return cst.parse_expression(f"(({b}, 1) if {test} else ({a}, 2) if {b} == {a} else ({a}, 0))")
        if name in self.pullbacks and len(updated.args) == 1 and not (updated.args[0].keyword or updated.args[0].star):
            g = _CODE.code_for_node(updated.args[0].value)
            zero = f"zero_like({g})" if self.arrays else "0.0"
            return cst.parse_expression(f"(0.0, {g} if {name} == 0 else 0.5 * {g} if {name} == 2 else {zero}, "
                                        f"{g} if {name} == 1 else 0.5 * {g} if {name} == 2 else {zero})")
        return updated
