"""``np.r_[...]`` and ``np.c_[...]``: concatenation spelt as indexing.

The transformer reads ``np.r_[x, y]`` as ``operator.getitem(np.r_, (x, y))``: the arrays
are in the *index*, so these are the cotangent and tangent of the index. ``np.r_`` and
``np.c_`` place each element of each item exactly once in the output (directives such as
``'0,2,1'``, slices and scalars only decide where), so a map of where every element went
gives both: each item is replaced by distinct integer tags and the same concatenation is
run on the tags. Other objects indexed with a value that has a tangent are refused, except
the containers whose lookups are piecewise constant in the index (arrays, lists, dicts).
"""
import numpy as np

from s2sad.errors import MissingRuleError
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero, unthunk

from .helpers import unbroadcast

_CONSTANT_LOOKUPS = (np.ndarray, list, tuple, dict, str, bytes, range)
_CONCATENATORS = (type(np.r_), type(np.c_))  # their classes are private in NumPy 2


def _items(index):
    return index if isinstance(index, tuple) else (index,)


def _has_values(item) -> bool:
    """True for the items whose elements land in the output (not directive strings)."""
    return not isinstance(item, str)


def _placement(concatenator, index):
    """The output of ``concatenator[index]`` with each element replaced by its position in
    the flattened items, and each item's (start, size, shape)."""
    tagged, spans, start = [], [], 0
    for item in _items(index):
        if not _has_values(item):
            tagged.append(item)
            spans.append(None)
            continue
        shape = np.shape(np.r_[item]) if isinstance(item, slice) else np.shape(item)
        size = int(np.prod(shape, dtype=np.int64))
        tags = np.arange(start, start + size, dtype=np.int64).reshape(shape)
        tagged.append(tags if shape else tags[()])
        spans.append((start, size, shape))
        start += size
    return np.asarray(concatenator[tuple(tagged) if isinstance(index, tuple) else tagged[0]]), spans


def _refuse(container):
    raise MissingRuleError(
        f"no rule for indexing a `{type(container).__name__}` with a value that carries a gradient",
        hint="np.r_ and np.c_ have rules; write other constructions with np.concatenate or np.stack")


def _carries_floats(index) -> bool:
    if isinstance(index, (tuple, list)):
        return any(_carries_floats(item) for item in index)
    return isinstance(index, (float, complex, np.ndarray, np.generic)) and np.result_type(index).kind in "fc"


def getitem_vjp_index(g, ans, a, index):
    """The cotangent of the index of ``a[index]``: nonzero only for ``np.r_`` and ``np.c_``."""
    if isinstance(a, _CONSTANT_LOOKUPS):
        return ZERO if _carries_floats(index) else NO_TANGENT  # a lookup is piecewise constant in its key
    if not isinstance(a, _CONCATENATORS):
        _refuse(a)
    positions, spans = _placement(a, index)
    g = np.asarray(unthunk(g))
    cotangents = []
    for item, span in zip(_items(index), spans):
        if span is None or isinstance(item, slice) or np.asarray(item).dtype.kind not in "fc":
            cotangents.append(ZERO)
            continue
        start, size, shape = span
        here = (positions >= start) & (positions < start + size)
        flat = np.zeros(size, dtype=g.dtype)
        flat[positions[here] - start] = g[here]
        cotangents.append(unbroadcast(flat.reshape(shape), item))
    return tuple(cotangents) if isinstance(index, tuple) else cotangents[0]


def _item_tangent(tangent, i, is_tuple):
    if not is_tuple:
        return tangent
    return ZERO if is_zero(tangent) else tangent[i]


def getitem_jvp_index(g, ans, a, index):
    """The tangent of ``a[index]`` from the index's tangent: ``np.r_`` and ``np.c_`` place it as they place the items."""
    if isinstance(a, _CONSTANT_LOOKUPS) or is_zero(g):
        return ZERO
    if not isinstance(a, _CONCATENATORS):
        _refuse(a)
    positions, spans = _placement(a, index)
    is_tuple = isinstance(index, tuple)
    pieces = []
    for i, span in enumerate(spans):
        tangent = unthunk(_item_tangent(g, i, is_tuple))
        if span is None or tangent is NO_TANGENT or tangent is None or is_zero(tangent):
            continue
        pieces.append((span, np.asarray(tangent)))
    if not pieces:
        return ZERO
    out = np.zeros(positions.shape, dtype=np.result_type(ans))  # the sums below widen it to the tangents' dtype
    for (start, size, _), tangent in pieces:
        here = (positions >= start) & (positions < start + size)
        # no store into `out`: hvp differentiates this code again, and reaches it from any index
        # with a tangent (a key of a dict of arrays, iterated: params[name]), r_ or not
        taken = np.ravel(tangent)[np.clip(positions - start, 0, size - 1)]
        out = out + np.where(here, taken, 0)
    return out
