"""Numba overloads for ``np.repeat`` of a real vector or matrix along an axis (Numba's own repeats
the flattened array alone) and for its cotangent (the rule's ``repeat_vjp``, rules/numpy_shapes.py,
which Numba cannot compile: ``for_numba`` imports this in its place).

``np.repeat(h0, batch, axis=0)`` is ``numpy_repeat(h0, batch, axis=0)`` in compiled code: each
row (column) ``repeats`` times in turn, copied, as NumPy's. The cotangent of the row (column)
``j`` is the sum of the cotangent's rows (columns) it became, added into zeros in their order,
in the cotangent's dtype, as the rule's ``np.add.at`` adds them. Repeats that are not one int,
arrays of more than two axes, or an axis given as anything but an int find no implementation; a
negative count or an axis out of range raises ``NotCompiledCase``: the NumPy path answers (and
raises NumPy's error).

Like the other compiled helpers it imports only NumPy's and Numba's modules.
"""
import numpy as np
from numba.core import types

from .compiled_basics import NotCompiledCase, absent, compiled_only, real_array
from .compiled_helpers import overload, register_jitable

__all__ = ["numpy_repeat", "repeat_vjp_a"]

numpy_repeat, repeat_vjp_a = map(compiled_only, ("numpy_repeat", "repeat_vjp_a"))


def _repeat_served(a, repeats, axis) -> bool:
    return real_array(a) and a.ndim in (1, 2) and isinstance(repeats, types.Integer) \
        and isinstance(axis, types.Integer)


@register_jitable
def _axis_of(ndim, axis, repeats):
    """``axis`` counted from the front; NotCompiledCase where NumPy raises."""
    if repeats < 0:
        raise NotCompiledCase("np.repeat with a negative count, which NumPy refuses")
    if not -ndim <= axis < ndim:
        raise NotCompiledCase("np.repeat along an axis the array does not have, which NumPy refuses")
    return axis + ndim if axis < 0 else axis


@overload(numpy_repeat)
def _numpy_repeat(a, repeats, axis):
    if not _repeat_served(a, repeats, axis):
        return None
    if a.ndim == 1:
        def repeat_vector(a, repeats, axis):
            _axis_of(1, axis, repeats)
            out = np.empty(a.shape[0] * repeats, a.dtype)
            for j in range(a.shape[0]):
                for m in range(repeats):
                    out[j * repeats + m] = a[j]
            return out
        return repeat_vector

    def repeat_matrix(a, repeats, axis):
        rows, cols = a.shape
        if _axis_of(2, axis, repeats) == 0:
            out = np.empty((rows * repeats, cols), a.dtype)
            for j in range(rows):
                for m in range(repeats):
                    out[j * repeats + m, :] = a[j, :]
            return out
        out = np.empty((rows, cols * repeats), a.dtype)
        for j in range(cols):
            for m in range(repeats):
                out[:, j * repeats + m] = a[:, j]
        return out
    return repeat_matrix


@overload(repeat_vjp_a)
def _repeat_vjp_a(g, ans, a, repeats, axis):
    """The cotangent of ``a`` in ``np.repeat(a, repeats, axis)``, from ``g``, the repeated array's."""
    if not (_repeat_served(a, repeats, axis) and real_array(g) and g.ndim == a.ndim) or absent(axis):
        return None
    if a.ndim == 1:
        def summed_vector(g, ans, a, repeats, axis):
            _axis_of(1, axis, repeats)
            if g.shape[0] != a.shape[0] * repeats:
                raise NotCompiledCase("a repeated vector's cotangent of another length")
            out = np.zeros(a.shape[0], g.dtype)
            for j in range(a.shape[0]):
                for m in range(repeats):
                    out[j] += g[j * repeats + m]
            return out
        return summed_vector

    def summed_matrix(g, ans, a, repeats, axis):
        rows, cols = a.shape
        along_rows = _axis_of(2, axis, repeats) == 0
        if g.shape != ((rows * repeats, cols) if along_rows else (rows, cols * repeats)):
            raise NotCompiledCase("a repeated matrix's cotangent of another shape")
        out = np.zeros((rows, cols), g.dtype)
        for i in range(g.shape[0]):
            for k in range(g.shape[1]):
                if along_rows:
                    out[i // repeats, k] += g[i, k]
                else:
                    out[i, k // repeats] += g[i, k]
        return out
    return summed_matrix
