"""Numba overloads of the indexing helpers for an index that is a 1-d array of ints
(``out[idx] = v``, ``out[idx] += v``, ``x[idx]`` read): ``compiled_helpers`` serves ints and
slices alone, each selecting an element once.

An array of ints may name an element twice. Reading ``x[[0, 2, 2]]``, the cotangent of each read
is added where it was read, once per read, in order (the rule's ``np.add.at``). Writing
``y[[0, 2, 2]] = v``, the last write to an element is the one kept (NumPy's, and Numba's, order
for an index of one array): the cotangent of ``v`` is ``y``'s at the index where the write was
kept and zero where a later one overwrote it, as the NumPy path's ``written_once`` finds. Each
index is counted from the end where negative; one out of range raises ``IndexError``, as NumPy.

The index selects along the array's first axis (elements of a vector, rows of a matrix); a
cotangent of another length than the index raises ``NotCompiledCase``: the NumPy path answers.

Like the other compiled helpers it imports only NumPy's and Numba's modules.
"""
import numpy as np
from numba.core import types

from .compiled_basics import NotCompiledCase, real_array
from .compiled_helpers import add_at, add_into, overload, overwritten, register_jitable, restore, untake, \
    written_item_of, zeroed_at

__all__ = []


def _index_array(index) -> bool:
    return isinstance(index, types.Array) and index.ndim == 1 and isinstance(index.dtype, types.Integer)


@register_jitable
def _position(i, n):
    """Index ``i`` of an axis of length ``n``, counted from the front."""
    found = i + n if i < 0 else i
    if found < 0 or found >= n:
        raise IndexError("index out of bounds")
    return found


@register_jitable
def _one_per_read(g, index):
    if g.shape[0] != index.shape[0]:
        raise NotCompiledCase("the cotangent of an array read at an array of indices, of another length")


@register_jitable
def _added_per_read(out, g, index):
    """``g``'s rows added into ``out`` where they were read, one per entry of ``index``, in ``out``'s
    dtype (the NumPy path's cotangent of a float32 read is float32 before ``np.add.at`` adds it)."""
    _one_per_read(g, index)
    values = g.astype(out.dtype)
    for k in range(index.shape[0]):
        out[_position(index[k], out.shape[0])] += values[k]
    return out


@overload(add_into)
def _add_into_at_indices(buffer, index, g):
    if real_array(buffer) and _index_array(index) and real_array(g) and g.ndim == buffer.ndim:
        def add(buffer, index, g):
            _added_per_read(buffer, g, index)
        return add
    return None


@overload(add_at)
def _add_at_of_indices(a, g, index, like):
    if real_array(a) and real_array(like) and a.ndim == like.ndim and _index_array(index) \
            and real_array(g) and g.ndim == like.ndim:
        return lambda a, g, index, like: _added_per_read(a.copy(), g, index)
    return None


@overload(untake)
def _untake_at_indices(g, index, like):
    if real_array(like) and _index_array(index) and real_array(g) and g.ndim == like.ndim:
        return lambda g, index, like: _added_per_read(np.zeros(like.shape, like.dtype), g, index)
    return None


@register_jitable
def _rows_at(array, index):
    """``array[index]``: its rows (elements) at each entry of ``index``, in order, copied."""
    part = np.empty((index.shape[0],) + array.shape[1:], array.dtype)
    for k in range(index.shape[0]):
        part[k] = array[_position(index[k], array.shape[0])]
    return part


@overload(written_item_of)
def _written_item_of_at_indices(array, index):
    """The cotangent of ``v`` in ``y[index] = v`` (``array`` being ``y``'s after the write): zero
    where a later write to the same element overwrote this one."""
    if not (real_array(array) and _index_array(index)):
        return None

    def kept_writes(array, index):
        n = array.shape[0]
        last = np.full(n, -1, np.intp)
        for k in range(index.shape[0]):
            last[_position(index[k], n)] = k
        part = _rows_at(array, index)
        for k in range(index.shape[0]):
            if last[_position(index[k], n)] != k:
                part[k] = 0.0
        return part
    return kept_writes


@overload(zeroed_at)
def _zeroed_at_indices(g, index):
    if real_array(g) and _index_array(index):
        def zeroed(g, index):
            out = g.copy()
            for k in range(index.shape[0]):
                out[_position(index[k], out.shape[0])] = 0.0
            return out
        return zeroed
    return None


@overload(overwritten)
def _overwritten_at_indices(array, index):
    if real_array(array) and _index_array(index):
        return lambda array, index: _rows_at(array, index)
    return None


@overload(restore)
def _restore_at_indices(container, index, old):
    """``old`` put back: a repeated index was copied the same each time, so the order is no matter."""
    if real_array(container) and _index_array(index) and real_array(old) and old.ndim == container.ndim:
        def put_back(container, index, old):
            _one_per_read(old, index)
            for k in range(index.shape[0]):
                container[_position(index[k], container.shape[0])] = old[k]
        return put_back
    return None
