"""A function's ``*args`` written out as separate parameters, in its text (compile=True).

For a call giving it two extra arguments, ``def rk4(f, y0, t0, t1, steps, *args)`` is read as
``def rk4(f, y0, t0, t1, steps, args_0, args_1)`` (flat_parameters.py says why): in its body
``f(y, t, *args)`` is ``f(y, t, args_0, args_1)``, ``[*args]`` is ``[args_0, args_1]``, ``args[1]``
is ``args_1``, and any other read of ``args`` the tuple ``(args_0, args_1)``, which is what
Python binds it to. A body
that assigns ``args``, or holds a function or lambda binding a name of its own so called, is
not written out: NotCompiledError.
"""
from __future__ import annotations

import dataclasses

import libcst as cst

from ..errors import NotCompiledError
from .flat_parameters import only_read
from .source import FunctionSource


def with_star_written_out(source: FunctionSource, names: tuple) -> FunctionSource:
    """``source`` with its ``*args`` written out as the parameters ``names``."""
    params = source.funcdef.params
    star = params.star_arg.name.value
    _check_only_read(source.function, star)
    kept = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in [*params.params, *map(_param, names)]]
    star_arg = cst.ParamStar() if params.kwonly_params else cst.MaybeSentinel.DEFAULT
    written = dataclasses.replace(source, positions=dict(source.positions))
    body = source.funcdef.body.visit(_StarWrittenOut(star, names, written))
    funcdef = source.funcdef.with_changes(params=params.with_changes(params=kept, star_arg=star_arg), body=body)
    written.funcdef = funcdef
    written.alias(funcdef, source.funcdef)
    written.alias(funcdef.name, source.funcdef.name)
    return written


def _param(name: str) -> cst.Param:
    return cst.Param(cst.Name(name))


def _check_only_read(function, star: str) -> None:
    """NotCompiledError unless the function only reads ``star``."""
    if not only_read(function, star):
        raise NotCompiledError(f"it assigns its *{star} (or a function inside it binds its own `{star}`): compiled "
                               f"code writes *{star} out as separate parameters, which needs it only read")


def _literal_index(subscript: cst.Subscript) -> int | None:
    """``0`` of ``args[0]``, ``-1`` of ``args[-1]``; None for any other subscript."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    index = subscript.slice[0].slice.value
    negative = isinstance(index, cst.UnaryOperation) and isinstance(index.operator, cst.Minus)
    number = index.expression if negative else index
    if not isinstance(number, cst.Integer):
        return None
    return -number.evaluated_value if negative else number.evaluated_value


def _tuple_of(names: tuple) -> cst.Tuple:
    elements = [cst.Element(cst.Name(name)) for name in names]
    if len(elements) == 1:
        elements = [elements[0].with_changes(comma=cst.Comma())]
    return cst.Tuple(elements)


class _StarWrittenOut(cst.CSTTransformer):
    """The rewrites above; each node remade keeps the position of the one it stands for (the
    generated code's comments point at the user's lines)."""

    def __init__(self, star: str, names: tuple, source: FunctionSource):
        super().__init__()
        self.star, self.names, self.source = star, names, source

    def _is_star(self, node) -> bool:
        return isinstance(node, cst.Name) and node.value == self.star

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.Attribute:
        return updated.with_changes(attr=original.attr)  # `x.args` is an attribute, not the tuple

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg):
        if original.star == "*" and self._is_star(original.value):
            written = [cst.Arg(cst.Name(name)) for name in self.names]
            return cst.FlattenSentinel(written) if written else cst.RemoveFromParent()
        return updated.with_changes(keyword=original.keyword)  # `g(args=1)` names a keyword, not the tuple

    def leave_StarredElement(self, original: cst.StarredElement, updated):
        if self._is_star(original.value):
            written = [cst.Element(cst.Name(name)) for name in self.names]
            return cst.FlattenSentinel(written) if written else cst.RemoveFromParent()
        return updated

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript):
        index = _literal_index(original)
        if self._is_star(original.value) and index is not None and -len(self.names) <= index < len(self.names):
            return cst.Name(self.names[index])  # `args[0]` is `args_0`
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        return _tuple_of(self.names) if updated.value == self.star else updated

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original:
            self.source.alias(result, original)
        return result
