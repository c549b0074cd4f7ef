"""A pass over a typed version (generate_typed): the numbers written in its arithmetic with
arrays made 0-d float64 arrays, module constants.

NumPy 2 computes ``2.0 * w`` for a float64 array ``w`` by first deciding how the Python
number promotes (NEP 50's weak scalars), which costs more than the multiplication itself on
a small array: on ten elements ``2.0 * w`` takes 0.85 us, ``c * w`` with ``c = np.array(2.0)``
0.5 us. The result is the same array: the number converted to float64 (exactly: a Python
float is one, and only ints float64 holds exactly are taken), the same float64 operation on
each element, float64 out, ``w``'s shape. So where the typed plan says the other operand is
a float64 array of at least one dimension (expression_shape), ``+ - * /`` take the constant.
Besides the plan's variables, a name the code assigns once has the shape of what it is
assigned where that is known: so the pullback's cotangents made from the seed (a real scalar:
typed_plan refuses any other result) and from the primal's arrays have theirs. A power keeps
its number (``t ** 2`` is NumPy's square, not its power), and arithmetic of numbers alone
keeps its Python types.
"""
from __future__ import annotations

import ast

import libcst as cst

from .expression_passes import expression_shape
from .nodes import bound_once

CONSTANTS_COMMENT = ("# The numbers the code below adds to, subtracts from, multiplies or divides float64 arrays by, as\n"
                     "# 0-d float64 arrays: the same arithmetic, without NumPy deciding each time how a Python number\n"
                     "# promotes (codegen/array_constants.py).\n")

_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
_EXACT_INTS = 2 ** 53  # every int of smaller magnitude is a float64


def constants_as_arrays(text: str, types: dict, fresh, seed: str | None = None) -> tuple[str, str]:
    """``text`` with those numbers replaced, and the lines defining the constants (or "");
    ``seed``: the pullback's parameter, a real scalar."""
    module = cst.parse_module(text)
    once = bound_once(module)
    known = {**types, **({seed: ("f64",)} if seed in once else {})}
    rewriter = _Numbers(known, fresh, once - set(types))
    module = module.visit(rewriter)
    if not rewriter.names:
        return text, ""
    lines = "".join(f"{name} = np.array({value!r})\n" for value, name in rewriter.names.items())
    return module.code, CONSTANTS_COMMENT + lines


def _number(node: cst.BaseExpression) -> float | None:
    """The value of a literal int or float, as the float64 it converts to, or None."""
    if isinstance(node, (cst.Integer, cst.Float)):
        value = node.evaluated_value
        if isinstance(value, int) and abs(value) >= _EXACT_INTS:
            return None
        return float(value)
    return None


class _Numbers(cst.CSTTransformer):
    def __init__(self, types: dict, fresh, bound_once: set[str] = frozenset()):
        self.types, self.fresh = dict(types), fresh
        self.bound_once = bound_once       # names whose one assignment gives them a type (leave_Assign)
        self.names: dict[float, str] = {}  # value -> constant name

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        target = original.targets[0].target if len(original.targets) == 1 else None
        if isinstance(target, cst.Name) and target.value in self.bound_once:
            shape = self._shape(original.value)
            if shape is not None:
                self.types[target.value] = ("array", shape) if shape else ("f64",)
        return updated

    def _shape(self, node: cst.BaseExpression) -> tuple | None:
        try:
            tree = ast.parse(cst.Module(body=[]).code_for_node(node).strip(), mode="eval").body
        except SyntaxError:
            return None
        return expression_shape(tree, self.types)

    def _array_shaped(self, node: cst.BaseExpression) -> bool:
        return bool(self._shape(node))  # None: not known; (): a scalar

    def _constant(self, value: float) -> cst.Name:
        name = self.names.get(value)
        if name is None:
            spelled = repr(value).replace(".", "_").replace("-", "minus_").replace("+", "")
            name = self.names[value] = self.fresh(f"f64_{spelled}")
        return cst.Name(name)

    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BaseExpression) -> cst.BaseExpression:
        if not isinstance(original.operator, _OPERATORS):
            return updated
        left, right = _number(original.left), _number(original.right)
        if left is not None and right is None and self._array_shaped(original.right):
            return updated.with_changes(left=self._constant(left).with_changes(lpar=updated.left.lpar,
                                                                               rpar=updated.left.rpar))
        if right is not None and left is None and self._array_shaped(original.left):
            return updated.with_changes(right=self._constant(right).with_changes(lpar=updated.right.lpar,
                                                                                 rpar=updated.right.rpar))
        return updated
