"""JAX's ``holomorphic`` flag of ``grad``, ``value_and_grad``, ``jacrev`` and ``jacfwd``: which
inputs and outputs may be complex, and the complex derivative from a pullback.

s2sad's pullbacks follow PyTorch: pulled back through a holomorphic ``f``, a cotangent ``c``
gives ``c * conj(f'(z))``. JAX's transforms transpose without conjugating, and its answer
for any function is the conjugate of s2sad's pullback of a real cotangent. So:

* ``holomorphic=True``: the inputs and outputs must be complex; the result is the conjugate
  of the pullback of 1, which is ``f'(z)`` for a holomorphic ``f``. Whether ``f`` is holomorphic
  is not checked (JAX does not check either): for any other ``f`` the same formula gives
  ``d Re f/dx - 1j * d Re f/dy`` (``z = x + 1j y``), JAX's number, which is no derivative of ``f``.
* without it, a complex output has no gradient: a real number is needed to descend, and
  differentiating its real part silently would hide the choice. ``grad`` and ``jacrev`` refuse
  it with a ``TypeError`` (``ComplexDtypeError``), as JAX does. ``jacfwd`` refuses complex
  inputs instead: one real unit tangent per element is half of what a complex input moves.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from .containers import leaves, with_leaves
from .errors import ArgumentError, ComplexDtypeError
from .runtime.projection import check_differentiable

_REAL_PART = ("differentiate a real number of it (np.real, np.abs) yourself, or use s2sad.vjp with the "
              "cotangent you mean")


def refuse_complex_output(output: Any, transform: str, name: str) -> None:
    """The error for a complex ``output`` of ``transform(f)`` without ``holomorphic=True``."""
    raise ComplexDtypeError(
        f"{transform} of {name} needs a real output, but it returned {_dtype_name(output)}",
        hint=f"pass holomorphic=True for the complex derivative f'(z) of a holomorphic function, or {_REAL_PART}")


def refuse_real_output(output: Any, transform: str, name: str) -> None:
    """The error for a real ``output`` of ``transform(f, holomorphic=True)``."""
    raise ComplexDtypeError(
        f"{transform} of {name} with holomorphic=True needs a complex output, but it returned {_dtype_name(output)}",
        hint=f"leave holomorphic out to differentiate a real function, or make the output complex")


def check_outputs(output: Any, transform: str, name: str, holomorphic: bool) -> None:
    """Every leaf of ``output`` with a tangent space is complex with ``holomorphic``, real without."""
    for leaf in leaves(output):
        if not _has_tangent_space(leaf):
            continue
        if np.iscomplexobj(leaf) and not holomorphic:
            refuse_complex_output(leaf, transform, name)
        if holomorphic and not np.iscomplexobj(leaf):
            refuse_real_output(leaf, transform, name)


def check_complex_inputs(values: Iterable[Any], transform: str, name: str) -> None:
    """With ``holomorphic=True`` every differentiated leaf is complex (ints and strings in a
    container have no tangent and are passed over, as everywhere in s2sad)."""
    for value in values:
        for leaf in leaves(value):
            if _is_complex_leaf(leaf) or not _has_tangent_space(leaf):
                continue
            if not isinstance(leaf, (float, np.generic)) and not hasattr(leaf, "dtype"):
                raise ComplexDtypeError(
                    f"{transform} of {name} with holomorphic=True takes complex numbers and arrays, in dicts, lists, "
                    f"tuples, namedtuples or dataclasses, not a {type(leaf).__name__} object",
                    hint="pass its complex arrays as arguments (or in a dict), or make its class a dataclass")
            raise ComplexDtypeError(
                f"{transform} of {name} with holomorphic=True needs complex inputs, but got {_dtype_name(leaf)}",
                hint="pass complex values (x.astype(complex)), or leave holomorphic out for real inputs")


def check_real_inputs(values: Iterable[Any], transform: str, name: str) -> None:
    """``jacfwd`` without ``holomorphic=True`` takes real inputs only, as JAX's does."""
    for value in values:
        for leaf in leaves(value):
            if _has_tangent_space(leaf) and np.iscomplexobj(leaf):
                raise ComplexDtypeError(
                    f"{transform} of {name} needs real inputs, but got {_dtype_name(leaf)}: pushing forward one "
                    "real unit tangent per element leaves out the imaginary direction",
                    hint="pass holomorphic=True for the complex derivative of a holomorphic function, use "
                         "s2sad.jacrev for a real output, or s2sad.jvp with the tangents you mean")


def conjugated(value: Any) -> Any:
    """``value`` with each complex leaf conjugated, in its own container and types."""
    return with_leaves(value, [_conjugate(leaf) if np.iscomplexobj(leaf) else leaf for leaf in leaves(value)])


def _conjugate(leaf: Any) -> Any:
    # a 0-d array's .conjugate() is a NumPy scalar: the gradient of a 0-d array stays one
    return np.asarray(leaf.conjugate()) if isinstance(leaf, np.ndarray) and leaf.ndim == 0 else leaf.conjugate()


def _has_tangent_space(leaf: Any) -> bool:
    try:
        check_differentiable(leaf, "value")
    except ArgumentError:
        return False
    return True


def _is_complex_leaf(leaf: Any) -> bool:
    """A complex number or array: not a plain object whose fields are complex (its gradient
    stays a structural Tangent, which ``conjugated`` cannot read)."""
    return np.iscomplexobj(leaf) and (isinstance(leaf, (complex, np.generic, np.ndarray)) or hasattr(leaf, "dtype"))


def _dtype_name(value: Any) -> str:
    """``complex``, ``float64``, ``an array of dtype complex64``: what the user passed, briefly."""
    if isinstance(value, np.generic):
        return str(value.dtype)
    if hasattr(value, "dtype"):
        return f"an array of dtype {value.dtype}"
    return type(value).__name__
