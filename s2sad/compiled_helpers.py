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
import numpy as np
from numba import objmode
from numba.core import types
from numba.extending import overload, register_jitable

__all__ = ["NotCompiledCase", "shape_like", "matmul_vjp_x1_into", "conj", "unbroadcast", "accumulate", "expand_reduced", "reduced_count",
           "safe_divide", "matmul_vjp_x1", "matmul_vjp_x2", "add_into", "add_at", "untake", "tie_share", "nonzero", "zero_like",
           "accumulate_into", "array_sum", "array_sum_pullback", "array_mean", "array_mean_pullback", "array_dot",
           "array_dot_pullback", "array_T", "array_T_pullback", "power_vjp_base", "power_vjp_exponent", "written_into",
           "array_vjp_object", "split_cotangent", "max_vjp_a", "min_vjp_a", "item_cotangent", "layers_of_arrays",
           "numpy_tanh", "numpy_sinh", "numpy_tan", "numpy_arctan", "numpy_arcsinh", "numpy_log1p", "numpy_expm1",
           "numpy_cbrt", "numpy_log10", "numpy_exp", "numpy_log", "numpy_cosh", "numpy_log2", "numpy_exp2",
           "numpy_arctanh"]


class NotCompiledCase(Exception):
    """Raised by compiled code for a case it does not cover: the NumPy path computes this call."""


def _compiled_only(name: str):
    """The Python function Numba's overloads of ``name`` hang on (Numba keys an overload on the
    function object); called outside compiled code it raises."""
    def helper(*args, **kwargs):
        raise NotCompiledCase(f"s2sad's compiled helper {name} runs only inside Numba-compiled code")
    helper.__name__ = helper.__qualname__ = name
    return helper


conj, unbroadcast, accumulate, accumulate_into = map(_compiled_only, ("conj", "unbroadcast", "accumulate",
                                                                     "accumulate_into"))
expand_reduced, reduced_count, safe_divide = map(_compiled_only, ("expand_reduced", "reduced_count", "safe_divide"))
matmul_vjp_x1, matmul_vjp_x2 = map(_compiled_only, ("matmul_vjp_x1", "matmul_vjp_x2"))
add_into, add_at, untake, tie_share = map(_compiled_only, ("add_into", "add_at", "untake", "tie_share"))
nonzero, zero_like, _as_array = map(_compiled_only, ("nonzero", "zero_like", "_as_array"))
power_vjp_base, power_vjp_exponent, written_into = map(_compiled_only, ("power_vjp_base", "power_vjp_exponent",
                                                                       "written_into"))
array_vjp_object, split_cotangent = map(_compiled_only, ("array_vjp_object", "split_cotangent"))
max_vjp_a, min_vjp_a = map(_compiled_only, ("max_vjp_a", "min_vjp_a"))
item_cotangent = _compiled_only("item_cotangent")
# an array's methods and its .T: each gives its value and what its pullback reads, in place of
# method_rrule's value and pullback closure (``for_numba`` rewrites the calls)
array_sum, array_sum_pullback, array_mean, array_mean_pullback = map(_compiled_only, (
    "array_sum", "array_sum_pullback", "array_mean", "array_mean_pullback"))
array_dot, array_dot_pullback, array_T, array_T_pullback = map(_compiled_only, (
    "array_dot", "array_dot_pullback", "array_T", "array_T_pullback"))


# ---------------------------------------------------------------------------- the types served

def _real(t) -> bool:
    return isinstance(t, types.Float)


def _real_array(t) -> bool:
    return isinstance(t, types.Array) and isinstance(t.dtype, types.Float) and t.ndim > 0


def _shape_of(t) -> bool:
    """What ``shape_like`` gives for a real array: ``(its shape, a zero of its dtype)``, read in
    place of the array by helpers that need only its shape and dtype (``SHAPE_READERS``)."""
    return isinstance(t, types.Tuple) and len(t) == 2 and isinstance(t[0], types.UniTuple) and t[0].count > 0 \
        and isinstance(t[0].dtype, types.Integer) and _real(t[1])


def _absent(t) -> bool:
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


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


# ---------------------------------------------------------------------------- the overloads

@overload(conj)
def _conj(x):
    if _real(x) or _real_array(x) or isinstance(x, types.Integer):
        return lambda x: x  # real: its own conjugate
    return None


@overload(zero_like)
def _zero_like(x):
    if _shape_of(x):
        dtype = x[1]
        return lambda x: np.zeros(x[0], dtype)
    if _real(x):
        return lambda x: 0.0
    if _real_array(x):
        return lambda x: np.zeros(x.shape, x.dtype)
    return None


@overload(nonzero)
def _nonzero(g):
    """Whether a cotangent may contribute: the compiled form of ``g is not ZERO`` (a block for a
    cotangent of exact zeros is skipped, as the NumPy path skips one for its symbolic zero)."""
    if _real(g):
        return lambda g: g != 0.0
    if _real_array(g):
        def any_nonzero(g):
            for value in np.nditer(g):
                if value.item() != 0.0:
                    return True
            return False
        return any_nonzero
    return None


def _sum_of_cotangents(in_place: bool):
    """The overload of ``accumulate`` (a new value) or ``accumulate_into`` (written into the first,
    a cotangent's own buffer that nothing else reads): two cotangents of one value, added."""
    def overloaded(a, b):
        if _real(a) and _real(b):
            return lambda a, b: a + b
        if _real_array(a) and _real_array(b) and a.ndim == b.ndim and a.dtype == b.dtype:
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
        if _real_array(v) and v.ndim == like[0].count and v.dtype == like[1]:
            def same_rank_of_shape(v, like):
                if v.shape == like[0]:
                    return v
                return unbroadcast(v, _template(like))
            return same_rank_of_shape
        return lambda v, like: unbroadcast(v, _template(like))
    if _real(like):
        if _real(v):
            return lambda v, like: v
        if _real_array(v):
            return lambda v, like: np.sum(v)
        return None
    if not _real_array(like):
        return None
    if _real(v):
        return lambda v, like: np.full(like.shape, v, like.dtype)
    if not _real_array(v):
        return None
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
    if _real(a) and _real(g):
        return lambda g, a, axis=None, keepdims=False, where=True: g if where else 0.0
    if not _real_array(a):
        return None
    if _absent(axis) and _real(g):
        def full(g, a, axis=None, keepdims=False, where=True):
            return np.full(a.shape, g if where else 0.0, a.dtype)
        return full
    if isinstance(axis, types.Integer) and _real_array(g) and g.ndim in (a.ndim - 1, a.ndim):
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
    if _real_array(a) and _absent(axis):
        def size(a, axis=None, keepdims=False, where=True):
            if not where:
                raise NotCompiledCase("a mean over nothing")
            return a.size
        return size
    if _real_array(a) and isinstance(axis, types.Integer):
        def length(a, axis=None, keepdims=False, where=True):
            if not where:
                raise NotCompiledCase("a mean over nothing")
            return a.shape[axis % a.ndim]
        return length
    return None


@overload(safe_divide)
def _safe_divide(num, den):
    """``num / den``, but exactly 0 where ``num`` is 0 (even where ``den`` is 0 or NaN)."""
    if _real(num) and _real(den):
        def scalars(num, den):
            if num == 0.0:
                return 0.0
            if den == 0.0:
                return np.copysign(np.inf, num) * np.copysign(1.0, den)
            return num / den
        return scalars
    if _real_array(num) and (_real(den) or _real_array(den) and den.ndim == num.ndim):
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
    return _real_array(t) and t.ndim in (1, 2)


@overload(matmul_vjp_x1)
def _matmul_vjp_x1(g, x1, x2):
    """The cotangent of ``x1`` in ``x1 @ x2`` (real matrices and vectors, no batches)."""
    if not (_matrix_or_vector(x1) and _matrix_or_vector(x2)):
        return None
    if x1.ndim == 2 and x2.ndim == 2 and _real_array(g):
        return lambda g, x1, x2: g @ x2.T
    if x1.ndim == 2 and x2.ndim == 1 and _real_array(g):
        return lambda g, x1, x2: np.outer(g, x2)
    if x1.ndim == 1 and x2.ndim == 2 and _real_array(g):
        return lambda g, x1, x2: x2 @ g
    if x1.ndim == 1 and x2.ndim == 1 and _real(g):
        return lambda g, x1, x2: g * x2
    return None


@overload(matmul_vjp_x2)
def _matmul_vjp_x2(g, x1, x2):
    """The cotangent of ``x2`` in ``x1 @ x2``."""
    if not (_matrix_or_vector(x1) and _matrix_or_vector(x2)):
        return None
    if x1.ndim == 2 and _real_array(g):
        return lambda g, x1, x2: x1.T @ g
    if x1.ndim == 1 and x2.ndim == 2 and _real_array(g):
        return lambda g, x1, x2: np.outer(x1, g)
    if x1.ndim == 1 and x2.ndim == 1 and _real(g):
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
    if _real_array(buffer) and _basic_index(index):
        def add(buffer, index, g):
            buffer[index] += g
        return add
    return None


@overload(add_at)
def _add_at(a, g, index, like):
    """``a`` plus the cotangent of ``like[index]``, as a new array (``a`` may be another value's)."""
    if _shape_of(like):
        return lambda a, g, index, like: add_at(a, g, index, _template(like))
    if _real_array(a) and _real_array(like) and a.ndim == like.ndim and _basic_index(index):
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
    if _real_array(like) and _basic_index(index):
        def scattered(g, index, like):
            out = np.zeros(like.shape, like.dtype)
            out[index] = g
            return out
        return scattered
    return None


@overload(_as_array)
def _as_array_overload(v, like):
    """``v`` as an array of ``like``'s shape: a float is spread, an array is kept (shapes checked
    where it is read)."""
    if _real(v):
        return lambda v, like: np.full(like.shape, v)
    if _real_array(v):
        return lambda v, like: v
    return None


@overload(tie_share)
def _tie_share(g, x, other, ans):
    """``g`` where ``x`` won an elementwise max or min, half of it where ``x`` tied ``other``,
    0 where it lost (whatever ``g`` is there, as ``np.where`` gives)."""
    if _real(g) and _real(x) and _real(other) and _real(ans):
        def scalars(g, x, other, ans):
            if x != ans:
                return 0.0
            return g * 0.5 if x == other else g
        return scalars
    if _real_array(g) and all(_real(v) or _real_array(v) for v in (x, other, ans)):
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
    stub = _compiled_only(f"numpy_{name}")

    def overloaded(x):
        if not _real_array(x):
            return lambda x: ufunc(x)  # a float, or a type Numba's own ufunc decides about

        def by_numpy(x):
            if x.size < smallest:
                return ufunc(x)
            out = np.empty(x.shape, x.dtype)
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
shape_like, _template = map(_compiled_only, ("shape_like", "_template"))


@overload(shape_like)
def _shape_like(x):
    if _real_array(x):
        return lambda x: (x.shape, x.dtype.type(0))
    return lambda x: x  # a float is its own shape; other values are handed over as they are


@overload(_template)
def _template_overload(like):
    if _shape_of(like):
        dtype = like[1]
        return lambda like: np.empty(like[0], dtype)
    return None


# ---------------------------------------------------------------------------- W's cotangent in W @ h, added in place
# ``dW = accumulate_into(dW, matmul_vjp_x1(g, W, h))`` (an RNN's weights, step after step) makes
# np.outer(g, h), a new matrix, then adds it; ``matmul_vjp_x1_into`` adds g[i] * h[j] into dW
# where it is: the same products and sums (0.14 us against 0.63 us for 32 x 32).
matmul_vjp_x1_into = _compiled_only("matmul_vjp_x1_into")


@overload(matmul_vjp_x1_into)
def _matmul_vjp_x1_into(buffer, g, x1, x2):
    if _real_array(buffer) and buffer.ndim == 2 and _real_array(g) and g.ndim == 1 and _real_array(x1) \
            and x1.ndim == 2 and _real_array(x2) and x2.ndim == 1 and buffer.dtype == g.dtype == x2.dtype:
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
    return _absent(axis) or isinstance(axis, types.Integer)


@overload(array_sum)
def _array_sum(receiver, axis=None):
    if _real_array(receiver) and _absent(axis):
        return lambda receiver, axis=None: (np.sum(receiver), (receiver, None))
    if _real_array(receiver) and isinstance(axis, types.Integer):
        return lambda receiver, axis=None: (np.sum(receiver, axis), (receiver, axis))
    return None


@overload(array_sum_pullback)
def _array_sum_pullback(saved, g):
    return lambda saved, g: (0.0, expand_reduced(g, saved[0], saved[1], False, True))


@overload(array_mean)
def _array_mean(receiver, axis=None):
    if _real_array(receiver) and _absent(axis):
        return lambda receiver, axis=None: (np.sum(receiver) / receiver.size, (receiver, None))
    if _real_array(receiver) and isinstance(axis, types.Integer):
        def along(receiver, axis=None):
            return np.sum(receiver, axis) / receiver.shape[axis % receiver.ndim], (receiver, axis)
        return along
    return None


@overload(array_mean_pullback)
def _array_mean_pullback(saved, g):
    def pullback(saved, g):
        count = reduced_count(saved[0], saved[1], False, True)
        return 0.0, expand_reduced(g / count, saved[0], saved[1], False, True)
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


@overload(array_T)
def _array_T(receiver):
    if _real_array(receiver):
        return lambda receiver: (receiver.T, receiver)
    return None


@overload(array_T_pullback)
def _array_T_pullback(saved, g):
    if _real_array(g):
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
    if _real(g) and _real(x) and _number(y):
        def scalars(g, x, y):
            if g == 0.0 or y == 0:
                return 0.0
            return g * y * x ** (y - 1)
        return scalars
    if _real_array(g) and _real_array(x) and _number(y):
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
    if _real(g) and _real(x) and _real(y):
        def scalars(g, ans, x, y):
            if x > 0.0:
                return g * ans * np.log(x)
            return 0.0 if x == 0.0 else np.nan
        return scalars
    if _real_array(g) and (_real(x) or _real_array(x)) and (_real(y) or _real_array(y)):
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
    if not _real_array(old):
        return lambda new, old: new
    if _real_array(new) and new.ndim == old.ndim:
        def into(new, old):
            if new.shape != old.shape:
                raise NotCompiledCase("an in-place operation that would change an array's shape")
            return new if new.dtype == old.dtype else new.astype(old.dtype)
        return into
    return None


# ---------------------------------------------------------------------------- np.array of a list of numbers

def _numbers(t) -> bool:
    """A list or tuple of real scalars (what ``np.array([a, b, c])`` is made of)."""
    if isinstance(t, types.List):
        return _real(t.dtype)
    # a tuple (``for_numba`` writes one for a list only read): its ints are floats in a list Numba types
    return isinstance(t, types.BaseTuple) and any(_real(item) for item in t) \
        and all(_real(item) or isinstance(item, types.Integer) for item in t)


@overload(array_vjp_object)
def _array_vjp_object(g, ans, obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None):
    """The cotangent of the list in ``np.array(list)``: one per element, as the 1-d array ``g``
    (``split_cotangent`` reads it element by element)."""
    if _real_array(g) and g.ndim == 1 and _numbers(obj) and _absent(dtype):
        def elements(g, ans, obj, dtype=None, copy=True, order="K", subok=False, ndmin=0, ndmax=0, like=None):
            if ndmin > 1 or g.size != len(obj):
                raise NotCompiledCase("np.array of a list with ndmin")
            return g
        return elements
    return None


@overload(split_cotangent)
def _split_cotangent(g, count):
    """The cotangents of a sequence's elements from the cotangent of the whole (a 1-d array here)."""
    if _real_array(g) and g.ndim == 1:
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
    if not (_real(g) and _real(ans) and _real_array(a) and _absent(axis) and _absent(out) and _absent(initial)
            and isinstance(where, (types.Boolean, types.Omitted))):
        return None

    def shared(g, ans, a, axis=None, out=None, keepdims=False, initial=None, where=True):
        if not where:
            raise NotCompiledCase("a reduction over nothing")
        winners = a == ans
        count = max(np.sum(winners), 1)
        return np.where(winners, g / count, 0.0)
    return shared


overload(max_vjp_a)(_extreme_vjp)
overload(min_vjp_a)(_extreme_vjp)


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


def _items(t) -> bool:
    return isinstance(t, types.BaseTuple) and len(t) > 0 and all(_real(i) or _real_array(i) for i in t.types)


def _list_of_items(t) -> bool:
    """A list of tuples of floats and arrays, or a tuple of them all alike (what the caller's list
    is handed to compiled code as: Numba unboxes a tuple at a fraction of a list's cost)."""
    return isinstance(t, (types.List, types.UniTuple)) and _items(t.dtype)


def _per_item(parameters: str, item: str, count: int, special: dict | None = None):
    """The function of ``parameters`` returning a tuple of ``count`` items, item i written
    ``item`` with {i} replaced (or as ``special`` gives it): Numba builds a tuple from a fixed
    list of expressions, so the function is written for the tuple's length."""
    special = special or {}
    items = "".join(f"{special.get(i, item.format(i=i))}, " for i in range(count))
    namespace: dict = {}
    exec(f"def per_item({parameters}):\n    return ({items})\n", globals(), namespace)  # noqa: S102
    return namespace["per_item"]


@overload(zero_like)
def _zero_like_of_items(x):
    if _items(x) and not _numbers(x):  # a tuple of numbers alone is np.array's list (below)
        return _per_item("x", "zero_like(x[{i}])", len(x))
    if _list_of_items(x):
        return lambda x: [zero_like(item) for item in x]
    return None


@overload(nonzero)
def _nonzero_of_items(g):
    if _items(g) or _list_of_items(g):
        return lambda g: True  # a block that adds zeros gives what skipping it would
    return None


def _sum_of_items(a, b):
    if _items(a) and _items(b) and len(a) == len(b):
        return _per_item("a, b", "accumulate(a[{i}], b[{i}])", len(a))
    if _list_of_items(a) and _list_of_items(b):
        def add(a, b):
            if len(a) != len(b):
                raise NotCompiledCase("two cotangents of one list with different lengths")
            return [accumulate(p, q) for p, q in zip(a, b)]
        return add
    return None


overload(accumulate)(_sum_of_items)
overload(accumulate_into)(_sum_of_items)  # a new tuple or list: the items' arrays are not written into


@overload(item_cotangent)
def _item_cotangent(g, index, count, sequence):
    """The cotangent of a tuple of which item ``index`` alone was read (``W, b = layer``): that
    item's cotangent, zeros for the others. The index is a literal in the generated code."""
    if not _items(sequence) or not isinstance(index, types.IntegerLiteral):
        return None  # Numba asks again with the literal's type
    position = index.literal_value
    return _per_item("g, index, count, sequence", "zero_like(sequence[{i}])", len(sequence), {position: "g"})


@overload(add_at)
def _add_at_item(a, g, index, like):
    """The cotangent of ``like[index]``, one tuple of a list, added into ``a``, the list's: a new list."""
    if _list_of_items(a) and _items(g) and isinstance(index, types.Integer) and _list_of_items(like):
        def add_item(a, g, index, like):
            total = a.copy()
            add_into(total, index, g)
            return total
        return add_item
    return None


@overload(add_into)
def _add_into_item(a, index, g):
    """The same into the list's cotangent where it is a buffer of its own (for_numba's ``add_into``)."""
    if _list_of_items(a) and isinstance(index, types.Integer) and _items(g):
        def add_item(a, index, g):
            a[index] = accumulate(a[index], g)
        return add_item
    return None


@overload(untake)
def _untake_item(g, index, like):
    """The cotangent of the list ``like`` of which the tuple ``like[index]`` alone was read."""
    if _items(g) and isinstance(index, types.Integer) and _list_of_items(like):
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

