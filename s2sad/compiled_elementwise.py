"""``compile=True`` for ``np.sum`` of an elementwise expression on large float64 arrays: one pass.

A function whose generated module says ``ELEMENTWISE_SUM`` (analysis/elementwise.py) has a
gradient whose every element depends on the same elements of the arguments alone. Its compiled
gradient, called with Python floats, is the gradient of one element; a loop over the elements
calling it (Numba inlines it) computes each element's value and derivatives while its operands
are in registers. No intermediate array is made, and the libm calls of one element (``sin`` and
``cos`` of the same number) run back to back, overlapping in the CPU. The NumPy path's blocks
(runtime/blocks.py) make one pass per operation instead.

The numbers are NumPy's: every element is the same sequence of IEEE operations on the same
libm functions (NumPy's float64 ``sin``, ``cos``, ... call libm on a machine without SVML; the
compiled mode elsewhere uses Numba's calls of libm too), and the value is summed as
``np.sum`` sums a contiguous float64 array: NumPy's pairwise summation, whose tree of halvings
(``_tree``) is walked here, the runs of at most ``CHUNK`` elements computed into a buffer and
summed by ``subtree_sum`` in NumPy's order, their sums added up the tree.

The loop is written out for one function and one kind of call (which arguments are arrays) in a
file beside the generated module, so that Numba's disk cache keeps its machine code (a loop
taking the element's gradient as an argument could not be kept: Numba keys it on the object).
"""
from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

from . import cache, numba_cache

numba = numba_cache.numba_module()

CHUNK = 16384   # elements computed before their values are summed: a 128 kB buffer, in the cache
_LEAF = 128     # NumPy's pairwise summation adds up to this many numbers in one loop (PW_BLOCKSIZE)
_FLOAT64 = np.dtype(np.float64)

LOOP_TEMPLATE = '''\
# The gradient of `{name}` on large float64 arrays, one element at a time: written by
# s2sad/compiled_elementwise.py for calls with {kinds}. ENTRY (the compiled gradient of one
# element) and subtree_sum are bound when it is loaded.


def gradient_in_chunks(plan, values, sums, {params}, {outs}):
    for k in range(plan.shape[0]):
        lo = plan[k, 0]
        hi = lo + plan[k, 1]
{views}        for i in range(hi - lo):
            value, ({derivatives},) = ENTRY({elements})
{stores}            values[i] = value
        sums[k] = subtree_sum(values, hi - lo)
'''


@numba.njit(cache=True)
def _run_sum(values, lo, n):
    """NumPy's sum of ``values[lo:lo + n]``, n at most 128: eight running sums, then the rest."""
    if n < 8:
        total = 0.0
        for i in range(lo, lo + n):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[lo], values[lo + 1], values[lo + 2], values[lo + 3]
    r4, r5, r6, r7 = values[lo + 4], values[lo + 5], values[lo + 6], values[lo + 7]
    i = 8
    whole = n - n % 8
    while i < whole:
        j = lo + i
        r0 += values[j]
        r1 += values[j + 1]
        r2 += values[j + 2]
        r3 += values[j + 3]
        r4 += values[j + 4]
        r5 += values[j + 5]
        r6 += values[j + 6]
        r7 += values[j + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += values[lo + i]
        i += 1
    return total


@numba.njit(cache=True)
def subtree_sum(values, n):
    """``np.sum(values[:n])`` as NumPy adds it: halves (a multiple of 8 first) until runs of at
    most 128, each run's sum added to its sibling's. Walked with a stack (Numba's disk cache
    cannot keep a function calling itself)."""
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    stages = np.zeros(64, np.int64)   # 0: not entered; 1: its first half summed; 2: both
    firsts = np.empty(64)
    top = 0
    starts[0] = 0
    sizes[0] = n
    total = 0.0
    while top >= 0:
        lo, m, stage = starts[top], sizes[top], stages[top]
        if m <= _LEAF:
            total = _run_sum(values, lo, m)
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        if stage == 0:
            stages[top] = 1
            top += 1
            starts[top], sizes[top], stages[top] = lo, half, 0
        elif stage == 1:
            firsts[top] = total
            stages[top] = 2
            top += 1
            starts[top], sizes[top], stages[top] = lo + half, m - half, 0
        else:
            total = firsts[top] + total
            top -= 1
    return total


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
def _sines(values):
    out = np.empty_like(values)
    for i in range(values.size):
        out[i] = np.sin(values[i])
    return out


@numba.njit(cache=True)
def _cosines(values):
    out = np.empty_like(values)
    for i in range(values.size):
        out[i] = np.cos(values[i])
    return out


_EACH = {"sin": (np.sin, _sines), "cos": (np.cos, _cosines)}   # analysis/elementwise.py's LIBM


@functools.lru_cache(maxsize=None)
def same_as_numpy(name: str) -> bool:
    """Whether NumPy's float64 ufunc ``name`` gives, at a few thousand numbers of every size and
    sign, what Numba's call of it on one float gives: both libm's. (A NumPy with its own SIMD
    version differs from libm by an ulp at some of them.)"""
    magnitudes = np.concatenate([np.linspace(0.0, 50.0, 2001), 10.0 ** np.linspace(-310.0, 308.0, 2001),
                                 np.pi / 4 * np.arange(1.0, 400.0)])
    probe = np.concatenate([magnitudes, -magnitudes])
    numpy_ufunc, compiled = _EACH[name]
    return bool(np.array_equal(numpy_ufunc(probe), compiled(probe)))


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
            stores="".join(f"            g{k}_run[i] = d{k}\n" for k in range(count)))
        module = _loaded(entry, arrays, source)
        module.ENTRY = dispatcher
        module.subtree_sum = subtree_sum
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


def gradient(entry, dispatcher, args: tuple, positions: tuple, shape: tuple) -> tuple:
    """``(value, gradients)`` of the generated ``entry`` (its Numba ``dispatcher``) at ``args``
    (``served``, of this ``shape``), with respect to the arguments at ``positions``."""
    size = math.prod(shape)
    arrays = tuple(a.__class__ is np.ndarray for a in args)
    loop = _loop(entry, dispatcher, arrays, len(positions))
    plan, tree = _tree(size)
    gradients = [np.empty(size) for _ in positions]
    sums = np.empty(len(plan))
    loop(plan, np.empty(int(plan[:, 1].max())), sums, *[a.reshape(size) if is_array else a
                                                  for a, is_array in zip(args, arrays)], *gradients)
    return _added(tree, sums.tolist()), tuple(g.reshape(shape) for g in gradients)
