"""NumPy functions whose outputs carry no gradient.

Comparisons, predicates, index finders, rounding (zero slope almost everywhere), shape
queries, array creators that take only shapes, and random draws. Autograd's list
(``numpy_vjps.nograd_functions``) plus the creators. ``np.full``/``np.full_like`` are not
here: their ``fill_value`` is differentiable (see ``numpy_shapes``).
"""
import numpy as np

from s2sad.registry import nondifferentiable

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
    np.isrealobj, np.signbit, np.heaviside, np.digitize, np.bincount, np.unravel_index,
    np.ravel_multi_index, np.diag_indices, np.tril_indices, np.triu_indices, np.broadcast_shapes,
    np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift,
    np.gcd, np.lcm, np.linalg.matrix_rank,
)

# ------------------------------------------------------------------ random draws (the legacy global state)
nondifferentiable(
    np.random.seed, np.random.rand, np.random.randn, np.random.random, np.random.uniform,
    np.random.normal, np.random.randint, np.random.choice, np.random.permutation,
    np.random.default_rng,
)
