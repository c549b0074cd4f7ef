"""Which variables hold values NumPy or arithmetic made, so that a method or attribute read from
them is NumPy's own.

The activity analysis takes some reads for constants by their names alone (``x.shape``,
``x.argmax()``: ``CONSTANT_ATTRIBUTES``, ``CONSTANT_METHODS``), which is right for NumPy's arrays
and wrong for an object of the user's class with a ``.shape`` or ``.all()`` of its own that
computes from differentiated values. Where the receiver was made here by arithmetic or a NumPy
function, it is NumPy's; anything else (a parameter, an item of a container, an object, what a
user function returns) is checked as the code runs (``runtime/methods.py constant_result``).
"""
from __future__ import annotations

import operator

from .activity import CONSTANT_ATTRIBUTES, CONSTANT_METHODS
from ..frontend.ir import Operation, Var, operations_of


def taken_constant_by_name(op: Operation) -> bool:
    """Whether the activity analysis takes ``op``'s result for a constant by the name it reads."""
    callee = op.callee
    return op.kind == "call" and callee is not None and bool(op.args) and isinstance(op.args[0], Var) and (
        callee.kind == "attribute" and callee.name in CONSTANT_ATTRIBUTES
        or callee.kind == "method" and callee.name in CONSTANT_METHODS)


def numpy_made(statements) -> set[str]:
    """The variables every definition of which is arithmetic or a NumPy (or ``math``) function's
    result, or a copy of such a variable: values whose methods and attributes are NumPy's."""
    definitions: dict[str, list[Operation]] = {}
    for op in operations_of(statements):
        definitions.setdefault(op.target, []).append(op)
    known: dict[str, bool] = {}

    def made(name: str, seen: frozenset) -> bool:
        if name not in known:
            known[name] = name not in seen and name in definitions and all(
                _made_by_numpy(op) or op.kind == "copy" and isinstance(op.args[0], Var)
                and made(op.args[0].name, seen | {name}) for op in definitions[name])
        return known[name]

    return {name for name in definitions if made(name, frozenset())}


def _made_by_numpy(op: Operation) -> bool:
    callee = op.callee
    if op.kind != "call" or callee is None or callee.kind != "static" or callee.value is operator.getitem:
        return False  # an item of a list may be any object
    module = (getattr(callee.value, "__module__", "") or "").split(".")[0]
    return module in ("numpy", "math", "_operator", "operator")  # (objects with operators of their own are refused)
