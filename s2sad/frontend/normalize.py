"""Normalisation: from the user's libcst tree to A-normal form.

Each user statement becomes a list of operations, one per assignment, each operand an
atom (a variable or a constant), every variable assigned once (a reassigned user
variable gets a new version: ``h``, ``h_2``). Callees are resolved here, at transform
time, to the real objects in the function's environment.
"""
from __future__ import annotations

import builtins
import operator

import libcst as cst
import numpy as np

from ..analysis.aliasing import check_writes, may_share
from ..errors import UnsupportedSyntaxError
from .fence import ReadingVisitor
from .ir import Atom, Branch, Callee, Const, Function, Jump, Loop, Operation, Statement, Var, operations_of
from .naming import Namer
from .resolve import Environment, found, importable_module_name
from ..rules.helpers import added_at, subtracted_at, written_into, written_into_shared
from .source import FunctionSource

_code = cst.Module([]).code_for_node

BINARY = {
    cst.Add: (operator.add, "+"), cst.Subtract: (operator.sub, "-"), cst.Multiply: (operator.mul, "*"),
    cst.Divide: (operator.truediv, "/"), cst.FloorDivide: (operator.floordiv, "//"),
    cst.Modulo: (operator.mod, "%"), cst.Power: (operator.pow, "**"), cst.MatrixMultiply: (operator.matmul, "@"),
    cst.BitAnd: (operator.and_, "&"), cst.BitOr: (operator.or_, "|"), cst.BitXor: (operator.xor, "^"),
    cst.LeftShift: (operator.lshift, "<<"), cst.RightShift: (operator.rshift, ">>"),
}
UNARY = {
    cst.Minus: (operator.neg, "-{0}", "neg"), cst.Plus: (operator.pos, "+{0}", "pos"),
    cst.Not: (operator.not_, "not {0}", "not"), cst.BitInvert: (operator.invert, "~{0}", "~"),
}
COMPARISON = {
    cst.LessThan: (operator.lt, "<"), cst.LessThanEqual: (operator.le, "<="), cst.GreaterThan: (operator.gt, ">"),
    cst.GreaterThanEqual: (operator.ge, ">="), cst.Equal: (operator.eq, "=="), cst.NotEqual: (operator.ne, "!="),
    cst.Is: (operator.is_, "is"), cst.IsNot: (operator.is_not, "is not"),
}
AUGMENTED = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
}
CONSTANT_NAMES = {"None", "True", "False"}
LIST_MUTATORS = ("append", "extend", "pop")
UNSUPPORTED_MUTATORS = {
    "insert": "build a new list: `xs = xs[:i] + [v] + xs[i:]`",
    "remove": "build a new list without the element",
    "sort": "use `sorted(xs)` or `np.sort(x)`, which return a new value",
    "reverse": "use `xs[::-1]`",
    "clear": "assign a new empty list",
    "update": "build a new dict: `d = {**d, ...}` is not supported either; assign the keys one by one: `d[k] = v`",
    "setdefault": "test `k in d` and assign `d[k] = v`",
    "popitem": "read and delete keys explicitly",
    "fill": "use `np.full_like(x, value)`",
    "resize": "use `np.resize(x, shape)`, which returns a new array",
    "put": "use `y[index] = values` on a copy",
    "itemset": "use `y[index] = value` on a copy",
    "partition": "use `np.partition(x, k)`, which returns a new array",
}
BUILTIN_NAMES = {name for name in dir(builtins) if not name.startswith("_")}
RETURN = "<result>"
RETURNED = "<returned>"  # set when a `return` inside a loop has run  # the pseudo-variable holding what the function returns, merged like any other

# Names generated code itself uses; user variables that collide are renamed.
RESERVED = {"np", "math", "operator", "ZERO", "NO_TANGENT", "accumulate", "unbroadcast", "g", "ans",
            "written_into", "written_into_shared", "added_at", "subtracted_at"}  # what in-place code is written with


class Normalizer:
    def __init__(self, source: FunctionSource, reserved=()):
        self.source = source
        self.env = Environment(source.function)
        # names the generated code may read as they are: builtins, and the globals the function uses
        code = getattr(source.function, "__code__", None)
        used_globals = set(code.co_names) | set(code.co_freevars) if code is not None else set()
        self.namer = Namer(RESERVED | set(reserved) | BUILTIN_NAMES | used_globals)
        self.current: dict[str, str] = {}       # user variable -> its current version
        self.operations: list[Operation] = []
        self.bindings: dict[str, tuple] = {}
        self.imports: dict[str, str] = {}
        self.free_reads: dict[str, str] = {}
        self.emitted: list[Operation] = []       # every operation so far, in order
        self.local_functions: dict = {}          # nested def or lambda name -> its node (inlined when called)
        self.inlining: list = []                 # the nested functions being written out, innermost last
        self.param_versions: dict[str, str] = {}  # parameter -> the variable holding it
        self.roots: dict[str, str] = {}          # variable -> the argument or global it may share memory with
        self.in_place: dict[int, str] = {}       # id of `y_2 = written_into(y + v, y)` (`y += v`) -> the version it changes
        self.user_params: set[str] = set()
        self.items: list = []                    # the block being built
        self.location = source.location(source.funcdef)
        self.returned_atoms: dict[str, Atom] = {}  # a result version -> the atom returned
        self.loop_names: list[dict[str, str]] = []  # per enclosing loop: carried user variable -> loop name
        self.result_name: str | None = None
        self.conditions: set[str] = set()  # variables read as a branch's or a loop's condition
        self.return_count = _count_returns(source.funcdef)
        self.params: set[str] = set()

    # ------------------------------------------------------------------ statements
    def run(self) -> Function:
        funcdef = self.source.funcdef
        params, defaults = [], {}
        signature = funcdef.params
        star = [signature.star_arg] if isinstance(signature.star_arg, cst.Param) else []
        double_star = [signature.star_kwarg] if signature.star_kwarg is not None else []
        # in the order Python binds them: *args arrives as one tuple, **kwargs as one dict
        for param in [*signature.posonly_params, *signature.params, *star, *signature.kwonly_params, *double_star]:
            name = param.name.value
            self.current[name] = self.namer.version(name)  # the name itself unless generated code reserves it
            params.append(self.current[name])
            self.param_versions[name] = self.current[name]
            self.params.add(self.current[name])
            self.roots[self.current[name]] = name
            self.user_params.add(name)
            if param.default is not None:
                defaults[name] = _code(param.default)
        statements = self.block(funcdef.body.body)
        if RETURN not in self.current:
            result = Const("None")
        elif self.current[RETURN] in self.returned_atoms:
            result = self.returned_atoms[self.current[RETURN]]  # one return, at the end: no copy needed
        else:
            result = Var(self.current[RETURN])
        function = Function(
            name=funcdef.name.value, params=params, defaults=defaults, param_versions=self.param_versions,
            statements=statements, result=result, free_reads=self.free_reads, bindings=self.bindings,
            imports=self.imports, location=self.source.location(funcdef),
        )
        guarded = check_writes(function, self.in_place, self.source)
        for operation in operations_of(statements):
            if id(operation) in guarded:
                operation.callee = Callee("static", "written_into_shared", written_into_shared)
                operation.args += [Const(repr(name)) for name in guarded[id(operation)]]
        return function

    # A block is built as a list of items; operations gather in ``self.operations`` until
    # something that is not an operation (a loop, a branch, a jump) closes the statement.
    def flush(self) -> None:
        if self.operations:
            self.items.append(Statement(self.location, self.operations))
        self.operations = []

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
                returns = _returns_inside(line)
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
                self.current.pop(line.name.value, None)
                continue
            if isinstance(line, cst.If):
                self.flush()
                if _may_leave(line):
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
                # set the result and a flag, and leave the loop; the code after the loop tests the flag
                version = self.namer.version("result")
                atom = self.expression(small.value, want=version) if small.value is not None else Const("None")
                if not (isinstance(atom, Var) and atom.name == version):
                    self.emit(Operation(version, "copy", args=[atom]))
                self.current[RETURN] = version
                flag = self.namer.version("returned")
                self.emit(Operation(flag, "copy", args=[Const("True")]))
                self.current[RETURNED] = flag
                self.jump(small, "break")
                return True
            if isinstance(small, cst.Return):
                if self.result_name is None:
                    self.result_name = self.namer.version("result")
                version = self.result_name  # every path returns into the same name: nothing to merge
                atom = self.expression(small.value, want=version) if small.value is not None else Const("None")
                if self.return_count == 1:
                    self.returned_atoms[version] = atom  # the only return: no copy, the result is the atom
                elif not (isinstance(atom, Var) and atom.name == version):
                    self.emit(Operation(version, "copy", args=[atom]))
                self.current[RETURN] = version
                return True
            if isinstance(small, (cst.Break, cst.Continue)):
                self.jump(small, "break" if isinstance(small, cst.Break) else "continue")
                return True
            self.small_statement(small)
        self.flush()
        return False

    def jump(self, node, kind: str) -> None:
        """Leave the innermost loop's iteration, copying its carried variables back first."""
        self.flush()
        edges = [Operation(loop_name, "copy", args=[Var(self.current[user_name])])
                 for user_name, loop_name in self.loop_names[-1].items() if self.current[user_name] != loop_name]
        self.emitted += edges
        self.items.append(Jump(self.source.location(node), kind, edges))

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
        if _leaves_block(then_items) and not _leaves_block(else_items):
            after_then = after_else
        elif _leaves_block(else_items):
            after_else = after_then
        merged = {}
        made_in = [{op.target for op in operations_of(items)} - set(before.values()) for items in (then_items, else_items)]
        for user_name in dict.fromkeys([*after_then, *after_else]):
            versions = [after.get(user_name) for after in (after_then, after_else)]
            if versions[0] != versions[1] and versions[0] in made_in[0] and versions[1] in made_in[1] \
                    and not _leaves_block(then_items) and not _leaves_block(else_items):
                # both paths compute it: let the second compute it under the first one's name
                _rename(else_items, versions[1], versions[0])
                after_else = {**after_else, user_name: versions[0]}
                versions[1] = versions[0]
            if versions[0] == versions[1]:
                merged[user_name] = versions[0]
                continue
            merged[user_name] = self.namer.version(_base_name(user_name))
            for items, version in ((then_items, versions[0]), (else_items, versions[1])):
                if _leaves_block(items):
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

    def loop(self, node, loop_depth: int, returns: bool = False, private=()) -> Loop:
        """A ``for`` or ``while`` loop, with the variables it carries between iterations.

        A user variable is carried if the body assigns it and it is also alive outside the
        body (assigned before the loop, or read anywhere else in the function). It gets
        one loop name, copied in before the loop (unless it can be reused in place) and
        written back at the end of each iteration, so the code after the loop reads its
        last value.
        """
        location = self.source.location(node)
        iteration = self.iteration(node) if isinstance(node, cst.For) else None
        assigned = _assigned_names(node) + ([RETURNED, RETURN] if returns else [])
        outside = _names_read_outside(self.source.funcdef, node)
        loop_names = {}
        walked = {atom.name for atom in (iteration[0] if iteration else []) if isinstance(atom, Var)}
        # An enclosing loop's name is never reused: the enclosing loop would lose its back
        # edge, and with it the variable from its carried ones (which its tape must not
        # save under the name the code after it reads).
        enclosing = {name for names in self.loop_names for name in names.values()}
        for user_name in assigned:
            if user_name in private:
                continue  # a comprehension's own variable: not seen after it
            if user_name in self.current and self.current[user_name] not in walked \
                    and self.current[user_name] not in enclosing \
                    and self.reusable(self.current[user_name]):  # (`for e in x: x = ...` walks the old x)
                loop_names[user_name] = self.current[user_name]  # no copy needed: see reusable()
            elif user_name in self.current or user_name in outside:
                entry = Var(self.current[user_name]) if user_name in self.current else Const("None")
                loop_names[user_name] = self.namer.version(user_name)
                self.emit(Operation(loop_names[user_name], "copy", args=[entry]))
                self.current[user_name] = loop_names[user_name]
        setup = self.operations
        self.operations = []
        loop = Loop(location, setup, [], [], [])
        if iteration is None:  # while: the test runs before each iteration
            saved = self.items
            self.items = []
            loop.condition = self.expression(node.test)
            if isinstance(loop.condition, Var):
                self.conditions.add(loop.condition.name)
            self.flush()
            loop.test, self.items = self.items, saved
        else:
            iterables, targets, counter, loop.over_items = iteration
            if counter is not None:
                loop.counter = self.namer.version(counter.value)
                self.current[counter.value] = loop.counter
            for iterable, target in zip(iterables, targets):
                base = target.value if isinstance(target, cst.Name) else self.namer.temporary("item", [_atom_name(iterable)])
                element = Operation(self.namer.version(base) if isinstance(target, cst.Name) else base, "element",
                                    args=[iterable])
                loop.elements.append(element)
                self.share_roots(element)  # `for row in x`: each row is a view of x
                self.assign(target, Var(element.target), bind_only=True)
        unpacking = self.operations
        self.operations = []
        self.loop_names.append(loop_names)
        loop.body = self.block(node.body.body, loop_depth + 1)
        self.loop_names.pop()
        if unpacking:
            loop.body.insert(0, Statement(location, unpacking))
        for user_name, loop_name in loop_names.items():
            if self.current[user_name] != loop_name:
                loop.back_edges.append(Operation(loop_name, "copy", args=[Var(self.current[user_name])]))
            self.current[user_name] = loop_name
        return loop

    def iteration(self, node: cst.For):
        """What a ``for`` loop walks: (iterables, their targets, the counter, over dict items).

        ``enumerate(xs)`` gives a counter, ``zip(xs, ys)`` several iterables walked together,
        ``d.items()`` / ``d.values()`` a dict's values with its keys as the counter.
        """
        target, iterable, counter = node.target, node.iter, None
        if self.builtin_call(iterable, "enumerate") and _pair(target) and isinstance(target.elements[0].value, cst.Name):
            counter, target = target.elements[0].value, target.elements[1].value
            iterable = iterable.args[0].value
        if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute) and not iterable.args
                and iterable.func.attr.value in ("items", "values") and counter is None):
            if iterable.func.attr.value == "items" and _pair(target) and isinstance(target.elements[0].value, cst.Name):
                counter, target = target.elements[0].value, target.elements[1].value
            elif iterable.func.attr.value == "values":
                counter = cst.Name(self.namer.fresh("key"))
            else:
                counter = None
            if counter is not None:
                return [self.expression(iterable.func.value)], [target], counter, True
        if self.builtin_call(iterable, "zip") and isinstance(target, (cst.Tuple, cst.List)) \
                and len(target.elements) == len(iterable.args):
            return ([self.expression(arg.value) for arg in iterable.args], [e.value for e in target.elements],
                    counter, False)
        return [self.expression(iterable)], [target], counter, False

    def builtin_call(self, node, name: str) -> bool:
        """``node`` calls the builtin ``name`` (not shadowed), with plain positional arguments."""
        import builtins

        return (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name
                and name not in self.current and self.env.lookup(name) is getattr(builtins, name)
                and node.args and all(arg.keyword is None and not arg.star for arg in node.args))

    def reusable(self, version: str) -> bool:
        """Whether a loop may carry ``version`` under its own name, overwriting it.

        Safe when nothing has read it yet and the pullback of what defined it does not read
        it either: a parameter, or a copy (``total = 0.0``, ``h = x``).
        """
        if any(version in op.uses() for op in self.emitted) or version in self.conditions:
            return False  # read already, by an operation or as a branch's or loop's condition (the
                          # reverse pass reads a condition when the pullback runs: it must keep its value)
        definitions = [op for op in self.emitted if op.target == version]
        if not definitions:
            return version in self.params
        # every definition a copy: a merge whose other path computed it (x = x / d on one path,
        # x = x on the other) keeps that value for its own pullback, which reads it as `ans`
        return all(op.kind == "copy" for op in definitions)

    def small_statement(self, node) -> None:
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Lambda) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            self.local_functions[node.targets[0].target.value] = node.value
            self.current.pop(node.targets[0].target.value, None)
        elif isinstance(node, cst.Assign):
            value = node.value
            for target in node.targets[1:]:
                self.assign(target.target, self.expression(value))
            self.assign(node.targets[0].target, None, value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, None, node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
            binary = AUGMENTED[type(node.operator)]
            container, index = self.container(node.target)
            current = self.operation(None, "item", [_atom_name(container), _atom_name(index)],
                                     Operation("", "call", Callee("static", "[]", operator.getitem, "{0}[{1}]"),
                                               [container, index]), derived_from_operands=True)
            function, symbol = BINARY[binary]
            value = self.expression(node.value)
            updated = self.operation(None, symbol, [current, value],
                                     Operation("", "call", Callee("static", symbol, function, "{0} " + symbol + " {1}"),
                                               [current, value]))
            # `y[i] += v` runs `y[i].__iadd__(v)`: on a slice or a fancy index's copy it keeps the
            # dtype (and refuses int += float) before the result is written back
            updated = self.operation(self.namer.fresh(f"{updated.name}_kept"), "", [],
                                     Operation("", "call", Callee("static", "written_into", written_into), [updated, current]))
            self.mutate(node.target, "setitem", container, [index, updated])
        elif isinstance(node, cst.AugAssign):
            binary = AUGMENTED.get(type(node.operator))
            if binary is None:
                raise UnsupportedSyntaxError(f"the augmented assignment `{node.operator.__class__.__name__}` is not supported",
                                             self.source.location(node))
            expression = cst.BinaryOperation(left=node.target, operator=binary(), right=node.value)
            before = self.current.get(node.target.value)
            if before is None:
                self.assign(node.target, None, expression, origin=node)
                return
            # on an array, `y += v` writes into y's memory (every other name for it sees the
            # change: see aliasing.py) and keeps y's dtype: `y_2 = written_into(y + v, y)`
            computed = self.expression(expression, want=self.namer.fresh(f"{node.target.value}_{binary.__name__.lower()}"))
            version = self.namer.version(node.target.value)
            kept = Operation(version, "call", Callee("static", "written_into", written_into), [computed, Var(before)])
            self.emit(kept)
            self.current[node.target.value] = version
            self.in_place[id(kept)] = before
        elif isinstance(node, cst.Expr):
            if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
                return  # a docstring or a bare constant does nothing
            atom = self.expression(node.value)
            last = self.operations[-1] if self.operations else None
            if isinstance(atom, Var) and last is not None and last.target == atom.name and last.kind == "call":
                last.kind = "effect"  # kept for its side effect (print, ...)
        elif isinstance(node, cst.Assert):
            test = self.expression(node.test)
            message = self.expression(node.msg) if node.msg is not None else Const("None")
            self.emit(Operation(self.namer.fresh("_"), "assert", args=[test, message]))
        elif isinstance(node, cst.Pass):
            return
        else:
            raise UnsupportedSyntaxError(f"{type(node).__name__} is not supported", self.source.location(node))

    def assign(self, target, atom: Atom | None, value=None, origin=None, bind_only=False) -> None:
        if isinstance(target, cst.Subscript):
            atom = atom if atom is not None else self.expression(value)
            container, index = self.container(target)
            self.mutate(target, "setitem", container, [index, atom])
            return
        if bind_only and isinstance(target, cst.Name):
            self.current[target.value] = atom.name  # already a fresh version of its own
            return
        if isinstance(target, (cst.Tuple, cst.List)) and any(isinstance(e, cst.StarredElement) for e in target.elements):
            self.starred_assign(target, atom if atom is not None else self.expression(value))
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            sequence = atom if atom is not None else self.expression(value)
            for index, element in enumerate(target.elements):
                name = self.namer.temporary("item", [_atom_name(sequence), str(index)])
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
            part = self.operation(None, "item" if position != star else "slice", [_atom_name(sequence), ""],
                                  Operation("", "call", getitem, [sequence, index]), derived_from_operands=True)
            if position == star:
                part = self.operation(None, "list", [part.name],
                                      Operation("", "call", Callee("static", "list", list), [part]))
                self.bind("list")
            self.assign(element.value, part)

    # ------------------------------------------------------------------ mutation
    def container(self, target: cst.Subscript):
        """``name[index]`` as an assignment target: (the container's atom, the index atom)."""
        if not isinstance(target.value, cst.Name) or target.value.value not in self.current:
            raise UnsupportedSyntaxError("only a local variable's elements can be assigned (`y[i] = v`)",
                                         self.source.location(target),
                                         "for a nested element write `y[i, j] = v`, or build the value in a local first")
        return Var(self.current[target.value.value]), self.index(target.slice)

    def mutate(self, node, method: str, container: Var, args: list, want=None) -> Var:
        """An in-place change of a container the function owns: ``y[i] = v`` (method
        "setitem"), ``xs.append(v)``, ``xs.extend(ys)``, ``v = xs.pop(i)``.

        The container keeps its name (it is the same object); the operation's target is the
        container, or for ``pop`` the element taken. Changing an argument, or something that
        may share its memory, would change the caller's data: refused.
        """
        root = self.roots.get(container.name)
        if root is not None:
            raise UnsupportedSyntaxError(
                f"this changes `{root}` in place, which the caller {'passed in' if root in self.user_params else 'owns'}",
                self.source.location(node), f"work on a copy: `{root} = {root}.copy()` (or `list({root})`) first")
        target = self.namer.temporary(method, [container.name]) if method == "pop" else container.name
        if want is not None and method == "pop":
            target = want
        self.emit(Operation(target, "mutate", Callee("method", f"{container.name}.{method}", name=method),
                            [container, *args]))
        return Var(target)

    def emit(self, operation: Operation) -> None:
        self.operations.append(operation)
        self.emitted.append(operation)
        self.share_roots(operation)

    def share_roots(self, operation: Operation) -> None:
        """What may share memory with an argument or a global: copies, and the views reads make
        (a list that merely holds an argument is not one: changing the list leaves it be)."""
        if operation.kind in ("list", "tuple", "dict", "mutate"):
            return
        for name in may_share(operation):
            if name in self.roots:
                self.roots[operation.target] = self.roots[name]
                return

    # ------------------------------------------------------------------ expressions
    def expression(self, node, want: str | None = None) -> Atom:
        """Flatten ``node`` into operations; return the atom holding its value."""
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)):
            return Const(_code(node))
        if isinstance(node, cst.Ellipsis):
            return Const("Ellipsis")
        if isinstance(node, cst.Name):
            return self.name(node)
        if isinstance(node, cst.Attribute):
            dotted = _dotted(node)
            root = dotted.split(".")[0] if dotted is not None else None
            if root is not None and root not in self.current and self.env.is_static_root(root):
                return self.static_value(node, dotted)
            return self.attribute(self.expression(node.value), node.attr.value, want)
        if isinstance(node, cst.BinaryOperation):
            function, symbol = BINARY[type(node.operator)]
            left, right = self.expression(node.left), self.expression(node.right)
            callee = Callee("static", symbol, function, "{0} " + symbol + " {1}")
            return self.operation(want, symbol, [left, right], Operation("", "call", callee, [left, right]))
        if isinstance(node, cst.UnaryOperation):
            function, template, word = UNARY[type(node.operator)]
            operand = self.expression(node.expression)
            if isinstance(operand, Const) and word in ("neg", "pos"):
                return Const(template.format(operand.code))
            callee = Callee("static", word, function, template)
            return self.operation(want, word, [operand], Operation("", "call", callee, [operand]))
        if isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1:
                raise UnsupportedSyntaxError("chained comparisons are not supported yet", self.source.location(node),
                                             "split `a < b < c` into `(a < b) & (b < c)`")
            target = node.comparisons[0]
            left, right = self.expression(node.left), self.expression(target.comparator)
            if isinstance(target.operator, (cst.In, cst.NotIn)):
                function = operator.contains
                symbol = "in" if isinstance(target.operator, cst.In) else "not in"
                template = "{1} " + symbol + " {0}"
                args = [right, left]
            else:
                function, symbol = COMPARISON[type(target.operator)]
                template, args = "{0} " + symbol + " {1}", [left, right]
            callee = Callee("static", symbol, function, template)
            return self.operation(want, symbol, [left, right], Operation("", "call", callee, args))
        if isinstance(node, cst.Subscript):
            receiver = self.expression(node.value)
            index = self.index(node.slice)
            callee = Callee("static", "[]", operator.getitem, "{0}[{1}]")
            name_parts = [_atom_name(receiver), _atom_name(index)]
            return self.operation(want, "item" if name_parts[1] else "slice", name_parts,
                                  Operation("", "call", callee, [receiver, index]), derived_from_operands=True)
        if isinstance(node, (cst.Tuple, cst.List)):
            elements = [self.expression(element.value) for element in node.elements]
            kind = "tuple" if isinstance(node, cst.Tuple) else "list"
            if kind == "tuple" and all(isinstance(e, Const) for e in elements):
                inner = ", ".join(e.code for e in elements)
                return Const(f"({inner},)" if len(elements) == 1 else f"({inner})")
            return self.operation(want, "elements", [], Operation("", kind, None, elements))
        if isinstance(node, cst.Dict):
            entries = []
            for element in node.elements:
                key = self.expression(element.key)
                if not isinstance(key, Const):
                    raise UnsupportedSyntaxError("dict keys must be constants", self.source.location(element.key),
                                                 "use string or number literals as keys")
                entries.append((key.code, self.expression(element.value)))
            return self.operation(want, "dict", [], Operation("", "dict", None, kwargs=entries))
        if isinstance(node, cst.Call):
            return self.call(node, want)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.DictComp)):
            return self.comprehension(node)
        if isinstance(node, cst.Lambda):
            raise UnsupportedSyntaxError("a lambda used as a value (passed to another function) is not supported",
                                         self.source.location(node),
                                         "assign it to a name and call it directly, or define a function at module level")
        if isinstance(node, cst.IfExp):
            condition = self.expression(node.test)
            return self.choice(condition, node.body, node.orelse, want)
        if isinstance(node, cst.BooleanOperation):
            # Python's values: `a and b` is `b if a else a`, `a or b` is `a if a else b`
            left = self.expression(node.left)
            if isinstance(node.operator, cst.And):
                return self.choice(left, node.right, left, want)
            return self.choice(left, left, node.right, want)
        raise UnsupportedSyntaxError(f"{type(node).__name__} is not supported", self.source.location(node))

    def comprehension(self, node) -> Atom:
        """``[f(v) for v in xs if c]`` (a generator expression too: it becomes a list, which
        ``sum``, ``np.array`` and the like take alike): the loop that appends each element."""
        if node.for_in.asynchronous is not None:
            raise UnsupportedSyntaxError("async comprehensions cannot be differentiated", self.source.location(node))
        built = self.namer.fresh("items" if not isinstance(node, cst.DictComp) else "entries")
        self.emit(Operation(built, "list" if not isinstance(node, cst.DictComp) else "dict", None, []))
        holder = f"_s2sad_{built}"  # how the made-up loop body names the list it fills
        self.current[holder] = built
        if isinstance(node, cst.DictComp):
            target = cst.Subscript(cst.Name(holder), [cst.SubscriptElement(cst.Index(node.key))])
            innermost = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(target)], node.value)])
        else:
            append = cst.Call(cst.Attribute(cst.Name(holder), cst.Name("append")), [cst.Arg(node.elt)])
            innermost = cst.SimpleStatementLine([cst.Expr(append)])
        made = [innermost, innermost.body[0]]

        def loop_for(clause):
            body = [loop_for(clause.inner_for_in)] if clause.inner_for_in is not None else [innermost]
            for condition in reversed(clause.ifs):
                body = [cst.If(condition.test, cst.IndentedBlock(body))]
                made.append(body[0])
            loop = cst.For(clause.target, clause.iter, cst.IndentedBlock(body))
            made.append(loop)
            return loop

        loop = loop_for(node.for_in)
        for made_node in made:
            self.source.alias(made_node, node)
        hidden = {}  # the comprehension's variables do not leak into the function
        clause = node.for_in
        while clause is not None:
            for leaf in _leaves(clause.target):
                if isinstance(leaf, cst.Name) and leaf.value not in hidden:
                    hidden[leaf.value] = self.current.get(leaf.value)
            clause = clause.inner_for_in
        self.flush()
        self.items.append(self.loop(loop, len(self.loop_names), private=set(hidden)))
        for name, version in hidden.items():
            if version is None:
                self.current.pop(name, None)
            else:
                self.current[name] = version
        del self.current[holder]
        return Var(built)

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

    def operation(self, want, word, operands, operation: Operation, derived_from_operands=False) -> Var:
        if want is None:
            names = [o if isinstance(o, str) else _atom_name(o) for o in operands]
            if derived_from_operands:
                want = self.namer.fresh("_".join(p for p in names if p) + ("" if word == "item" else "_slice"))
            else:
                want = self.namer.temporary(word, names)
        operation.target = want
        self.emit(operation)
        return Var(want)

    def name(self, node: cst.Name) -> Atom:
        name = node.value
        if name in self.current:
            return Var(self.current[name])
        if name in self.local_functions:
            raise UnsupportedSyntaxError(f"the nested function `{name}` is used as a value", self.source.location(node),
                                         f"call it directly (`{name}(x)`), or define it at module level and pass that")
        if name in CONSTANT_NAMES:
            return Const(name)
        value = self.env.lookup(name)
        if not found(value):
            raise UnsupportedSyntaxError(f"name `{name}` is not defined", self.source.location(node),
                                         "define it before differentiating the function")
        if self.env.is_static_root(name):
            self.bind(name)
            return Const(name)
        # data read from the function's module or closure each time the function runs
        if name not in self.free_reads:
            local = self.namer.fresh(name)
            self.free_reads[name] = local
            self.roots[local] = name
        return Var(self.free_reads[name])

    def static_value(self, node, dotted: str) -> Atom:
        """``np.pi``, ``np.float32``: an attribute of a module (or function, class) bound once."""
        if not found(self.env.resolve_dotted(dotted)):
            raise UnsupportedSyntaxError(f"`{dotted}` cannot be resolved", self.source.location(node),
                                         "check the spelling, or import the module at module level")
        self.bind(dotted.split(".")[0])
        return Const(dotted)

    def attribute(self, receiver: Atom, name: str, want) -> Atom:
        """``receiver.name`` read from a value (``x.T``, ``params.W``): resolved by type when it runs."""
        callee = Callee("attribute", f"{_atom_name(receiver) or 'value'}.{name}", name=name)
        return self.operation(want, name, [receiver], Operation("", "call", callee, [receiver]))

    def bind(self, root: str) -> None:
        value = self.env.lookup(root)
        module = importable_module_name(value)
        if module is not None:
            self.imports[root] = module
        else:
            self.bindings[root] = ("global", root)

    def call(self, node: cst.Call, want) -> Atom:
        func = node.func
        if isinstance(func, cst.Name) and func.value in self.local_functions and func.value not in self.current:
            return self.inline(self.local_functions[func.value], node, want)
        if isinstance(func, cst.Lambda):
            return self.inline(func, node, want)
        dotted = _dotted(func)
        if dotted is not None and dotted.split(".")[0] not in self.current and self.env.is_static_root(dotted.split(".")[0]):
            value = self.env.resolve_dotted(dotted)
            if not found(value):
                raise UnsupportedSyntaxError(f"`{dotted}` cannot be resolved", self.source.location(func),
                                             "check the spelling, or import the module at module level")
            self.bind(dotted.split(".")[0])
            if _is_ufunc_at(value):
                return self.ufunc_at(node, dotted, value)
            if _writes_into_an_argument(value):
                raise UnsupportedSyntaxError(f"`{dotted}(...)` changes an array in place, which s2sad does not differentiate",
                                             self.source.location(node),
                                             "build a new array instead: `y[index] = values` on a local copy, or np.where")
            callee = Callee("static", dotted, value)
            word = dotted.split(".")[-1]
            args, kwargs = self.arguments(node)
            if any(key == "out" for key, _ in kwargs):
                return self.into_out(node, dotted, callee, args, kwargs)
        elif isinstance(func, cst.Attribute) and func.attr.value in LIST_MUTATORS and isinstance(func.value, cst.Name) \
                and func.value.value in self.current:
            args, kwargs = self.arguments(node)
            if kwargs or (func.attr.value in ("append", "extend") and len(args) != 1) or len(args) > 1:
                raise UnsupportedSyntaxError(f"`{func.attr.value}` is called with unexpected arguments",
                                             self.source.location(node))
            return self.mutate(node, func.attr.value, Var(self.current[func.value.value]), args, want)
        elif isinstance(func, cst.Attribute) and func.attr.value in UNSUPPORTED_MUTATORS:
            raise UnsupportedSyntaxError(
                f"`.{func.attr.value}(...)` changes a value in place, which s2sad does not differentiate",
                self.source.location(node), UNSUPPORTED_MUTATORS[func.attr.value])
        elif isinstance(func, cst.Attribute):
            receiver = self.expression(func.value)
            method = func.attr.value
            callee = Callee("method", f"{_atom_name(receiver) or 'value'}.{method}", name=method)
            args, kwargs = self.arguments(node)
            if any(key == "out" for key, _ in kwargs):
                raise UnsupportedSyntaxError(f"`.{method}(..., out=...)` writes into an array in place, which s2sad does not differentiate",
                                             self.source.location(node), "drop `out=` and assign the result")
            args = [receiver] + args
            word = method
        else:
            raise UnsupportedSyntaxError("calling a computed value is not supported yet", self.source.location(func),
                                         "call a function by its name")
        operands = [_atom_name(a) for a in args[:2]]
        return self.operation(want, word, operands, Operation("", "call", callee, args, kwargs))

    def ufunc_at(self, node: cst.Call, dotted: str, method) -> Atom:
        """``np.add.at(y, idx, v)`` changes ``y`` in place, adding ``v`` once per occurrence of
        an index: written ``y[...] = added_at(y, idx, v)``, an element assignment s2sad
        differentiates and undoes like any other."""
        function = UFUNC_AT.get(method.__self__.__name__)
        if function is None:
            raise UnsupportedSyntaxError(f"`{dotted}(...)` changes its first argument in place, which s2sad does not differentiate",
                                         self.source.location(node),
                                         "only np.add.at and np.subtract.at are differentiated; build the new values in a new array")
        args, kwargs = self.arguments(node)
        target = node.args[0].value if node.args else None
        if kwargs or len(args) != 3 or not isinstance(target, cst.Name) or target.value not in self.current:
            raise UnsupportedSyntaxError(f"`{dotted}(...)` is differentiated only as `{dotted}(y, indices, values)` on a local array `y`",
                                         self.source.location(node), "pass the array, the indices and the values by position")
        container, indices, values = args
        callee = Callee("static", function.__name__, function)
        updated = self.operation(None, function.__name__, [_atom_name(container)],
                                 Operation("", "call", callee, [container, indices, values]))
        self.mutate(node, "setitem", container, [Const("..."), updated])
        return Const("None")

    def into_out(self, node: cst.Call, dotted: str, callee: Callee, args: list, kwargs: list) -> Atom:
        """``f(x, out=y)`` writes ``f(x)`` into ``y`` (cast to ``y``'s dtype, broadcast to its
        shape) and returns ``y``: written ``y[...] = written_into(f(x), y)``."""
        out = next(arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "out")
        if not isinstance(out, cst.Name) or out.value not in self.current:
            raise UnsupportedSyntaxError(f"`{dotted}(..., out=...)` is differentiated only with `out=` a local array",
                                         self.source.location(node), "drop `out=` and assign the result")
        container = Var(self.current[out.value])
        rest = [(key, atom) for key, atom in kwargs if key != "out"]
        computed = self.operation(None, dotted.split(".")[-1], [_atom_name(a) for a in args[:2]],
                                  Operation("", "call", callee, args, rest))
        kept = self.operation(self.namer.fresh(f"{computed.name}_kept"), "", [],
                              Operation("", "call", Callee("static", "written_into", written_into), [computed, container]))
        self.mutate(node, "setitem", container, [Const("..."), kept])
        return container

    def inline(self, function, call: cst.Call, want) -> Atom:
        """A call of a nested function or lambda, written out in place: its parameters bound
        to the arguments, its body reading the enclosing function's variables as a closure
        does when called, its own variables kept apart."""
        if any(f is function for f in self.inlining):
            raise UnsupportedSyntaxError("a nested function that calls itself is not supported",
                                         self.source.location(call), "define it at module level: s2sad follows recursion there")
        args, kwargs = self.arguments(call)
        params = function.params
        if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg is not None:
            raise UnsupportedSyntaxError("a nested function with *args or **kwargs is not supported",
                                         self.source.location(function), "name each parameter")
        declared = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
        if len(args) > len(declared) - len(params.kwonly_params):
            raise UnsupportedSyntaxError(f"too many arguments for a function of {len(declared)} parameters",
                                         self.source.location(call))
        outer = dict(self.current)
        saved = (self.result_name, self.return_count, self.returned_atoms)
        bound = {}
        for position, param in enumerate(declared):
            name = param.name.value
            keyword = dict(kwargs)
            if position < len(args) and param not in params.kwonly_params:
                bound[name] = args[position]
            elif name in keyword:
                bound[name] = keyword[name]
            elif param.default is not None:
                bound[name] = self.expression(param.default)
            else:
                raise UnsupportedSyntaxError(f"missing argument `{name}`", self.source.location(call))
        for key in (RETURN, RETURNED):
            self.current.pop(key, None)
        for name, atom in bound.items():
            if isinstance(atom, Var):
                self.current[name] = atom.name
            else:
                self.current[name] = self.namer.version(name)
                self.emit(Operation(self.current[name], "copy", args=[atom]))
        self.inlining.append(function)
        try:
            if isinstance(function, cst.Lambda):
                result = self.expression(function.body, want=want)
            else:
                self.result_name, self.return_count, self.returned_atoms = None, _count_returns(function), {}
                self.flush()
                self.items += self.block(list(function.body.body))
                version = self.current.get(RETURN)
                result = Const("None") if version is None else self.returned_atoms.get(version, Var(version))
        finally:
            self.inlining.pop()
            self.current = outer
            self.result_name, self.return_count, self.returned_atoms = saved
        return result

    def arguments(self, node: cst.Call):
        args, kwargs = [], []
        for arg in node.args:
            atom = self.expression(arg.value)
            if arg.keyword is not None:
                kwargs.append((arg.keyword.value, atom))
            else:
                args.append(atom)
        return args, kwargs

    def index(self, elements) -> Atom:
        """The value of a subscript's index, as an atom (slices spelt ``slice(a, b, c)``)."""
        parts = []
        for element in elements:
            inner = element.slice
            if isinstance(inner, cst.Slice):
                bounds = [self.bound_code(b) for b in (inner.lower, inner.upper, inner.step)]
                parts.append(Const(f"slice({', '.join(bounds)})"))
            else:
                parts.append(self.expression(inner.value))
        if len(parts) == 1 and len(elements) == 1:
            return parts[0]
        if all(isinstance(p, Const) for p in parts):
            return Const("(" + ", ".join(p.code for p in parts) + ("," if len(parts) == 1 else "") + ")")
        return self.operation(None, "index", [], Operation("", "tuple", None, parts))

    def bound_code(self, node) -> str:
        if node is None:
            return "None"
        atom = self.expression(node)
        return atom.code if isinstance(atom, Const) else atom.name


class _Names(ReadingVisitor):
    """User variables assigned (``stores``) and read (``loads``) in a subtree, in order of appearance."""

    def __init__(self, skip=None):
        self.stores: dict[str, None] = {}
        self.loads: set[str] = set()
        self.skip = skip

    def store(self, target) -> None:
        for leaf in _leaves(target):
            if isinstance(leaf, cst.Name):
                self.stores[leaf.value] = None
            else:
                leaf.visit(self)  # ``y[i] = ...`` reads ``y`` and ``i``

    def on_visit(self, node) -> bool:
        if node is self.skip:
            return False
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self.store(target.target)
            node.value.visit(self)
            return False
        if isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            node.target.visit(self)  # ``total += x`` reads ``total`` too
            self.store(node.target)
            if node.value is not None:
                node.value.visit(self)
            return False
        if isinstance(node, cst.For):
            self.store(node.target)
            node.iter.visit(self)
            node.body.visit(self)
            return False
        if isinstance(node, cst.Name):
            self.loads.add(node.value)
        if isinstance(node, cst.Attribute):
            node.value.visit(self)
            return False  # ``x.shape``: ``shape`` is not a variable
        if isinstance(node, cst.Arg) and node.keyword is not None:
            node.value.visit(self)
            return False
        return True


def _returns_inside(loop) -> bool:
    found = []

    class Returns(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Return):
                found.append(node)
            return not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    loop.body.visit(Returns())
    return bool(found)


def _count_returns(funcdef) -> int:
    count = []

    class Returns(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Return):
                count.append(node)
            return node is funcdef or not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    funcdef.visit(Returns())
    return len(count)


def _base_name(variable: str) -> str:
    """A user variable's name; for a pseudo-variable (``<result>``, ``<y#12>``) the word inside."""
    return variable.strip("<>").split("#")[0] if variable.startswith("<") else variable


UFUNC_AT = {"add": added_at, "subtract": subtracted_at}  # ufunc name -> what its .at is rewritten to


# NumPy functions that write into an array they are given (their `out=` aside)
IN_PLACE_FUNCTIONS = {np.copyto, np.put, np.put_along_axis, np.place, np.putmask, np.fill_diagonal, np.random.shuffle}


def _writes_into_an_argument(value) -> bool:
    try:
        return value in IN_PLACE_FUNCTIONS
    except TypeError:  # an unhashable callee
        return False


def _is_ufunc_at(value) -> bool:
    return isinstance(getattr(value, "__self__", None), np.ufunc) and getattr(value, "__name__", "") == "at"


def _pair(target) -> bool:
    return isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2


def _may_leave(node) -> bool:
    """Whether ``node`` holds a ``break``, ``continue`` or ``return`` of the enclosing block
    (a ``break`` inside a nested loop belongs to that loop)."""
    found = []

    class Finder(ReadingVisitor):
        def on_visit(self, inner) -> bool:
            if isinstance(inner, (cst.Break, cst.Continue)):
                found.append(inner)
            if isinstance(inner, cst.Return):
                found.append(inner)
            if isinstance(inner, (cst.For, cst.While)):
                inner.body.visit(ReturnsOnly())
                return False
            return not isinstance(inner, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    class ReturnsOnly(ReadingVisitor):
        def on_visit(self, inner) -> bool:
            if isinstance(inner, cst.Return):
                found.append(inner)
            return not isinstance(inner, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    node.visit(Finder())
    return bool(found)


def _rename(block, old: str, new: str) -> None:
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
            _rename(item.test, old, new)
            _rename(item.body, old, new)
        elif isinstance(item, Branch):
            item.condition = atom(item.condition)
            _rename(item.then, old, new)
            _rename(item.orelse, old, new)
        elif isinstance(item, Jump):
            for op in item.edges:
                operation(op)
            item.edges[:] = [op for op in item.edges if not is_self_copy(op)]


def _leaves_block(items) -> bool:
    """Whether every path through a normalised block ends in a jump or a return."""
    if not items:
        return False
    last = items[-1]
    if isinstance(last, Jump):
        return True
    if isinstance(last, Branch):
        return _leaves_block(last.then) and _leaves_block(last.orelse)
    return False


def _leaves(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _leaves(element.value)
    else:
        yield target


def _assigned_names(loop) -> list[str]:
    names = _Names()
    if isinstance(loop, cst.For):
        names.store(loop.target)
    loop.body.visit(names)
    return list(names.stores)


def _names_read_outside(funcdef: cst.FunctionDef, loop) -> set[str]:
    names = _Names(skip=loop.body)
    funcdef.body.visit(names)
    return names.loads


def _dotted(node) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr.value}"
    return None


def _atom_name(atom) -> str:
    if isinstance(atom, Var):
        return atom.name
    if isinstance(atom, Const):
        code = atom.code.lstrip("-")
        return atom.code.replace(".", "_").replace("-", "neg") if code.replace(".", "").isdigit() and len(code) <= 4 else ""
    return ""


def normalize(source: FunctionSource, reserved=()) -> Function:
    return Normalizer(source, reserved).run()
