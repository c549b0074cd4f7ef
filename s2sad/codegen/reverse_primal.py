"""The rrule's first half in reverse mode: the user's operations as written, plus tapes.

Each differentiated call goes through its rrule and keeps the pullback
(``y, y_pullback = eigh_rrule(a)``); everything else runs as written. A loop with anything
differentiated in it gets a tape: per iteration, the values its reverse iteration reads.
What a tape saves is known only once the pullback is written, so the tape's lines are
``TapeLine`` objects here, rendered by ``tapes_written`` afterwards.
"""
from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field, replace

from ..analysis.activity import Activity, propagates
from ..analysis.cotangent_flow import PULLBACK_TREATMENTS, reversed_loop
from ..frontend.ir import Branch, Jump, Loop, Operation, Statement
from .core import INDENT, STRUCTURE_KINDS, Emitter, exact_point_checks, indented, truth_check, walk


@dataclass
class LoopCode:
    """The names one loop's generated code uses, and what its tape saves per iteration."""

    tape: str
    stands_in: str                      # whether the tape saves stand-ins, decided at its first iteration
    defined: list[str] = field(default_factory=list)   # names the primal body assigns, in order
    conditional: set = field(default_factory=set)      # ... of which some paths do not assign
    carried: set = field(default_factory=set)
    index: str | None = None            # the iteration counter, when the loop variable is differentiated
    saved: list[str] = field(default_factory=list)
    stand_ins: set = field(default_factory=set)         # ... of which the reverse reads only the type, shape, dtype
    used: bool = False


@dataclass(frozen=True)
class TapeLine:
    """A line of the primal that makes a loop's tape (before the loop) or pushes one
    iteration's values on it (at its end, and before a jump out). What it saves is known
    only once the reverse pass is written: it is rendered then, in place."""

    code: LoopCode
    push: bool = False
    indent: str = ""

    def __radd__(self, indent: str) -> TapeLine:
        """``INDENT + line`` (``indented``): the line moves into its block."""
        return replace(self, indent=indent + self.indent)

    def render(self) -> list[str]:
        code = self.code
        if not code.used:
            return []
        if self.push:
            if not code.stand_ins:
                return [f"{self.indent}{code.tape}.append({_entry(code.saved)})"]
            # values the reverse reads only for their type, shape and dtype: saved as stand-ins when the
            # first iteration's are large arrays (asked once: asking at every iteration cost small arrays 2%)
            light = _entry([f"stand_in_for({name})" if name in code.stand_ins else name for name in code.saved])
            first = next(name for name in code.saved if name in code.stand_ins)
            asked = code.stands_in
            return [f"{self.indent}if {asked} is None:", f"{self.indent}{INDENT}{asked} = worth_standing_in({first})",
                    f"{self.indent}{code.tape}.append({light} if {asked} else {_entry(code.saved)})"]
        unbound = [name for name in code.saved if name in code.conditional and name not in code.carried]
        bound = [f"{self.indent}{' = '.join(unbound)} = None  # assigned on some paths only, saved on all"] if unbound else []
        asked = [f"{self.indent}{code.stands_in} = None"] if code.stand_ins else []
        return bound + [f"{self.indent}{code.tape} = []"] + asked


def _entry(saved: list[str]) -> str:
    return "None" if not saved else saved[0] if len(saved) == 1 else f"({', '.join(saved)})"


def tapes_written(lines: list) -> list[str]:
    """``lines`` with their tape lines rendered (once the reverse pass has said what each tape saves)."""
    return [text for line in lines for text in (line.render() if isinstance(line, TapeLine) else [line])]


def tapes_made(lines: list) -> list[str]:
    """The tapes the loops written in ``lines`` make (an inner loop's, saved by the outer one)."""
    return [line.code.tape for line in lines if isinstance(line, TapeLine) and not line.push]


class PrimalHalf:
    def __init__(self, core: Emitter, activity: Activity, restored: dict, loops: dict, loop_index: dict):
        self.core = core
        self.namer = core.namer
        self.activity = activity
        self.restored = restored        # id(y[i] = v) -> the variable saving what it overwrites
        self.loops = loops              # id(loop) -> its LoopCode (shared with the pullback's writer)
        self.loop_index = loop_index    # id(element operation) -> its loop's iteration counter
        self.loop_stack: list = []      # (loop, its LoopCode or None) for the loops being written

    def block(self, block) -> list[str]:
        return walk(block, self)

    def statement(self, statement: Statement) -> list[str]:
        body = [line for op in statement.operations for line in self.operation(op)]
        return body if statement.merge else self.core.commented(statement.location, body)

    def branch(self, branch: Branch) -> list[str]:
        last_comment = self.core.last_comment
        then = self.block(branch.then)
        self.core.last_comment = last_comment
        orelse = self.block(branch.orelse)
        if self.loop_stack and self.loop_stack[-1][1] is not None:
            # assigned on some iterations only, but saved on all: the tape needs them bound
            self.loop_stack[-1][1].conditional.update(_stored_names(then + orelse) + tapes_made(then + orelse))
        lines = (truth_check(self.core, branch) + [self.core.branch_header(branch)] + indented(then or ["pass"])
                 + self.core.branch_footer(branch))
        return lines + (["else:"] + indented(orelse) if orelse else [])

    def jump(self, jump: Jump) -> list[str]:
        if jump.kind == "raise":
            return [self.core.raise_line(jump)]  # no tape: a pullback never runs after it
        loop, code = self.loop_stack[-1]
        push = [TapeLine(code, push=True)] if code is not None else []
        return push + [line for op in jump.edges for line in self.operation(op)] + [jump.kind]

    def loop(self, loop: Loop) -> list[str]:
        """The loop as written, plus (if anything in it is differentiated) a tape: per
        iteration, the values its reverse iteration will read."""
        setup = [line for op in loop.setup for line in self.operation(op)]
        setup += [line for op in loop.elements for line in self.core.operand_check(op)]
        lines = self.core.heading(loop.location) + setup
        code = None
        if reversed_loop(loop, self.activity, self.restored):
            tape = self.namer.fresh(f"{_loop_word(loop)}_tape")
            code = self.loops[id(loop)] = LoopCode(tape=tape, stands_in=self.namer.fresh(f"{tape}_stands_in"),
                                                   carried=set(loop.carried))
        self.loop_stack.append((loop, code))
        body = self.block(loop.body)
        self.loop_stack.pop()
        edges = [line for op in loop.back_edges for line in self.operation(op)]
        if code is not None:
            code.defined = _stored_names(body) + tapes_made(body)
            lines.append(TapeLine(code))
            body = body + [TapeLine(code, push=True)]
        body += edges
        if loop.condition is not None:
            return lines + self.while_header(loop) + indented(body)
        return lines + [self.for_header(loop, code)] + indented(body or ["pass"])

    def while_header(self, loop: Loop) -> list[str]:
        test = loop.test
        operation = test[0].operations[0] if len(test) == 1 and isinstance(test[0], Statement) and len(test[0].operations) == 1 else None
        if (operation is not None and operation.kind == "call" and operation.callee.operator_code is not None
                and operation.target == self.core.code(loop.condition)):
            return [f"while {self.core.call_text(operation)}:"]  # a one-operation test reads best inline
        check = self.block(test) + [f"if not {self.core.code(loop.condition)}:", INDENT + "break"]
        return ["while True:"] + indented(check)

    def for_header(self, loop: Loop, code) -> str:
        iterables = [self.core.code(op.args[0]) for op in loop.elements]
        targets = [op.target for op in loop.elements]
        counter = loop.counter
        if counter is None and code is not None and any(op.target in self.activity.active for op in loop.elements):
            counter = self.namer.fresh(f"{targets[0]}_index")
        if code is not None:
            code.index = counter
            for op in loop.elements:
                self.loop_index[id(op)] = counter
        if loop.over_items:
            return f"for {counter}, {targets[0]} in {iterables[0]}.items():"
        walked = iterables[0] if len(iterables) == 1 else f"zip({', '.join(iterables)})"
        bound = targets[0] if len(targets) == 1 else ", ".join(targets)
        if counter is None:
            return f"for {bound} in {walked}:"
        return f"for {counter}, {bound if len(targets) == 1 else '(' + bound + ')'} in enumerate({walked}):"

    def operation(self, op: Operation) -> list[str]:
        active = op.target in self.activity.active
        if op.kind in STRUCTURE_KINDS:
            return self.core.structure_line(op)
        if op.kind == "mutate":
            return self.core.operand_check(op) + self.mutation(op)
        if op.kind == "copy":
            if op.target not in self.core.read_names:
                return []  # a merge nobody reads (a variable set on one path, unused after)
            return [f"{op.target} = {self.core.code(op.args[0])}"]
        callee = op.callee
        checks = self.core.check_opaque(op, active and op.kind == "call" and propagates(op))
        return (checks + self.core.operand_check(op) + self.computed(op, active) + self.core.constant_checks(op)
                + exact_point_checks(self.core, op))

    def computed(self, op: Operation, active: bool) -> list[str]:
        callee = op.callee
        call = self.core.call_text(op)
        if op.kind == "effect":
            return [call]
        if not active or not propagates(op):  # a constant (np.zeros) whose array a later y[i] = v changes
            return [f"{op.target} = {call}"]
        if callee.kind == "method":
            receiver, rest = op.args[0], op.args[1:]
            arguments = ", ".join([self.core.code(receiver), repr(callee.name)] + self.core.argument_list(rest, op.kwargs))
            rrule = "packed_rrule" if callee.packed else "method_rrule"
            if callee.name == "__call__" and not callee.packed and self.activity.is_active(receiver):
                # the callee is differentiated itself: an object of the user's class with __call__
                arguments = ", ".join([self.core.code(receiver)] + self.core.argument_list(rest, op.kwargs))
                rrule = "differentiated_call_rrule"
            return [f"{op.target}, {op.target}_pullback = {rrule}({arguments})"]
        if callee.kind == "attribute":
            return [f"{op.target}, {op.target}_pullback = attribute_rrule({self.core.code(op.args[0])}, {callee.name!r})"]
        treatment = self.core.treatment(op)
        if treatment in PULLBACK_TREATMENTS:
            binding = self.core.bind_callee(op, treatment)
            arguments = ", ".join(self.core.argument_list(op.args, op.kwargs))
            return [f"{op.target}, {op.target}_pullback = {binding}({arguments})"]
        return [f"{op.target} = {call}"]

    def mutation(self, op: Operation) -> list[str]:
        if op.callee.name != "setitem":
            return self.core.mutation_line(op)
        container, index, value = (self.core.code(a) for a in op.args)
        lines = []
        if id(op) in self.restored:  # the pullback puts back what this overwrites
            saved = self.restored[id(op)] = self.namer.fresh(f"{container}_overwritten")
            lines.append(f"{saved} = overwritten({container}, {index})")
        return lines + [f"{container}[{index}] = {value}"]



def _loop_word(loop: Loop) -> str:
    if loop.elements:
        return loop.elements[0].target
    return "while"


def names_by_context(lines: list[str]) -> tuple[dict[str, None], set[str]]:
    """(names the code assigns, in order of first assignment; names it reads)."""
    stored: dict[str, None] = {}
    loaded: set[str] = set()
    for node in ast.walk(ast.parse(textwrap.dedent("\n".join(_text(lines))) or "pass")):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                stored.setdefault(node.id)
            else:
                loaded.add(node.id)
    return stored, loaded


def _stored_names(lines: list[str]) -> list[str]:
    return sorted(names_by_context(lines)[0], key=_first_line_of(lines))


def _first_line_of(lines):
    joined = "\n".join(_text(lines))
    return lambda name: joined.find(name)


def _text(lines: list) -> list[str]:
    """The lines written so far (a tape's lines are written later)."""
    return [line for line in lines if isinstance(line, str)]
