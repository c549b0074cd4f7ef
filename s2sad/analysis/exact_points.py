"""Which comparisons choose a branch at an isolated point: ``x == c`` or ``x != c`` between a value
that moves with a differentiated input and one that does not (runtime/exact_points.py refuses them
as they run, where they find the two equal and, in forward code, ``x``'s tangent there is not 0).

Two sides moving with the same inputs (``x == x.max()``) move together, so their outcome holds
around the point, and is differentiated as any branch is. Two sides moving with different inputs
(``np.where(x == y, ...)``, both differentiated) part as soon as either moves: where they are equal
the outcome holds at that point alone, and the check refuses it whatever the tangents. ``np.sign``'s result stays put around a real point
(its slope is 0), so ``np.sign(p) == np.sign(y)`` counts matches, choosing no branch of a formula.
The rules' own code, differentiated again for Hessians, writes such tests knowingly (``gaps == 0``
on a diagonal that is 0 wherever the inputs move) and is not checked."""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from ..runtime.exact_points import EXACT_POINT_ARGUMENTS, at_an_exact_point
from ..frontend.ir import Atom, Function, Operation, Var, operations_of
from .activity import propagates, varied_values

_EQUALITIES = {operator.eq: True, np.equal: True, operator.ne: False, np.not_equal: False}
_LOCALLY_CONSTANT = (np.sign,)


def _equality(op: Operation) -> bool | None:
    if op.kind != "call" or op.callee is None or op.callee.kind != "static" or len(op.args) != 2 or op.kwargs:
        return None
    try:
        return _EQUALITIES.get(op.callee.value)
    except TypeError:  # an unhashable callee
        return None


def moving_values(function: Function, wrt: tuple[str, ...]) -> set[str]:
    """The values that move with the inputs ``wrt``: activity's varied values, but not through ``np.sign``."""
    def moves(op: Operation) -> bool:
        return propagates(op) and not (op.kind == "call" and op.callee.kind == "static"
                                       and any(op.callee.value is f for f in _LOCALLY_CONSTANT))

    return varied_values(operations_of(function.statements), wrt, moves)


def checked_with_tangents(function: Function) -> set[str]:
    """The comparisons forward code (differentiated again for a Hessian) checks already, given the
    operand's tangent: the check runs as it is, and finer than one without the tangent would."""
    return {op.args[0].name for op in operations_of(function.statements)
            if op.kind == "effect" and op.callee is not None and op.callee.value is at_an_exact_point
            and len(op.args) > EXACT_POINT_ARGUMENTS and isinstance(op.args[0], Var)}


@dataclass
class ExactPoints:
    moving: set[str]
    checked: set[str]
    inputs_of: dict[str, frozenset[str]]  # a moving value: the inputs it moves with


def exact_points(function: Function, wrt: tuple[str, ...]) -> ExactPoints:
    moving_with = {name: moving_values(function, (name,)) for name in wrt}
    moving = set().union(*moving_with.values())
    inputs_of = {value: frozenset(name for name in wrt if value in moving_with[name]) for value in moving}
    return ExactPoints(moving, checked_with_tangents(function), inputs_of)


def exact_comparison(op: Operation, found: ExactPoints) -> tuple[Atom, bool, bool] | None:
    """``(the moving operand, whether the comparison is an equality, whether it alone moves)`` of
    ``op``, if it compares by ``==`` or ``!=`` a moving value with one that is not, or with one moving
    with other inputs, and no check of it is there already."""
    equal = _equality(op)
    if equal is None or op.target in found.checked:
        return None
    operands = [atom for atom in op.args if isinstance(atom, Var) and atom.name in found.moving]
    if len(operands) == 1:
        return operands[0], equal, True
    if len(operands) == 2 and found.inputs_of[operands[0].name] != found.inputs_of[operands[1].name]:
        return operands[0], equal, False
    return None


def is_equality(op: Operation) -> bool:
    return _equality(op) is not None


def is_rules_code(function) -> bool:
    return (getattr(function, "__module__", "") or "").startswith("s2sad.rules.")
