"""Numba overloads of the compiled helpers for lists of arrays: a list's cotangent when one of
its items is read (``q, k, v = [f(W) for W in weights]``), two such cotangents added,
``np.vstack`` and ``np.hstack`` of a list (Numba's join tuples only), and the cotangent of a
layer's ``(W, b)`` of which one item is read by index (``params[0][1]``), and the zeros of an
unpacked tuple's cotangent before any item's reaches it (``h, c = step(h, c)``).

Like those of ``compiled_helpers`` (generated code finds every helper in ``compiled_overloads``),
each overload serves the types it names and returns no
implementation for others, and a case met only at run time that it does not cover raises
``NotCompiledCase``: the NumPy path computes that call.
"""
import numpy as np
from numba import extending
from numba.core import types

from .compiled_basics import NotCompiledCase, absent, array_list, compiled_only, real, real_array
from .compiled_helpers import items_of_a_layer, per_item, accumulate, accumulate_into, add_at, \
    add_into, array_sequence, hstack_vjp_tup, item_cotangent, list_pieces, numpy_concatenate, numpy_stack, overload, \
    untake, vstack_vjp_tup, zero_like

__all__ = ["numpy_vstack", "numpy_hstack", "zero_items_like"]

zero_items_like = compiled_only("zero_items_like")


@overload(zero_items_like, kept=False)
def _zero_items_like(x):
    """The cotangent of a tuple unpacked (``h, c = step(h, c)``) on the path where no item's reached
    it: a tuple of zeros, the type ``item_cotangent`` gives it on the other path (``zero_like``
    gives a tuple of arrays the list a join's cotangent is, which Numba cannot unify with it)."""
    if items_of_a_layer(x):
        return per_item("x", "zero_like(x[{i}])", len(x))
    return lambda x: zero_like(x)


# ---------------------------------------------------------------------------- a list's cotangent, item by item
# The NumPy path's cotangent of a list is a list of its items' (ZERO where none reached an item,
# which its adding reads as zeros); here each is an array like its item (zeros there), so that
# the list has one type of item, as Numba asks.

def _cotangent_of_list(g, sequence) -> bool:
    """``g``, an array, the cotangent of an item of ``sequence``, a list of real arrays."""
    return array_list(sequence) and real_array(g) and g.ndim == sequence.dtype.ndim \
        and g.dtype == sequence.dtype.dtype


@overload(item_cotangent)
def _item_cotangent_of_a_list(g, index, count, sequence):
    """The cotangent of a list of arrays of which item ``index`` alone was read: ``g`` there,
    zeros like the others."""
    if not (_cotangent_of_list(g, sequence) and isinstance(index, types.Integer)):
        return None

    def one_item(g, index, count, sequence):
        if len(sequence) != count or g.shape != sequence[index].shape:
            raise NotCompiledCase("an item's cotangent of another shape, or a list of another length")
        parts = zero_like(sequence)
        parts[index] = np.ascontiguousarray(g)
        return parts
    return one_item


def _lists_of_arrays(a, b) -> bool:
    return isinstance(a, types.List) and isinstance(b, types.List) and real_array(a.dtype) \
        and real_array(b.dtype) and a.dtype.ndim == b.dtype.ndim and a.dtype.dtype == b.dtype.dtype


def _sum_of_lists(a, b):
    """Two cotangents of one list of arrays, added item by item: a new list (``accumulate_into``
    too: the items' arrays may be another list's)."""
    if not _lists_of_arrays(a, b):
        return None

    def add(a, b):
        if len(a) != len(b):
            raise NotCompiledCase("two cotangents of one list with different lengths")
        return [accumulate(p, q) for p, q in zip(a, b)]
    return add


overload(accumulate)(_sum_of_lists)
overload(accumulate_into)(_sum_of_lists)


# ---------------------------------------------------------------------------- np.vstack and np.hstack of a list
# NumPy's vstack stacks vectors as rows and joins matrices along their first axis; hstack joins
# vectors end to end and matrices along their second axis. A list is joined by compiled_helpers'
# ``numpy_stack`` and ``numpy_concatenate``, its cotangent cut back by its ``list_pieces``; a
# tuple is Numba's own (``for_numba`` calls these for a join of a name).
numpy_vstack, numpy_hstack = map(compiled_only, ("numpy_vstack", "numpy_hstack"))


def _vectors_or_matrices(t) -> bool:
    """A list of real arrays of one or two dimensions (past two, the NumPy path joins them)."""
    return array_list(t) and t.dtype.ndim <= 2


def _stacking(numpys, vectors_stacked: bool):
    """The overload of np.vstack (``vectors_stacked``: vectors as rows, matrices along the first
    axis) or np.hstack (along the last axis, end to end for vectors); a tuple is ``numpys``'."""
    def overloaded(tup):
        if isinstance(tup, types.BaseTuple):
            return lambda tup: numpys(tup)
        if not _vectors_or_matrices(tup):
            return None
        if vectors_stacked and tup.dtype.ndim == 1:
            return lambda tup: numpy_stack(tup, 0)
        axis = 0 if vectors_stacked else tup.dtype.ndim - 1
        return lambda tup: numpy_concatenate(tup, axis)
    return overloaded


overload(numpy_vstack)(_stacking(np.vstack, vectors_stacked=True))
overload(numpy_hstack)(_stacking(np.hstack, vectors_stacked=False))


def _cut_back(rank_of_g, axis_of):
    """The overload of a stacking's cotangent, for a list: ``g`` (of ``rank_of_g(rank of the
    list's arrays)`` dimensions) cut along ``axis_of(that rank)`` into one per array."""
    def overloaded(g, ans, tup, dtype=None, casting="same_kind"):
        if not (_vectors_or_matrices(tup) and real_array(g) and g.dtype == tup.dtype.dtype
                and g.ndim == rank_of_g(tup.dtype.ndim) and absent(dtype)):
            return None
        axis = axis_of(tup.dtype.ndim)
        return lambda g, ans, tup, dtype=None, casting="same_kind": list_pieces(g, tup, axis)
    return overloaded


overload(vstack_vjp_tup)(_cut_back(rank_of_g=lambda rank: 2, axis_of=lambda rank: 0))
overload(hstack_vjp_tup)(_cut_back(rank_of_g=lambda rank: rank, axis_of=lambda rank: rank - 1))


def _item_added(a, g, index, like) -> bool:
    """``g``, the cotangent of ``like[index]``, an array of a list or tuple of them, added into
    ``a``, the list of their cotangents."""
    return array_list(a) and real_array(g) and g.ndim == a.dtype.ndim and g.dtype == a.dtype.dtype \
        and isinstance(index, types.Integer) and (array_list(like) or array_sequence(like))


@overload(add_at)
def _add_at_item_of_a_list(a, g, index, like):
    """The cotangent of ``like[index]`` (``for W in (Wq, Wk, Wv)``) added into the list's: a new list."""
    if not _item_added(a, g, index, like):
        return None

    def add_item(a, g, index, like):
        total = a.copy()
        total[index] = accumulate(total[index], g)
        return total
    return add_item


@overload(add_into)
def _add_into_item_of_a_list(a, index, g):
    """The same into the list's cotangent where it is a buffer of its own (for_numba's ``add_into``)."""
    if not _item_added(a, g, index, a):
        return None

    def add_item(a, index, g):
        a[index] = accumulate(a[index], g)
    return add_item


# ---------------------------------------------------------------------------- a layer's item read by index
@overload(untake, kept=False)
def _untake_item_of_a_tuple(g, index, like):
    """The cotangent of the tuple ``like`` (a layer's ``(W, b)``) of which item ``index``, a literal,
    alone was read (``params[0][1]``): ``g`` there, zeros like the others, as the NumPy path's
    tuple of ZERO and ``g``, whose ZEROs its adding reads as zeros."""
    if not items_of_a_layer(like) or not isinstance(index, types.IntegerLiteral):
        return None  # (Numba asks again with the literal's type)
    position = index.literal_value
    if not -len(like) <= position < len(like):
        return None
    position %= len(like)
    item = like.types[position]
    if not (real(item) and real(g) or real_array(item) and real_array(g) and g.ndim == item.ndim
            and g.dtype == item.dtype):
        return None
    scattered = per_item("g, index, like", "zero_like(like[{i}])", len(like), {position: "g"})
    if real(item):  # (returned as the implementation: Numba compiles it)
        return scattered

    scattered = extending.register_jitable(scattered)  # (called from the one below; written with exec, not kept)

    def checked(g, index, like):
        if g.shape != like[position].shape:
            raise NotCompiledCase("an item's cotangent of another shape")
        return scattered(g, index, like)
    return checked
