"""A function's text with the objects some parameters receive written out as their fields
(compile=True; object_layouts.py says which objects, and why).

``def loss(self, ratings, mask)`` given a ``FactorModel`` as ``self`` reads as
``def loss(self_users, self_items, self_l2, ratings, mask)``; in its body ``self.users`` is
``self_users`` and ``self.penalty(x)`` is ``self_penalty(self_users, self_items, self_l2, x)``.
Any other use of the object is refused with its line: a write to one of its fields (the
caller's object would not change), the object passed on or returned, an attribute that is
neither a field nor a method.
"""
from __future__ import annotations

import dataclasses

import libcst as cst

from ..errors import NotCompiledError
from .normalize_syntax import variable_reads
from .source import FunctionSource


def with_objects_written_out(source: FunctionSource, layouts: tuple) -> FunctionSource:
    """``source`` with the parameters of ``layouts`` (object_layouts.ObjectLayout) written out."""
    by_name = {layout.parameter: layout for layout in layouts}
    params = source.funcdef.params
    kept = []
    for param in params.params:
        layout = by_name.get(param.name.value)
        if layout is None:
            kept.append(param.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        else:
            kept += [cst.Param(cst.Name(name)) for name in layout.written]
    written = dataclasses.replace(source, positions=dict(source.positions))
    body = uses_written_out(source, written, source.funcdef.body, by_name)
    funcdef = source.funcdef.with_changes(params=params.with_changes(params=kept), body=body)
    written.funcdef = funcdef
    written.alias(funcdef, source.funcdef)
    written.alias(funcdef.name, source.funcdef.name)
    return written


def uses_written_out(source: FunctionSource, written: FunctionSource, body, by_name: dict):
    """``body`` (of ``source``) with each object named in ``by_name`` (name -> ObjectLayout) read
    by its fields and methods alone; ``written``: the source whose positions the new nodes join.
    NotCompiledError, located, for a field written or the object used otherwise."""
    _refuse_field_writes(source, body, by_name)
    rewriter = _WrittenOut(by_name, written)
    made = body.visit(rewriter)
    _refuse_other_uses(source, body, by_name, rewriter.consumed)
    return made


def _item(node, by_name: dict):
    """The layout and key of ``params["W"]`` (``params`` a dict written out) or ``params[0]`` (a
    tuple), the key as the layout names the entry; None otherwise."""
    if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in by_name
            and by_name[node.value.value].cls in (dict, tuple) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)):
        return None
    layout, key = by_name[node.value.value], node.slice[0].slice.value
    if layout.cls is dict and isinstance(key, cst.SimpleString):
        return layout, key.evaluated_value
    if layout.cls is tuple and isinstance(key, cst.Integer):
        return layout, str(key.evaluated_value)
    return None


def _object_attribute(node, by_name: dict):
    """The layout and attribute name of ``model.name`` (``model`` written out); None otherwise."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value in by_name:
        return by_name[node.value.value], node.attr.value
    return None


class _Targets(cst.CSTVisitor):
    """The attributes of written-out objects that are assigned or deleted."""

    def __init__(self, by_name: dict):
        super().__init__()
        self.by_name, self.found = by_name, []

    def _look_in(self, target) -> None:
        finder = _Attributes(self.by_name)
        target.visit(finder)
        self.found += finder.found

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _TARGETED):
            self._look_in(node.target)
        return True


_TARGETED = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For, cst.NamedExpr)


class _Attributes(cst.CSTVisitor):
    """``model.name`` written directly in a target (``model.W[0]`` writes into the array, which is
    the argument's own memory as it is for any array argument: not an attribute write)."""

    def __init__(self, by_name: dict):
        super().__init__()
        self.by_name, self.found = by_name, []

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        if isinstance(node.value, cst.Name) and node.value.value in self.by_name \
                and self.by_name[node.value.value].cls in (dict, tuple):
            self.found.append(node)  # `params["W"] = ...`: the caller's dict would not change
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if _object_attribute(node, self.by_name) is not None:
            self.found.append(node)
        return True


def _refuse_field_writes(source: FunctionSource, body, by_name: dict) -> None:
    finder = _Targets(by_name)
    body.visit(finder)
    if finder.found and isinstance(finder.found[0], cst.Subscript):
        raise NotCompiledError(f"writes an item of the {by_name[finder.found[0].value.value].cls.__name__} "
                               f"`{finder.found[0].value.value}` it is given: compiled code writes it out as its "
                               "items, where the write would not reach it",
                               source.location(finder.found[0]))
    if finder.found:
        node = finder.found[0]
        raise NotCompiledError(f"writes `{node.value.value}.{node.attr.value}` of the object it is given: compiled "
                               "code writes the object out as its fields, where the write would not reach the object",
                               source.location(node))


class _WrittenOut(cst.CSTTransformer):
    """The rewrites; each node remade keeps the position of the one it stands for. ``consumed``:
    the ``Name`` nodes of the objects that became a field or a method's call."""

    def __init__(self, by_name: dict, source: FunctionSource):
        super().__init__()
        self.by_name, self.source, self.consumed = by_name, source, set()

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original and result not in self.source.positions:
            self.source.alias(result, original)  # (each line remade keeps its own, for the generated comments)
        return result

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        passed = self._passed_on(original, updated)
        if passed is not None:
            return passed
        found = _object_attribute(original.func, self.by_name)
        receiver = original.func.value if found is not None else original.func
        if found is None and isinstance(original.func, cst.Name) and original.func.value in self.by_name:
            found = self.by_name[original.func.value], "__call__"  # `layer(x)`: its class's __call__
        if found is None or found[1] not in found[0].method_names():
            return updated
        layout, method = found
        self.consumed.add(receiver)
        fields = [cst.Arg(cst.Name(name)) for name in layout.written]
        made = updated.with_changes(func=cst.Name(layout.method_names()[method]), args=[*fields, *updated.args])
        self.source.alias(made, original)
        return made

    def _passed_on(self, original: cst.Call, updated: cst.Call):
        """``rnn_predict(params, x)`` (objects_passed_on.py) as ``rnn_predict_params(params_W, params_b, x)``;
        None for any other call."""
        if not isinstance(original.func, cst.Name):
            return None
        given = [(i, self.by_name[a.value.value]) for i, a in enumerate(original.args)
                 if isinstance(a.value, cst.Name) and a.value.value in self.by_name]
        if len(given) != 1:  # (two objects in one call: the callee is not written out for both)
            return None
        position, layout = given[0]
        name = next((new for callee, at, _, new in layout.passed if callee == original.func.value and at == position), None)
        if name is None:
            return None
        self.consumed.add(original.args[position].value)
        fields = [cst.Arg(cst.Name(field)) for field in layout.written]
        args = [*updated.args[:position], *fields, *updated.args[position + 1:]]
        made = updated.with_changes(func=cst.Name(name), args=args)
        self.source.alias(made, original)
        return made

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        """``Wz, Wr, Wh = params`` (a tuple written out): its items, one by one."""
        value, target = original.value, original.targets[0].target if len(original.targets) == 1 else None
        if not (isinstance(value, cst.Name) and value.value in self.by_name and self.by_name[value.value].cls is tuple
                and isinstance(target, (cst.Tuple, cst.List))
                and len(target.elements) == len(self.by_name[value.value].written)
                and not any(isinstance(e, cst.StarredElement) for e in target.elements)):
            return updated
        self.consumed.add(value)
        made = cst.Tuple([cst.Element(cst.Name(name)) for name in self.by_name[value.value].written])
        self.source.alias(made, value)
        return updated.with_changes(value=made)

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript):
        found = _item(original, self.by_name)
        if found is None or found[1] not in found[0].field_names():
            return updated
        made = cst.Name(found[0].field_names()[found[1]])
        self.consumed.add(original.value)
        self.source.alias(made, original)
        return made

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        found = _object_attribute(original, self.by_name)
        if found is None:
            return updated
        layout, field = found
        if field in dict(layout.spelled):  # a field holding a function: the function, by the name its module has
            made = cst.parse_expression(dict(layout.spelled)[field])
        elif field in layout.field_names():
            made = cst.Name(layout.field_names()[field])
        else:
            return updated
        self.consumed.add(original.value)
        self.source.alias(made, original)
        return made


def _refuse_other_uses(source: FunctionSource, body, by_name: dict, consumed: set) -> None:
    left = [node for node in variable_reads(body, set(by_name)) if node not in consumed]
    if not left:
        return
    node = left[0]
    layout = by_name[node.value]
    if layout.cls in (dict, tuple):
        raise NotCompiledError(f"uses the {layout.cls.__name__} `{node.value}` other than by reading its items "
                               f"({'by their keys' if layout.cls is dict else 'by position, or unpacking them'}): "
                               "compiled code writes it out as its items", source.location(node))
    raise NotCompiledError(f"uses the {layout.cls.__name__} `{node.value}` other than by reading its fields "
                           f"({', '.join(layout.fields)}) and calling its methods: compiled code writes the object out "
                           "as its fields", source.location(node))
