"""Branches and jumps: ``if`` statements, conditional values, ``break`` and ``continue``.

Both paths of a branch are normalised from the same variable versions; a user variable
the two paths leave under different names is merged by a copy at the end of each path
into one new name (or, when both paths compute it, by renaming the second path's version
to the first's). A path ending in a jump never reaches the merge. The conditional
expression and ``and``/``or`` are branches too (``choice``): only the path taken is
evaluated, as in Python. A jump copies the innermost loop's carried variables back to
their loop names on its way out.
"""
from __future__ import annotations

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..rules.helpers import entered_value, entering
from .ir import Atom, Branch, Callee, Const, Context, Guarded, Jump, Loop, Operation, Statement, Var, operations_of
from .normalize_state import BUILTIN_NAMES, RETURNED, NormalizerState, atom_name
from .normalize_syntax import code_of, may_leave, names_read_in_lambda, target_parts


class BranchNormalizer(NormalizerState):
    def jump(self, node, kind: str) -> None:
        """Leave the innermost loop's iteration, copying its carried variables back first."""
        self.flush()
        edges = [Operation(loop_name, "copy", args=[Var(self.current[user_name])])
                 for user_name, loop_name in self.loop_names[-1].items() if self.current[user_name] != loop_name]
        self.emitted += edges
        self.items.append(Jump(self.source.location(node), kind, edges))

    def raise_statement(self, node: cst.Raise) -> None:
        """``raise error``: the path ends here, for good (nothing after it runs, nothing is differentiated on it)."""
        if node.exc is None:
            raise UnsupportedSyntaxError("a bare `raise` (re-raising the exception being handled) is not supported",
                                         self.source.location(node), "raise an exception object: `raise ValueError(...)`")
        exception = self.expression(node.exc)
        cause = self.expression(node.cause.item) if node.cause is not None else None
        self.flush()
        self.items.append(Jump(self.source.location(node), "raise", [], exception, cause))

    def with_statement(self, node: cst.With, rest: list, loop_depth: int, first: int = 0) -> None:
        """``with manager: body`` (and ``rest``, the code after it, when the body may leave the
        block): each manager a Context the body runs in, the variables it sets read after it. The
        managers are made and entered one by one, as Python does (a manager may read the name the
        one before bound with ``as``); ``as name`` binds what the manager's ``__enter__`` gave
        (``entered_value``), a value s2sad does not differentiate (see rules/context_managers.py)."""
        item = node.items[first]
        manager = self.expression(item.item)
        if item.asname is not None:
            manager = self.operation(self.namer.fresh(f"{atom_name(manager) or 'manager'}_entry"), "", [],
                                     Operation("", "call", Callee("static", "entering", entering), [manager]))
        self.flush()
        saved = self.items, self.operations
        self.items, self.operations = [], []
        if item.asname is not None:
            self.bind_entered_value(item.asname.name, manager)
        if first + 1 < len(node.items):
            self.with_statement(node, rest, loop_depth, first + 1)
        else:
            self.flush()
            self.items += self.block(list(node.body.body) + rest, loop_depth)
        self.flush()
        body = self.items
        self.items, self.operations = saved
        self.items.append(Context(self.source.location(node), manager, body, []))

    def bind_entered_value(self, target, entry: Var) -> None:
        """``as name`` (or ``as (a, b)``): the value the manager gave, bound as an assignment binds it."""
        if not all(isinstance(part, cst.Name) for part in target_parts(target)):
            raise UnsupportedSyntaxError("`with ... as` binds only names here", self.source.location(target),
                                         "bind a name (`as value`) and assign it where it belongs inside the block")
        want = self.namer.version(target.value) if isinstance(target, cst.Name) else None
        value = self.operation(want, "entered", [entry.name],
                               Operation("", "call", Callee("static", "entered_value", entered_value), [entry]))
        if isinstance(target, cst.Name):
            self.current[target.value] = value.name
        else:
            self.assign(target, value)

    def try_statement(self, node: cst.Try, rest: list, loop_depth: int) -> None:
        """``try: body except E: ... else: ... finally: ...``: the path where nothing is raised
        (body, else, finally, then ``rest`` when the body may leave the block), as a Guarded
        block whose primal refuses, as it is caught, an exception the user's ``except`` handles."""
        if node.finalbody is not None and may_leave(node.body):
            raise UnsupportedSyntaxError("a `return`, `break` or `continue` inside a `try` with `finally` is not supported",
                                         self.source.location(node), "return after the try statement")
        types = []
        for handler in node.handlers:
            if handler.type is None:
                types.append("BaseException")
                continue
            # `except (A, B)` lists its classes one by one: Python refuses a tuple nested in the
            # tuple this builds (and a jvp module's own `except (A, )` is read again for hvp)
            parts = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
            for part in parts:
                if isinstance(part, cst.StarredElement):
                    raise UnsupportedSyntaxError("the exception types of this `except` unpack a sequence with `*`",
                                                 self.source.location(handler), "name the exception classes themselves")
                code = code_of(part.value if isinstance(part, cst.Element) else part)
                for name in names_read_in_lambda(f"lambda: {code}"):
                    if name in self.current or not (name in BUILTIN_NAMES or self.env.is_static_root(name)):
                        raise UnsupportedSyntaxError(f"the exception types of this `except` read `{name}`, a variable",
                                                     self.source.location(handler), "name the exception classes themselves")
                    if name not in BUILTIN_NAMES:
                        self.bind(name)
                types.append(code)
        lines = list(node.body.body)
        lines += list(node.orelse.body.body) if node.orelse is not None else []
        lines += list(node.finalbody.body.body) if node.finalbody is not None else []
        location = self.source.location(node)
        handler = self.source.location(node.handlers[0]) if node.handlers else None
        condition = Const("(" + "".join(f"{t}, " for t in types) + ")")
        self.items.append(Guarded(location, condition, self.block(lines + rest, loop_depth), [], handler=handler))

    def after_returning_loop(self, node, rest: list, loop_depth: int) -> None:
        """After a loop that may have returned: stop (or leave the enclosing loop too) if it did."""
        flag = Var(self.current[RETURNED])

        def returned():
            saved = self.items, self.operations
            self.items, self.operations = [], []
            if loop_depth:
                self.jump(node, "break")
            items = self.items
            self.items, self.operations = saved
            return items

        self.branch(self.location, flag, returned, lambda: self.block(rest, loop_depth))

    def if_statement(self, node: cst.If, rest: list, loop_depth: int) -> None:
        location = self.source.location(node)
        condition = self.expression(node.test)
        self.flush()
        if node.orelse is None:
            else_lines = []
        elif isinstance(node.orelse, cst.If):  # elif
            else_lines = [node.orelse]
        else:
            else_lines = list(node.orelse.body.body)
        self.branch(location, condition, lambda: self.block(list(node.body.body) + rest, loop_depth),
                    lambda: self.block(else_lines + rest, loop_depth))

    def branch(self, location, condition: Atom, then, orelse) -> Branch:
        """Normalise both paths from the same variables; merge what they changed."""
        if isinstance(condition, Var):
            self.conditions.add(condition.name)
        before = dict(self.current)
        then_items = then()
        after_then = self.current
        self.current = dict(before)
        else_items = orelse()
        after_else = self.current
        # A path that jumps away never reaches the code after the branch: take the other's names.
        if leaves_block(then_items) and not leaves_block(else_items):
            after_then = after_else
        elif leaves_block(else_items):
            after_else = after_then
        merged = {}
        made_in = [{op.target for op in operations_of(items)} - set(before.values()) for items in (then_items, else_items)]
        for user_name in dict.fromkeys([*after_then, *after_else]):
            versions = [after.get(user_name) for after in (after_then, after_else)]
            if versions[0] != versions[1] and versions[0] in made_in[0] and versions[1] in made_in[1] \
                    and not leaves_block(then_items) and not leaves_block(else_items):
                # both paths compute it: let the second compute it under the first one's name
                rename_variable(else_items, versions[1], versions[0])
                after_else = {**after_else, user_name: versions[0]}
                versions[1] = versions[0]
            if versions[0] == versions[1]:
                merged[user_name] = versions[0]
                continue
            merged[user_name] = self.namer.version(base_name(user_name))
            for items, version in ((then_items, versions[0]), (else_items, versions[1])):
                if leaves_block(items):
                    continue  # this path jumps away: it does not reach the merge
                entry = self.returned_atoms.get(version, Var(version)) if version is not None else Const("None")
                copy = Operation(merged[user_name], "copy", args=[entry])
                self.emitted.append(copy)
                if items and isinstance(items[-1], Statement) and items[-1].merge:
                    items[-1].operations.append(copy)
                else:
                    items.append(Statement(location, [copy], merge=True))
        self.current = merged
        item = Branch(location, condition, then_items, else_items)
        self.items.append(item)
        return item

    def choice(self, condition: Atom, then, orelse, want) -> Atom:
        """``then if condition else orelse`` (each a node, or an atom already computed),
        evaluating only the branch taken. Both paths compute their value into the same
        name, so nothing needs merging after the branch."""
        merged = want or self.namer.fresh("choice")
        self.flush()

        def path(value):
            def build():
                saved = self.items, self.operations
                self.items, self.operations = [], []
                atom = value if isinstance(value, (Var, Const)) else self.expression(value, want=merged)
                if not (isinstance(atom, Var) and atom.name == merged):
                    self.emit(Operation(merged, "copy", args=[atom]))
                self.flush()
                items = self.items
                for item in items:
                    if isinstance(item, Statement) and item.location == self.location:
                        item.merge = True  # the line's comment stands above the `if`
                self.items, self.operations = saved
                return items
            return build

        self.branch(self.location, condition, path(then), path(orelse))
        return Var(merged)


def base_name(variable: str) -> str:
    """A user variable's name; for a pseudo-variable (``<result>``, ``<y#12>``) the word inside."""
    return variable.strip("<>").split("#")[0] if variable.startswith("<") else variable


def rename_variable(block, old: str, new: str) -> None:
    """Rename variable ``old`` to ``new`` throughout a normalised block (in place)."""
    def atom(a):
        return Var(new) if isinstance(a, Var) and a.name == old else a

    def operation(op):
        if op.target == old:
            op.target = new
        op.args = [atom(a) for a in op.args]
        op.kwargs = [(k, atom(a)) for k, a in op.kwargs]

    def is_self_copy(op):
        # renaming may turn a merge copy into ``x = x``: a no-op, and one the reverse pass
        # would read as "dx += dx" (doubling the cotangent), so it goes
        return op.kind == "copy" and op.args == [Var(op.target)]

    for item in block:
        if isinstance(item, Statement):
            for op in item.operations:
                operation(op)
            item.operations[:] = [op for op in item.operations if not is_self_copy(op)]
        elif isinstance(item, Loop):
            for op in [*item.setup, *item.elements, *item.back_edges]:
                operation(op)
            item.back_edges[:] = [op for op in item.back_edges if not is_self_copy(op)]
            item.condition = atom(item.condition) if item.condition is not None else None
            rename_variable(item.test, old, new)
            rename_variable(item.body, old, new)
        elif isinstance(item, Branch):
            item.condition = atom(item.condition)
            rename_variable(item.then, old, new)
            rename_variable(item.orelse, old, new)
        elif isinstance(item, Jump):
            for op in item.edges:
                operation(op)
            item.edges[:] = [op for op in item.edges if not is_self_copy(op)]


def leaves_block(items) -> bool:
    """Whether every path through a normalised block ends in a jump or a return."""
    if not items:
        return False
    last = items[-1]
    if isinstance(last, Jump):
        return True
    if isinstance(last, Context):
        return leaves_block(last.then)
    if isinstance(last, Branch):
        return leaves_block(last.then) and leaves_block(last.orelse)
    return False
