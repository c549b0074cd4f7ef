"""Gradient accumulation: ``accumulate(a, b)``, our spelling of ChainRules' ``add!!``.

``accumulate(a, b)`` returns ``a + b`` and may overwrite ``a`` to get there. The generated
pullbacks call it as ``dx = accumulate(dx, contribution)``, rebinding the variable they
pass, so writing into ``dx``'s buffer saves an allocation per accumulation. That is only
safe when nobody else can see the buffer, and we check this two ways:

* **Ownership.** Only arrays that accumulation allocated itself (a sum, a copy, the value
  form of an InplaceableThunk, which is fresh by contract) are "owned". A user's array, a
  rule's residual or anything else is never written into. The registry holds owned arrays
  weakly, keyed by ``id``; the weak value guards against a dead array's id being reused.
* **Exclusivity.** An owned array may still be aliased: the pullback of ``x + y`` hands
  the same ``dy`` to both operands, a view holds its base, a thunk caches its value. Each of
  these holds a reference, so ``sys.getrefcount(a)`` is higher than for an array held only
  by the caller's variable. That baseline count depends on the interpreter, so it is
  measured once at import by calibration probes that make exactly the call the generated
  code makes (see :func:`_calibrate`). Without ``sys.getrefcount`` nothing is overwritten.

Public API functions call :func:`release` on every cotangent they hand to the user, so an
array the user holds is never owned, and is never written into later.

Caller contract: pass ``a`` from a variable (or container slot) that you rebind to the
result, as in ``dx = accumulate(dx, g)``. Do not pass an owned array as a temporary while
keeping it elsewhere: the temporary would not be counted.
"""
from __future__ import annotations

import sys
import threading
import weakref

import numpy as np

from .indexing import untake
from .tangents import NO_TANGENT, ZERO, InplaceableThunk, Tangent, Thunk, plus, unthunk

__all__ = ["accumulate", "add", "release", "own", "is_owned"]

_ndarray = np.ndarray
_generic = np.generic
_float64 = np.float64
_np_add = np.add
_PY_SCALARS = (float, int, complex)

_owned: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
# Reads go straight to the underlying {id: weakref} dict: one atomic dict lookup, a
# fraction of WeakValueDictionary.get's cost on the hot path. Writes take the lock.
_owned_refs_get = _owned.data.get
# the same read for lanes.py's written-out test: None for the id of an array accumulation does not own
owned_reference = _owned_refs_get
_lock = threading.Lock()

# When a sum cannot go into ``a``, it is a new array, registered as owned (so that the next
# sum may go into it) only where that pays: registering costs about 1 us (a weak reference,
# a lock). Measured with numpy 2.4, a step of `d = accumulate(d, g)` in a loop:
# * ``d`` held by one variable, the next sum goes in place: 456 ns owned against 428 ns for
#   a new array each time at 16 elements, 475 against 497 at 256, 575 against 635 at 1024;
# * ``d`` aliased (the pullback of ``x + y`` hands one cotangent to both), each sum is a new
#   array and registering it is wasted: 1.33 us owned against 0.37 us at 16 elements, 1.54
#   against 0.57 at 1024, 1.70 against 0.78 at 2048.
# Either way the value is ``a + b``: only where it is stored differs, and an array that is
# not owned is never written into.
SMALL_SUM = 128  # a new sum this small is never registered
SMALL_SHARED_SUM = 8192  # nor this small, when ``a`` was aliased

_NEVER = -1  # an expected reference count no object has: "do not overwrite"
_getrefcount = getattr(sys, "getrefcount", lambda obj: -2)

# Reference counts of an exclusively held object, measured by _calibrate(): as the first
# argument of accumulate, as a field of an exclusively held Tangent, as an item of an
# exclusively held tuple or list. _NEVER until calibrated, and if calibration fails.
_TOP_COUNT = _NEVER
_FIELD_COUNT = _NEVER
_ITEM_COUNT = _NEVER
_probe_counts: list | None = None  # a list only while calibrating


def own(array):
    """Mark a freshly allocated array as accumulation's own, so it may be written into later.

    Only exact float or complex ndarrays that own their memory qualify: a view shares
    memory with an array we cannot see, and integer arrays are never cotangents we grow.
    Returns its argument.
    """
    if type(array) is _ndarray and array.base is None and array.dtype.kind in "fc":
        with _lock:
            _owned[id(array)] = array
    return array


def is_owned(x) -> bool:
    """True if accumulation allocated ``x`` and has not released it."""
    ref = _owned_refs_get(id(x))
    return ref is not None and ref() is x


def release(x):
    """Give up ownership of ``x`` and of every array inside it; returns ``x``.

    Called on each cotangent handed to the user, so that their arrays are never mutated.
    """
    if x.__class__ is float:
        return x
    if isinstance(x, _ndarray):
        if is_owned(x):  # (a lock-free look first: most arrays handed over are not owned)
            with _lock:
                if is_owned(x):
                    del _owned[id(x)]
        if isinstance(x.base, _ndarray):
            release(x.base)
    elif type(x) is Tangent:
        for value in x.fields.values():
            release(value)
    elif isinstance(x, (tuple, list)):
        for value in x:
            release(value)
    elif isinstance(x, dict):
        for value in x.values():
            release(value)
    elif isinstance(x, Thunk) and x.evaluated:
        release(x.unthunk())
    elif isinstance(x, InplaceableThunk):
        release(x._val)
    return x


def add(a, b):
    """``a + b`` for any two tangents, out of place: never writes into either argument."""
    return plus(a, b)


def accumulate(a, b):
    """``a + b``, overwriting ``a`` when accumulation owns it exclusively (``add!!``).

    ZERO and NO_TANGENT vanish; Thunks are computed; an InplaceableThunk ``b`` is applied
    with ``b.add(a)`` when ``a`` may be overwritten, and otherwise into a fresh copy of
    ``a`` (or, when ``a`` is zero, its value form is taken over). Structural Tangents and
    tuples accumulate field by field under the same rules. ``a`` is overwritten only if it
    is an owned, exclusively held, writeable float or complex ndarray whose shape and dtype
    ``a + b`` would keep; otherwise the result is newly allocated, and owned if it has
    more than ``SMALL_SUM`` elements (``SMALL_SHARED_SUM`` when ``a`` is aliased).
    """
    a_kind = a.__class__
    if a_kind is float or a_kind is _float64:
        if b.__class__ is float or b.__class__ is _float64:
            return a + b  # scalars: nothing to own, nothing to overwrite
    # Nothing may take a reference to `a` before this line: the count is compared with
    # the calibrated count of an array held by the caller's one variable.
    count = _getrefcount(a)
    if _probe_counts is not None:
        _probe_counts.append(count)
    if count == _TOP_COUNT and a_kind is _ndarray:
        # The common cases, inline because generated loops call this once per iteration.
        ref = _owned_refs_get(id(a))
        if ref is not None and ref() is a:
            kind = b.__class__
            if kind is _ndarray or kind is float:
                return _add_into(a, b)
            if kind is InplaceableThunk and a.flags.writeable:
                result = b.add(a)
                return a if result is None else result
            return _into_array(a, b, True)
    if a_kind is _ndarray:
        other = b.__class__
        if other is _ndarray or other is float or other is _float64:
            # not ours to write into: _fresh_sum, inline (what _dispatch would do, without its tests)
            total = a + b  # (a NumPy or Python scalar when `a` is 0-d: nothing to own)
            if total.__class__ is _ndarray and total.size > (SMALL_SUM if count == _TOP_COUNT else SMALL_SHARED_SUM):
                return own(total)
            return total
    return _dispatch(a, b, count == _TOP_COUNT)


def add_at(a, g, index, like):
    """``accumulate(a, untake(g, index, like))``: the cotangent of ``like[index]`` added into
    ``a``, the cotangent of ``like`` (``x[i]`` read in a loop, seed 002's ``getindex``).

    When ``a`` is an array accumulation owns exclusively (the test of :func:`accumulate`)
    and the index is an int, this is ``a[index] += g``, with no thunk made on the way; the
    first contribution, and anything else, takes the general path.
    """
    count = _getrefcount(a)
    if count == _TOP_COUNT and a.__class__ is _ndarray and index.__class__ is int and g is not ZERO:
        ref = _owned_refs_get(id(a))
        # An owned array is one accumulation made, never a view of the user's data: its size
        # is checked against ``like``'s, and a read-only one (a thunk's broadcast value)
        # refuses the write before making it, and takes the general path.
        if ref is not None and ref() is a and like.__class__ is _ndarray and a.size == like.size:
            try:
                a[index] += g
                return a
            except (ValueError, TypeError):
                pass
    elif a.__class__ is InplaceableThunk and index.__class__ is int and (g.__class__ is float or g.__class__ is _float64) \
            and like.__class__ is _ndarray and like.dtype.kind in "fc":
        # the second element read (the first one's untake made ``a``): what _dispatch does with ``a`` and
        # untake's thunk for ``g``, without making that thunk: a's value form, fresh and ours, takes ``g`` in place
        value = _take_value(a)
        if value.__class__ is not _ndarray:
            return _dispatch(value, untake(g, index, like), False)
        if is_owned(value) and value.flags.writeable and value.dtype.kind in "fc":
            value[index] += g
            return value
        return _into_array(value, untake(g, index, like), False)
    return _dispatch(a, untake(g, index, like), count == _TOP_COUNT)


def zeroed_at(g, index):
    """``g`` with the entries at ``index`` set to zero: the cotangent of a container before
    ``y[index] = v`` overwrote those entries, from its cotangent after.

    Written in place when accumulation owns ``g`` exclusively (the same test as
    :func:`accumulate`); otherwise a copy, which accumulation then owns, so a loop that
    fills an array one element at a time zeroes in place from its second iteration on.
    """
    count = _getrefcount(g)
    if g.__class__ is _ndarray:
        if not (count == _TOP_COUNT and is_owned(g) and g.flags.writeable):
            g = own(np.array(g, dtype=g.dtype if g.dtype.kind in "fc" else np.float64))
        g[index] = 0
        return g
    if g is ZERO or g is NO_TANGENT:
        return g
    g = unthunk(g)
    if isinstance(g, _ndarray):
        return zeroed_at(np.array(g), index)
    if isinstance(g, (list, tuple)):
        items = list(g)
        if isinstance(index, slice):
            for position in range(len(items))[index]:
                items[position] = ZERO
        else:
            items[index] = ZERO
        return items if isinstance(g, list) else tuple(items)
    if type(g) is Tangent:
        fields = dict(g.fields)
        fields.pop(index, None)
        if isinstance(index, int) and index < 0:
            raise IndexError("a negative index into a structural tangent of a list needs the list's length")
        return Tangent(g.primal_type, fields)
    if isinstance(g, dict):
        return {key: value for key, value in g.items() if key != index}
    raise TypeError(f"cannot zero entry {index!r} of a cotangent of type {type(g).__name__}")


def _accumulate_held(a, b, expected):
    """accumulate() for a field or item of a container; ``expected`` as for _TOP_COUNT."""
    count = _getrefcount(a)
    if _probe_counts is not None:
        _probe_counts.append(count)
    return _dispatch(a, b, count == expected)


def _add_into(a, b):
    """``a + b`` written into the owned, exclusive array ``a`` if numpy can keep a's shape and dtype.

    numpy makes the remaining checks before it writes anything: ``out=`` refuses a
    read-only array or a broadcast that would grow ``a``, and ``casting="safe"`` refuses a
    result dtype ``a`` cannot hold (float32 + float64, float + complex).
    """
    try:
        return _np_add(a, b, out=a, casting="safe")
    except (ValueError, TypeError):
        return own(a + b)


def _fresh_sum(a, b, exclusive):
    """``a + b`` in a new array, owned (so later sums may go into it) unless it is small
    (SMALL_SUM, or SMALL_SHARED_SUM when ``a`` was not ``exclusive``ly held)."""
    total = a + b
    if total.__class__ is _ndarray and total.size > (SMALL_SUM if exclusive else SMALL_SHARED_SUM):
        return own(total)
    return total


def _dispatch(a, b, exclusive):
    """Every case of accumulate; ``exclusive`` says the reference count of ``a`` allows writing."""
    if a.__class__ is _ndarray:
        return _into_array(a, b, exclusive and is_owned(a))
    if a is ZERO or a is NO_TANGENT:
        if b.__class__ is InplaceableThunk:
            return _take_value(b)
        return a + b  # b itself, untouched (a thunk stays unevaluated)
    if b is ZERO or b is NO_TANGENT:
        return a
    kind = a.__class__
    if kind is Tangent:
        return _into_tangent(a, b, exclusive)
    if kind is tuple or kind is list:
        return _into_items(a, b, exclusive)
    if kind is InplaceableThunk:
        value = _take_value(a)  # fresh by contract, so held by nobody but us
        if value.__class__ is _ndarray:
            return _into_array(value, b, is_owned(value))
        return _dispatch(value, b, False)
    if kind is Thunk:
        return _dispatch(a.unthunk(), b, False)  # the thunk keeps its value: never ours
    return plus(a, b)  # numbers, numpy scalars, ndarray subclasses


def _into_array(a, b, writable):
    """``a + b`` for an ndarray ``a``; ``writable``: owned and exclusively held."""
    kind = b.__class__
    if kind is _ndarray or kind in _PY_SCALARS or isinstance(b, _generic):
        return _add_into(a, b) if writable else _fresh_sum(a, b, False)
    if kind is InplaceableThunk:
        if writable and a.flags.writeable and a.dtype.kind in "fc":
            return _apply(b, a)
        # A copy to act on: a's dtype, or float64 if a holds integers.
        dtype = a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)
        return _apply(b, own(np.array(a, dtype=dtype)))
    if b is ZERO or b is NO_TANGENT:
        return a
    if kind is Thunk:
        return _into_array(a, b.unthunk(), writable)
    return plus(a, b)  # ndarray subclasses; a Tangent raises a clear error


def _apply(thunk, buffer):
    result = thunk.add(buffer)
    return buffer if result is None else result


def _take_value(thunk):
    """The value form of an InplaceableThunk, owned when it is freshly computed here."""
    val = thunk._val  # not .val, which would wrap a plain callable in a Thunk
    if isinstance(val, Thunk):
        if val.evaluated:
            return val.unthunk()  # someone has already seen this value: it is not ours
        value = val.compute()
    else:
        value = val()
    if isinstance(value, (Thunk, InplaceableThunk)):
        return unthunk(value)
    return own(value)


def _into_tangent(a, b, exclusive):
    b = unthunk(b)
    if b.__class__ is not Tangent or b.primal_type is not a.primal_type:
        return plus(a, b)  # one tangent value's two kinds of cotangent add there; else it explains the mismatch
    if exclusive:
        fields, expected = a._fields, _FIELD_COUNT  # nobody else can see a: update it
    else:
        fields, expected = dict(a._fields), _NEVER
    other = b._fields
    for key in other:
        field = fields.get(key, ZERO)
        fields[key] = _accumulate_held(field, other[key], expected)
    return a if exclusive else Tangent._of(a.primal_type, fields)


def _into_items(a, b, exclusive):
    b = unthunk(b)
    if (b.__class__ is not tuple and b.__class__ is not list) or len(b) != len(a):
        return plus(a, b)  # raises the error that explains the mismatch
    expected = _ITEM_COUNT if exclusive else _NEVER
    items = []
    for index in range(len(a)):
        item = a[index]
        items.append(_accumulate_held(item, b[index], expected))
    return a.__class__(items)


# ---------------------------------------------------------------- calibration


def _calibrate() -> tuple[int, int, int]:
    """Measure the reference counts of exclusively held objects on this interpreter.

    Each probe makes the generated code's call, ``d = accumulate(d, c)``, with ``d`` an
    owned array (or a Tangent or tuple holding one) referenced by the probe's local only,
    and records the counts ``accumulate`` sees. Probes run repeatedly so that the
    interpreter's specialised calls are measured too; the counts must agree every time, an
    alias must raise them, and a final self-test must overwrite exactly when it should.
    Any surprise disables overwriting, which is always safe.

    A trace or profile function (a debugger, coverage) may hold a snapshot of each frame's
    locals, inflating the counts; a baseline measured that way would later let aliased
    arrays through. So they are suspended while the probes run: counts under a tracer can
    then only be higher than the baseline, which merely stops overwriting.
    """
    if not hasattr(sys, "getrefcount"):
        return _NEVER, _NEVER, _NEVER
    trace, profile = sys.gettrace(), sys.getprofile()
    if trace is None and profile is None:
        return _run_probes()
    sys.settrace(None)
    sys.setprofile(None)
    try:
        return _run_probes()
    finally:
        sys.settrace(trace)
        sys.setprofile(profile)


def _run_probes() -> tuple[int, int, int]:
    global _probe_counts, _TOP_COUNT, _FIELD_COUNT, _ITEM_COUNT
    c = np.ones(2)

    def probe_top():
        d = own(np.zeros(2))
        d = accumulate(d, c)
        return d

    def probe_alias():
        d = own(np.zeros(2))
        alias = d
        d = accumulate(d, c)
        return d, alias

    def probe_field():
        t = Tangent._of(dict, {"x": own(np.zeros(2))})
        t = accumulate(t, Tangent._of(dict, {"x": c}))
        return t

    def probe_item():
        t = (own(np.zeros(2)),)
        t = accumulate(t, (c,))
        return t

    def measure(probe, n_calls):
        global _probe_counts
        seen = set()
        for _ in range(16):  # enough for the adaptive interpreter to specialise the call
            _probe_counts = []
            probe()
            if len(_probe_counts) != n_calls:
                return None
            seen.add(tuple(_probe_counts))
        _probe_counts = None
        return seen.pop() if len(seen) == 1 else None

    try:
        top = measure(probe_top, 1)
        alias = measure(probe_alias, 1)
        if top is None or alias is None or alias[0] != top[0] + 1:
            return _NEVER, _NEVER, _NEVER
        _TOP_COUNT = top[0]
        field = measure(probe_field, 2)
        item = measure(probe_item, 2)
        _FIELD_COUNT = field[1] if field and field[0] == top[0] else _NEVER
        _ITEM_COUNT = item[1] if item and item[0] == top[0] else _NEVER
        # Self-test: overwrite when exclusive, never when aliased.
        d = own(np.zeros(2))
        original = weakref.ref(d)
        d = accumulate(d, c)
        e = own(np.zeros(2))
        alias_of_e = e
        e = accumulate(e, c)
        if original() is not d or e is alias_of_e or alias_of_e[0] != 0.0:
            return _NEVER, _NEVER, _NEVER
        return _TOP_COUNT, _FIELD_COUNT, _ITEM_COUNT
    except Exception:  # calibration must never break import
        return _NEVER, _NEVER, _NEVER
    finally:
        _probe_counts = None


_TOP_COUNT, _FIELD_COUNT, _ITEM_COUNT = _calibrate()
