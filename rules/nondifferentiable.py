"""NumPy functions whose outputs carry no gradient.

Comparisons, predicates, index finders, rounding (zero slope almost everywhere), shape and
type queries (``hasattr``, which library code asks before computing), array creators that
take only shapes, and random draws (those whose values move with a float argument refuse a
derivative instead: see ``refusals``). Autograd's list (``numpy_vjps.nograd_functions``)
plus the creators. ``np.full``/``np.full_like`` are not here: their ``fill_value`` is
differentiable (see ``numpy_shapes``).
"""
import builtins

import numpy as np

from s2sad.registry import nondifferentiable

from .refusals import defrefused

# ------------------------------------------------------------------ autograd's list
nondifferentiable(
    np.all, np.allclose, np.any, np.argmax, np.argmin, np.argpartition, np.argsort, np.argwhere,
    np.around, np.array_equal, np.array_equiv, np.ceil, np.count_nonzero, np.empty_like, np.equal,
    np.fix, np.flatnonzero, np.floor, np.floor_divide, np.greater, np.greater_equal, np.isclose,
    np.iscomplex, np.iscomplexobj, np.isfinite, np.isinf, np.isnan, np.isneginf, np.isposinf,
    np.isreal, np.isscalar, np.less, np.less_equal, np.logical_and, np.logical_not, np.logical_or,
    np.logical_xor, np.ndim, np.nonzero, np.not_equal, np.ones_like, np.result_type, np.rint,
    np.round, np.searchsorted, np.shape, np.size, np.trunc, np.zeros_like,
)

# ------------------------------------------------------------------ creators, queries, integer maths
nondifferentiable(
    np.zeros, np.ones, np.empty, np.arange, np.eye, np.identity, np.tri, np.indices,
    np.isrealobj, np.isfortran, np.signbit, np.digitize, np.unravel_index,
    np.ravel_multi_index, np.diag_indices, np.tril_indices, np.triu_indices, np.broadcast_shapes,
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift,
    np.gcd, np.lcm, np.linalg.matrix_rank,
    np.isin, np.isnat, np.lexsort, np.nanargmax, np.nanargmin, np.diag_indices_from, np.tril_indices_from,
    np.triu_indices_from, np.can_cast, np.issubdtype, np.promote_types, np.min_scalar_type, np.may_share_memory,
    np.shares_memory, np.packbits, np.unpackbits,
)
# integer and boolean scalar types used as casts: an integer out, a step function of a float in
nondifferentiable(np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.bool_)
if hasattr(np, "isdtype"):  # NumPy >= 2: the array API's dtype query and bit count
    nondifferentiable(np.isdtype, np.bitwise_count)

# ------------------------------------------------------------------ Python's type queries (library code asks them first)
nondifferentiable(builtins.hasattr, builtins.callable, builtins.issubclass)

# ------------------------------------------------------------------ random draws (the legacy global state)
nondifferentiable(
    np.random.seed, np.random.rand, np.random.randn, np.random.random, np.random.randint,
    np.random.default_rng,
)
# Draws whose values move with a float argument: normal(loc, scale) is loc + scale * z,
# choice and permutation return elements of their argument. Refused, not a silent 0.
_DRAW = "a random draw in its parameters"
_DRAW_HINT = "draw standard samples and transform them: loc + scale * rng.standard_normal(size)"
defrefused(np.random.normal,      "loc=0.0, scale=1.0, size=None", ("loc", "scale"), _DRAW, _DRAW_HINT)
defrefused(np.random.uniform,     "low=0.0, high=1.0, size=None", ("low", "high"), _DRAW, _DRAW_HINT)
defrefused(np.random.choice,      "a, size=None, replace=True, p=None", ("a", "p"), _DRAW,
           "draw indices (rng.integers) and index the array with them")
defrefused(np.random.permutation, "x", ("x",), _DRAW, "permute indices (rng.permutation(n)) and index the array")
# np.fromiter consumes an iterator (a generator's items are gone once read).
defrefused(np.fromiter, "iter, dtype, count=-1, *, like=None", ("iter",), "np.fromiter (an iterator read once)",
           "build the array with np.array([...]) or np.stack of a list comprehension", name="numpy.fromiter")
