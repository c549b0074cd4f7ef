"""Passes over compiled array code (``for_numba``'s rewrite of the general version) that keep
Numba from allocating, and from counting references, where nothing needs it.

On small arrays a compiled gradient's time is not arithmetic: each array Numba makes is a
heap allocation, and each array kept in a tuple (a forward's saved values, a loop's tape) has
its reference count changed, atomically, whenever the tuple is built, copied, read back or
freed (50-60 ns an array). Each pass here removes one kind, and changes no number:

* ``_ListsAsTuples``: a list made only for ``np.array`` is a tuple (no list on the heap);
* ``_ZerosWhereUnused``: ``d = zero_like(x)`` before a block that replaces ``d`` moves to its
  ``else:`` (no array of zeros thrown away);
* ``_ShapesHandedOver``: a split function's forward hands its reverse ``shape_like(a)``, a tuple
  of numbers, for an array the reverse reads only for its shape (``SHAPE_READERS``).
"""
from __future__ import annotations

import libcst as cst

from .nodes import called_name


# helpers that read an argument only for its shape and dtype -> its position (compiled_helpers'
# overloads read `shape_like(a)` there as they read `a`)
SHAPE_READERS = {"unbroadcast": 1, "zero_like": 0, "untake": 2, "add_at": 3, "expand_reduced": 1, "reduced_count": 0,
                 "array_vjp_object": 1}



def fewer_allocations(module: cst.Module) -> cst.Module:
    """``module`` (compiled array code) after the three passes above."""
    lists = _ListsForArrays()
    module.visit(lists)
    module = module.visit(_ListsAsTuples(lists.found())).visit(_ZerosWhereUnused())
    return module.visit(_ShapesHandedOver(module))


class _ListsForArrays(cst.CSTVisitor):
    """The lists made only to become an array (``elements = [a, b]`` then ``np.array(elements)``):
    names given a list display and otherwise only passed to ``np.array`` or ``array_vjp_object``
    or carried in a tuple (the tape, the forward's saved values, their unpacking). Numba builds a
    list on the heap, element by element; a tuple of the same numbers is no allocation, and
    ``np.array`` of it is the same array. (A tuple cannot be changed: code that would change one
    fails to compile and runs on the NumPy path; none of the reads allowed here tells them apart.)"""

    def __init__(self):
        self.made: set = set()
        self.allowed: set = set()  # id() of the Name nodes in those places
        self.all: dict = {}
        self.passed: dict = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        target = node.targets[0].target if len(node.targets) == 1 else None
        if isinstance(target, cst.Name) and isinstance(node.value, cst.List) \
                and not any(isinstance(e, cst.StarredElement) for e in node.value.elements):
            self.made.add(target.value)
            self.allowed.add(id(target))

    def visit_Call(self, node: cst.Call) -> None:
        function = node.func
        if called_name(node) == "array_vjp_object" or isinstance(function, cst.Attribute) \
                and isinstance(function.value, cst.Name) and function.value.value == "np" and function.attr.value == "array":
            self.allowed.update(id(a.value) for a in node.args if isinstance(a.value, cst.Name) and not a.keyword)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self.allowed.update(id(e.value) for e in node.elements
                            if isinstance(e, cst.Element) and isinstance(e.value, cst.Name))

    def visit_Name(self, node: cst.Name) -> None:
        self.all[node.value] = self.all.get(node.value, 0) + 1
        if id(node) in self.allowed:
            self.passed[node.value] = self.passed.get(node.value, 0) + 1

    def found(self) -> set:
        return {name for name in self.made if self.all[name] == self.passed.get(name, 0)}


class _ListsAsTuples(cst.CSTTransformer):
    """``elements = [a, b]`` -> ``elements = (a, b)`` for the names ``_ListsForArrays`` found."""

    def __init__(self, names: set):
        super().__init__()
        self.names = names

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        target = updated.targets[0].target
        if len(updated.targets) == 1 and isinstance(target, cst.Name) and target.value in self.names \
                and isinstance(updated.value, cst.List):
            elements = list(updated.value.elements)
            if len(elements) == 1:  # `(a,)`, not `(a)`
                elements[0] = elements[0].with_changes(comma=cst.Comma())
            return updated.with_changes(value=cst.Tuple(elements))
        return updated


class _ZerosWhereUnused(cst.CSTTransformer):
    """``d = zero_like(x)`` right before ``if nonzero(g):`` whose block begins by assigning ``d``
    (``d = unbroadcast(g, x)``): the zeros go to an ``else:`` (the block, when it runs, replaces
    them; Numba would allocate an array that is thrown away). Only where the block assigns ``d``
    at its top level before anything reads it, and the ``if`` has no ``else``."""

    def leave_IndentedBlock(self, original, updated: cst.IndentedBlock):
        return updated.with_changes(body=self._moved(list(updated.body)))

    def leave_Module(self, original, updated: cst.Module):
        return updated.with_changes(body=self._moved(list(updated.body)))

    def _moved(self, body: list) -> list:
        out = []
        for statement in body:
            if isinstance(statement, cst.If) and statement.orelse is None and not _mentions(statement.test, None):
                zeros = []  # the `d = zero_like(x)` lines right before it the block replaces
                while out and _zero_like_of(out[-1]) and _assigned_first(statement.body.body, _zero_like_of(out[-1])) \
                        and not _mentions(statement.test, _zero_like_of(out[-1])):
                    zeros.insert(0, out.pop())
                if zeros:
                    statement = statement.with_changes(orelse=cst.Else(cst.IndentedBlock(zeros)))
            out.append(statement)
        return out


class _ShapesHandedOver(cst.CSTTransformer):
    """In a split function (SPLIT_TEMPLATE: the forward returns ``result, (a, b, c,)``, the reverse
    begins ``a, b, c, = saved``), each of those the reverse reads only where SHAPE_READERS read a
    shape is handed over as ``shape_like(a)``: in a ``return`` whose saved tuple names exactly what
    a reverse of this module unpacks."""

    def __init__(self, module: cst.Module):
        super().__init__()
        self.shapes: dict = {}  # the names a reverse unpacks -> those it reads only for their shapes
        for function in module.body:
            unpacked = _unpacked_saved(function)
            if unpacked:
                reads = _ShapeReads()
                cst.Module(list(function.body.body[1:])).visit(reads)
                self.shapes[tuple(unpacked)] = {name for name in unpacked
                                                if reads.all.get(name, 0) == reads.shape.get(name, 0) > 0}

    def leave_Return(self, original: cst.Return, updated: cst.Return):
        value = updated.value
        if not (self.shapes and isinstance(value, cst.Tuple) and len(value.elements) == 2
                and isinstance(value.elements[1].value, cst.Tuple)):
            return updated
        saved = value.elements[1].value
        names = tuple(e.value.value if isinstance(e.value, cst.Name) else None for e in saved.elements)
        shapes = self.shapes.get(names, ())
        if not shapes:
            return updated
        elements = [e.with_changes(value=cst.Call(cst.Name("shape_like"), [cst.Arg(e.value)]))
                    if e.value.value in shapes else e for e in saved.elements]
        return updated.with_changes(value=value.with_changes(elements=[
            value.elements[0], value.elements[1].with_changes(value=saved.with_changes(elements=elements))]))


def _unpacked_saved(function) -> list:
    """The names a split reverse unpacks from its first parameter first thing, or []."""
    if not (isinstance(function, cst.FunctionDef) and function.params.params and function.body.body):
        return []
    first = function.body.body[0]
    if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 and isinstance(first.body[0], cst.Assign)):
        return []
    assign = first.body[0]
    kept = function.params.params[0].name.value
    if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Tuple) \
            and isinstance(assign.value, cst.Name) and assign.value.value == kept:
        elements = assign.targets[0].target.elements
        names = [e.value.value for e in elements if isinstance(e.value, cst.Name)]
        return names if len(names) == len(elements) else []
    return []


class _ShapeReads(cst.CSTVisitor):
    """How often each name occurs, and how often where SHAPE_READERS read only its shape."""

    def __init__(self):
        self.all: dict = {}
        self.shape: dict = {}
        self.at_shape: set = set()

    def visit_Call(self, node: cst.Call) -> None:
        position = SHAPE_READERS.get(called_name(node))
        if position is not None and len(node.args) > position and not any(a.keyword or a.star for a in node.args[:position + 1]) \
                and isinstance(node.args[position].value, cst.Name):
            self.at_shape.add(id(node.args[position].value))

    def visit_Name(self, node: cst.Name) -> None:
        self.all[node.value] = self.all.get(node.value, 0) + 1
        if id(node) in self.at_shape:
            self.shape[node.value] = self.shape.get(node.value, 0) + 1


def _zero_like_of(statement) -> str | None:
    """``d`` of a line ``d = zero_like(x)``, or None."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        assign = statement.body[0]
        if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name) \
                and isinstance(assign.value, cst.Call) and called_name(assign.value) == "zero_like":
            return assign.targets[0].target.value
    return None


def _assigned_first(body, name: str) -> bool:
    """Whether the first statement of ``body`` that mentions ``name`` is a top-level ``name = value``
    whose value does not read it, and every statement before it a simple one that goes on to the
    next (no ``break``, ``continue``, ``return``, ``raise``, no block that may hold one)."""
    for statement in body:
        if not _mentions(statement, name):
            if not isinstance(statement, cst.SimpleStatementLine) or any(
                    isinstance(s, (cst.Break, cst.Continue, cst.Return, cst.Raise)) for s in statement.body):
                return False
            continue
        if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
            assign = statement.body[0]
            return isinstance(assign, cst.Assign) and len(assign.targets) == 1 \
                and isinstance(assign.targets[0].target, cst.Name) and assign.targets[0].target.value == name \
                and not _mentions(assign.value, name)
        return False
    return False


def _mentions(node, name: str | None) -> bool:
    """Whether ``node`` has the name ``name`` in it (``None``: any name bound by an assignment
    expression, which would make the test change what it reads)."""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            if n.value == name:
                found.append(n)

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            if name is None:
                found.append(n)

    node.visit(_Finder())
    return bool(found)
