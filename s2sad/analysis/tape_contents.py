"""What a loop's tape must hold per iteration, beyond "every value its reverse reads".

Two facts, both about values the reverse iteration reads:

* **loop invariants** (``loop_invariants``): a value the loop body computes from values
  the loop never changes (``-k`` in ``a = -k * x``) is the same object's equal at every
  iteration. The tape need not save it: the reverse pass reads the variable itself, which
  after the loop holds the last iteration's value, equal to every other's.
* **metadata reads** (``read_for_metadata``): a value the reverse iteration passes only
  where a helper reads its type, shape and dtype (the ``like`` of ``unbroadcast``), never
  its numbers. The tape saves a stand-in for it (``stand_in_for``) that the helpers treat
  exactly as the value, so the value's data is not kept alive.

The first is found on the IR before anything is written; the second on the reverse
iteration's lines, once they are written (which is when the tape's contents are decided).
The second holds for a pullback's closure too (``closure_read_for_metadata``): what it
reads only for metadata is rebound to stand-ins before the pullback is made.
"""
from __future__ import annotations

import ast
import operator
import textwrap

import numpy as np

from ..frontend.ir import Function, Loop, Operation, Var, operations_of
from .aliasing import Groups

# helper -> the position of the argument it reads for its type, shape and dtype alone
METADATA_POSITIONS = {"unbroadcast": 1, "expand_reduced": 1, "untake": 2, "add_at": 3, "sequence_cotangent": 1}


def loop_invariants(function: Function, loop: Loop, groups: Groups | None = None) -> set[str]:
    """The values computed inside ``loop`` that are equal at every iteration that computes them.

    Such a value is made by an operator or a NumPy ufunc (a fresh value, nothing else
    changed, no randomness) from constants and from values that are either made before the
    loop and not changed in it (no in-place write, no call that might write, through any
    name that may share their memory) or invariant themselves. Its variable is assigned by
    that one operation alone, and nothing ever writes into it.
    """
    groups = groups if groups is not None else Groups(function.statements)
    inside = _operations_inside(loop)
    assigned = {name for op in inside for name in _assigned_by(op)} | ({loop.counter} if loop.counter else set())
    counts: dict[str, int] = {}
    for op in operations_of(function.statements):
        for name in _assigned_by(op):
            counts[name] = counts.get(name, 0) + 1
    written_anywhere = _written_names(operations_of(function.statements), groups)
    written_inside = _written_names(inside, groups)
    invariant: set[str] = set()
    changed = True
    while changed:
        changed = False
        for op in inside:
            if op.target in invariant or not _fresh_and_pure(op) or counts.get(op.target) != 1:
                continue
            if op.target in written_anywhere:
                continue
            inputs = op.uses()
            if all(name in invariant or (name not in assigned and name not in written_inside) for name in inputs):
                invariant.add(op.target)
                changed = True
    return invariant


def read_for_metadata(lines: list[str], names) -> set[str]:
    """Of ``names``, those that ``lines`` (a reverse iteration's code) read only as the
    type-shape-and-dtype argument of a helper (``METADATA_POSITIONS``) or through ``len``."""
    tree = ast.parse(textwrap.dedent("\n".join(lines)) or "pass")
    as_metadata: set[str] = set()
    as_data: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            position = METADATA_POSITIONS.get(node.func.id)
            if node.func.id == "len" and len(node.args) == 1 and not node.keywords:
                position = 0
            if position is not None and position < len(node.args) and isinstance(node.args[position], ast.Name):
                node.args[position].metadata_only = True  # (a mark for the walk below)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            (as_metadata if getattr(node, "metadata_only", False) else as_data).add(node.id)
    return as_metadata - as_data


def closure_read_for_metadata(primal: list[str], reverse: list[str], excluded) -> list[str]:
    """The variables a pullback (its body ``reverse``) reads from its closure only for their
    type, shape and dtype, among those the primal (``primal``, its lines at the function's
    top level) assigns at its top level, so that they are bound when the pullback is made;
    in the order the primal assigns them, ``excluded`` (the value returned, the parameters,
    which the caller holds anyway) left out."""
    assigned: dict[str, None] = {}
    for statement in ast.parse(textwrap.dedent("\n".join(primal)) or "pass").body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        assigned.setdefault(node.id)
    tree = ast.parse(textwrap.dedent("\n".join(reverse)) or "pass")
    stored = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    candidates = set(assigned) - stored - set(excluded)
    metadata = read_for_metadata(reverse, candidates)
    return [name for name in assigned if name in metadata]


def _operations_inside(loop: Loop) -> list[Operation]:
    return operations_of(loop.test) + list(loop.elements) + operations_of(loop.body) + list(loop.back_edges)


def _assigned_by(op: Operation) -> list[str]:
    return [op.target, *op.targets] if op.targets else [op.target]


_PURE_OPERATORS = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod, operator.pow,
    operator.neg, operator.pos, operator.matmul, operator.abs, operator.lt, operator.le, operator.gt, operator.ge,
    operator.eq, operator.ne, operator.not_, operator.invert, operator.and_, operator.or_, operator.xor,
    operator.lshift, operator.rshift,
}


def _fresh_and_pure(op: Operation) -> bool:
    """An operator (not an item read, which may be a view) or a NumPy ufunc with no keywords
    (no ``out=``): its value is a new object, a function of its arguments' values alone."""
    if op.kind != "call" or op.callee is None or op.callee.kind != "static" or op.kwargs:
        return False
    value = op.callee.value
    if isinstance(value, np.ufunc):
        return True
    try:
        return value in _PURE_OPERATORS
    except TypeError:  # an unhashable callee
        return False


def _written_names(operations: list[Operation], groups: Groups) -> set[str]:
    """Every variable whose memory one of ``operations`` may change: an in-place write, an
    effect (a call whose value is dropped), a method call, or a call of anything but an
    operator or a ufunc, and every name that may share memory with what it is given."""
    written: set[str] = set()
    for op in operations:
        if op.kind in ("copy", "tuple", "list", "dict", "unpack", "element") or _fresh_and_pure(op):
            continue
        for name in op.uses():
            written |= groups.of(name)
        if op.kind == "mutate" and op.args and isinstance(op.args[0], Var):
            written |= groups.of(op.args[0].name)
    return written
