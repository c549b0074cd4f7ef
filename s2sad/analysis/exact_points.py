"""Which comparisons choose a branch at an isolated point: ``x == c`` or ``x != c`` between a value
that depends on a differentiated input and one that does not (runtime/exact_points.py refuses
them as they run, where they find the two equal). Two differentiated sides (``x == x.max()``)
move together, so their outcome holds around the point, and is differentiated as any branch is."""
from __future__ import annotations

import operator

import numpy as np

from ..frontend.ir import Atom, Operation, Var

_EQUALITIES = {operator.eq: True, np.equal: True, operator.ne: False, np.not_equal: False}


def exact_comparison(op: Operation, varied: set[str]) -> tuple[Atom, bool] | None:
    """``(the differentiated operand, whether the comparison is an equality)`` of ``op``, if it
    compares a differentiated value with a constant by ``==`` or ``!=``."""
    if op.kind != "call" or op.callee is None or op.callee.kind != "static" or len(op.args) != 2 or op.kwargs:
        return None
    try:
        equal = _EQUALITIES.get(op.callee.value)
    except TypeError:  # an unhashable callee
        return None
    if equal is None:
        return None
    moving = [atom for atom in op.args if isinstance(atom, Var) and atom.name in varied]
    return (moving[0], equal) if len(moving) == 1 else None
