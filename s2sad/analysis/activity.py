"""Activity analysis: which values need pullback code.

A value is *varied* if it depends on a differentiated input through differentiable
operations, *useful* if the output depends on it. Only values that are both (active)
get cotangent code; everything else runs as plain primal code.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend.ir import Function, Operation, Var, operations_of
from ..registry import rule_for

# Attributes of arrays that carry no gradient: reading them is plain primal code.
CONSTANT_ATTRIBUTES = {"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "flags", "strides"}
CONSTANT_METHODS = {"argmax", "argmin", "argsort", "nonzero", "all", "any"}  # item, tolist: values, not constants


def propagates(operation: Operation) -> bool:
    """Whether a cotangent can flow from the operation's output to its inputs."""
    if operation.kind in ("assert", "effect"):
        return False
    callee = operation.callee
    if callee is None:
        return True
    if callee.kind == "attribute":
        return callee.name not in CONSTANT_ATTRIBUTES
    if callee.kind == "method":
        return callee.name not in CONSTANT_METHODS
    rule = rule_for(callee.value)
    return not (rule is not None and rule.nondifferentiable)


@dataclass
class Activity:
    active: set[str]
    varied: set[str]
    useful: set[str]

    def is_active(self, atom) -> bool:
        return isinstance(atom, Var) and atom.name in self.active


def analyse(function: Function, wrt: tuple[str, ...], prune: bool = True) -> Activity:
    """``prune=False``: every value that depends on a differentiated input counts as active,
    whether or not the output needs it (the unoptimised translation)."""
    operations = operations_of(function.statements)
    varied = varied_values(operations, wrt)
    useful = {function.result.name} if isinstance(function.result, Var) else set()
    before = -1
    while len(useful) != before:  # (as varied_values, backwards)
        before = len(useful)
        for operation in reversed(operations):
            if operation.target in useful and propagates(operation):
                useful.update(operation.uses())
    if not prune:
        return Activity(set(varied), varied, varied | useful)
    return Activity(varied & useful, varied, useful)


def varied_values(operations: list[Operation], wrt, carries=propagates) -> set[str]:
    """The values that depend on ``wrt`` through the operations that ``carries`` (a derivative can
    flow through). One pass suffices for straight-line code; a loop's back edges feed values to
    earlier operations, so the pass repeats until nothing changes (once more per loop-carried chain)."""
    varied, before = set(wrt), -1
    while len(varied) != before:
        before = len(varied)
        for operation in operations:
            if carries(operation) and any(name in varied for name in operation.uses()):
                varied.add(operation.target)
    return varied
