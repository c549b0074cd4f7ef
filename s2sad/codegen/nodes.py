"""Questions the passes rewriting generated code (for_numba, keyword_calls, fewer_allocations,
weak_scalars, array_constants, unit_seed) ask of its libcst nodes."""
from __future__ import annotations

import libcst as cst

__all__ = ["binding_counts", "bound_once", "called_name", "numpy_function_name"]


def called_name(call: cst.Call) -> str | None:
    """``f`` for a call ``f(...)`` of a bare name; None for ``np.f(...)``, ``x.f(...)`` and the like."""
    return call.func.value if isinstance(call.func, cst.Name) else None


def numpy_function_name(call: cst.Call) -> str | None:
    """``max`` for a call ``np.max(...)``; None for other calls."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "np":
        return func.attr.value
    return None


def binding_counts(node: cst.CSTNode) -> dict[str, int]:
    """How many times ``node`` binds each name: assigned, a parameter, a loop's, a ``with``'s or a
    comprehension's target, a ``def``; a name also bound another way (augmented, deleted,
    declared global or nonlocal) counts twice, so that it is never a name bound once."""
    bindings = _Bindings()
    node.visit(bindings)
    return bindings.count


def bound_once(node: cst.CSTNode) -> set[str]:
    """The names ``node`` binds exactly once: where it is known what that one assignment gives,
    the name holds it wherever it is read after."""
    return {name for name, count in binding_counts(node).items() if count == 1}


# each node that binds names -> the field holding them, and how many times a binding there counts
_BINDING_FIELDS = {
    cst.AssignTarget: ("target", 1), cst.AnnAssign: ("target", 1), cst.For: ("target", 1),
    cst.CompFor: ("target", 1), cst.NamedExpr: ("target", 1), cst.AsName: ("name", 1), cst.Param: ("name", 1),
    cst.FunctionDef: ("name", 1), cst.ClassDef: ("name", 1), cst.AugAssign: ("target", 2), cst.Del: ("target", 2),
}


class _Bindings(cst.CSTVisitor):
    def __init__(self):
        self.count: dict[str, int] = {}

    def on_visit(self, node: cst.CSTNode) -> bool:
        field = _BINDING_FIELDS.get(type(node))
        if field is not None:
            self._bound(getattr(node, field[0]), field[1])
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            for item in node.names:
                self._bound(item.name, 2)
        return True

    def _bound(self, target, times: int) -> None:
        if isinstance(target, cst.Name):
            self.count[target.value] = self.count.get(target.value, 0) + times
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bound(element.value, times)
        elif isinstance(target, cst.StarredElement):
            self._bound(target.value, times)
