"""Parameters given None, written into a function's text (compile=True).

``def normalised(x, mask=None)`` called without ``mask`` (or with ``None``) computes as if its
text were ``def normalised(x)`` with ``mask is None`` read as ``True`` and ``mask is not None``
as ``False``, and each ``if`` (or conditional expression) on such a constant only its branch
taken. That is the program Python runs for such calls, with nothing left for Numba that is
None. Calls giving ``mask`` an array take the compiled code made for arrays.

A parameter whose first mention is ``if loss_fn is None: loss_fn = <value not reading it>``
(a default made in the body) is that assignment alone, and from there on a variable of the
function's like any other: its later tests are not folded, as Python reads them of the value
assigned. Any other read of a parameter given None left in the branches taken (``x * mask``), or
an assignment of it, raises NotCompiledError naming the line.
"""
from __future__ import annotations

import dataclasses

import libcst as cst

from ..errors import NotCompiledError
from .normalize_syntax import variable_reads
from .source import FunctionSource


def with_nones_written_in(source: FunctionSource, names: tuple) -> FunctionSource:
    """``source`` without the parameters ``names``, each None as described above."""
    chosen = set(names)
    params = source.funcdef.params
    kept = [p for p in params.params if p.name.value not in chosen]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    keyword_only = [p for p in params.kwonly_params if p.name.value not in chosen]
    star = params.star_arg if keyword_only or not isinstance(params.star_arg, cst.ParamStar) \
        else cst.MaybeSentinel.DEFAULT
    written = dataclasses.replace(source, positions=dict(source.positions))
    body, defaulted = _defaults_made(source.funcdef.body, chosen)
    chosen -= defaulted  # (assigned before any other mention: an ordinary variable from there on)
    body = body.visit(_Folded(chosen, written))
    _refuse_other_uses(written, body, chosen)
    funcdef = source.funcdef.with_changes(params=params.with_changes(params=kept, kwonly_params=keyword_only,
                                                                     star_arg=star), body=body)
    written.funcdef = funcdef
    written.alias(funcdef, source.funcdef)
    written.alias(funcdef.name, source.funcdef.name)
    return written


def _defaults_made(body: cst.IndentedBlock, chosen: set) -> tuple:
    """``(body, names)``: ``body`` with each ``if p is None: p = value`` that is the first mention of
    a parameter ``p`` of ``chosen`` (``value`` not reading it) made its assignment alone, and those ``p``."""
    statements, defaulted, undecided = list(body.body), set(), set(chosen)
    for position, statement in enumerate(statements):
        for name in [name for name in sorted(undecided) if _mentions(statement, name)]:
            undecided.discard(name)
            assigned = _default_made(statement, name)
            if assigned is not None:
                statements[position] = assigned
                defaulted.add(name)
    return body.with_changes(body=statements), defaulted


def _default_made(statement, name: str):
    """The assignment of ``if name is None: name = value`` (no ``else``, ``value`` not reading
    ``name``); None for any other statement."""
    if not (isinstance(statement, cst.If) and statement.orelse is None and _none_test(statement.test, {name}) is True
            and isinstance(statement.body, cst.IndentedBlock) and len(statement.body.body) == 1):
        return None
    inner = statement.body.body[0]
    if not (isinstance(inner, cst.SimpleStatementLine) and len(inner.body) == 1 and isinstance(inner.body[0], cst.Assign)):
        return None
    assign = inner.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name) \
            or assign.targets[0].target.value != name or _mentions(assign.value, name):
        return None
    return inner


def _mentions(node, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _nodes(node))


def _nodes(node):
    yield node
    for child in node.children:
        yield from _nodes(child)


def _none_test(node, chosen: set):
    """True for ``p is None``, False for ``p is not None`` (``p`` chosen, either side); None otherwise."""
    if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    sides = [node.left, target.comparator]
    names = [s for s in sides if isinstance(s, cst.Name) and s.value in chosen]
    nones = [s for s in sides if isinstance(s, cst.Name) and s.value == "None"]
    if len(names) != 1 or len(nones) != 1:
        return None
    if isinstance(target.operator, cst.Is):
        return True
    if isinstance(target.operator, cst.IsNot):
        return False
    return None


def _constant(node):
    """The truth of ``True``/``False``/``not`` of one; None for anything else."""
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = _constant(node.expression)
        return None if inner is None else not inner
    return None


class _Folded(cst.CSTTransformer):
    def __init__(self, chosen: set, source: FunctionSource):
        super().__init__()
        self.chosen, self.source, self.elifs = chosen, source, set()

    def visit_FunctionDef(self, node) -> bool:
        return False  # (a function inside, reading the parameter, is refused below)

    def leave_Comparison(self, original, updated):
        truth = _none_test(updated, self.chosen)
        return updated if truth is None else cst.Name("True" if truth else "False")

    def leave_IfExp(self, original, updated):
        truth = _constant(updated.test)
        return updated if truth is None else (updated.body if truth else updated.orelse)

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original:
            self.source.alias(result, original)  # (a read left is named at its own line)
        return result

    def visit_If(self, node) -> bool:
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)  # an `elif` is left to the `if` it follows (it is not a statement)
        return True

    def leave_If(self, original, updated):
        updated = updated.with_changes(orelse=_resolved(updated.orelse))
        truth = _constant(updated.test)
        if truth is None or original in self.elifs:
            return updated
        if truth:
            return cst.FlattenSentinel(list(updated.body.body))
        orelse = updated.orelse
        if orelse is None:
            return cst.RemoveFromParent()
        if isinstance(orelse, cst.If):  # `elif`: the next test, now an `if` of its own
            return orelse
        return cst.FlattenSentinel(list(orelse.body.body))


def _resolved(orelse):
    """An ``elif`` chain with its constant tests taken: the ``else`` of the first true one, or
    what follows the false ones."""
    while isinstance(orelse, cst.If) and _constant(orelse.test) is not None:
        if _constant(orelse.test):
            return cst.Else(body=orelse.body)
        orelse = orelse.orelse
    return orelse


def _refuse_other_uses(source: FunctionSource, body, chosen: set) -> None:
    found = variable_reads(body, chosen)
    if found:
        node = found[0]
        raise NotCompiledError(f"it was given None for `{node.value}`, which it uses other than in `{node.value} is "
                               f"None` tests (compiled code is made for the branches those tests take)",
                               _located(source, node))


def _located(source: FunctionSource, node):
    """The line of the user's statement holding ``node`` (nodes kept as they were have their positions)."""
    return source.location(node) if node in source.positions else source.location(source.funcdef)
