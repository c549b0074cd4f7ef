"""A Numba overload of ``not_the_callers`` for arrays: the check, before ``y op= v`` changes an array
in place, that it is not the caller's array (an argument or a global) or a view of it.

The NumPy path (rules/helpers.py) refuses the change where ``np.may_share_memory`` says the two may
share memory: the caller would see it. Here the same bounds are compared (the first and one past the
last byte each array can reach, an empty array reaching none), and where they overlap the call raises
``NotCompiledCase``: the NumPy path runs it again and refuses at the user's line. An array the
function made itself (``out[idx]``, a copy) reaches other memory and passes. An owner that is not
an array (a list or dict of them) finds no implementation: the NumPy path answers.

Like the other compiled helpers it imports only NumPy's and Numba's modules.
"""
from numba.core import types

from .compiled_basics import NotCompiledCase, real_array
from .compiled_helpers import not_the_callers, overload, register_jitable

__all__ = []


@register_jitable
def _reach(a):
    """The first byte ``a`` can reach and one past its last (equal where it is empty)."""
    low = a.ctypes.data
    high = low
    for d in range(a.ndim):
        if a.shape[d] == 0:
            return low, low
        step = a.strides[d] * (a.shape[d] - 1)
        if step < 0:
            low += step
        else:
            high += step
    return low, high + a.itemsize


@overload(not_the_callers)
def _not_the_callers_array(value, owner, spelled, owner_name):
    if not real_array(value):
        return None
    if isinstance(owner, (types.Float, types.Integer)):
        return lambda value, owner, spelled, owner_name: None  # (a number holds no array)
    if not real_array(owner):
        return None

    def apart(value, owner, spelled, owner_name):
        value_low, value_high = _reach(value)
        owner_low, owner_high = _reach(owner)
        if value_low < owner_high and owner_low < value_high:
            raise NotCompiledCase("an array changed in place that may be the caller's")
    return apart
