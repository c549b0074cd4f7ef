"""A pass over the gradient for floats (generate's fused function): products with the seed
1.0 left out.

That function seeds its pullback with ``dresult = 1.0``, and the cotangents that are copies
of the seed (``dadd = dresult``, the two operands of a sum) reach products such as
``dneg = dexp * exp_neg``. Multiplying a float by 1.0 gives that float, the same value bit
for bit (NaN, infinities and -0.0 included), and so does a complex number; an int would
become a float, so a product is left out only where the other operand is known to be a
float: a differentiated parameter (the function's entry test says each is a Python float),
a float literal, a ``math`` function's value, a number computed from one of those, or a name
assigned once from such; ``-one * x`` is ``-x``, as exact. On the scalar workload that is
five products of about twenty operations.
"""
from __future__ import annotations

import libcst as cst

from .nodes import bound_once

# math functions whose value is a float for any arguments (not floor, ceil, trunc, isqrt, gcd, ...: ints)
FLOAT_VALUED_MATH = frozenset({
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "pow", "hypot", "fabs", "erf", "erfc",
    "gamma", "lgamma", "copysign", "fmod", "remainder", "radians", "degrees", "ldexp",
})

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)


def unit_seed(text: str, seed: str, floats: list[str], numbers: list[str]) -> str:
    """``text``, the fused function, with ``one * x`` and ``x * one`` written ``x`` where ``one``
    holds the seed 1.0 and ``x`` is known to be a float. ``floats``: parameters the entry test
    requires to be Python floats; ``numbers``: to be ints or floats."""
    module = cst.parse_module(text)
    once = bound_once(module)
    if seed not in once:
        return text
    rewriter = _UnitProducts(seed, once, {p for p in floats if p in once}, {p for p in numbers if p in once})
    return module.visit(rewriter).code


class _UnitProducts(cst.CSTTransformer):
    def __init__(self, seed: str, once: set[str], floats: set[str], numbers: set[str]):
        self.seed, self.once = seed, once
        self.ones: set[str] = set()         # names holding the seed's 1.0
        self.floats = set(floats)           # names holding a float (or a complex number)
        self.numbers = set(numbers)         # names holding an int or a float

    # what an expression holds, from the names assigned so far (in the text's order)
    def is_float(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Float):
            return True
        if isinstance(node, cst.Name):
            return node.value in self.floats or node.value in self.ones
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self.is_float(node.expression)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
            # a float with a number is a float (or complex, for a power of a negative float): never an int
            return self.is_number(node.left) and self.is_number(node.right) and \
                (self.is_float(node.left) or self.is_float(node.right))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) \
                and node.func.value.value == "math" and node.func.attr.value in FLOAT_VALUED_MATH:
            return True
        return False

    def is_number(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Integer) or self.is_float(node):
            return True
        return isinstance(node, cst.Name) and node.value in self.numbers

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        target = original.targets[0].target if len(original.targets) == 1 else None
        if not (isinstance(target, cst.Name) and target.value in self.once):
            return updated
        value = original.value
        if target.value == self.seed:
            if isinstance(value, cst.Float) and value.evaluated_value == 1.0:
                self.ones.add(target.value)
        elif isinstance(value, cst.Name) and value.value in self.ones:
            self.ones.add(target.value)  # a copy of the seed
        elif self.is_float(value):
            self.floats.add(target.value)
        elif self.is_number(value):
            self.numbers.add(target.value)
        return updated

    def leave_BinaryOperation(self, original: cst.BinaryOperation, updated: cst.BaseExpression) -> cst.BaseExpression:
        if not isinstance(original.operator, cst.Multiply):
            return updated
        for one, other, kept in ((original.left, original.right, updated.right),
                                 (original.right, original.left, updated.left)):
            if not self.is_float(other):
                continue
            if self.is_one(one):
                left = kept
            elif isinstance(one, cst.UnaryOperation) and isinstance(one.operator, cst.Minus) and not one.lpar \
                    and self.is_one(one.expression):  # -1.0 * x is -x: negation is exact too
                if isinstance(kept, (cst.BinaryOperation, cst.UnaryOperation)) and not kept.lpar:
                    kept = kept.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
                left = cst.UnaryOperation(operator=cst.Minus(), expression=kept)
            else:
                continue
            if updated.lpar:  # the product's own parentheses stay around what is left of it
                return left.with_changes(lpar=[*updated.lpar, *left.lpar], rpar=[*left.rpar, *updated.rpar])
            return left
        return updated

    def is_one(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value in self.ones and not node.lpar
