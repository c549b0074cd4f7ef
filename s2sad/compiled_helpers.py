"""The helpers of s2sad's generated gradients as Numba compiles them (``compile=True`` on arrays).

The NumPy path's helpers (``rules/helpers.py``, ``runtime/support.py``) decide at run time
what a value is: a Python float, an array of some shape and dtype, a symbolic zero. Numba
knows each argument's type when it compiles, so here each helper is an ``overload``: the
type-level decision is made once, at compile time, and only the arithmetic remains.

A helper is written for the types the compiled mode serves (real floats, real float arrays)
and no others: for any other type no implementation is returned, Numba's typing fails, and
``grad(..., compile=True)`` runs the NumPy path instead (with a ``CompiledFallbackWarning``).
A case it meets only at run time and does not cover (two cotangents of one value with other
shapes, a reduction's mask of ``False``) raises ``NotCompiledCase``, which the caller takes
as "run the NumPy path for this call": a helper never guesses.

This module imports only NumPy and Numba: ``s2sad emit --compile`` copies it into the file
it writes, which runs without s2sad. Called from plain Python (``NUMBA_DISABLE_JIT=1``), the
stubs raise: the gradient is only meant to run compiled.
"""
import builtins
import functools
import sys

import numpy as np
from numba import extending, literal_unroll, objmode
from numba.core import types
from numba.np.unsafe.ndarray import to_fixed_tuple

from .compiled_basics import NotCompiledCase, absent, array_list, compiled_only, real, real_array

__all__ = ["NotCompiledCase", "shape_like", "matmul_vjp_x1_into", "conj", "unbroadcast", "accumulate", "expand_reduced", "reduced_count",
           "safe_divide", "matmul_vjp_x1", "matmul_vjp_x2", "add_into", "add_at", "untake", "tie_share", "nonzero", "zero_like",
           "accumulate_into", "array_sum", "array_sum_pullback", "array_mean", "array_mean_pullback", "array_dot",
           "array_dot_pullback", "array_T", "array_T_pullback", "power_vjp_base", "power_vjp_exponent", "written_into",
           "array_vjp_object", "split_cotangent", "max_vjp_a", "min_vjp_a", "item_cotangent", "layers_of_arrays",
           "numpy_tanh", "numpy_sinh", "numpy_tan", "numpy_arctan", "numpy_arcsinh", "numpy_log1p", "numpy_expm1",
           "numpy_cbrt", "numpy_log10", "numpy_exp", "numpy_log", "numpy_cosh", "numpy_log2", "numpy_exp2",
           "numpy_arctanh", "amax_vjp_a", "amin_vjp_a",
           "reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min", "prod_vjp_a", "trace_vjp_a",
           "concatenate_vjp_arrays", "stack_vjp_arrays", "hstack_vjp_tup", "vstack_vjp_tup", "dot_vjp_a", "dot_vjp_b",
           "reduce_var", "reduce_std", "var_vjp_a", "std_vjp_a",
           "array_reshape", "array_reshape_pullback", "append_vjp_arr", "append_vjp_values",
           "array_transpose", "array_transpose_pullback", "inverse_axes", "numpy_ndim", "numpy_matmul",
           "weak", "numpy_sum", "numpy_mean", "written_item_of", "zeroed_at", "overwritten", "restore", "array_copy",
           "array_copy_pullback", "as_tuple", "greater", "less", "written_into_argument", "written_into_shared", "not_the_callers",
           "numpy_concatenate", "numpy_stack", "item_of", "prefix_of", "numpy_squeeze", "reshaped_like",
           "is_python_float", "builtin_abs"]


# ---------------------------------------------------------------------------- kept on disk
# Every helper, once compiled for some argument types, is kept in Numba's disk cache (the
# __pycache__ beside this file, or Numba's user-wide cache where that cannot be written): a new
# generated function, in a new process, loads the helpers it calls instead of typing, lowering
# and optimising them again, which was most of its first call (the RNN's: 2.7 s of CPU with
# nothing cached, 1.2 s with its helpers cached; benchmarks/results.md, issue 19, session 12).
# Numba keys an entry on the helper's bytecode and closure values, the argument types, this
# file's modification time and size, its own version and the CPU; where it can keep nothing
# (no writable place), the helpers are compiled in each process as before.

def _cache_writable() -> bool:
    from numba.core.caching import FunctionCache

    try:
        FunctionCache(_cache_writable)  # finds a writable place for this file's entries, or raises
    except RuntimeError:
        return False
    return True


def _imported_by_name() -> bool:
    """Whether this module was imported by its name. Loaded under none (a file ``s2sad emit --compile``
    wrote, with this code in it, loaded by path through importlib and left out of sys.modules) or run
    as a script, what Numba kept would name no module, and every later import of the file would fail
    to read it back (ModuleNotFoundError: '<dynamic>'). s2sad's own module is always imported so."""
    return __name__ in sys.modules and __name__ != "__main__"


KEPT_ON_DISK = _imported_by_name() and _cache_writable()
# (helpers are called from compiled code alone: no wrapper for calls from Python or C, whose lowering
# and machine code were a fifth of a helper's compile time)
_KEPT = dict({"cache": True} if KEPT_ON_DISK else {}, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def overload(function, kept: bool = True, **options):
    """Numba's ``overload``, its implementations kept on disk (not with ``kept=False``: those
    ``per_item`` writes with ``exec``, which have no file for Numba to keep them beside)."""
    return extending.overload(function, jit_options=_KEPT if kept else {}, **options)


def register_jitable(function):
    """Numba's ``register_jitable``, kept on disk."""
    return extending.register_jitable(**_KEPT)(function) if _KEPT else extending.register_jitable(function)


unbroadcast, accumulate, accumulate_into = map(compiled_only, ("unbroadcast", "accumulate", "accumulate_into"))
expand_reduced, reduced_count, safe_divide = map(compiled_only, ("expand_reduced", "reduced_count", "safe_divide"))
matmul_vjp_x1 = compiled_only("matmul_vjp_x1")
dot_vjp_a, dot_vjp_b = map(compiled_only, ("dot_vjp_a", "dot_vjp_b"))
add_into, add_at, untake, tie_share = map(compiled_only, ("add_into", "add_at", "untake", "tie_share"))
nonzero, zero_like, _as_array = map(compiled_only, ("nonzero", "zero_like", "_as_array"))
power_vjp_base, power_vjp_exponent, written_into = map(compiled_only, ("power_vjp_base", "power_vjp_exponent",
                                                                       "written_into"))
array_vjp_object, split_cotangent = map(compiled_only, ("array_vjp_object", "split_cotangent"))
max_vjp_a, min_vjp_a = map(compiled_only, ("max_vjp_a", "min_vjp_a"))
item_cotangent = compiled_only("item_cotangent")
amax_vjp_a, amin_vjp_a, prod_vjp_a, trace_vjp_a = map(compiled_only, ("amax_vjp_a", "amin_vjp_a", "prod_vjp_a",
                                                                       "trace_vjp_a"))
concatenate_vjp_arrays, stack_vjp_arrays, hstack_vjp_tup, vstack_vjp_tup = map(compiled_only, (
    "concatenate_vjp_arrays", "stack_vjp_arrays", "hstack_vjp_tup", "vstack_vjp_tup"))
# NumPy's reductions given an axis or keepdims, which Numba's own np.max, np.prod, np.mean, np.var,
# np.std (axis) and np.sum (keepdims) do not take (``for_numba`` calls these in their place)
reduce_sum, reduce_mean, reduce_prod, reduce_max, reduce_min = map(compiled_only, (
    "reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min"))
reduce_var, reduce_std, var_vjp_a, std_vjp_a = map(compiled_only, ("reduce_var", "reduce_std", "var_vjp_a",
                                                                     "std_vjp_a"))
_three, _reduced_shape, _flat = map(compiled_only, ("_three", "_reduced_shape", "_flat"))
# an array's methods and its .T: each gives its value and what its pullback reads, in place of
# method_rrule's value and pullback closure (``for_numba`` rewrites the calls)
array_sum, array_sum_pullback, array_mean, array_mean_pullback = map(compiled_only, (
    "array_sum", "array_sum_pullback", "array_mean", "array_mean_pullback"))
array_dot, array_dot_pullback, array_T, array_T_pullback = map(compiled_only, (
    "array_dot", "array_dot_pullback", "array_T", "array_T_pullback"))
array_copy, array_copy_pullback = map(compiled_only, ("array_copy", "array_copy_pullback"))


# ---------------------------------------------------------------------------- the types served

def _shape_of(t) -> bool:
    """What ``shape_like`` gives for a real array: ``(its shape, a zero of its dtype)``, read in
    place of the array by helpers that need only its shape and dtype (``SHAPE_READERS``)."""
    return isinstance(t, types.Tuple) and len(t) == 2 and isinstance(t[0], types.UniTuple) and t[0].count > 0 \
        and isinstance(t[0].dtype, types.Integer) and real(t[1])


# ---------------------------------------------------------------------------- index arithmetic

@register_jitable
def _padded_shape(shape, ndim):
    """``shape`` with ones in front, to ``ndim`` entries (broadcasting's alignment), as an array."""
    padded = np.ones(ndim, np.int64)
    for i in range(len(shape)):
        padded[ndim - len(shape) + i] = shape[i]
    return padded


@register_jitable
def _source_offset(k, target_shape, source_shape):
    """The offset, in a C-ordered array of ``source_shape``, of the element broadcast to position
    ``k`` of a C-ordered array of ``target_shape`` (same length; a source axis of 1 repeats)."""
    offset = 0
    stride = 1
    for i in range(len(target_shape) - 1, -1, -1):
        index = k % target_shape[i]
        k //= target_shape[i]
        if source_shape[i] != 1:
            offset += index * stride
        stride *= source_shape[i]
    return offset


@register_jitable
def _sum_to(v, like):
    """``v`` summed over the axes broadcasting added or stretched, to ``like``'s shape."""
    ndim = v.ndim
    v_shape = _padded_shape(v.shape, ndim)
    like_shape = _padded_shape(like.shape, ndim)
    for i in range(ndim):
        if like_shape[i] != 1 and like_shape[i] != v_shape[i]:
            raise NotCompiledCase("a cotangent whose shape does not broadcast to its value's")
    out = np.zeros(like.shape, like.dtype)
    flat_out = out.reshape(out.size)
    flat_v = np.ascontiguousarray(v).reshape(v.size)
    for k in range(flat_v.size):
        flat_out[_source_offset(k, v_shape, like_shape)] += flat_v[k]
    return out


@register_jitable
def _spread(g, shape, g_shape, dtype):
    """``g``, of ``g_shape`` (ones where it was reduced, as many entries as ``shape``), repeated
    to ``shape``: the cotangent of a reduction given back to every element reduced."""
    out = np.empty(shape, dtype)
    flat_out = out.reshape(out.size)
    flat_g = np.ascontiguousarray(g).reshape(g.size)
    target = _padded_shape(shape, len(g_shape))
    for k in range(flat_out.size):
        flat_out[k] = flat_g[_source_offset(k, target, g_shape)]
    return out


# ---------------------------------------------------------------------------- new arrays
# ``np.empty(shape, dtype)`` is an overload of Numba's, compiled as a function of its own for each
# kind of shape and dtype it is called with (and its allocator with it): 0.04-0.06 s of a cold
# first call each (benchmarks/cold_call.py). ``new_array`` makes the same array (Numba's
# ``_empty_nd_impl``, which ``np.empty`` ends in: uninitialised, C-ordered) inside its caller.
@extending.intrinsic
def new_array(typingcontext, shape, like):
    """An uninitialised C-ordered array of ``shape`` (a tuple of ints) and ``like``'s dtype
    (``like`` an array, or a number of that dtype)."""
    if not (isinstance(shape, types.UniTuple) and isinstance(shape.dtype, types.Integer)):
        return None
    dtype = like.dtype if isinstance(like, types.Array) else like
    if not isinstance(dtype, (types.Number, types.Boolean)):
        return None
    made = types.Array(dtype, shape.count, "C")

    def codegen(context, builder, signature, args):
        from numba.core import cgutils
        from numba.core.imputils import impl_ret_new_ref
        from numba.np.arrayobj import _empty_nd_impl

        array = _empty_nd_impl(context, builder, made, cgutils.unpack_tuple(builder, args[0]))
        return impl_ret_new_ref(context, builder, made, array._getvalue())

    return made(shape, like), codegen


# ---------------------------------------------------------------------------- the overloads

# ``conj`` and ``weak`` are intrinsics, not overloads: an overload's implementation, ``lambda x: x`` too,
# is a function of its own that Numba types, lowers, optimises and keeps on disk (0.013 and 0.023 s of
# the RNN's cold first call); an intrinsic's few instructions are written into its caller.
def _same(context, builder, signature, args):
    """The argument itself, given back (a new reference where it is an array)."""
    from numba.core.imputils import impl_ret_borrowed

    return impl_ret_borrowed(context, builder, signature.return_type, args[0])


@extending.intrinsic
def conj(typingcontext, x):
    """The conjugate of a real number or array (a mask ``x > 0.5`` too): itself. Other types find
    no implementation, as the overload it replaced found none."""
    if real(x) or real_array(x) or isinstance(x, (types.Integer, types.Boolean)) \
            or isinstance(x, types.Array) and isinstance(x.dtype, (types.Integer, types.Boolean)):
        x = types.unliteral(x)
        return x(x), _same
    return None


@overload(zero_like)
def _zero_like(x):
    if _shape_of(x):
        dtype = x[1]
        return lambda x: np.zeros(x[0], dtype)
    if real(x):
        kind = x  # a float32 scalar's zero is a float32 (one type for the cotangent variable)
        return lambda x: kind(0.0)
    # a vector's or a matrix's zeros written out (np.zeros is two more functions for Numba to compile, in each
    # helper calling it: 0.1-0.2 s of a cold first call); LLVM makes the loops a memset
    if real_array(x) and x.ndim == 1:
        def vector_zeros(x):
            out = new_array(x.shape, x)
            for i in range(out.shape[0]):
                out[i] = 0.0
            return out
        return vector_zeros
    if real_array(x) and x.ndim == 2:
        def matrix_zeros(x):
            out = new_array(x.shape, x)
            for i in range(out.shape[0]):
                for j in range(out.shape[1]):
                    out[i, j] = 0.0
            return out
        return matrix_zeros
    if real_array(x):
        return lambda x: np.zeros(x.shape, x.dtype)
    return None


@overload(nonzero)
def _nonzero(g):
    """Whether a cotangent may contribute: the compiled form of ``g is not ZERO`` (a block for a
    cotangent of exact zeros is skipped, as the NumPy path skips one for its symbolic zero)."""
    if real(g):
        return lambda g: g != 0.0
    if real_array(g):
        def any_nonzero(g):
            for value in np.nditer(g):
                if value.item() != 0.0:
                    return True
            return False
        return any_nonzero
    return None


# Python's max(a, b) and min(a, b) of two numbers: whether the second wins (codegen/extremes.py); of arrays,
# which Python compares whole (or refuses), none: the NumPy path answers
greater, less = map(compiled_only, ("greater", "less"))


def _real_number(t) -> bool:
    return isinstance(t, (types.Float, types.Integer))


@overload(greater)
def _greater(b, a):
    if _real_number(b) and _real_number(a):
        return lambda b, a: b > a
    return None


@overload(less)
def _less(b, a):
    if _real_number(b) and _real_number(a):
        return lambda b, a: b < a
    return None


def _sum_of_cotangents(in_place: bool):
    """The overload of ``accumulate`` (a new value) or ``accumulate_into`` (written into the first,
    a cotangent's own buffer that nothing else reads): two cotangents of one value, added."""
    def overloaded(a, b):
        if real(a) and real(b):
            return lambda a, b: a + b
        if real_array(a) and real_array(b) and a.ndim == b.ndim and a.dtype == b.dtype:
            def add(a, b):
                if a.shape != b.shape:
                    raise NotCompiledCase("two cotangents of one value with different shapes")
                if in_place:
                    a += b
                    return a
                return a + b
            return add
        return None
    return overloaded


overload(accumulate)(_sum_of_cotangents(in_place=False))
overload(accumulate_into)(_sum_of_cotangents(in_place=True))


@overload(unbroadcast)
def _unbroadcast(v, like):
    if _shape_of(like):
        if real_array(v) and v.ndim == like[0].count and v.dtype == like[1]:
            def same_rank_of_shape(v, like):
                if v.shape == like[0]:
                    return v
                return unbroadcast(v, _template(like))
            return same_rank_of_shape
        return lambda v, like: unbroadcast(v, _template(like))
    if real(like):
        if real(v) and v == like:
            return lambda v, like: v
        kind = like  # a scalar's cotangent has its dtype (the NumPy path casts: a float32 scalar's is float32)
        if real(v):
            return lambda v, like: kind(v)
        if real_array(v):
            return lambda v, like: kind(numpy_sum(v))
        return None
    if not real_array(like):
        return None
    if real(v):
        return lambda v, like: np.full(like.shape, v, like.dtype)
    if not real_array(v):
        return None
    if v.ndim == 1 and like.ndim == 1 and v.dtype == like.dtype:
        def same_length(v, like):  # _sum_to's sums for vectors, without compiling its general index arithmetic
            if v.shape == like.shape:
                return v
            if like.shape[0] != 1:
                raise NotCompiledCase("a cotangent whose shape does not broadcast to its value's")
            out = new_array(like.shape, like)  # (not np.zeros: two more functions for Numba to compile)
            out[0] = 0.0
            for k in range(v.size):
                out[0] += v[k]
            return out
        return same_length
    if v.ndim == like.ndim and v.dtype == like.dtype:
        def same_rank(v, like):
            if v.shape == like.shape:
                return v
            return _sum_to(v, like)
        return same_rank
    if v.ndim >= like.ndim:
        return lambda v, like: _sum_to(v, like)
    return lambda v, like: _spread(v, like.shape, _padded_shape(v.shape, like.ndim), like.dtype)


@overload(expand_reduced)
def _expand_reduced(g, a, axis=None, keepdims=False, where=True):
    if not isinstance(where, (types.Boolean, types.Omitted)):
        return None  # a mask: the NumPy path
    if _shape_of(a):
        return lambda g, a, axis=None, keepdims=False, where=True: expand_reduced(g, _template(a), axis, keepdims, where)
    if real(a) and real(g):
        return lambda g, a, axis=None, keepdims=False, where=True: g if where else 0.0
    if not real_array(a):
        return None
    if absent(axis) and real(g) and a.ndim == 1:
        def filled(g, a, axis=None, keepdims=False, where=True):  # np.full's loop, without its flat iterator
            out = new_array(a.shape, a)
            value = g if where else 0.0
            for k in range(out.shape[0]):
                out[k] = value
            return out
        return filled
    if absent(axis) and real(g):
        def full(g, a, axis=None, keepdims=False, where=True):
            return np.full(a.shape, g if where else 0.0, a.dtype)
        return full
    if isinstance(axis, types.Integer) and real_array(g) and g.ndim in (a.ndim - 1, a.ndim):
        kept = g.ndim == a.ndim

        def along(g, a, axis=None, keepdims=False, where=True):
            if not where:
                return np.zeros(a.shape, a.dtype)
            reduced = axis % a.ndim
            g_shape = _padded_shape(a.shape, a.ndim)
            g_shape[reduced] = 1
            if kept and g.shape[reduced] != 1:
                raise NotCompiledCase("a reduction's cotangent of another shape")
            return _spread(g, a.shape, g_shape, a.dtype)
        return along
    return None


@overload(reduced_count)
def _reduced_count(a, axis=None, keepdims=False, where=True):
    if not isinstance(where, (types.Boolean, types.Omitted)):
        return None
    if _shape_of(a):
        return lambda a, axis=None, keepdims=False, where=True: reduced_count(_template(a), axis, keepdims, where)
    if real_array(a) and absent(axis):
        def size(a, axis=None, keepdims=False, where=True):
            if not where:
                raise NotCompiledCase("a mean over nothing")
            return a.size
        return size
    if real_array(a) and isinstance(axis, types.Integer):
        def length(a, axis=None, keepdims=False, where=True):
            if not where:
                raise NotCompiledCase("a mean over nothing")
            return a.shape[axis % a.ndim]
        return length
    return None


@overload(safe_divide)
def _safe_divide(num, den):
    """``num / den``, but exactly 0 where ``num`` is 0 (even where ``den`` is 0 or NaN)."""
    if real(num) and real(den):
        kind = types.float32 if num == den == types.float32 else types.float64  # the quotient's, in NumPy too

        def scalars(num, den):
            if num == 0.0:
                return kind(0.0)
            if den == 0.0:
                return kind(np.copysign(np.inf, num) * np.copysign(1.0, den))
            return kind(num / den)
        return scalars
    if real_array(num) and (real(den) or real_array(den) and den.ndim == num.ndim):
        def arrays(num, den):
            quotient = num / den  # numpy's semantics on arrays: inf and NaN, no exception
            if quotient.shape != num.shape:
                raise NotCompiledCase("a cotangent divided by a larger array")
            flat_num = np.ascontiguousarray(num).reshape(num.size)
            flat = quotient.reshape(quotient.size)
            for k in range(flat.size):
                if flat_num[k] == 0.0:
                    flat[k] = 0.0
            return quotient
        return arrays
    return None


def _matrix_or_vector(t) -> bool:
    return real_array(t) and t.ndim in (1, 2)


# ``x @ W`` in compiled code is ``numpy_matmul(x, W)``: Numba's own ``@`` is an intrinsic lowered (np.dot
# by BLAS, its checks, the result's allocation) inside the function that uses it, so every new
# generated function compiled it again; as a helper it is compiled once per argument types and
# kept on disk with the others (the cold first call of a new function, benchmarks/results.md).
# ``numpy_matmul`` and ``matmul_vjp_x2`` are intrinsics calling ``_matrix_vector`` where it serves, and the
# overloads of ``matmul_otherwise`` and ``matmul_vjp_x2_otherwise`` elsewhere: an overload's implementation
# forwarding to it (``lambda x1, x2: _matrix_vector(x1, x2, False)``) was a function of its own to type,
# lower, optimise and keep on disk, 0.03-0.04 s each of the RNN's cold first call.
matmul_otherwise, matmul_vjp_x2_otherwise = map(compiled_only, ("matmul_otherwise", "matmul_vjp_x2_otherwise"))


def _forwarded(typingcontext, function, argument_types, chosen, flag=None):
    """An intrinsic's signature and lowering: the call of ``function`` (a jitable, or a stub with
    overloads) with the arguments at positions ``chosen``, then the constant bool ``flag`` if given,
    made where the intrinsic is called. None where ``function`` has no implementation for them."""
    from numba.core.errors import TypingError

    passed = tuple(argument_types[i] for i in chosen) + (() if flag is None else (types.boolean,))
    function_type = typingcontext.resolve_value_type(function)
    try:
        called = typingcontext.resolve_function_type(function_type, passed, {})
    except TypingError:
        return None
    if called is None:
        return None

    def codegen(context, builder, signature, args):
        values = [args[i] for i in chosen] + ([] if flag is None else [context.get_constant(types.boolean, flag)])
        values = [context.cast(builder, v, t, wanted) for v, t, wanted in zip(values, passed, called.args)]
        return context.get_function(function_type, called)(builder, values)

    return called.return_type(*argument_types), codegen


@extending.intrinsic
def numpy_matmul(typingcontext, x1, x2):
    """``x1 @ x2`` of real matrices and vectors: a C-ordered matrix times a vector, ``_matrix_vector``;
    others, ``matmul_otherwise``."""
    if _gemv_served(x1, x2):
        return _forwarded(typingcontext, _matrix_vector, (x1, x2), (0, 1), False)
    return _forwarded(typingcontext, matmul_otherwise, (x1, x2), (0, 1))


@overload(matmul_otherwise)
def _numpy_matmul(x1, x2):
    """Numba's ``@``, which decides the dtypes it takes (others find no implementation, as they found
    none for ``@``: the NumPy path answers)."""
    if _matrix_or_vector(x1) and _matrix_or_vector(x2):
        return lambda x1, x2: x1 @ x2
    return None


# ---------------------------------------------------------------------------- a matrix (or its transpose) times a vector
# Numba's ``W @ h`` compiles in layers (the ``@`` overload, np.dot's, np.dot with ``out``'s, each a
# function of its own, each optimised again with the one below linked in), and ``W.T @ g`` compiles
# the same layers again for the transpose's F layout: 1.2 s of an RNN's cold first call. Here one
# function serves both, making the very BLAS call Numba's layers end in (``call_xxgemv``, with the
# arguments they give it: the same numbers), the transpose read from the matrix's own buffer.
def _gemv_served(matrix, vector) -> bool:
    return isinstance(matrix, types.Array) and matrix.ndim == 2 and matrix.layout == "C" \
        and isinstance(vector, types.Array) and vector.ndim == 1 and vector.layout == "C" \
        and matrix.dtype == vector.dtype and matrix.dtype in (types.float64, types.float32)


@extending.intrinsic
def _gemv_into(typingcontext, matrix, vector, out, transposed):
    """``out[:] = matrix @ vector``, or ``matrix.T @ vector`` (``transposed``), by BLAS: ``numba_xxgemv``
    called as Numba's ``np.dot(matrix, vector, out)`` calls it, for the C-ordered matrix, and for its
    transpose, an F-ordered matrix on the same buffer. The shapes are the caller's to check."""
    from numba.core import cgutils
    from numba.np import linalg

    def codegen(context, builder, signature, args):
        linalg.ensure_blas()
        a = cgutils.create_struct_proxy(matrix)(context, builder, args[0])
        v = cgutils.create_struct_proxy(vector)(context, builder, args[1])
        o = cgutils.create_struct_proxy(out)(context, builder, args[2])
        rows, columns = cgutils.unpack_tuple(builder, a.shape)
        flag = context.cast(builder, args[3], transposed, types.boolean)
        with builder.if_else(flag) as (as_transposed, as_is):
            with as_transposed:
                linalg.call_xxgemv(context, builder, False, matrix.copy(layout="F"), (columns, rows), a.data, v.data,
                                   o.data)
            with as_is:
                linalg.call_xxgemv(context, builder, True, matrix, (rows, columns), a.data, v.data, o.data)
        return context.get_dummy_value()

    return types.none(matrix, vector, out, transposed), codegen


@register_jitable
def _matrix_vector(matrix, vector, transposed):
    """``matrix @ vector``, or ``matrix.T @ vector``, of a C-ordered matrix and a contiguous vector."""
    rows, columns = matrix.shape
    inner, size = (rows, columns) if transposed else (columns, rows)
    if vector.shape[0] != inner:
        raise ValueError("matmul: the matrix and the vector do not have matching sizes")
    if rows > 2 ** 31 - 1 or columns > 2 ** 31 - 1:
        raise ValueError("a matrix too large for BLAS's C int sizes")
    out = new_array((size,), matrix)
    if inner == 0 or size == 0:
        out[:] = 0.0
    else:
        _gemv_into(matrix, vector, out, transposed)
    return out


@overload(matmul_vjp_x1)
def _matmul_vjp_x1(g, x1, x2):
    """The cotangent of ``x1`` in ``x1 @ x2`` (real matrices and vectors, no batches)."""
    if not (_matrix_or_vector(x1) and _matrix_or_vector(x2)):
        return None
    if x1.ndim == 2 and x2.ndim == 2 and real_array(g):
        return lambda g, x1, x2: g @ x2.T
    if x1.ndim == 2 and x2.ndim == 1 and real_array(g):
        return lambda g, x1, x2: np.outer(g, x2)
    if x1.ndim == 1 and x2.ndim == 2 and real_array(g):
        return lambda g, x1, x2: x2 @ g
    if x1.ndim == 1 and x2.ndim == 1 and real(g):
        return lambda g, x1, x2: g * x2
    return None


@extending.intrinsic
def matmul_vjp_x2(typingcontext, g, x1, x2):
    """The cotangent of ``x2`` in ``x1 @ x2``: ``x1.T @ g`` by ``_matrix_vector`` where it serves;
    others, ``matmul_vjp_x2_otherwise``."""
    if _matrix_or_vector(x1) and _matrix_or_vector(x2) and x1.ndim == 2 and _gemv_served(x1, g):
        return _forwarded(typingcontext, _matrix_vector, (g, x1, x2), (1, 0), True)
    return _forwarded(typingcontext, matmul_vjp_x2_otherwise, (g, x1, x2), (0, 1, 2))


@overload(matmul_vjp_x2_otherwise)
def _matmul_vjp_x2(g, x1, x2):
    if not (_matrix_or_vector(x1) and _matrix_or_vector(x2)):
        return None
    if x1.ndim == 2 and real_array(g):
        return lambda g, x1, x2: x1.T @ g
    if x1.ndim == 1 and x2.ndim == 2 and real_array(g):
        return lambda g, x1, x2: np.outer(x1, g)
    if x1.ndim == 1 and x2.ndim == 1 and real(g):
        return lambda g, x1, x2: g * x1
    return None


def _basic_index(index) -> bool:
    """Ints and slices: each element selected at most once (with an array of indices, ``+=``
    would add a repeated index once where ``np.add.at`` adds it each time)."""
    def single(i):
        return isinstance(i, (types.Integer, types.SliceType))
    return single(index) or isinstance(index, types.BaseTuple) and all(single(i) for i in index)


@overload(add_into)
def _add_into(buffer, index, g):
    """``buffer[index] += g``: the cotangent of an element (or row) read, added where it was
    read, into a buffer the gradient owns."""
    if real_array(buffer) and _basic_index(index):
        def add(buffer, index, g):
            buffer[index] += g
        return add
    return None


@overload(add_at)
def _add_at(a, g, index, like):
    """``a`` plus the cotangent of ``like[index]``, as a new array (``a`` may be another value's)."""
    if _shape_of(like):
        return lambda a, g, index, like: add_at(a, g, index, _template(like))
    if real_array(a) and real_array(like) and a.ndim == like.ndim and _basic_index(index):
        def added(a, g, index, like):
            out = a.copy()
            out[index] += g
            return out
        return added
    return None


@overload(untake)
def _untake(g, index, like):
    """The cotangent of ``like[index]``: ``g`` where it was read, zero elsewhere."""
    if _shape_of(like):
        return lambda g, index, like: untake(g, index, _template(like))
    if real_array(like) and _basic_index(index):
        def scattered(g, index, like):
            out = np.zeros(like.shape, like.dtype)
            out[index] = g
            return out
        return scattered
    return None


# ---------------------------------------------------------------------------- y[index] = v on an array of its own
written_item_of, zeroed_at, overwritten, restore = map(compiled_only, ("written_item_of", "zeroed_at", "overwritten",
                                                                       "restore"))


def _one_element(array, index) -> bool:
    """Whether ``array[index]`` (a basic index) is one element: an int for each of its axes."""
    ints = 1 if isinstance(index, types.Integer) else \
        sum(isinstance(i, types.Integer) for i in index) if isinstance(index, types.BaseTuple) else 0
    return ints == array.ndim


def _part_copied(array, index):
    """``array[index]``, a copy where it is an array (not a view the next write changes); None
    where it is not a real array's basic index (no implementation: the NumPy path runs)."""
    if not (real_array(array) and _basic_index(index)):
        return None
    if _one_element(array, index):
        return lambda array, index: array[index]
    return lambda array, index: array[index].copy()


@overload(written_item_of)
def _written_item_of(array, index):
    """The cotangent of ``v`` in ``y[index] = v``, from ``y``'s after the write (``array``): its
    part at ``index``, copied (``zeroed_at`` zeroes those entries next). A basic index writes each
    element once, so no part of ``v`` is overwritten by another (the NumPy path's written_once)."""
    return _part_copied(array, index)


@overload(zeroed_at)
def _zeroed_at(g, index):
    """``y``'s cotangent before ``y[index] = v`` from its cotangent after: ``g`` with zeros at
    ``index``, as a new array (``g`` may be another value's cotangent too)."""
    if real_array(g) and _basic_index(index):
        def zeroed(g, index):
            out = g.copy()
            out[index] = 0.0
            return out
        return zeroed
    return None


@overload(overwritten)
def _overwritten(array, index):
    """What ``y[index] = v`` (``array`` being ``y``) is about to overwrite, copied: ``restore`` puts
    it back as the gradient runs backwards, so that the values the tape holds read as they were."""
    return _part_copied(array, index)


@overload(restore)
def _restore(container, index, old):
    if real_array(container) and _basic_index(index):
        def put_back(container, index, old):
            container[index] = old
        return put_back
    return None


def _new_axes(index) -> tuple:
    """The positions of ``None`` in a tuple index of ints, slices and Nones (``u[:, None]``), or ()."""
    if not isinstance(index, types.BaseTuple) or not any(isinstance(i, types.NoneType) for i in index) \
            or not all(isinstance(i, (types.Integer, types.SliceType, types.NoneType)) for i in index):
        return ()
    return tuple(position for position, i in enumerate(index) if isinstance(i, types.NoneType))


def _with_new_axes_summed(name: str, parameters: str, index, body: list):
    """The function ``name(parameters)`` that sums ``g`` over the axes ``index`` adds (each of length
    1: its one entry) into ``part``, then runs ``body``, where ``{kept}`` is the rest of the index
    (``index[0], index[2],``): written for the index's type, as Numba takes a fixed index."""
    added = _new_axes(index)
    kept = "".join(f"index[{position}], " for position, i in enumerate(index) if not isinstance(i, types.NoneType))
    # the axis of g each new axis is: the entries before it that keep an axis (ints take theirs away)
    axes = [sum(1 for i in index[:position] if not isinstance(i, types.Integer)) for position in added]
    lines = [f"def {name}({parameters}):", "    part = g"]
    lines += [f"    part = np.sum(part, axis={axis})" for axis in sorted(axes, reverse=True)]
    lines += ["    " + line.format(kept=kept) for line in body]
    namespace: dict = {}
    exec("\n".join(lines) + "\n", globals(), namespace)  # noqa: S102
    return namespace[name]


@overload(untake, kept=False)
def _untake_new_axes(g, index, like):
    """The cotangent of ``like[index]`` where ``index`` adds axes (``u[:, None]``, ``v[None, :]``):
    ``g`` summed over each new axis, put where the rest of the index read, zero elsewhere."""
    like = like.type if isinstance(like, types.Optional) else like  # (a variable unset before a loop)
    if _new_axes(index) and real_array(like) and real_array(g):
        return _with_new_axes_summed("untake_new_axes", "g, index, like", index, [
            "out = np.zeros(like.shape, like.dtype)", "out[{kept}] = part", "return out"])
    return None


@overload(add_into, kept=False)
def _add_into_new_axes(buffer, index, g):
    if _new_axes(index) and real_array(buffer) and real_array(g):
        return _with_new_axes_summed("add_into_new_axes", "buffer, index, g", index, ["buffer[{kept}] += part"])
    return None


@overload(add_at, kept=False)
def _add_at_new_axes(a, g, index, like):
    like = like.type if isinstance(like, types.Optional) else like
    if _new_axes(index) and real_array(a) and real_array(like) and a.ndim == like.ndim and real_array(g):
        return _with_new_axes_summed("add_at_new_axes", "a, g, index, like", index, [
            "out = a.copy()", "out[{kept}] += part", "return out"])
    return None


@overload(_as_array)
def _as_array_overload(v, like):
    """``v`` as an array of ``like``'s shape: a float is spread, an array is kept (shapes checked
    where it is read)."""
    if real(v):
        return lambda v, like: np.full(like.shape, v)
    if real_array(v):
        return lambda v, like: v
    return None


@overload(tie_share)
def _tie_share(g, x, other, ans):
    """``g`` where ``x`` won an elementwise max or min, half of it where ``x`` tied ``other``,
    0 where it lost (whatever ``g`` is there, as ``np.where`` gives)."""
    if real(g) and real(x) and real(other) and real(ans):
        def scalars(g, x, other, ans):
            if x != ans:
                return 0.0
            return g * 0.5 if x == other else g
        return scalars
    if real_array(g) and all(real(v) or real_array(v) for v in (x, other, ans)):
        def arrays(g, x, other, ans):
            xs, others, answers = _as_array(x, g), _as_array(other, g), _as_array(ans, g)
            if xs.shape != g.shape or others.shape != g.shape or answers.shape != g.shape:
                raise NotCompiledCase("an elementwise max or min whose operands broadcast")
            out = np.empty(g.shape, g.dtype)
            flat_out = out.reshape(out.size)
            flat_g = np.ascontiguousarray(g).reshape(g.size)
            flat_x = np.ascontiguousarray(xs).reshape(g.size)
            flat_other = np.ascontiguousarray(others).reshape(g.size)
            flat_ans = np.ascontiguousarray(answers).reshape(g.size)
            for k in range(flat_out.size):
                if flat_x[k] != flat_ans[k]:
                    flat_out[k] = 0.0
                elif flat_x[k] == flat_other[k]:
                    flat_out[k] = flat_g[k] * 0.5
                else:
                    flat_out[k] = flat_g[k]
            return out
        return arrays
    return None


# ---------------------------------------------------------------------------- NumPy's own loops on large arrays
# Numba computes np.tanh(x) of an array by calling the C library's tanh element by element; NumPy's
# loops for these functions are vectorised (SIMD), 4-18x faster on large arrays (tanh of 65536
# floats: 48 us in NumPy, 560-890 us in Numba), and give NumPy's own numbers, where Numba's differ
# from them in the last bit or two. ``numpy_tanh(x)`` (what ``for_numba`` writes for ``np.tanh(x)``)
# hands a large array to NumPy's loop, writing into an array Numba made (the same type as Numba's
# own result), at the cost of taking the GIL, about 2 us; a small array, or a float, stays in Numba.
# The smallest size handed over, by function: where Numba's loop costs about as much as that 2 us
# (8-14 ns an element for the first group, 2-4 ns for the second).
NUMPY_LOOPS = {**dict.fromkeys(("tanh", "sinh", "tan", "arctan", "arcsinh", "log1p", "expm1", "cbrt", "log10"), 256),
               **dict.fromkeys(("exp", "log", "cosh", "log2", "exp2", "arctanh"), 1024)}


def _numpy_loop(name: str):
    """The stub ``numpy_<name>`` and its overload: ``np.<name>`` of an array of at least
    ``NUMPY_LOOPS[name]`` elements by NumPy's loop, anything else as Numba computes it."""
    ufunc, smallest = getattr(np, name), NUMPY_LOOPS[name]
    stub = compiled_only(f"numpy_{name}")

    def overloaded(x):
        if not real_array(x):
            return lambda x: ufunc(x)  # a float, or a type Numba's own ufunc decides about
        if x.ndim == 1 and x.layout == "C":
            # a small vector element by element: Numba's ufunc on an array calls the kernel its ufunc on
            # one float calls (the same numbers), but compiles its broadcasting loop and np.empty besides
            def by_element(x):
                out = new_array(x.shape, x)
                if x.size < smallest:
                    for i in range(x.shape[0]):
                        out[i] = ufunc(x[i])
                else:
                    with objmode():
                        ufunc(x, out=out)
                return out
            return by_element

        def by_numpy(x):
            if x.size < smallest:
                return ufunc(x)
            out = new_array(x.shape, x)
            with objmode():
                ufunc(x, out=out)
            return out
        return by_numpy
    overload(stub)(overloaded)
    return stub


numpy_tanh, numpy_sinh, numpy_tan, numpy_arctan, numpy_arcsinh, numpy_log1p, numpy_expm1, numpy_cbrt, numpy_log10, \
    numpy_exp, numpy_log, numpy_cosh, numpy_log2, numpy_exp2, numpy_arctanh = map(_numpy_loop, NUMPY_LOOPS)


# ---------------------------------------------------------------------------- shapes in place of arrays
# A split function's forward hands its reverse what the reverse reads, in a tuple kept on the
# caller's tape. Many of those arrays are read only for their shape (``unbroadcast(g, y)``,
# ``zero_like(y)``): Numba keeps each array in the tuple as a 56-byte struct whose reference count
# is changed, atomically, each time the tuple is built, copied onto the tape, read back and freed:
# 50-60 ns an array, most of a small-array step's time. ``fewer_allocations`` hands them over as
# ``shape_like(y)``, a tuple of numbers (no reference count); each helper in SHAPE_READERS reads
# it as it would the array, through ``_template``: an uninitialised array of that shape and
# dtype, whose values nothing reads.
shape_like, _template = map(compiled_only, ("shape_like", "_template"))


@overload(shape_like)
def _shape_like(x):
    if real_array(x):
        return lambda x: (x.shape, x.dtype.type(0))
    return lambda x: x  # a float is its own shape; other values are handed over as they are


@overload(_template)
def _template_overload(like):
    if _shape_of(like):
        return lambda like: new_array(like[0], like[1])
    return None


# ---------------------------------------------------------------------------- W's cotangent in W @ h, added in place
# ``dW = accumulate_into(dW, matmul_vjp_x1(g, W, h))`` (an RNN's weights, step after step) makes
# np.outer(g, h), a new matrix, then adds it; ``matmul_vjp_x1_into`` adds g[i] * h[j] into dW
# where it is: the same products and sums (0.14 us against 0.63 us for 32 x 32).
matmul_vjp_x1_into = compiled_only("matmul_vjp_x1_into")


@overload(matmul_vjp_x1_into)
def _matmul_vjp_x1_into(buffer, g, x1, x2):
    if real_array(buffer) and buffer.ndim == 2 and real_array(g) and g.ndim == 1 and real_array(x1) \
            and x1.ndim == 2 and real_array(x2) and x2.ndim == 1 and buffer.dtype == g.dtype == x2.dtype:
        def outer_added(buffer, g, x1, x2):
            if buffer.shape[0] != g.size or buffer.shape[1] != x2.size:
                raise NotCompiledCase("two cotangents of one value with different shapes")
            for i in range(g.size):
                gi = g[i]
                for j in range(x2.size):
                    buffer[i, j] += gi * x2[j]
            return buffer
        return outer_added
    return lambda buffer, g, x1, x2: accumulate_into(buffer, matmul_vjp_x1(g, x1, x2))


# ---------------------------------------------------------------------------- an array's methods
# Each pullback returns what method_rrule's does: the cotangent of the method (0.0: none), of the
# receiver, then of each argument. Receivers are real arrays only: ``x.sum()`` of a float
# raises in Python, and here finds no implementation (the NumPy path then says so).

def _axis_served(axis) -> bool:
    return absent(axis) or isinstance(axis, types.Integer)


@overload(array_sum)
def _array_sum(receiver, axis=None):
    if real_array(receiver) and absent(axis):
        return lambda receiver, axis=None: (numpy_sum(receiver), (receiver, None))  # (float32: NumPy's order)
    if real_array(receiver) and isinstance(axis, types.Integer) and receiver.dtype != types.float32:
        # (not float32: NumPy sums along the last axis pairwise, Numba one by one)
        return lambda receiver, axis=None: (np.sum(receiver, axis), (receiver, axis))
    return None


@overload(array_sum_pullback)
def _array_sum_pullback(saved, g):
    return lambda saved, g: (0.0, expand_reduced(g, saved[0], saved[1], False, True))


@overload(array_mean)
def _array_mean(receiver, axis=None):
    if real_array(receiver) and absent(axis):
        return lambda receiver, axis=None: (numpy_mean(receiver), (receiver, None))
    if real_array(receiver) and isinstance(axis, types.Integer) and receiver.dtype != types.float32:
        def along(receiver, axis=None):
            return np.sum(receiver, axis) / receiver.shape[axis % receiver.ndim], (receiver, axis)
        return along
    return None


@overload(array_mean_pullback)
def _array_mean_pullback(saved, g):
    def pullback(saved, g):
        count = reduced_count(saved[0], saved[1], False, True)
        return 0.0, expand_reduced(g / weak(count, g), saved[0], saved[1], False, True)  # (a float32 g stays one)
    return pullback


@overload(array_dot)
def _array_dot(receiver, other):
    if _matrix_or_vector(receiver) and _matrix_or_vector(other):
        return lambda receiver, other: (np.dot(receiver, other), (receiver, other))
    return None


@overload(array_dot_pullback)
def _array_dot_pullback(saved, g):
    def pullback(saved, g):
        return 0.0, matmul_vjp_x1(g, saved[0], saved[1]), matmul_vjp_x2(g, saved[0], saved[1])
    return pullback


as_tuple = compiled_only("as_tuple")


@overload(as_tuple)
def _as_tuple(t):
    """``tuple(t)`` of a tuple (the normaliser's, for a call given ``*t``): ``t``. Nothing else:
    a list's length is not known to Numba's types."""
    if isinstance(t, types.BaseTuple):
        return lambda t: t
    return None


@overload(array_copy)
def _array_copy(receiver):
    """``x.copy()``: a new array; its pullback needs nothing."""
    if real_array(receiver):
        return lambda receiver: (receiver.copy(), 0.0)
    return None


@overload(array_copy_pullback)
def _array_copy_pullback(saved, g):
    if real_array(g):
        return lambda saved, g: (0.0, g)
    return None


@overload(array_T)
def _array_T(receiver):
    if real_array(receiver):
        return lambda receiver: (receiver.T, receiver)
    return None


@overload(array_T_pullback)
def _array_T_pullback(saved, g):
    if real_array(g):
        return lambda saved, g: (0.0, g.T)
    return None


# ---------------------------------------------------------------------------- x ** y, x op= v

def _number(t) -> bool:
    return isinstance(t, (types.Float, types.Integer))


@overload(power_vjp_base)
def _power_vjp_base(g, x, y):
    """The cotangent of the base in ``x ** y``: ``g * y * x ** (y - 1)``, 0 where ``g`` or ``y`` is 0.
    (A float 0.0 ** a negative power raises ZeroDivisionError here, and a negative base with a
    fractional power is NaN: either way the call is computed again on the NumPy path.)"""
    if real(g) and real(x) and _number(y):
        def scalars(g, x, y):
            if g == 0.0 or y == 0:
                return 0.0
            return g * y * x ** (y - 1)
        return scalars
    if real_array(g) and real_array(x) and _number(y):
        def array_base(g, x, y):
            if y == 0:
                return np.zeros(x.shape, x.dtype)
            slope = g * (y * x ** (y - 1))
            if slope.shape != g.shape:
                raise NotCompiledCase("a power's cotangent of another shape")
            flat = slope.reshape(slope.size)
            flat_g = np.ascontiguousarray(g).reshape(g.size)
            for k in range(flat.size):
                if flat_g[k] == 0.0:
                    flat[k] = 0.0
            return unbroadcast(slope, x)
        return array_base
    return None


@overload(power_vjp_exponent)
def _power_vjp_exponent(g, ans, x, y):
    """The cotangent of the exponent in ``x ** y``: ``g * ans * log(x)``, 0 where ``x`` is 0 (NaN
    for a negative base: the NumPy path then answers)."""
    if isinstance(y, types.Integer):
        return lambda g, ans, x, y: 0  # an int exponent has no cotangent (its value is never read)
    if real(g) and real(x) and real(y):
        def scalars(g, ans, x, y):
            if x > 0.0:
                return g * ans * np.log(x)
            return 0.0 if x == 0.0 else np.nan
        return scalars
    if real_array(g) and (real(x) or real_array(x)) and (real(y) or real_array(y)):
        def arrays(g, ans, x, y):
            bases = _as_array(x, g)
            if bases.shape != g.shape:
                raise NotCompiledCase("a power whose base broadcasts")
            logs = np.empty(g.shape, g.dtype)
            flat_logs = logs.reshape(logs.size)
            flat_bases = np.ascontiguousarray(bases).reshape(g.size)
            for k in range(flat_logs.size):
                base = flat_bases[k]
                flat_logs[k] = 0.0 if base == 0.0 else np.log(base)  # NaN below 0
            return unbroadcast(g * ans * logs, y)
        return arrays
    return None


@overload(written_into)
def _written_into(new, old):
    """What ``old op= v`` leaves in ``old`` given ``new = old op v``: on an array the result keeps
    ``old``'s dtype and shape (one that would grow ``old`` raises in NumPy: not covered here)."""
    if not real_array(old):
        return lambda new, old: new
    if real_array(new) and new.ndim == old.ndim:
        def into(new, old):
            if new.shape != old.shape:
                raise NotCompiledCase("an in-place operation that would change an array's shape")
            return new if new.dtype == old.dtype else new.astype(old.dtype)
        return into
    return None


# `y op= v` where y is still what the caller passed, or is read again through another name (rules/helpers.py)
written_into_argument, written_into_shared = map(compiled_only, ("written_into_argument", "written_into_shared"))
# `s -= v` where s was taken from an argument (`s = x`): the caller's object when it is an array (rules/helpers.py)
not_the_callers = compiled_only("not_the_callers")


def _rebound(old) -> bool:
    """A number, which ``op=`` rebinds: nothing else sees it change. (On an array the NumPy path refuses
    the write, which the caller or the other name would see: no implementation, and that path says so.)"""
    return isinstance(old, (types.Float, types.Integer))


@overload(written_into_argument)
def _written_into_argument(new, old, name):
    if _rebound(old):
        return lambda new, old, name: new
    return None


@overload(written_into_shared)
def _written_into_shared(new, old, name, other):
    if _rebound(old):
        return lambda new, old, name, other: new
    return None


@overload(not_the_callers)
def _not_the_callers(value, owner, spelled, owner_name):
    if _rebound(value):
        return lambda value, owner, spelled, owner_name: None
    return None

# ---------------------------------------------------------------------------- np.array of a list of numbers

def _numbers(t) -> bool:
    """A list or tuple of real scalars (what ``np.array([a, b, c])`` is made of)."""
    if isinstance(t, types.List):
        return real(t.dtype)
    # a tuple (``for_numba`` writes one for a list only read): its ints are floats in a list Numba types
    return isinstance(t, types.BaseTuple) and any(real(item) for item in t) \
        and all(real(item) or isinstance(item, types.Integer) for item in t)


@overload(array_vjp_object)
def _array_vjp_object(g, ans, obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None):
    """The cotangent of the list in ``np.array(list)``: one per element, as the 1-d array ``g``
    (``split_cotangent`` reads it element by element)."""
    if real_array(g) and g.ndim == 1 and _numbers(obj) and absent(dtype):
        def elements(g, ans, obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None):
            if ndmin > 1 or g.size != len(obj):
                raise NotCompiledCase("np.array of a list with ndmin")
            return g
        return elements
    return None


@overload(split_cotangent)
def _split_cotangent(g, count):
    """The cotangents of a sequence's elements from the cotangent of the whole (a 1-d array here)."""
    if real_array(g) and g.ndim == 1:
        def parts(g, count):
            if g.size != count:
                raise NotCompiledCase("a cotangent of another length than its sequence")
            return g
        return parts
    return None


# ---------------------------------------------------------------------------- np.max, np.min of a whole array

def _extreme_vjp(g, ans, a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """The cotangent of ``np.max(a)`` (or ``np.min``), the whole array: shared equally among the
    elements equal to the extreme (the rule's convention: its sum is ``g``)."""
    if not (real(g) and real(ans) and real_array(a) and absent(axis) and absent(out) and absent(initial)
            and isinstance(where, (types.Boolean, types.Omitted))):
        return None

    kind = a.dtype  # the rule's share: g spread as `a` (its dtype) over the count in that dtype

    def shared(g, ans, a, axis=None, out=None, keepdims=False, initial=None, where=True):
        if not where:
            raise NotCompiledCase("a reduction over nothing")
        winners = a == ans
        count = max(np.sum(winners), 1)
        return np.where(winners, kind(g) / kind(count), kind(0.0))
    return shared


overload(max_vjp_a)(_extreme_vjp)
overload(min_vjp_a)(_extreme_vjp)


# ---------------------------------------------------------------------------- an array seen along one axis
# A reduction, or a split of a cotangent, along one axis of a C-ordered array reads it as three
# axes (before, along, after): element (o, j, i) is the j-th along the axis at position (o, i) of
# the others. The reductions below, their pullbacks and the splits of concatenate's cotangent all
# walk that view, so one loop serves any number of dimensions and any axis.

def _float64_array(t) -> bool:
    return real_array(t) and t.dtype == types.float64


@register_jitable
def _along(a, axis):
    """``a`` as (before, along, after), ``axis`` (negative counts from the end) in the middle."""
    ndim = a.ndim
    if axis < -ndim or axis >= ndim:
        raise NotCompiledCase("an axis out of range")  # NumPy's AxisError: the NumPy path raises it
    axis = axis % ndim
    before = 1
    after = 1
    for i in range(axis):
        before *= a.shape[i]
    for i in range(axis + 1, ndim):
        after *= a.shape[i]
    return np.ascontiguousarray(a).reshape((before, a.shape[axis], after))


@overload(_three)
def _three_overload(a, axis):
    """``a`` as (before, along, after) for ``axis``; no axis: every element along one."""
    if absent(axis):
        return lambda a, axis: np.ascontiguousarray(a).reshape((1, a.size, 1))
    if isinstance(axis, types.Integer):
        return lambda a, axis: _along(a, axis)
    return None


@overload(_reduced_shape)
def _reduced_shape_overload(shape, axis, kept):
    """The shape of a reduction of an array of ``shape`` over ``axis`` (None: all), as an array:
    the axis kept as 1 (``keepdims``) or left out."""
    if absent(axis):
        return lambda shape, axis, kept: np.ones(len(shape) if kept else 0, np.int64)

    def along(shape, axis, kept):
        ndim = len(shape)
        reduced = axis % ndim
        out = np.empty(ndim if kept else ndim - 1, np.int64)
        k = 0
        for i in range(ndim):
            if i != reduced or kept:
                out[k] = 1 if i == reduced else shape[i]
                k += 1
        return out
    return along


@overload(_flat)
def _flat_overload(v):
    """A reduction's value or cotangent (a float where it has no axes left) as a 1-d array."""
    if real(v):
        return lambda v: np.full(1, v)
    if real_array(v):
        return lambda v: np.ascontiguousarray(v).reshape(v.size)
    return None


# ---------------------------------------------------------------------------- np.sum, mean, prod, max, min, var, std along an axis
# As NumPy reduces: from the first element along the axis, in the axis's order (a sum of -0.0 is
# -0.0); max and min keep the later of equal elements, as NumPy's do, and a NaN once met. Each
# takes the (before, along, after) view and ``ddof`` (var's and std's divisor is n - ddof; the
# others read no ddof).

def _folding(combine, empty):
    """The kernel folding each line along the axis with ``combine(so_far, element)`` from its first
    element; a line of no elements gives ``empty`` (None: NumPy raises, and so does the NumPy path)."""
    refuses, fill = empty is None, 0.0 if empty is None else empty

    @register_jitable
    def fold(three, ddof=0):
        before, n, after = three.shape
        if n == 0:
            if refuses:
                raise NotCompiledCase("a maximum or minimum of nothing")
            return np.full(before * after, fill)
        out = np.empty(before * after)
        for o in range(before):
            for i in range(after):
                out[o * after + i] = three[o, 0, i]
            for j in range(1, n):
                for i in range(after):
                    out[o * after + i] = combine(out[o * after + i], three[o, j, i])
        return out
    return fold


_sum_along = _folding(register_jitable(lambda total, v: total + v), 0.0)
_prod_along = _folding(register_jitable(lambda product, v: product * v), 1.0)
_max_along = _folding(register_jitable(lambda best, v: v if v >= best or v != v else best), None)
_min_along = _folding(register_jitable(lambda best, v: v if v <= best or v != v else best), None)


@register_jitable
def _mean_along(three, ddof=0):
    return _sum_along(three) / three.shape[1]  # over nothing: NaN, and the NumPy path answers


@register_jitable
def _var_along(three, ddof=0):
    """NumPy's var: the mean (sum / n), then the sum of the squared deviations, over n - ddof."""
    before, n, after = three.shape
    means = _mean_along(three)
    out = np.zeros(before * after)
    for o in range(before):
        for j in range(n):
            for i in range(after):
                deviation = three[o, j, i] - means[o * after + i]
                out[o * after + i] += deviation * deviation
    return out / max(n - ddof, 0)  # nothing left to divide by: inf or NaN, and the NumPy path answers


@register_jitable
def _std_along(three, ddof=0):
    return np.sqrt(_var_along(three, ddof))


def _kept(keepdims):
    """``keepdims`` as it compiles: True or False, or None where it is not a constant."""
    if isinstance(keepdims, bool):   # left to its default
        return keepdims
    if isinstance(keepdims, types.Omitted):
        return keepdims.value
    if isinstance(keepdims, types.BooleanLiteral):
        return keepdims.literal_value
    return None


@functools.lru_cache(maxsize=None)
def _reducer(kernel, kept: bool, ndim: int):
    """``reduce(a, axis, ddof)``: ``kernel``'s values in the shape NumPy gives (a float for none)."""
    if ndim == 0:
        def reduce(a, axis, ddof):
            return kernel(_three(a, axis), ddof)[0]
    else:
        def reduce(a, axis, ddof):
            return kernel(_three(a, axis), ddof).reshape(to_fixed_tuple(_reduced_shape(a.shape, axis, kept), ndim))
    return register_jitable(reduce)


def _reduction(kernel, a, axis, keepdims, unused, where):
    """The ``reduce(a, axis, ddof)`` of a reduction called with these types, or None: a float64 array,
    an int axis or none, ``keepdims`` a constant, nothing else (``dtype``, ``out``, ``initial``,
    ``where``) given."""
    kept = _kept(keepdims)
    if not (_float64_array(a) and (absent(axis) or isinstance(axis, types.Integer)) and kept is not None
            and all(absent(t) for t in unused) and (where is True or isinstance(where, types.Omitted))):
        return None
    ndim = a.ndim if kept else 0 if absent(axis) else a.ndim - 1
    return _reducer(kernel, kept, ndim)


def _summing(kernel):
    """The overload of np.sum or np.prod (their parameters) reducing with ``kernel``."""
    def overloaded(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        reduce = _reduction(kernel, a, axis, keepdims, (dtype, out, initial), where)
        if reduce is None:
            return None
        return lambda a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True: reduce(a, axis, 0)
    return overloaded


def _extreme(kernel):
    """The overload of np.max or np.min (their parameters)."""
    def overloaded(a, axis=None, out=None, keepdims=False, initial=None, where=True):
        reduce = _reduction(kernel, a, axis, keepdims, (out, initial), where)
        if reduce is None:
            return None
        return lambda a, axis=None, out=None, keepdims=False, initial=None, where=True: reduce(a, axis, 0)
    return overloaded


@overload(reduce_mean, prefer_literal=True)
def _reduce_mean(a, axis=None, dtype=None, out=None, keepdims=False, where=True):
    reduce = _reduction(_mean_along, a, axis, keepdims, (dtype, out), where)
    if reduce is None:
        return None
    return lambda a, axis=None, dtype=None, out=None, keepdims=False, where=True: reduce(a, axis, 0)


def _spreading(kernel):
    """The overload of np.var or np.std (their parameters; ``mean`` and ``correction`` not given)."""
    def overloaded(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True, mean=None,
                   correction=None):
        reduce = _reduction(kernel, a, axis, keepdims, (dtype, out, mean, correction), where)
        if reduce is None or not isinstance(ddof, (int, types.Integer)):
            return None
        return lambda a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True, mean=None, \
            correction=None: reduce(a, axis, ddof)
    return overloaded


overload(reduce_var, prefer_literal=True)(_spreading(_var_along))
overload(reduce_std, prefer_literal=True)(_spreading(_std_along))
overload(reduce_sum, prefer_literal=True)(_summing(_sum_along))
overload(reduce_prod, prefer_literal=True)(_summing(_prod_along))
overload(reduce_max, prefer_literal=True)(_extreme(_max_along))
overload(reduce_min, prefer_literal=True)(_extreme(_min_along))


# ---------------------------------------------------------------------------- their pullbacks along an axis

@overload(expand_reduced)
def _expand_reduced_more(g, a, axis=None, keepdims=False, where=True):
    """expand_reduced's cases the first overload leaves: a 1-d array reduced along its axis to a
    float (``np.sum(x, axis=0)``), a whole array reduced with keepdims (``np.sum(x, keepdims=True)``)."""
    if not (isinstance(where, (types.Boolean, types.Omitted)) and real_array(a)):
        return None
    if isinstance(axis, types.Integer) and real(g) and a.ndim == 1:
        def along_the_only_axis(g, a, axis=None, keepdims=False, where=True):
            if axis < -1 or axis > 0:
                raise NotCompiledCase("an axis out of range")
            return np.full(a.shape, g if where else 0.0, a.dtype)
        return along_the_only_axis
    if absent(axis) and real_array(g) and g.ndim == a.ndim:
        def kept(g, a, axis=None, keepdims=False, where=True):
            if g.size != 1:
                raise NotCompiledCase("a reduction's cotangent of another shape")
            return np.full(a.shape, _flat(g)[0] if where else 0.0, a.dtype)
        return kept
    return None


def _reduced_value(t) -> bool:
    return real(t) or real_array(t)


@register_jitable
def _shared_along(g, ans, a, axis):
    """The cotangent of ``np.max(a, axis)`` (or min): ``g`` shared equally among the elements equal
    to the extreme along the axis (extreme_vjp's rule), 0 elsewhere."""
    three = _three(a, axis)
    before, n, after = three.shape
    gs, answers = _flat(g), _flat(ans)
    if gs.size != before * after or answers.size != before * after:
        raise NotCompiledCase("a reduction's cotangent of another shape")
    out = np.zeros(three.shape, a.dtype)
    for o in range(before):
        for i in range(after):
            k = o * after + i
            count = 0
            for j in range(n):
                if three[o, j, i] == answers[k]:
                    count += 1
            if count:
                share = gs[k] / count
                for j in range(n):
                    if three[o, j, i] == answers[k]:
                        out[o, j, i] = share
    return out.reshape(a.shape)


def _extreme_vjp_along(g, ans, a, axis=None, out=None, keepdims=False, initial=None, where=True):
    """The cotangent of ``np.max(a, axis=k)``, with or without keepdims (the whole array to a
    float is ``_extreme_vjp``'s)."""
    if not (_reduced_value(g) and _reduced_value(ans) and _float64_array(a) and not (real(g) and absent(axis))
            and (absent(axis) or isinstance(axis, types.Integer)) and absent(out) and absent(initial)
            and isinstance(where, (types.Boolean, types.Omitted))):
        return None

    def shared(g, ans, a, axis=None, out=None, keepdims=False, initial=None, where=True):
        if not where:
            raise NotCompiledCase("a reduction over nothing")
        return _shared_along(g, ans, a, axis)
    return shared


for _extreme_stub in (max_vjp_a, min_vjp_a, amax_vjp_a, amin_vjp_a):
    overload(_extreme_stub)(_extreme_vjp_along)
overload(amax_vjp_a)(_extreme_vjp)
overload(amin_vjp_a)(_extreme_vjp)


@overload(prod_vjp_a)
def _prod_vjp_a(g, ans, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
    """The cotangent of ``np.prod(a)`` (or along an axis): ``g`` times the product of the other
    elements, from products of those before and of those after, multiplied in the order of the
    rule's exclusive cumulative products (exact at zeros: nothing is divided)."""
    if not (_reduced_value(g) and _float64_array(a) and (absent(axis) or isinstance(axis, types.Integer))
            and absent(dtype) and absent(out) and absent(initial) and isinstance(where, (types.Boolean, types.Omitted))):
        return None

    def others(g, ans, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        if not where:
            raise NotCompiledCase("a product over nothing")
        three = _three(a, axis)
        before, n, after = three.shape
        gs = _flat(g)
        if gs.size != before * after:
            raise NotCompiledCase("a reduction's cotangent of another shape")
        result = np.empty(three.shape, a.dtype)
        earlier = np.empty(n, a.dtype)
        for o in range(before):
            for i in range(after):
                running = 1.0
                for j in range(n):
                    earlier[j] = running
                    running = running * three[o, j, i]
                running = 1.0
                for j in range(n - 1, -1, -1):
                    result[o, j, i] = gs[o * after + i] * (earlier[j] * running)
                    running = running * three[o, j, i]
        return result.reshape(a.shape)
    return others


def _spread_vjp(standard: bool):
    """The overload of var_vjp_a (``standard``: std_vjp_a): ``g * (a - mean) * 2 / (n - ddof)``
    (std's: ``g * (a - mean)`` over ``std * (n - ddof)``, 0 where that is 0), as the rules
    compute it, along an axis or of the whole array."""
    def overloaded(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True, mean=None,
                   correction=None):
        if not (_reduced_value(g) and _reduced_value(ans) and _float64_array(a)
                and (absent(axis) or isinstance(axis, types.Integer)) and isinstance(ddof, (int, types.Integer))
                and all(absent(t) for t in (dtype, out, mean, correction))
                and isinstance(where, (types.Boolean, types.Omitted))):
            return None

        def spread(g, ans, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=True, mean=None,
                   correction=None):
            if not where:
                raise NotCompiledCase("a spread over nothing")
            three = _three(a, axis)
            before, n, after = three.shape
            gs, answers, means = _flat(g), _flat(ans), _mean_along(three)
            if gs.size != before * after or answers.size != before * after:
                raise NotCompiledCase("a reduction's cotangent of another shape")
            result = np.empty(three.shape, a.dtype)
            count = n - ddof
            for o in range(before):
                for i in range(after):
                    k = o * after + i
                    for j in range(n):
                        centred = three[o, j, i] - means[k]
                        if standard:
                            result[o, j, i] = safe_divide(gs[k] * centred, answers[k] * count)
                        else:
                            result[o, j, i] = gs[k] * centred * (2 / count)
            return result.reshape(a.shape)
        return spread
    return overloaded


overload(var_vjp_a)(_spread_vjp(standard=False))
overload(std_vjp_a)(_spread_vjp(standard=True))


@overload(trace_vjp_a)
def _trace_vjp_a(g, ans, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The cotangent of ``np.trace(a, offset)`` of a matrix: ``g`` on the diagonal it summed."""
    if not (real(g) and _float64_array(a) and a.ndim == 2 and isinstance(offset, types.Integer)
            and isinstance(axis1, types.Integer) and isinstance(axis2, types.Integer) and absent(dtype)
            and absent(out)):
        return None

    def on_the_diagonal(g, ans, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        if axis1 % 2 != 0 or axis2 % 2 != 1:
            raise NotCompiledCase("a trace over other axes")
        return g * np.eye(a.shape[0], a.shape[1], offset)  # as the rule: g times the identity's diagonal
    return on_the_diagonal


# ---------------------------------------------------------------------------- np.concatenate, stack, hstack, vstack

def array_sequence(t) -> bool:
    """A tuple of float64 arrays (for_numba makes a list literal passed to np.concatenate one), or
    a list of them (built by ``append`` in a loop, or a literal the tape keeps too)."""
    return isinstance(t, types.BaseTuple) and len(t) > 0 and all(_float64_array(x) for x in t) or array_list(t)


# np.concatenate and np.stack of a list (Numba's compile tuples only): for_numba calls these where
# the sequence is a name, not a literal; a tuple goes to Numba's own
numpy_concatenate, numpy_stack = map(compiled_only, ("numpy_concatenate", "numpy_stack"))


@register_jitable
def _joined_list(arrays, axis, stacked):
    """The arrays of a list joined along ``axis`` (``stacked``: along a new axis there), as
    NumPy's concatenate and stack join them, seen as (before, along, after), and the shape NumPy
    gives; shapes NumPy would refuse go to the NumPy path, which raises NumPy's error."""
    if len(arrays) == 0:
        raise NotCompiledCase("no arrays to join")
    first = arrays[0]
    ndim = first.ndim + 1 if stacked else first.ndim
    if axis < -ndim or axis >= ndim:
        raise NotCompiledCase("an axis out of range")
    axis = axis % ndim
    sizes = np.empty(len(arrays), np.int64)
    for k in range(len(arrays)):
        a = arrays[k]
        if stacked and a.shape != first.shape:
            raise NotCompiledCase("arrays of different shapes stacked")
        for i in range(first.ndim):
            if not stacked and i != axis and a.shape[i] != first.shape[i]:
                raise NotCompiledCase("arrays joined whose other axes differ")
        sizes[k] = 1 if stacked else a.shape[axis]
    shape = np.empty(ndim, np.int64)
    for i in range(ndim):
        if stacked:
            shape[i] = len(arrays) if i == axis else first.shape[i if i < axis else i - 1]
        else:
            shape[i] = sizes.sum() if i == axis else first.shape[i]
    before = 1
    after = 1
    for i in range(axis):
        before *= shape[i]
    for i in range(axis + 1, ndim):
        after *= shape[i]
    out = np.empty((before, sizes.sum(), after), first.dtype)
    start = 0
    for k in range(len(arrays)):
        out[:, start:start + sizes[k], :] = np.ascontiguousarray(arrays[k]).reshape((before, sizes[k], after))
        start += sizes[k]
    return out, shape


def _joining(stacked: bool):
    def overloaded(arrays, axis=0):
        if not (isinstance(axis, (types.Integer, types.Omitted)) or axis == 0):
            return None
        if isinstance(arrays, types.BaseTuple) and array_sequence(arrays):  # Numba's own
            if stacked:
                return lambda arrays, axis=0: np.stack(arrays, axis)
            return lambda arrays, axis=0: np.concatenate(arrays, axis)
        if array_list(arrays):
            ndim = arrays.dtype.ndim + stacked

            def joined(arrays, axis=0):
                three, shape = _joined_list(arrays, axis, stacked)
                return three.reshape(to_fixed_tuple(shape, ndim))
            return joined
        return None
    return overloaded


overload(numpy_concatenate)(_joining(stacked=False))
overload(numpy_stack)(_joining(stacked=True))


@register_jitable
def _cut_three(g, axis):
    """``g`` seen along ``axis`` (``_along``), for a join's cotangent to be cut from."""
    three = _along(g, axis)
    if three.shape[0] * three.shape[2] == 0:
        raise NotCompiledCase("a cotangent of an empty array")
    return three


@register_jitable
def _piece(three, start, like):
    """The part of the cotangent ``three`` from ``start`` along its axis that was ``like``'s, in
    its shape, and where the next part starts."""
    before, total, after = three.shape
    size = like.size // (before * after)
    if size * before * after != like.size or start + size > total:
        raise NotCompiledCase("a joined array's cotangent of another shape")
    return three[:, start:start + size, :].copy().reshape(like.shape), start + size


@register_jitable
def _all_cut(three, stop):
    if stop != three.shape[1]:
        raise NotCompiledCase("a joined array's cotangent of another shape")


@register_jitable
def _pieces(g, arrays, axis):
    """The cotangent ``g`` of the arrays joined along ``axis`` of ``g``, cut back into a list of
    one cotangent per array, each of its array's shape (a stacked array is one along the axis)."""
    three = _cut_three(g, axis)
    pieces = []
    start = 0
    for like in literal_unroll(arrays):
        piece, start = _piece(three, start, like)
        pieces.append(piece)
    _all_cut(three, start)
    return pieces


@register_jitable
def list_pieces(g, arrays, axis):
    """``_pieces`` for a list of arrays (read by index: literal_unroll walks tuples)."""
    three = _cut_three(g, axis)
    pieces = []
    start = 0
    for k in range(len(arrays)):
        piece, start = _piece(three, start, arrays[k])
        pieces.append(piece)
    _all_cut(three, start)
    return pieces


def _served_join(g, arrays) -> bool:
    """A join's cotangent and sequence the overloads below cut: float64 throughout, or a list of
    float32 arrays and a float32 cotangent (the list's join is ``_joined_list``'s, of any real dtype)."""
    if array_list(arrays):
        return real_array(g) and g.dtype == arrays.dtype.dtype
    return _float64_array(g) and array_sequence(arrays)


def _cut(arrays):
    """What cuts a join's cotangent back for this sequence's type: ``_pieces`` or ``list_pieces``."""
    return list_pieces if array_list(arrays) else _pieces


@overload(concatenate_vjp_arrays)
def _concatenate_vjp(g, ans, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    if _served_join(g, arrays) and isinstance(axis, types.Integer) and absent(out) and absent(dtype):
        cut = _cut(arrays)
        return lambda g, ans, arrays, axis=0, out=None, dtype=None, casting="same_kind": cut(g, arrays, axis)
    return None  # axis=None (the arrays flattened): the NumPy path


@overload(stack_vjp_arrays)
def _stack_vjp(g, ans, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    if _served_join(g, arrays) and isinstance(axis, types.Integer) and absent(out) and absent(dtype):
        cut = _cut(arrays)
        return lambda g, ans, arrays, axis=0, out=None, dtype=None, casting="same_kind": cut(g, arrays, axis)
    return None


# ---------------------------------------------------------------------------- `type(x) is float`
# A rule's test telling a Python float from NumPy's values (the builtin abs's slope is
# ``(x > 0) - (x < 0)`` of a Python float, ``np.sign(x)`` else). An array is never a float; a float64
# is `x == x`, as in the float version (the two slopes differ at NaN alone, where np.sign's NaN sends
# the call to the NumPy path); other types (a float32 scalar) find no implementation: the NumPy path.
is_python_float = compiled_only("is_python_float")


@overload(is_python_float)
def _is_python_float(x):
    if real_array(x):
        return lambda x: False
    if x == types.float64:
        return lambda x: x == x
    return None


# Python's abs, which Numba has of numbers but not of arrays: for_numba writes ``abs(x)`` as
# ``builtin_abs(abs, x)``, so that the name is typed as it is bound. Numba types the builtin as its
# Function; a function of the user's named abs is not typed so, finds no implementation here, and the
# NumPy path calls it. Of a float, an int and an array np.abs is abs's number, of abs's type.
builtin_abs = compiled_only("builtin_abs")


@overload(builtin_abs)
def _builtin_abs(f, x):
    if isinstance(f, types.Function) and f.typing_key is builtins.abs \
            and (real_array(x) or isinstance(x, (types.Float, types.Integer))):
        return lambda f, x: np.abs(x)
    return None


# ---------------------------------------------------------------------------- np.squeeze(x, axis=...)
numpy_squeeze = compiled_only("numpy_squeeze")


def _squeezed_axes(a, axis):
    """The axes ``np.squeeze(a, axis)`` drops, when the call names them by literals in range (the
    result's rank must be known as Numba types it); None otherwise (no axis: which axes have
    length one is known only at the call, so the NumPy path squeezes)."""
    if isinstance(axis, types.IntegerLiteral):
        given = (axis.literal_value,)
    elif isinstance(axis, types.BaseTuple) and len(axis) > 0 and all(isinstance(i, types.IntegerLiteral) for i in axis):
        given = tuple(i.literal_value for i in axis)
    else:
        return None
    if any(i < -a.ndim or i >= a.ndim for i in given):
        return None  # NumPy's AxisError, from the NumPy path
    axes = tuple(sorted({i % a.ndim for i in given}))
    return axes if len(axes) == len(given) else None  # an axis named twice: NumPy's ValueError


@overload(numpy_squeeze, prefer_literal=True)
def _numpy_squeeze(a, axis=None):
    """``np.squeeze(a, axis)``: a view of ``a`` without those axes of length one, as NumPy's. An axis
    of another length (NumPy's ValueError) and an array not C-contiguous (NumPy's result would be a
    view this reshape could not make) go to the NumPy path."""
    if not real_array(a):
        return None
    axes = _squeezed_axes(a, axis)
    if axes is None:
        return None
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    rank = len(kept)
    if rank == 0:
        return None  # a 0-d array: the NumPy path's

    def squeezed(a, axis=None):
        for i in axes:
            if a.shape[i] != 1:
                raise NotCompiledCase("an axis squeezed whose length is not one")
        if not a.flags.c_contiguous:
            raise NotCompiledCase("an array squeezed that is not C-contiguous")
        shape = np.empty(rank, np.int64)
        for j in range(rank):
            shape[j] = a.shape[kept[j]]
        return np.ascontiguousarray(a).reshape(to_fixed_tuple(shape, rank))
    return squeezed


@overload(numpy_squeeze)
def _numpy_squeeze_every_axis(a, axis=None):
    """``np.squeeze(a)`` (no axis, or None): the rank of NumPy's result is how many axes are longer
    than one, known only at the call; compiled code covers the one element of a ``keepdims=True``
    reduction of every axis (``logsumexp(x)``), NumPy's 0-d array, as its number (of its dtype)."""
    if not real_array(a) or not absent(axis):
        return None

    def number(a, axis=None):
        if a.size != 1:
            raise NotCompiledCase("np.squeeze of every axis of an array of more than one element")
        return a.flat[0]
    return number


# ``np.reshape(g, np.shape(a))`` (np.squeeze's pullback): of the number np.squeeze of every axis
# gave (above), the array of a's shape holding it
reshaped_like = compiled_only("reshaped_like")


@overload(reshaped_like)
def _reshaped_like(g, a):
    if real_array(a) and real(g):
        def holding(g, a):
            if a.size != 1:
                raise NotCompiledCase("a number reshaped to an array of more than one element")
            return np.full(a.shape, g)
        return holding
    return lambda g, a: np.reshape(g, np.shape(a))  # (what compiled code called before)


# the cotangent of a list built by ``append`` in a loop, taken apart in the reverse loop as the
# appends are undone (runtime/structure's item_of and prefix_of, for a list of arrays)
item_of, prefix_of = map(compiled_only, ("item_of", "prefix_of"))


@overload(item_of)
def _item_of_list(g, index):
    """The cotangent of ``items[index]``: of an array, a copy, as the NumPy path's (the list's may be
    written later); of a tuple (a list of ``(x, y)`` batches), the tuple, as the NumPy path's."""
    if isinstance(g, types.List) and (real_array(g.dtype) or items_of_a_layer(g.dtype)) and isinstance(index, types.Integer):
        if items_of_a_layer(g.dtype):
            return lambda g, index: g[index]
        return lambda g, index: g[index].copy()
    return None


@overload(prefix_of)
def _prefix_of_list(g, length):
    """The cotangent of the list's first ``length`` items (the list before an append): a new list."""
    if isinstance(g, types.List) and (real_array(g.dtype) or items_of_a_layer(g.dtype)) and isinstance(length, types.Integer):
        return lambda g, length: g[:length]
    return None


@overload(hstack_vjp_tup)
def _hstack_vjp(g, ans, tup, dtype=None, casting="same_kind"):
    if _float64_array(g) and array_sequence(tup) and not array_list(tup) and absent(dtype):
        axis = 0 if g.ndim == 1 else 1  # 1-d arrays are joined end to end, others side by side
        return lambda g, ans, tup, dtype=None, casting="same_kind": _pieces(g, tup, axis)
    return None


@overload(vstack_vjp_tup)
def _vstack_vjp(g, ans, tup, dtype=None, casting="same_kind"):
    if _float64_array(g) and array_sequence(tup) and not array_list(tup) and absent(dtype):
        return lambda g, ans, tup, dtype=None, casting="same_kind": _pieces(g, tup, 0)
    return None


@overload(zero_like)
def _zero_like_arrays(x):
    """The cotangent of a join's tuple that nothing reached: zeros in the list ``_pieces`` gives."""
    if array_list(x):
        return lambda x: [np.zeros(like.shape, like.dtype) for like in x]
    if array_sequence(x):
        def zeros(x):
            out = []
            for like in literal_unroll(x):
                out.append(np.zeros(like.shape, like.dtype))
            return out
        return zeros
    return None


@overload(split_cotangent)
def _split_cotangent_list(g, count):
    """The cotangents of the arrays a sequence joined (a list here, from ``_pieces``), or of a
    tuple's items from the tuple of them (``a, b = (np.sin(x), np.outer(x, x))``)."""
    if isinstance(g, types.List) and real_array(g.dtype) or items_of_a_layer(g):
        def parts(g, count):
            if len(g) != count:
                raise NotCompiledCase("a cotangent of another length than its sequence")
            return g
        return parts
    return None


@overload(nonzero)
def _nonzero_list(g):
    if isinstance(g, types.List) and real_array(g.dtype):
        def any_nonzero(g):
            for piece in g:
                if nonzero(piece):
                    return True
            return False
        return any_nonzero
    return None


# ---------------------------------------------------------------------------- np.dot(a, b)

@overload(dot_vjp_a)
def _dot_vjp_a(g, a, b):
    """The cotangent of ``a`` in ``np.dot(a, b)`` of real matrices and vectors: ``a @ b``'s (the
    rule's tensordot over the same axes); scalars and N-d arrays take the NumPy path."""
    if _matrix_or_vector(a) and _matrix_or_vector(b):
        return lambda g, a, b: matmul_vjp_x1(g, a, b)
    return None


@overload(dot_vjp_b)
def _dot_vjp_b(g, a, b):
    if _matrix_or_vector(a) and _matrix_or_vector(b):
        return lambda g, a, b: matmul_vjp_x2(g, a, b)
    return None


# ---------------------------------------------------------------------------- lists of tuples of arrays
# A network's layers as a list of (W, b) tuples: the cotangent of a tuple is the tuple of its
# items' cotangents, of a list the list of its items', as on the NumPy path. These overloads are
# registered beside the ones above (Numba tries each): they serve tuples of floats and arrays,
# and lists of such tuples, and nothing else.

def layers_of_arrays(value) -> bool:
    """Whether ``value`` is a list compiled code serves (called in Python, before the call): a
    non-empty list of tuples of C-contiguous float64 arrays, alike in their items' ranks (Numba
    types a list by one item type; a list it cannot type is not its to refuse)."""
    if value.__class__ is not list or not value:
        return False
    ranks = None
    for item in value:
        if item.__class__ is not tuple:
            return False
        for a in item:
            if not (a.__class__ is np.ndarray and a.dtype == np.float64 and a.ndim > 0 and a.flags.c_contiguous):
                return False
        found = tuple(a.ndim for a in item)
        if ranks is not None and found != ranks:
            return False
        ranks = found
    return True


def items_of_a_layer(t) -> bool:
    """A tuple of floats and float arrays (a layer's ``(W, b)``)."""
    return isinstance(t, types.BaseTuple) and len(t) > 0 and all(real(i) or real_array(i) for i in t.types)


def _list_of_items(t) -> bool:
    """A list of tuples of floats and arrays, or a tuple of them all alike (what the caller's list
    is handed to compiled code as: Numba unboxes a tuple at a fraction of a list's cost)."""
    return isinstance(t, (types.List, types.UniTuple)) and items_of_a_layer(t.dtype)


def per_item(parameters: str, item: str, count: int, special: dict | None = None):
    """The function of ``parameters`` returning a tuple of ``count`` items, item i written
    ``item`` with {i} replaced (or as ``special`` gives it): Numba builds a tuple from a fixed
    list of expressions, so the function is written for the tuple's length."""
    special = special or {}
    items = "".join(f"{special.get(i, item.format(i=i))}, " for i in range(count))
    namespace: dict = {}
    exec(f"def per_item({parameters}):\n    return ({items})\n", globals(), namespace)  # noqa: S102
    return namespace["per_item"]


@overload(zero_like, kept=False)
def _zero_like_of_items(x):
    if items_of_a_layer(x) and not _numbers(x):  # a tuple of numbers alone is np.array's list (below)
        return per_item("x", "zero_like(x[{i}])", len(x))
    if _list_of_items(x):
        return lambda x: [zero_like(item) for item in x]
    return None


@overload(nonzero)
def _nonzero_of_items(g):
    if items_of_a_layer(g) or _list_of_items(g):
        return lambda g: True  # a block that adds zeros gives what skipping it would
    return None


def _sum_of_items(a, b):
    if items_of_a_layer(a) and items_of_a_layer(b) and len(a) == len(b):
        return per_item("a, b", "accumulate(a[{i}], b[{i}])", len(a))
    if _list_of_items(a) and _list_of_items(b):
        def add(a, b):
            if len(a) != len(b):
                raise NotCompiledCase("two cotangents of one list with different lengths")
            return [accumulate(p, q) for p, q in zip(a, b)]
        return add
    return None


overload(accumulate, kept=False)(_sum_of_items)
overload(accumulate_into, kept=False)(_sum_of_items)  # a new tuple or list: the items' arrays are not written into


@overload(item_cotangent, kept=False)
def _item_cotangent(g, index, count, sequence):
    """The cotangent of a tuple of which item ``index`` alone was read (``W, b = layer``): that
    item's cotangent, zeros for the others. The index is a literal in the generated code."""
    if not items_of_a_layer(sequence) or not isinstance(index, types.IntegerLiteral):
        return None  # Numba asks again with the literal's type
    position = index.literal_value
    return per_item("g, index, count, sequence", "zero_like(sequence[{i}])", len(sequence), {position: "g"})


@overload(add_at)
def _add_at_item(a, g, index, like):
    """The cotangent of ``like[index]``, one tuple of a list, added into ``a``, the list's: a new list."""
    if _list_of_items(a) and items_of_a_layer(g) and isinstance(index, types.Integer) and _list_of_items(like):
        def add_item(a, g, index, like):
            total = a.copy()
            add_into(total, index, g)
            return total
        return add_item
    return None


@overload(add_into)
def _add_into_item(a, index, g):
    """The same into the list's cotangent where it is a buffer of its own (for_numba's ``add_into``)."""
    if _list_of_items(a) and isinstance(index, types.Integer) and items_of_a_layer(g):
        def add_item(a, index, g):
            a[index] = accumulate(a[index], g)
        return add_item
    return None


@overload(add_into)
def _add_into_items_of_a_slice(a, index, g):
    """The cotangent of ``layers[:-1]`` (a list of tuples sliced) into the whole list's, item by item."""
    if _list_of_items(a) and isinstance(index, types.SliceType) and _list_of_items(g):
        def add_items(a, index, g):
            start, stop, step = index.indices(len(a))
            if len(range(start, stop, step)) != len(g):
                raise NotCompiledCase("a slice's cotangent of another length")
            for k in range(len(g)):
                a[start + k * step] = accumulate(a[start + k * step], g[k])
        return add_items
    return None


@overload(untake)
def _untake_item(g, index, like):
    """The cotangent of the list ``like`` of which the tuple ``like[index]`` alone was read."""
    if items_of_a_layer(g) and isinstance(index, types.Integer) and _list_of_items(like):
        def untake_item(g, index, like):
            found = zero_like(like)
            found[index] = g
            return found
        return untake_item
    return None


@overload(zero_like)
def _zero_like_of_numbers(x):
    """The cotangent of the list in ``np.array([k, 0.5])`` before any reaches it: zeros, as the 1-d
    array ``array_vjp_object`` gives it (one type for the variable, as Numba asks)."""
    if _numbers(x):
        return lambda x: np.zeros(len(x))
    return None


# ---------------------------------------------------------------------------- what users write

@overload(item_cotangent)
def _item_cotangent_of_an_array(g, index, count, sequence):
    """The cotangent of an array unpacked (``alpha, beta = theta``) of which item ``index`` alone
    was read: ``g`` there, zeros elsewhere, as runtime/structure.item_cotangent gives for an array."""
    if real_array(sequence) and isinstance(index, types.Integer):
        return lambda g, index, count, sequence: untake(g, index, sequence)
    return None


array_reshape, array_reshape_pullback = map(compiled_only, ("array_reshape", "array_reshape_pullback"))


@overload(array_reshape)
def _array_reshape(receiver, *shape):
    """``x.reshape(2, -1)`` or ``x.reshape((2, -1))`` (no ``order``): its value, in C order as
    NumPy's, and the receiver's shape, which its pullback gives the cotangent back. Numba
    reshapes contiguous arrays alone: a strided receiver is copied first, as NumPy copies it."""
    if not real_array(receiver):
        return None
    if len(shape) == 1 and isinstance(shape[0], types.BaseTuple) \
            and all(isinstance(t, types.Integer) for t in shape[0]):
        return lambda receiver, *shape: (np.ascontiguousarray(receiver).reshape(shape[0]), (receiver.shape, shape))
    if shape and all(isinstance(t, types.Integer) for t in shape):
        return lambda receiver, *shape: (np.ascontiguousarray(receiver).reshape(shape), (receiver.shape, shape))
    return None


@overload(array_reshape_pullback, kept=False)
def _array_reshape_pullback(saved, g):
    """(0.0, the receiver's cotangent, 0.0 for each argument giving the shape): the receiver's is
    the value's in the receiver's shape (``np.reshape(g, np.shape(a))``, the rule's)."""
    if real_array(g):
        return per_item("saved, g", "0.0", 2 + len(saved[1]), {1: "np.ascontiguousarray(g).reshape(saved[0])"})
    return None


# ---------------------------------------------------------------------------- x.transpose(...), np.transpose(x, axes)
array_transpose, array_transpose_pullback, inverse_axes, numpy_ndim = map(compiled_only, (
    "array_transpose", "array_transpose_pullback", "inverse_axes", "numpy_ndim"))


@overload(numpy_ndim)
def _numpy_ndim(a):
    """``np.ndim(a)``, which Numba does not compile: an array's number of axes, a number's 0."""
    if isinstance(a, types.Array):
        return lambda a: a.ndim
    if isinstance(a, (types.Float, types.Integer)):
        return lambda a: 0
    return None


def _axes(t) -> bool:
    """A tuple of ints: the permutation ``transpose`` is given."""
    return isinstance(t, types.BaseTuple) and all(isinstance(item, types.Integer) for item in t)


@register_jitable
def _position_of(axes, axis, ndim):
    """Where ``axis`` is in the permutation ``axes`` (a negative one counts from the end, as
    NumPy's does): the axis of the transposed array that was the receiver's ``axis``."""
    for position in range(len(axes)):
        given = axes[position]
        if -ndim <= given < ndim and given % ndim == axis:
            return position
    raise ValueError("axes don't match array")


@overload(inverse_axes, kept=False)
def _inverse_axes(axes, ndim):
    """The rule's ``inverse_axes``: the permutation undoing ``np.transpose(a, axes)`` (None reverses
    the axes, and undoes itself). Written for the tuple's length (``per_item``)."""
    if isinstance(axes, types.NoneType):
        return lambda axes, ndim: None
    if _axes(axes):
        return per_item("axes, ndim", "_position_of(axes, {i}, ndim)", len(axes))
    return None


@overload(array_transpose)
def _array_transpose(receiver, *axes):
    """``x.transpose()``, ``x.transpose(1, 0, 2)`` or ``x.transpose((1, 0, 2))``: its value (a view, as
    NumPy's), and what its pullback reads: the permutation given (None: the axes reversed) and the
    arguments given, for the number of cotangents. Numba's transpose raises NumPy's ValueError for
    axes that are not a permutation of the receiver's."""
    if not real_array(receiver):
        return None
    if not axes:
        return lambda receiver, *axes: (receiver.T, (None, axes))
    if len(axes) == 1 and _axes(axes[0]):
        return lambda receiver, *axes: (np.transpose(receiver, axes[0]), (axes[0], axes))
    if all(isinstance(t, types.Integer) for t in axes):
        return lambda receiver, *axes: (np.transpose(receiver, axes), (axes, axes))
    return None


@overload(array_transpose_pullback, kept=False)
def _array_transpose_pullback(saved, g):
    """(0.0, the receiver's cotangent, 0.0 for each argument giving the axes): the receiver's is the
    value's transposed back (the rule's ``np.transpose(g, inverse_axes(axes, np.ndim(a)))``)."""
    if not real_array(g):
        return None
    count = 2 + len(saved[1])
    if isinstance(saved[0], types.NoneType):
        return per_item("saved, g", "0.0", count, {1: "g.T"})
    return per_item("saved, g", "0.0", count, {1: "np.transpose(g, inverse_axes(saved[0], g.ndim))"})


# ---------------------------------------------------------------------------- np.append
append_vjp_arr, append_vjp_values = map(compiled_only, ("append_vjp_arr", "append_vjp_values"))


@register_jitable
def _flat_part(g, start, size):
    """Elements ``start`` to ``start + size`` of ``g`` flattened in C order, a new array."""
    return np.ascontiguousarray(g).ravel()[start:start + size].copy()


def _appended_part(first: bool):
    """The overload of the rule's ``append_vjp_arr`` (``first``) or ``append_vjp_values``: the part of
    the cotangent ``g`` of ``np.append(arr, values, axis)`` that was the array's or the values'.
    Without an axis both were flattened, one after the other; along an axis they were joined as
    np.concatenate joins them (the same ``_pieces`` cut them back)."""
    def overloaded(g, ans, arr, values, axis=None):
        own = arr if first else values
        if not (_float64_array(g) and (_float64_array(arr) or real(arr)) and (_float64_array(values) or real(values))):
            return None
        if absent(axis) and first:
            if real(arr):  # a float appended to: its one element
                return lambda g, ans, arr, values, axis=None: _flat_part(g, 0, 1)[0]
            return lambda g, ans, arr, values, axis=None: _flat_part(g, 0, arr.size).reshape(arr.shape)
        if absent(axis):
            if real(values):
                return lambda g, ans, arr, values, axis=None: _flat_part(g, np.size(arr), 1)[0]
            return lambda g, ans, arr, values, axis=None: _flat_part(g, np.size(arr), values.size).reshape(values.shape)
        if isinstance(axis, types.Integer) and _float64_array(arr) and _float64_array(values) \
                and arr.ndim == values.ndim == g.ndim and _float64_array(own):
            index = 0 if first else 1
            return lambda g, ans, arr, values, axis=None: _pieces(g, (arr, values), axis)[index]
        return None
    return overloaded


overload(append_vjp_arr)(_appended_part(first=True))
overload(append_vjp_values)(_appended_part(first=False))

# ---------------------------------------------------------------------------- float32 as NumPy computes it
# NumPy 2 (NEP 50) keeps a float32 value float32 when a Python float or int meets it
# (``x * 0.5``, ``s + lam``, ``g / count``): the Python number is "weak", cast to float32 first.
# Numba types every Python float as float64 and widens (``x * 0.5`` of a float32 array is a float64
# array). ``for_numba`` (``weak_scalars``) writes ``weak(0.5, x) * x``: the constant as NumPy
# casts it, for the types this call has. And NumPy sums a float32 array pairwise, in eight
# running sums and halves of at most 128 elements (its ``pairwise_sum``), where Numba's ``np.sum``
# adds the elements one by one in float32 (34 ulps apart at 10**5 normal elements): ``numpy_sum``
# follows NumPy's order, so a float32 sum is NumPy's to the bit. (s2sad.compiled says where the
# rest of float32's acceptance is decided.)
numpy_sum, numpy_mean = map(compiled_only, ("numpy_sum", "numpy_mean"))


def _float32(t) -> bool:
    """A float32 scalar or array."""
    return t == types.float32 or isinstance(t, types.Array) and t.dtype == types.float32


@extending.intrinsic
def weak(typingcontext, number, other):
    """``number`` (a Python float or int: float64 or int64 to Numba) as NumPy casts it meeting
    ``other``: float32 where ``other`` is a float32 array or scalar (Numba's cast, as its
    ``np.float32(number)``); itself otherwise (a float64 or int array, or another Python number:
    NumPy computes in float64 there too)."""
    number, other = types.unliteral(number), types.unliteral(other)
    if isinstance(number, (types.Float, types.Integer)) and not isinstance(number, types.Boolean) \
            and _float32(other):
        def to_float32(context, builder, signature, args):
            return context.cast(builder, args[0], signature.args[0], types.float32)
        return types.float32(number, other), to_float32
    return number(number, other), _same


@register_jitable
def _block_sum(flat, start, n):
    """NumPy's ``pairwise_sum`` of at most 128 elements ``flat[start:start + n]``
    (numpy/_core/src/umath/loops_utils.h.src): one by one below 8; else eight running sums."""
    if n < 8:
        total = flat.dtype.type(-0.0)
        for i in range(start, start + n):
            total += flat[i]
        return total
    r0, r1, r2, r3 = flat[start], flat[start + 1], flat[start + 2], flat[start + 3]
    r4, r5, r6, r7 = flat[start + 4], flat[start + 5], flat[start + 6], flat[start + 7]
    i = 8
    while i < n - n % 8:
        k = start + i
        r0 += flat[k]
        r1 += flat[k + 1]
        r2 += flat[k + 2]
        r3 += flat[k + 3]
        r4 += flat[k + 4]
        r5 += flat[k + 5]
        r6 += flat[k + 6]
        r7 += flat[k + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for k in range(start + i, start + n):
        total += flat[k]
    return total


@register_jitable
def pairwise_sum(flat, start, n):
    """NumPy's ``pairwise_sum``: above 128 elements, the sum of the two halves' (the first a
    multiple of 8 long). Its recursion is walked with a stack (Numba types no recursive
    jitable): a task is a range to sum (``n >= 0``) or the adding of the last two sums (-1)."""
    starts = np.empty(256, np.int64)
    counts = np.empty(256, np.int64)
    sums = np.empty(256, flat.dtype)
    starts[0], counts[0] = start, n
    tasks, done = 1, 0
    while tasks:
        tasks -= 1
        first, count = starts[tasks], counts[tasks]
        if count < 0:
            done -= 1
            sums[done - 1] = sums[done - 1] + sums[done]
        elif count <= 128:
            sums[done] = _block_sum(flat, first, count)
            done += 1
        else:
            half = count // 2
            half -= half % 8
            starts[tasks], counts[tasks] = 0, -1                       # then add the two
            starts[tasks + 1], counts[tasks + 1] = first + half, count - half   # then the second half
            starts[tasks + 2], counts[tasks + 2] = first, half          # the first half first
            tasks += 3
    return sums[0]


@register_jitable
def _float32_sum(a):
    """``np.sum(a)`` of a float32 array as NumPy adds it: pairwise, in memory order (a C- or
    Fortran-ordered array is one run of elements to NumPy's reduction; a 1-d array any stride).
    Other layouts are summed by NumPy in an order not followed here: NotCompiledCase. (NumPy adds
    the pairwise sum to its identity, 0: a sum of -0.0s is 0.0.)"""
    zero = np.float32(0.0)
    if a.ndim == 1:
        return zero + pairwise_sum(a, 0, a.size)
    if a.flags.c_contiguous:
        return zero + pairwise_sum(a.ravel(), 0, a.size)
    if a.flags.f_contiguous:
        return zero + pairwise_sum(a.T.ravel(), 0, a.size)
    raise NotCompiledCase("a float32 sum of an array neither C- nor Fortran-ordered")


@overload(numpy_sum)
def _numpy_sum(a):
    if isinstance(a, types.Array) and a.dtype == types.float32:
        return lambda a: _float32_sum(a)
    if isinstance(a, types.Array) and a.dtype == types.float64 and a.ndim == 1 and a.layout == "C":
        def in_order(a):
            # Numba's np.sum of a vector, written out: from 0.0, one element after another (its
            # _numpy_sum, order "K"), so the same bits, without its axis checks to compile (0.13 s
            # of CPU of a cold first call)
            total = 0.0
            for k in range(a.size):
                total += a[k]
            return total
        return in_order
    return lambda a: np.sum(a)


@overload(numpy_mean)
def _numpy_mean(a):
    if isinstance(a, types.Array) and a.dtype == types.float32:
        return lambda a: _float32_sum(a) / np.float32(a.size)  # NumPy: the float32 sum over the count
    return lambda a: np.mean(a)

