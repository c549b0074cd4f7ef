"""Projection: give every input's cotangent that input's own type, shape and dtype.

Inside the pullback, cotangents take whatever form is cheapest: ZERO, a thunk, a float64
array where the input was float32, a (3, 4) array for an input that was broadcast from
(4,). Before a gradient reaches the user, :func:`project` turns it into the natural form:
a float for a float, an array of the primal's shape and dtype for an array, a structural
:class:`~s2sad.runtime.tangents.Tangent` of projected fields for a container or object.

:func:`check_differentiable` is the matching check on the way in: asking for the gradient
with respect to an int, a string or an integer array is an error with a clear message.
"""
from __future__ import annotations

import dataclasses
import types

import numpy as np

from ..errors import ArgumentError, RuleError, SourceLocation
from .tangents import NO_TANGENT, Tangent, is_zero, unthunk

__all__ = ["project", "check_differentiable"]


def project(primal, cotangent):
    """The cotangent of ``primal`` in ``primal``'s own type, shape and dtype.

    Thunks are computed; ZERO (or NO_TANGENT) becomes real zeros; a cotangent of a larger
    broadcast shape is summed down; a real primal keeps the real part of a complex
    cotangent. Ints, bools, strings and other values without a tangent space give
    NO_TANGENT.
    """
    kind = primal.__class__
    if kind is float and cotangent.__class__ is float:
        return cotangent  # the scalar case, without a detour through arrays
    if kind is np.ndarray and cotangent.__class__ is np.ndarray and cotangent.shape == primal.shape \
            and cotangent.dtype == primal.dtype:
        return cotangent
    cotangent = unthunk(cotangent)
    if isinstance(primal, np.ndarray):
        return _project_array(primal, cotangent)
    if is_duck_array(primal):
        return NO_TANGENT if primal.dtype.kind not in "fc" else _project_duck(primal, cotangent)
    if isinstance(primal, np.generic):  # before float: np.float64 is a float subclass
        if primal.dtype.kind not in "fc":
            return NO_TANGENT
        return type(primal)(_project_array(np.asarray(primal), cotangent)[()])
    if isinstance(primal, (bool, int, str, bytes)) or primal is None:
        return NO_TANGENT
    if isinstance(primal, float):
        return float(_project_array(np.asarray(0.0), cotangent))
    if isinstance(primal, complex):
        return complex(_project_array(np.asarray(0j), cotangent))
    return _project_structure(primal, cotangent)


def is_float_like(value) -> bool:
    """Whether ``value`` is a number (or array, or container of them) that could be differentiated."""
    try:
        check_differentiable(value, "value")
        return True
    except ArgumentError:
        return False


def is_duck_array(x) -> bool:
    """An array of another library that NumPy dispatches to (a Dask array): kept lazy, never converted."""
    return (not isinstance(x, (np.ndarray, np.generic)) and hasattr(x, "__array_function__")
            and hasattr(x, "shape") and hasattr(x, "dtype"))


def _project_duck(primal, cotangent):
    """The cotangent of a duck array (or a lazy cotangent of a NumPy array): shape and dtype
    fixed with the array library's own operations, so nothing is computed here."""
    like = primal
    if is_zero(cotangent):
        return np.zeros_like(like, dtype=like.dtype)
    if np.iscomplexobj(cotangent) and like.dtype.kind != "c":
        cotangent = np.real(cotangent)
    if tuple(cotangent.shape) != tuple(like.shape):
        extra = cotangent.ndim - like.ndim
        if extra > 0:
            cotangent = cotangent.sum(axis=tuple(range(extra)))
        stretched = tuple(axis for axis, size in enumerate(like.shape) if size == 1 and cotangent.shape[axis] != 1)
        if stretched:
            cotangent = cotangent.sum(axis=stretched, keepdims=True)
        if tuple(cotangent.shape) != tuple(like.shape):
            cotangent = np.broadcast_to(cotangent, like.shape)
    return cotangent.astype(like.dtype) if cotangent.dtype != like.dtype else cotangent


def _project_array(primal: np.ndarray, cotangent) -> np.ndarray:
    dtype = primal.dtype
    if dtype.kind not in "fc":
        return NO_TANGENT
    if is_zero(cotangent):
        return np.zeros(primal.shape, dtype)
    if isinstance(cotangent, Tangent):
        raise RuleError(f"a structural tangent {cotangent!r} was given for an array of shape {primal.shape}")
    if is_duck_array(cotangent):  # data in Dask: the gradient stays lazy, even for a NumPy parameter
        return _project_duck(primal, cotangent)
    if isinstance(cotangent, (list, tuple)) and primal.ndim and len(cotangent) == len(primal):
        # one cotangent per row, as the array's rows were walked (`sorted(x)`, `list(x)`), some ZERO
        return np.stack([_project_array(row, item) for row, item in zip(primal, cotangent)]) \
            .reshape(primal.shape)
    array = np.asarray(cotangent)
    if array.dtype.kind == "c" and dtype.kind != "c":
        array = array.real  # the imaginary part points out of the primal's (real) space
    if array.shape != primal.shape:
        array = _sum_to_shape(array, primal.shape)
    if array.dtype != dtype or not array.flags.writeable:
        array = array.astype(dtype)
    return array


def _sum_to_shape(array: np.ndarray, shape: tuple) -> np.ndarray:
    """Undo broadcasting: sum over the axes along which ``shape`` was stretched."""
    try:
        full = np.broadcast_shapes(array.shape, shape)
    except ValueError:
        raise RuleError(f"a cotangent of shape {array.shape} was given for a value of shape {shape}") from None
    if array.shape != full:  # a cotangent smaller than the primal stands for a constant
        array = np.broadcast_to(array, full)
    extra = array.ndim - len(shape)
    if extra:
        array = array.sum(axis=tuple(range(extra)))
    stretched = tuple(axis for axis, size in enumerate(shape) if size == 1 and array.shape[axis] != 1)
    if stretched:
        array = array.sum(axis=stretched, keepdims=True)
    return np.asarray(array)


# ---------------------------------------------------------------- structures


def _fields_of(primal):
    """``(key, value)`` pairs of a container or object, keyed as its Tangent is; None if none."""
    if isinstance(primal, tuple) and hasattr(type(primal), "_fields"):
        return list(zip(type(primal)._fields, primal))
    if isinstance(primal, (tuple, list)):
        return list(enumerate(primal))
    if isinstance(primal, dict):
        return list(primal.items())
    if dataclasses.is_dataclass(primal) and not isinstance(primal, type):
        return [(field.name, getattr(primal, field.name)) for field in dataclasses.fields(primal)]
    if isinstance(primal, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return None
    attributes = getattr(primal, "__dict__", None)
    return list(attributes.items()) if attributes else None


def _project_structure(primal, cotangent):
    pairs = _fields_of(primal)
    if pairs is None:
        return NO_TANGENT
    primal_type = type(primal)
    given = _cotangent_fields(primal, primal_type, cotangent)
    keys = {key for key, _ in pairs}
    unknown = [key for key in given if key not in keys]
    if unknown:
        raise RuleError(
            f"the cotangent of a {primal_type.__qualname__} has field {unknown[0]!r}, which the value lacks"
        )
    return Tangent._of(primal_type, {key: project(value, given.get(key, NO_TANGENT)) for key, value in pairs})


def _cotangent_fields(primal, primal_type, cotangent) -> dict:
    if is_zero(cotangent):
        return {}
    if type(cotangent) is Tangent:
        if cotangent.primal_type is not primal_type:
            raise RuleError(
                f"a tangent of {cotangent.primal_type.__qualname__} was given for a {primal_type.__qualname__}"
            )
        return dict(cotangent.fields)
    if isinstance(primal, (tuple, list)) and type(cotangent) in (tuple, list) and len(cotangent) == len(primal):
        names = getattr(primal_type, "_fields", None)
        return dict(zip(names, cotangent)) if names else dict(enumerate(cotangent))
    if isinstance(primal, dict) and type(cotangent) is dict:
        return cotangent
    if isinstance(primal, (tuple, list)) and isinstance(cotangent, np.ndarray):
        return _rows_as_fields(primal, primal_type, cotangent)
    raise RuleError(f"a {type(cotangent).__name__} was given as the cotangent of a {primal_type.__qualname__}")


def _rows_as_fields(primal, primal_type, cotangent: np.ndarray) -> dict:
    """An array cotangent of a list or tuple that NumPy read as an array (``np.sum(xs)`` on a
    list of floats): the list's own structure, one row an item, each row projected onto its item."""
    try:
        as_array = np.asarray(primal)
    except ValueError:  # ragged: NumPy cannot have read it as one array, so the rows are no items
        as_array = None
    if as_array is None or as_array.dtype.kind not in "biufc":
        raise RuleError(f"an array of shape {cotangent.shape} was given as the cotangent of a "
                        f"{primal_type.__qualname__} of {len(primal)} items, which is no array of numbers")
    rows = _sum_to_shape(cotangent, as_array.shape)
    names = getattr(primal_type, "_fields", None)
    return dict(zip(names, rows)) if names else dict(enumerate(rows))


# ---------------------------------------------------------------- the check on the way in


def plainly_differentiable(value) -> bool:
    """A Python float or a float (or complex) ndarray: differentiable at a glance."""
    kind = value.__class__
    return kind is float or (kind is np.ndarray and value.dtype.kind in "fc")


def check_differentiable(value, argname, location: SourceLocation | None = None) -> None:
    """Raise ArgumentError unless ``value`` has something to differentiate: floats somewhere."""
    if plainly_differentiable(value):
        return
    problem = _why_not_differentiable(value)
    if problem is None:
        return
    what = f"argument {argname}" if isinstance(argname, int) else f"argument '{argname}'"
    if isinstance(value, np.ndarray):
        hint = f"convert it with {argname}.astype(float), or leave it out of argnums"
    else:
        hint = "pass a float or a float array (3.0 rather than 3), or leave it out of argnums"
    raise ArgumentError(f"cannot differentiate with respect to {what}: it is {problem}", location, hint)


def check_tangent_has_a_space(value, tangent, where: str, transform: str) -> None:
    """Raise ArgumentError where ``transform`` (jvp, hvp) is given a nonzero ``tangent`` for an int,
    a bool or an integer array: such an input has no tangent space, so its tangent would be
    dropped and the result would silently leave out its part (``jvp(square, (3,), (1.0,))`` gave
    ``(9, 0.0)``, where the slope of ``(3 + t) ** 2`` is 6)."""
    _refuse_complex_tangent_of_a_real(value, tangent, where, transform)
    # ints too (jvp(square, (3,), (1,))), and an int given as its own tangent: jvp(square, (1,), (1,))
    # read that as "no tangent" and answered a slope of 0 where it is 2
    if tangent is None or is_zero(tangent) or not isinstance(value, (int, np.ndarray, np.generic)) \
            or not isinstance(tangent, (int, float, complex, np.ndarray, np.generic)) \
            or np.asarray(tangent).dtype.kind not in "biufc":
        return
    problem = _why_not_differentiable(value)
    if problem is None or not np.any(np.asarray(tangent) != 0):
        return
    hint = (f"pass it as floats ({'x.astype(float)' if isinstance(value, np.ndarray) else '3.0 rather than 3'}) "
            f"to move it, or give None (or zeros) as its tangent")
    raise ArgumentError(f"{transform} is given a nonzero tangent for {where}, which is {problem}: "
                        f"s2sad would drop that tangent and leave its part out of the result", None, hint)


def _refuse_complex_tangent_of_a_real(value, tangent, where: str, transform: str) -> None:
    """A real input moved off the real line: generated forward code keeps a real input's tangent
    real, so ``jvp(square, (0.3,), (1j,))`` gave 0.0 where the slope along 1j is 0.6j."""
    real = isinstance(value, float) or (isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind == "f")
    if not real or not isinstance(tangent, (complex, np.ndarray, np.generic)) or not np.iscomplexobj(tangent) \
            or not np.any(np.imag(tangent) != 0):
        return
    hint = ("pass the input as complex (x.astype(complex), 0.3 + 0j) to move it along imaginary directions, "
            "or give a real tangent (np.real(t)) and the imaginary one separately")
    raise ArgumentError(f"{transform} is given a complex tangent for {where}, which is real: s2sad would drop "
                        f"the tangent's imaginary part and leave its part out of the result", None, hint)


def _why_not_differentiable(value, depth: int = 0) -> str | None:
    if is_duck_array(value):
        return None if value.dtype.kind in "fc" else f"an array of dtype {value.dtype}, not a floating-point type"
    if isinstance(value, (bool, np.bool_)):
        return f"a bool ({value!r}), which has no derivative"
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind in "fc":
            return None
        kind = "an array" if isinstance(value, np.ndarray) else "a numpy scalar"
        return f"{kind} of dtype {value.dtype}, not a floating-point type"
    if isinstance(value, int):
        return f"an int ({value!r}): ints are discrete, they have no derivative"
    if isinstance(value, (float, complex)):
        return None
    if isinstance(value, (str, bytes)):
        return f"a {type(value).__name__}, which has no derivative"
    if value is None:
        return "None"
    pairs = _fields_of(value) if depth < 32 else None
    if pairs and any(_why_not_differentiable(item, depth + 1) is None for _, item in pairs):
        return None
    if pairs is None:
        return f"a {type(value).__name__}, which has no floating-point values to differentiate"
    return f"a {type(value).__name__} with no floating-point values in it"
