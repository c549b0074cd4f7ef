"""How two sides of ``==`` that move with the same input are checked for a tie (analysis/exact_points.py).

Sharing an input does not make two values move together: ``np.max(x) == np.min(x)``, two elements a
loop walks, a value carried from the last iteration part as soon as one coordinate moves, and where
they are equal the branch chosen holds at that point alone. Only two forms are known to move
together: one value on both sides, through copies and names assigned once (``x == x``, a NaN test;
``x == x.copy()``), and a value compared with its own maximum or minimum (``x == x.max(axis=1,
keepdims=True)``, an argmax's one-hot mask), whose outcome holds around the point unless two elements
of a slice tie for it. Two reads of one array by constant indices (``x[:, None] == x[None, :]``) are
equal where they read one element, and checked where they read two. Any other pair is checked
wherever it is equal."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..frontend.ir import Atom, Const, Function, Operation, Var, operations_of

# calls whose result is their one argument's value, new memory or not
_SAME_VALUE = (np.copy, np.array, np.asarray, np.asanyarray)
_EXTREMES = (np.max, np.min, np.amax, np.amin)
_EXTREME_METHODS = ("max", "min")


@dataclass(frozen=True)
class Tie:
    """How a tie of two moving sides is told as the code runs. ``axis``: the code of the axis of a
    maximum (None: all of them) one side is of the other, checked where a slice has two hits;
    ``reads``: (array, index, index), two reads of one array, checked where they read two elements."""
    axis: str | None = None
    reads: tuple[str, Atom, Atom] | None = None


def _assignments(operations) -> dict[str, int]:
    assigned = {}
    for op in operations:
        assigned[op.target] = assigned.get(op.target, 0) + 1
    return assigned


@dataclass
class Values:
    """What the function's names assigned at most once hold: ``source``, the name a copy or alias is of;
    ``made``, the operation making each."""
    source: dict[str, str]
    made: dict[str, Operation]

    def root(self, name: str) -> str:
        while name in self.source:
            name = self.source[name]
        return name


def values_of(function: Function) -> Values:
    operations = operations_of(function.statements)
    assigned = _assignments(operations)
    once = {op.target: op for op in operations if assigned[op.target] == 1}
    source = {}
    for target, op in once.items():
        of = _copied(op)
        if of is not None and assigned.get(of, 0) <= 1:
            source[target] = of
    return Values(source, once)


def _copied(op: Operation) -> str | None:
    """The name ``op`` copies or aliases (``y = x``, ``np.copy(x)``, ``x.copy()``), or None."""
    if op.kind == "copy" and len(op.args) == 1 and isinstance(op.args[0], Var):
        return op.args[0].name
    if op.kind != "call" or op.kwargs or len(op.args) != 1 or not isinstance(op.args[0], Var):
        return None
    if op.calls(*_SAME_VALUE) or op.callee is not None and op.callee.kind == "method" and op.callee.name == "copy" \
            and op.copy_receiver:
        return op.args[0].name
    return None


def _extreme_of(op: Operation | None) -> tuple[str, str | None] | None:
    """``np.max(x)``, ``x.max(axis=1, keepdims=True)``: (x, the axis's code); None for other calls, and
    for an axis without keepdims (its result lines up with other elements) or other keywords."""
    if op is None or op.kind != "call" or not op.args or not isinstance(op.args[0], Var):
        return None
    method = op.callee is not None and op.callee.kind == "method" and op.callee.name in _EXTREME_METHODS
    if not (method or op.calls(*_EXTREMES)) or len(op.args) != 1:
        return None
    keywords = dict(op.kwargs)
    if not set(keywords) <= {"axis", "keepdims"}:
        return None
    if "axis" not in keywords:
        return (op.args[0].name, None) if "keepdims" not in keywords else None
    axis, keepdims = keywords["axis"], keywords.get("keepdims")
    if not (isinstance(axis, Const) and isinstance(keepdims, Const) and keepdims.code == "True"):
        return None
    return op.args[0].name, axis.code


def tie_of(a: str, b: str, values: Values, elements: dict[str, tuple[str, Atom]]) -> Tie | None:
    """How a tie of the moving values ``a`` and ``b`` (which share an input) is checked; None: they are
    one value, never apart."""
    a, b = values.root(a), values.root(b)
    if a == b:
        return None
    for value, extreme in ((a, b), (b, a)):
        of = _extreme_of(values.made.get(extreme))
        if of is not None and values.root(of[0]) == value:
            return Tie(axis=of[1] or "None")
    first, second = elements.get(a), elements.get(b)
    if first is not None and second is not None and values.root(first[0]) == values.root(second[0]):
        if first[1] == second[1]:  # one element, read twice (the variable holds one index as it runs)
            return None
        if isinstance(first[1], Const) and isinstance(second[1], Const):
            return Tie(reads=(first[0], first[1], second[1]))
    return Tie()


def tie_found(found: str, equal: bool, tie: Tie, code) -> str:
    """The code of where ``found`` (``a == b``, or ``a != b`` where not ``equal``) says a tie, for the
    check; ``code`` writes an atom."""
    if tie.reads is not None:
        array, first, second = tie.reads
        positions = f"np.arange(np.size({array})).reshape(np.shape({array}))"
        apart = f"({positions}[{code(first)}] != {positions}[{code(second)}])"
        return f"({found} & {apart})" if equal else f"({found} | ~{apart})"
    if tie.axis is not None:  # (counted in floats, which compiled code sums along an axis)
        hits = found if equal else f"np.logical_not({found})"
        counts = f"np.sum({hits})" if tie.axis == "None" else \
            f"np.sum({hits} * 1.0, axis={tie.axis}, keepdims=True)"
        tied = f"np.logical_and({hits}, {counts} > 1)"
        return tied if equal else f"np.logical_not({tied})"
    return found

