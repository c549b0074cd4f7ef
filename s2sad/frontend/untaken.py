"""Branches s2sad refuses, refused only on the calls that take them.

Validation code is everywhere in real functions: ``if isinstance(data, list): ...`` may call
something s2sad cannot differentiate on a path the gradient never crosses. Refusing the whole
function for it is a missing feature; differentiating it wrongly would be a bug. So the branch
whose code was refused becomes a ``raise`` of the same located error: the other paths are
differentiated as they are, and a call that takes the refused branch raises the error it
would have raised at transform time (``errors.untaken_branch_error``), at the user's line.

Only ``if``/``elif``/``else`` bodies are replaced: a branch raising is exactly what Python does
on that path, so nothing is differentiated as something else. A refusal outside any branch
(the function's straight-line code, a loop body, an ``if`` test of its own) refuses the
function as before.
"""
from __future__ import annotations

from dataclasses import replace

import libcst as cst

from ..errors import S2SADError
from .resolve import REFUSED_BRANCH
from .source import FunctionSource

# Refusals replaced in one function before giving up (each replacement is one more transform).
MOST_BRANCHES = 16

_STUB = """\
raise {name}({kind!r}, {message!r}, {filename!r}, {line!r}, {column!r}, {hint!r})
"""


def without_refused_branch(source: FunctionSource, error: S2SADError) -> FunctionSource | None:
    """``source`` with the innermost ``if`` branch holding ``error``'s location replaced by a
    ``raise`` of that error; None when the error is not inside a branch of this function."""
    location = error.location
    if location is None or location.filename != source.filename:
        return None
    point = (location.line - source.first_line + 1, location.column - source.indent - 1)
    found = _innermost_branch(source, point)
    if found is None:
        return None
    owner, field_name, block = found
    stub = cst.parse_statement(_STUB.format(name=REFUSED_BRANCH, kind=type(error).__name__, message=error.message, filename=location.filename,
                                            line=location.line, column=location.column, hint=error.hint))
    positions = dict(source.positions)
    first = _first_statement(block)
    for node in _nodes_of(stub):
        positions[node] = positions.get(first, positions.get(block))
    new_block = cst.IndentedBlock(body=[stub])
    positions[new_block] = positions.get(block)
    replacement = new_block if field_name == "body" else cst.Else(body=new_block)
    positions[replacement] = positions.get(block)
    funcdef = _replaced(source.funcdef, owner, owner.with_changes(**{field_name: replacement}), positions)
    return replace(source, funcdef=funcdef, positions=positions)


def _innermost_branch(source: FunctionSource, point: tuple[int, int]):
    """``(if_node, "body" | "orelse", block)`` for the deepest branch of an ``if`` whose text holds
    ``point`` (a line and 0-based column in the dedented text)."""
    best = None
    for node in _nodes_of(source.funcdef):
        if not isinstance(node, cst.If):
            continue
        for field_name in ("body", "orelse"):
            block = getattr(node, field_name)
            if block is not None and _holds(source.positions.get(block), point):
                best = (node, field_name, block)  # a preorder walk: later finds are deeper
    return best


def _holds(position, point) -> bool:
    if position is None:
        return False
    start, end = (position.start.line, position.start.column), (position.end.line, position.end.column)
    return start <= point < end


def _first_statement(block):
    body = block.body.body if isinstance(block, cst.Else) else block.body if isinstance(block, cst.IndentedBlock) else None
    return body[0] if body else block


def _nodes_of(root: cst.CSTNode):
    """Every node under ``root``, parents before children."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _replaced(funcdef: cst.FunctionDef, old: cst.CSTNode, new: cst.CSTNode, positions: dict) -> cst.FunctionDef:
    """``funcdef`` with ``old`` replaced by ``new``; each parent rebuilt on the way keeps the
    position of the node it stands for, so later errors and comments still name the user's line."""

    class Replace(cst.CSTTransformer):
        def on_leave(self, original, updated):
            result = new if original is old else updated
            if result is not original and original in positions:
                positions.setdefault(result, positions[original])
            return result

    return funcdef.visit(Replace())
