"""``compile=True`` for ``np.sum`` of an elementwise expression on large float64 arrays: one pass.

A function whose generated module says ``ELEMENTWISE_SUM`` (analysis/elementwise.py) has a
gradient whose every element depends on the same elements of the arguments alone. Its compiled
gradient, called with Python floats, is the gradient of one element; a loop over the elements
calling it (Numba inlines it) computes each element's value and derivatives while its operands
are in registers. No intermediate array is made, and the libm calls of one element (``sin`` and
``cos`` of the same number) run back to back, overlapping in the CPU. The NumPy path's blocks
(runtime/blocks.py) make one pass per operation instead.

The numbers are NumPy's, to the bit: it serves only functions whose every operation computes
on one float as NumPy computes it on an array (``ONE_PASS`` in the generated module,
analysis/elementwise.py: IEEE arithmetic, ``np.sqrt``, ``x ** 2``, and ``np.sin`` and ``np.cos``,
which NumPy's float64 loops take from libm as Numba does: ``same_as_numpy`` checks that once per
process), and the value is summed as ``np.sum`` sums a contiguous float64 array: NumPy's pairwise
summation, whose tree of halvings (``_tree``) is walked here, the runs of at most ``CHUNK``
elements computed into a buffer and summed in NumPy's order (compiled_helpers' ``pairwise_sum``,
float32's), their sums added up the tree.

The loop is written out for one function and one kind of call (which arguments are arrays) in a
file beside the generated module, so that Numba's disk cache keeps its machine code (a loop
taking the element's gradient as an argument could not be kept: Numba keys it on the object).
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

from . import cache, compiled_helpers, numba_cache

numba = numba_cache.numba_module()

CHUNK = 16384   # elements computed before their values are summed: a 128 kB buffer, in the cache
_LEAF = 128     # NumPy's pairwise summation adds up to this many numbers in one loop (PW_BLOCKSIZE)
_FLOAT64 = np.dtype(np.float64)

LOOP_TEMPLATE = '''\
# The gradient of `{name}` on large float64 arrays, one element at a time: written by
# s2sad/compiled_elementwise.py for calls with {kinds}. ENTRY (the compiled gradient of one
# element) and pairwise_sum (NumPy's order) are bound when it is loaded. Each element's value is multiplied by
# 1.0 + 0.0 * (each derivative): by 1.0 exactly where they are finite, NaN where one is not, so
# that the sum is finite only where every derivative is (no second pass reads the gradients).


def gradient_in_chunks(plan, values, sums, {params}, {outs}):
    for k in range(plan.shape[0]):
        lo = plan[k, 0]
        hi = lo + plan[k, 1]
{views}        for i in range(hi - lo):
            value, ({derivatives},) = ENTRY({elements})
{stores}            values[i] = value * (1.0 + {flags})
        sums[k] = pairwise_sum(values, 0, hi - lo)
'''


@functools.lru_cache(maxsize=16)
def _tree(size: int) -> tuple:
    """``(plan, tree)`` of NumPy's pairwise summation of ``size`` numbers cut at runs of at most
    CHUNK: ``plan[k]`` is the k-th run's (start, length), ``tree`` the nesting of the runs'
    numbers (an int, or a pair of trees) in which their sums are added."""
    runs = []
    longest = max(CHUNK, _LEAF)   # (a run of NumPy's, summed in one loop, is not cut)

    def halves(lo, n):
        if n <= longest:
            runs.append((lo, n))
            return len(runs) - 1
        half = n // 2
        half -= half % 8
        return halves(lo, half), halves(lo + half, n - half)

    tree = halves(0, size)
    return np.array(runs, dtype=np.int64).reshape(-1, 2), tree


def _added(tree, sums) -> float:
    if tree.__class__ is int:
        return sums[tree]
    return _added(tree[0], sums) + _added(tree[1], sums)


@numba.njit(cache=True)
def _each(values, cosine):
    """np.sin (or np.cos) of each of ``values``, called on one float at a time."""
    out = np.empty_like(values)
    for i in range(values.size):
        out[i] = np.cos(values[i]) if cosine else np.sin(values[i])
    return out


_NUMPY = {"sin": np.sin, "cos": np.cos}   # analysis/elementwise.py's LIBM


@functools.lru_cache(maxsize=None)
def same_as_numpy(name: str) -> bool:
    """Whether NumPy's float64 ufunc ``name`` gives, at a few thousand numbers of every size and
    sign, what Numba's call of it on one float gives: both libm's. (A NumPy with its own SIMD
    version differs from libm by an ulp at some of them.)"""
    magnitudes = np.concatenate([np.linspace(0.0, 50.0, 2001), 10.0 ** np.linspace(-310.0, 308.0, 2001),
                                 np.pi / 4 * np.arange(1.0, 400.0)])
    probe = np.concatenate([magnitudes, -magnitudes])
    return bool(np.array_equal(_NUMPY[name](probe), _each(probe, name == "cos")))


def served(args: tuple, positions: tuple) -> tuple | None:
    """The shape of the call's arrays when the one-pass loop serves it: Python floats and
    C-contiguous float64 arrays of one shape, every differentiated argument an array; else None."""
    shape = None
    for a in args:
        if a.__class__ is float:
            continue
        if a.__class__ is not np.ndarray or a.dtype != _FLOAT64 or not a.flags.c_contiguous:
            return None
        if shape is None:
            shape = a.shape
        elif a.shape != shape:
            return None
    if shape is None or any(args[p].__class__ is not np.ndarray for p in positions):
        return None
    return shape


_loops: dict = {}   # (generated entry, which arguments are arrays, number of gradients) -> its loop


def _loop(entry, dispatcher, arrays: tuple, count: int):
    """The loop's Numba dispatcher for calls with arrays at the positions ``arrays`` says."""
    key = (entry, arrays, count)
    loop = _loops.get(key)
    if loop is None:
        params = [f"a{i}" for i in range(len(arrays))]
        outs = [f"g{k}" for k in range(count)]
        kinds = ", ".join("an array" if is_array else "a float" for is_array in arrays)
        source = LOOP_TEMPLATE.format(
            name=entry.__name__, kinds=kinds, params=", ".join(params), outs=", ".join(outs),
            views="".join(f"        {p}_run = {p}[lo:hi]\n" for p, is_array in zip(params, arrays) if is_array)
            + "".join(f"        {g}_run = {g}[lo:hi]\n" for g in outs),
            derivatives=", ".join(f"d{k}" for k in range(count)),
            elements=", ".join(f"{p}_run[i]" if is_array else p for p, is_array in zip(params, arrays)),
            stores="".join(f"            g{k}_run[i] = d{k}\n" for k in range(count)),
            flags=" + ".join(f"0.0 * d{k}" for k in range(count)))
        module = _loaded(entry, arrays, source)
        module.ENTRY = dispatcher
        module.pairwise_sum = compiled_helpers.pairwise_sum
        loop = _loops[key] = numba.njit(cache=module.__file__.endswith(".py"))(module.gradient_in_chunks)
    return loop


def _loaded(entry, arrays: tuple, source: str):
    """The loop's module, from a file beside the generated module (Numba keeps its machine code
    beside that), or from memory where there is no such file."""
    generated = Path(entry.__code__.co_filename)
    tag = "".join("a" if is_array else "f" for is_array in arrays)
    path = generated.with_name(f"{generated.stem}_elements_{tag}.py") if generated.suffix == ".py" else None
    if path is not None and cache.read_entry(path) != source and not cache.write_entry(path, source):
        path = None
    return cache.load_module(f"{entry.__name__}_elements_{tag}", source, path)


def gradient(entry, dispatcher, args: tuple, positions: tuple, shape: tuple) -> tuple | None:
    """``(value, gradients)`` of the generated ``entry`` (its Numba ``dispatcher``) at ``args``
    (``served``, of this ``shape``), with respect to the arguments at ``positions``; None where
    the value or a derivative is not finite (the NumPy path decides there)."""
    size = math.prod(shape)
    arrays = tuple(a.__class__ is np.ndarray for a in args)
    loop = _loop(entry, dispatcher, arrays, len(positions))
    plan, tree = _tree(size)
    gradients = [np.empty(size) for _ in positions]
    sums = np.empty(len(plan))
    loop(plan, np.empty(int(plan[:, 1].max())), sums, *[a.reshape(size) if is_array else a
                                                  for a, is_array in zip(args, arrays)], *gradients)
    value = 0.0 + _added(tree, sums.tolist())   # NumPy's reduction starts from its identity: -0.0 gives 0.0
    if not value - value == 0.0:
        return None
    return value, tuple(g.reshape(shape) for g in gradients)
