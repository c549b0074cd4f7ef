"""Statements: a block's lines, ``return``, and every kind of assignment.

``block`` walks a list of statement lines and hands loops to normalize_loops.py and
``if`` statements to normalize_branches.py; a line of small statements is normalised
here, each small statement by the method ``SMALL_STATEMENTS`` names for its libcst type:
plain, annotated and augmented assignments (``y += v`` keeps ``y``'s memory and dtype:
``written_into``), expression statements kept for their effect, ``assert`` and ``pass``.
``assign`` binds a value to any target: a name (a new version), a tuple or list (unpacked
element by element, a starred element as a slice), or ``y[i]`` (an in-place change, see
normalize_mutation.py).
"""
from __future__ import annotations

import operator

import libcst as cst

from ..analysis.aliasing import user_name
from ..errors import UnsupportedSyntaxError
from ..rules.helpers import written_into, written_into_argument
from .ir import Atom, Callee, Const, Operation, Var
from .local_imports import imported_value
from .normalize_expressions import AUGMENTED, BINARY
from .normalize_state import RETURN, RETURNED, YIELDED, NormalizerState, atom_name
from .normalize_syntax import dotted_name, may_leave, returns_inside

# libcst small-statement type -> the method that normalises it (return, break and continue
# end the line: simple_line handles them)
SMALL_STATEMENTS = {
    cst.Assign: "assignment", cst.AnnAssign: "annotated_assignment", cst.AugAssign: "augmented_assignment",
    cst.Expr: "expression_statement", cst.Assert: "assertion", cst.Pass: "pass_statement",
    cst.Import: "import_statement", cst.ImportFrom: "import_statement", cst.Nonlocal: "pass_statement",
    cst.Del: "delete_statement",
}


class StatementNormalizer(NormalizerState):
    def block(self, lines, loop_depth=0) -> list:
        """Normalise a list of statement lines (a function's, a loop's or a branch's body).

        A statement after an ``if`` that may leave the block (``break``, ``continue``,
        ``return``) runs only on the paths that did not: it is moved into those paths, so
        every path through the result is straight-line code ending in at most one jump.
        """
        saved = self.items, self.operations, self.location
        self.items, self.operations = [], []
        for position, line in enumerate(lines):
            self.location = self.source.location(line)
            rest = list(lines[position + 1:])
            if isinstance(line, (cst.For, cst.While)):
                self.flush()
                returns = returns_inside(line)
                if returns:
                    for pseudo, word, initial in ((RETURNED, "returned", "False"), (RETURN, "result", "None")):
                        if pseudo not in self.current:
                            self.current[pseudo] = self.namer.version(word)
                            self.emit(Operation(self.current[pseudo], "copy", args=[Const(initial)]))
                self.items.append(self.loop(line, loop_depth, returns))
                if returns:
                    self.after_returning_loop(line, rest, loop_depth)
                    break
                continue
            if isinstance(line, cst.FunctionDef):
                self.local_functions[line.name.value] = line  # inlined where it is called
                self.defaults_where_defined(line)
                self.current.pop(line.name.value, None)
                continue
            if isinstance(line, cst.ClassDef):
                self.local_class(line)
                continue
            if isinstance(line, cst.Try):
                self.flush()
                self.try_statement(line, rest if may_leave(line) else [], loop_depth)
                if may_leave(line):
                    break
                continue
            if isinstance(line, cst.With):
                self.flush()
                self.with_statement(line, rest if may_leave(line) else [], loop_depth)
                if may_leave(line):
                    break
                continue
            if isinstance(line, cst.If):
                self.flush()
                if may_leave(line):
                    self.if_statement(line, rest, loop_depth)
                    break
                self.if_statement(line, [], loop_depth)
                continue
            if not isinstance(line, cst.SimpleStatementLine):  # the fence let only these through
                raise UnsupportedSyntaxError(f"{type(line).__name__} is not supported", self.location)
            if self.simple_line(line, loop_depth):
                break  # a jump: the rest of the block never runs
        self.flush()
        items = self.items
        self.items, self.operations, self.location = saved
        return items

    def simple_line(self, line, loop_depth) -> bool:
        """Normalise one line of small statements; True if it ends in a jump."""
        for small in line.body:
            if isinstance(small, cst.Return) and loop_depth:
                self.return_from_loop(small)
                return True
            if isinstance(small, cst.Return):
                self.return_statement(small)
                return True
            if isinstance(small, (cst.Break, cst.Continue)):
                self.jump(small, "break" if isinstance(small, cst.Break) else "continue")
                return True
            if isinstance(small, cst.Raise):
                self.raise_statement(small)
                return True
            self.small_statement(small)
        self.flush()
        return False

    def return_from_loop(self, node: cst.Return) -> None:
        """Set the result and a flag, and leave the loop; the code after the loop tests the flag."""
        version = self.namer.version("result")
        atom = self.expression(node.value, want=version) if node.value is not None else Const("None")
        if not (isinstance(atom, Var) and atom.name == version):
            self.emit(Operation(version, "copy", args=[atom]))
        self.current[RETURN] = version
        flag = self.namer.version("returned")
        self.emit(Operation(flag, "copy", args=[Const("True")]))
        self.current[RETURNED] = flag
        self.jump(node, "break")

    def return_statement(self, node: cst.Return) -> None:
        if self.result_name is None:
            self.result_name = self.namer.version("result")
        version = self.result_name  # every path returns into the same name: nothing to merge
        atom = self.expression(node.value, want=version) if node.value is not None else Const("None")
        if self.return_count == 1:
            self.returned_atoms[version] = atom  # the only return: no copy, the result is the atom
        elif not (isinstance(atom, Var) and atom.name == version):
            self.emit(Operation(version, "copy", args=[atom]))
        self.current[RETURN] = version

    def small_statement(self, node) -> None:
        handler = SMALL_STATEMENTS.get(type(node))
        if handler is None:
            raise UnsupportedSyntaxError(f"{type(node).__name__} is not supported", self.source.location(node))
        getattr(self, handler)(node)

    def assignment(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Lambda) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and node.targets[0].target.value not in self.current:  # a variable given a lambda is a value
            self.local_functions[node.targets[0].target.value] = node.value  # inlined where it is called
            self.defaults_where_defined(node.value)
            self.current.pop(node.targets[0].target.value, None)
            return
        if len(node.targets) > 1:
            # `a = b = np.zeros(n)`: one value, evaluated once, bound left to right: both names
            # are the same object, so a write through one is seen through the other (aliasing.py)
            atom = self.expression(node.value)
            for target in node.targets:
                self.assign(target.target, atom)
            return
        self.assign(node.targets[0].target, None, node.value)

    def annotated_assignment(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, None, node.value)

    def augmented_assignment(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Subscript):
            self.augmented_element(node)
            return
        binary = AUGMENTED.get(type(node.operator))
        if binary is None:
            raise UnsupportedSyntaxError(f"the augmented assignment `{node.operator.__class__.__name__}` is not supported",
                                         self.source.location(node))
        if isinstance(node.target, cst.Attribute):
            self.augmented_attribute(node, binary)
            return
        expression = cst.BinaryOperation(left=node.target, operator=binary(), right=node.value)
        before = self.current.get(node.target.value)
        if binary is cst.Add and before is not None and (
                isinstance(node.value, cst.Tuple) or dotted_name(getattr(node.value, "func", None)) == "tuple"):
            self.assign(node.target, None, expression)  # `args += (x,)`: a new tuple
            return
        if before is None:
            self.assign(node.target, None, expression)
            return
        # on an array, `y += v` writes into y's memory (every other name for it sees the
        # change: see aliasing.py) and keeps y's dtype: `y_2 = written_into(y + v, y)`
        computed = self.expression(expression, want=self.namer.fresh(f"{node.target.value}_{binary.__name__.lower()}"))
        version = self.namer.version(node.target.value)
        kept = Operation(version, "call", Callee("static", "written_into", written_into), [computed, Var(before)])
        if before == self.param_versions.get(node.target.value) or before in self.owned.values():
            # still what the caller passed (or the function's copy of it, written back): refused if it
            # changes in place, as the caller's value would
            kept = Operation(version, "call", Callee("static", "written_into_argument", written_into_argument),
                             [computed, Var(before), Const(repr(node.target.value))])
        self.callers_check(Var(before), node.target.value)  # `w = d["w"]; w += v`, `w = dict(d)["w"]; w += v`
        self.emit(kept)
        self.current[node.target.value] = version
        self.in_place[id(kept)] = before

    def augmented_element(self, node: cst.AugAssign) -> None:
        """``y[i] += v``: the element read, combined with ``v`` and written back."""
        binary = AUGMENTED[type(node.operator)]
        container, index = self.container(node.target)
        current = self.operation(None, "item", [atom_name(container), atom_name(index)],
                                 Operation("", "call", Callee("static", "[]", operator.getitem, "{0}[{1}]"),
                                           [container, index]), derived_from_operands=True)
        function, symbol = BINARY[binary]
        value = self.expression(node.value)
        updated = self.operation(None, symbol, [current, value],
                                 Operation("", "call", Callee("static", symbol, function, "{0} " + symbol + " {1}"),
                                           [current, value]))
        # `y[i] += v` runs `y[i].__iadd__(v)`: on a slice or a fancy index's copy it keeps the
        # dtype (and refuses int += float) before the result is written back. On an array held
        # in a list or dict it changes that array, which other names may hold: checked like
        # `y += v` (aliasing.py), the container's own versions exempt, as the write puts the
        # changed value back in it
        kept = Operation(self.namer.fresh(f"{updated.name}_kept"), "call",
                         Callee("static", "written_into", written_into), [updated, current])
        self.callers_check(current, cst.Module([]).code_for_node(node.target))  # `h = dict(d); h["w"] += v`
        self.emit(kept)
        self.in_place[id(kept)] = current.name
        if isinstance(container, Var):
            self.updated_attributes[id(kept)] = user_name(container.name)
        self.mutate(node.target, "setitem", container, [index, Var(kept.target)])

    def expression_statement(self, node: cst.Expr) -> None:
        if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
            return  # a docstring or a bare constant does nothing
        if isinstance(node.value, cst.Yield):
            value = self.expression(node.value.value) if node.value.value is not None else Const("None")
            self.mutate(node, "append", Var(self.current[YIELDED]), [value])
            return
        atom = self.expression(node.value)
        last = self.operations[-1] if self.operations else None
        if isinstance(atom, Var) and last is not None and last.target == atom.name and last.kind == "call":
            last.kind = "effect"  # kept for its side effect (print, ...)
            self.record_if_a_log(last, node)  # `LOG.append(loss)`: records.py

    def assertion(self, node: cst.Assert) -> None:
        test = self.expression(node.test)
        message = self.expression(node.msg) if node.msg is not None else Const("None")
        self.emit(Operation(self.namer.fresh("_"), "assert", args=[test, message]))

    def pass_statement(self, node) -> None:
        """``pass`` does nothing; nor does a nested function's ``nonlocal`` here: its call,
        written out in place, hands the names back (normalize_calls.py, ``inline``)."""

    def import_statement(self, node) -> None:
        """``import numpy as np`` or ``from scipy.special import expit`` in the function's body: each
        name it binds resolves, from here on, to what the import gives, found now as a global is
        (``resolve.Environment`` reads the function's imports from its bytecode); nothing is run."""
        location = self.source.location(node)
        if self.inlining:
            raise UnsupportedSyntaxError("an `import` inside a nested function or lambda is not supported", location,
                                         "import it in the differentiated function itself, or at module level")
        for name in imported_names(node):
            imported = self.env.imports.get(name)
            try:
                if imported is None:
                    raise ImportError("the function's code does not import it")
                imported_value(imported, self.env.globals)
            except ImportError as error:
                raise UnsupportedSyntaxError(f"`{name}` cannot be imported when s2sad reads the function: {error}",
                                             location, "install what is missing; give each import a name of its own"
                                             ) from None
            self.current.pop(name, None)  # a variable of the same name before the import is gone
            self.namer.reserve(name)

    def assign(self, target, atom: Atom | None, value=None, bind_only=False) -> None:
        """Bind ``atom`` (or, when it is None, the value of the expression node ``value``) to ``target``."""
        if isinstance(target, cst.Subscript):
            atom = atom if atom is not None else self.expression(value)
            container, index = self.container(target)
            self.mutate(target, "setitem", container, [index, atom])
            return
        if isinstance(target, cst.Attribute):
            self.set_attribute(target, atom if atom is not None else self.expression(value))
            return
        if bind_only and isinstance(target, cst.Name):
            self.current[target.value] = atom.name  # already a fresh version of its own
            return
        if isinstance(target, (cst.Tuple, cst.List)) and any(isinstance(e, cst.StarredElement) for e in target.elements):
            self.starred_assign(target, atom if atom is not None else self.expression(value))
            return
        if isinstance(target, (cst.Tuple, cst.List)) and atom is None and isinstance(value, (cst.Tuple, cst.List)) \
                and len(value.elements) == len(target.elements) \
                and not any(isinstance(e, cst.StarredElement) for e in value.elements):
            # `x, v = x + dt * v, v - dt * x`: every value first (as Python evaluates them), then each
            # name bound to its own, with no tuple made and taken apart (a function of floats stays one)
            items = [self.expression(element.value) for element in value.elements]
            for element, item in zip(target.elements, items):
                self.assign(element.value, item)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            sequence = atom if atom is not None else self.expression(value)
            for index, element in enumerate(target.elements):
                name = self.namer.temporary("item", [atom_name(sequence), str(index)])
                self.emit(Operation(name, "unpack", args=[sequence], index=index, length=len(target.elements)))
                self.assign(element.value, Var(name))
            return
        user_name = target.value  # the fence allows only names here
        if atom is None:
            version = self.namer.version(user_name)
            atom = self.expression(value, want=version)
            if isinstance(atom, Var) and atom.name == version:
                self.current[user_name] = version
                return
            self.emit(Operation(version, "copy", args=[atom]))
            self.current[user_name] = version
            return
        version = self.namer.version(user_name)
        self.emit(Operation(version, "copy", args=[atom]))
        self.current[user_name] = version

    def starred_assign(self, target, sequence: Atom) -> None:
        """``first, *middle, last = xs``: elements by position from either end, the rest a slice."""
        elements = list(target.elements)
        star = next(i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement))
        after = len(elements) - star - 1
        getitem = Callee("static", "[]", operator.getitem, "{0}[{1}]")
        for position, element in enumerate(elements):
            if position < star:
                index = Const(str(position))
            elif position > star:
                index = Const(str(position - len(elements)))
            else:
                index = Const(f"slice({star}, {-after if after else None}, None)")
            part = self.operation(None, "item" if position != star else "slice", [atom_name(sequence), ""],
                                  Operation("", "call", getitem, [sequence, index]), derived_from_operands=True)
            if position == star:
                part = self.operation(None, "list", [part.name],
                                      Operation("", "call", Callee("static", "list", list), [part]))
                self.bind("list")
            self.assign(element.value, part)


def imported_names(node) -> list[str]:
    """The names an ``import`` or ``from ... import`` statement binds (``import a.b`` binds ``a``)."""
    names = []
    for alias in node.names:
        if alias.asname is not None:
            names.append(alias.asname.name.value)
        else:
            names.append(dotted_name(alias.name).split(".")[0])
    return names
