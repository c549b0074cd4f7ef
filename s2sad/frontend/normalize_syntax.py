"""What the normaliser asks of the user's syntax tree before it writes anything.

Questions answered by reading a libcst subtree, never by changing it: which user variables
a loop assigns and which the rest of the function reads (what a loop must carry), whether
a statement may leave its block or a loop may return, how many ``return`` statements a
function has, the names a target assigns, and a dotted name's spelling. The normaliser's
parts (normalize_*.py) share them; none keeps state.
"""
from __future__ import annotations

import ast

import libcst as cst

from .fence import ReadingVisitor, nonlocal_statements

code_of = cst.Module([]).code_for_node  # a node's source text, as the user wrote it


class NameUses(ReadingVisitor):
    """User variables assigned (``stores``) and read (``loads``) in a subtree, in order of appearance."""

    def __init__(self, skip=None):
        self.stores: dict[str, None] = {}
        self.loads: set[str] = set()
        self.skip = skip

    def store(self, target) -> None:
        for leaf in target_parts(target):
            if isinstance(leaf, cst.Name):
                self.stores[leaf.value] = None
            elif isinstance(leaf, cst.Attribute) and isinstance(leaf.value, cst.Name):
                self.stores[leaf.value.value] = None  # ``p.w = v`` makes ``p`` a new version
                self.loads.add(leaf.value.value)
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


def returns_inside(loop) -> bool:
    """Whether a loop's body holds a ``return`` (of the function: nested definitions aside)."""
    found = []

    class Returns(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Return):
                found.append(node)
            return not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    loop.body.visit(Returns())
    return bool(found)


def count_returns(funcdef) -> int:
    """How many ``return`` statements a function has (its nested definitions' aside)."""
    count = []

    class Returns(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Return):
                count.append(node)
            return node is funcdef or not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    funcdef.visit(Returns())
    return len(count)


def is_pair(target) -> bool:
    """A target of two names, as ``for i, v in enumerate(xs)`` has."""
    return isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2


def may_leave(node) -> bool:
    """Whether ``node`` holds a ``break``, ``continue``, ``raise`` or ``return`` of the enclosing
    block (a ``break`` inside a nested loop belongs to that loop)."""
    found = []

    class Finder(ReadingVisitor):
        def on_visit(self, inner) -> bool:
            if isinstance(inner, (cst.Break, cst.Continue, cst.Raise)):
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


def target_parts(target):
    """The names and subscripts an assignment target assigns (``a, (b, y[i])`` gives three)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_parts(element.value)
    else:
        yield target


def assigned_names(loop) -> list[str]:
    """The user variables a loop assigns (its target included), in order of appearance."""
    names = NameUses()
    if isinstance(loop, cst.For):
        names.store(loop.target)
    loop.body.visit(names)
    return list(names.stores)


def deleted_from(body) -> list[str]:
    """The names ``X`` of each ``del X[...]`` in ``body`` (not in functions or lambdas nested in it)."""
    found = []

    class Deletions(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Del):
                targets = [e.value for e in node.target.elements] \
                    if isinstance(node.target, (cst.Tuple, cst.List)) else [node.target]
                found.extend(t.value.value for t in targets
                             if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name))
            return not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))

    body.visit(Deletions())
    return list(dict.fromkeys(found))


def names_read_outside(funcdef: cst.FunctionDef, loop) -> set[str]:
    """The user variables the function reads outside a loop's body."""
    names = NameUses(skip=loop.body)
    funcdef.body.visit(names)
    return names.loads


def dotted_name(node) -> str | None:
    """``np.linalg.inv`` for a chain of attributes of a name; None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = dotted_name(node.value)
        return None if inner is None else f"{inner}.{node.attr.value}"
    return None


def written_sequence(node) -> bool:
    """Whether ``node`` is written as a list or tuple: a display, a list comprehension, or a
    ``list(...)``/``tuple(...)`` call (so ``node + other`` joins sequences, not numbers)."""
    if isinstance(node, (cst.Tuple, cst.List, cst.ListComp)):
        return True
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple")


def params_changed_in_place(funcdef: cst.FunctionDef, params: set[str]) -> list[str]:
    """The parameters the function's own body changes in place, by the name it was given:
    ``x[i] = v``, ``x[i] += v``, ``xs.append(v)``/``.extend``/``.pop``, ``np.add.at(x, ...)``,
    ``f(..., out=x)`` (nested functions aside). In the order they are first changed."""
    changed: list[str] = []

    def note(node) -> None:
        if isinstance(node, cst.Name) and node.value in params and node.value not in changed:
            changed.append(node.value)

    class Finder(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                for target in targets:
                    for leaf in _leaves(target):
                        if isinstance(leaf, cst.Subscript):
                            note(leaf.value)
            elif isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Attribute) and func.attr.value in ("append", "extend", "pop", "insert"):
                    note(func.value)
                if isinstance(func, cst.Attribute) and func.attr.value == "at" and node.args:
                    note(node.args[0].value)
                for arg in node.args:
                    if arg.keyword is not None and arg.keyword.value == "out":
                        note(arg.value)
            return not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    for statement in funcdef.body.body:
        statement.visit(Finder())
    return changed


def _leaves(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _leaves(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _leaves(target.value)
    else:
        yield target


def yields_in(funcdef) -> list:
    """The ``yield`` expressions of a function (its nested definitions' aside)."""
    found = []

    class Yields(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Yield):
                found.append(node)
            return node is funcdef or not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    funcdef.visit(Yields())
    return found


def nonlocal_names(funcdef) -> list[str]:
    """The names a nested function declares ``nonlocal``: its call rebinds them where it is called."""
    if isinstance(funcdef, cst.Lambda):
        return []
    return [item.name.value for statement in nonlocal_statements(funcdef) for item in statement.names]


def own_bindings(funcdef) -> set[str]:
    """The names a nested function binds in its own scope: its parameters, what its body
    assigns, the functions and classes it defines; not what the functions nested in it assign,
    nor its ``nonlocal`` names (they belong to an enclosing function)."""
    class OwnScope(NameUses):
        def on_visit(self, node) -> bool:
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self.stores[node.name.value] = None
                return False
            return not isinstance(node, cst.Lambda) and super().on_visit(node)

    names = OwnScope()
    funcdef.body.visit(names)
    params = funcdef.params
    declared = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
    return (set(names.stores) | declared) - set(nonlocal_names(funcdef))


def defines(funcdef, function) -> bool:
    """Whether ``function`` (a node) is defined in ``funcdef``'s body, at any depth."""
    found = []

    class Finder(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if node is function:
                found.append(node)
            return not found

    funcdef.body.visit(Finder())
    return bool(found)


def called_names(node) -> set[str]:
    """The names called in a subtree (``f`` of ``f(x)``)."""
    found = set()

    class Calls(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                found.add(node.func.value)
            return True

    node.visit(Calls())
    return found


def has_while(funcdef) -> bool:
    """Whether a function has a ``while`` loop (its nested definitions' aside)."""
    found = []

    class Whiles(ReadingVisitor):
        def on_visit(self, node) -> bool:
            if isinstance(node, cst.While):
                found.append(node)
            return node is funcdef or not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))

    funcdef.visit(Whiles())
    return bool(found)


def names_read_in_lambda(code: str) -> list[str]:
    """The names a lambda's body reads that it does not bind itself (its parameters, and those
    of the lambdas and comprehensions inside it)."""
    tree = ast.parse(code.strip(), mode="eval")
    bound = {arg.arg for node in ast.walk(tree) if isinstance(node, ast.arguments)
             for arg in node.posonlyargs + node.args + node.kwonlyargs + [a for a in (node.vararg, node.kwarg) if a]}
    bound |= {name.id for node in ast.walk(tree) if isinstance(node, ast.comprehension)
              for name in ast.walk(node.target) if isinstance(name, ast.Name)}
    read = [node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)]
    return list(dict.fromkeys(name for name in read if name not in bound))


def names_read_in_defaults(code: str) -> list[str]:
    """The names a lambda's own default values read (``k`` in ``lambda z, k=k: z * k``): Python
    evaluates them where the lambda is made, and ``names_read_in_lambda`` counts ``k`` as bound."""
    arguments = ast.parse(code.strip(), mode="eval").body.args
    defaults = list(arguments.defaults) + [default for default in arguments.kw_defaults if default is not None]
    return list(dict.fromkeys(node.id for default in defaults for node in ast.walk(default)
                              if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)))


class _Changes(ReadingVisitor):
    """Where each user variable is assigned or changed in place (``y = ...``, ``y[i] = ...``,
    ``y += ...``, ``p.w = ...``, ``for y in ...``, ``y.append(...)``), and where the loops are."""

    def __init__(self):
        self.changed: list[tuple[str, cst.CSTNode]] = []
        self.rebound: set[int] = set()  # the ids of the leaves above a name is given a new value at, no more
        self.loops: list[cst.CSTNode] = []

    def note(self, target, rebinds: bool = False) -> None:
        for leaf in target_parts(target):
            plain = isinstance(leaf, cst.Name)
            while isinstance(leaf, (cst.Subscript, cst.Attribute, cst.StarredElement)):
                leaf = leaf.value
            if isinstance(leaf, cst.Name):
                self.changed.append((leaf.value, leaf))
                if rebinds and plain:
                    self.rebound.add(id(leaf))

    def on_visit(self, node) -> bool:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self.note(target.target, rebinds=True)
        elif isinstance(node, cst.AnnAssign):
            self.note(node.target, rebinds=True)
        elif isinstance(node, cst.AugAssign):
            self.note(node.target)  # `w += v` changes an array in place
        elif isinstance(node, (cst.For, cst.While, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)):
            self.loops.append(node)  # a comprehension runs its element once per item, as a loop does
            if isinstance(node, cst.For):
                self.note(node.target, rebinds=True)
        elif isinstance(node, cst.CompFor):
            self.note(node.target, rebinds=True)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            self.note(node.func.value)  # a method may change its receiver (xs.append(v))
        return True


def rebound_after(funcdef: cst.FunctionDef, node: cst.CSTNode, names, positions: dict,
                  holds_values: bool = False) -> str | None:
    """One of ``names`` that the function changes after ``node`` (a lambda) or anywhere in a loop
    around it: a closure reads such a variable as it is when it is called, not as it was.
    ``holds_values``: ``node`` holds the values the names have where it is made (a
    ``functools.partial``), so only a change of those values in place counts, not a new value."""
    changes = _Changes()
    funcdef.body.visit(changes)
    here = positions[node]
    around = [loop for loop in changes.loops if _within(here, positions[loop])]
    for name, leaf in changes.changed:
        at = positions.get(leaf)
        if holds_values and id(leaf) in changes.rebound:
            continue
        if name in names and at is not None and (
                (at.start.line, at.start.column) > (here.end.line, here.end.column)
                or any(_within(at, positions[loop]) for loop in around)):
            return name
    return None


def _within(inner, outer) -> bool:
    return (outer.start.line, outer.start.column) <= (inner.start.line, inner.start.column) \
        and (inner.end.line, inner.end.column) <= (outer.end.line, outer.end.column)


def variable_reads(node, names: set) -> list:
    """The ``Name`` nodes in ``node`` that read one of ``names`` as a variable, in order: not an
    attribute's name (``x.model``), a keyword (``f(model=1)``) or a parameter of a nested function."""
    reads = _VariableReads(names)
    node.visit(reads)
    return reads.found


class _VariableReads(cst.CSTVisitor):
    def __init__(self, names: set):
        super().__init__()
        self.names, self.found = names, []

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)  # `x.model` names an attribute, not the variable
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)  # `f(model=1)` names a keyword
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.found.append(node)
