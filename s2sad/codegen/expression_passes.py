"""The optimisation passes over a rule expression's tree (expressions.py substitutes, these rewrite).

A pass is called with the expression's tree and returns it rewritten, or None when it
rewrote nothing; ``applies`` tells from the functions the expression calls whether the pass
may have anything to do (expressions.Pass). The caller lists the passes it wants, in order:

* ``constant_exponent``: ``power_vjp_base(g, x, 3)`` as plain arithmetic;
* ``ReusePrimalValues(calls, namespace)``: a call the primal already made read from its variable;
* ``on_floats``: the helpers that are the identity on real scalars left out;
* ``on_types(types, ...)``: the same for the types one call's arguments give every variable
  (analysis/array_types.py): ``conj`` of real values, ``unbroadcast`` to an array of the
  operation's own shape, ``matmul_vjp_x1/x2`` of matrices and vectors as the product itself.

``add_at_arguments`` asks a question of a tree instead: whether the expression is the
cotangent of ``x[i]``, which an accumulation can add in place.
"""
from __future__ import annotations

import ast
from typing import Callable

import numpy as np

from .expressions import Code, callee_spelling


class CallPass:
    """Each call of one of ``callees`` that ``replacement`` gives a replacement for (None: leave
    the call alone) replaced, inner calls first."""

    def __init__(self, name: str, callees: frozenset[str], replacement: Callable[[ast.Call], ast.expr | None]):
        self.name, self.callees, self.replacement = name, callees, replacement

    def __repr__(self) -> str:
        return f"<pass {self.name}>"

    def applies(self, callees: frozenset[str]) -> bool:
        return not self.callees.isdisjoint(callees)

    def __call__(self, tree: ast.expr) -> ast.expr | None:
        return _calls_rewritten(tree, self.replacement)


def _power_with_constant_exponent(call: ast.Call) -> ast.expr | None:
    if not (_calls(call, "power_vjp_base") and len(call.args) == 3):
        return None
    g, base, exponent = call.args
    if not (isinstance(exponent, ast.Constant) and type(exponent.value) in (int, float) and exponent.value >= 1):
        return None
    c = exponent.value
    if c == 1:
        cotangent = g
    else:
        power = base if c == 2 else ast.BinOp(base, ast.Pow(), ast.Constant(c - 1))
        # a float constant: `2 * x` of a list (np.power(xs, 2)) would repeat it, where `2.0 * x` raises
        slope = ast.BinOp(ast.Constant(float(c)), ast.Mult(), power)
        cotangent = ast.BinOp(g, ast.Mult(), ast.Call(ast.Name("conj", ast.Load()), [slope], []))
    return ast.Call(ast.Name("unbroadcast", ast.Load()), [cotangent, base], [])


constant_exponent = CallPass("constant exponent", frozenset({"power_vjp_base"}), _power_with_constant_exponent)
"""``power_vjp_base(g, x, c)`` for a constant ``c >= 1`` written out as the rule's own
expression for that case, ``unbroadcast(g * conj(c * x ** (c - 1)), x)``: the slope is finite
everywhere, so the helper's guards (and a call) are not needed."""


def _identity_on_floats(call: ast.Call) -> ast.expr | None:
    if _calls(call, "unbroadcast") and len(call.args) == 2:
        return call.args[0]  # nothing was broadcast
    if _calls(call, "conj") and len(call.args) == 1:
        return call.args[0]  # nothing is complex
    return None


on_floats = CallPass("on floats", frozenset({"unbroadcast", "conj"}), _identity_on_floats)
"""The expression as it reads when every value is a real scalar (a Python float): the rule
helpers that are then the identity left out."""


def on_types(types: dict, target: str, g: str) -> CallPass:
    """The rule expression of the operation making ``target`` (whose cotangent is ``g``) as it
    reads when every variable has the type ``types`` gives it (analysis/array_types.py: float64
    arrays of known shapes, float64 scalars, Python numbers): all real, so ``conj`` is the
    identity; ``unbroadcast(v, x)`` is ``v`` where ``v``'s shape, read from the expression
    (``expression_shape``), is ``x``'s (``v`` is then a float64 array of that shape: nothing to
    sum, nothing to cast); a matrix product's cotangents are the products ``matmul_vjp_x1``/``x2``
    compute for those ranks, without their tests."""
    known = {**types, g: types.get(target)}  # a cotangent has its value's type

    def array_shape(node) -> tuple | None:
        kind = known.get(node.id) if isinstance(node, ast.Name) else None
        return kind[1] if kind is not None and kind[0] == "array" else None

    def replacement(call: ast.Call) -> ast.expr | None:
        if (_calls(call, "conj") or _calls_numpy(call, "conjugate")) and len(call.args) == 1:
            return call.args[0]
        if _calls(call, "unbroadcast") and len(call.args) == 2:
            like = array_shape(call.args[1])
            if like is not None and expression_shape(call.args[0], known) == like:
                return call.args[0]
            return None
        if (_calls(call, "matmul_vjp_x1") or _calls(call, "matmul_vjp_x2")) and len(call.args) == 3:
            cotangent, x1, x2 = call.args
            a, b = array_shape(x1), array_shape(x2)
            if a is None or b is None or len(a) != 2 or len(b) not in (1, 2) or a[1] != b[0] \
                    or expression_shape(cotangent, known) != a[:1] + b[1:]:
                return None  # not a matrix times a matrix or a vector, with g the product's shape: the helper
            if _calls(call, "matmul_vjp_x2"):  # x1^T @ g
                return ast.BinOp(ast.Attribute(x1, "T", ast.Load()), ast.MatMult(), cotangent)
            if len(b) == 2:  # g @ x2^T
                return ast.BinOp(cotangent, ast.MatMult(), ast.Attribute(x2, "T", ast.Load()))
            outer = ast.Attribute(ast.Attribute(ast.Name("np", ast.Load()), "multiply", ast.Load()), "outer", ast.Load())
            return ast.Call(outer, [cotangent, x2], [])  # matrix times vector: the outer product
        return None

    return CallPass("on types", frozenset({"conj", "np.conjugate", "unbroadcast", "matmul_vjp_x1", "matmul_vjp_x2"}),
                    replacement)


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def expression_shape(node: ast.expr, types: dict) -> tuple | None:
    """The shape of the float64 array an expression of typed variables makes, read from its
    tree: names' types, numbers, ``+ - * / **``, unary ``-``/``+`` and NumPy ufuncs that keep
    float64, broadcasting, a conditional expression whose branches agree. ``()`` for a scalar;
    None for anything else (another call, an attribute, an untyped name), where nothing is known."""
    from ..analysis.array_types import ARRAY, broadcast_shapes, keeps_float64

    if isinstance(node, ast.Name):
        kind = types.get(node.id)
        if kind is None or kind[0] == "range":
            return None
        return kind[1] if kind[0] == ARRAY else ()
    if isinstance(node, ast.Constant):
        return () if type(node.value) in (int, float) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return expression_shape(node.operand, types)
    if isinstance(node, ast.IfExp):  # (scalar_seed's `e if seed_is_one else dp * e`): either branch's, when the same
        shape = expression_shape(node.body, types)
        return shape if shape == expression_shape(node.orelse, types) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, _ELEMENTWISE):
        operands = [node.left, node.right]
    elif isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "np" \
            and keeps_float64(getattr(np, node.func.attr, None), len(node.args)):
        operands = node.args
    else:
        return None
    shapes = [expression_shape(operand, types) for operand in operands]
    if any(shape is None for shape in shapes):
        return None
    return broadcast_shapes(shapes)


class ReusePrimalValues:
    """Each call the primal already made (``calls``, from analysis/reuse.py: callee object's id
    and argument codes -> the variable holding its value) replaced by that variable;
    ``namespace``: what the names of the expression's callees refer to."""

    def __init__(self, calls: dict[tuple, str], namespace: dict):
        self.calls, self.namespace = calls, namespace
        self.functions = {function for function, _ in calls}

    def applies(self, callees: frozenset[str]) -> bool:
        return any(id(self.function(spelling)) in self.functions for spelling in callees)

    def __call__(self, tree: ast.expr) -> ast.expr | None:
        return _calls_rewritten(tree, self.variable_for)

    def variable_for(self, call: ast.Call) -> ast.Name | None:
        if call.keywords or not all(isinstance(a, (ast.Name, ast.Constant)) for a in call.args):
            return None
        spelling = callee_spelling(call.func)
        if spelling is None:
            return None
        target = self.calls.get((id(self.function(spelling)), tuple(ast.unparse(a) for a in call.args)))
        return ast.Name(target, ast.Load()) if target is not None else None

    def function(self, spelling: str):
        """What ``np.cos`` names in the namespace (None if nothing)."""
        owner, *attributes = spelling.split(".")
        value = self.namespace.get(owner)
        for attribute in attributes:
            value = getattr(value, attribute, None)
        return value


def add_at_arguments(expression: str) -> str | None:
    """``"g, i, x"`` when ``expression`` is ``untake(g, i, x)`` (the cotangent of ``x[i]``),
    which an accumulation can add in place: ``add_at(dx, g, i, x)``."""
    if not (isinstance(expression, Code) and expression.startswith("untake(")):
        return None  # not a call of untake (and its tree need not be built to know it)
    call = expression.tree
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "untake"
            and len(call.args) == 3 and not call.keywords):
        return None
    return ", ".join(ast.unparse(argument) for argument in call.args)


def _calls(call: ast.Call, name: str) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == name and not call.keywords


class _CallRewriter(ast.NodeTransformer):
    def __init__(self, rewrite: Callable[[ast.Call], ast.expr | None]):
        self.rewrite, self.changed = rewrite, False

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)  # inner calls first
        replacement = self.rewrite(node)
        if replacement is None:
            return node
        self.changed = True
        return replacement


def _calls_rewritten(tree: ast.expr, rewrite: Callable[[ast.Call], ast.expr | None]) -> ast.expr | None:
    """``tree`` (changed in place) with each call ``rewrite`` gives a replacement for replaced."""
    rewriter = _CallRewriter(rewrite)
    result = rewriter.visit(tree)
    return result if rewriter.changed else None


def _calls_numpy(call: ast.Call, name: str) -> bool:
    """``np.name(...)``."""
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name)
            and func.value.id == "np" and not call.keywords)
