"""An ordering of a moving value with a constant (``x > 20.0``) at its tie, where the function also takes
an elementwise extreme of the two (``np.minimum(x, 20.0)``, ``min(x, 20.0)``, ``np.clip(x, lo, 20.0)``):
checked there (analysis/exact_points.py); the same of two variables (``x > y`` and ``min(x, y)``).

The ordering's outcome at the tie is that of one side, so the branch taken gives that side's slope,
right where the branch is smooth; the extreme's slope at its tie is the mean of its two sides' (half
to each value). Where both meet, as in a softplus kept finite on its untaken branch,
``np.where(x > 20.0, x, np.log1p(np.exp(np.minimum(x, 20.0))))``, the branch taken (``x <= 20``) is the
one where the minimum is ``x``, and its slope there, 0.5, is neither side's (1 on both)."""
from __future__ import annotations

import ast
import builtins
import operator

import numpy as np

from ..frontend.ir import Atom, Const, Function, Operation, Var, operations_of

# the elementwise extremes of two values, whose slope at a tie is half to each
_PAIRWISE_EXTREMES = (np.minimum, np.maximum, np.fmin, np.fmax, builtins.min, builtins.max)
# orderings, by whether they are strict (false at the tie)
_ORDERINGS = {operator.gt: True, np.greater: True, operator.lt: True, np.less: True,
              operator.ge: False, np.greater_equal: False, operator.le: False, np.less_equal: False}


def literal_number(atom) -> float | None:
    """The number a constant atom writes (``20``, ``0.5``), else None."""
    try:
        value = ast.literal_eval(atom.code) if isinstance(atom, Const) else None
    except (ValueError, SyntaxError, TypeError):
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _side(atom) -> str | float | None:
    """A side of an extreme or an ordering as the pairs hold it: a variable's name, or a constant's number."""
    return atom.name if isinstance(atom, Var) else literal_number(atom)


def _pair(value, bound) -> set[tuple[str, str | float]]:
    side = _side(bound)
    return {(value.name, side)} if isinstance(value, Var) and side is not None else set()


def kinked_thresholds(function: Function) -> set[tuple[str, str | float]]:
    """(x, c) for each elementwise extreme of a variable ``x`` and a constant ``c`` (or another variable,
    by its name: ``min(x, y)``) the function takes."""
    pairs = set()
    for op in operations_of(function.statements):
        if op.calls(*_PAIRWISE_EXTREMES) and len(op.args) == 2 and not op.kwargs:
            pairs |= _pair(op.args[0], op.args[1]) | _pair(op.args[1], op.args[0])
        elif op.calls(np.clip) and len(op.args) == 3 and not op.kwargs:
            pairs |= _pair(op.args[0], op.args[1]) | _pair(op.args[0], op.args[2])
    return pairs


def threshold_tie(op: Operation, moving: set[str], thresholds: set) -> tuple[Var, Atom, bool] | None:
    """``(x, c, strict)`` where ``op`` orders a moving ``x`` with a constant or variable ``c`` of which the
    function takes an extreme (``kinked_thresholds``), else None."""
    if not (op.calls(*_ORDERINGS) and op.callee.kind == "static" and len(op.args) == 2 and not op.kwargs):
        return None
    strict = _ORDERINGS[op.callee.value]
    for value, bound in (op.args, op.args[::-1]):
        if isinstance(value, Var) and value.name in moving and (value.name, _side(bound)) in thresholds:
            return value, bound, strict
    return None
