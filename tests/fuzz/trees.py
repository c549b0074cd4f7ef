"""Structured arguments: the floats and arrays inside lists, tuples, dicts, namedtuples and dataclasses.

Users differentiate with respect to a list of ``(W, b)`` layers, a dict of named arrays, a
namedtuple or a small dataclass. The oracle differences every LEAF of such an argument (a
float or an array) on its own, and reads s2sad's gradient leaf by leaf, once it has checked
that the gradient has the argument's own structure, as the README promises ("Containers come
back as themselves"): the same container type, the same keys in the same order, the same
length, a float or array for each leaf, None for an int inside a container.

A program's namedtuples and dataclasses are classes of its own module, which does not exist
while the generator draws the inputs: it holds a ``Record`` (the class's name and the fields),
``materialise`` makes the instance of the class a namespace defines, and a regression file
spells it as a call of the class (``Layer(W=np.array(...), b=np.array(...))``).
"""
from __future__ import annotations

import copy
import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Record:
    """An instance of the program's class ``class_name`` to be: its fields, in declaration order."""

    class_name: str
    fields: tuple            # ((name, value), ...)


LEAF_TYPES = (float, complex, np.floating, np.complexfloating, np.ndarray)


def is_leaf(value) -> bool:
    """A float or an array: what has a gradient of its own."""
    return isinstance(value, LEAF_TYPES)


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def children(value):
    """``(key, item)`` pairs of a container (keys as a message names them); None for anything else."""
    if isinstance(value, Record):
        return [(f".{name}", item) for name, item in value.fields]
    if isinstance(value, dict):
        return [(f"[{key!r}]", item) for key, item in value.items()]
    if _is_namedtuple(value):
        return [(f".{name}", item) for name, item in zip(type(value)._fields, value)]
    if isinstance(value, (list, tuple)):
        return [(f"[{index}]", item) for index, item in enumerate(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f".{field.name}", getattr(value, field.name)) for field in dataclasses.fields(value)]
    return None


def is_container(value) -> bool:
    return children(value) is not None


def rebuilt(value, items: list):
    """``value``'s container holding ``items`` instead (a dataclass: a shallow copy with its
    fields set, its ``__init__`` and ``__post_init__`` not run, as s2sad builds gradients)."""
    if isinstance(value, Record):
        return Record(value.class_name, tuple((name, item) for (name, _), item in zip(value.fields, items)))
    if isinstance(value, dict):
        return dict(zip(value.keys(), items))
    if _is_namedtuple(value):
        return type(value)(*items)
    if isinstance(value, (list, tuple)):
        return type(value)(items)
    made = copy.copy(value)
    for field, item in zip(dataclasses.fields(value), items):
        object.__setattr__(made, field.name, item)
    return made


def flatten(value, path: str = "") -> list:
    """``(path, leaf)`` of every float and array in ``value``, depth first (a leaf itself: one pair)."""
    pairs = children(value)
    if pairs is None:
        return [(path, value)] if is_leaf(value) else []
    return [found for key, item in pairs for found in flatten(item, path + key)]


def leaves(value) -> list:
    return [leaf for _, leaf in flatten(value)]


def tree_map(function, value, static=lambda item: item):
    """``value`` with each leaf replaced by ``function(leaf)``, each other non-container item
    by ``static(item)`` (kept as it is by default)."""
    pairs = children(value)
    if pairs is None:
        return function(value) if is_leaf(value) else static(value)
    return rebuilt(value, [tree_map(function, item, static) for _, item in pairs])


def with_leaves(value, new: list):
    """``value`` with its leaves, in ``flatten`` order, replaced by ``new``."""
    supply = iter(new)
    return tree_map(lambda _: next(supply), value)


def materialise(value, namespace: dict):
    """``value`` with every ``Record`` made an instance of the class ``namespace`` names, and
    fresh copies of its arrays (a check must never see another check's changes)."""
    if isinstance(value, Record):
        return namespace[value.class_name](**{name: materialise(item, namespace) for name, item in value.fields})
    pairs = children(value)
    if pairs is not None:
        return rebuilt(value, [materialise(item, namespace) for _, item in pairs])
    return value.copy() if isinstance(value, np.ndarray) else value


def literal(value, leaf_literal) -> str:
    """Source text of ``value`` (a ``Record`` as a call of its class), leaves by ``leaf_literal``."""
    if isinstance(value, Record):
        return f"{value.class_name}(" + ", ".join(f"{name}={literal(item, leaf_literal)}"
                                                  for name, item in value.fields) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key!r}: {literal(item, leaf_literal)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(item, leaf_literal) for item in value) + "]"
    if isinstance(value, tuple) and not _is_namedtuple(value):
        items = [literal(item, leaf_literal) for item in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return leaf_literal(value)


def structure_mismatch(gradient, primal, path: str = "") -> str | None:
    """How ``gradient``'s structure differs from what s2sad documents for ``primal``, or None:
    the same container (type, keys and their order, length) at every level, None for an item
    without a tangent space (an int, a string, None), anything at a leaf (its type and dtype
    are checked leaf by leaf)."""
    pairs = children(primal)
    if pairs is None:
        if is_leaf(primal):
            return None
        if gradient is not None:
            return f"{path or 'the argument'} (a {type(primal).__name__}) has the gradient {gradient!r}, not None"
        return None
    where = path or "the argument"
    if type(gradient) is not type(primal):
        return f"{where} is a {type(primal).__name__} but its gradient a {type(gradient).__name__}"
    return _item_problem(pairs, children(gradient), lambda item, given, at: structure_mismatch(given, item, at), path,
                         lambda keys, found: f"{where} has the items {keys} but its gradient {found}")


def _item_problem(pairs, found, check, path: str, keys_differ) -> str | None:
    """Two containers' items: ``keys_differ(keys, found keys)`` if their keys differ, else the
    first problem ``check(item, found item, path)`` finds, else None."""
    keys, found_keys = [key for key, _ in pairs], [key for key, _ in found]
    if keys != found_keys:
        return keys_differ(keys, found_keys)
    for (key, item), (_, other) in zip(pairs, found):
        problem = check(item, other, path + key)
        if problem:
            return problem
    return None


def difference(before, after, path: str) -> str | None:
    """How ``after`` differs from ``before`` (a caller's argument after the checks), or None."""
    if type(before) is not type(after):
        return f"{path} changed type from {type(before).__name__} to {type(after).__name__}"
    pairs = children(before)
    if pairs is not None:
        return _item_problem(pairs, children(after), difference, path,
                             lambda keys, found: f"{path} changed its items from {keys} to {found}")
    if isinstance(before, np.ndarray):
        if before.shape != after.shape or before.dtype != after.dtype or not np.array_equal(before, after):
            return f"{path} was changed in place: {before.tolist()} became {after.tolist()}"
        return None
    if before != after:
        return f"{path} changed from {before!r} to {after!r}"
    return None


def leaves_like(value, like) -> list:
    """The items of ``value`` where ``like`` has its leaves (``value`` has ``like``'s structure:
    ``structure_mismatch`` found nothing), whatever they are: a wrong one is still seen."""
    pairs = children(like)
    if pairs is None:
        return [value] if is_leaf(like) else []
    return [found for (_, item), (_, given) in zip(pairs, children(value)) for found in leaves_like(given, item)]
