"""A method specialised to its object's type (runtime/super_calls.py) with ``super().name(args)``
written as ``s2sad_super_name(self, args)``: a call of the function ``super()`` reaches for that
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


def with_supers_written_out(source: FunctionSource, reached: dict) -> FunctionSource:
    """``source`` with each ``super().name(...)`` of a name in ``reached`` called by its resolved name."""
    funcdef = source.funcdef
    first = (funcdef.params.posonly_params + funcdef.params.params)[:1]
    if not first:
        return source  # no `self` by position: `super()` stays, refused
    written = dataclasses.replace(source, positions=dict(source.positions))
    body = funcdef.body.visit(_Supers(first[0].name.value, set(reached), written))
    made = funcdef.with_changes(body=body)
    written.funcdef = made
    written.alias(made, funcdef)
    written.alias(made.name, funcdef.name)
    return written


class _Supers(cst.CSTTransformer):
    def __init__(self, this: str, names: set, source: FunctionSource):
        super().__init__()
        self.this, self.names, self.source = this, names, source

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
        if not (isinstance(function, cst.Attribute) and function.attr.value in self.names
                and isinstance(function.value, cst.Call) and not function.value.args
                and isinstance(function.value.func, cst.Name) and function.value.func.value == "super"):
            return updated
        called = cst.Name(SUPER_PREFIX + function.attr.value)
        receiver = cst.Arg(cst.Name(self.this))
        for made, stands_for in ((called, original.func), (receiver, original.func), (receiver.value, original.func)):
            self.source.alias(made, stands_for)
        return updated.with_changes(func=called, args=[receiver, *updated.args])
