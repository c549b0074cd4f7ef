"""Pullback expressions that read a value the primal already computed, instead of computing it again.

The rule of ``np.sin`` pulls ``g`` back to ``g * np.cos(x)``; when the function computed
``cos_x = np.cos(x)`` itself, the pullback reads ``g * cos_x``. On a large array that is a
transcendental function evaluated once instead of twice.

A call in a rule's expression is replaced by a primal variable only when that variable
certainly holds the same value whenever the pullback runs:

* the primal call is the same function (the object, however it is spelt: ``np.cos``,
  ``numpy.cos``) on the same variables and constants, with no keywords, and the function
  is a NumPy ufunc or a ``math`` function (pure: same arguments, same value);
* it is in the function's top-level block, which every call that returns runs through
  (the normaliser moves the code after an ``if`` that may leave into the paths that stay);
* its target and its operands are each assigned once (no loop carries them, no branch
  merges into them) and the function changes nothing in place.

This module finds those calls; the pass ``ReusePrimalValues`` (codegen/expression_passes.py)
rewrites a rule's expression with them.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..frontend.ir import Function, Statement, Var, operations_of
from .scalars import math_function


def _pure(value) -> bool:
    return isinstance(value, np.ufunc) or math_function(value)


def primal_calls(function: Function, code) -> dict[tuple, str]:
    """(callee object's id, operand codes) -> the variable holding that call's value, for the
    calls a pullback may read instead of repeating; ``code`` renders an atom."""
    operations = operations_of(function.statements)
    if any(op.kind == "mutate" for op in operations):
        return {}
    assignments = Counter(op.target for op in operations)
    calls: dict[tuple, str] = {}
    for item in function.statements:
        if not isinstance(item, Statement):
            continue
        for op in item.operations:
            callee = op.callee
            if op.kind != "call" or callee is None or callee.kind != "static" or op.kwargs or not _pure(callee.value):
                continue
            if assignments[op.target] != 1 or any(assignments[name] > 1 for name in op.uses()):
                continue
            if any(isinstance(atom, Var) and atom.name not in function.params and assignments[atom.name] == 0
                   for atom in op.args):
                continue  # a free variable read from the environment: leave it alone
            key = (id(callee.value), tuple(code(atom) for atom in op.args))
            calls.setdefault(key, op.target)
    return calls
