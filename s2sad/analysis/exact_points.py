"""Which comparisons choose a branch at an isolated point: ``x == c`` or ``x != c`` between a value
that moves with a differentiated input and one that does not (runtime/exact_points.py refuses them
as they run, where they find the two equal and, in forward code, ``x``'s tangent there is not 0).

Two differentiated sides (``x == x.max()``) move together, so their outcome holds around the
point, and is differentiated as any branch is. ``np.sign``'s result stays put around a real point
(its slope is 0), so ``np.sign(p) == np.sign(y)`` counts matches, choosing no branch of a formula.
The rules' own code, differentiated again for Hessians, writes such tests knowingly (``gaps == 0``
on a diagonal that is 0 wherever the inputs move) and is not checked."""
from __future__ import annotations

import builtins
import operator
import os
from dataclasses import dataclass

import numpy as np

from ..runtime.exact_points import EXACT_POINT_ARGUMENTS, at_an_exact_point
from ..frontend.ir import Atom, Const, Function, Operation, Var, operations_of
from .activity import propagates, varied_values

_EQUALITIES = {operator.eq: True, np.equal: True, operator.ne: False, np.not_equal: False}
# An ordering of a value that is never negative with 0 is an equality in disguise (`r > 0` is `r != 0`
# for a norm): where the value side (position) is made by one of _NONNEGATIVE, the equality it is.
_ORDERINGS_AT_ZERO = {operator.gt: (0, False), np.greater: (0, False), operator.le: (0, True), np.less_equal: (0, True),
                      operator.lt: (1, False), np.less: (1, False), operator.ge: (1, True), np.greater_equal: (1, True)}
_NONNEGATIVE = (np.linalg.norm, np.abs, np.sqrt, np.hypot, builtins.abs)
_LOCALLY_CONSTANT = (np.sign,)


def _static_callee(op: Operation):
    if op.kind != "call" or op.callee is None or op.callee.kind != "static" or len(op.args) != 2 or op.kwargs:
        return None
    return op.callee.value


def _equality(op: Operation) -> bool | None:
    try:
        return _EQUALITIES.get(_static_callee(op))
    except TypeError:  # an unhashable callee
        return None


def _ordering_at_zero(op: Operation, nonnegative: set[str]) -> bool | None:
    """The equality ``op`` is when it orders a never-negative value with 0 (``r > 0``: False, for ``!=``)."""
    try:
        position, equal = _ORDERINGS_AT_ZERO.get(_static_callee(op), (None, None))
    except TypeError:
        return None
    if position is None:
        return None
    value, other = op.args[position], op.args[1 - position]
    if not (isinstance(value, Var) and value.name in nonnegative and isinstance(other, Const)):
        return None
    try:
        return equal if float(other.code) == 0.0 else None
    except ValueError:
        return None


def _nonnegative_values(function: Function) -> set[str]:
    """In forward code differentiated again (a hvp's), the values ``_NONNEGATIVE`` makes. Not in a
    function of the user's: a norm or ``np.abs`` has a kink at 0, so a first derivative there through
    ``r > 0``'s branch is a subgradient as documented; a second one through the constant branch is 0
    where ``sinc(norm(x))``'s Hessian is -1/3."""
    where = function.location
    if where is None or not os.path.basename(where.filename).startswith("s2sad_"):
        return set()
    return {op.target for op in operations_of(function.statements) if op.calls(*_NONNEGATIVE)}


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
    given: set[str]    # the parameters: a tangent of 0 given to one says it stays put (data in a hvp)
    nonnegative: set[str]


def exact_points(function: Function, wrt: tuple[str, ...]) -> ExactPoints:
    return ExactPoints(moving_values(function, wrt), checked_with_tangents(function), set(function.params),
                       _nonnegative_values(function))


def exact_comparison(op: Operation, found: ExactPoints, with_tangent: bool) -> tuple[Atom, bool] | None:
    """``(the moving operand, whether the comparison is an equality)`` of ``op``, if it compares a
    moving value with one that is not by ``==`` or ``!=``, and no check of it is there already.
    Reverse code (``with_tangent`` False) checks again, without the tangent, a comparison of a value
    computed in forward code, which checks it with its tangent: differentiating forward code (hvp)
    moves the value in every direction, and a tangent of 0 along one (``np.abs(x)``'s, a norm's at 0)
    did not say it stays put."""
    equal = _equality(op)
    if equal is None:
        equal = _ordering_at_zero(op, found.nonnegative)
    operands = [atom for atom in op.args if isinstance(atom, Var) and atom.name in found.moving]
    if equal is None or len(operands) != 1:
        return None
    if op.target in found.checked and (with_tangent or operands[0].name in found.given):
        return None
    return operands[0], equal


def is_equality(op: Operation) -> bool:
    """Whether ``op`` may test equality: ``==``, ``!=``, or an ordering (checked with 0 by ``exact_comparison``)."""
    try:
        return _equality(op) is not None or _static_callee(op) in _ORDERINGS_AT_ZERO
    except TypeError:
        return False


def is_rules_code(function) -> bool:
    return (getattr(function, "__module__", "") or "").startswith("s2sad.rules.")
