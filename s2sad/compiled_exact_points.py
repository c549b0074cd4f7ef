"""The Numba overload of ``at_an_exact_point`` (runtime/exact_points.py): compiled code's check
after ``found = x == c`` (or ``!=``) on a differentiated ``x``.

The NumPy path refuses, naming the user's line, where the comparison finds ``x`` equal to the
constant: the branch it picks holds at that point alone. Compiled code cannot raise that error
(its message and location are s2sad's), so where it would, it raises ``NotCompiledCase``: the
call runs again on the NumPy path, which refuses it. Where the NumPy path passes, so does this:
an operand that is not a float or float array, or a ``found`` that is not a bool or bool array
(neither is ever refused), passes unchecked. Forward code's form, given the operand's tangent,
is not compiled (compiled code is reverse code): no implementation, and the NumPy path runs.

Like the other compiled helpers it imports only NumPy's and Numba's modules.
"""
import numpy as np
from numba.core import types

from .compiled_basics import NotCompiledCase, absent, compiled_only
from .compiled_helpers import overload

__all__ = ["at_an_exact_point"]

_REFUSED = "a differentiated value found equal to a constant: the NumPy path refuses it"

at_an_exact_point = compiled_only("at_an_exact_point")


def _of(t, kind) -> bool:
    """Whether ``t`` is a number of Numba's ``kind`` or an array of them (of any rank)."""
    return isinstance(t, kind) or isinstance(t, types.Array) and isinstance(t.dtype, kind)


@overload(at_an_exact_point)
def _at_an_exact_point(found, operand, equal, spelling, filename, line, column, tangent=None):
    if not absent(tangent) or not isinstance(equal, types.Boolean):
        return None
    if _of(operand, (types.Integer, types.Boolean)):  # not a float: the NumPy path never refuses it
        return lambda found, operand, equal, spelling, filename, line, column, tangent=None: None
    if not _of(operand, types.Float):  # (complex: the NumPy path's, which checks it)
        return None
    if isinstance(found, types.Boolean):
        def check_one(found, operand, equal, spelling, filename, line, column, tangent=None):
            if found == equal:
                raise NotCompiledCase(_REFUSED)
        return check_one
    if isinstance(found, types.Array) and isinstance(found.dtype, types.Boolean):
        def check_each(found, operand, equal, spelling, filename, line, column, tangent=None):
            if np.any(found) if equal else not np.all(found):
                raise NotCompiledCase(_REFUSED)
        return check_each
    return None
