"""Helpers that rule templates may call.

Every name in ``__all__`` is imported into generated code (and into the namespace compiled
templates run in), so these names are reserved there. Each helper takes the cotangent
first when it has one, and each is cheap in the common case: ``unbroadcast`` is on the hot
path of scalar code and returns at once when a Python float meets a Python float.

Conventions shared by all rules:

* a cotangent has the type, shape and dtype of its primal (float32 in, float32 out); an
  integer, boolean or string primal has no tangent space, and its cotangent is
  ``NO_TANGENT``;
* ``0 * inf`` is ``0`` for cotangents: a rule whose derivative is infinite somewhere in
  its domain (``sqrt`` or ``log`` at 0, ``arcsin`` at 1) divides through
  :func:`safe_divide`, so a zero cotangent stays zero. This is what keeps
  ``np.where(x > 0, np.sqrt(x), 0.0)`` free of NaN at ``x = 0``.
"""
from __future__ import annotations

import copy
import itertools
import math
import types

import numpy as np

from s2sad.errors import UnsupportedSyntaxError
from s2sad.runtime.closures import closure, refuse_held_numbers
from s2sad.runtime.indexing import FLOAT_SCALARS, dtype_of, no_tangent_kind, untake
from s2sad.runtime.methods import check_dataclass_field, check_stored_write
from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent, fit, unthunk

__all__ = [
    "conj",
    "refuse_held_numbers",
    "plain_operands",
    "plain_arguments",
    "power_jvp_base",
    "fit",
    "unbroadcast",
    "safe_divide",
    "expand_reduced",
    "reduced_count",
    "untake",
    "tie_share",
    "inverse_axes",
    "matmul_vjp_x1",
    "matmul_vjp_x2",
    "dot_vjp_a",
    "dot_vjp_b",
    "mH",
    "mT",
    "power_vjp_base",
    "power_vjp_exponent",
    "added_at",
    "subtracted_at",
    "written_into",
    "written_into_shared",
    "written_into_argument",
    "sorted_in_place",
    "filled_in_place",
    "diagonal_filled",
    "diagonal_positions",
    "taken_for_writing",
    "not_the_callers",
    "deleted_name",
    "dict_without",
    "dict_merged",
    "or_merged",
    "vectorized_dtype",
    "piecewise_conditions",
    "logged",
    "owned_copy",
    "owned_tangent",
    "zipped",
    "reversed_items",
    "deep_copied",
    "chained",
    "repeated",
    "merged_keywords",
    "with_attribute",
    "closure",
    "write_back",
    "entering",
    "entered_value",
    "stand_in_for",
    "worth_standing_in",
    "numpy_meanings",
    "arguments_not_sequences",
    "array_like",
    "sequence_cotangent",
]

_ndarray = np.ndarray
_float64 = np.float64


def conj(x):
    """The complex conjugate, free for what is real: a real NumPy array or a float comes back
    as it is (no copy); anything else (complex values, lists, Dask arrays) goes through
    ``np.conjugate``, which array libraries dispatch to their own, lazily."""
    kind = x.__class__
    if kind is _ndarray:
        if x.dtype.kind != "c":
            return x
    elif kind is float or kind is int or kind is _float64:
        return x
    return np.conjugate(x)


def array_like(value):
    """A list or tuple as the array NumPy's elementwise functions read it as; anything else as
    it is. A rule's template computes with its primal and tangent (``2.0 * x``, ``x + 1``,
    ``-g``), which of a list would repeat it, join it or fail (codegen/array_likes.py)."""
    kind = value.__class__
    if kind is list or kind is tuple:
        return np.asarray(value)
    return value


def sequence_cotangent(g, ans):
    """The cotangent of ``ans`` (made by ``a + b`` or ``a * n``) for its operands' rules: refused
    when ``ans`` is a list or tuple a NumPy function read as one array. Its cotangent is then an
    array, and the operands' rules would take `+` for a sum and `*` for a product of numbers:
    ``xs + ys`` would give ``xs`` the whole cotangent summed, ``xs * 2`` twice its share."""
    kind = ans.__class__
    if (kind is list or kind is tuple) and g.__class__ not in (list, tuple, Tangent) and g is not ZERO:
        raise UnsupportedSyntaxError(
            f"a {kind.__name__} joined with `+` or repeated with `*` is read by a NumPy function as one array, "
            "and s2sad does not follow which items of it are each operand's",
            hint="join arrays instead: np.concatenate([xs, ys]) for xs + ys, np.tile(xs, n) for xs * n "
                 "(np.asarray(xs) first for a list of lists)")
    return g


# Classes whose operators are the ones rules differentiate (a NumPy scalar's too, by np.generic).
_PLAIN_CLASSES = frozenset({float, int, complex, bool, _ndarray, _float64, np.float32, np.int64, np.bool_, np.complex128,
                            list, tuple, dict, str, range, slice, type(None), type(Ellipsis)})
# What a class defines that would run its own code in place of the rule of an operator, of
# indexing, or of walking it in a loop.
_OPERATOR_METHODS = ("__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__", "__rmul__",
                     "__imul__", "__truediv__", "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__",
                     "__mod__", "__rmod__", "__pow__", "__rpow__", "__ipow__", "__matmul__", "__rmatmul__",
                     "__imatmul__", "__neg__", "__pos__", "__abs__", "__getitem__", "__setitem__", "__iter__",
                     "__array_ufunc__", "__array_function__")
_OPERATOR_METHOD_SET = frozenset(_OPERATOR_METHODS)
_METHODS_OF = {"+": ("__add__", "__radd__"), "-": ("__sub__", "__rsub__"), "*": ("__mul__", "__rmul__"),
               "/": ("__truediv__", "__rtruediv__"), "//": ("__floordiv__", "__rfloordiv__"), "%": ("__mod__", "__rmod__"),
               "**": ("__pow__", "__rpow__"), "@": ("__matmul__", "__rmatmul__"), "neg": ("__neg__",), "pos": ("__pos__",),
               "abs": ("__abs__",), "[]": ("__getitem__",), "for": ("__iter__", "__getitem__"), "[]=": ("__setitem__",)}
_SPELLING = {"neg": "-x", "pos": "+x", "[]": "x[i]", "for": "for v in xs", "[]=": "x[i] = v"}
# libraries whose classes keep NumPy's meaning of these (dask arrays flow through generated code; s2sad's
# tangents, in the forward code a second derivative differentiates, have the rules' own meaning)
_NUMPY_LIKE = frozenset({"builtins", "numpy", "dask", "collections", "s2sad"})
# NumPy's own classes that give operators and functions another meaning than the rules': `*`
# is a matrix product of np.matrix, a masked array's arithmetic and reductions pass over its
# masked entries, a poly1d's `*` multiplies polynomials and its `[]` reads a coefficient
NUMPY_OWN_MEANINGS = (np.matrix, np.ma.MaskedArray, np.poly1d, np.char.chararray)


def plain_operands(symbol: str, *values) -> None:
    """Raise unless each value is a number, an array or a plain container: generated code
    differentiates ``a * b``, ``x[i]`` and ``for v in xs`` by NumPy's and Python's meaning of
    them, and an object whose class has its own ``__mul__`` or ``__getitem__`` means something else
    (see analysis/operands.py)."""
    for value in values:
        if value.__class__ not in _PLAIN_CLASSES:
            own = _own_operator(value.__class__, _METHODS_OF.get(symbol, ()))
            if own is not None:
                raise _operator_refused(f"`{_SPELLING.get(symbol, symbol)}` is given", value, own)


def plain_arguments(names: str, *values) -> None:
    """``plain_operands`` for the arguments (``names``, comma-separated) a function's operators
    read, checked once when it starts; with ``numpy_meanings``' check of the items of containers."""
    for position, value in enumerate(values):
        kind = value.__class__
        if kind not in _PLAIN_CLASSES:
            own = _own_operator(kind, ())
            if own is not None:
                name = names.split(", ")[position]
                raise _operator_refused(f"the argument `{name}`, used with an operator, is", value, own)
        elif kind is list or kind is tuple or kind is dict:
            _refuse_numpy_meanings_held(names, position, value)


def numpy_meanings(names: str, *values) -> None:
    """Raise when a value (an argument or a free variable, ``names`` comma-separated), or an item
    of a list, tuple or dict it is, is of one of NumPy's classes whose functions compute
    otherwise than the rules assume (``NUMPY_OWN_MEANINGS``): the gradient would be another
    function's. Checked once when a function starts."""
    for position, value in enumerate(values):
        kind = value.__class__
        if kind is list or kind is tuple or kind is dict:
            _refuse_numpy_meanings_held(names, position, value)
        elif kind not in _PLAIN_CLASSES and isinstance(value, NUMPY_OWN_MEANINGS):
            raise numpy_meaning_refused(f"`{names.split(', ')[position]}` is", value)


def arguments_not_sequences(names: str, *values) -> None:
    """Raise when an argument (``names``, comma-separated) joined with `+` or repeated with `*`, an item
    of whose result the function changes in place, is a list or tuple: that item is the argument's own
    (analysis/operands.py ``joined_then_changed``)."""
    for position, value in enumerate(values):
        if isinstance(value, (list, tuple)):
            name = names.split(", ")[position]
            raise UnsupportedSyntaxError(
                f"`{name}` is a {type(value).__name__} joined with `+` or repeated with `*`, and an item of the "
                f"result is changed in place: that item is also `{name}`'s, a change s2sad does not follow into "
                f"`{name}`", hint=f"copy the items first (`[v.copy() for v in {name}]`), or build the new values "
                                  "instead of writing into them")


arguments_not_sequences.reads_its_arguments_only = True


def _refuse_numpy_meanings_held(names: str, position: int, container) -> None:
    for item in container.values() if container.__class__ is dict else container:
        if isinstance(item, NUMPY_OWN_MEANINGS):
            raise numpy_meaning_refused(f"`{names.split(', ')[position]}` holds", item)


def _own_operator(cls: type, wanted: tuple) -> str | None:
    """The first method of ``cls`` (``wanted`` first) that gives an operator a meaning of its own."""
    for owner in cls.__mro__:
        module = owner.__module__ or ""
        if not _OPERATOR_METHOD_SET.isdisjoint(owner.__dict__) and (module.split(".")[0] not in _NUMPY_LIKE
                                                                 or module.startswith("s2sad.rules")
                                                                 or owner in NUMPY_OWN_MEANINGS):
            # (s2sad's tangents are NumPy-like, the rules' own helper classes are not: scipy_special's
            # dual numbers, met when a rule's slope is differentiated again, give no cotangents)
            return next(name for name in wanted + _OPERATOR_METHODS if name in owner.__dict__)
    return None


def numpy_meaning_refused(what: str, value, location=None) -> UnsupportedSyntaxError:
    kind = type(value)
    return UnsupportedSyntaxError(
        f"{what} a `{kind.__module__}.{kind.__name__}`, whose operators and functions compute otherwise than "
        "NumPy's arrays' (a matrix product for `*`, masked entries passed over): s2sad differentiates "
        "np.ndarray arithmetic", location, hint="pass np.asarray(value) (for a masked array, np.ma.getdata(value) with "
                                      "the mask applied as np.where(mask, 0.0, value))")


def _operator_refused(what: str, value, own: str) -> UnsupportedSyntaxError:
    if isinstance(value, NUMPY_OWN_MEANINGS):
        return numpy_meaning_refused(what, value)
    return UnsupportedSyntaxError(
        f"{what} an object of `{type(value).__name__}`, whose class defines `{own}`: s2sad differentiates "
        "Python's operators, indexing and loops over numbers, arrays, lists, tuples and dicts",
        hint=f"call the method by name (`value.{own}(...)`), which s2sad differentiates from its source, or "
             "compute on the object's arrays")


# generated forward code calls them, and hvp differentiates that code
plain_operands.reads_its_arguments_only = plain_arguments.reads_its_arguments_only = True
numpy_meanings.reads_its_arguments_only = True


def unbroadcast(v, like):
    """Sum ``v`` back to the shape of ``like`` and cast it to ``like``'s dtype.

    The cotangent of a broadcast operand: axes that broadcasting added or stretched are
    summed away. A Python float ``like`` gets a Python float, a numpy scalar gets a numpy
    scalar of its dtype, an int/bool ``like`` gets ``NO_TANGENT``. A real ``like`` that
    met a complex operand gets the real part of a complex ``v`` (the convention of
    ``numpy_fft``), not a ComplexWarning. A ``like`` that is the symbolic zero (forward
    code's tangent before anything reached it, read again for a Hessian) is a constant: ZERO.
    """
    tl = type(like)
    if tl is float:
        tv = type(v)
        if tv is float:
            return v
        if tv is _float64:
            return float(v)
        if v is ZERO:
            return ZERO
        if tv is _ndarray:
            return float(v.sum().real)  # the method: np.sum's own reduction, without its dispatch
        return float((np.sum(v) if np.ndim(v) else v).real)
    if like is ZERO:
        return ZERO
    if tl is _ndarray:
        if type(v) is _ndarray and v.shape == like.shape:
            dtype = like.dtype
            if v.dtype is dtype or v.dtype == dtype:  # (`is` first: the builtin dtypes are singletons)
                return v
        dtype, shape = like.dtype, like.shape
    elif tl is type(v) and tl in FLOAT_SCALARS:
        return v  # an element read in a loop (np.float64): nothing to sum or cast
    elif tl is int or tl is bool or tl is str or like is None:
        return NO_TANGENT
    elif tl is complex:
        if v is ZERO:
            return ZERO
        return complex(np.sum(v))
    else:
        if v is ZERO or v is NO_TANGENT:
            return v  # (before `np.asarray(like)`, which a tuple of arrays of two shapes would not make)
        if isinstance(like, (list, tuple)) and isinstance(v, (list, tuple, Tangent)):
            if isinstance(v, (list, tuple)) and len(v) == len(like):
                # as many items as the operand: every one is its own (`d[k] = xs` put back, or
                # `xs + []`), nothing to sum
                return v
            # the cotangent of a list or tuple made by `xs + ys` or `xs * n`: which items are
            # this operand's is not known here
            raise UnsupportedSyntaxError(
                "lists or tuples joined with `+` or repeated with `*` are differentiated only where one side is "
                "written as a list or tuple (xs + [y], args + (x,), list(a) + list(b))",
                hint="write the side that is a variable as list(xs) or tuple(xs), or build the list with append")
        dtype = getattr(like, "dtype", None)
        if dtype is None:
            like = np.asarray(like)
            dtype = like.dtype
        shape = np.shape(like)
    if v is ZERO or v is NO_TANGENT:
        return v
    if isinstance(v, NUMPY_OWN_MEANINGS) or isinstance(like, NUMPY_OWN_MEANINGS):
        # (one reached the computation through an item or attribute no entry check saw)
        raise numpy_meaning_refused("a value the function computes with is", v if isinstance(v, NUMPY_OWN_MEANINGS)
                                    else like)
    if no_tangent_kind(dtype):
        return NO_TANGENT
    v_shape = np.shape(v)
    if v_shape != shape:
        extra = len(v_shape) - len(shape)
        if extra > 0:
            v = np.sum(v, axis=tuple(range(extra)))
        stretched = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(v)[i] != 1)
        if stretched:
            v = np.sum(v, axis=stretched, keepdims=True)
        if np.shape(v) != shape:  # v had fewer dimensions: broadcast it up (a rare case)
            v = np.broadcast_to(v, shape)
    v_dtype = getattr(v, "dtype", None)
    if v_dtype is None or v_dtype != dtype or not shape:  # (numpy finds None == float64); 0-d in, 0-d out
        if (v_dtype.kind == "c" if v_dtype is not None else type(v) is complex) and dtype.kind != "c":
            v = v.real  # a real operand of a complex computation: the real part is its cotangent
        if isinstance(like, np.generic):
            return dtype.type(v)
        return np.asarray(v, dtype=dtype)
    return dtype.type(v) if isinstance(like, np.generic) else v


# An array at most this large is its own stand-in: below it, a stand-in saves less time
# (freed memory reused while it is still in cache) than it costs to find.
STAND_IN_BYTES = 4096
_stand_ins: dict = {}


def stand_in_for(value):
    """What a loop's tape saves for a value its reverse pass reads only for its type, shape
    and dtype (the ``like`` of :func:`unbroadcast`, :func:`expand_reduced`, ``untake``,
    ``add_at``; ``len``): for an array, a read-only array of the same shape and dtype whose
    elements all share one zero (no data of its own), made once per shape and dtype, so the
    tape does not keep the value's data alive. Those helpers read nothing else of an array,
    so they treat the stand-in exactly as the value. Anything else (a float, a NumPy
    scalar, a small, 0-d or subclassed array, a list) is its own stand-in."""
    if value.__class__ is _ndarray and value.nbytes > STAND_IN_BYTES:
        key = (value.shape, value.dtype)
        like = _stand_ins.get(key)
        if like is None:
            if len(_stand_ins) >= 256:
                _stand_ins.clear()
            like = _stand_ins[key] = np.broadcast_to(np.zeros((), value.dtype), value.shape)
        return like
    return value


def worth_standing_in(value):
    """Whether an iteration's tape entry saves stand-ins (``stand_in_for``), asked of one of
    the values it would stand in for: one question per iteration, where asking of each value
    cost a loop of small arrays 3% of its time."""
    return value.__class__ is _ndarray and value.nbytes > STAND_IN_BYTES


def safe_divide(num, den):
    """``num / den``, except exactly 0 wherever ``num`` is 0 (even where ``den`` is 0 or NaN).

    Rules divide a cotangent by a derivative's vanishing denominator through this, so
    that a zero cotangent never becomes NaN (the ``0 * inf = 0`` convention).
    """
    if type(num) is float and type(den) is float:
        if num == 0.0:
            return 0.0
        if den == 0.0:
            return math.copysign(math.inf, num) * math.copysign(1.0, den)
        return num / den
    if num is ZERO:
        return ZERO
    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = np.divide(num, den)
        if (quotient.__class__ is _ndarray and num.__class__ is _ndarray and quotient.shape == num.shape
                and quotient.ndim and num.dtype.kind in "fc"):
            # The common case: np.divide made a fresh array, element for element with num, so
            # it can be zeroed in place where num is 0 (logical_not of a float or complex is
            # num == 0, and false for NaN, as == is) instead of a where() and a zeros_like array.
            np.putmask(quotient, np.logical_not(num), 0)
            return quotient
        result = np.where(np.equal(num, 0), np.zeros_like(quotient), quotient)
    return result[()] if result.ndim == 0 else result


def _normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(a % ndim for a in axis) if ndim else ()
    return (axis % ndim,) if ndim else ()


def reduced_count(a, axis, keepdims=False, where=True):
    """How many elements of ``a`` each output of a reduction over ``axis`` combines.

    An int; with a ``where`` mask, an array of counts shaped like the reduction's output.
    """
    shape = np.shape(a)
    if where is not True:
        return np.sum(np.broadcast_to(where, shape), axis=axis, keepdims=keepdims)
    count = 1
    for ax in _normalize_axes(axis, len(shape)):
        count *= shape[ax]
    return count


def expand_reduced(g, a, axis=None, keepdims=False, where=True):
    """Broadcast the cotangent of a reduction of ``a`` over ``axis`` back to ``a``'s shape.

    Returns a read-only broadcast view when no copy is needed; cast to ``a``'s dtype.
    ``where`` (the reduction's mask) zeroes the cotangent of the elements left out.
    """
    if a.__class__ is _ndarray and axis is None and where is True and a.size <= 65536 and a.dtype.kind in "fc":
        # the common case below (`np.sum(x)` of a small float array), first and inline:
        # np.full's own two steps without its call
        if g is ZERO:
            return ZERO
        out = np.empty(a.shape, a.dtype)
        np.copyto(out, g, casting="unsafe")
        return out
    if type(a) is float:
        return float(g)
    if isinstance(a, NUMPY_OWN_MEANINGS):  # a masked array's reduction passes over masked entries
        raise numpy_meaning_refused("a value the function reduces is", a)
    shape = np.shape(a)
    dtype = dtype_of(a)
    if no_tangent_kind(dtype):
        return NO_TANGENT
    if g is ZERO:
        return ZERO
    if axis is None and where is True and type(a) is np.ndarray and a.size <= 65536:
        # the cotangent of a full reduction: one value everywhere. np.full costs less than
        # broadcast_to's setup on a small array; on a large one broadcast_to's view is free
        return np.full(shape, g, dtype=dtype)
    if not keepdims and np.ndim(g) != len(shape):
        axes = _normalize_axes(axis, len(shape))
        g = np.reshape(g, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    g = np.asarray(g)
    if g.dtype != dtype:
        g = g.astype(dtype)
    out = np.broadcast_to(g, shape)
    if where is not True:
        out = np.where(where, out, np.zeros((), dtype))
    if isinstance(a, np.generic):
        return dtype.type(out)
    return out


def written_into(new, old):
    """What ``old op= v`` leaves in ``old``, given ``new = old op v``: on a NumPy array the
    operator writes into ``old``'s memory, so the result keeps its dtype and shape (float32
    ``y += float64 v`` stays float32; int ``y += 0.5`` and a ``v`` that would grow ``y``
    raise, as NumPy does). Anything else (a float, a list, a tuple) is ``new`` itself."""
    if old.__class__ is not np.ndarray:
        return new
    if new.__class__ is np.ndarray and new.dtype == old.dtype and new.shape == old.shape:
        return new
    if not isinstance(new, (np.ndarray, np.generic, float, int, complex)):
        return new  # a symbolic zero tangent
    out = np.empty(old.shape, old.dtype)
    np.copyto(out, new, casting="same_kind")
    return out


def sorted_in_place(a, axis=-1, kind=None, order=None, *, stable=None):
    """What ``a.sort(axis, kind, order, stable=stable)`` leaves in the array ``a``: generated code writes it back
    (``a[...] = sorted_in_place(a)``), an element assignment s2sad differentiates and undoes.
    A list's ``.sort()`` (which takes ``key=`` and ``reverse=``) is refused: it is not np.sort."""
    if not isinstance(a, np.ndarray):
        raise UnsupportedSyntaxError(
            f"`.sort()` of a {type(a).__name__} changes it in place, which s2sad differentiates only for a NumPy array",
            hint="use `xs = sorted(xs)`, which makes a new list")
    if stable is None:  # (NumPy 1 has no `stable`)
        return np.sort(a, axis, kind, order)
    return np.sort(a, axis, kind, order, stable=stable)


def diagonal_positions(shape, wrap=False):
    """The flat positions np.fill_diagonal writes, in the order it writes them (the k-th takes
    item ``k % val.size`` of its value): a 2-D array's every ``ncols + 1``-th element (past the
    square part only with ``wrap``), an n-d array's (all sides equal) every ``1 + sum of the
    strides in elements``-th."""
    size = math.prod(shape)
    if len(shape) == 2:
        step = shape[1] + 1
        end = size if wrap else min(size, shape[1] * shape[1])
    else:
        step = 1 + int(np.sum(np.cumprod(shape[:-1])))
        end = size
    return np.arange(0, end, step)


def diagonal_filled(val, a, wrap=False):
    """What ``np.fill_diagonal(a, val, wrap)`` leaves in the array ``a``, made on a copy;
    generated code writes it back (``a[...] = diagonal_filled(val, a, wrap)``), an element
    assignment s2sad differentiates and undoes. NumPy's own checks (a 1-d array, n-d sides
    that differ) raise as NumPy raises them."""
    if not isinstance(a, np.ndarray):
        raise UnsupportedSyntaxError(f"`np.fill_diagonal` of a {type(a).__name__} is not differentiated",
                                     hint="fill a NumPy array")
    out = a.copy()
    np.fill_diagonal(out, val, wrap)
    return out


def filled_in_place(value, a):
    """The value ``a.fill(value)`` writes into every element of the array ``a``, checked as
    ``fill`` checks it (a sequence or, into a real array, a complex number is refused by NumPy
    itself); generated code writes it back: ``a[...] = filled_in_place(value, a)``, cast to
    ``a``'s dtype as ``fill`` casts it (an int array filled with 2.5 holds 2)."""
    if not isinstance(a, np.ndarray):
        raise UnsupportedSyntaxError(f"`.fill()` of a {type(a).__name__} is not differentiated",
                                     hint="fill a NumPy array, or make a new value (np.full_like)")
    np.empty((), a.dtype).fill(value)  # raises what a.fill(value) raises
    return value


def written_into_shared(new, old, name, other):
    """:func:`written_into` for a variable ``name`` that ``other`` shares and reads later
    (``z = y; y += v; return z``): fine while ``old`` is a number or a tuple, which
    ``+=`` rebinds; refused when ``old`` changes in place (an array, a list), because
    ``other`` would see the change that s2sad's derivative code does not."""
    if old.__class__ is not float and any(hasattr(old.__class__, method) for method in _IN_PLACE_OPERATORS):
        raise UnsupportedSyntaxError(
            f"this augmented assignment changes the {type(old).__name__} `{name}` in place, and `{other}` shares it "
            f"(a view, or the same object under another name, or one it may be: an item taken out of the same "
            f"container or call, which may hold one object twice) and is read after the change: s2sad would "
            f"differentiate it as if `{other}` were unchanged",
            hint=f"write `{name} = {name} + ...` to make a new value, or take a copy first (`{name} = {name}.copy()`)")
    return written_into(new, old)


def written_into_argument(new, old, name):
    """:func:`written_into` for ``name += v`` on what the caller passed (``name`` not yet bound anew):
    fine while ``old`` is a number or a tuple, which ``+=`` rebinds; refused when it changes in place
    (an array, a list), because the caller's value would change, which s2sad's copy does not do."""
    if old.__class__ is not float and any(hasattr(old.__class__, method) for method in _IN_PLACE_OPERATORS):
        raise UnsupportedSyntaxError(
            f"this augmented assignment changes the argument `{name}` (a {type(old).__name__}) in place, so the "
            "caller's value would change: s2sad does not change it",
            hint=f"write `{name} = {name} + ...` to make a new value, or `{name}[...] += ...` to change the caller's")
    return written_into(new, old)


_IN_PLACE_OPERATORS = ("__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
                       "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__")


def added_at(a, indices, b):
    """``np.add.at(a, indices, b)`` as a value: a copy of ``a`` with ``b`` added at
    ``indices``, every occurrence of a repeated index counted. Generated code writes the
    result back into ``a`` (``a[...] = added_at(a, indices, b)``), so the in-place call
    becomes an element assignment, which s2sad differentiates and undoes."""
    out = np.array(a, copy=True)
    np.add.at(out, indices, b)
    return out


def subtracted_at(a, indices, b):
    """``np.subtract.at(a, indices, b)`` as a value (see :func:`added_at`)."""
    out = np.array(a, copy=True)
    np.subtract.at(out, indices, b)
    return out


def tie_share(g, x, other, ans):
    """``g`` where ``x`` won an elementwise max/min, half of it where ``x`` tied ``other``."""
    if type(g) is float and type(x) is float and type(other) is float:
        if x != ans:
            return 0.0
        return g * 0.5 if x == other else g
    return np.where(np.not_equal(x, ans), 0, np.where(np.equal(x, other), g * 0.5, g))


def inverse_axes(axes, ndim):
    """The permutation undoing ``np.transpose(a, axes)`` (``None`` reverses, its own inverse)."""
    if axes is None:
        return None
    return tuple(np.argsort([ax % ndim for ax in axes]).tolist())


def mT(a):
    """Swap the last two axes (matrix transpose of a stack of matrices)."""
    return np.swapaxes(a, -1, -2)


def mH(a):
    """The conjugate transpose of the last two axes (``mT`` for real arrays, without a copy)."""
    return conj(np.swapaxes(a, -1, -2))


def matmul_vjp_x1(g, x1, x2):
    """Cotangent of ``x1`` in ``x1 @ x2``: ``g @ x2^H`` (1-D operands, batches and broadcasting included)."""
    if type(x2) is not np.ndarray or x2.dtype.kind == "c":
        x2 = np.conjugate(x2)  # a real array x2 (the common case) is used as it is, without a copy
    if type(x1) is np.ndarray and type(g) is np.ndarray and x1.ndim == 2 and g.ndim == 2 and x2.ndim == 2:
        return unbroadcast(g @ x2.T, x1)  # matrix times matrix: the common case, without the general dance
    if type(x1) is np.ndarray and type(g) is np.ndarray and x1.ndim == 2 and g.ndim == 1 and x2.ndim == 1:
        return unbroadcast(np.multiply.outer(g, x2), x1)  # matrix times vector (an RNN step)
    if np.ndim(x2) == 1:
        if np.ndim(x1) == 1:
            return unbroadcast(g * x2, x1)
        return unbroadcast(np.expand_dims(g, -1) * x2, x1)
    if np.ndim(x1) == 1:
        return unbroadcast(np.matmul(x2, np.expand_dims(g, -1))[..., 0], x1)
    return unbroadcast(np.matmul(g, mT(x2)), x1)


def matmul_vjp_x2(g, x1, x2):
    """Cotangent of ``x2`` in ``x1 @ x2``: ``x1^H @ g``."""
    if type(x1) is not np.ndarray or x1.dtype.kind == "c":
        x1 = np.conjugate(x1)  # a real array x1 (the common case) is used as it is, without a copy
    if type(x2) is np.ndarray and type(g) is np.ndarray and x1.ndim == 2 and x2.ndim == g.ndim and x2.ndim in (1, 2):
        return unbroadcast(x1.T @ g, x2)  # matrix times matrix or vector: the common cases
    if np.ndim(x1) == 1:
        if np.ndim(x2) == 1:
            return unbroadcast(g * x1, x2)
        return unbroadcast(np.expand_dims(x1, -1) * np.expand_dims(g, -2), x2)
    if np.ndim(x2) == 1:
        return unbroadcast(np.matmul(np.expand_dims(g, -2), x1)[..., 0, :], x2)
    return unbroadcast(np.matmul(mT(x1), g), x2)


def dot_vjp_a(g, a, b):
    """Cotangent of ``a`` in ``np.dot(a, b)``: scalars, 1-D and N-D (sum over a's last, b's
    second-to-last axis); ``b`` conjugated, as in ``a @ b`` (free for real ``b``)."""
    b = conj(b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    if np.ndim(b) == 1:
        return unbroadcast(np.multiply.outer(g, b) if np.ndim(a) > 1 else g * b, a)
    # g has shape a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    b_axes = list(range(np.ndim(b) - 2)) + [np.ndim(b) - 1]
    g_axes = list(range(np.ndim(a) - 1, np.ndim(g)))
    return unbroadcast(np.tensordot(g, b, axes=(g_axes, b_axes)), a)


def dot_vjp_b(g, a, b):
    """Cotangent of ``b`` in ``np.dot(a, b)``; ``a`` conjugated."""
    a = conj(a)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    if np.ndim(b) == 1:
        return unbroadcast(np.tensordot(g, a, axes=(list(range(np.ndim(g))), list(range(np.ndim(a) - 1)))), b)
    a_lead = list(range(np.ndim(a) - 1))
    g_lead = list(range(np.ndim(a) - 1))
    contracted = np.tensordot(a, g, axes=(a_lead, g_lead))  # shape (n,) + b.shape[:-2] + b.shape[-1:]
    return unbroadcast(np.moveaxis(contracted, 0, -2), b)


def power_vjp_base(g, x, y):
    """Cotangent of the base in ``x ** y``: ``g * conj(y * x ** (y - 1))``, 0 where ``g`` or ``y`` is 0.

    ``x ** y`` is holomorphic in ``x`` (off the branch cut), so a complex base gets the
    conjugate slope; for a real base and exponent ``conj`` returns the slope itself.
    """
    if type(g) is float and type(x) is float:
        if g == 0.0 or y == 0:
            return 0.0
        try:
            return g * y * x ** (y - 1)
        except ZeroDivisionError:  # 0.0 ** negative: an infinite slope
            return math.copysign(math.inf, g * y)
    if g is ZERO:
        return ZERO
    dtype = dtype_of(x)
    if no_tangent_kind(dtype):
        return NO_TANGENT
    if type(y) in (int, float) and y >= 1:
        # a constant exponent of at least 1 (``x ** 2``): x ** (y - 1) is finite everywhere,
        # so the guards below (and their cost) are not needed
        return unbroadcast(g * conj(y * x ** (y - 1)) if y != 2 else g * conj(2.0 * x), x)  # (2 * a list repeats it)
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = g * conj(y * np.power(x, y - 1))
        slope = np.where(np.equal(g, 0) | np.equal(y, 0), np.zeros_like(slope), slope)
    return unbroadcast(slope, x)


def power_vjp_exponent(g, ans, x, y):
    """Cotangent of the exponent in ``x ** y``: ``g * conj(ans * log(x))``, 0 where ``x`` is 0.

    ``0 ** y`` is flat in ``y`` (for ``y > 0``), so a zero base gives 0 instead of
    ``0 * -inf``; a negative real base has no real logarithm and gives NaN, unless the
    power is complex: NumPy then takes the complex logarithm of the base, and so does this.
    """
    if type(y) is int:
        return NO_TANGENT
    if type(x) is float and type(g) is float:
        if x > 0.0:
            return g * ans * math.log(x)
        return 0.0 if x == 0.0 else math.nan
    if g is ZERO:
        return ZERO
    with np.errstate(divide="ignore", invalid="ignore"):
        base = np.where(np.equal(x, 0), np.ones_like(x), x)
        if base.dtype.kind != "c" and np.iscomplexobj(ans):  # (-2.0) ** 0.5j: log(-2) + i pi
            base = base.astype(np.result_type(ans))
        slope = g * conj(ans * np.log(base))
    return unbroadcast(slope, y)


def output_parts(g, count, names=()):
    """The cotangents of the ``count`` elements of a tuple, list or namedtuple output.

    Rules whose primal returns several arrays (``np.split``, ``np.linalg.svd``) receive
    their cotangent in whichever form the caller built: ZERO for the whole output, a tuple
    or list with ZERO for the elements nobody used (from unpacking), or a structural
    Tangent keyed by field name (from reading ``result.S``) or by position. Each element
    comes back as a plain value or ZERO; ``names`` are the namedtuple's fields, if any.
    Not in ``__all__``: rule functions call it, generated code never does.
    """
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT or g is None:
        return (ZERO,) * count
    if isinstance(g, Tangent):
        fields = g.fields
        parts = [fields.get(names[i], ZERO) if i < len(names) and names[i] in fields else fields.get(i, ZERO)
                 for i in range(count)]
    else:
        parts = list(g)
        if len(parts) != count:
            raise ValueError(f"a cotangent of {len(parts)} elements was given for an output of {count}")
    return tuple(ZERO if part is None or part is NO_TANGENT else unthunk(part) for part in parts)


def power_jvp_base(g, x, y):
    """Tangent of ``x ** y`` from the base's tangent ``g``: ``g * y * x ** (y - 1)``, 0 at a zero
    base where ``g`` or ``y`` is 0 (so ``0.0 ** 0`` and ``0.0 ** 0.5`` stay finite). No conjugate:
    forward.

    Written without ``try`` or ``with`` so that s2sad can differentiate it again (Hessians). The
    guard is only where the formula is not finite (a zero base): at ``y == 0`` elsewhere the
    formula is 0 already, and its derivative in ``y`` (``g / x``) is what a Hessian needs (a guard
    there made that derivative 0: a wrong second derivative of ``(1.5 + u) ** u`` at ``u = 0``).
    """
    if g is ZERO:
        return ZERO
    scalars = (int, float, complex)
    if type(y) in (int, float) and y >= 1:
        if y == 2:
            return g * (2 * x)  # x ** 2, the common case
        return g * (y * x ** (y - 1))
    if type(g) in scalars and type(x) in scalars and type(y) in scalars:
        if x == 0:
            if g == 0 or y == 0:
                return 0.0 * g
            if y.real < 1:
                return math.copysign(math.inf, (g * y).real)
        return g * y * x ** (y - 1)
    flat = np.equal(x, 0) & (np.equal(g, 0) | np.equal(y, 0))
    base = np.where(flat, 1.0, x)  # 0 ** negative where the slope is 0 anyway
    return np.where(flat, 0.0 * g, g * (y * np.power(base, y - 1)))


def deep_copied(value, memo=None):
    """``copy.deepcopy(value)`` as generated code calls it: the aliasing analysis takes the copy for
    new memory (``q = copy.deepcopy(params); q["W"] -= v`` leaves ``params`` alone), which it is
    for arrays, lists, dicts, tuples and numbers; a class whose ``__deepcopy__`` hands back arrays
    or containers the original holds is refused here, as it runs."""
    copied = copy.deepcopy(value, memo)
    originals = list(_mutable_parts(value))
    for part in _mutable_parts(copied):
        if any(part is original or isinstance(part, np.ndarray) and isinstance(original, np.ndarray)
               and np.may_share_memory(part, original) for original in originals):
            raise UnsupportedSyntaxError(
                f"`copy.deepcopy` of a {type(value).__name__} gave back what the original holds (its "
                f"{type(part).__name__}, by a `__deepcopy__` of its own): s2sad takes a deep copy for new memory",
                hint="give the class a `__deepcopy__` that copies its arrays, or make the copy yourself "
                     "(`Box(box.w.copy())`)")
    twice = _held_twice(copied)
    if twice is not None:
        raise UnsupportedSyntaxError(
            f"`copy.deepcopy` of a {type(value).__name__} holding one {type(twice).__name__} in two places (the copy "
            f"keeps that, as Python's does): s2sad takes the copy's items for separate memory, so a write into one "
            f"would not show in the other",
            hint="copy each item yourself (`{k: v.copy() for k, v in params.items()}`), or keep the shared one once")
    return copied


def _held_twice(value):
    """An array, list, dict or object ``value`` holds in two places (the same object, or arrays sharing
    memory: weights tied as ``{"W": W, "W_out": W}``), or None. Two arrays owning their memory never
    overlap, so only views are compared with the rest."""
    seen, arrays = set(), []
    for part in _mutable_parts(value):
        if id(part) in seen:
            return part
        seen.add(id(part))
        if isinstance(part, np.ndarray):
            arrays.append(part)
    views = [a for a in arrays if a.base is not None]
    for view in views:
        if any(other is not view and np.may_share_memory(view, other) for other in arrays):
            return view
    return None


# what copy.deepcopy hands back as it is (numbers, strings, functions, classes, modules): nothing to write into
_KEPT_BY_DEEPCOPY = (bool, int, float, complex, str, bytes, type(None), np.generic, type, np.ufunc, range,
                     types.FunctionType, types.BuiltinFunctionType, types.ModuleType)


def _mutable_parts(value, depth: int = 0):
    """The arrays, lists, dicts and objects ``value`` holds (itself too), down its containers and fields."""
    if depth > 32 or isinstance(value, _KEPT_BY_DEEPCOPY):
        return
    if not isinstance(value, tuple):
        yield value
    if isinstance(value, dict):
        items = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        items = getattr(value, "__dict__", {}).values()
    for item in items:
        yield from _mutable_parts(item, depth + 1)


def owned_copy(value, name, others):
    """The function's own copy of the argument ``name``, which it changes in place (``x[i] = v``):
    the caller's value is written back at the end (``write_back``), and nothing the pullback
    reads is the caller's. An argument that shares memory with another one is refused: the
    other would see the changes as they happen in Python, and not in s2sad's copy."""
    kind = value.__class__
    if kind is np.ndarray:
        for other in others:
            if other is value or (isinstance(other, np.ndarray) and np.may_share_memory(value, other)):
                raise UnsupportedSyntaxError(
                    f"`{name}` is changed in place and shares memory with another argument, which would see the "
                    "changes as they happen: s2sad works on a copy of it",
                    hint="pass separate arrays (a copy of one of them)")
        return value.copy()
    if kind is list or kind is dict:
        if any(other is value for other in others):
            raise UnsupportedSyntaxError(f"`{name}` is changed in place and is also passed as another argument",
                                         hint="pass separate containers")
        return kind(value)
    return value


def owned_tangent(t):
    """The tangent of ``owned_copy``: a copy of the argument's tangent, which forward code
    changes in place as the function changes the value (never the caller's tangent)."""
    t = unthunk(t)
    if isinstance(t, np.ndarray):
        return t.copy()
    return list(t) if isinstance(t, list) else dict(t) if isinstance(t, dict) else t


def write_back(original, copy) -> None:
    """Leave in the caller's ``original`` what the function left in its ``copy``, as Python's
    in-place changes would have (an unchanged value is not written: it may be read-only)."""
    if original is copy:
        return
    if isinstance(original, np.ndarray):
        if not np.array_equal(original, copy, equal_nan=True):
            original[...] = copy
    elif isinstance(original, list):
        original[:] = copy
    elif isinstance(original, dict):
        original.clear()
        original.update(copy)


def zipped(*iterables, strict=False):
    """``zip(*iterables)`` as the list of its tuples: what generated code calls for a ``zip``
    used as a value (``a, b = zip(*pairs)``), so that the value can be read more than once
    (a rule, a tangent and the code after it all read it; a ``zip`` object is used up by one)."""
    return list(zip(*iterables, strict=strict))


def reversed_items(sequence):
    """``reversed(sequence)`` as the list of its items: what generated code calls for a ``reversed``
    the normaliser has seen consumed in one pass (a loop, ``list(...)``, ``sum(...)``, unpacking),
    where a list and the one-pass iterator give the same items in the same order."""
    return list(reversed(sequence))


def repeated(left, right):
    """``left * right`` where one side is written as a list or tuple (``[y] * n``, ``n * (x,)``): the normaliser
    calls it so that a repetition (the other side an int) has a rule of its own, which gives each item the
    cotangents of all its copies. Where Python makes it NumPy's product of the array the list makes
    (``[0.5, x[0]] * x``, an array on either side) it is that, differentiated as ``operator.mul``."""
    return left * right


def chained(iterables):
    """``itertools.chain.from_iterable(iterables)`` as the list of its items, consumed in one pass
    (see ``reversed_items``); ``chain(a, b)`` is ``chained((a, b))``."""
    return list(itertools.chain.from_iterable(iterables))


def piecewise_conditions(x, condlist, count: int):
    """The boolean conditions ``np.piecewise(x, condlist, funclist)`` applies, ``count`` the number of
    functions, worked out as NumPy works them out (a list of scalars for an array ``x`` is one mask;
    the conditions stacked; one more, where none holds, for a function more): numpy_written_out.py."""
    x = np.asarray(x)
    if np.isscalar(condlist) or (not isinstance(condlist[0], (list, np.ndarray)) and x.ndim != 0):
        condlist = [condlist]
    condlist = np.asarray(condlist, dtype=bool)
    n = len(condlist)
    if n == count - 1:
        condlist = np.concatenate([condlist, ~np.any(condlist, axis=0, keepdims=True)], axis=0)
    elif n != count:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    return condlist


def vectorized_dtype(first):
    """The dtype ``np.vectorize`` gives its results: that of the first result (numpy_written_out.py).
    An integer or boolean one is refused: NumPy casts every result to it (``2.7`` to ``2``), a
    step s2sad does not differentiate through."""
    dtype = np.asarray(first).dtype
    if not np.issubdtype(dtype, np.inexact):
        raise UnsupportedSyntaxError(
            f"`np.vectorize`'s first result is of type {dtype}, not a float, and NumPy casts every result to it",
            hint="have the function return floats on every path (`0.0`, not `0`)")
    return dtype


def logged(log: list, value) -> None:
    """``LOG.append(value)`` on a list the function's module (or an enclosing function) holds, its
    result unused: a record of a value, kept as Python keeps it (the very object). It carries no
    gradient: the normaliser refuses it where the function reads that list anywhere else, and
    the aliasing analysis counts ``value`` as read when the function returns (a later write
    into it would change what the list holds)."""
    if log.__class__ is not list:  # rebound since the code was made: its `append` may do anything
        raise UnsupportedSyntaxError(f"`.append(...)` was differentiated as recording a value in a list, and is now "
                                     f"called on a {type(log).__name__}", hint="keep the module's name bound to a list")
    log.append(value)


def dict_without(mapping: dict, key) -> dict:
    """``mapping`` without ``key``, its other keys in their order: what ``del d[key]`` on a dict the
    function made is written as (``d = dict_without(d, key)``). A new dict, where Python changes
    the one it has: the aliasing analysis refuses it where another name or a container sees
    that dict and is read after (aliasing.check_writes). A missing key raises KeyError, as ``del`` does."""
    if key not in mapping:
        raise KeyError(key)
    return {k: v for k, v in mapping.items() if k != key}


def dict_merged(parts) -> dict:
    """``{**first, **second}`` for ``parts = (first, second)``: a new dict of ``first``'s keys and then
    ``second``'s new ones, each key's value the last given. The normaliser writes a display with
    more than one ``**`` (and ``dict(a, **b)``) as a chain of these; the dict holds the very
    objects both hold, as the aliasing analysis knows (``_ITEM_HANDLERS``). (One tuple
    argument, so that one forward rule sees both tangents.)"""
    first, second = parts
    return {**first, **second}


def or_merged(parts):
    """``a | b`` for ``parts = (a, b)``, as the user wrote it: on two dicts (Python 3.9) a new dict
    merged as :func:`dict_merged`, whose values carry gradients; on anything else (boolean
    masks, sets, integers) what ``|`` does there, which carries none (rules.python_containers)."""
    a, b = parts
    return a | b


class Deleted:
    """What a name holds after ``del name`` in differentiated code: any use of it raises the
    UnboundLocalError Python raises for the unbound name (an ``is`` test cannot be caught)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        object.__setattr__(self, "name", name)

    def _unbound(self, *args, **kwargs):
        raise UnboundLocalError(f"cannot access local variable '{object.__getattribute__(self, 'name')}' "
                                "where it is not associated with a value (it was deleted with `del`)")

    __getattr__ = __setattr__ = __getitem__ = __setitem__ = __call__ = __iter__ = __len__ = __bool__ = _unbound
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = __contains__ = _unbound
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _unbound
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = __float__ = __int__ = _unbound
    __index__ = __array__ = __array_ufunc__ = __array_function__ = __floordiv__ = __mod__ = _unbound


def deleted_name(name: str) -> Deleted:
    """The value ``del name`` leaves (see :class:`Deleted`)."""
    return Deleted(name)


def taken_for_writing(container, taken, spelled: str) -> None:
    """Refuse ``y[i][j] = v`` (or ``y[i].append(v)``) where ``y[i]`` is not the object ``y``
    holds but a copy NumPy made (a fancy or boolean index): Python writes into the copy and
    loses the write, while s2sad puts the element back (``y[i] = t``, see normalize_mutation.py).
    A list's or dict's element, and an array's basic index (a view), are the object itself. A
    tuple's is too, but a tuple takes nothing back: refused, where the put-back would raise."""
    if isinstance(container, tuple):
        raise UnsupportedSyntaxError(
            f"`{spelled}` is an item of a tuple, changed in place: s2sad follows such a change by putting the "
            f"item back into its container, which a tuple does not allow",
            hint="hold the items in a list (`t = [a, b]`), or make the tuple once the writes are done")
    if isinstance(container, np.ndarray) and isinstance(taken, np.ndarray) and not np.may_share_memory(taken, container):
        # (a scalar taken out raises on the write as Python does: `float` does not support item assignment)
        raise UnsupportedSyntaxError(
            f"`{spelled}` is a copy NumPy makes (a fancy or boolean index), so writing into it leaves the array "
            f"unchanged: s2sad does not differentiate a write Python loses",
            hint="index the array once, `y[i, j] = v`, or keep the copy in a variable of its own")


def not_the_callers(value, owner, spelled: str, owner_name: str) -> None:
    """Refuse a change in place of ``value`` (``h["w"][0] = v``, ``w += v``) when it is, or shares
    memory with, ``owner`` (an argument or a global, named ``owner_name``) or an object ``owner``
    holds: an item of a new container made from it (``h = dict(d)``, ``{**d}``, ``d | e``,
    ``d.copy()``, ``list(rows)``, ``[a, b]``) is the caller's very object, and the caller would see the
    change, which s2sad's derivative code does not make. A number or a tuple, which a change
    rebinds, passes; so does what the function made itself (an array's ``.copy()`` and its views)."""
    if value.__class__ is float or not (hasattr(value.__class__, "__setitem__")
                                        or any(hasattr(value.__class__, method) for method in _IN_PLACE_OPERATORS)):
        return
    if any(_same_memory(value, held) for held in _reachable(owner)):
        raise UnsupportedSyntaxError(
            f"this changes `{spelled}` in place, and it is the caller's `{owner_name}`, shares its memory or is held "
            f"by it (a container made from another, `dict(d)`, `{{**d}}`, `d | e`, `d.copy()`, `list(rows)`, `[a, b]`, "
            f"holds its very objects): the caller would see the change, which s2sad does not make",
            hint=f"work on a copy: `{spelled} = {spelled}.copy()` (`list(...)` for a list) before changing it, "
                 f"or make a new value (`{spelled} = {spelled} + ...`)")


not_the_callers.reads_its_arguments_only = True


def _same_memory(value, held) -> bool:
    if value is held:
        return True
    return isinstance(value, np.ndarray) and isinstance(held, np.ndarray) and np.may_share_memory(value, held)


def _reachable(owner, seen=None):
    """``owner`` and every object it holds, down its lists, tuples, dicts and objects' fields."""
    seen = set() if seen is None else seen
    if id(owner) in seen:
        return
    seen.add(id(owner))
    yield owner
    if isinstance(owner, dict):
        items = list(owner.values())
    elif isinstance(owner, (list, tuple)):
        items = list(owner)
    else:
        items = list(getattr(owner, "__dict__", {}).values()) if not isinstance(owner, (np.ndarray, type)) else []
    for item in items:
        yield from _reachable(item, seen)


def with_attribute(obj, name: str, value):
    """``obj.name = value`` as a value: a shallow copy of ``obj`` with the attribute set (what the
    normaliser writes for an attribute assignment; the aliasing analysis refuses it where another
    name for ``obj`` is read after it, the one place the copy would differ from the change)."""
    check_stored_write(obj, name)
    check_dataclass_field(obj, name, value)
    changed = copy.copy(obj)
    setattr(changed, name, value)
    return changed


def merged_keywords(first, second):
    """The keywords of a call written ``f(**first, k=v)`` (``second`` holds ``k=v``): one dict,
    a key given twice a TypeError, as Python's call raises it."""
    repeated = [key for key in second if key in first]
    if repeated:
        raise TypeError(f"got multiple values for keyword argument {repeated[0]!r}")
    return {**first, **second}


class ContextEntry:
    """A context manager entered for ``with manager as name``: ``with`` enters this object,
    which enters ``manager`` and keeps what its ``__enter__`` gave, for ``entered_value``."""

    __slots__ = ("manager", "value")

    def __init__(self, manager):
        self.manager = manager

    def __enter__(self):
        self.value = self.manager.__enter__()
        return self

    def __exit__(self, *exception):
        return self.manager.__exit__(*exception)


def entering(manager):
    """``manager``, to be entered by ``with`` (``with manager as name``: see ``entered_value``)."""
    return ContextEntry(manager)


def entered_value(entry):
    """What ``with manager as name`` binds to ``name``: the value ``manager.__enter__()`` gave."""
    return entry.value
