"""A pass over the gradient for floats (generate's fused function): copies and unread names left out.

The reverse pass names every cotangent, so the fused function is full of statements that only
pass a value on: the seed ``dresult = 1.0``, then ``dadd = dresult`` for both operands of a sum,
``dsin = dadd``, ... and, once unit_seed.py has left the products with the seed out, names
assigned that nothing reads (``dexp = dresult``). Each is a store and a load on every warm
scalar call, about a fifth of the scalar workload's statements.

Here, in the function's own block (not in a branch: it runs once, before anything after it):

- a name assigned once a literal number (``dresult = 1.0``) is read as that literal;
- a name assigned once another name that is itself bound once (``dadd = dresult``: the
  function's parameter, or a name assigned once before) is read as that name: both hold the
  same object wherever the copy is read;

and, anywhere, an assignment of a name or a literal to a name nothing reads is left out (reading
a bound name does nothing else). The values are the same objects as before, so every number is
the same bit for bit. The line comments of a statement left out go to the next one.
"""
from __future__ import annotations

import libcst as cst

from .nodes import bound_once

# nodes that bind names in a scope of their own, or otherwise: where they occur the pass leaves the function be
_NOT_HANDLED = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                cst.Global, cst.Nonlocal, cst.Del, cst.NamedExpr, cst.Try, cst.With, cst.For, cst.While, cst.Match)


def copies_left_out(text: str) -> str:
    """``text``, a module holding one function, with its copies and unread names left out."""
    module = cst.parse_module(text)
    function = next((statement for statement in module.body if isinstance(statement, cst.FunctionDef)), None)
    if function is None or _has(function.body, _NOT_HANDLED):
        return text
    once = bound_once(function)
    parameters = {param.name.value for param in function.params.params}
    replaced: dict[str, cst.BaseExpression] = {}  # name -> what it is read as
    bound = set(parameters)                      # names bound once so far, in the block's order
    kept = []
    for statement in function.body.body:
        assigned = _simple_assignment(statement)
        if assigned is not None and assigned[0] in once and assigned[0] not in parameters:
            name, value = assigned
            if isinstance(value, (cst.Integer, cst.Float)):
                replaced[name] = value
                bound.add(name)
                kept.append(_Left(statement))
                continue
            if isinstance(value, cst.Name) and value.value in once and value.value in bound:
                replaced[name] = replaced.get(value.value, value)
                bound.add(name)
                kept.append(_Left(statement))
                continue
        if assigned is not None:
            bound.add(assigned[0])
        kept.append(statement)
    body = _moved_comments(kept)
    function = function.with_changes(body=function.body.with_changes(body=body)).visit(_ReadAs(replaced))
    function = function.visit(_UnreadLeftOut(_read_names(function)))
    return module.with_changes(body=[function if isinstance(s, cst.FunctionDef) and s.name.value == function.name.value
                                     else s for s in module.body]).code


class _Left:
    """A statement left out: its leading lines (comments) go to the next statement kept."""

    def __init__(self, statement):
        self.leading_lines = statement.leading_lines


def _moved_comments(statements: list) -> list:
    result, carried = [], []
    for statement in statements:
        if isinstance(statement, _Left):
            carried.extend(line for line in statement.leading_lines if line.comment is not None)
            continue
        if carried:
            # (a comment repeated, the source line of two statements in a row, is said once)
            lines = [line for line in carried if all(line.comment.value != other.comment.value
                                                     for other in statement.leading_lines if other.comment)]
            lines = [line for i, line in enumerate(lines) if line.comment.value not in
                     [other.comment.value for other in lines[:i]]]
            statement = statement.with_changes(leading_lines=[*lines, *statement.leading_lines])
            carried = []
        result.append(statement)
    return result


def _simple_assignment(statement):
    """``(name, value)`` for a statement ``name = value`` (one target, a plain name), else None."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
        return None
    return assign.targets[0].target.value, assign.value


def _has(node: cst.CSTNode, kinds) -> bool:
    found = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, inner):
            if isinstance(inner, kinds):
                found.append(inner)
            return not found

    node.visit(Finder())
    return bool(found)


def _read_names(function: cst.FunctionDef) -> set[str]:
    """The names ``function`` reads (a name's every occurrence but as an assignment's target,
    an attribute's name or a keyword)."""
    read = set()

    class Reads(cst.CSTVisitor):
        def visit_AssignTarget(self, node):
            if isinstance(node.target, cst.Name):
                node.value.visit(self)  # (only the value of a plain assignment: targets are not reads)
                return False
            return True

        def visit_Assign(self, node):
            for target in node.targets:
                if not isinstance(target.target, cst.Name):
                    target.target.visit(self)
            node.value.visit(self)
            return False

        def visit_Attribute(self, node):
            node.value.visit(self)
            return False

        def visit_Arg(self, node):
            node.value.visit(self)
            return False

        def visit_Name(self, node):
            read.add(node.value)

    function.body.visit(Reads())
    return read


class _ReadAs(cst.CSTTransformer):
    """Each read of a name in ``replaced`` made a read of what it stands for."""

    def __init__(self, replaced: dict):
        self.replaced = replaced

    def leave_Attribute(self, original, updated):
        value = updated.value
        if isinstance(value, cst.Integer) and not value.lpar:  # (`1.real` would read as a float literal)
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return updated.with_changes(value=value, attr=original.attr)  # an attribute's name is no variable

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def leave_Param(self, original, updated):
        return original

    def leave_Name(self, original, updated):
        value = self.replaced.get(original.value)
        return updated if value is None else value.with_changes(lpar=original.lpar, rpar=original.rpar)


class _UnreadLeftOut(cst.CSTTransformer):
    """Each ``name = <name or literal>`` whose name nothing reads left out, unless its block would be empty."""

    def __init__(self, read: set[str]):
        self.read = read

    def leave_IndentedBlock(self, original, updated):
        unread = [self._unread(statement) for statement in updated.body]
        if all(unread) or not any(unread):
            return updated
        return updated.with_changes(body=_moved_comments(
            [_Left(statement) if left else statement for statement, left in zip(updated.body, unread)]))

    def _unread(self, statement) -> bool:
        assigned = _simple_assignment(statement)
        return assigned is not None and assigned[0] not in self.read and \
            isinstance(assigned[1], (cst.Name, cst.Integer, cst.Float))
