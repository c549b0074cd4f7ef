"""Numba overloads for Python's ``sorted`` of numbers and its cotangent (rules/python_containers.py).

``sorted(xs)`` of a list or tuple of floats is, in compiled code, ``sorted_items(sorted, xs)``
(for_numba.py), typed as ``builtin_abs`` is: given what the name ``sorted`` is, so that a
function of the user's named so finds no implementation and the NumPy path calls it. Python's
sort is stable, and so is the order both take here (a merge sort of the positions, on the
negated numbers for ``reverse=True``, which Python's keeps stable too): equal numbers (0.0 and
-0.0) keep their places, and the cotangent of sorted position ``k`` goes back to the item the
NumPy path's ``_sorted_order`` finds there. A NaN, which Python's comparisons leave where they
find it, raises ``NotCompiledCase``; a ``key``, items other than floats, or a cotangent other
than a 1-d array (compiled code's cotangent of a list of floats) find no implementation.

Like the other compiled helpers it imports only NumPy's and Numba's modules.
"""
import builtins

import numpy as np
from numba.core import types

from .compiled_basics import NotCompiledCase, absent, compiled_only, real, real_array
from .compiled_helpers import add_at, overload, register_jitable, untake

__all__ = ["sorted_items", "sorted_vjp_iterable"]

sorted_items, sorted_vjp_iterable = map(compiled_only, ("sorted_items", "sorted_vjp_iterable"))


def _floats(t) -> bool:
    """A list or tuple of floats (a tuple of one type: Numba reads its items by a variable index)."""
    return isinstance(t, (types.List, types.UniTuple)) and real(t.dtype)


def _served(iterable, key, reverse) -> bool:
    return _floats(iterable) and (absent(key) or isinstance(key, types.NoneType)) \
        and (reverse is False or isinstance(reverse, (types.Omitted, types.Boolean, types.Integer)))


@register_jitable
def _order(iterable, reverse):
    """The positions of ``iterable``'s items in Python's stable sorted order: a merge sort of the
    positions, bottom up, that takes the right run's item first only where it is less (as Python's
    sort compares, with ``<`` alone), so that equal items keep their order; ``reverse`` sorts the
    negated numbers, which keeps equal ones in order as Python's ``reverse=True`` does."""
    n = len(iterable)
    values = np.empty(n)
    for i in range(n):
        values[i] = -iterable[i] if reverse else iterable[i]
    if np.isnan(values).any():
        raise NotCompiledCase("sorted() of a NaN, which Python's comparisons leave where they find it")
    order, merged = np.arange(n), np.empty(n, np.int64)
    width = 1
    while width < n:
        for start in range(0, n, 2 * width):
            middle, end = min(start + width, n), min(start + 2 * width, n)
            i, j = start, middle
            for k in range(start, end):
                if j < end and (i == middle or values[order[j]] < values[order[i]]):
                    merged[k] = order[j]
                    j += 1
                else:
                    merged[k] = order[i]
                    i += 1
        order, merged = merged, order
        width *= 2
    return order


@overload(sorted_items)
def _sorted_items(function, iterable, key=None, reverse=False):
    if not (isinstance(function, types.Function) and function.typing_key is builtins.sorted) \
            or not _served(iterable, key, reverse):
        return None

    def sort(function, iterable, key=None, reverse=False):
        return [iterable[i] for i in _order(iterable, reverse)]
    return sort


@overload(sorted_vjp_iterable)
def _sorted_vjp_iterable(g, ans, iterable, key, reverse):
    if not (_served(iterable, key, reverse) and real_array(g) and g.ndim == 1):
        return None

    def cotangent(g, ans, iterable, key, reverse):
        if g.size != len(iterable):
            raise NotCompiledCase("a sorted list's cotangent of another length")
        out = np.zeros(len(iterable), g.dtype)
        order = _order(iterable, reverse)
        for k in range(len(order)):
            out[order[k]] = g[k]
        return out
    return cotangent


# the cotangent of a list of floats (np.zeros of its length, as compiled code's zero_like of it gives)
# where one item of it is read: ``penalties[0]``
def _item_of_floats(g, index, like) -> bool:
    return real(g) and isinstance(index, types.Integer) and isinstance(like, types.List) and real(like.dtype)


@overload(untake)
def _untake_of_floats(g, index, like):
    if not _item_of_floats(g, index, like):
        return None

    def scattered(g, index, like):
        out = np.zeros(len(like))
        out[index] = g
        return out
    return scattered


@overload(add_at)
def _add_at_of_floats(a, g, index, like):
    if not (_item_of_floats(g, index, like) and real_array(a) and a.ndim == 1):
        return None

    def added(a, g, index, like):
        if a.size != len(like):
            raise NotCompiledCase("a list's cotangent of another length")
        out = a.copy()
        out[index] += g
        return out
    return added
