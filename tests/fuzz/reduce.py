"""Reducing a failing program further than hypothesis can: edits of its syntax tree.

Hypothesis shrinks the choices the generator made, which cannot delete a statement in the
middle of a program or replace an expression by one of its operands. ``reduce_source``
does that, greedily: it tries each edit below, keeps it if the program still fails the
same way (same failure signature, inputs still smooth), and starts over, until no edit
helps or the budget of checks is spent:

* delete a statement (a body left empty becomes ``pass``), a helper nobody calls;
* replace an ``if`` by one of its branches, ``range(k)`` by ``range(1)``;
* replace an expression by one of its operands (``a + b`` -> ``a``, ``np.sin(a)`` -> ``a``,
  ``a if c else b`` -> ``a``, ``-a`` -> ``a``, ``a and b`` -> ``a``).

An edit can make a loop endless: each check has a time limit (``oracle.time_limit``).
"""
from __future__ import annotations

import ast
import copy

from .oracle import TimeLimit, check_source, modes_for, time_limit


def _bodies(tree):
    """Every statement list in the tree, outermost first."""
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, name, block


def _statement_edits(tree):
    for owner, name, block in _bodies(tree):
        for index, statement in enumerate(block):
            if isinstance(owner, ast.Module) and not (isinstance(statement, ast.FunctionDef) and statement.name != "f"):
                continue  # imports and f itself stay; a helper may go
            if isinstance(owner, ast.FunctionDef) and owner.name == "f" and index == len(block) - 1:
                continue  # the final return
            yield ("delete", owner, name, index)
            if isinstance(statement, ast.If):
                yield ("inline-body", owner, name, index)
                if statement.orelse:
                    yield ("inline-else", owner, name, index)
            if isinstance(statement, ast.For) and isinstance(statement.iter, ast.Call) and \
                    isinstance(statement.iter.func, ast.Name) and statement.iter.func.id == "range":
                yield ("range-1", owner, name, index)


def _operands(node):
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Call) and _callee(node) not in _KEEP_CALLS:
        return [a for a in node.args if not isinstance(a, ast.Starred)]
    return []


# Calls whose arguments are not values of the same kind: replacing ``range(3)`` by ``3`` or
# ``np.array([...])`` by a list would leave the fuzzer's language.
_KEEP_CALLS = {"range", "enumerate", "zip", "len", "list", "tuple", "np.array", "np.zeros", "np.ones", "np.empty",
               "np.zeros_like", "np.full", "np.linspace", "np.arange", "np.stack", "np.vstack", "np.concatenate",
               "np.reshape", "np.tile", "np.broadcast_to", "np.expand_dims", "np.squeeze", "np.outer"}


def _callee(node) -> str:
    parts = []
    function = node.func
    while isinstance(function, ast.Attribute):
        parts.append(function.attr)
        function = function.value
    if isinstance(function, ast.Name):
        parts.append(function.id)
    return ".".join(reversed(parts))


def _expression_edits(tree):
    count = 0
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for position, child in enumerate(children):
                if isinstance(child, ast.expr) and not isinstance(child, ast.Starred):
                    for k, _ in enumerate(_operands(child)):
                        yield ("operand", count, k)
                    count += 1


def _apply(tree, edit):
    """A copy of ``tree`` with an expression replaced by one of its operands (nodes by walk order)."""
    tree = copy.deepcopy(tree)
    _, target, k = edit
    count = 0
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for position, child in enumerate(children):
                if isinstance(child, ast.expr) and not isinstance(child, ast.Starred):
                    if count == target:
                        replacement = _operands(child)[k]
                        if isinstance(value, list):
                            value[position] = replacement
                        else:
                            setattr(node, field, replacement)
                        return tree
                    count += 1
    return None


def _candidates(tree):
    """Edited copies of ``tree``, simplest edits first."""
    statements = list(_statement_edits(tree))
    for number, edit in enumerate(statements):
        copied = copy.deepcopy(tree)
        copied_edit = list(_statement_edits(copied))[number]
        kind, owner, name, index = copied_edit
        block = getattr(owner, name)
        statement = block[index]
        if kind == "delete":
            del block[index]
        elif kind == "inline-body":
            block[index:index + 1] = statement.body
        elif kind == "inline-else":
            block[index:index + 1] = statement.orelse
        elif kind == "range-1":
            statement.iter.args = [ast.Constant(1)]
        if not block:
            block.append(ast.Pass())
        yield copied
    for edit in list(_expression_edits(tree)):
        edited = _apply(tree, edit)
        if edited is not None:
            yield edited


def _text(tree) -> str | None:
    try:
        ast.fix_missing_locations(tree)
        text = ast.unparse(tree) + "\n"
        compile(text, "<candidate>", "exec")
        return text
    except (SyntaxError, ValueError, TypeError):
        return None


def still_fails(source, args, output_kind, u, tangents, directory, signature, seconds: float = 20.0) -> bool:
    try:
        with time_limit(seconds):
            outcome = check_source(source, args, output_kind, u, tangents, directory, modes=modes_for(signature))
    except (Exception, TimeLimit):  # noqa: BLE001 - the edited program itself no longer runs, or never ends
        return False
    if outcome.invalid:
        return False
    return any(failure.signature == signature for failure in outcome.failures)


def reduce_source(source: str, args, output_kind: str, u, tangents, directory: str, signature: str,
                  budget: int = 200) -> str:
    """The smallest edit of ``source`` found that still fails with ``signature``."""
    checks = 0
    current = source
    # np.zeros for np.empty first: a later `range-1` edit would leave entries unset, read as garbage
    # (a value that changes from run to run: a failure of the edit, not of s2sad)
    zeroed = source.replace("np.empty(", "np.zeros(")
    if zeroed != source:
        checks += 1
        if still_fails(zeroed, args, output_kind, u, tangents, directory, signature):
            current = zeroed
    seen = {source, current}
    improved = True
    while improved and checks < budget:
        improved = False
        tree = ast.parse(current)
        for candidate in _candidates(tree):
            text = _text(candidate)
            if text is None or text in seen or len(text) >= len(current) + 20:
                continue
            seen.add(text)
            checks += 1
            if still_fails(text, args, output_kind, u, tangents, directory, signature):
                current = text
                improved = True
                break
            if checks >= budget:
                break
    return current
