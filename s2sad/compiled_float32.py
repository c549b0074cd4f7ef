"""Which float32 calls ``compile=True`` serves: those whose typed code computes what NumPy does.

How Numba 0.68 types float32 against NumPy 2.4 (NEP 50), measured (the report on issue 19, session 11,
has the script); "same" means the same dtype and, for arithmetic, the same numbers:

=============================  ====================  ======================  =====================
expression (x: float32 array)  NumPy                 Numba                   here
=============================  ====================  ======================  =====================
x * 0.5, 1.0 - x, x ** 2.0     float32               float64                 ``weak(0.5, x)``
x * lam (a Python float)       float32               float64                 ``weak(lam, x)``
x * np.float64(0.5)            float64               float64                 same
x * 3, x ** 2, x / 2 (ints)    float32               float32                 same
x + y (y float64 array)        float64               float64                 same
x.sum(), np.sum(x), np.mean    float32, pairwise     float32, one by one     ``numpy_sum``: pairwise
s * 0.5 (s = np.sum(x))        float32               float64                 ``weak(0.5, s)``
s * i (i an int variable)      float32 (i weak)      float64                 refused (below)
g / count (mean's pullback)    float32               float64                 ``weak(count, g)``
math.exp(x[0])                 float (float64)       float32                 refused (below)
np.exp(x), np.tanh(x)          float32               float32, <= 1 ulp off   same dtype (1 ulp)
np.exp(x[0])                   float32               float32                 same
np.maximum(x, 0.0)             float32               float64                 ``weak(0.0, x)``
np.where(m, x, 0.0)            float32               float64                 ``weak(0.0, x)``
x @ W, np.dot(x, x)            float32 (BLAS)        float32 (SciPy's BLAS)  same dtype
a float32 scalar returned      numpy.float32         Python float            cast back (compiled.py)
=============================  ====================  ======================  =====================

So a float32 call is served where, in Numba's typed code of the generated gradient (and of the
split functions it calls), no float32 value meets a float64 or integer *scalar* in an operation
(NumPy would cast a Python number to float32, keep a NumPy float64 scalar strong: Numba cannot
tell which the scalar was), no ``math`` function is given a float32, and no float32 operand
gives a float64 result except beside a float64 array (where NumPy widens too). Everything else
takes the NumPy path, for those argument types only. The helpers of ``s2sad.compiled_overloads``
are trusted with their arguments (a ``like`` argument is read for its shape and dtype) but not
with a float64 result from float32 operands.

What remains different is the order of float32 arithmetic NumPy leaves to libraries: the
elementwise functions (Numba's libm against NumPy's SIMD loops, within an ulp or two) and
matrix products (two BLAS builds). A compiled float32 gradient is held to the NumPy path's
within a few float32 ulps of its largest entry (tests/test_compiled_float32.py).
"""
from __future__ import annotations

from . import compiled_helper_modules

VERSION = 2  # of the check below: a verdict kept on disk by an older one does not count (compiled._verdict_path)
# the modules defining the compiled helpers' stubs, by their full names
HELPER_MODULES = frozenset(f"s2sad.{module}" for module in compiled_helper_modules.HELPER_MODULES)


def has_float32(kinds: tuple) -> bool:
    """Whether argument kinds (``("f2", "d1", "int")``, compiled.py) hold a float32 array."""
    return any(kind[:1] == "f" and kind[1:].isdigit() for kind in kinds)


def widening_in(name: str, blocks, typemap) -> str | None:
    """Why one typed function may compute another dtype or other numbers than NumPy for its
    float32 values (see above), or None."""
    from numba.core import ir

    for block in blocks.values():
        for instruction in block.body:
            if not isinstance(instruction, ir.Assign):
                continue
            value, target = instruction.value, typemap.get(instruction.target.name)
            where = f"line {instruction.loc.line} of the generated `{name}`"
            if isinstance(value, ir.Var):  # a variable Numba unified to float64 over its assignments
                if _float32(typemap.get(value.name)) and _float64(target):
                    return f"Numba widens a float32 value to float64 ({where}), where NumPy keeps float32"
                continue
            if not isinstance(value, ir.Expr) or value.op not in ("binop", "inplace_binop", "unary", "call",
                                                                   "arrayexpr"):
                continue
            # (Numba's typed code has an expression of arrays, `x * c` as `(1.0 - x) * y`, as one `arrayexpr`
            # of its operators and ufuncs: all its variables are its operands)
            operands = value.list_vars() if value.op == "arrayexpr" else [value.lhs, value.rhs] \
                if value.op in ("binop", "inplace_binop") else [value.value] if value.op == "unary" else list(value.args)
            types_in = [typemap.get(v.name) for v in operands if isinstance(v, ir.Var)]
            if not any(_float32(t) for t in types_in):
                continue
            kind = _callee(typemap.get(value.func.name)) if value.op == "call" else "operator"
            if kind == "math":
                return (f"a `math` function is given a float32 ({where}): Numba computes it in float32, "
                        "Python in float64")
            if kind in ("operator", "numpy") and any(_other_scalar(t) for t in types_in) \
                    and not (_float32(target) and all(_float32(t) or _constant(t) for t in types_in)):
                return (f"a float32 value meets a float64 or integer scalar ({where}), which NumPy casts to float32 "
                        "when it is a Python number and not when it is a NumPy scalar; Numba widens both")
            if kind == "unbroadcast":  # its answer has its `like`'s dtype, as the NumPy path's (a float's: float)
                continue
            if _float64(target) and not any(_wide_array(t) for t in types_in):
                return f"Numba widens a float32 value to float64 ({where}), where NumPy keeps float32"
    return None


def _float32(t) -> bool:
    from numba.core import types

    return t == types.float32 or isinstance(t, types.Array) and t.dtype == types.float32


def _float64(t) -> bool:
    from numba.core import types

    return t == types.float64 or isinstance(t, types.Array) and t.dtype == types.float64


def _other_scalar(t) -> bool:
    """A float64 or integer scalar (not a bool: NumPy and Numba both keep float32 beside one)."""
    from numba.core import types

    return isinstance(t, (types.Float, types.Integer)) and not isinstance(t, types.Boolean) and t != types.float32


def _constant(t) -> bool:
    """An int written in the code (``x ** 2``): a Python int, weak in NumPy too."""
    from numba.core import types

    return isinstance(t, types.IntegerLiteral)


def _wide_array(t) -> bool:
    """An array of float64 or integers: NumPy promotes a float32 array it meets, as Numba does."""
    from numba.core import types

    return isinstance(t, types.Array) and isinstance(t.dtype, (types.Float, types.Integer)) \
        and not isinstance(t.dtype, types.Boolean) and t.dtype != types.float32


def _callee(function_type) -> str:
    """``math``, ``helper`` (of the ``HELPER_MODULES``; ``unbroadcast`` by name), ``split`` (a user
    function's compiled half) or ``numpy`` (anything else: NumPy's functions and Numba's builtins)."""
    from numba.core import types

    if isinstance(function_type, types.Dispatcher):
        return "split"
    key = getattr(function_type, "typing_key", None)
    module = getattr(key, "__module__", None)
    if module == "math":
        return "math"
    if module in HELPER_MODULES:
        return "unbroadcast" if getattr(key, "__name__", None) == "unbroadcast" else "helper"
    return "numpy"
