"""Expressions: one method per libcst expression construct, chosen by ``EXPRESSIONS``.

Each method flattens its node into operations (A-normal form: every operand an atom) and
returns the atom holding the value; ``want`` is the name the caller would like the value
in (an assignment's target), or None for a made-up one. Constants stay constants, names
read the current version of a user variable or resolve, at transform time, to a module
or a global; operators become calls of the ``operator`` function with an infix template.
Calls are normalised in normalize_calls.py, comprehensions in normalize_loops.py, and
conditional values in normalize_branches.py. To support a new construct: a row in
``EXPRESSIONS`` and its method.
"""
from __future__ import annotations

import operator

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..rules.helpers import NUMPY_OWN_MEANINGS, numpy_meaning_refused, or_merged, repeated
from .ir import Atom, Callee, Const, Operation, Var
from .normalize_state import NormalizerState, atom_name
from .normalize_syntax import code_of, dotted_name, written_sequence
from .resolve import found

BINARY = {
    cst.Add: (operator.add, "+"), cst.Subtract: (operator.sub, "-"), cst.Multiply: (operator.mul, "*"),
    cst.Divide: (operator.truediv, "/"), cst.FloorDivide: (operator.floordiv, "//"),
    cst.Modulo: (operator.mod, "%"), cst.Power: (operator.pow, "**"), cst.MatrixMultiply: (operator.matmul, "@"),
    cst.BitAnd: (operator.and_, "&"), cst.BitOr: (operator.or_, "|"), cst.BitXor: (operator.xor, "^"),
    cst.LeftShift: (operator.lshift, "<<"), cst.RightShift: (operator.rshift, ">>"),
}
# what gives truth values (booleans, or their arrays): `|` of one is the bitwise or
_TRUTH_VALUES = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.not_,
                 operator.is_, operator.is_not, operator.and_, operator.or_, operator.xor, operator.invert, operator.contains)
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
CONSTANT_NAMES = {"None", "True", "False", "Ellipsis"}  # Ellipsis: what `...` is written as in generated code

# libcst expression type -> the method that normalises it, called as method(node, want)
EXPRESSIONS = {
    cst.Integer: "constant", cst.Float: "constant", cst.Imaginary: "constant",
    cst.SimpleString: "constant", cst.ConcatenatedString: "constant", cst.Ellipsis: "ellipsis",
    cst.FormattedString: "formatted_string",
    cst.Name: "name", cst.Attribute: "attribute",
    cst.BinaryOperation: "binary_operation", cst.UnaryOperation: "unary_operation", cst.Comparison: "comparison",
    cst.Subscript: "subscript", cst.Tuple: "elements", cst.List: "elements", cst.Dict: "dictionary",
    cst.Call: "call",                                                                       # normalize_calls.py
    cst.ListComp: "comprehension", cst.GeneratorExp: "comprehension", cst.DictComp: "comprehension",  # normalize_loops.py
    cst.Lambda: "lambda_value", cst.IfExp: "conditional", cst.BooleanOperation: "boolean_operation",
}



_CONSTANT_NODES = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _constants_written(sequence) -> bool:
    """Whether ``sequence`` is a list or tuple display of numbers, strings, None and bools only."""
    if not isinstance(sequence, (cst.List, cst.Tuple)):
        return False
    for element in sequence.elements:
        value = element.value
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value = value.expression
        if not (isinstance(value, _CONSTANT_NODES)
                or isinstance(value, cst.Name) and value.value in ("None", "True", "False")):
            return False
    return True

class ExpressionNormalizer(NormalizerState):
    def expression(self, node, want: str | None = None) -> Atom:
        """Flatten ``node`` into operations; return the atom holding its value."""
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            raise UnsupportedSyntaxError(f"{type(node).__name__} is not supported", self.source.location(node))
        return getattr(self, handler)(node, want)

    def constant(self, node, want) -> Atom:
        return Const(code_of(node))

    def formatted_string(self, node: cst.FormattedString, want) -> Atom:
        """``f"got {x.ndim} dimensions"`` as ``"got {} dimensions".format(x.ndim)``: a message, never differentiated."""
        template, values = [], []
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                template.append(part.value)
                continue
            spec = "".join(p.value if isinstance(p, cst.FormattedStringText) else "\0" for p in part.format_spec or [])
            if "\0" in spec or part.equal is not None:
                raise UnsupportedSyntaxError("an f-string with a computed format or `=` is not supported",
                                             self.source.location(part), "format the value before the f-string")
            conversion = f"!{part.conversion}" if part.conversion else ""
            template.append("{" + conversion + (f":{spec}" if spec else "") + "}")
            values.append(self.expression(part.expression))
        quote = node.start.lstrip("fFrRbB")
        prefix = "".join(c for c in node.start[:-len(quote)] if c not in "fF")
        receiver = Const(prefix + quote + "".join(template) + node.end)
        callee = Callee("method", "str.format", name="format")
        return self.operation(want, "message", [], Operation("", "call", callee, [receiver] + values))

    def ellipsis(self, node: cst.Ellipsis, want) -> Atom:
        return Const("Ellipsis")

    def name(self, node: cst.Name, want) -> Atom:
        name = node.value
        if name in self.current:
            return Var(self.current[name])
        if name in self.local_functions:
            return self.local_function_value(name, node, want)  # normalize_lambdas.py
        if name in CONSTANT_NAMES:
            return Const(name)
        if name in self.local_classes:
            return Const(self.local_classes[name])
        value = self.env.lookup(name)
        if not found(value):
            raise UnsupportedSyntaxError(f"name `{name}` is not defined", self.source.location(node),
                                         "define it before differentiating the function")
        if isinstance(value, NUMPY_OWN_MEANINGS):  # (a poly1d, callable, would be bound as a constant)
            raise numpy_meaning_refused(f"`{name}` is", value, self.source.location(node))
        if self.env.is_static_root(name):
            self.bind(name)
            return Const(name)
        # data read from the function's module or closure each time the function runs
        if name not in self.free_reads:
            local = self.namer.fresh(name)
            self.free_reads[name] = local
            self.roots[local] = name
            self.root_values[name] = local
        return Var(self.free_reads[name])

    def static_value(self, node, dotted: str) -> Atom:
        """``np.pi``, ``np.float32``: an attribute of a module (or function, class) bound once."""
        if not found(self.env.resolve_dotted(dotted)):
            raise UnsupportedSyntaxError(f"`{dotted}` cannot be resolved", self.source.location(node),
                                         "check the spelling, or import the module at module level")
        self.bind(dotted.split(".")[0])
        return Const(dotted)

    def attribute(self, node: cst.Attribute, want) -> Atom:
        dotted = dotted_name(node)
        root = dotted.split(".")[0] if dotted is not None else None
        if root is not None and root not in self.current and self.env.is_static_root(root):
            return self.static_value(node, dotted)
        return self.value_attribute(self.expression(node.value), node.attr.value, want)

    def value_attribute(self, receiver: Atom, name: str, want) -> Atom:
        """``receiver.name`` read from a value (``x.T``, ``params.W``): resolved by type when it runs."""
        callee = Callee("attribute", f"{atom_name(receiver) or 'value'}.{name}", name=name)
        return self.operation(want, name, [receiver], Operation("", "call", callee, [receiver]))

    def binary_operation(self, node: cst.BinaryOperation, want) -> Atom:
        function, symbol = BINARY[type(node.operator)]
        if function is operator.add and (written_sequence(node.left) or written_sequence(node.right)):
            function = operator.concat  # `args + (x,)`: joined, each side's items its own
        left, right = self.expression(node.left), self.expression(node.right)
        if function is operator.mul and written_sequence(node.left) != written_sequence(node.right) \
                and not _constants_written(node.left if written_sequence(node.left) else node.right):
            # `[y] * n`, `n * (x,)`: a repetition, whose items' cotangents add up (rules/python_containers.py);
            # `[0.0] * n` has none, and stays the operator compiled code knows
            callee = Callee("static", "repeated", repeated)
            return self.operation(want, symbol, [left, right], Operation("", "call", callee, [left, right]))
        if function is operator.or_ and not (self.a_truth_value(left) or self.a_truth_value(right)):
            return self.merged(or_merged, left, right, want)  # `a | b` of two dicts merges them
        callee = Callee("static", symbol, function, "{0} " + symbol + " {1}")
        return self.operation(want, symbol, [left, right], Operation("", "call", callee, [left, right]))

    def a_truth_value(self, atom: Atom) -> bool:
        """Whether ``atom`` is a number written out or the result of a comparison or a logical
        operator of this statement (``(y == 0) | (y == 1)``): then ``|`` is the bitwise or, never a
        dict's merge, and is written as it is."""
        if isinstance(atom, Const):
            return True
        made = next((op for op in reversed(self.operations) if op.target == atom.name), None)
        return made is not None and made.kind == "call" and made.callee is not None \
            and any(made.callee.value is function for function in _TRUTH_VALUES)

    def unary_operation(self, node: cst.UnaryOperation, want) -> Atom:
        function, template, word = UNARY[type(node.operator)]
        operand = self.expression(node.expression)
        if isinstance(operand, Const) and word in ("neg", "pos"):
            return Const(template.format(operand.code))
        callee = Callee("static", word, function, template)
        return self.operation(want, word, [operand], Operation("", "call", callee, [operand]))

    def comparison(self, node: cst.Comparison, want) -> Atom:
        target = node.comparisons[0]
        left, right = self.expression(node.left), self.expression(target.comparator)
        if len(node.comparisons) > 1:
            # `a < b < c` is `a < b and b < c` with `b` evaluated once, and `c` only when `a < b`
            first = self.compared(left, target.operator, right, None)
            rest = cst.Comparison(self.read_back(right), node.comparisons[1:])
            self.source.alias(rest, node)
            return self.choice(first, rest, first, want)
        return self.compared(left, target.operator, right, want)

    def compared(self, left: Atom, operator_node, right: Atom, want) -> Atom:
        """``left <operator> right``, both computed already."""
        if isinstance(operator_node, (cst.In, cst.NotIn)):
            function = operator.contains
            symbol = "in" if isinstance(operator_node, cst.In) else "not in"
            template = "{1} " + symbol + " {0}"
            args = [right, left]
        else:
            function, symbol = COMPARISON[type(operator_node)]
            template, args = "{0} " + symbol + " {1}", [left, right]
        callee = Callee("static", symbol, function, template)
        return self.operation(want, symbol, [left, right], Operation("", "call", callee, args))

    def subscript(self, node: cst.Subscript, want) -> Atom:
        receiver = self.expression(node.value)
        index = self.index(node.slice)
        callee = Callee("static", "[]", operator.getitem, "{0}[{1}]")
        name_parts = [atom_name(receiver), atom_name(index)]
        return self.operation(want, "item" if name_parts[1] else "slice", name_parts,
                              Operation("", "call", callee, [receiver, index]), derived_from_operands=True)

    def index(self, elements) -> Atom:
        """The value of a subscript's index, as an atom (slices spelt ``slice(a, b, c)``)."""
        parts = []
        for element in elements:
            inner = element.slice
            if isinstance(inner, cst.Slice):
                bounds = [self.bound(b) for b in (inner.lower, inner.upper, inner.step)]
                if all(isinstance(b, Const) for b in bounds):
                    parts.append(Const(f"slice({', '.join(b.code for b in bounds)})"))
                else:  # a bound that is a variable is read by an operation, so that a loop's tape keeps it
                    parts.append(self.operation(None, "window", [],
                                                Operation("", "call", Callee("static", "slice", slice), bounds)))
            else:
                parts.append(self.expression(inner.value))
        if len(parts) == 1 and len(elements) == 1:
            return parts[0]
        if all(isinstance(p, Const) for p in parts):
            return Const("(" + ", ".join(p.code for p in parts) + ("," if len(parts) == 1 else "") + ")")
        return self.operation(None, "index", [], Operation("", "tuple", None, parts))

    def bound(self, node) -> Atom:
        return Const("None") if node is None else self.expression(node)

    def elements(self, node, want) -> Atom:
        """A tuple or list display; a tuple of constants is a constant."""
        kind = "tuple" if isinstance(node, cst.Tuple) else "list"
        if any(isinstance(element, cst.StarredElement) for element in node.elements):
            return self.joined([(isinstance(e, cst.StarredElement), e.value) for e in node.elements], kind, want)
        elements = [self.expression(element.value) for element in node.elements]
        if kind == "tuple" and all(isinstance(e, Const) for e in elements):
            inner = ", ".join(e.code for e in elements)
            return Const(f"({inner},)" if len(elements) == 1 else f"({inner})")
        return self.operation(want, "elements", [], Operation("", kind, None, elements))

    def joined(self, items, kind: str, want=None, word: str = "elements") -> Atom:
        """A tuple or list of ``items``, each ``(starred, node)``: ``(a,) + tuple(rest) + (b,)`` for
        ``(a, *rest, b)``, each run of plain items one display, each starred one made a tuple or
        list, joined with ``operator.concat`` (each piece's items their own cotangents)."""
        pieces, run = [], []
        convert = Callee("static", kind, tuple if kind == "tuple" else list)
        plus = Callee("static", "+", operator.concat, "{0} + {1}")
        for starred, value in items:
            if not starred:
                run.append(self.expression(value))
                continue
            if run:
                pieces.append(self.operation(None, word, [], Operation("", kind, args=run)))
                run = []
            sequence = self.expression(value)
            pieces.append(self.operation(None, word, [atom_name(sequence)], Operation("", "call", convert, [sequence])))
        if run or not pieces:
            pieces.append(self.operation(None, word, [], Operation("", kind, args=run)))
        joined = pieces[0]
        for position, piece in enumerate(pieces[1:], 2):
            joined = self.operation(want if position == len(pieces) else None, word, [],
                                    Operation("", "call", plus, [joined, piece]))
        return joined


    def conditional(self, node: cst.IfExp, want) -> Atom:
        condition = self.expression(node.test)
        return self.choice(condition, node.body, node.orelse, want)

    def boolean_operation(self, node: cst.BooleanOperation, want) -> Atom:
        # Python's values: `a and b` is `b if a else a`, `a or b` is `a if a else b`
        left = self.expression(node.left)
        if isinstance(node.operator, cst.And):
            return self.choice(left, node.right, left, want)
        return self.choice(left, left, node.right, want)
