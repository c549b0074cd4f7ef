"""What forward mode knows of each tangent variable, found before a line is written.

For each variable: whether its tangent variable holds a value (``tangents``), and what is
known of that value when the code runs: it may be ZERO, it stands for an array rather than
a number written in the source, it is a container some items of which may be ZERO. Rules
are never handed a symbolic zero, so what may be ZERO is guarded where it is read.

``change_of`` says what one operation does to these facts; the forward generator applies it
as it writes each operation, and ``analyse`` walks the whole function with it before a line
is written, to find what every loop's body may start from: an iteration reads what the one
before it left, so a tangent some iteration leaves ZERO may be ZERO at the top of each
(a fixpoint over facts). The generator then writes each loop body once.
"""
from __future__ import annotations

import ast
import inspect
import operator
from collections import Counter
from typing import NamedTuple


from ..frontend.ir import Branch, Const, Context, Function, Jump, Loop, Operation, Var, operations_of
from ..frontend.resolve import is_library
from ..registry.forward import forward_rule
from .activity import Activity, propagates
from ..transformed import is_bound_users_method

# What the generator knows of a tangent variable's value when the code runs (sets of variables):
ZERO_FLAG = "zero"       # it may be ZERO
SHAPED_FLAG = "shaped"   # ... standing for an array, not for a number written in the source (`total = 0.0`)
ITEMS_FLAG = "items"     # it is a container some items of which (or of its items) may be ZERO
FLAGS = (ZERO_FLAG, SHAPED_FLAG, ITEMS_FLAG)


class TangentFacts:
    def __init__(self, derivative):
        self.derivative = derivative           # variable -> its tangent variable's name
        self.tangents: set[str] = set()        # variables whose tangent variable holds a value
        self.flags: dict[str, set[str]] = {flag: set() for flag in FLAGS}   # ... what is known of that value
        self.numbers: set[str] = set()         # variables holding a number written in the source
        # tuples built here and assigned once: per item, whether it has a tangent, whether that
        # may be ZERO, and whether its items may be (what unpacking or indexing them reads is known)
        self.static_items: dict[str, dict[int, tuple[bool, bool, bool]]] = {}
        self.flag_log: set[tuple[str, str]] = set()   # every (flag, name) set so far: what a loop's body left

    def tangent_of(self, atom) -> str:
        """The tangent of an atom as code: its tangent variable, or ZERO."""
        if isinstance(atom, Var) and atom.name in self.tangents:
            return self.derivative(atom.name)
        return "ZERO"

    def has_tangent(self, atom) -> bool:
        return isinstance(atom, Var) and atom.name in self.tangents

    @property
    def zero_tangents(self) -> set[str]:
        return self.flags[ZERO_FLAG]

    @property
    def zero_items(self) -> set[str]:
        return self.flags[ITEMS_FLAG]

    def may_be_zero(self, atom) -> bool:
        return self.has_tangent(atom) and atom.name in self.zero_tangents

    def items_may_be_zero(self, atom) -> bool:
        """Whether an item read from the tangent of ``atom`` may be ZERO (all of a ZERO's are)."""
        return self.has_tangent(atom) and (atom.name in self.zero_tangents or atom.name in self.zero_items)

    def flag(self, name: str, maybe_zero: bool, zero_items: bool, shaped: bool = True) -> None:
        """``name``'s tangent variable is assigned: whether the value may be ZERO (standing for
        an array, unless ``shaped`` is false), or hold ZERO items."""
        self.tangents.add(name)
        for flag, flagged in ((ZERO_FLAG, maybe_zero), (SHAPED_FLAG, maybe_zero and shaped), (ITEMS_FLAG, zero_items)):
            if flagged:
                self.flags[flag].add(name)
                self.flag_log.add((flag, name))
            else:
                self.flags[flag].discard(name)

    def static_item(self, container, key):
        """``(has a tangent, may be ZERO, items may be ZERO)`` of item ``key`` of a tuple built in
        this function, or None when that is not known here."""
        if not isinstance(container, Var) or not isinstance(key, int) or isinstance(key, bool):
            return None
        items = self.static_items.get(container.name)
        if items is None:
            return None
        return items.get(key if key >= 0 else key + len(items))

    def copy_of_flags(self) -> dict[str, set[str]]:
        return {flag: set(names) for flag, names in self.flags.items()}


class Change(NamedTuple):  # a NamedTuple: made in a fifth of a frozen dataclass's time, at import
    """Writing an operation's tangent sets ``name``'s tangent variable: what is then known of it."""

    name: str
    maybe_zero: bool = False
    zero_items: bool = False
    shaped: bool = True
    items: dict | None = None   # a tuple built here: per item (has a tangent, may be ZERO, items may be)


class FunctionFacts:
    """What ``change_of`` needs to know of the function besides the facts of the moment."""

    def __init__(self, function: Function, activity: Activity):
        self.function = function
        self.activity = activity
        assignments = Counter(op.target for op in operations_of(function.statements) if op.kind != "mutate")
        self.assigned_once = {name for name, count in assignments.items() if count == 1}  # not a loop's carried value


def is_number(atom) -> bool:
    """A number written in the source (``0.0``, ``-1``): a 0-d value, which no broadcast enlarges."""
    if not isinstance(atom, Const):
        return False
    try:
        value = ast.literal_eval(atom.code)
    except (ValueError, SyntaxError):
        return False
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def transformable(value) -> bool:
    """A user function without a forward rule: called through its own generated jvp."""
    original = getattr(value, "__s2sad_original__", value)
    if is_bound_users_method(original):  # a classmethod called by name (transform.py: BoundCall)
        original = original.__func__
    return inspect.isfunction(original) and not is_library(original)


def through_generated_jvp(op: Operation, activity: Activity) -> bool:
    return (op.target in activity.active and op.kind == "call" and op.callee.kind == "static"
            and op.callee.operator_code is None and forward_rule(op.callee.value) is None
            and transformable(op.callee.value))


def indexed_item(op: Operation, facts: TangentFacts):
    """What ``static_item`` knows of ``container[i]`` with ``i`` written as a number."""
    if op.callee.value is not operator.getitem or len(op.args) != 2 or not isinstance(op.args[1], Const):
        return None
    try:
        index = ast.literal_eval(op.args[1].code)
    except (ValueError, SyntaxError):
        return None
    return facts.static_item(op.args[0], index)


def change_of(op: Operation, facts: TangentFacts, known: FunctionFacts) -> Change | None:
    """What writing ``op``'s tangent does to the facts (None: it sets no tangent)."""
    activity = known.activity
    if op.kind == "mutate":
        return _mutation(op, facts, activity)
    active = op.target in activity.active and op.kind not in ("assert", "effect")
    if not active:
        return None
    if through_generated_jvp(op, activity):
        # what the helper returns may not depend on the arguments given tangents (a constant,
        # a tuple holding one): its tangent, or items of it, may be ZERO
        return Change(op.target, maybe_zero=True, zero_items=True)
    change = _tangent(op, facts, known)
    if change is None and op.target in facts.tangents:
        # the target already holds a tangent (a loop's carried value from the iteration before,
        # now given a constant): it must not keep that one
        return Change(op.target, maybe_zero=True, shaped=not (op.kind == "copy" and is_number(op.args[0])))
    return change


def _tangent(op: Operation, facts: TangentFacts, known: FunctionFacts) -> Change | None:
    has = facts.has_tangent
    if op.kind == "copy":
        source = op.args[0]
        if not has(source):
            return None
        return Change(op.target, facts.may_be_zero(source), source.name in facts.zero_items,
                      source.name in facts.flags[SHAPED_FLAG])
    if op.kind == "unpack":
        source = op.args[0]
        item = facts.static_item(source, op.index)
        if item is not None and not item[0] or not has(source):
            return None  # a constant item of a tuple built here: its tangent is zero, and no code
        maybe_zero, zero_items = item[1:] if item is not None else (facts.items_may_be_zero(source),) * 2
        return Change(op.target, maybe_zero, zero_items)
    if op.kind in ("tuple", "list", "dict"):
        values = op.args if op.kind != "dict" else [value for _, value in op.kwargs]
        if not any(has(a) for a in values):
            return None
        items = None
        if op.kind == "tuple" and op.target in known.assigned_once:
            items = {i: (has(a), facts.may_be_zero(a), facts.items_may_be_zero(a)) for i, a in enumerate(op.args)}
        # (items at any depth: `[(2, s), (2, u)]`'s items have tangents, but their first items are ZERO)
        return Change(op.target, zero_items=not all(has(a) and not facts.items_may_be_zero(a) for a in values),
                      items=items)
    callee = op.callee
    if callee.kind == "attribute":
        receiver = op.args[0]
        # a field of a structural tangent that does not have it is ZERO
        return Change(op.target, facts.items_may_be_zero(receiver), facts.items_may_be_zero(receiver)) if has(receiver) else None
    if callee.kind == "method":
        # the receiver's type picks the rule when the code runs: a method of the user's class
        # is differentiated from source and, like a helper, may give ZERO
        return Change(op.target, maybe_zero=True, zero_items=True) if any(has(a) for a in op.atoms()) else None
    return _rule(op, facts)


def _rule(op: Operation, facts: TangentFacts) -> Change | None:
    if not propagates(op):
        return None  # np.zeros, a comparison: a constant, whose tangent is zero
    forward = forward_rule(op.callee.value)
    if forward is None:
        return None  # the generator refuses the call
    try:
        arguments = forward.rule.signature.bind(*op.args, **dict(op.kwargs)).arguments
    except TypeError:
        return None
    item = indexed_item(op, facts)
    if item is not None and not item[0]:
        return None  # a constant item of a tuple built here
    contributing = [arguments[p] for p in forward.rule.signature.parameters
                    if has_packed_tangent(facts, arguments.get(p)) and forward.jvps.get(p) is not None]
    if not contributing:
        return None
    # a *args parameter's tangent is the tuple of its arguments' (ZERO for those without): what
    # its jvp makes of them may be ZERO (max(a, b) where b, without one, wins), or hold ZERO items
    every_zero = all(isinstance(atom, tuple) or facts.may_be_zero(atom) for atom in contributing)
    zero_items = any(isinstance(atom, tuple) or atom.name in facts.zero_items for atom in contributing)   # list(xs), zip(xs, ys)
    if op.callee.value is operator.getitem:
        # an item taken out of a container is ZERO where the container's is
        every_zero, zero_items = item[1:] if item is not None else (every_zero or zero_items,) * 2
    return Change(op.target, every_zero, zero_items)


def has_packed_tangent(facts: TangentFacts, bound) -> bool:
    """Whether an argument bound to a parameter has a tangent: for a ``*args`` parameter (a
    tuple of atoms), whether any of the arguments it collected has one."""
    if isinstance(bound, tuple):
        return any(facts.has_tangent(atom) for atom in bound)
    return facts.has_tangent(bound)


def _mutation(op: Operation, facts: TangentFacts, activity: Activity) -> Change | None:
    container, method = op.args[0], op.callee.name
    if container.name not in activity.active:
        return None
    has = facts.has_tangent
    # a container's tangent is ZERO until something with a tangent is put in; the items the
    # code puts in without one (or with one that may be ZERO) are ZERO in it
    empty = not has(container) or facts.may_be_zero(container)
    items_zero = empty or container.name in facts.zero_items
    if method == "setitem":
        value = op.args[2]
        if not (has(value) or has(container)):
            return None
        return Change(container.name, zero_items=items_zero or not has(value) or facts.may_be_zero(value)
                      or facts.items_may_be_zero(value))
    if method in ("append", "extend", "insert"):
        value = op.args[-1]
        added_zero = not has(value) or facts.items_may_be_zero(value)  # (or its items, at any depth)
        return Change(container.name, maybe_zero=empty and (not has(value) or facts.may_be_zero(value)),
                      zero_items=items_zero or added_zero)
    if has(container):  # pop
        return Change(op.target, facts.items_may_be_zero(container), facts.items_may_be_zero(container))
    return None


def apply(op: Operation, change: Change | None, facts: TangentFacts) -> None:
    """``op`` written: the number it may copy, and the tangent it sets."""
    if op.kind == "copy" and is_number(op.args[0]):
        facts.numbers.add(op.target)
    else:
        facts.numbers.discard(op.target)
    if change is not None:
        if change.items is not None:
            facts.static_items[change.name] = change.items
        facts.flag(change.name, change.maybe_zero, change.zero_items, change.shaped)


def element_change(op: Operation, facts: TangentFacts, activity: Activity) -> Change | None:
    """A loop's element (``x`` in ``for x in xs``): an item of the iterable's tangent."""
    source = op.args[0]
    if op.target not in activity.active or not facts.has_tangent(source):
        return None
    return Change(op.target, facts.items_may_be_zero(source), facts.items_may_be_zero(source))


def carried_by(loop: Loop) -> list[str]:
    """The variables whose tangents an iteration hands to the next: carried values, those of
    loops inside it that live outside it (a total an inner loop sums), containers it changes."""
    body = operations_of(loop.body)
    defined = {op.target for op in body if op.kind != "mutate"}
    changed = [op.args[0].name for op in body if op.kind == "mutate" and op.callee.name != "pop"]
    within = _carried_within(loop.body)
    inner = [name for name in within if name not in defined - set(within)]
    return list(dict.fromkeys([*loop.carried, *inner, *(n for n in changed if n not in defined)]))


def left_by_breaks(loop: Loop) -> list[str]:
    """The variables this loop's own ``break``s write on their way out and no iteration hands on
    (a ``return`` inside the loop: its result). After the loop each holds what a ``break`` gave it,
    or, when the loop ended without one, what it held before the loop: its primal is bound there
    (the result starts as None), so its tangent must be too."""
    carried = set(loop.carried)
    names = []

    def visit(block):
        for item in block:
            if isinstance(item, Branch):
                visit(item.then)
                visit(item.orelse)
            elif isinstance(item, Jump) and item.kind == "break":
                names.extend(op.target for op in item.edges if op.target not in carried)
            # an inner loop's breaks leave the inner loop, not this one
    visit(loop.body)
    return list(dict.fromkeys(names))


def starting_zero(loop: Loop, facts: TangentFacts, activity: Activity) -> list[str]:
    """The variables whose tangents the loop must set to ZERO before it: the carried ones the body
    reads, and those its ``break``s write, read after it on whichever way it ended."""
    return [name for name in dict.fromkeys([*carried_by(loop), *left_by_breaks(loop)])
            if name in activity.active and name not in facts.tangents]


def inline_test(loop: Loop) -> Operation | None:
    """A ``while`` test of one operator call on the condition, written inline in the header."""
    test = loop.test
    if len(test) != 1 or isinstance(test[0], (Loop, Branch, Jump)) or len(test[0].operations) != 1:
        return None
    single = test[0].operations[0]
    if single.kind == "call" and single.callee.operator_code and isinstance(loop.condition, Var) \
            and single.target == loop.condition.name:
        return single
    return None


def snapshot(facts: TangentFacts):
    return set(facts.tangents), facts.copy_of_flags(), set(facts.numbers), dict(facts.static_items)


def restore(facts: TangentFacts, state) -> None:
    tangents, flags, numbers, static_items = state
    facts.tangents, facts.numbers, facts.static_items = set(tangents), set(numbers), dict(static_items)
    facts.flags = {flag: set(names) for flag, names in flags.items()}


def join_paths(facts: TangentFacts, branch: Branch, then_state, read_names) -> tuple[list[str], list[str]]:
    """After both paths of ``branch`` (``facts`` as the else path left them, ``then_state`` as the
    then path did): what may be so on either. A tangent set on one path only is set to ZERO on
    the other; returns the names each path ends by setting to ZERO."""
    after_then, flags_then, numbers_then = then_state[0], then_state[1], then_state[2]
    after_else, numbers_else = set(facts.tangents), facts.numbers
    for flag, names in flags_then.items():
        facts.flags[flag] |= names
    facts.numbers = numbers_then & numbers_else
    facts.tangents = after_then | after_else
    inside = {op.target for op in operations_of(branch.then + branch.orelse)}
    zeros = []
    for mine, numbers, block in ((after_then, numbers_then, branch.then), (after_else, numbers_else, branch.orelse)):
        path = []
        if not _always_jumps(block):  # what follows a break or continue never runs
            for name in sorted(facts.tangents - mine):
                if name in inside or name in read_names:
                    path.append(name)
                    for flag in (ZERO_FLAG, SHAPED_FLAG) if name not in numbers else (ZERO_FLAG,):
                        facts.flags[flag].add(name)
                        facts.flag_log.add((flag, name))
        zeros.append(path)
    return zeros[0], zeros[1]


def leave_loop(facts: TangentFacts, loop: Loop, head: dict, outer_log: set) -> None:
    """After the loop: what the last iteration left, or what the first started with."""
    carried = set(carried_by(loop)) | set(left_by_breaks(loop))
    facts.flag_log |= outer_log
    for flag, names in head.items():
        for name in names & carried:
            facts.flags[flag].add(name)
            facts.flag_log.add((flag, name))
    facts.numbers -= carried


def analyse(function: Function, wrt, activity: Activity, read_names) -> dict[int, dict[str, set[str]]]:
    """Per loop (by id), the flags its body may start from beyond those it is entered with:
    what an iteration leaves for the next (a fixpoint over facts, before any code is written).
    ``wrt``: the parameters (their versions) given tangents."""
    walker = _Walker(function, activity, read_names)
    walker.facts.tangents.update(name for name in function.params if name in wrt)
    walker.block(function.statements)
    return walker.heads


class _Walker:
    def __init__(self, function: Function, activity: Activity, read_names):
        self.facts = TangentFacts(lambda name: name)
        self.known = FunctionFacts(function, activity)
        self.activity = activity
        self.read_names = read_names
        self.heads: dict[int, dict[str, set[str]]] = {}

    def block(self, block) -> None:
        for item in block:
            if isinstance(item, Loop):
                self.loop(item)
            elif isinstance(item, Branch):
                self.branch(item)
            elif isinstance(item, Jump):
                self.operations(item.edges)
            else:
                self.operations(item.operations)

    def operations(self, operations) -> None:
        for op in operations:
            apply(op, change_of(op, self.facts, self.known), self.facts)

    def branch(self, branch: Branch) -> None:
        before = snapshot(self.facts)
        self.block(branch.then)
        then_state = (set(self.facts.tangents), self.facts.copy_of_flags(), self.facts.numbers)
        tangents, flags, numbers, _ = before
        self.facts.tangents, self.facts.flags, self.facts.numbers = set(tangents), flags, numbers
        self.block(branch.orelse)
        join_paths(self.facts, branch, then_state, self.read_names)

    def loop(self, loop: Loop) -> None:
        self.operations(loop.setup)
        for name in starting_zero(loop, self.facts, self.activity):
            self.facts.flag(name, True, False, shaped=name not in self.facts.numbers)
        carried = carried_by(loop)
        start, outer_log = snapshot(self.facts), self.facts.flag_log
        added: dict[str, set[str]] = {flag: set() for flag in FLAGS}
        while True:
            head = self.facts.copy_of_flags()
            self.facts.flag_log = set()
            self.iteration(loop)
            missing = {(flag, name) for flag, name in self.facts.flag_log if name in carried and name not in head[flag]}
            if not missing:
                break
            restore(self.facts, start)
            for flag, name in missing:
                self.facts.flags[flag].add(name)
                added[flag].add(name)
            start = snapshot(self.facts)
        self.heads[id(loop)] = added
        leave_loop(self.facts, loop, head, outer_log)

    def iteration(self, loop: Loop) -> None:
        if loop.condition is not None and inline_test(loop) is None:
            self.block(loop.test)
        for op in loop.elements:
            change = element_change(op, self.facts, self.activity)
            if change is not None:
                self.facts.flag(change.name, change.maybe_zero, change.zero_items, change.shaped)
        self.block(loop.body)
        self.operations(loop.back_edges)


def _always_jumps(block) -> bool:
    """Whether every path through ``block`` ends in ``break`` or ``continue``."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, Context):
        return _always_jumps(last.then)
    return isinstance(last, Jump) or (isinstance(last, Branch) and _always_jumps(last.then) and _always_jumps(last.orelse))


def _carried_within(block) -> list[str]:
    names = []
    for item in block:
        if isinstance(item, Loop):
            names += [*item.carried, *_carried_within(item.body)]
        elif isinstance(item, Branch):
            names += _carried_within(item.then) + _carried_within(item.orelse)
    return names
