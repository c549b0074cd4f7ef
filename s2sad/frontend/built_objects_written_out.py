"""A function's text with the objects it builds itself written out as their fields (compile=True;
built_classes.py says which classes, and why).

``model = Linear(w)`` reads as ``model_weights = w``; then, as for an object given as an argument
(objects_written_out.py), ``model.weights`` is ``model_weights`` and ``model(X)`` is
``Linear_call(model_weights, X)``, where the module-level name ``Linear_call`` means
``Linear.__call__`` with its ``self`` written out (specialisation.py binds it). A variable built
again, ``state = State(state.q + dt * state.p, ...)``, is one assignment of all its fields at
once, ``state_q, state_p = state_q + dt * state_p, ...``: each value is computed from the old
fields, as Python computes the constructor's arguments before the object. An object built and
used in one expression, ``Gaussian(mean, log_std).log_prob(data)``, is the method's call given
the constructor's arguments as its fields: ``Gaussian_log_prob(mean, log_std, data)``. A class
defined in the body and only built this way leaves the text with its objects.

Each variable holding such an object must hold nothing else (every assignment to it builds the
same class) and be used by its fields and methods alone; any other use (passed on, returned,
compared, a field written) raises NotCompiledError at its line, and the NumPy path runs.
"""
from __future__ import annotations

import dataclasses

import libcst as cst

from ..errors import NotCompiledError
from .normalize_syntax import target_parts, variable_reads
from .object_layouts import ObjectLayout, fresh_names
from .objects_written_out import uses_written_out
from .source import FunctionSource


def with_built_objects_written_out(source: FunctionSource, built: tuple) -> FunctionSource:
    """``source`` with the objects of the classes ``built`` (built_classes.BuiltClass) written out."""
    by_spelling = {b.spelling: b for b in built}
    body = source.funcdef.body
    bindings = _Bindings()
    body.visit(bindings)
    holders = _holders(source, bindings, by_spelling)
    taken = _NamesIn()
    source.funcdef.visit(taken)
    used = taken.names | {name for b in built for _, name in b.methods}
    layouts = {variable: _layout(variable, b, used) for variable, b in holders.items()}
    _refuse_field_writes(source, bindings, layouts)
    written = dataclasses.replace(source, positions=dict(source.positions))
    builds = _Builds(by_spelling, layouts, source, written)
    body = body.visit(builds)
    left = variable_reads(body, set(by_spelling))
    if left:
        node = left[0]
        raise NotCompiledError(f"uses the class `{node.value}` other than to build an object it reads by its fields "
                               "and methods: compiled code writes the objects it builds out as their fields",
                               written.location(node))
    body = uses_written_out(written, written, body, layouts)
    funcdef = source.funcdef.with_changes(body=body)
    written.funcdef = funcdef
    written.alias(funcdef, source.funcdef)
    written.alias(funcdef.name, source.funcdef.name)
    return written


def _layout(variable: str, built, used: set) -> ObjectLayout:
    fresh = fresh_names(used)
    written = tuple(fresh(f"{variable}_{field}") for field in built.fields)
    return ObjectLayout(variable, built.cls, built.fields, written, built.methods)


def _holders(source: FunctionSource, bindings, by_spelling: dict) -> dict:
    """variable -> the BuiltClass of the objects it holds: the variables some assignment
    ``v = Built(...)`` binds; NotCompiledError when another binding of one of them (another
    class, a loop's target, a parameter of a function inside) would make it hold anything else."""
    holders = {}
    for name, nodes in bindings.found.items():
        spellings = {_built_spelling(node, by_spelling) for node in nodes}
        if spellings == {None}:
            continue
        if len(spellings) > 1:
            other = next(node for node in nodes if _built_spelling(node, by_spelling) is None) \
                if None in spellings else nodes[0]
            raise NotCompiledError(f"binds `{name}` to an object it builds and to another value: compiled code "
                                   "writes the objects it builds out as their fields", source.location(other))
        holders[name] = by_spelling[spellings.pop()]
    return holders


def _built_spelling(node, by_spelling: dict):
    """The class ``v = Built(...)`` builds (its spelling); None for any other binding."""
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
            and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name) \
            and node.value.func.value in by_spelling:
        return node.value.func.value
    return None


# the nodes binding a name other than by assignment, and where they hold it
_BINDS = {cst.AugAssign: "target", cst.AnnAssign: "target", cst.For: "target", cst.CompFor: "target",
          cst.NamedExpr: "target", cst.Del: "target", cst.AsName: "name", cst.Param: "name", cst.FunctionDef: "name",
          cst.ClassDef: "name"}


class _Bindings(cst.CSTVisitor):
    """name -> the nodes binding it anywhere in a body (functions inside it included): an
    assignment, or the loop, parameter, import, ``global`` ... that binds it otherwise."""

    def __init__(self):
        super().__init__()
        self.found: dict = {}
        self.attributes: list = []  # the attributes assigned (`model.w = ...`, `for p.x in ...`)

    def _bind(self, target, node) -> None:
        for part in _parts(target):
            if isinstance(part, cst.Name):
                self.found.setdefault(part.value, []).append(node)
            elif isinstance(part, cst.Attribute):
                self.attributes.append(part)

    def on_visit(self, node) -> bool:
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self._bind(target.target, node)
        elif type(node) in _BINDS:
            self._bind(getattr(node, _BINDS[type(node)]), node)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            for item in node.names:
                self._bind(item.name, node)
        elif isinstance(node, cst.ImportAlias):
            name = node.asname.name if node.asname is not None else node.name
            while isinstance(name, cst.Attribute):  # `import a.b` binds `a`
                name = name.value
            self._bind(name, node)
        return True


def _parts(target):
    """``target_parts``, through starred targets (``a, *rest = ...``) too."""
    for part in target_parts(target):
        yield from _parts(part.value) if isinstance(part, cst.StarredElement) else (part,)


class _NamesIn(cst.CSTVisitor):
    def __init__(self):
        super().__init__()
        self.names: set = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _refuse_field_writes(source: FunctionSource, bindings, layouts: dict) -> None:
    """A field of an object built here written (``model.weights = ...``): refused, as the written-out
    object is read by its fields alone."""
    written = [part for part in bindings.attributes if isinstance(part.value, cst.Name) and part.value.value in layouts]
    if written:
        node = written[0]
        raise NotCompiledError(f"writes `{node.value.value}.{node.attr.value}` of an object it builds: compiled code "
                               "writes the objects it builds out as their fields, read alone", source.location(node))


class _Builds(cst.CSTTransformer):
    """``v = Built(args)`` as the assignment of v's fields; ``Built(args).method(more)`` (and
    ``Built(args)(more)``) as the method's call given the fields; a class statement of the
    body defining a class built here, removed. Each node made keeps the position of the one it stands for."""

    def __init__(self, by_spelling: dict, layouts: dict, source: FunctionSource, written: FunctionSource):
        super().__init__()
        self.by_spelling, self.layouts, self.source, self.written = by_spelling, layouts, source, written

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original and result not in self.written.positions:
            self.written.alias(result, original)
        return result

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef):
        built = self.by_spelling.get(original.name.value)
        return cst.RemoveFromParent() if built is not None and built.local else updated

    def leave_IndentedBlock(self, original, updated: cst.IndentedBlock):
        return updated if updated.body else updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        spelling = _built_spelling(original, self.by_spelling)
        if spelling is None:
            return updated
        variable = original.targets[0].target.value
        layout = self.layouts[variable]
        names = layout.field_names()
        pairs = self._arguments(original.value, updated.value, spelling)
        if len(pairs) == 1:
            target, value = cst.Name(names[pairs[0][0]]), pairs[0][1]
        else:  # one assignment: every value computed before any field changes, as for the constructor's arguments
            target = cst.Tuple([cst.Element(cst.Name(names[field])) for field, _ in pairs])
            value = cst.Tuple([cst.Element(value) for _, value in pairs])
        return updated.with_changes(targets=[cst.AssignTarget(target)], value=value)

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        func = original.func
        if isinstance(func, cst.Attribute) and _is_build(func.value, self.by_spelling):
            built_call, updated_build, method = func.value, updated.func.value, func.attr.value
        elif _is_build(func, self.by_spelling):
            built_call, updated_build, method = func, updated.func, "__call__"
        else:
            return updated
        built = self.by_spelling[built_call.func.value]
        if method not in built.method_names():
            return updated  # (the class's name is left: refused below, at its line)
        pairs = self._arguments(built_call, updated_build, built.spelling)
        by_field = dict(pairs)
        if [field for field, _ in pairs] != list(built.fields) and not all(_plain(value) for _, value in pairs):
            raise NotCompiledError(f"builds a {built.cls.__name__} with keyword arguments out of its fields' order, "
                                   "which compiled code would compute in another order", self.source.location(built_call))
        fields = [cst.Arg(by_field[field]) for field in built.fields]
        return updated.with_changes(func=cst.Name(built.method_names()[method]), args=[*fields, *updated.args])

    def _arguments(self, original: cst.Call, updated: cst.Call, spelling: str) -> list:
        """((field, value), ...) of a call building ``spelling``'s class, in the order written, then
        the defaults of the parameters left out; NotCompiledError when it does not bind (Python's
        TypeError), or passes ``*args`` or ``**kwargs``."""
        built = self.by_spelling[spelling]
        where = self.source.location(original)
        positional = [a for a in updated.args if a.keyword is None and not a.star]
        if any(a.star for a in updated.args) or len(positional) > len(built.parameters):
            raise NotCompiledError(f"builds a {built.cls.__name__} with *args, **kwargs or too many arguments", where)
        bound = list(zip(built.parameters, (a.value for a in positional)))
        for a in updated.args[len(positional):]:
            if a.keyword is None or a.keyword.value not in built.parameters or a.keyword.value in dict(bound):
                raise NotCompiledError(f"builds a {built.cls.__name__} with arguments that do not bind to its "
                                       "constructor's parameters (Python raises TypeError)", where)
            bound.append((a.keyword.value, a.value))
        given = dict(bound)
        for parameter, value in built.defaults:
            if parameter not in given:
                bound.append((parameter, cst.parse_expression(repr(value))))
        if len(bound) != len(built.parameters):
            raise NotCompiledError(f"builds a {built.cls.__name__} without all of its constructor's arguments "
                                   "(Python raises TypeError)", where)
        to_field = dict(zip(built.parameters, built.fields))
        return [(to_field[parameter], value) for parameter, value in bound]


def _is_build(node, by_spelling: dict) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in by_spelling


def _plain(node) -> bool:
    """A value whose computing has no effect and cannot fail on values that exist: a name or a number."""
    return isinstance(node, (cst.Name, cst.Integer, cst.Float))
