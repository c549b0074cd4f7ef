"""Loops that narrow a bracket by a test on a differentiated value: bisection, regula falsi,
golden-section search (``if g(mid, a) > 0: hi = mid`` / ``else: lo = mid``).

The ends of the bracket hold no derivative (they are made of constants), and the test only
chooses which end moves. As NumPy computes it, the root is then a staircase in ``a`` whose steps
shrink with every iteration, far below any finite difference: its slope is the root's, but each
step's derivative, which s2sad would return, is 0. Refused at the loop, with the rewrite that
gives the root's derivative.

The signature looked for: in a loop, a branch whose test depends on a differentiated input,
where one path changes one loop-carried variable and the other path another, neither carrying
a derivative, the test reading what they were, and the result reading them. One end only
(a Metropolis step's ``x = proposal``, a counter) or the same variable on both paths (an
adaptive step's ``dt *= 1.5`` / ``dt *= 0.5``) changes at isolated points of the input, where
the derivative of the branch taken is the function's."""
from __future__ import annotations

from ..errors import UnsupportedSyntaxError
from ..frontend.ir import Branch, Function, Loop, operations_of
from .activity import Activity, varied_values


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


def _reads_of(name: str, operations) -> set[str]:
    """What ``name`` is computed from, through any operation (differentiable or not), transitively."""
    sources, before = {name}, -1
    while len(sources) != before:
        before = len(sources)
        for op in operations:
            if op.target in sources:
                sources.update(op.uses())
    return sources


def _nested(block, kind):
    """The loops or branches (``kind``) of ``block``, at any depth of loops' bodies and branches' paths."""
    for item in block:
        if isinstance(item, kind):
            yield item
        if isinstance(item, Loop):
            yield from _nested(item.body, kind)
        elif isinstance(item, Branch):
            yield from _nested(item.then, kind)
            yield from _nested(item.orelse, kind)


def _narrowed_ends(loop: Loop, branch: Branch, moved: set[str], activity: Activity) -> list[str] | None:
    """The loop names of the two ends ``branch`` moves, when it narrows a bracket as the module says."""
    if getattr(branch.condition, "name", None) not in moved:
        return None
    loop_operations = {op.target: op for op in operations_of(loop.body)}
    kept = []
    for path in (branch.then, branch.orelse):
        defined = {**loop_operations, **{op.target: op for op in operations_of(path)}}  # the path's merge copies win
        kept.append({edge.target for edge in loop.back_edges if edge.uses()
                     and _origin(edge.uses()[0], defined) == edge.target})
    candidates = {edge.target for edge in loop.back_edges
                  if edge.target not in activity.varied and edge.target in activity.useful}
    ends = [(candidates - kept[0]) & kept[1], (candidates - kept[1]) & kept[0]]
    if not ends[0] or not ends[1]:
        return None
    tested = _reads_of(branch.condition.name, operations_of(loop.test) + operations_of(loop.body))
    both = sorted(ends[0] | ends[1])
    return both if tested & set(both) else None


def refuse_narrowed_brackets(function: Function, wrt: tuple[str, ...], activity: Activity) -> None:
    """Raise at the first loop of ``function`` that narrows a bracket by a test on ``wrt``."""
    moved = varied_values(operations_of(function.statements), wrt, carries=lambda op: op.kind not in ("assert", "effect"))
    for loop in _nested(function.statements, Loop):
        for branch in _nested(loop.body, Branch):
            ends = _narrowed_ends(loop, branch, moved, activity)
            if ends is None:
                continue
            spelled = " and ".join(f"`{name}`" for name in ends)
            raise UnsupportedSyntaxError(
                f"this loop narrows a bracket ({spelled}) by a test on a differentiated value (bisection or a "
                "search like it): the ends carry no derivative, so every step's derivative is 0, while the value "
                "found moves with the input in steps finer than any difference sees", loop.location,
                "find the point under s2sad.stop_gradient, then take one Newton step on it, which carries the "
                "derivative (`r = s2sad.stop_gradient(r)`, `r = r - g(r, a) / dg_dr(r, a)`), or give the solver "
                "a rule with s2sad.custom_vjp")
