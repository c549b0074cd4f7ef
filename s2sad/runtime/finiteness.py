"""A NaN derivative of a finite value is refused, not handed back.

Where an intermediate value is infinite (``(1.5 + a) ** 1000`` overflows, ``1 / x`` at
``x = 0``) and the function's value does not depend on it (``np.tanh`` saturates, the
element is never read), the derivative NumPy's function has is finite, often 0; but the
chain rule multiplies a zero cotangent (or tangent) by an infinite slope, and 0 * inf is
NaN. A NaN there is a wrong number, not a derivative, so s2sad raises instead, naming the
function. Forward spectral rules mark with NaN the tangents that do not exist at a repeated
eigenvalue or singular value (rules/repeated_spectra.py), and are refused the same way. When the value, or the cotangent or tangent the caller gave, is itself not
finite, a NaN derivative is what the caller asked for, and it is handed back.

Only NumPy arrays, NumPy scalars, Python numbers and the containers and structural
tangents holding them are looked at: a lazy array (Dask) is never computed to check it.
"""
from __future__ import annotations

import linecache

import numpy as np

from ..errors import NonFiniteDerivativeError, SourceLocation
from .tangents import Tangent

_ndarray = np.ndarray


def has_nan(value) -> bool:
    """Whether ``value`` (a number, an array, or a container or tangent of them) holds a NaN."""
    kind = value.__class__
    if kind is _ndarray:
        return value.dtype.kind in "fc" and _nan_in(value)
    if kind is tuple:  # the gradients of several arguments: floats looked at without a call each
        for item in value:
            if item.__class__ is float:
                if item != item:
                    return True
            elif _any(item, _nan_in):
                return True
        return False
    return _any(value, _nan_in)


def all_finite(value) -> bool:
    """Whether every number in ``value`` is finite (what is not a number counts as finite)."""
    return not _any(value, _not_finite_in)


def _nan_in(value) -> bool:
    if value.__class__ is float or value.__class__ is complex:
        return value != value
    # A sum holds a NaN if any element does, and allocates nothing (a gradient's memory is
    # measured); only a NaN sum (an element's NaN, or inf - inf) is looked at element by element.
    # A real vector's sum of squares (its dot product with itself: a third of the method sum's cost
    # on a small array) is NaN only where an element is: squares are never negative, so no inf - inf.
    total = value.dot(value) if value.ndim == 1 and value.dtype.kind == "f" else value.sum()
    return total != total and bool(np.isnan(value).any())


def _not_finite_in(value) -> bool:
    return not bool(np.isfinite(value).all())


def _any(value, test) -> bool:
    kind = value.__class__
    if kind is float or kind is complex:
        return test(value)
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype.kind in "fc" and test(value)
    if kind is tuple or kind is list:
        return any(_any(item, test) for item in value)
    if kind is dict:
        return any(_any(item, test) for item in value.values())
    if isinstance(value, Tangent):
        return any(_any(item, test) for item in value._fields.values())
    return False


def refuse_nan(derivatives, value, seeds, function) -> None:
    """Raise when ``derivatives`` hold a NaN while ``value`` and the caller's ``seeds``
    (the cotangent or the tangents) are finite."""
    if not (all_finite(value) and all_finite(seeds)):
        return
    name = getattr(function, "__qualname__", None) or repr(function)
    raise NonFiniteDerivativeError(
        f"the derivative of {name} at these arguments is NaN, although its value is finite: an intermediate "
        "value is infinite (an overflow, or a pole such as 1 / 0) where the result does not depend on it, "
        "and the chain rule's zero times its infinite slope is NaN; or a NaN in the data that np.nansum or "
        "np.nanmean skips, read again by the chain rule (NaN times zero is NaN); or a forward rule found no derivative at "
        "this point (a repeated eigenvalue or singular value, rules/repeated_spectra.py); s2sad does not hand "
        "back a number it cannot vouch for",
        _definition_of(function),
        "keep intermediate values finite (clip before ** or np.exp; select with np.where before dividing, "
        "not after; put 0 in place of missing data, np.where(np.isnan(data), 0.0, data), and mask the sum), "
        "or differentiate at another point")


def _definition_of(function) -> SourceLocation | None:
    code = getattr(function, "__code__", None)
    if code is None:
        return None
    text = linecache.getline(code.co_filename, code.co_firstlineno).rstrip("\n")
    column = len(text) - len(text.lstrip()) + 1 if text.strip() else 1
    return SourceLocation(code.co_filename, code.co_firstlineno, column, text)
