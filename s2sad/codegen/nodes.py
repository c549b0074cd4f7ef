"""Questions the passes rewriting generated code (for_numba, keyword_calls, fewer_allocations,
weak_scalars, array_constants, unit_seed) ask of its libcst nodes."""
from __future__ import annotations

import libcst as cst

__all__ = ["bound_once", "called_name", "numpy_function_name"]


def called_name(call: cst.Call) -> str | None:
    """``f`` for a call ``f(...)`` of a bare name; None for ``np.f(...)``, ``x.f(...)`` and the like."""
    return call.func.value if isinstance(call.func, cst.Name) else None


def numpy_function_name(call: cst.Call) -> str | None:
    """``max`` for a call ``np.max(...)``; None for other calls."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "np":
        return func.attr.value
    return None


def bound_once(module: cst.CSTNode) -> set[str]:
    """The names ``module`` binds exactly once (assigned, a parameter, a loop's or a ``with``'s
    target, ...): one assignment, so where it is known what that gives, the name holds it."""
    bindings = _Bindings()
    module.visit(bindings)
    return {name for name, count in bindings.count.items() if count == 1}


class _Bindings(cst.CSTVisitor):
    """How many times each name is bound: assigned, a parameter, a loop's or a ``with``'s target."""

    def __init__(self):
        self.count: dict[str, int] = {}

    def _bound(self, target) -> None:
        if isinstance(target, cst.Name):
            self.count[target.value] = self.count.get(target.value, 0) + 1
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bound(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bound(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._bound(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bound(node.target)
        self._bound(node.target)  # read and bound: never a name bound once

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bound(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bound(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bound(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._bound(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bound(node.target)

    def visit_Param(self, node: cst.Param) -> None:
        self._bound(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._bound(node.name)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._bound(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._bound(node.target)
        self._bound(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:  # bound elsewhere too
            self._bound(item.name)
            self._bound(item.name)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        for item in node.names:
            self._bound(item.name)
            self._bound(item.name)
