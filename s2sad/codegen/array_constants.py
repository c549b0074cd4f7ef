"""A pass over a typed version (generate_typed): the numbers written in its arithmetic with
arrays made 0-d float64 arrays, module constants.

NumPy 2 computes ``2.0 * w`` for a float64 array ``w`` by first deciding how the Python
number promotes (NEP 50's weak scalars), which costs more than the multiplication itself on
a small array: on ten elements ``2.0 * w`` takes 0.85 us, ``c * w`` with ``c = np.array(2.0)``
0.5 us. The result is the same array: the number converted to float64 (exactly: a Python
float is one, and only ints float64 holds exactly are taken), the same float64 operation on
each element, float64 out, ``w``'s shape. So where the typed plan says the other operand is
a float64 array of at least one dimension (expression_shape: nothing is known of cotangents
here, so only primal values count), ``+ - * /`` take the constant. A power keeps its number
(``t ** 2`` is NumPy's square, not its power), and arithmetic of numbers alone keeps its
Python types.
"""
from __future__ import annotations

import ast

import libcst as cst

from .expression_passes import expression_shape

CONSTANTS_COMMENT = ("# The numbers the code below adds to, subtracts from, multiplies or divides float64 arrays by, as\n"
                     "# 0-d float64 arrays: the same arithmetic, without NumPy deciding each time how a Python number\n"
                     "# promotes (codegen/array_constants.py).\n")

_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
_EXACT_INTS = 2 ** 53  # every int of smaller magnitude is a float64


def constants_as_arrays(text: str, types: dict, fresh) -> tuple[str, str]:
    """``text`` with those numbers replaced, and the lines defining the constants (or "")."""
    module = cst.parse_module(text)
    rewriter = _Numbers(types, fresh)
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
    def __init__(self, types: dict, fresh):
        self.types, self.fresh = types, fresh
        self.names: dict[float, str] = {}  # value -> constant name

    def _array_shaped(self, node: cst.BaseExpression) -> bool:
        try:
            tree = ast.parse(cst.Module(body=[]).code_for_node(node).strip(), mode="eval").body
        except SyntaxError:
            return False
        shape = expression_shape(tree, self.types)
        return bool(shape)  # None: not known; (): a scalar

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
