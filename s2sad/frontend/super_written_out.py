"""A method specialised to its object's type (runtime/super_calls.py) with ``super().name(args)``
written as ``s2sad_super_name(self, args)`` (and ``super().name`` of a property as
``s2sad_super_name(self)``, a call of its getter): a call of the function ``super()`` reaches for that
type, by a name its globals hold, given the method's first parameter as Python's ``super()``
gives it (its value when the call runs). Only the names resolved are written out; any other
``super()`` stays, and the fence refuses it with its line. Each node made stands at the position
of the one it replaces, so comments and errors name the user's lines.
"""
from __future__ import annotations

import dataclasses

import libcst as cst

from ..runtime.super_calls import SUPER_PREFIX
from .source import FunctionSource


def with_supers_written_out(source: FunctionSource, reached: dict, properties=frozenset()) -> FunctionSource:
    """``source`` with each ``super().name(...)`` of a name in ``reached`` called by its resolved name,
    and each ``super().name`` of one of ``properties`` read as ``s2sad_super_name(self)``, its getter's call."""
    funcdef = source.funcdef
    first = (funcdef.params.posonly_params + funcdef.params.params)[:1]
    if not first:
        return source  # no `self` by position: `super()` stays, refused
    written = dataclasses.replace(source, positions=dict(source.positions))
    body = funcdef.body.visit(_Supers(first[0].name.value, set(reached) - set(properties), set(properties), written))
    made = funcdef.with_changes(body=body)
    written.funcdef = made
    written.alias(made, funcdef)
    written.alias(made.name, funcdef.name)
    return written


class _Supers(cst.CSTTransformer):
    def __init__(self, this: str, names: set, properties: set, source: FunctionSource):
        super().__init__()
        self.this, self.names, self.properties, self.source = this, names, properties, source

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original and result not in self.source.positions:
            self.source.alias(result, original)
        return result

    def visit_FunctionDef(self, node) -> bool:
        return False  # a nested function's `super()` is not the method's (and has no `__class__` of its own)

    def visit_Lambda(self, node) -> bool:
        return False

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        function = updated.func
        if not (_on_super(function) and function.attr.value in self.names):
            return updated
        called, receiver = self.resolved(function.attr.value, original.func)
        return updated.with_changes(func=called, args=[receiver, *updated.args])

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if not (_on_super(updated) and updated.attr.value in self.properties):
            return updated
        called, receiver = self.resolved(updated.attr.value, original)
        return cst.Call(func=called, args=[receiver])  # (stands where the attribute stood: on_leave)

    def resolved(self, name: str, stands_for: cst.CSTNode) -> tuple:
        """The name to call for ``super().name``, and ``self`` as its first argument, at ``stands_for``'s position."""
        called = cst.Name(SUPER_PREFIX + name)
        receiver = cst.Arg(cst.Name(self.this))
        for made in (called, receiver, receiver.value):
            self.source.alias(made, stands_for)
        return called, receiver


def _on_super(node) -> bool:
    """``super().name``."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Call) and not node.value.args \
        and isinstance(node.value.func, cst.Name) and node.value.func.value == "super"
