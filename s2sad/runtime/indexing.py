"""Cotangents of indexed reads: ``untake`` scatters ``g`` back where ``x[i]`` read it.

Generated code and accumulation call these as it runs (``add_at`` adds ``x[i]``'s cotangent
in place), and rules name them in their templates; they live with the runtime so that the
runtime never imports the rules library.
"""
from __future__ import annotations

import numpy as np

from ..errors import RuleError
from .tangents import NO_TANGENT, ZERO, InplaceableThunk, Tangent, unthunk

FLOAT_SCALARS = frozenset({np.float64, np.float32, np.float16, np.longdouble, np.complex128, np.complex64})


def dtype_of(value) -> np.dtype:
    """The dtype NumPy gives ``value`` as an array: a list or tuple (``np.sum([2.0, x])``)
    included, which ``np.result_type`` would read as a description of a structured dtype."""
    if hasattr(value, "dtype"):
        return value.dtype
    if isinstance(value, (list, tuple)):
        return np.asarray(value).dtype
    return np.result_type(value)


def no_tangent_kind(dtype) -> bool:
    return dtype.kind in "biuUSV"


def is_basic_index(index) -> bool:
    """True for indices made of ints, slices, ``...`` and ``None`` only (no repeats possible)."""
    if type(index) is not tuple:
        index = (index,)
    for part in index:
        if part is None or part is Ellipsis or isinstance(part, (int, np.integer, slice)):
            continue
        if isinstance(part, np.ndarray) and part.dtype == bool:
            continue  # a mask selects each element at most once
        return False
    return True


def written_once(index, shape):
    """Where ``y[index] = v`` (``y`` of ``shape``) wrote each element of ``v`` for good: a
    boolean array shaped like ``y[index]``, False where a later write to the same element
    overwrote it (``y[[0, 2, 2]] = v``: NumPy keeps one write per element). None when no
    element is written twice, which basic indices and masks never do.

    Found by doing the same assignment with each write's position as its value and
    reading back which position each element kept, so it follows NumPy's own order."""
    if is_basic_index(index):
        return None
    scratch = np.empty(shape, dtype=np.intp)
    selected = scratch[index]
    positions = np.arange(selected.size, dtype=np.intp).reshape(selected.shape)
    scratch[index] = positions
    kept = scratch[index] == positions
    return None if kept.all() else kept


def untake(g, index, like):
    """The cotangent of ``like[index]``: ``g`` scattered into ``like``'s shape.

    On an array it is an InplaceableThunk (seed 002's ``getindex``): accumulated into a
    buffer it only adds ``g`` at the index, so reading n elements one by one costs one
    output-sized array, not n. Repeated fancy indices accumulate (``np.add.at``); basic
    indices and boolean masks, which select each element at most once, take a plain ``+=``.
    On a tuple or list the cotangent is a tuple or list of ``ZERO`` with ``g`` at the index
    (or the slice).
    """
    if type(like) is np.ndarray and (type(index) is int or type(index) is tuple) and like.dtype.kind in "fc":
        if g is ZERO:
            return ZERO
        if type(g) is not np.ndarray and type(g) not in FLOAT_SCALARS:
            g = unthunk(g)
        if type(index) is int or is_basic_index(index):
            scatter = _ScatterAtBasicIndex(g, index, like.shape, like.dtype)
            return InplaceableThunk(scatter.add, scatter.scattered)
    if like is ZERO:  # an item of a symbolic zero (forward code's tangent of a constant, read again): a constant
        return ZERO
    if isinstance(like, Tangent):  # forward code's structural tangent read by key (`dp["W"]`, `ds[1]` of a namedtuple)
        if g is ZERO:
            return ZERO
        kind = like.primal_type
        if type(index) is int and issubclass(kind, tuple) and hasattr(kind, "_fields"):
            index = kind._fields[index]
        return Tangent(kind, {index: g})
    if isinstance(like, dict):  # a value read by its key: a structural tangent with that one field
        if g is ZERO or g is NO_TANGENT:
            return ZERO  # a key (``for k in d`` reads keys): nothing goes back into the dict
        if index not in like:
            raise RuleError(f"a cotangent was given for the entry {index!r} of a dict that has no such key: a key "
                            "read by iterating over the dict was differentiated as if it were a value")
        return Tangent(type(like), {index: g})
    if isinstance(like, (tuple, list)):
        out = [ZERO] * len(like)
        if isinstance(index, slice):
            if g is not ZERO:
                for position, item in zip(range(len(like))[index], g):
                    out[position] = item
        else:
            out[index] = g
        return out if isinstance(like, list) else tuple(out)
    dtype = dtype_of(like)
    if no_tangent_kind(dtype):
        return NO_TANGENT
    if g is ZERO:
        return ZERO
    g = unthunk(g)
    shape = np.shape(like)
    basic = is_basic_index(index)

    def add_at_index(buffer):
        if basic:
            buffer[index] += g
        else:
            np.add.at(buffer, index, g)
        return buffer

    def scattered():
        return add_at_index(np.zeros(shape, dtype=dtype))

    if isinstance(like, np.generic):
        return dtype.type(scattered())
    return InplaceableThunk(add_at_index, scattered)


class _ScatterAtBasicIndex:
    """untake's two forms for ``x[i]`` with a basic index, the loop case: adding it into a
    buffer writes one element (or slice) and allocates nothing."""

    __slots__ = ("g", "index", "shape", "dtype")

    def __init__(self, g, index, shape, dtype):
        self.g, self.index, self.shape, self.dtype = g, index, shape, dtype

    def add(self, buffer):
        buffer[self.index] += self.g
        return buffer

    def scattered(self):
        buffer = np.zeros(self.shape, dtype=self.dtype)
        buffer[self.index] += self.g
        return buffer
