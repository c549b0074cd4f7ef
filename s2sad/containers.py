"""Gradients in the user's own containers.

Inside s2sad the cotangent of a container is a structural ``Tangent``; at the API boundary the
user gets back the kind of container they passed in, as JAX does with pytrees: a dict for a
dict (same keys, same order), a list for a list, a tuple for a tuple, the namedtuple or
dataclass for a namedtuple or dataclass, nested to any depth, with zeros where nothing
flowed. A leaf without a tangent space (an int, a string, a function) gets None. An object
of any other class keeps its ``Tangent``: it has no container to fill in.
"""
from __future__ import annotations

import copy
import dataclasses

from .runtime.tangents import NO_TANGENT, Tangent


def as_container(primal, gradient):
    """``gradient`` (projected onto ``primal``: every field present) in ``primal``'s own container."""
    if type(gradient) is not Tangent:
        return None if gradient is NO_TANGENT else gradient
    kind = type(primal)
    if isinstance(primal, dict):
        items = [(key, as_container(value, gradient[key])) for key, value in primal.items()]
        return dict(items) if kind is dict else _rebuilt(kind, items)
    if isinstance(primal, tuple) and hasattr(kind, "_fields"):
        return kind(*(as_container(value, gradient[name]) for name, value in zip(kind._fields, primal)))
    if isinstance(primal, (list, tuple)):
        items = [as_container(value, gradient[index]) for index, value in enumerate(primal)]
        return items if kind is list else tuple(items) if kind is tuple else _rebuilt(kind, items)
    if dataclasses.is_dataclass(primal):
        made = copy.copy(primal)
        for field in dataclasses.fields(primal):
            object.__setattr__(made, field.name, as_container(getattr(primal, field.name), gradient[field.name]))
        return made
    return gradient


def _rebuilt(kind, items):
    """A subclass of dict, list or tuple rebuilt from its items, or the plain container if it
    cannot be (a defaultdict needs its factory)."""
    try:
        return kind(items)
    except TypeError:
        base = dict if issubclass(kind, dict) else list if issubclass(kind, list) else tuple
        return base(items)
