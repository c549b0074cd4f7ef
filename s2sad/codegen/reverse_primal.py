"""The rrule's first half in reverse mode: the user's operations as written, plus tapes.

Each differentiated call goes through its rrule and keeps the pullback
(``y, y_pullback = eigh_rrule(a)``); everything else runs as written. A loop with anything
differentiated in it gets a tape: per iteration, the values its reverse iteration reads.
What a tape saves is known only once the pullback is written, so the tape's lines are
placeholders here, filled by ``fill_tapes`` afterwards.
"""
from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

from ..analysis.activity import Activity, propagates
from ..frontend.ir import Branch, Jump, Loop, Operation, Statement, operations_of
from .core import INDENT, STRUCTURE_KINDS, Emitter, indented


@dataclass
class LoopCode:
    """The names one loop's generated code uses, and what its tape saves per iteration."""

    tape: str
    defined: list[str] = field(default_factory=list)   # names the primal body assigns, in order
    conditional: set = field(default_factory=set)      # ... of which some paths do not assign
    carried: set = field(default_factory=set)
    index: str | None = None            # the iteration counter, when the loop variable is differentiated
    saved: list[str] = field(default_factory=list)
    used: bool = False


HEADER = "<the line a comment heads>"  # a stand-in: commented() decides whether a block gets its comment
TAPE_INIT = "#tape-init:"
TAPE_PUSH = "#tape-push:"


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
        lines = []
        for item in block:
            if isinstance(item, Loop):
                lines += self.loop(item)
            elif isinstance(item, Branch):
                lines += self.branch(item)
            elif isinstance(item, Jump):
                lines += self.jump(item)
            else:
                body = [line for op in item.operations for line in self.operation(op)]
                lines += body if item.merge else self.core.commented(item.location, body)
        return lines

    def branch(self, branch: Branch) -> list[str]:
        last_comment = self.core.last_comment
        then = self.block(branch.then)
        self.core.last_comment = last_comment
        orelse = self.block(branch.orelse)
        if self.loop_stack and self.loop_stack[-1][1] is not None:
            # assigned on some iterations only, but saved on all: the tape needs them bound
            inner_tapes = [line.strip()[len(TAPE_INIT):] for line in then + orelse if line.strip().startswith(TAPE_INIT)]
            self.loop_stack[-1][1].conditional.update(_stored_names(then + orelse) + inner_tapes)
        lines = [f"if {self.core.code(branch.condition)}:"] + indented(then or ["pass"])
        return lines + (["else:"] + indented(orelse) if orelse else [])

    def jump(self, jump: Jump) -> list[str]:
        loop, code = self.loop_stack[-1]
        push = [f"{TAPE_PUSH}{code.tape}"] if code is not None else []
        return push + [line for op in jump.edges for line in self.operation(op)] + [jump.kind]

    def loop(self, loop: Loop) -> list[str]:
        """The loop as written, plus (if anything in it is differentiated) a tape: per
        iteration, the values its reverse iteration will read."""
        setup = [line for op in loop.setup for line in self.operation(op)]
        lines = self.core.heading(loop.location) + setup
        active = self.activity.active
        code = None
        if any(op.target in active or op.kind == "mutate" and (id(op) in self.restored or op.callee.name != "setitem")
               for op in [*loop.elements, *operations_of(loop.body), *loop.back_edges]):
            code = self.loops[id(loop)] = LoopCode(tape=self.namer.fresh(f"{_loop_word(loop)}_tape"),
                                                   carried=set(loop.carried))
        self.loop_stack.append((loop, code))
        body = self.block(loop.body)
        self.loop_stack.pop()
        edges = [line for op in loop.back_edges for line in self.operation(op)]
        if code is not None:
            inner_tapes = [line.strip()[len(TAPE_INIT):] for line in body if line.strip().startswith(TAPE_INIT)]
            code.defined = _stored_names(body) + inner_tapes
            lines.append(f"{TAPE_INIT}{code.tape}")
            body = body + [f"{TAPE_PUSH}{code.tape}"]
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
            return self.mutation(op)
        if op.kind == "copy":
            if op.target not in self.core.read_names:
                return []  # a merge nobody reads (a variable set on one path, unused after)
            return [f"{op.target} = {self.core.code(op.args[0])}"]
        callee = op.callee
        self.core.check_opaque(op, active and op.kind == "call" and propagates(op))
        call = self.core.call_text(op)
        if op.kind == "effect":
            return [call]
        if not active or not propagates(op):  # a constant (np.zeros) whose array a later y[i] = v changes
            return [f"{op.target} = {call}"]
        if callee.kind == "method":
            receiver, rest = op.args[0], op.args[1:]
            arguments = ", ".join([self.core.code(receiver), repr(callee.name)] + self.core.argument_list(rest, op.kwargs))
            return [f"{op.target}, {op.target}_pullback = method_rrule({arguments})"]
        if callee.kind == "attribute":
            return [f"{op.target}, {op.target}_pullback = attribute_rrule({self.core.code(op.args[0])}, {callee.name!r})"]
        treatment = self.core.treatment(op)
        if treatment in ("rrule", "transformed"):
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

    def fill_tapes(self, primal: list[str]) -> list[str]:
        """Write the tape lines of each loop, now that the reverse pass has said what it reads."""
        tapes = {code.tape: code for code in self.loops.values()}
        out = []
        for line in primal:
            text = line.lstrip()
            indent = line[: len(line) - len(text)]
            if text.startswith(TAPE_INIT) or text.startswith(TAPE_PUSH):
                code = tapes[text.split(":", 1)[1]]
                if not code.used:
                    continue
                if text.startswith(TAPE_INIT):
                    unbound = [name for name in code.saved if name in code.conditional and name not in code.carried]
                    if unbound:
                        out.append(f"{indent}{' = '.join(unbound)} = None  # assigned on some paths only, saved on all")
                    out.append(f"{indent}{code.tape} = []")
                else:
                    saved = code.saved
                    value = "None" if not saved else saved[0] if len(saved) == 1 else f"({', '.join(saved)})"
                    out.append(f"{indent}{code.tape}.append({value})")
                continue
            out.append(line)
        return out


def _loop_word(loop: Loop) -> str:
    if loop.elements:
        return loop.elements[0].target
    return "while"


def names_by_context(lines: list[str]) -> tuple[dict[str, None], set[str]]:
    """(names the code assigns, in order of first assignment; names it reads)."""
    stored: dict[str, None] = {}
    loaded: set[str] = set()
    for node in ast.walk(ast.parse(textwrap.dedent("\n".join(lines)) or "pass")):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                stored.setdefault(node.id)
            else:
                loaded.add(node.id)
    return stored, loaded


def _stored_names(lines: list[str]) -> list[str]:
    return sorted(names_by_context(lines)[0], key=_first_line_of(lines))


def _first_line_of(lines):
    joined = "\n".join(lines)
    return lambda name: joined.find(name)
