"""``for``/``while ... else`` and the walrus ``:=`` written as the plain statements they mean.

Run on the function's tree before the fence, so the normaliser (and with it every mode and
``compile=True``) sees only statements it already knows:

* ``for t in xs: body else: tail`` (``while`` alike) runs ``tail`` when the loop ends without
  ``break``. It becomes a flag set just before each of the loop's own ``break``s
  (not those of a loop inside it), tested after the loop::

      broke = False
      for t in xs: body     # each `break` of this loop: `broke = True; break`
      if not broke: tail

* ``:=`` in the test of an ``if``, ``elif`` or ``while``, where it is evaluated before
  anything else in the test (the test itself, or the left-most operand down to it:
  ``if (n := np.sum(x)) > 0:``), becomes an assignment just before the test. A ``while``
  evaluates its test again before each iteration, so its assignment goes at the top of
  the body, which leaves on the test failing (``continue`` re-runs both)::

      while True:
          r = f(r)
          if not (r > tol): break
          body

  Anywhere else a walrus would be evaluated later than its statement, on some paths only
  (the right operand of ``and``/``or``, a conditional expression) or in a scope of its own
  (a comprehension): it stays, and the fence refuses it.

Each node made here takes the position of the node it stands for, so errors and the
generated code's comments still point at the user's line.
"""
from __future__ import annotations

import dataclasses

import libcst as cst

from .fence import ReadingVisitor
from .source import FunctionSource


def with_loop_else_and_walrus_written_out(source: FunctionSource) -> FunctionSource:
    """``source`` itself when it has neither construct (the common case: one cheap walk)."""
    finder = _Finder()
    source.funcdef.visit(finder)
    if not finder.found:
        return source
    source = dataclasses.replace(source, positions=dict(source.positions))
    funcdef = source.funcdef.visit(_WrittenOut(source, finder.names))
    return dataclasses.replace(source, funcdef=funcdef)


class _Finder(ReadingVisitor):
    """Whether a function has either construct, and every name it spells."""

    def __init__(self):
        self.found = False
        self.names: set[str] = set()

    def on_visit(self, node) -> bool:
        if isinstance(node, cst.Name):
            self.names.add(node.value)
        elif isinstance(node, cst.NamedExpr) or isinstance(node, (cst.For, cst.While)) and node.orelse is not None:
            self.found = True
        return True


def _statement(small: cst.BaseSmallStatement) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[small])


def _assign(name: str, value: cst.BaseExpression) -> cst.SimpleStatementLine:
    return _statement(cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=value))


def _negated(test: cst.BaseExpression) -> cst.BaseExpression:
    """``not (test)``: parenthesised, so ``not`` applies to the whole test."""
    if not isinstance(test, cst.Name):
        test = test.with_changes(lpar=[cst.LeftParen(), *test.lpar], rpar=[*test.rpar, cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=test)


class _WrittenOut(cst.CSTTransformer):
    def __init__(self, source: FunctionSource, taken: set[str]):
        self.source = source
        self.taken = taken     # every name the function spells: a flag must be none of them
        self.elifs: set = set()  # the `if` nodes that are an `elif` of another
        self.elif_assignments: dict = {}  # an `elif` written here -> the assignments to put before it

    def fresh(self, base: str) -> str:
        name, count = base, 1
        while name in self.taken:
            count += 1
            name = f"{base}_{count}"
        self.taken.add(name)
        return name

    def at(self, made, original):
        """``made`` stands where ``original`` was: give it its position."""
        if made is not original:
            self.source.alias(made, original)
        return made

    def visit_If(self, node: cst.If) -> bool:
        if isinstance(node.orelse, cst.If):
            self.elifs.add(node.orelse)
        return True

    def on_leave(self, original, updated):
        if isinstance(updated, (cst.For, cst.While)):
            return self.loop(original, updated)
        if isinstance(updated, cst.If):
            return self.if_statement(original, updated)
        return self.at(updated, original)

    # ---------------------------------------------------------------- loops

    def loop(self, original, loop):
        orelse = loop.orelse
        if orelse is not None:
            flag = self.fresh("broke")
            loop = loop.with_changes(body=loop.body.visit(_BreaksSetting(flag, self.source)), orelse=None)
        if isinstance(loop, cst.While):
            loop = self.while_with_walrus(original, loop)
        loop = self.at(loop, original)
        if orelse is None:
            return loop
        start = self.at(_assign(flag, cst.Name("False")), original)
        tail = self.at(cst.If(test=_negated(cst.Name(flag)), body=orelse.body), original.orelse)
        return cst.FlattenSentinel([start, loop, tail])

    def while_with_walrus(self, original: cst.While, loop: cst.While) -> cst.While:
        assignments, test = self.hoisted(loop.test)
        if not assignments:
            return loop
        leave = self.at(cst.If(test=self.at(_negated(test), original.test),
                               body=cst.IndentedBlock(body=[_statement(cst.Break())])), original.test)
        body = loop.body.with_changes(body=[*assignments, leave, *loop.body.body])
        return loop.with_changes(test=cst.Name("True"), body=body)

    # ---------------------------------------------------------------- if / elif

    def if_statement(self, original: cst.If, node: cst.If):
        if isinstance(node.orelse, cst.If) and node.orelse in self.elif_assignments:
            # `elif (m := ...) > 0:` -> `else:` the assignment, then the `if`
            inner = node.orelse
            block = cst.IndentedBlock(body=[*self.elif_assignments.pop(inner), inner])
            node = node.with_changes(orelse=self.at(cst.Else(body=block), inner))
        assignments, test = self.hoisted(node.test)
        if assignments:
            node = node.with_changes(test=test)
        node = self.at(node, original)
        if not assignments:
            return node
        if original in self.elifs:
            self.elif_assignments[node] = assignments  # its parent `if` puts them in its `else:`
            return node
        return cst.FlattenSentinel([*assignments, node])

    # ---------------------------------------------------------------- the walrus

    def hoisted(self, test: cst.BaseExpression):
        """The assignments the walruses evaluated first in ``test`` stand for (innermost first),
        and the test reading their names instead. Walruses elsewhere in it stay (the fence refuses them)."""
        assignments = []

        def first(node, looked_up: frozenset):
            if isinstance(node, cst.NamedExpr):
                if node.target.value in looked_up:
                    return node   # `n.f(n := ...)` reads the old `n` first: moving the assignment would change it
                value = first(node.value, looked_up)
                assignments.append(self.at(_assign(node.target.value, value), node))
                return self.at(cst.Name(node.target.value, lpar=node.lpar, rpar=node.rpar), node)
            child = _evaluated_first(node)
            if child is None:
                return node
            if isinstance(node, cst.Call):
                looked_up = looked_up | {_root_name(node.func)}
            replaced = first(child, looked_up)
            if replaced is child:
                return node
            return self.at(node.deep_replace(child, replaced), node)

        return assignments, first(test, frozenset())


def _evaluated_first(node):
    """The part of ``node`` Python evaluates before anything else in it (None: none to look into)."""
    if isinstance(node, cst.Comparison):
        return node.left
    if isinstance(node, cst.BinaryOperation):
        return node.left
    if isinstance(node, cst.BooleanOperation):
        return node.left   # the right operand runs on one path only
    if isinstance(node, cst.UnaryOperation):
        return node.expression
    if isinstance(node, (cst.Attribute, cst.Subscript)):
        return node.value
    if isinstance(node, cst.Call) and node.args and _is_dotted(node.func) and not node.args[0].star \
            and node.args[0].keyword is None:
        return node.args[0].value   # a callee spelt as a name is looked up, then the first argument runs
    return None


def _root_name(node) -> str | None:
    """``np`` of ``np.linalg.norm``; None for a callee that is not a name or a chain of attributes of one."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def _is_dotted(node) -> bool:
    return _root_name(node) is not None


class _BreaksSetting(cst.CSTTransformer):
    """``flag = True`` before each ``break`` of the loop whose body this walks (not of loops,
    functions or classes inside it)."""

    def __init__(self, flag: str, source: FunctionSource):
        self.flag = flag
        self.source = source

    def visit_For(self, node) -> bool:
        return False

    def visit_While(self, node) -> bool:
        return False

    def visit_FunctionDef(self, node) -> bool:
        return False

    def visit_ClassDef(self, node) -> bool:
        return False

    def on_leave(self, original, updated):
        result = updated
        if isinstance(updated, cst.SimpleStatementLine) and any(isinstance(s, cst.Break) for s in updated.body):
            body = []
            for small in updated.body:
                if isinstance(small, cst.Break):
                    body.append(cst.Assign(targets=[cst.AssignTarget(target=cst.Name(self.flag))], value=cst.Name("True")))
                body.append(small)
            result = updated.with_changes(body=body)
        if result is not original:
            self.source.alias(result, original)
        return result
