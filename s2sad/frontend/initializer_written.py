"""A constructor's ``__init__`` written as a function that returns the object it fills
(runtime/initializers.py says when, and why).

``def __init__(self, w, k): self.w2 = w * k`` reads as::

    def __init__(self, w, k):
        self = s2sad_own_copy(self)          # the object is the function's own to assign
        self.w2 = w * k
        return self

An early ``return`` returns a copy of ``self`` (later lines assign the object the return does
not hand back); ``super().__init__(args)`` (or ``super(Cls, self).__init__(args)``) is
``self = s2sad_own_copy(s2sad_super_init(self, args))``, the base's initializer (its result
copied, so that the attribute analysis sees an object the function made, in every mode), the
stores of a dataclass base's generated ``__init__`` written out (``self.a = args[0]`` ...), or
nothing when it reaches ``object.__init__`` with no arguments. Any other use of ``super()`` is refused with its line.
Each node made stands at the position of the one it replaces, so the generated code's comments
and every error name the user's lines.
"""
from __future__ import annotations

import dataclasses
import inspect

import libcst as cst

from ..errors import UnsupportedSyntaxError
from ..runtime.initializers import OWN_COPY, SUPER_INIT
from .source import FunctionSource


def with_initializer_written(source: FunctionSource, chain: str, base=None) -> FunctionSource:
    """``source``, an ``__init__``, as its initializer; ``chain`` says what ``super().__init__``
    reaches: ``"call"`` (a base's initializer), ``"object"``, ``"fields"`` (the storing dataclass
    ``base``), or the refusal for it."""
    funcdef = source.funcdef
    params = funcdef.params
    if not params.posonly_params + params.params:
        raise UnsupportedSyntaxError("a constructor whose `__init__` takes no `self` by position is not differentiated",
                                     source.location(funcdef), "write it as `def __init__(self, ...)`")
    this = (params.posonly_params + params.params)[0].name.value
    written = dataclasses.replace(source, positions=dict(source.positions))
    body = funcdef.body.visit(_Initializer(this, chain, written, _super_init_receivers(funcdef, this), base))
    statements = list(body.body)
    first = cst.parse_statement(f"{this} = {OWN_COPY}({this})\n")
    last = cst.parse_statement(f"return {this}\n")
    for made in (first, last):
        _alias_all(written, made, funcdef)
    at = 1 if statements and _is_docstring(statements[0]) else 0
    statements.insert(at, first)
    if not (isinstance(statements[-1], cst.SimpleStatementLine) and isinstance(statements[-1].body[-1], cst.Return)):
        statements.append(last)
    body = body.with_changes(body=statements)
    made = funcdef.with_changes(body=body)
    written.funcdef = made
    written.alias(made, funcdef)
    written.alias(made.name, funcdef.name)
    return written


def _is_docstring(statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Expr) \
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _alias_all(source: FunctionSource, made: cst.CSTNode, original: cst.CSTNode) -> None:
    """Give ``made`` and every node inside it the position of ``original``."""

    class _Every(cst.CSTVisitor):
        def on_visit(self, node) -> bool:
            source.alias(node, original)
            return True

    made.visit(_Every())


class _Initializer(cst.CSTTransformer):
    def __init__(self, this: str, chain: str, source: FunctionSource, receivers: set, base=None):
        super().__init__()
        self.this, self.chain, self.source, self.receivers, self.base = this, chain, source, receivers, base

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original and result not in self.source.positions:
            self.source.alias(result, original)  # (a line remade keeps its own, for the generated comments)
        return result

    def visit_FunctionDef(self, node) -> bool:
        return False  # a nested function's `return` is its own

    def visit_ClassDef(self, node) -> bool:
        return False

    def visit_Lambda(self, node) -> bool:
        return False

    def leave_Return(self, original: cst.Return, updated: cst.Return):
        if updated.value is not None and not (isinstance(updated.value, cst.Name) and updated.value.value == "None"):
            return updated  # Python's TypeError, as the constructor raises it
        made = cst.parse_statement(f"return {OWN_COPY}({self.this})\n").body[0]
        _alias_all(self.source, made, original)
        return made

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if len(updated.body) > 1 and any(_is_super_init_statement(small, self.this) for small in updated.body):
            # `super().__init__(w); self.s = s`: one line a statement, each written as alone on its line
            lines = []
            for small in updated.body:
                alone = cst.SimpleStatementLine(body=[small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
                self.source.alias(alone, original)
                made = self._statement(original, alone)
                lines.extend(made.nodes if isinstance(made, cst.FlattenSentinel) else [made])
            return cst.FlattenSentinel(lines)
        return self._statement(original, updated)

    def _statement(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.Expr):
            return updated
        call = updated.body[0].value
        if not (_is_super_init(call, self.this)):
            return updated
        if any(arg.star for arg in call.args):
            raise UnsupportedSyntaxError("`super().__init__(...)` given `*` or `**` arguments is not differentiated",
                                         self.source.location(original), "pass the base's arguments one by one")
        if self.chain == "object":
            if call.args:
                return updated  # object.__init__ given arguments: Python's TypeError, as it raises it
            made = cst.SimpleStatementLine(body=[cst.Pass()])
        elif self.chain == "fields":
            made = cst.FlattenSentinel(stored_fields_written(call, self.base, self.this, self.source.location(original)))
            for line in made.nodes:
                _alias_all(self.source, line, original)
            return made
        elif self.chain == "call":
            args = [cst.Arg(cst.Name(self.this))] + [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                                    for arg in call.args]
            filled = cst.Call(func=cst.Name(SUPER_INIT), args=_commas(args))
            assigned = cst.Assign(targets=[cst.AssignTarget(cst.Name(self.this))],
                                  value=cst.Call(func=cst.Name(OWN_COPY), args=[cst.Arg(filled)]))
            made = cst.SimpleStatementLine(body=[assigned])
        else:
            raise UnsupportedSyntaxError(f"a constructor is not differentiated here: {self.chain}",
                                         self.source.location(original),
                                         "give the base an `__init__` of its own, or build the object outside "
                                         "the function and pass it in")
        _alias_all(self.source, made, original)
        return made

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        if isinstance(original.func, cst.Name) and original.func.value == "super" \
                and original not in self.receivers:
            raise UnsupportedSyntaxError(
                "a constructor using `super()` other than to call `super().__init__(...)` as a statement is not "
                "differentiated", self.source.location(original), "call the base's method by its class, or in a method")
        return updated


def _commas(args: list) -> list:
    return [arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for arg in args[:-1]] \
        + args[-1:]


def _is_super(node, this: str) -> bool:
    """``super()`` or ``super(Cls, self)``."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"):
        return False
    return not node.args or (len(node.args) == 2 and isinstance(node.args[1].value, cst.Name)
                             and node.args[1].value.value == this)


def _is_super_init(node, this: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "__init__" \
        and _is_super(node.func.value, this)


def _is_super_init_statement(small, this: str) -> bool:
    return isinstance(small, cst.Expr) and _is_super_init(small.value, this)


def _super_init_receivers(funcdef: cst.FunctionDef, this: str) -> set:
    """The ``super(...)`` nodes that receive ``.__init__(...)`` in an expression statement (the
    statements rewritten above): every other ``super()`` is refused."""
    found = set()

    class _Receivers(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node) -> bool:
            for small in node.body:
                if _is_super_init_statement(small, this):
                    found.add(small.value.func.value)
            return True

    funcdef.visit(_Receivers())
    return found


def stored_fields_written(call: cst.Call, base: type, this: str, location) -> list:
    """``super().__init__(args)`` reaching the generated ``__init__`` of the dataclass ``base``,
    which stores its fields: each argument into a name of its own, in the call's order (as Python
    evaluates them all before the first store), then ``self.field = ...`` in the fields' order,
    a field not given its literal default. A default made by ``default_factory`` or one that is
    not a literal is refused, as is a call that does not match the fields (Python's TypeError)."""
    signature = inspect.signature(base.__init__)
    temporaries = {id(arg.value): f"s2sad_{this}_{index}" for index, arg in enumerate(call.args)}
    try:
        bound = signature.bind(None, *[arg.value for arg in call.args if arg.keyword is None],
                               **{arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None})
    except TypeError as error:
        raise UnsupportedSyntaxError(f"`super().__init__(...)` does not match the fields of `{base.__qualname__}`: "
                                     f"{error}", location) from None
    given = dict(list(bound.arguments.items())[1:])
    lines = [cst.parse_statement(f"{temporaries[id(arg.value)]} = 0\n").with_changes(
        body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(temporaries[id(arg.value)]))], value=arg.value)])
        for arg in call.args]
    for field in dataclasses.fields(base):
        if field.init and field.name in given:
            value = temporaries[id(given[field.name])]
        elif field.default is not dataclasses.MISSING and _literal(field.default):
            value = repr(field.default)
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING and not field.init:
            continue  # a field the generated __init__ leaves unset
        else:
            raise UnsupportedSyntaxError(
                f"`super().__init__(...)` leaves the field `{field.name}` of `{base.__qualname__}` to its default, "
                "which is made by a factory or is not a literal: s2sad writes out the dataclass's stores only "
                "with literal defaults", location, f"pass `{field.name}` to `super().__init__(...)`")
        lines.append(cst.parse_statement(f"{this}.{field.name} = {value}\n"))
    return lines


def _literal(value) -> bool:
    """A default whose ``repr`` reads back as the same value."""
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    return isinstance(value, (bool, int, str, type(None)))
