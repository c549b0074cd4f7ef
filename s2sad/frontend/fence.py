"""The fence: refuse Python that s2sad does not differentiate, before any transformation.

Every statement and expression node is checked against two tables: what is supported,
and what is refused with a hint. Anything in neither table is refused too, so a new
kind of syntax can never slip through into the transformer unnoticed.
"""
from __future__ import annotations

import inspect

import libcst as cst

from ..errors import UnsupportedSyntaxError
from .source import FunctionSource

SUPPORTED = (
    # statements
    cst.SimpleStatementLine, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return, cst.Expr, cst.Pass, cst.Del,
    cst.Assert, cst.Raise, cst.With, cst.WithItem, cst.Try, cst.For, cst.While, cst.If, cst.Break, cst.Continue, cst.IfExp, cst.BooleanOperation,
    cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.Lambda, cst.FunctionDef, cst.Import, cst.ImportFrom,
    # expressions
    cst.Name, cst.Attribute, cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison,
    cst.Subscript, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
    cst.Tuple, cst.List, cst.Dict, cst.Ellipsis, cst.FormattedString,
)

LATER = "coming with control-flow support; for now use np.where or a loop"

REFUSED = {
    cst.SetComp: ("set comprehensions are not supported", "sets have no tangent space; compute them outside"),
    cst.Set: ("set literals are not supported", "sets have no tangent space; compute them outside"),
    cst.Yield: ("`yield` is differentiated only as a statement of its own (`yield value`)",
                "assign what you send to the generator before yielding"),
    cst.Await: ("`await` cannot be differentiated", "differentiate a synchronous function"),
    cst.TryStar: ("`try ... except*` is not supported", "catch the exception groups outside the differentiated function"),
    cst.Global: ("`global` declarations are not supported", "pass the value in as an argument and return the new value"),
    cst.Nonlocal: ("`nonlocal` is supported only on the first lines of a nested function's body",
                   "declare it at the top of the nested function, or pass the value in as an argument and return the "
                   "new value (`total = add(total, v)`)"),
    cst.NamedExpr: ("the walrus operator `:=` is supported only where it runs first in the test of an `if`, `elif` "
                    "or `while` (not in the right operand of `and`/`or`, a conditional expression or a comprehension)",
                    "assign on a line of its own before the statement (`n = np.sum(x)`, then `if n > 0:`)"),
    cst.StarredElement: ("starred expressions are not supported yet", "pass the elements explicitly"),
    cst.Match: ("`match` statements are not supported", "use if/elif"),
}


_DECORATOR, _NESTED, _OTHER = "decorator", "nested", "other"


class _Kind:
    """What the fence does with one node type, worked out once: libcst's node classes are
    ABCs, so each isinstance test is slow (the first for each pair of classes slower still:
    a miss walks the whole subclass tree), and a function has a thousand nodes. libcst
    registers no virtual subclasses, so a class's MRO answers the same as isinstance."""

    __slots__ = ("role", "refused", "unsupported", "assignment", "loop")

    def __init__(self, kind: type):
        mro = set(kind.__mro__)

        def among(*classes) -> bool:
            return not mro.isdisjoint(classes)

        self.role = _DECORATOR if among(cst.Decorator) else _NESTED if among(cst.FunctionDef) else _OTHER
        self.refused = next((reason for refused, reason in REFUSED.items() if among(refused)), None)
        self.unsupported = among(cst.BaseStatement, cst.BaseSmallStatement, cst.BaseExpression) and not among(*SUPPORTED)
        self.assignment = among(cst.Assign, cst.AugAssign, cst.AnnAssign)
        self.loop = among(cst.For, cst.While)


_kinds: dict[type, _Kind] = {}


class ReadingVisitor(cst.CSTVisitor):
    """A visitor that does all its work in ``on_visit``, with no ``visit_<Node>``,
    ``leave_<Node>`` or ``visit_<Node>_<attribute>`` methods: libcst's default hooks look
    those up by name for every node and every field, a third of the time of a walk."""

    def on_visit_attribute(self, node, attribute) -> None:
        pass

    def on_leave_attribute(self, original_node, attribute) -> None:
        pass

    def on_leave(self, original_node) -> None:
        pass


class _Fence(ReadingVisitor):
    def __init__(self, source: FunctionSource):
        self.source = source
        self.allowed: set = set()  # nodes refused elsewhere but fine where they stand
        self.targets: set = set()  # tuple and list displays that are assigned to, not read
        self.top = source.funcdef

    def refuse(self, node: cst.CSTNode, message: str, hint: str) -> None:
        raise UnsupportedSyntaxError(message, self.source.location(node), hint)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.top:
            self.check_signature(node)
            return True
        kind = _kinds.get(type(node))
        if kind is None:
            kind = _kinds[type(node)] = _Kind(type(node))
        if kind.role is _DECORATOR or isinstance(node, cst.ExceptHandler):
            return False  # decorators are dropped, an `except` block refused if it runs: neither is differentiated
        if isinstance(node, cst.ClassDef):
            return False  # a class statement runs as it is (normalize_classes.py); its methods are read when called
        if kind.role is _NESTED:
            self.check_nested(node)
        if node in self.allowed:
            return True
        if isinstance(node, cst.Del):
            self.check_deleted(node.target)
        if kind.refused is not None:
            self.refuse(node, *kind.refused)
        if kind.unsupported:
            self.refuse(node, f"{type(node).__name__} is not supported", "rewrite it with the supported subset (see the README)")
        if isinstance(node, cst.Attribute) and _is_super(node.value) or _is_super(node):
            # Python gives a method written in a class a `__class__` cell, which `super()` reads; the
            # function s2sad generates from it is written outside the class and has none
            called = node.attr.value if isinstance(node, cst.Attribute) else "method"
            self.refuse(node.value if isinstance(node, cst.Attribute) else node,
                        "`super()` is not supported in a method s2sad differentiates (`super().__init__(...)` in a "
                        "constructor is)", _super_hint(self.source.function, called))
        if kind.assignment:
            self.check_targets(node)
        if isinstance(node, (cst.For, cst.CompFor, cst.AssignTarget, cst.AnnAssign, cst.WithItem)):
            self.targets.update(_target_displays(node.asname.name if isinstance(node, cst.WithItem) and node.asname
                                                 else getattr(node, "target", None)))
        if isinstance(node, (cst.Tuple, cst.List)) and node not in self.targets:
            # `(n, *shape)`, `[x, *rest]`: a display joined from its pieces (normalize_expressions.py)
            self.allowed.update(e for e in node.elements if isinstance(e, cst.StarredElement))
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Yield):
            self.allowed.add(node.value)  # `yield v` on a line of its own: the generator's list gets v
        if kind.loop:
            self.check_loop(node)
        return True

    def check_nested(self, funcdef: cst.FunctionDef) -> None:
        self.allowed.update(nonlocal_statements(funcdef))  # its call hands the names back (normalize_calls.py)
        if funcdef.asynchronous is not None:
            self.refuse(funcdef, "async functions cannot be differentiated", "differentiate a synchronous function")
        if funcdef.decorators:
            self.refuse(funcdef.decorators[0], "a decorated nested function is not supported",
                        "define it at module level, or drop the decorator")

    def check_signature(self, funcdef: cst.FunctionDef) -> None:
        if funcdef.asynchronous is not None:
            self.refuse(funcdef, "async functions cannot be differentiated", "differentiate a synchronous function")

    def check_loop(self, node) -> None:
        # (a loop's `else` is written out as a flag before the fence: loop_else_and_walrus.py)
        if isinstance(node, cst.While):
            return
        if node.asynchronous is not None:
            self.refuse(node, "`async for` cannot be differentiated", "differentiate a synchronous function")
        for leaf in _target_leaves(node.target):
            if not isinstance(leaf, cst.Name):
                self.refuse(leaf, "a loop variable must be a name or a tuple of names", "assign inside the loop body")

    def check_deleted(self, target) -> None:
        """``del y``, ``del xs[k]``, ``del rows[i][j]`` (one element at a time), or several of these."""
        targets = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
        for leaf in targets:
            if isinstance(leaf, cst.Name):
                continue
            if isinstance(leaf, cst.Subscript) and isinstance(_subscripted_root(leaf), cst.Name) \
                    and len(leaf.slice) == 1 and isinstance(leaf.slice[0].slice, cst.Index):
                continue
            self.refuse(leaf, "`del` is differentiated for a name (`del y`) or one element (`del xs[k]`, `del d[key]`)",
                        "build a new list without the elements instead: `xs = xs[:i] + xs[j:]`")

    def check_targets(self, node) -> None:
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        for target in targets:
            if isinstance(target, (cst.Tuple, cst.List)):
                starred = [e for e in target.elements if isinstance(e, cst.StarredElement)]
                if len(starred) > 1:
                    self.refuse(starred[1], "two starred targets in one assignment", "use one `*rest`")
                self.allowed.update(starred)  # `first, *rest = xs`
            for leaf in _target_leaves(target):
                if isinstance(leaf, cst.Subscript) and not isinstance(_subscripted_root(leaf), cst.Name):
                    self.refuse(leaf, "only a variable's elements can be assigned (`y[i] = v`)",
                                "for a nested element write `y[i, j] = v`, or build the inner value in a variable first")
                if isinstance(leaf, cst.Subscript) and isinstance(node, cst.AnnAssign):
                    self.refuse(leaf, "an annotated element assignment is not supported", "drop the annotation")
                if isinstance(leaf, cst.Attribute) and isinstance(leaf.value, cst.Name) \
                        and not isinstance(node, cst.AnnAssign):
                    continue  # `p.w = v` on a variable's object
                if not isinstance(leaf, (cst.Name, cst.Subscript)):
                    what = "assignment to a nested attribute" if isinstance(leaf, cst.Attribute) else "this assignment target"
                    self.refuse(leaf, f"{what} is not supported yet",
                                "assign the attribute of a variable (`inner = p.inner; inner.w = v; p.inner = inner`), "
                                "or build a new object (dataclasses.replace(obj, field=value))")


def nonlocal_statements(funcdef) -> list:
    """The ``nonlocal`` statements on the lines of a function's body itself (not in its branches
    or loops): the ones s2sad follows; the fence refuses the rest."""
    return [small for line in funcdef.body.body if isinstance(line, cst.SimpleStatementLine)
            for small in line.body if isinstance(small, cst.Nonlocal)]


def _target_displays(target):
    """The tuple and list displays of an assignment or loop target, nested ones included."""
    if isinstance(target, (cst.Tuple, cst.List)):
        yield target
        for element in target.elements:
            yield from _target_displays(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_displays(target.value)


def _target_leaves(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_leaves(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _target_leaves(target.value)
    else:
        yield target


def check(source: FunctionSource) -> None:
    """Raise UnsupportedSyntaxError at the first construct s2sad cannot differentiate."""
    source.funcdef.visit(_Fence(source))


def _subscripted_root(node):
    """What ``y[i][j]`` subscripts at its root: ``y`` (a variable's nested element may be assigned:
    its element is taken out, changed and put back, see normalize_mutation.py)."""
    while isinstance(node, cst.Subscript):
        node = node.value
    return node


def _is_super(node) -> bool:
    return isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Name) and node.func.value == "super"


def _super_hint(method, called: str) -> str:
    """Name the base whose method ``super()`` reaches, where the class has one base: what to write instead.
    (Which class ``super()`` reaches depends on the object's type as the code runs, past the class's
    own bases when a subclass inherits from several: s2sad does not follow it.)"""
    cells = dict(zip(getattr(getattr(method, "__code__", None), "co_freevars", ()), getattr(method, "__closure__", None) or ()))
    try:
        bases = cells["__class__"].cell_contents.__bases__
    except (KeyError, ValueError, AttributeError):
        bases = ()
    one = bases[0] if len(bases) == 1 and bases[0] is not object else None
    base = one.__name__ if one is not None else "Base"
    found = inspect.getattr_static(one, called, None) if one is not None else None
    if isinstance(found, property):
        return f"read the base class's property through its getter: `{base}.{called}.fget(self)`"
    if isinstance(found, (classmethod, staticmethod)):
        return f"call the base class's {type(found).__name__} on the class: `{base}.{called}(...)`"
    return f"call the base class's method by name: `{base}.{called}(self, ...)`"
