"""What each cotangent holds at each point of the pullback, known before a line of it is written.

The pullback (``codegen/reverse.py``) walks the function's operations backwards, and the
reverse of each adds to the cotangents of the operation's operands. How a line is written
depends on what those cotangents hold when it runs:

* *assigned*: the cotangent holds a value (the first contribution assigns it, later ones
  accumulate; an operation whose own cotangent holds none contributes nothing);
* *may be a thunk*: a rule's lazy cotangent, unthunked before another rule reads it;
* *may be ZERO*: the symbolic zero (nothing reached the value on some path, or a pullback
  gave none); the reverse of the operation producing it is guarded by ``if g is not ZERO:``.

``contributions`` says what the reverse of one operation adds, to which operands, and what
that may be; ``analyse`` walks the IR in the pullback's order once, applying it, and
records at each operation, branch, loop and jump what the emitter needs to know. A loop's
body is walked until the facts at the top of a reverse iteration stop growing (a carried
cotangent left ZERO by one iteration is ZERO at the top of the next): a fixpoint over
facts, computed before anything is written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Container, NamedTuple

from ..frontend.ir import Branch, Function, Jump, Loop, Operation, Statement, Var, operations_of
from ..registry import rule_for
from .activity import Activity, propagates

PULLBACK_TREATMENTS = ("rrule", "transformed", "forward_call")   # calls whose reverse is a pullback the primal returned
KEYWORD_TREATMENTS = ("transformed", "forward_call", "method")   # ... whose pullback gives keyword arguments' cotangents too
# (a method's, runtime/methods.py: a rule's pullback refuses to give one it has not, naming the method)
WRITES = {"setitem": 2, "append": 1, "extend": 1, "insert": 2}  # in-place changes that write a value: its position (the rest pop)


class Contribution(NamedTuple):  # a NamedTuple: made in a fifth of a frozen dataclass's time, at import
    """One addition the reverse of an operation makes to the cotangent of one operand."""

    atom: Var
    key: object = None          # which part of the reverse: a rule's parameter, an item's position, a keyword
    thunk: bool = False         # what it adds may be a Thunk
    zero: bool = False          # ... or ZERO
    passes: str | None = None   # it adds this variable's cotangent as it is (a copy): its facts are that one's


def contributions(op: Operation, activity: Activity, treatment: Callable[[Operation], str],
                  optimize: bool = True) -> list[Contribution]:
    """What the reverse of ``op`` adds to its operands' cotangents, in the order it adds them.

    ``treatment`` says how an active call is differentiated (``Emitter.treatment``). For an
    in-place change, what the value written receives (its container's cotangent is the
    analysis' own business, see ``_Walker.mutation``).
    """
    active = activity.is_active
    if op.kind == "mutate":
        written = WRITES.get(op.callee.name)
        # an element or items of the container's cotangent: ZERO where nothing was read
        return [Contribution(op.args[written], zero=True)] if written is not None and active(op.args[written]) else []
    if op.kind == "copy":
        return [Contribution(op.args[0], passes=op.target)] if active(op.args[0]) else []
    if op.kind == "element":
        return [Contribution(op.args[0], thunk=True)] if active(op.args[0]) else []  # untake: a Thunk
    if op.kind == "unpack":
        return [Contribution(op.args[0])] if active(op.args[0]) else []
    if op.kind == "dict":
        return [Contribution(value, key=key, zero=True) for key, value in op.kwargs if active(value)]
    if op.kind in ("tuple", "list"):  # an item never read is ZERO
        return [Contribution(atom, key=index, zero=True) for index, atom in enumerate(op.args) if active(atom)]
    how = "method" if op.callee.kind in ("method", "attribute") else treatment(op)
    if how == "method" or how in PULLBACK_TREATMENTS:
        # a pullback may return Thunks, or ZERO (for a parameter the callee never reads)
        positional = [Contribution(atom, key=index, thunk=True, zero=True)
                      for index, atom in enumerate(op.args) if active(atom)]
        keywords = [Contribution(atom, key=name, thunk=True, zero=True)
                    for name, atom in op.kwargs if active(atom)] if how in KEYWORD_TREATMENTS else []
        return positional + keywords
    rule = rule_for(op.callee.value)
    arguments = rule.signature.bind(*op.args, **dict(op.kwargs)).arguments
    found = []
    for param in rule.signature.parameters:
        atom = arguments.get(param)
        if not active(atom):
            continue
        if rule.kind == "vjp_all":
            found.append(Contribution(atom, key=param, zero=True))
            continue
        template = rule.template(param) if optimize else None
        vjp = rule.vjps.get(param)
        if template is None and vjp is None:
            continue  # the rule says no gradient flows to this parameter
        # a vjp function may return ZERO (a derivative that is zero at this call); a template never does
        found.append(Contribution(atom, key=param, thunk=rule.thunks, zero=template is None and callable(vjp)))
    return found


@dataclass
class State:
    """At one point of the pullback: the variables whose cotangents hold a value, may hold a
    Thunk, may hold ZERO."""

    assigned: set[str] = field(default_factory=set)
    thunk: set[str] = field(default_factory=set)
    zero: set[str] = field(default_factory=set)

    def copy(self) -> State:
        return State(set(self.assigned), set(self.thunk), set(self.zero))


@dataclass
class Reversal:
    """The reverse of one operation whose cotangent holds a value when it runs (an operation
    whose cotangent holds none has no reversal: it contributes nothing)."""

    contributions: list[Contribution]
    accumulates: list[bool] = field(default_factory=list)   # per contribution: its target already holds a value
    unthunk: bool = False                   # the operation's cotangent may be a Thunk: unthunked first
    guard: tuple[str, ...] | None = None    # it may be ZERO: the reverse runs under ``if g is not ZERO:``, and
                                            # these operands' cotangents start at ZERO before it


@dataclass
class Undoing:
    """The reverse of an in-place change (``y[i] = v``, ``append``, ``extend``, ``pop``)."""

    flowing: bool                           # the container's cotangent holds a value
    unthunk: bool                           # ... which may be a Thunk: unthunked first
    contributions: list[Contribution] = field(default_factory=list)   # to the value written, when flowing
    accumulates: list[bool] = field(default_factory=list)
    popped: bool = False                    # pop: the popped item's cotangent holds a value
    regains: bool = False                   # pop: the container's cotangent gets the item's place back
    starts: bool = False                    # ... and starts at ZERO first


@dataclass
class LoopFacts:
    starts: list[str]                       # cotangents set to ZERO before the reverse loop, in order
    ends: dict[str, str]                    # carried variable -> "zero" (set at the end of a reverse
                                            # iteration: nothing reached it) or "unthunk" (the next one reads it)
    zero_at_top: set[str]                   # carried variables whose cotangent may be ZERO at the top of an iteration


@dataclass
class CotangentFlow:
    """The facts the pullback's emitter reads, keyed by the IR objects they belong to."""

    reversals: dict[int, Reversal] = field(default_factory=dict)       # id(operation), a jump's edges included
    undoings: dict[int, Undoing] = field(default_factory=dict)         # id(mutation)
    branches: dict[int, tuple[list[str], list[str]]] = field(default_factory=dict)  # id(branch) -> cotangents
                                            # set to ZERO at the end of the then and the else path (the other
                                            # path contributes to them)
    loops: dict[int, LoopFacts] = field(default_factory=dict)          # id(loop), for the loops reversed
    final: State = field(default_factory=State)                        # when the pullback returns

    def reversal(self, op: Operation) -> Reversal | None:
        return self.reversals.get(id(op))


def reversed_loop(loop: Loop, activity: Activity, restored: Container[int]) -> bool:
    """Whether a loop has reverse code (and a tape): something in it is differentiated, or it
    changes a container in place in a way the pullback must undo (``restored``: the ids of
    the ``y[i] = v`` whose overwritten values are read)."""
    return any(op.target in activity.active or op.kind == "mutate" and (id(op) in restored or op.callee.name != "setitem")
               for op in [*loop.elements, *operations_of(loop.body), *loop.back_edges])


def analyse(function: Function, activity: Activity, treatment: Callable[[Operation], str], optimize: bool,
            restored: Container[int]) -> CotangentFlow:
    """The facts of ``function``'s pullback, seeded with a cotangent for its result."""
    return _Walker(function, activity, treatment, optimize, restored).run()


class _Walker:
    """The pullback's order, applied to facts: statements backwards, both paths of a branch from
    the same state, a loop's body until what its iterations start from is stable."""

    def __init__(self, function, activity, treatment, optimize, restored):
        self.function, self.activity, self.treatment = function, activity, treatment
        self.optimize, self.restored = optimize, restored
        self.state = State()
        self.flow = CotangentFlow()
        self.loops: list[Loop] = []            # the loops being walked, innermost last
        self._contributions: dict[int, list[Contribution]] = {}
        self.assignments: dict[str, int] = {}
        for op in operations_of(function.statements):
            self.assignments[op.target] = self.assignments.get(op.target, 0) + 1

    def run(self) -> CotangentFlow:
        result = self.function.result
        if isinstance(result, Var) and result.name in self.activity.active:
            self.state.assigned.add(result.name)  # the seed
        self.block(self.function.statements)
        self.flow.final = self.state
        return self.flow

    def contributions_of(self, op: Operation) -> list[Contribution]:
        found = self._contributions.get(id(op))
        if found is None:
            found = self._contributions[id(op)] = contributions(op, self.activity, self.treatment, self.optimize)
        return found

    def block(self, block) -> None:
        for item in reversed(block):
            if isinstance(item, Loop):
                self.loop(item)
                for op in reversed(item.setup):
                    self.operation(op)
            elif isinstance(item, Branch):
                self.branch(item)
            elif isinstance(item, Statement):
                for op in reversed(item.operations):
                    self.operation(op)
            elif isinstance(item, Jump):
                self.jump(item)

    # ------------------------------------------------------------------ one operation
    def contribute(self, contribution: Contribution) -> bool:
        """Apply one contribution; whether its target already held a value (it accumulates)."""
        state, name = self.state, contribution.atom.name
        passed = contribution.passes
        if contribution.thunk or passed in state.thunk:
            state.thunk.add(name)
        zero = contribution.zero or passed in state.zero
        if name in state.assigned:
            if not zero:
                state.zero.discard(name)
            return True
        state.assigned.add(name)
        if zero:
            state.zero.add(name)
        return False

    def operation(self, op: Operation) -> None:
        if op.kind == "mutate":
            self.mutation(op)
            return
        state = self.state
        # (a loop's body is walked again: what an earlier walk found may no longer hold)
        self.flow.reversals.pop(id(op), None)
        if op.target not in self.activity.active or op.target not in state.assigned:
            return  # nothing reached this value at run time: its inputs get no contribution
        if op.kind == "copy":
            found = self.contributions_of(op)
            self.flow.reversals[id(op)] = Reversal(found, [self.contribute(c) for c in found])
            return
        if op.kind == "call" and not propagates(op):
            return
        unthunk = op.target in state.thunk
        state.thunk.discard(op.target)  # rules read plain values
        found = self.contributions_of(op)
        if op.target not in state.zero:
            self.flow.reversals[id(op)] = Reversal(found, [self.contribute(c) for c in found], unthunk)
            return
        # under `if g is not ZERO:`: what it contributes to starts at ZERO in case the block is skipped
        # (only what it contributes to: a parameter the rule gives no gradient is not started, and the
        # emitter writes no start when the block is empty)
        started = tuple(name for name in dict.fromkeys(c.atom.name for c in found) if name not in state.assigned)
        possibly_zero = set(op.uses()) & state.zero
        state.zero.discard(op.target)
        accumulates = [self.contribute(c) for c in found]  # inside, a cotangent started at ZERO is simply assigned
        state.assigned.update(started)
        state.zero.update(possibly_zero, started)  # the block may not run
        self.flow.reversals[id(op)] = Reversal(found, accumulates, unthunk, started)

    def mutation(self, op: Operation) -> None:
        state, active = self.state, self.activity.active
        name = op.args[0].name
        flowing = name in active and name in state.assigned
        unthunk = flowing and name in state.thunk
        if unthunk:
            state.thunk.discard(name)
        undoing = self.flow.undoings[id(op)] = Undoing(flowing, unthunk)
        if op.callee.name in WRITES:
            if flowing:
                undoing.contributions = self.contributions_of(op)
                undoing.accumulates = [self.contribute(c) for c in undoing.contributions]
            return
        undoing.popped = op.target in active and op.target in state.assigned
        # the container's cotangent regains the popped item's place even when nobody read that
        # item (it then holds ZERO there): the code before the pop indexes it by position
        undoing.regains = name in active and (undoing.popped or flowing)
        if undoing.regains:
            if name not in state.assigned:
                undoing.starts = True
                state.assigned.add(name)
                state.zero.add(name)
            if undoing.popped and op.target not in state.zero:
                state.zero.discard(name)  # inserted_at gives ZERO only for two zeros

    # ------------------------------------------------------------------ branches, loops, jumps
    def branch(self, branch: Branch) -> None:
        """Both paths from the same state; a cotangent from before the branch that one path
        contributes to is set to ZERO at the end of the other, so the code after it can read
        it either way."""
        before = self.state.copy()
        self.block(branch.then)
        after_then, self.state = self.state, before.copy()
        self.block(branch.orelse)
        after_else = self.state
        # values made inside the branch only (not a parameter or a value from before it that a
        # loop in the branch carries under its own name): their cotangents stay inside
        made: dict[str, int] = {}
        for op in operations_of(branch.then + branch.orelse):
            made[op.target] = made.get(op.target, 0) + 1
        inside = {name for name, count in made.items()
                  if name not in self.function.params and self.assignments[name] == count}
        zeros = ([name for name in after_else.assigned - after_then.assigned if name not in inside],
                 [name for name in after_then.assigned - after_else.assigned if name not in inside])
        self.flow.branches[id(branch)] = zeros
        self.state = State(after_then.assigned | after_else.assigned, after_then.thunk | after_else.thunk,
                           after_then.zero | after_else.zero | set(zeros[0]) | set(zeros[1]))

    def loop(self, loop: Loop) -> None:
        """The reverse iterations: the cotangents the body reads from outside, and the carried
        ones, start at ZERO; a carried cotangent goes, at the top of each iteration, to the
        version the body ended with, and is rebuilt by the body from the reads of its value."""
        if not reversed_loop(loop, self.activity, self.restored):
            return
        state, active = self.state, self.activity.active
        body_operations = operations_of(loop.body)
        defined = {op.target for op in body_operations if not _changes_in_place(op)} | {op.target for op in loop.elements}
        carried = [name for name in loop.carried if name in active]
        outer = [name for op in [*loop.elements, *body_operations] for name in op.uses() if name not in defined and name in active]
        starts = [name for name in dict.fromkeys(outer + carried) if name not in state.assigned]
        state.assigned.update(starts)
        state.zero.update(starts)
        read_in_body = {name for op in body_operations if op.target in active for name in op.uses()}
        state.zero.update(name for name in carried if name not in read_in_body)
        entry = state.copy()
        while True:
            self.state = entry.copy()
            ends = self.iteration(loop, carried)
            # a carried cotangent an iteration may leave ZERO is what the next one starts from
            late = set(carried) & self.state.zero - entry.zero
            if not late:
                break
            entry.zero |= late
        self.state.thunk |= entry.thunk  # the loop may run no iteration: what was ZERO or a Thunk before still may be
        self.state.zero |= entry.zero
        self.flow.loops[id(loop)] = LoopFacts(starts, ends, set(carried) & entry.zero)

    def iteration(self, loop: Loop, carried: list[str]) -> dict[str, str]:
        """One reverse iteration, from ``self.state``; what it does to each carried cotangent at its end."""
        self.loops.append(loop)
        for edge in reversed(loop.back_edges):
            self.operation(edge)
            self.state.assigned.discard(edge.target)
            self.state.thunk.discard(edge.target)
        self.block(loop.body)
        ends = {}
        for name in carried:
            if name not in self.state.assigned:
                ends[name] = "zero"
                self.state.assigned.add(name)
            elif name in self.state.thunk:
                ends[name] = "unthunk"  # the next iteration reads it
                self.state.thunk.discard(name)
        for element in loop.elements:
            self.operation(element)
        self.loops.pop()
        return ends

    def jump(self, jump: Jump) -> None:
        """Leaving an iteration early, reversed: the carried cotangents, as the iteration ended,
        go to the versions the jump copied back (the ones it did not copy keep theirs)."""
        if jump.kind == "raise":
            return  # a path that raised has no pullback
        loop = self.loops[-1]
        active = self.activity.active
        copied = {edge.target for edge in jump.edges}
        # the top of the reverse iteration already sent each carried cotangent to the version
        # the body ends with; a jump that copied that same version needs nothing more
        fallthrough = {edge.target: edge.args[0] for edge in loop.back_edges}
        for edge in reversed(jump.edges):
            self.flow.reversals.pop(id(edge), None)
            if edge.target in active and fallthrough.get(edge.target) != edge.args[0]:
                found = self.contributions_of(edge)
                self.flow.reversals[id(edge)] = Reversal(found, [self.contribute(c) for c in found])
        for name in loop.carried:
            if name not in copied and name in active:
                self.state.assigned.add(name)  # unchanged on this path: its cotangent stands
        self.state.assigned -= copied


def _changes_in_place(op: Operation) -> bool:
    """A mutation whose target is the container it changes (not a new value)."""
    return op.kind == "mutate" and op.callee.name != "pop"
