"""The arguments of a differentiated call: which are differentiated, bound to the signature, the
output's seed, and what the user gets back.

Shared by every entry point (``api.py``, ``jacobians.py``, the files ``s2sad emit`` writes).
"""
from __future__ import annotations

import inspect
import weakref

import numpy as np

from .cache.validity import definition, same_definition
from .containers import as_container, in_container
from .errors import ArgumentError
from .frontend.resolve import signature as _signature_of
from .frontend.source import read_function
from .holomorphic import refuse_complex_output, refuse_real_output
from .runtime.accumulate import release
from .runtime.projection import is_duck_array, project
from .runtime.tangents import NO_TANGENT, Tangent, is_zero

_ndarray = np.ndarray


# ---------------------------------------------------------------------- running generated code
_known_positions: dict = {}


def positional_name(f, position: int) -> str | int:
    """The name of ``f``'s positional parameter at ``position`` where its signature says (errors
    name an argument so), else the position."""
    try:
        parameters = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return position
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names[position] if position < len(names) else position


def differentiated_positions(argnums, count: int, name: str) -> tuple[int, ...]:
    key = (argnums.__class__, argnums, count)  # 1.0 == 1, but is no argnums
    try:
        return _known_positions[key]
    except (KeyError, TypeError):
        pass
    positions = _checked_positions(argnums, count, name)
    try:
        _known_positions[key] = positions
    except TypeError:  # argnums given as a list: fine, just not remembered
        pass
    return positions


def _checked_positions(argnums, count: int, name: str) -> tuple[int, ...]:
    single = isinstance(argnums, (int, np.integer)) and not isinstance(argnums, bool)
    numbers = (argnums,) if single else argnums
    try:
        numbers = tuple(numbers)
    except TypeError:
        raise ArgumentError(f"argnums must be an int or a tuple of ints, not {argnums!r}") from None
    positions = []
    for number in numbers:
        if isinstance(number, bool) or not isinstance(number, (int, np.integer)):
            raise ArgumentError(f"argnums must be an int or a tuple of ints, not {argnums!r}")
        if not -count <= number < count:
            raise ArgumentError(
                f"argnums={argnums!r} is out of range: {name} was called with {count} positional argument(s)",
                hint=f"use argnums between 0 and {count - 1}, or pass the argument to differentiate positionally")
        positions.append(number % count)
    if len(set(positions)) != len(positions):
        raise ArgumentError(f"argnums={argnums!r} names an argument twice")
    return tuple(positions)


_signatures: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # function -> (definition, signature)


def bind_arguments(function, args, kwargs, plan=None):
    known = _signatures.get(function)
    if known is not None and same_definition(function, known[0]):  # a signature holds the defaults of its time
        signature = known[1]
    else:
        try:
            signature = _signature_of(function)
        except (TypeError, ValueError):
            read_function(function)  # raises the error that says why there is no source
            raise
        if inspect.isfunction(function):
            _signatures[function] = (definition(function), signature)
    parameters = signature.parameters
    if all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in parameters.values()):
        if plan is not None:
            plan.names = list(parameters)
        if not kwargs and len(args) == len(parameters):
            return list(parameters), args  # the common call: every parameter given in order
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        raise ArgumentError(f"cannot call {getattr(function, '__qualname__', function)}: {error}") from None
    bound.apply_defaults()
    return list(bound.arguments), list(bound.arguments.values())


def hand_over(primal, cotangent):
    """The cotangent the user receives: projected onto the primal, owned by nobody, in the
    primal's own container (a dict for a dict, the dataclass for a dataclass: containers.py)."""
    kind = primal.__class__
    if kind is float and cotangent.__class__ is float:
        return cotangent
    if kind is _ndarray and cotangent.__class__ is _ndarray and cotangent.shape == primal.shape \
            and cotangent.dtype == primal.dtype:
        return release(cotangent)  # what project gives such a cotangent: itself
    result = hand_to_rule(primal, cotangent)
    return as_container(primal, result) if result.__class__ is Tangent else result


def hand_to_rule(primal, cotangent):
    """The cotangent ``s2sad.rrule``'s pullback gives: projected, owned by nobody, a container's
    still a ``Tangent``, as rules take and return them (a rule may return it as its own)."""
    result = project(primal, cotangent)
    release(result)
    return result


def seed_for(output, name: str, holomorphic: bool = False, transform: str = "grad"):
    """The cotangent 1 for a scalar ``output`` of ``transform(f)``, in its dtype. A complex
    output needs ``holomorphic=True`` and a real one refuses it (holomorphic.py)."""
    kind = output.__class__
    if holomorphic:
        return _holomorphic_seed(output, name, transform)
    if kind is float:
        return 1.0
    if kind is np.float64:  # np.sum's result, the common case: a Python float seeds it at the same precision,
        return 1.0          # and rules compute faster with it than with a NumPy scalar
    if kind is np.float32:
        return kind(1.0)
    if is_duck_array(output):  # a lazy scalar (Dask): its seed is a plain one
        if output.ndim != 0:
            raise ArgumentError(f"grad of {name} needs a scalar output, but it returned an array of shape {output.shape}",
                                hint="reduce it to a scalar (np.sum, np.mean)")
        if output.dtype.kind == "c":
            refuse_complex_output(output, transform, name)
        return np.ones((), dtype=output.dtype if output.dtype.kind == "f" else np.float64)
    if isinstance(output, (bool, np.bool_)) or not isinstance(output, (int, float, complex, np.number, np.ndarray)):
        raise ArgumentError(
            f"grad of {name} needs a scalar float output, but it returned {type(output).__name__}",
            hint="use s2sad.vjp(f, *args) for non-scalar outputs, or has_aux=True to return extra values")
    if np.ndim(output) != 0:
        raise ArgumentError(
            f"grad of {name} needs a scalar output, but it returned an array of shape {np.shape(output)}",
            hint="reduce it to a scalar (np.sum, np.mean), or use s2sad.vjp(f, *args) / s2sad.jacobian for a non-scalar output")
    if np.iscomplexobj(output):
        refuse_complex_output(output, transform, name)
    if isinstance(output, np.ndarray):
        return np.ones((), dtype=output.dtype if output.dtype.kind == "f" else np.float64)
    if isinstance(output, np.number):
        return type(output)(1) if output.dtype.kind == "f" else 1.0
    return 1.0


def _holomorphic_seed(output, name: str, transform: str):
    """``seed_for`` with ``holomorphic=True``: a complex scalar's 1, in its dtype."""
    if np.ndim(output) != 0:
        raise ArgumentError(f"{transform} of {name} needs a scalar output, but it returned an array of shape "
                            f"{np.shape(output)}", hint="reduce it to a scalar (np.sum), or use s2sad.jacrev(f, holomorphic=True)")
    if not np.iscomplexobj(output) or isinstance(output, (bool, np.bool_)):
        refuse_real_output(output, transform, name)
    if isinstance(output, complex):
        return 1.0 + 0.0j
    return np.ones((), np.result_type(output))[()] if isinstance(output, np.generic) else np.ones((), output.dtype)


def split_aux(output, has_aux: bool, name: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise ArgumentError(f"{name} was differentiated with has_aux=True, so it must return a pair (output, aux)")
    return output[0], output[1]


def shaped_tangent(tangent, like):
    """A tangent handed to the user: the output's own container, type, shape and dtype (ZERO
    becomes zeros; containers.py)."""
    return in_container(like, tangent, _shaped_leaf)


def _shaped_leaf(tangent, like):
    if not isinstance(like, (np.ndarray, np.generic, float, complex, int)):
        shaped = project(like, tangent)  # a plain object: its Tangent; a string, a function: nothing
        return None if shaped is NO_TANGENT else shaped
    kind = np.result_type(like).kind
    dtype = np.result_type(like) if kind in "fc" else np.dtype(np.float64)
    value = np.zeros(np.shape(like), dtype) if is_zero(tangent) else np.asarray(tangent)
    if value.shape != np.shape(like):
        value = np.broadcast_to(value, np.shape(like))
    if value.dtype != dtype and not (dtype.kind == "f" and value.dtype.kind == "c"):
        value = value.astype(dtype)
    if isinstance(like, np.ndarray):
        return np.array(value)
    if isinstance(like, np.generic):
        return dtype.type(value)
    return complex(value) if isinstance(like, complex) else float(np.real(value)) if dtype.kind == "f" else value


def collects_arguments(function) -> bool:
    """Whether ``function`` has ``*args`` or ``**kwargs``: argnums then count the call's
    arguments, not the function's parameters."""
    return any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in _signature_of(function).parameters.values())
