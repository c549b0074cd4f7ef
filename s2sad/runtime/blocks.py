"""The gradient of ``np.sum`` of an elementwise expression, block by block.

A generated module says ``ELEMENTWISE_SUM = True`` when its function is one
(``analysis/elementwise.py``). Called with large arrays of one shape (``api._run`` on a first
call, the call's lane on later ones: ``blockwise``), its gradient is then
computed a block of elements at a time: the rrule and its pullback run on views of the
arguments' blocks, each block's gradient goes into its place in the output, and the value is
the sum of the blocks' values. Every intermediate array is one block long, so it stays in the
cache, and only one block's intermediate values live at a time: the peak memory is the
gradient's own, not the whole expression's.

The block's rrule is the function's own generated code: the same operations, on fewer
elements. Only the order of the final sum's additions differs (NumPy's pairwise summation,
block by block).
"""
from __future__ import annotations

import math

import numpy as np

from .accumulate import accumulate
from .tangents import NO_TANGENT, ZERO, unthunk

BLOCK = 16384          # elements per block: a float64 block is 128 kB, several fit in a core's cache
SMALLEST = 4 * BLOCK   # fewer elements are computed whole: a block's calls would cost more than they save

_ndarray = np.ndarray


def in_blocks(rrule, args):
    """``(value, cotangents)`` as the rrule and its pullback of 1.0 give them, computed block by
    block; or None when the arguments are not large float arrays of one shape (contiguous, so
    a block is a view) with Python numbers beside them."""
    shape = None
    for a in args:
        kind = a.__class__
        if kind is _ndarray:
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                return None
            if a.dtype.kind != "f" or not a.flags.c_contiguous:
                return None
        elif kind is not float and kind is not int:
            return None
    size = math.prod(shape) if shape is not None else 0
    if size < SMALLEST:
        return None
    flat = [a.reshape(size) if a.__class__ is _ndarray else a for a in args]
    gradients = [np.empty(size, a.dtype) if a.__class__ is _ndarray else ZERO for a in args]
    value = None
    for start in range(0, size, BLOCK):
        stop = min(start + BLOCK, size)
        y, pullback = rrule(*[a[start:stop] if a.__class__ is _ndarray else a for a in flat])
        cotangents = pullback(1.0)
        value = y if value is None else value + y
        for position, a in enumerate(flat):
            g = cotangents[1 + position]
            if a.__class__ is _ndarray:
                if g is ZERO or g is NO_TANGENT:
                    gradients[position][start:stop] = 0
                else:
                    gradients[position][start:stop] = unthunk(g)
            elif g is NO_TANGENT or gradients[position] is NO_TANGENT:  # an int's: it has none
                gradients[position] = NO_TANGENT
            else:
                gradients[position] = accumulate(gradients[position], g)
    result = [g.reshape(shape) if a.__class__ is _ndarray else g for a, g in zip(args, gradients)]
    return value, (NO_TANGENT, *result)


def blockwise(rrule):
    """What ``grad`` calls first for such a function: ``in_blocks`` of its rrule (None: the
    arguments are not ones it serves, and the rrule runs whole)."""
    def gradient_in_blocks(*args):
        return in_blocks(rrule, args)
    return gradient_in_blocks
