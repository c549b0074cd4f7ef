"""Loops that narrow a bracket by a test on a differentiated value: bisection, regula falsi,
golden-section search (``if g(mid, a) > 0: hi = mid`` / ``else: lo = mid``).

The ends of the bracket hold no derivative (they are made of constants), and the test only
chooses which end moves. As NumPy computes it, the root is then a staircase in ``a`` whose steps
shrink with every iteration, far below any finite difference: its slope is the root's, but each
step's derivative, which s2sad would return, is 0. Refused at the loop, with the rewrite that
gives the root's derivative.

The signature looked for: in a loop, a branch whose test depends on a differentiated input,
where one path changes one loop-carried variable and the other path another, the test reading
what they were, and the result reading them; the same where two branches each move their own end
(``if f(m) > 0: hi = m`` then ``if f(m) <= 0: lo = m``), where the ends are written in place by
constant indices (``ab[1] = m``, ``bracket["lo"] = m``), where ``np.where`` chooses them
(``hi = np.where(up, m, hi)``, ``lo = np.where(up, lo, m)``), or the test's outcome made a number
(``s = float(f(m) > 0)``, ``hi = s * m + (1 - s) * hi``). Ends starting from a differentiated value
(``hi = a``) give the bracket's derivative, ``r / a``, no better. Refused where an end's new value is
made from two ends (a point inside the bracket: a merge's ``i += 1`` on one path and ``j += 1`` on the
other is not), or where one end moves by a step the loop shrinks whatever the tests (``step *= 0.5``;
``if f(x + step) <= 0: x = x + step``, ``x = x - np.sign(f(x)) * step``). One end moved otherwise
(a Metropolis step's ``x = proposal``, a counter) or the same variable on both paths (an
adaptive step's ``dt *= 1.5`` / ``dt *= 0.5``) changes at isolated points of the input, where
the derivative of the branch taken is the function's."""
from __future__ import annotations

import operator

import numpy as np

from ..errors import UnsupportedSyntaxError
from ..frontend.ir import Branch, Function, Loop, Operation, Statement, Var, nested, operations_of
from ..rules.helpers import written_into
from ..frontend.normalize_mutation import user_name_of
from .activity import Activity, propagates, varied_values
from .thresholds import literal_number


def _origin(name: str, defined: dict) -> str:
    """Where the value ``name`` holds after a branch's path comes from (``defined``: each name's
    operation on that path), followed back through copies and the items of tuples
    (``lo, hi = (mid, hi) if ... else (lo, mid)``): a carried variable's loop name when the path keeps it."""
    for _ in range(len(defined) + 1):
        op = defined.get(name)
        if op is not None and op.kind == "copy" and op.uses():
            name = op.uses()[0]
        elif op is not None and op.kind == "unpack" and op.uses() and op.index is not None:
            packed = defined.get(op.uses()[0])
            if packed is None or packed.kind != "tuple" or op.index >= len(packed.args) \
                    or not hasattr(packed.args[op.index], "name"):
                return name
            name = packed.args[op.index].name
        else:
            return name
    return name


def _reads_of(name: str, operations, through=lambda op: True) -> set[str]:
    """What ``name`` is computed from, transitively, through the operations ``through`` accepts
    (by default any, differentiable or not)."""
    sources, before = {name}, -1
    while len(sources) != before:
        before = len(sources)
        for op in operations:
            if op.target in sources and through(op):
                sources.update(op.uses())
    return sources


def _decided_by(name: str, operations) -> set[str]:
    """What is computed from ``name`` in one pass of a loop's body, through any operation, transitively."""
    decided = {name}
    for op in operations:
        if any(used in decided for used in op.uses()):
            decided.add(op.target)
    return decided


def _written_ends(path, activity: Activity) -> set[tuple[str, str]]:
    """The ends a path writes in place by a constant index (``ab[0] = m``, ``bracket["hi"] = m``):
    (container, index), for containers carrying no derivative."""
    return {(op.args[0].name, op.args[1].code) for op in operations_of(path)
            if op.kind == "mutate" and op.callee is not None and op.callee.name == "setitem" and len(op.args) == 3
            and hasattr(op.args[0], "name") and hasattr(op.args[1], "code")
            and op.args[0].name not in activity.varied and op.args[0].name in activity.useful}


def _one_sided_ends(loop: Loop, branch: Branch, activity: Activity) -> tuple[set, set]:
    """The ends ``branch`` moves on its first path and not its second, and the other way round: a
    carried variable's loop name, or (container, index) for an end written in place."""
    loop_operations = {op.target: op for op in operations_of(loop.body)}
    kept, written = [], []
    for path in (branch.then, branch.orelse):
        defined = {**loop_operations, **{op.target: op for op in operations_of(path)}}  # the path's merge copies win
        kept.append({edge.target for edge in loop.back_edges if edge.uses()
                     and _origin(edge.uses()[0], defined) == edge.target})
        written.append(_written_ends(path, activity))
    candidates = {edge.target for edge in loop.back_edges if edge.target in activity.useful}
    return ((candidates - kept[0]) & kept[1] | written[0] - written[1],
            (candidates - kept[1]) & kept[0] | written[1] - written[0])


def _selected_ends(loop: Loop, moved: set[str], activity: Activity) -> dict[str, tuple[set, set]]:
    """The ends ``np.where`` chooses by a test on a differentiated value (``hi = np.where(up, m, hi)``,
    ``lo = np.where(up, lo, m)``), by the test: the ends moved where it holds, and where it does not."""
    defined = {op.target: op for op in operations_of(loop.body)}
    chosen = {}
    for edge in loop.back_edges:
        if not edge.uses() or edge.target not in activity.useful:
            continue
        op = defined.get(_origin(edge.uses()[0], defined))
        if op is None or not op.calls(np.where) or len(op.args) != 3 or getattr(op.args[0], "name", None) not in moved:
            continue
        kept = [hasattr(a, "name") and _origin(a.name, defined) == edge.target for a in op.args[1:]]
        if kept[0] != kept[1]:
            chosen.setdefault(op.args[0].name, (set(), set()))[int(kept[0])].add(edge.target)
    return chosen


# the tests whose outcome, made a number, chooses an end by arithmetic
_TESTS = (operator.gt, operator.ge, operator.lt, operator.le, operator.eq, operator.ne, operator.not_, operator.truth,
          np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal, np.logical_not,
          np.sign, np.heaviside, np.signbit, bool)


def _stepped_ends(loop: Loop, moved: set[str], activity: Activity) -> list[tuple[str, set]]:
    """The ends a test's outcome made a number chooses (``s = float(f(m) > 0)``, ``hi = s * m + (1 - s) * hi``,
    ``lo = lo + (1 - s) * (m - lo)``; ``int(...)``, ``np.sign(...)``, ``up * 1.0``): each test of a
    differentiated value, and the carried variables computed from its outcome."""
    operations = operations_of(loop.test) + operations_of(loop.body)
    stepped = []
    for op in operations:
        if not op.calls(*_TESTS) or not any(name in moved for name in op.uses()):
            continue
        decided = _decided_by(op.target, operations)
        ends = {edge.target for edge in loop.back_edges if edge.uses() and edge.uses()[0] in decided
                and edge.target in activity.useful}
        if ends:
            stepped.append((op.target, ends))
    return stepped


def _scale_factor(op: Operation, name: str) -> float | None:
    """``c`` where ``op`` is ``name * c``, ``c * name`` or ``name / (1 / c)`` for a number ``c``, else None."""
    numbers = [literal_number(atom) for atom in op.args]
    if op.calls(operator.mul, np.multiply) and len(op.args) == 2:
        for position in (0, 1):
            if getattr(op.args[position], "name", None) == name and numbers[1 - position]:
                return numbers[1 - position]
    if op.calls(operator.truediv, np.divide, np.true_divide) and len(op.args) == 2 \
            and getattr(op.args[0], "name", None) == name and numbers[1]:
        return 1.0 / numbers[1]
    return None


def _shrinking_steps(loop: Loop) -> set[str]:
    """The carried variables every iteration scales by a constant factor less than 1 in size, whatever
    the tests (``step *= 0.5``, ``step = step / 2``): the step of a search that halves it."""
    defined = {op.target: op for item in loop.body if isinstance(item, Statement) for op in item.operations}
    steps = set()
    for edge in loop.back_edges:
        op = defined.get(edge.uses()[0]) if edge.uses() else None
        while op is not None and (op.kind == "copy" or op.calls(written_into)) and op.args and isinstance(op.args[0], Var):
            op = defined.get(op.args[0].name)
        factor = None if op is None else _scale_factor(op, edge.target)
        if factor is not None and abs(factor) < 1.0:
            steps.add(edge.target)
    return steps


def _moved_by_a_shrinking_step(loop: Loop, ends, carrying: set[str]) -> bool:
    """Whether an end moves by a step the loop shrinks (``if (x + step) ** 2 <= a: x = x + step`` where
    ``step *= 0.5``; ``x = x - np.sign(x * x - a) * step``): a search converging on its point one end at a
    time, as bisection does with two. Ends in ``carrying`` are left alone: a branch moving a value that
    carries a derivative by a shrinking step is an annealing's accepted proposal as much as a search."""
    steps = _shrinking_steps(loop) - set(ends)
    operations = operations_of(loop.test) + operations_of(loop.body)
    return any(edge.target in ends and edge.target not in carrying and edge.uses()
               and _reads_of(edge.uses()[0], operations, propagates) & steps for edge in loop.back_edges)


def _narrows(loop: Loop, ends) -> bool:
    """Whether some end's new value is made, by differentiable operations, from two ends (``hi = mid``
    where ``mid = 0.5 * (lo + hi)``): a point inside the bracket. A merge's counters (``i += 1`` on one
    path, ``j += 1`` on the other) and a running maximum and minimum (``hi = v``, ``lo = v``) each move
    one end by itself. Ends written in place (``ab[1] = m``) are taken to."""
    if any(isinstance(end, tuple) for end in ends):
        return True
    operations = operations_of(loop.test) + operations_of(loop.body)
    new_values = {edge.uses()[0] for edge in loop.back_edges if edge.target in ends and edge.uses()}
    return any(len(_reads_of(value, operations, propagates) & set(ends)) > 1 for value in new_values)


def _variable(end) -> str:
    return end[0] if isinstance(end, tuple) else end


def _narrowed_ends(loop: Loop, moved: set[str], activity: Activity) -> list | None:
    """Two ends the loop's branches move, each by a test on a differentiated value, when it narrows a
    bracket as the module says: one branch moving one end on one path and the other on the other,
    or two branches (``if f(m) > 0: hi = m`` then ``if f(m) <= 0: lo = m``) each moving its own."""
    sides, tested = [], set()
    operations = operations_of(loop.test) + operations_of(loop.body)
    for branch in nested(loop.body, Branch):
        if getattr(branch.condition, "name", None) in moved:
            sides.append(_one_sided_ends(loop, branch, activity))
            tested |= _reads_of(branch.condition.name, operations)
    for condition, chosen in _selected_ends(loop, moved, activity).items():
        sides.append(chosen)
        tested |= _reads_of(condition, operations)
    pairs = [(first | second, tested) for first, second in sides if first and second]
    pairs += [(first_a | second_a | first_b | second_b, tested)
              for n, (first_a, second_a) in enumerate(sides) for first_b, second_b in sides[n + 1:]
              if first_a | second_a and first_b | second_b and len(first_a | second_a | first_b | second_b) > 1]
    stepped = [(ends, _reads_of(step, operations)) for step, ends in _stepped_ends(loop, moved, activity)]
    for ends, reads in pairs + stepped:
        if reads & {_variable(end) for end in ends} and _narrows(loop, ends):
            return sorted(ends, key=str)
    searches = [(side, tested, activity.varied) for first, second in sides for side in (first, second) if side]
    for ends, reads, carrying in searches + [(ends, reads, set()) for ends, reads in stepped]:
        if reads & {_variable(end) for end in ends} and _moved_by_a_shrinking_step(loop, ends, carrying):
            return sorted(ends, key=str)
    return None


def _spelled(end) -> str:
    return f"`{user_name_of(end[0])}[{end[1]}]`" if isinstance(end, tuple) else f"`{user_name_of(end)}`"


def refuse_narrowed_brackets(function: Function, wrt: tuple[str, ...], activity: Activity) -> None:
    """Raise at the first loop of ``function`` that narrows a bracket by a test on ``wrt``."""
    moved = varied_values(operations_of(function.statements), wrt, carries=lambda op: op.kind not in ("assert", "effect"))
    for loop in nested(function.statements, Loop):
        ends = _narrowed_ends(loop, moved, activity)
        if ends is None:
            continue
        spelled = " and ".join(_spelled(end) for end in ends)
        raise UnsupportedSyntaxError(
            f"this loop narrows a bracket ({spelled}) by a test on a differentiated value (bisection or a "
            "search like it): the test only chooses which end moves, so every step's derivative is that of "
            "ends made of constants or of the starting bracket, while the value found moves with the input in "
            "steps finer than any difference sees", loop.location,
            "find the point under s2sad.stop_gradient, then take one Newton step on it, which carries the "
            "derivative (`r = s2sad.stop_gradient(r)`, `r = r - g(r, a) / dg_dr(r, a)`), or give the solver "
            "a rule with s2sad.custom_vjp")
