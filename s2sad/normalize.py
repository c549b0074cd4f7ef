"""Normalisation: from the user's libcst tree to A-normal form.

Each user statement becomes a list of operations, one per assignment, each operand an
atom (a variable or a constant), every variable assigned once (a reassigned user
variable gets a new version: ``h``, ``h_2``). Callees are resolved here, at transform
time, to the real objects in the function's environment.
"""
from __future__ import annotations

import operator

import libcst as cst

from .errors import UnsupportedSyntaxError
from .ir import Atom, Callee, Const, Function, Loop, Operation, Statement, Var
from .naming import Namer
from .resolve import Environment, found, importable_module_name
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

# Names generated code itself uses; user variables that collide are renamed.
RESERVED = {"np", "math", "operator", "ZERO", "NO_TANGENT", "accumulate", "unbroadcast", "g", "ans"}


class Normalizer:
    def __init__(self, source: FunctionSource, reserved=()):
        self.source = source
        self.env = Environment(source.function)
        self.namer = Namer(RESERVED | set(reserved))
        self.current: dict[str, str] = {}       # user variable -> its current version
        self.operations: list[Operation] = []
        self.bindings: dict[str, tuple] = {}
        self.imports: dict[str, str] = {}
        self.free_reads: dict[str, str] = {}
        self.emitted: list[Operation] = []       # every operation so far, in order
        self.params: set[str] = set()

    # ------------------------------------------------------------------ statements
    def run(self) -> Function:
        funcdef = self.source.funcdef
        params, defaults = [], {}
        for param in list(funcdef.params.posonly_params) + list(funcdef.params.params) + list(funcdef.params.kwonly_params):
            name = param.name.value
            params.append(name)
            self.current[name] = self.namer.version(name)
            self.params.add(self.current[name])
            if param.default is not None:
                defaults[name] = _code(param.default)
        body = funcdef.body.body
        last = body[-1] if body else None
        result: Atom | None = None
        if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return):
            returned = last.body[-1]
            statements = self.block(body[:-1])
            self.operations = []
            location = self.source.location(last)
            for small in last.body[:-1]:
                self.small_statement(small)
            result = self.expression(returned.value, want="result") if returned.value is not None else Const("None")
            statements.append(Statement(location, self.operations))
        else:
            statements = self.block(body)
        return Function(
            name=funcdef.name.value, params=params, defaults=defaults,
            statements=statements, result=result, free_reads=self.free_reads, bindings=self.bindings,
            imports=self.imports, location=self.source.location(funcdef),
        )

    def block(self, lines, in_loop=False) -> list:
        """Normalise a list of statement lines (a function's or a loop's body)."""
        statements: list = []
        for position, line in enumerate(lines):
            if isinstance(line, cst.For):
                statements.append(self.for_loop(line))
                continue
            self.operations = []
            location = self.source.location(line)
            if not isinstance(line, cst.SimpleStatementLine):  # the fence let only simple lines and loops through
                raise UnsupportedSyntaxError(f"{type(line).__name__} is not supported", location)
            for small in line.body:
                if isinstance(small, cst.Return) and in_loop:
                    raise UnsupportedSyntaxError("`return` inside a loop is not supported yet", self.source.location(small),
                                                 "keep the value in a variable and return it after the loop")
                if isinstance(small, cst.Return):
                    after = lines[position + 1] if small is line.body[-1] else line.body[line.body.index(small) + 1]
                    raise UnsupportedSyntaxError("code after `return` is not supported", self.source.location(after),
                                                 "make `return` the last statement")
                self.small_statement(small)
            statements.append(Statement(location, self.operations))
        return statements

    def for_loop(self, node: cst.For) -> Loop:
        """``for target in iterable: body``, with the variables it carries between iterations.

        A user variable is carried if the body assigns it and it is also alive outside the
        body (assigned before the loop, or read anywhere else in the function). It gets
        one loop name, copied in before the loop and written back at the end of each
        iteration, so the code after the loop reads its last value.
        """
        location = self.source.location(node)
        self.operations = []
        iterable = self.expression(node.iter)
        assigned = _assigned_names(node)
        outside = _names_read_outside(self.source.funcdef, node)
        loop_names = {}
        for user_name in assigned:
            if user_name in self.current and self.reusable(self.current[user_name]):
                loop_names[user_name] = self.current[user_name]  # no copy needed: see reusable()
            elif user_name in self.current or user_name in outside:
                entry = Var(self.current[user_name]) if user_name in self.current else Const("None")
                loop_names[user_name] = self.namer.version(user_name)
                self.emit(Operation(loop_names[user_name], "copy", args=[entry]))
                self.current[user_name] = loop_names[user_name]
        setup = self.operations
        self.operations = []
        if isinstance(node.target, cst.Name):
            element = Operation(self.namer.version(node.target.value), "element", args=[iterable])
            self.current[node.target.value] = element.target
        else:
            element = Operation(self.namer.temporary("item", [_atom_name(iterable)]), "element", args=[iterable])
            self.assign(node.target, Var(element.target))
        unpacking = self.operations
        body = self.block(node.body.body, in_loop=True)
        if unpacking:
            body.insert(0, Statement(location, unpacking))
        back_edges = []
        for user_name, loop_name in loop_names.items():
            if self.current[user_name] != loop_name:
                back_edges.append(Operation(loop_name, "copy", args=[Var(self.current[user_name])]))
            self.current[user_name] = loop_name
        return Loop(location, setup, element, body, back_edges)

    def reusable(self, version: str) -> bool:
        """Whether a loop may carry ``version`` under its own name, overwriting it.

        Safe when nothing has read it yet and the pullback of what defined it does not read
        it either: a parameter, or a copy (``total = 0.0``, ``h = x``).
        """
        if any(version in op.uses() for op in self.emitted):
            return False
        return version in self.params or any(op.target == version and op.kind == "copy" for op in self.emitted)

    def small_statement(self, node) -> None:
        if isinstance(node, cst.Assign):
            value = node.value
            for target in node.targets[1:]:
                self.assign(target.target, self.expression(value))
            self.assign(node.targets[0].target, None, value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                self.assign(node.target, None, node.value)
        elif isinstance(node, cst.AugAssign):
            binary = AUGMENTED.get(type(node.operator))
            if binary is None:
                raise UnsupportedSyntaxError(f"the augmented assignment `{node.operator.__class__.__name__}` is not supported",
                                             self.source.location(node))
            expression = cst.BinaryOperation(left=node.target, operator=binary(), right=node.value)
            self.assign(node.target, None, expression, origin=node)
        elif isinstance(node, cst.Expr):
            if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
                return  # a docstring or a bare constant does nothing
            atom = self.expression(node.value)
            if isinstance(atom, Var) and self.operations and self.operations[-1].target == atom.name:
                self.operations[-1].kind = "effect"  # kept for its side effect (print, ...)
        elif isinstance(node, cst.Assert):
            test = self.expression(node.test)
            message = self.expression(node.msg) if node.msg is not None else Const("None")
            self.emit(Operation(self.namer.fresh("_"), "assert", args=[test, message]))
        elif isinstance(node, cst.Pass):
            return
        else:
            raise UnsupportedSyntaxError(f"{type(node).__name__} is not supported", self.source.location(node))

    def assign(self, target, atom: Atom | None, value=None, origin=None) -> None:
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

    def emit(self, operation: Operation) -> None:
        self.operations.append(operation)
        self.emitted.append(operation)

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
            return self.operation(want, kind, [], Operation("", kind, None, elements))
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
        raise UnsupportedSyntaxError(f"{type(node).__name__} is not supported", self.source.location(node))

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
        dotted = _dotted(func)
        if dotted is not None and dotted.split(".")[0] not in self.current and self.env.is_static_root(dotted.split(".")[0]):
            value = self.env.resolve_dotted(dotted)
            if not found(value):
                raise UnsupportedSyntaxError(f"`{dotted}` cannot be resolved", self.source.location(func),
                                             "check the spelling, or import the module at module level")
            self.bind(dotted.split(".")[0])
            callee = Callee("static", dotted, value)
            word = dotted.split(".")[-1]
            args, kwargs = self.arguments(node)
        elif isinstance(func, cst.Attribute):
            receiver = self.expression(func.value)
            method = func.attr.value
            callee = Callee("method", f"{_atom_name(receiver) or 'value'}.{method}", name=method)
            args, kwargs = self.arguments(node)
            args = [receiver] + args
            word = method
        else:
            raise UnsupportedSyntaxError("calling a computed value is not supported yet", self.source.location(func),
                                         "call a function by its name")
        operands = [_atom_name(a) for a in args[:2]]
        return self.operation(want, word, operands, Operation("", "call", callee, args, kwargs))

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


class _Names(cst.CSTVisitor):
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


def _leaves(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _leaves(element.value)
    else:
        yield target


def _assigned_names(loop: cst.For) -> list[str]:
    names = _Names()
    names.store(loop.target)
    loop.body.visit(names)
    return list(names.stores)


def _names_read_outside(funcdef: cst.FunctionDef, loop: cst.For) -> set[str]:
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
