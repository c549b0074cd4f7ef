"""Python's ``sum`` of a generator written out as the loop it runs (compile=True).

``penalty = l2 * sum(np.sum(W ** 2) for W, b in layers)`` reads, for compiled code, as

    total = 0
    for W_, b_ in layers:
        total = total + np.sum(W_ ** 2)
    penalty = l2 * total

which is what ``sum`` computes on the interpreters that run it so: it starts from the int 0
and adds the items left to right with ``+`` (``0 + x`` is ``x`` exactly, for floats, NumPy
scalars and arrays alike). From Python 3.12 ``sum`` adds Python floats with compensation,
which a loop of ``+`` does not: there nothing is written out, and the call keeps the NumPy path.

Only a ``sum`` whose one argument is a generator expression or list comprehension of ``for``
and ``if`` clauses, in a simple statement (an assignment, a ``return``), outside lambdas,
conditional expressions and ``and``/``or``, is written out; the loop comes just before the
statement, its variables renamed apart (a generator's variables are its own, not the function's).
"""
from __future__ import annotations

import dataclasses
import sys

import libcst as cst

from .source import FunctionSource

WRITTEN_OUT = sys.version_info < (3, 12)  # see above: later interpreters sum Python floats with compensation


def with_sums_written_out(source: FunctionSource, taken: set) -> FunctionSource:
    """``source`` with the sums described above written out; ``taken``: the names it uses."""
    function = source.function
    if not WRITTEN_OUT or "sum" in function.__globals__ or "sum" in function.__code__.co_varnames \
            or "sum" in function.__code__.co_freevars:  # (not the builtin)
        return source
    written = dataclasses.replace(source, positions=dict(source.positions))
    lines = _Lines(written, set(taken))
    body = source.funcdef.body.visit(lines)
    if not lines.changed:
        return source
    funcdef = source.funcdef.with_changes(body=body)
    written.funcdef = funcdef
    written.alias(funcdef, source.funcdef)
    written.alias(funcdef.name, source.funcdef.name)
    return written


def _is_sum_of_a_generator(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "sum" \
        and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star \
        and isinstance(node.args[0].value, (cst.GeneratorExp, cst.ListComp)) \
        and not _has_scopes(node.args[0].value)


def _has_scopes(comprehension) -> bool:
    """Whether a comprehension holds a scope of its own inside (a lambda, another comprehension):
    its names would need more than renaming."""
    finder = _ScopeFinder()
    comprehension.elt.visit(finder)
    clause = comprehension.for_in
    while clause is not None and not finder.found:
        clause.iter.visit(finder)
        for condition in clause.ifs:
            condition.visit(finder)
        clause = clause.inner_for_in
    return finder.found


class _ScopeFinder(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.found = False

    def on_visit(self, node) -> bool:
        if isinstance(node, (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp, cst.NamedExpr)):
            self.found = True
        return not self.found


class _Lines(cst.CSTTransformer):
    """Each simple statement line holding such sums becomes their loops, then itself."""

    def __init__(self, source: FunctionSource, taken: set):
        super().__init__()
        self.source, self.taken, self.changed = source, taken, False

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original:
            self.source.alias(result, original)  # (a block holding a sum keeps its line, as its other lines do)
        return result

    def visit_FunctionDef(self, node) -> bool:
        return node is self.source.funcdef  # (a function inside has its own scope: left as it is)

    def visit_ClassDef(self, node) -> bool:
        return False

    def leave_SimpleStatementLine(self, original, updated):
        if len(updated.body) != 1:  # (`a = 1; t = sum(...)`: the loop would come before `a = 1`)
            return updated
        finder = _Sums()
        updated.visit(finder)
        if not finder.found:
            return updated
        loops = []
        replacements = {}
        for call in finder.found:
            total = self._fresh("total")
            loops += self._loop(call, total, original)
            replacements[call] = cst.Name(total)
        self.changed = True
        made = updated.visit(_Replaced(replacements))
        self.source.alias(made, original)
        return cst.FlattenSentinel([*loops, made])

    def _fresh(self, stem: str) -> str:
        name = stem
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def _loop(self, call: cst.Call, total: str, line) -> list:
        comprehension = call.args[0].value
        clauses, clause = [], comprehension.for_in
        while clause is not None:
            clauses.append(clause)
            clause = clause.inner_for_in
        renames = {}
        for clause in clauses:  # each clause's variables, renamed apart (its iterable sees the earlier ones')
            for name in _bound_names(clause.target):
                renames[name] = self._fresh(f"{name}_")
        statement = cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(cst.Name(total))],
            cst.BinaryOperation(cst.Name(total), cst.Add(), _renamed(comprehension.elt, renames)))])
        inner: cst.BaseStatement = statement
        for clause in reversed(clauses):
            for condition in reversed(clause.ifs):
                inner = cst.If(test=_renamed(condition.test, renames), body=cst.IndentedBlock([inner]))
            seen = {name: renames[name] for c in clauses[:clauses.index(clause)] for name in _bound_names(c.target)}
            inner = cst.For(target=_renamed(clause.target, renames), iter=_renamed(clause.iter, seen),
                            body=cst.IndentedBlock([inner]))
        start = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(total))], cst.Integer("0"))])
        for made in (start, inner):  # every node made points at the sum's line (the generated code's comments)
            made.visit(_Aliased(self.source, line))
        return [start, inner]


class _Aliased(cst.CSTVisitor):
    def __init__(self, source: FunctionSource, original):
        super().__init__()
        self.source, self.original = source, original

    def on_visit(self, node) -> bool:
        if node not in self.source.positions:
            self.source.alias(node, self.original)
        return True


class _Sums(cst.CSTVisitor):
    """The sums of generators in a line, outside what evaluates conditionally or in a scope of
    its own, and with nothing evaluated before them (in the order Python evaluates the line)
    that the generator's calls might change: no call, subscript or attribute read before them."""

    def __init__(self):
        super().__init__()
        self.found, self.read_before, self.callees = [], False, set()

    def on_visit(self, node) -> bool:
        if isinstance(node, (cst.Lambda, cst.IfExp, cst.BooleanOperation, cst.GeneratorExp, cst.ListComp,
                             cst.SetComp, cst.DictComp)):
            self.read_before = True
            return False
        if _is_sum_of_a_generator(node):
            if not self.read_before:
                self.found.append(node)
            self.read_before = True
            return False
        if isinstance(node, cst.Call):
            self.callees.add(node.func)
        return True

    def on_leave(self, node) -> None:
        # a call, a subscript, an attribute is read when it has been evaluated: one enclosing the
        # sum is read after it (the attribute a call calls, `np.sum` of `np.sum(sum(...))`, is looked up before)
        if isinstance(node, (cst.Call, cst.Subscript, cst.Await, cst.Yield)) or \
                isinstance(node, cst.Attribute) and node not in self.callees:
            self.read_before = True


class _Replaced(cst.CSTTransformer):
    def __init__(self, replacements: dict):
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original, updated):
        return self.replacements.get(original, updated)


def _bound_names(target) -> list:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _bound_names(element.value)]
    return []  # (an attribute or subscript target: nothing of its own)


def _renamed(node, renames: dict):
    return node.visit(_Renamer(renames)) if renames else node


class _Renamer(cst.CSTTransformer):
    def __init__(self, renames: dict):
        super().__init__()
        self.renames = renames

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return True

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        return updated.with_changes(attr=original.attr)  # `layer.W` names an attribute, not the variable

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg):
        return updated.with_changes(keyword=original.keyword)  # `f(W=1)` names a keyword

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        return updated.with_changes(value=self.renames[original.value]) if original.value in self.renames else updated
