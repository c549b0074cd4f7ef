"""``outputs = None`` before a loop that assigns ``outputs`` (compiled code for arrays): left unbound
there, and the loop checked, once it ends, to have assigned it.

A user variable first assigned inside a loop and read after it (``for W, b in params: outputs =
...`` then ``return outputs - ...``) is bound to None before the loop in generated code, so that
the code after it reads a value on every path. Numba types such a variable as an optional array,
which NumPy's functions and the compiled helpers do not take: the gradient did not compile.

Where the loop never reads the variable (it assigns it only, in its body's own statements, and
no ``break`` leaves it) and nothing else assigns it, the
None is read only when the loop assigned nothing, a path on which Python itself would raise
``UnboundLocalError`` (or the NumPy path a TypeError of None). So the None is dropped, Numba
types the variable as what the loop assigns, and a flag set beside each assignment says whether
one ran: if none did, compiled code raises ``NotCompiledCase`` right after the loop and the
NumPy path computes the call, its answer or its error the one given. (Numba reads a variable
never assigned as zeros, an empty array: the flag is what keeps that from being an answer.)

The variable's cotangent, carried from one iteration of the reverse loop to the next, is then the
returned value's cotangent in the first (the last iteration's value is the one read after the
loop) and zero in the others (the loop never reads the value an earlier iteration left). That
zero was ``zero_like`` of the last value, whose shape need not be each iteration's (an MLP's
``outputs``, one layer's width after another): the tape keeps each iteration's shape
(``shape_like``) and the zero is made of it, where the loop's tape and the reverse loop are
found as generated code writes them (else the helpers' shape check sends such calls to the NumPy path).
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..frontend.naming import Namer
from .nodes import binding_counts


@dataclass
class _Unset:
    name: str        # the variable bound to None before the loop
    flag: str        # the variable saying whether the loop assigned it
    none: cst.SimpleStatementLine
    loop: cst.CSTNode


def unset_before_loops(module: cst.Module, primal_of: dict) -> cst.Module:
    """``module`` with each ``x = None`` before a loop that only assigns ``x`` written as above
    (``primal_of``: cotangent -> its value's name)."""
    found = _Candidates()
    module.visit(found)
    namer = Namer(reserved=set(binding_counts(module)) | found.names)
    unset = [_Unset(candidate.name, namer.fresh(f"{candidate.name}_assigned"), candidate.none, candidate.loop)
             for candidate in found.candidates if _only_assigned_in_loop(candidate)]
    if not unset:
        return module
    shapes = {}   # id(statement) -> its rewritten form: each iteration's zero of the variable (see above)
    for u in unset:
        shapes.update(_zeros_of_each_iteration(module, u, primal_of, namer))
    return module.visit(_Rewritten(unset, shapes))


@dataclass
class _Candidate:
    name: str
    none: cst.SimpleStatementLine
    loop: cst.CSTNode
    function: cst.FunctionDef   # the function they are in, where the variable is looked for


def _none_bound(statement) -> str | None:
    """``x`` of the statement line ``x = None``."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) \
            and isinstance(assign.value, cst.Name) and assign.value.value == "None":
        return assign.targets[0].target.value
    return None


class _Candidates(cst.CSTVisitor):
    """Each ``x = None`` followed in its block, past lines that do not name ``x``, by a loop."""

    def __init__(self):
        self.candidates: list[_Candidate] = []
        self.names: set = set()
        self.functions: list = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        body = node.body
        for position, statement in enumerate(body):
            name = _none_bound(statement)
            if name is None:
                continue
            for following in body[position + 1:]:
                if isinstance(following, (cst.For, cst.While)) and self.functions:
                    self.candidates.append(_Candidate(name, statement, following, self.functions[-1]))
                    break
                if not isinstance(following, cst.SimpleStatementLine) or _names_in(following, name):
                    break


def _names_in(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(node))


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


class _Occurrences(cst.CSTVisitor):
    """Where ``name`` occurs, in source order: before the loop, in it as a plain assignment's
    target or otherwise, after it."""

    def __init__(self, candidate: _Candidate):
        self.candidate = candidate
        self.region = "before"
        self.assigned_in_loop = 0
        self.wrong = False   # read in the loop, assigned outside it, or named before the None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if node is self.candidate.none:
            self.region = "between"
            return False
        if self.region == "loop" and len(node.body) == 1 and _plain_assignment_of(node.body[0], self.candidate.name):
            self.assigned_in_loop += 1
            return _visit_value(self, node.body[0])
        return True

    def visit_For(self, node) -> None:
        self._entered(node)

    def leave_For(self, node) -> None:
        self._left(node)

    def visit_While(self, node) -> None:
        self._entered(node)

    def leave_While(self, node) -> None:
        self._left(node)

    def _entered(self, node) -> None:
        if node is self.candidate.loop:
            self.region = "loop"

    def _left(self, node) -> None:
        if node is self.candidate.loop:
            self.region = "after"

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.candidate.name and self.region != "after":
            self.wrong = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self.region == "after" and _names_in(node.target, self.candidate.name):
            self.wrong = True


def _plain_assignment_of(statement, name: str) -> bool:
    return isinstance(statement, cst.Assign) and len(statement.targets) == 1 \
        and isinstance(statement.targets[0].target, cst.Name) and statement.targets[0].target.value == name


def _visit_value(visitor: cst.CSTVisitor, assign: cst.Assign) -> bool:
    """Visits the assigned value alone (its target is the assignment counted); False: not the line again."""
    assign.value.visit(visitor)
    return False


def _only_assigned_in_loop(candidate: _Candidate) -> bool:
    """Whether the variable is assigned in the loop only, by statements of its body itself (not of
    an ``if`` in it: a read after the loop may then be as conditional, `return` in a loop written
    as ``if returned: result_4 = result``), in a loop no ``break`` leaves, and read after it alone."""
    occurrences = _Occurrences(candidate)
    candidate.function.visit(occurrences)
    loop = candidate.loop
    at_top = sum(_plain_assignment_of(_lone(s), candidate.name) for s in loop.body.body)
    return occurrences.assigned_in_loop > 0 and not occurrences.wrong and at_top == occurrences.assigned_in_loop \
        and not any(isinstance(n, cst.Break) for n in _walk(loop))


class _Rewritten(cst.CSTTransformer):
    def __init__(self, unset: list[_Unset], shapes: dict):
        super().__init__()
        self.shapes = shapes
        self.by_none = {id(u.none): u for u in unset}
        self.by_loop: dict = {}
        for u in unset:
            self.by_loop.setdefault(id(u.loop), []).append(u)
        self.inside: list = []   # for each loop around the node visited, the variables it assigns here

    def visit_For(self, node) -> None:
        self.inside.append(self.by_loop.get(id(node), []))

    def leave_For(self, original, updated):
        return self._checked(original, updated)

    def visit_While(self, node) -> None:
        self.inside.append(self.by_loop.get(id(node), []))

    def leave_While(self, original, updated):
        return self._checked(original, updated)

    def _checked(self, original, updated):
        """The loop, then the check that it assigned each of its variables."""
        self.inside.pop()
        unset = self.by_loop.get(id(original), [])
        if not unset:
            return updated
        return cst.FlattenSentinel([updated, *(cst.parse_statement(
            f"if not {u.flag}:\n    raise NotCompiledCase({_message(u.name)!r})\n") for u in unset)])

    def leave_SimpleStatementLine(self, original, updated):
        if id(original) in self.shapes:
            return self.shapes[id(original)]
        unset = self.by_none.get(id(original))
        if unset is not None:
            return cst.parse_statement(f"{unset.flag} = False").with_changes(leading_lines=original.leading_lines)
        flags = [u.flag for loop in self.inside for u in loop
                 if len(original.body) == 1 and _plain_assignment_of(original.body[0], u.name)]
        if flags:
            return cst.FlattenSentinel([updated, *(cst.parse_statement(f"{flag} = True") for flag in flags)])
        return updated


def _message(name: str) -> str:
    return f"the loop assigned no value to `{name}`, which Python leaves unbound"


def _zeros_of_each_iteration(module: cst.Module, unset: _Unset, primal_of: dict, namer: Namer) -> dict:
    """The statements to rewrite so that the reverse loop's cotangent of ``unset.name`` is, past its
    first iteration, a zero of that iteration's shape: {id(statement): its new form}; {} where the
    tape or the reverse loop is not written as expected, or the loop may leave an iteration early."""
    loop = unset.loop
    body = list(loop.body.body)
    if any(isinstance(n, (cst.Break, cst.Continue, cst.Return)) for n in _walk(loop)):
        return {}
    edges = [i for i, s in enumerate(body) if _plain_assignment_of(_lone(s), unset.name)
             and isinstance(_lone(s).value, cst.Name)]
    pushes = [i for i, s in enumerate(body) if _tape_pushed(s) is not None]
    if len(edges) != 1 or len(pushes) != 1:
        return {}
    last = _lone(body[edges[0]]).value.value   # the value the iteration leaves in the variable
    assigned = [i for i, s in enumerate(body) if _plain_assignment_of(_lone(s), last)]
    if len(assigned) != 1 or assigned[0] > pushes[0]:
        return {}
    tape, pushed = _tape_pushed(body[pushes[0]])
    reverse = _ReverseLoops(tape)
    module.visit(reverse)
    entries_read = [n for n in _walk(module) if isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name)
                    and n.value.value == tape]
    if len(reverse.found) != 1 or len(entries_read) != 1:  # (an entry read elsewhere would miss the shape)
        return {}
    position, unpack, reverse_body = reverse.found[0]
    # `doutputs_2 = doutputs`: the cotangent of the value the iteration leaves, the carried one's
    cotangent = [s for s in reverse_body if isinstance(_lone(s), cst.Assign) and len(_lone(s).targets) == 1
                 and isinstance(_lone(s).targets[0].target, cst.Name) and isinstance(_lone(s).value, cst.Name)
                 and primal_of.get(_lone(s).targets[0].target.value) == last
                 and primal_of.get(_lone(s).value.value) == unset.name]
    if len(cotangent) != 1:
        return {}
    shape = namer.fresh(f"{last}_shape")
    entries = [e.value for e in pushed.elements] if isinstance(pushed, cst.Tuple) else [pushed]
    targets = unpack.body[0].targets[0].target
    names = [e.value for e in targets.elements] if isinstance(targets, cst.Tuple) else [targets]
    if len(names) != len(entries):
        return {}
    entry = ", ".join(cst.Module([]).code_for_node(e) for e in entries)
    unpacked = ", ".join(cst.Module([]).code_for_node(n) for n in names)
    assign = cotangent[0].body[0]
    seeded, carried = assign.targets[0].target.value, assign.value.value
    return {
        id(body[pushes[0]]): cst.parse_statement(f"{tape}.append(({entry}, shape_like({last})))")
        .with_changes(leading_lines=body[pushes[0]].leading_lines),
        id(unpack): cst.parse_statement(f"{unpacked}, {shape} = {tape}[{position}]")
        .with_changes(leading_lines=unpack.leading_lines),
        id(cotangent[0]): cst.parse_statement(
            f"{seeded} = {carried} if {position} == len({tape}) - 1 else zero_like({shape})")
        .with_changes(leading_lines=cotangent[0].leading_lines),
    }


def _lone(statement):
    """The one small statement of a statement line of one, else None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return None


def _tape_pushed(statement) -> tuple[str, cst.BaseExpression] | None:
    """(tape, entry) of the statement line ``tape.append(entry)``."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1 \
            or not isinstance(statement.body[0], cst.Expr):
        return None
    call = statement.body[0].value
    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append" \
            and isinstance(call.func.value, cst.Name) and call.func.value.value.endswith("_tape") \
            and len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star:
        return call.func.value.value, call.args[0].value
    return None


class _ReverseLoops(cst.CSTVisitor):
    """The loops ``for position in range(len(tape) - 1, -1, -1):`` whose body starts by reading
    ``... = tape[position]``: (position, that statement line, the body's statements)."""

    def __init__(self, tape: str):
        self.tape = tape
        self.found: list = []

    def visit_For(self, node: cst.For) -> None:
        if not isinstance(node.target, cst.Name) or not isinstance(node.body, cst.IndentedBlock) or not node.body.body:
            return
        position = node.target.value
        iterated = cst.Module([]).code_for_node(node.iter)
        first = node.body.body[0]
        if iterated != f"range(len({self.tape}) - 1, -1, -1)" or not isinstance(first, cst.SimpleStatementLine) \
                or len(first.body) != 1 or not isinstance(first.body[0], cst.Assign) or len(first.body[0].targets) != 1:
            return
        read = cst.Module([]).code_for_node(first.body[0].value)
        if read == f"{self.tape}[{position}]":
            self.found.append((position, first, list(node.body.body)))
