"""Questions the passes rewriting generated code (for_numba, keyword_calls, fewer_allocations,
weak_scalars) ask of its libcst nodes."""
from __future__ import annotations

import libcst as cst

__all__ = ["called_name", "numpy_function_name"]


def called_name(call: cst.Call) -> str | None:
    """``f`` for a call ``f(...)`` of a bare name; None for ``np.f(...)``, ``x.f(...)`` and the like."""
    return call.func.value if isinstance(call.func, cst.Name) else None


def numpy_function_name(call: cst.Call) -> str | None:
    """``max`` for a call ``np.max(...)``; None for other calls."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "np":
        return func.attr.value
    return None
