"""``v ** 2`` as ``(v * v)`` in compiled array code, where ``v`` is known to hold floats.

Numba compiles an array's ``v ** 2`` (in an array expression, ``1 - h ** 2`` of tanh's slope)
with its integer-power subroutine, a loop of its own: about 0.05 s of a cold first call for
each (benchmarks/cold_call.py). A product is one multiplication, and for floats the same bits:
NumPy's ``a ** 2`` of a float64 or float32 array is its ``square``, ``a * a`` (checked on a
million values of every magnitude, ties and subnormal squares among them), and Numba's float
``x ** 2`` is a product too (LLVM makes ``pow(x, 2.0)`` one), so a float's compiled value does
not change either. (It was, and is, not always Python's or a NumPy scalar's: those call libm's
``pow``, which at some ties rounds the other way: benchmarks/results.md, session 21.)

For other dtypes it is not the same: a bool array's ``b ** 2`` is an int8 array, ``b * b`` a
bool array (whose ``+`` is a logical or). So ``v`` must be bound to floats wherever it is
bound: by a call of one of NumPy's float functions whose large arrays compiled code hands to
NumPy (``numpy_tanh`` and the like: real in, floats out), or by unpacking a tape whose every
appended tuple holds ``v`` itself at that place (a loop's forward values, read back in its
reverse).
"""
from __future__ import annotations

import libcst as cst

from .nodes import binding_counts, called_name


def squares_multiplied(module: cst.Module, float_functions: frozenset) -> cst.Module:
    """``module`` with each ``v ** 2`` of a name ``v`` bound only to what ``float_functions``
    return (see above) written ``(v * v)``."""
    bindings = _FloatBindings(float_functions)
    module.visit(bindings)
    counts = binding_counts(module)
    if float_functions & counts.keys():
        return module  # a function of its own named so
    floats = {name for name, count in bindings.count.items()
              if count == counts.get(name) and name not in bindings.unsure
              and all(bindings.only_appended(tape) and counts.get(tape) == 1
                      and all(_holds(appended, position, name) for appended in bindings.appended[tape])
                      for tape, position in bindings.unpacked.get(name, ()))}
    return module.visit(_Squares(floats)) if floats else module


def _holds(appended, position: int, name: str) -> bool:
    """Whether a tuple appended to a tape holds ``name`` at ``position``."""
    return isinstance(appended, cst.Tuple) and position < len(appended.elements) \
        and isinstance(appended.elements[position].value, cst.Name) \
        and appended.elements[position].value.value == name \
        and not any(isinstance(e, cst.StarredElement) for e in appended.elements)


class _FloatBindings(cst.CSTVisitor):
    """For each name, how many of its bindings give floats; the tapes it is unpacked from, and
    where; what each tape is appended."""

    def __init__(self, float_functions: frozenset):
        self.float_functions = float_functions
        self.count: dict[str, int] = {}
        self.unsure: set[str] = set()
        self.unpacked: dict[str, list] = {}   # name -> [(tape, position in the tuple)]
        self.appended: dict[str, list] = {}   # tape -> the values appended to it
        self.occurrences: dict[str, int] = {}  # name -> how many times it is written
        self.tape_uses: dict[str, int] = {}    # name -> how many of those are a tape's: `t = []`,
        #                                        `t.append(...)`, `... = t[i]`, `len(t)`

    def only_appended(self, tape: str) -> bool:
        """Whether ``tape`` is made empty and then only appended to, read by index and measured."""
        return tape in self.appended and self.tape_uses.get(tape, 0) == self.occurrences.get(tape)

    def _tape_use(self, name: str) -> None:
        self.tape_uses[name] = self.tape_uses.get(name, 0) + 1

    def visit_Name(self, node: cst.Name) -> None:
        self.occurrences[node.value] = self.occurrences.get(node.value, 0) + 1

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and isinstance(node.value, cst.List) and not node.value.elements:
            self._tape_use(node.targets[0].target.value)
        for target in node.targets:
            name = target.target
            if isinstance(name, cst.Name) and isinstance(node.value, cst.Call) \
                    and called_name(node.value) in self.float_functions:
                self.count[name.value] = self.count.get(name.value, 0) + 1
            elif isinstance(name, cst.Tuple) and isinstance(node.value, cst.Subscript) \
                    and isinstance(node.value.value, cst.Name) and len(node.targets) == 1:
                for position, element in enumerate(name.elements):
                    if isinstance(element, cst.Element) and isinstance(element.value, cst.Name):
                        self.count[element.value.value] = self.count.get(element.value.value, 0) + 1
                        self.unpacked.setdefault(element.value.value, []).append((node.value.value.value, position))
                    elif isinstance(element, cst.StarredElement):
                        self.unsure.update(e.value.value for e in name.elements if isinstance(e.value, cst.Name))
                self._tape_use(node.value.value.value)

    def visit_Call(self, node: cst.Call) -> None:
        function = node.func
        if isinstance(function, cst.Attribute) and function.attr.value == "append" \
                and isinstance(function.value, cst.Name) and len(node.args) == 1:
            self.appended.setdefault(function.value.value, []).append(node.args[0].value)
            self._tape_use(function.value.value)
        elif isinstance(function, cst.Name) and function.value == "len" and len(node.args) == 1 \
                and isinstance(node.args[0].value, cst.Name):
            self._tape_use(node.args[0].value.value)


class _Squares(cst.CSTTransformer):
    def __init__(self, floats: set):
        self.floats = floats

    def leave_BinaryOperation(self, original, updated: cst.BinaryOperation) -> cst.BaseExpression:
        if isinstance(updated.operator, cst.Power) and isinstance(updated.left, cst.Name) \
                and updated.left.value in self.floats and not updated.left.lpar \
                and isinstance(updated.right, cst.Integer) and updated.right.value == "2":
            return cst.BinaryOperation(updated.left, cst.Multiply(), updated.left,
                                       lpar=updated.lpar or [cst.LeftParen()], rpar=updated.rpar or [cst.RightParen()])
        return updated
