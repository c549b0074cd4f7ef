"""A Numba overload of ``np.roll`` given its axis (Numba's own takes the array and one int shift
alone), which the rule's cotangent, ``np.roll(g, np.negative(shift), axis)``, always gives.

``np.roll(a, shift, axis)`` is ``numpy_roll(a, shift, axis)`` in compiled code: with ``axis``
None the flattened array rolled and given ``a``'s shape back, with an int ``axis`` each line
along that axis rolled; element ``j`` goes to ``(j + shift) % n``, copied, as NumPy's. A shift or
axis that is not one int, or anything but a real array, finds no implementation; an axis the
array does not have raises ``NotCompiledCase``: the NumPy path answers (and raises NumPy's error).

Like the other compiled helpers it imports only NumPy's and Numba's modules.
"""
import numpy as np
from numba.core import types

from .compiled_basics import NotCompiledCase, absent, compiled_only, real_array
from .compiled_helpers import overload, register_jitable

__all__ = ["numpy_roll"]

numpy_roll = compiled_only("numpy_roll")


@register_jitable
def _rolled_lines(lines, shift):
    """``lines`` (before, n, after) rolled by ``shift`` along its middle axis, as a new array."""
    before, n, after = lines.shape
    out = np.empty_like(lines)
    if n == 0:
        return out
    step = shift % n  # (Python's modulo: a negative shift rolls back)
    for i in range(before):
        for j in range(n):
            for k in range(after):
                out[i, (j + step) % n, k] = lines[i, j, k]
    return out


@overload(numpy_roll)
def _numpy_roll(a, shift, axis):
    if not (real_array(a) and isinstance(shift, types.Integer)):
        return None
    if absent(axis):
        def roll_flat(a, shift, axis):
            flat = np.ascontiguousarray(a).reshape((1, a.size, 1))
            return _rolled_lines(flat, shift).reshape(a.shape)
        return roll_flat
    if not isinstance(axis, types.Integer):
        return None

    def roll_along(a, shift, axis):
        if not -a.ndim <= axis < a.ndim:
            raise NotCompiledCase("np.roll along an axis the array does not have, which NumPy refuses")
        along = axis + a.ndim if axis < 0 else axis
        before = 1
        for d in range(along):
            before *= a.shape[d]
        after = 1
        for d in range(along + 1, a.ndim):
            after *= a.shape[d]
        lines = np.ascontiguousarray(a).reshape((before, a.shape[along], after))
        return _rolled_lines(lines, shift).reshape(a.shape)
    return roll_along
