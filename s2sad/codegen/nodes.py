"""Questions the passes rewriting generated code (for_numba, keyword_calls, fewer_allocations) ask
of its libcst nodes."""
from __future__ import annotations

import libcst as cst

__all__ = ["called_name"]


def called_name(call: cst.Call) -> str | None:
    """``f`` for a call ``f(...)`` of a bare name; None for ``np.f(...)``, ``x.f(...)`` and the like."""
    return call.func.value if isinstance(call.func, cst.Name) else None
