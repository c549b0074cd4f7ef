"""Whether a call hands a NumPy function its ``out`` array by position.

``np.negative(y, y)``, ``np.clip(a, lo, hi, a)``, ``np.cumsum(a, 0, None, b)``, ``y.cumsum(0, None, z)``,
``np.maximum.reduce(a, 0, None, b)``: the last argument is where the result is written, in place.
The rules read such a function's result only, and their signatures name ``out`` (defaulting to
None), so a call giving it by position bound to the rule as if it wrote nothing, and the change was
missed: each mode gave a wrong number. Given by keyword, ``out=`` is the normaliser's (normalize_mutation.into_out)."""
from __future__ import annotations

import inspect

import numpy as np

_NUMPY_MODULES = {"numpy", "numpy.linalg", "numpy.fft", "numpy.lib", "numpy.random"}


def is_numpy_function(function) -> bool:
    # (a ufunc's own methods, ``np.add.reduce(a, 0, None, out)``, have no module: their receiver is the ufunc)
    return isinstance(function, np.ufunc) or getattr(function, "__module__", None) in _NUMPY_MODULES \
        or isinstance(getattr(function, "__self__", None), (np.ndarray, np.generic, np.ufunc))


def gives_out_by_position(function, positional: int, starred: bool, nones=frozenset()) -> bool:
    """Whether a call of ``function`` (NumPy's) with ``positional`` arguments by position reaches
    its ``out`` parameter, or may (``starred``: a ``*`` argument). ``nones``: the positions given
    the literal None (``x.std(0, None, None, 1)`` gives no ``out``)."""
    if not is_numpy_function(function):
        return False
    if starred:
        return True
    if isinstance(function, np.ufunc):
        return any(k not in nones for k in range(function.nin, positional))
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return positional > 0  # unsure
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    # (einsum(*operands, out=None): by keyword only)
    return "out" in names and positional > names.index("out") and names.index("out") not in nones


def method_gives_out_by_position(name: str, positional: int, starred: bool, nones=frozenset()) -> bool:
    """:func:`gives_out_by_position` for ``receiver.name(...)``, read as an array's method: ``b.clip(lo, hi, a)``
    writes into ``a``."""
    method = getattr(np.ndarray, name, None)
    return method is not None and gives_out_by_position(method.__get__(np.empty(0)), positional, starred, nones)
