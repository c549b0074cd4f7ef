"""Tangent types: what a cotangent can be besides a plain number or array.

Most cotangents are "natural": a float for a float, an array of the same shape and dtype
for an array. This module holds the others:

* ``ZERO`` (:class:`ZeroTangent`): a strong zero. Pullbacks return it instead of
  allocating an array of zeros, and it vanishes from sums without costing anything.
* ``NO_TANGENT`` (:class:`NoTangent`): the input has no tangent space at all (an int used
  as an index, a string, a flag). Arithmetically it behaves like a zero, but it is a
  different object, so callers can tell "the derivative is zero" from "there is none".
* :class:`Thunk` and :class:`InplaceableThunk`: a cotangent whose computation is delayed
  until something needs its value, so work nobody uses is never done.
* :class:`Tangent`: the structural tangent of a tuple, list, dict, namedtuple, dataclass or
  plain object, one cotangent per field. It remembers the primal type, because two
  structural tangents with the same field names but different primal types are never
  meant to be added: doing so is a bug in a rule, and we want it caught.

``+`` on all of these follows tangent-space rules: zeros vanish, thunks are computed
first, structural tangents add field by field, tuples of cotangents add elementwise.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

__all__ = [
    "ZeroTangent",
    "ZERO",
    "NoTangent",
    "NO_TANGENT",
    "Thunk",
    "InplaceableThunk",
    "Tangent",
    "is_zero",
    "unthunk",
]


class _SymbolicZero:
    """What ZERO and NO_TANGENT share: products with them vanish, and neither allocates.

    ``__array_ufunc__ = None`` makes numpy return NotImplemented from ``array + ZERO``, so
    Python falls back to our reflected method instead of building an object array.
    """

    __slots__ = ()
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __new__(cls):
        # Each subclass is a singleton: identity checks (`x is ZERO`) are the fast path.
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__new__(cls)
            cls._instance = instance
        return instance

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return self.__radd__(other)

    def __mul__(self, other):
        return self

    __rmul__ = __matmul__ = __rmatmul__ = __truediv__ = __mul__

    def __rtruediv__(self, other):
        raise ZeroDivisionError(f"division by the symbolic zero {self!r}")

    def __neg__(self):
        return self

    __pos__ = __neg__

    def __bool__(self):
        return False

    # Pullbacks often index, transpose or conjugate their output cotangent: a zero stays one.
    def __getitem__(self, key):
        return self

    def __iter__(self):
        # Without this, __getitem__ would make iteration run forever.
        raise TypeError(f"{self!r} has no length: it stands for a zero of any shape")

    @property
    def T(self):
        return self

    real = T

    def conj(self):
        return self

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return repr(self)  # pickles as the module-level name, so unpickling keeps identity


class ZeroTangent(_SymbolicZero):
    """The strong zero tangent (the singleton ``ZERO``); valid for every primal type.

    ``ZERO + x`` is ``x`` itself (no copy), ``ZERO * x`` and ``ZERO @ x`` are ``ZERO``.
    Adding NO_TANGENT gives ZERO: "the derivative is zero" carries more information than
    "there is no derivative". A rule may return it for a cotangent that is zero, and
    s2sad's transforms hand zeros of the right shape to the user instead.

    >>> import numpy as np, s2sad
    >>> s2sad.ZERO + np.ones(2), s2sad.ZERO * 3.0, s2sad.ZERO + s2sad.NO_TANGENT
    (array([1., 1.]), ZERO, ZERO)
    """

    __slots__ = ()

    def __add__(self, other):
        return self if other is NO_TANGENT else other

    __radd__ = __add__

    def __repr__(self):
        return "ZERO"


class NoTangent(_SymbolicZero):
    """No tangent space (the singleton ``NO_TANGENT``): ints used as indices, strings, flags.

    Adding it to anything gives the other operand unchanged, since it carries no
    information; ``is_zero`` accepts it, but ``x is ZERO`` tells the two apart. ``vjp``
    gives it as the cotangent of an int argument.

    >>> import numpy as np, s2sad
    >>> def scaled(x, n):
    ...     return np.sum(x * n)
    >>> s2sad.vjp(scaled, np.ones(2), 3)[1](1.0)
    (array([3., 3.]), NO_TANGENT)
    """

    __slots__ = ()

    def __add__(self, other):
        return other

    __radd__ = __add__

    def __repr__(self):
        return "NO_TANGENT"


ZERO = ZeroTangent()
NO_TANGENT = NoTangent()


def is_zero(x) -> bool:
    """True for the symbolic zeros ZERO and NO_TANGENT (never for arrays of zeros)."""
    return x is ZERO or x is NO_TANGENT


# ---------------------------------------------------------------- delayed cotangents

_PENDING = object()


class _Delayed:
    """Arithmetic on a delayed cotangent computes it first."""

    __slots__ = ()
    __array_ufunc__ = None
    __array_priority__ = 1000

    def __add__(self, other):
        return plus(self.unthunk(), other)

    def __radd__(self, other):
        return plus(other, self.unthunk())

    def __sub__(self, other):
        return self.unthunk() - unthunk(other)

    def __rsub__(self, other):
        return other - self.unthunk()

    def __mul__(self, other):
        return self.unthunk() * unthunk(other)

    def __rmul__(self, other):
        return other * self.unthunk()

    def __matmul__(self, other):
        return self.unthunk() @ unthunk(other)

    def __rmatmul__(self, other):
        return other @ self.unthunk()

    def __truediv__(self, other):
        return self.unthunk() / unthunk(other)

    def __neg__(self):
        return -self.unthunk()


class Thunk(_Delayed):
    """A cotangent computed by ``fn()`` the first time it is needed, then cached.

    Pullbacks wrap expensive cotangents in a Thunk so that when nobody asks for that
    input's gradient, the work is never done.
    """

    __slots__ = ("_fn", "_value")

    def __init__(self, fn: Callable[[], Any]):
        self._fn = fn
        self._value = _PENDING

    @property
    def evaluated(self) -> bool:
        return self._value is not _PENDING

    def unthunk(self):
        value = self._value
        if value is _PENDING:
            value = unthunk(self._fn())
            self._value = value
            self._fn = None  # the closure's residuals are no longer needed
        return value

    def compute(self):
        """Run the computation again without caching it: for a caller that takes the value over.

        Accumulation uses this for an InplaceableThunk's value form, so that the result it
        will later write into is not also held by this thunk.
        """
        return self._value if self._value is not _PENDING else self._fn()

    def __repr__(self):
        return f"Thunk({self._value!r})" if self.evaluated else "Thunk(<pending>)"


class InplaceableThunk(_Delayed):
    """A cotangent with two forms: an in-place action and a delayed value.

    ``add(buffer)`` adds the cotangent into ``buffer`` in place and returns ``buffer``;
    accumulation calls it when it already holds a buffer it may overwrite, so the value
    is never materialised (indexing ``x[i]`` in a loop then costs one output array, not
    one per iteration). ``val`` is a :class:`Thunk`, or a zero-argument callable that is
    wrapped in one, computing the value form.

    Contract: the value form returns a freshly allocated array that nothing else
    references. Accumulation relies on this: it takes ownership of that array and may
    write into it on the next accumulation.
    """

    __slots__ = ("add", "_val")

    def __init__(self, add: Callable[[Any], Any], val: Thunk | Callable[[], Any]):
        self.add = add
        self._val = val  # wrapped in a Thunk only if someone asks: usually only `add` is used

    @property
    def val(self) -> Thunk:
        if not isinstance(self._val, Thunk):
            self._val = Thunk(self._val)
        return self._val

    def unthunk(self):
        return self.val.unthunk()

    def __repr__(self):
        return f"InplaceableThunk({getattr(self.add, '__name__', self.add)!s}, {self._val!r})"


def unthunk(x):
    """The value of a (possibly delayed) cotangent: thunks are computed, anything else returned."""
    if isinstance(x, (Thunk, InplaceableThunk)):
        return x.unthunk()
    return x


# ---------------------------------------------------------------- structural tangents


@lru_cache(maxsize=None)
def _field_names(primal_type: type) -> frozenset | None:
    """The field names of a dataclass or namedtuple type; None when any name may do."""
    if dataclasses.is_dataclass(primal_type):
        return frozenset(field.name for field in dataclasses.fields(primal_type))
    if issubclass(primal_type, tuple) and hasattr(primal_type, "_fields"):
        return frozenset(primal_type._fields)
    return None


def _is_namedtuple(primal_type: type) -> bool:
    return issubclass(primal_type, tuple) and hasattr(primal_type, "_fields")


def _by_name(primal_type: type, items: tuple) -> "Tangent":
    """A namedtuple's cotangent given by position, as its structural tangent."""
    if len(items) != len(primal_type._fields):
        raise ValueError(f"a cotangent of {len(items)} items was given for {primal_type.__qualname__} "
                         f"of {len(primal_type._fields)} fields")
    return Tangent._of(primal_type, {name: item for name, item in zip(primal_type._fields, items) if item is not ZERO})


def _read_by_item(primal_type: type) -> bool:
    """Tangents of plain tuples, lists and dicts are read ``t[key]``; others ``t.name``."""
    if issubclass(primal_type, tuple) and hasattr(primal_type, "_fields"):
        return False
    return issubclass(primal_type, (tuple, list, dict))


def _check_keys(primal_type: type, fields: dict) -> None:
    names = _field_names(primal_type)
    if names is not None:
        unknown = [key for key in fields if key not in names]
        if unknown:
            raise TypeError(f"{primal_type.__qualname__} has no field {unknown[0]!r} (fields: {sorted(names)})")
    elif issubclass(primal_type, (tuple, list)):
        bad = [key for key in fields if not isinstance(key, int) or key < 0]
        if bad:
            raise TypeError(f"a tangent of a {primal_type.__name__} is keyed by index 0, 1, ...; got {bad[0]!r}")


class Tangent:
    """The structural tangent of a container or object: one cotangent per field.

    >>> Tangent(Model, W=dW)                # a dataclass, namedtuple or plain object
    >>> Tangent(dict, {"W": dW, "b": db})   # a dict, keyed like the dict
    >>> Tangent(tuple, (dx, dy))            # a tuple or list, keyed by index

    Fields are read the way the primal's are: ``t.W``, ``t["W"]``, ``t[0]``; a field
    that is absent reads as ZERO. ``+`` works field by field; tangents of different
    primal types never add (that is always a bug in a rule, see the seed on primal types).
    """

    __slots__ = ("primal_type", "_fields")
    __array_ufunc__ = None
    __array_priority__ = 1000
    __hash__ = None  # mutable during accumulation, compared by value

    def __init__(self, primal_type: type, fields: Mapping | tuple | list | None = None, /, **named):
        if not isinstance(primal_type, type):
            raise TypeError(f"Tangent needs the primal's type first, got {primal_type!r}")
        if fields is None:
            merged = {}
        elif isinstance(fields, Mapping):
            merged = dict(fields)
        elif isinstance(fields, (tuple, list)):
            merged = dict(enumerate(fields))
        else:
            raise TypeError(f"Tangent fields must be a mapping or a sequence, got {type(fields).__name__}")
        merged.update(named)
        _check_keys(primal_type, merged)
        self.primal_type = primal_type
        # Always our own dict: accumulation may update it in place when it owns this tangent.
        self._fields = merged

    @classmethod
    def _of(cls, primal_type: type, fields: dict) -> "Tangent":
        """Wrap a dict the caller has just built, without copying or checking it."""
        tangent = object.__new__(cls)
        tangent.primal_type = primal_type
        tangent._fields = fields
        return tangent

    @property
    def fields(self) -> Mapping:
        """The fields present, read-only (absent fields are ZERO)."""
        return MappingProxyType(self._fields)

    def __getitem__(self, key):
        if type(key) is int and _is_namedtuple(self.primal_type):
            key = self.primal_type._fields[key]  # pair[0] is pair.left
        return self._fields.get(key, ZERO)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_fields", "primal_type"):
            raise AttributeError(name)
        primal_type = self.primal_type
        if _read_by_item(primal_type):
            raise AttributeError(f"a tangent of a {primal_type.__name__} is read by key: t[{name!r}], not t.{name}")
        names = _field_names(primal_type)
        if names is not None and name not in names:
            raise AttributeError(f"{primal_type.__qualname__} has no field {name!r}")
        return self._fields.get(name, ZERO)

    def __iter__(self):
        raise TypeError("a Tangent is not iterable: read t.fields, or index it by the primal's keys")

    def __copy__(self):
        # Never share the dict: accumulation may update an exclusively held tangent's fields.
        return Tangent._of(self.primal_type, dict(self._fields))

    def __add__(self, other):
        if other is ZERO or other is NO_TANGENT or (type(other) is int and other == 0):
            return self  # 0 too, so that sum() of tangents works
        other = unthunk(other)
        if type(other) is tuple and _is_namedtuple(self.primal_type):
            other = _by_name(self.primal_type, other)  # a namedtuple's cotangent read by position (pair[0])
        if type(other) is not Tangent:
            raise TypeError(
                f"cannot add a {type(other).__name__} to a structural tangent of {self.primal_type.__qualname__}"
            )
        kind = self.primal_type if other.primal_type is self.primal_type else \
            _one_tangent_values_kind(self.primal_type, other.primal_type)
        if kind is None:
            raise TypeError(
                f"cannot add a tangent of {other.primal_type.__qualname__} to a tangent of "
                f"{self.primal_type.__qualname__}: they describe different kinds of value, "
                "so a rule has returned the wrong structure"
            )
        fields = dict(self._fields)
        for key, value in other._fields.items():
            fields[key] = plus(fields[key], value) if key in fields else value
        return Tangent._of(kind, fields)

    __radd__ = __add__  # addition of tangents commutes

    def __neg__(self):
        return Tangent._of(self.primal_type, {key: _scale(value, -1) for key, value in self._fields.items()})

    def __sub__(self, other):
        return self + (-unthunk(other))

    def __mul__(self, scalar):
        return Tangent._of(self.primal_type, {key: _scale(value, scalar) for key, value in self._fields.items()})

    __rmul__ = __mul__

    def __eq__(self, other):
        if type(other) is not Tangent:
            return NotImplemented
        if other.primal_type is not self.primal_type:
            return False
        keys = self._fields.keys() | other._fields.keys()
        return all(_same(self[key], other[key]) for key in keys)

    def __repr__(self):
        name = self.primal_type.__qualname__
        keys = self._fields.keys()
        if not issubclass(self.primal_type, dict) and all(isinstance(k, str) and k.isidentifier() for k in keys):
            inner = "".join(f", {key}={value!r}" for key, value in self._fields.items())
            return f"Tangent({name}{inner})"
        return f"Tangent({name}, {self._fields!r})"


# ---------------------------------------------------------------- tangent arithmetic


def _one_tangent_values_kind(first: type, second: type):
    """The type two structural cotangents of one TANGENT VALUE (hvp: reverse mode over forward
    code) add up as, or None if they are not that. Rules name such a cotangent by the tangent's
    own class (``Tangent``: reading or setting a field of the tangent) or by its primal's
    (``untake`` of ``t[0]``: position 0 of a namedtuple is its first field): the same fields
    either way, so the sum takes the primal's (hvp of ``i = Interval(s, 2 * s); i.width() * i[0]``
    raised "cannot add a tangent of Tangent to a tangent of Interval")."""
    if first is Tangent and second is not Tangent:
        return second
    if second is Tangent and first is not Tangent:
        return first
    return None


def plus(a, b):
    """``a + b`` for tangents: zeros vanish, thunks are computed, tuples add elementwise."""
    if a is ZERO or a is NO_TANGENT:
        return a + b  # the singletons know how they combine with each other
    if b is ZERO or b is NO_TANGENT:
        return a
    a = unthunk(a)
    b = unthunk(b)
    kind = type(a)
    if kind is tuple and type(b) is Tangent and _is_namedtuple(b.primal_type):
        return _by_name(b.primal_type, a) + b
    if kind is np.ndarray and (type(b) is tuple or type(b) is list):
        a, b, kind = b, a, type(b)
    if kind is tuple or kind is list:
        # Python's + on tuples concatenates; a tuple of cotangents adds elementwise. (A list's items'
        # cotangents may come as a tuple from one rule and a list from another: one per item either way.)
        if type(b) is np.ndarray:
            rows = _rows_of(b, a)
            if rows is b:
                return b  # nothing reached the items yet: the array alone (projection splits it by the primal)
            b = b if rows is None else rows
        if (type(b) is not tuple and type(b) is not list) or len(b) != len(a):
            raise ValueError(f"cannot add {_describe(b)} to {_describe(a)}: the structures differ")
        return kind(plus(x, y) for x, y in zip(a, b))
    return a + b


def _rows_of(array: np.ndarray, items):
    """``array``, the cotangent a NumPy function gives a list or tuple it read as one array
    (``np.sum(xs)``), as one row an item, to add to ``items``, the cotangents of its items. Only
    where the rows are the items' own: as many, each with an item's dimensions (an array with
    more may be a cotangent not yet summed over the axes broadcasting put in front). The array
    itself when no item has a cotangent yet; unchanged (refused by the caller) otherwise."""
    dimensions = set()
    for item in items:
        depth = _depth(item)
        if depth is _NOT_NUMBERS:
            return None
        if depth is not None:
            dimensions.add(depth)
    if not dimensions:
        return array
    return list(array) if array.ndim and len(array) == len(items) and dimensions == {array.ndim - 1} else None


_NOT_NUMBERS = -1


def _depth(item):
    """The dimensions of the array NumPy would read the cotangent ``item`` as (a list of lists'
    items' cotangents, ``np.prod(xss)`` differentiated again, counted as NumPy counts them);
    None for a symbolic zero, or a list holding only zeros; ``_NOT_NUMBERS`` for anything
    else, or for items of unequal dimensions."""
    if item is ZERO or item is NO_TANGENT:
        return None
    item = unthunk(item)
    if isinstance(item, (float, complex, np.generic, np.ndarray)):
        return np.ndim(item)
    if item.__class__ is not list and item.__class__ is not tuple:
        return _NOT_NUMBERS
    depths = {_depth(inner) for inner in item} - {None}
    if len(depths) > 1 or _NOT_NUMBERS in depths:
        return _NOT_NUMBERS
    return 1 + depths.pop() if depths else None


def _scale(value, scalar):
    value = unthunk(value)
    if type(value) is tuple or type(value) is list:
        return type(value)(_scale(item, scalar) for item in value)
    return value * scalar


def _same(x, y) -> bool:
    """Equality for tests: arrays compare by shape and values, zeros only equal zeros."""
    x, y = unthunk(x), unthunk(y)
    if is_zero(x) or is_zero(y):
        return x is y
    if hasattr(x, "shape") or hasattr(y, "shape"):
        return np.shape(x) == np.shape(y) and bool(np.array_equal(x, y))
    if type(x) in (tuple, list):
        return type(y) is type(x) and len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y))
    return bool(x == y)


def _describe(value) -> str:
    if type(value) in (tuple, list):
        return f"a {type(value).__name__} of {len(value)} cotangents"
    return f"a {type(value).__name__}"


def fit(t, ans):
    """A tangent with the shape and dtype of ``ans``: a term from a broadcast operand (the
    tangent of ``b`` in ``a + b``, ``b`` a scalar) is broadcast up and cast, as the output's
    tangent must be (a Python float's tangent added to a float32 array is float32)."""
    if t is ZERO or t is NO_TANGENT or type(ans) is float:
        return t
    shape, dtype = np.shape(ans), getattr(ans, "dtype", None)
    if np.shape(t) == shape and getattr(t, "dtype", None) == dtype:
        return t
    if dtype is None:
        return np.broadcast_to(t, shape).copy() if shape else t
    if dtype.kind != "c" and np.iscomplexobj(t):
        t = np.real(t)
    out = np.broadcast_to(t, shape).astype(dtype)
    return dtype.type(out) if isinstance(ans, np.generic) else out
