"""Finding a lambda in its file.

``inspect`` gives a lambda's source as the lines it starts on, which may hold several lambdas
(``grad(lambda x: f(x, lambda y: y))``) or only part of a statement. The lambda's code object
carries the column of each of its instructions (``co_positions``, Python 3.11), so the lambda
is the smallest one in the file whose body covers all of them and whose parameters are the
code's; its statement is what s2sad parses.
"""
from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class FoundLambda:
    statement_lines: list[str]    # the lines of the smallest statement holding the lambda
    first_line: int               # file line of the first of them
    line: int                     # file line and 0-based column where ``lambda`` is written
    column: int
    assigned_to: str | None       # ``name`` in ``name = lambda ...``: what generated code is named after


def find_lambda(function) -> FoundLambda | None:
    """The lambda ``function`` was made from, or None when its file cannot be read and parsed."""
    code = function.__code__
    lines = linecache.getlines(code.co_filename, function.__globals__)
    if not lines:
        return None
    try:
        tree = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    spans = [(line, column, end_line, end_column) for line, end_line, column, end_column in code.co_positions()
             if line is not None and column is not None and (end_line, end_column) != (line, column)
             and not (column == 0 and end_column == 0)]
    parameters = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    best, best_size = None, None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Lambda) or _parameter_names(node.args) != parameters:
            continue
        if not all(_covers(node.body, span) for span in spans):
            continue
        size = (node.end_lineno - node.lineno, node.end_col_offset - node.col_offset)
        if best is None or size < best_size:
            best, best_size = node, size
    if best is None:
        return None
    statement, assigned_to = _statement_of(tree, best)
    if statement is None:
        return None
    first_line = _start(statement)[0]
    statement_lines = lines[first_line - 1:statement.end_lineno]
    column = len(lines[best.lineno - 1].encode()[:best.col_offset].decode(errors="replace"))
    return FoundLambda(statement_lines, first_line, best.lineno, column, assigned_to)


def _parameter_names(arguments: ast.arguments) -> list[str]:
    return [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]


def _start(node: ast.AST) -> tuple[int, int]:
    """Where ``node`` starts: a decorated def or class at its first ``@`` (its own position is its ``def``)."""
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        return decorators[0].lineno, decorators[0].col_offset - 1
    return node.lineno, node.col_offset


def _covers(node: ast.AST, span) -> bool:
    line, column, end_line, end_column = span
    return _start(node) <= (line, column) and (end_line, end_column) <= (node.end_lineno, node.end_col_offset)


def _statement_of(tree: ast.AST, target: ast.Lambda):
    """The smallest statement that holds ``target``, and the name it is assigned to, if any."""
    found, assigned_to = None, None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and _covers(node, (target.lineno, target.col_offset,
                                                          target.end_lineno, target.end_col_offset)):
            if found is None or (node.end_lineno - _start(node)[0]) <= (found.end_lineno - _start(found)[0]):
                found = node
    if isinstance(found, ast.Assign) and found.value is target and len(found.targets) == 1 \
            and isinstance(found.targets[0], ast.Name):
        assigned_to = found.targets[0].id
    return found, assigned_to
