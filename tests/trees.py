"""Trees of arrays (dicts, lists, tuples, namedtuples, dataclasses of floats and arrays), as the
corpus tests move along them: a point plus a step, a random direction, an inner product."""
import dataclasses

import numpy as np


def combine(x, v, h):
    """``x + h * v`` over a tree: dicts, lists, tuples, namedtuples, dataclasses of floats and arrays."""
    if isinstance(x, dict):
        return {k: combine(x[k], v[k], h) for k in x}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(combine(a, b, h) for a, b in zip(x, v)))
    if isinstance(x, (list, tuple)):
        return type(x)(combine(a, b, h) for a, b in zip(x, v))
    if dataclasses.is_dataclass(x):
        return dataclasses.replace(x, **{f.name: combine(getattr(x, f.name), getattr(v, f.name), h)
                                         for f in dataclasses.fields(x) if f.init})
    if isinstance(x, (np.ndarray, float)):
        return x + h * v
    return x


def direction(x, randn):
    """A random step shaped like ``x``: each float leaf drawn with ``randn``, the rest kept as they are."""
    if isinstance(x, dict):
        return {k: direction(x[k], randn) for k in x}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(direction(a, randn) for a in x))
    if isinstance(x, (list, tuple)):
        return type(x)(direction(a, randn) for a in x)
    if dataclasses.is_dataclass(x):
        return dataclasses.replace(x, **{f.name: direction(getattr(x, f.name), randn) for f in dataclasses.fields(x) if f.init})
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return randn(*x.shape)
    if isinstance(x, float):
        return float(randn())
    return x


def inner(g, v, x):
    """The sum of ``g * v`` over the float leaves of ``x``: a gradient's slope along the step ``v``."""
    if isinstance(x, dict):
        return sum(inner(g[k], v[k], x[k]) for k in x)
    if isinstance(x, (list, tuple)):
        return sum(inner(a, b, c) for a, b, c in zip(g, v, x))
    if dataclasses.is_dataclass(x):
        return sum(inner(getattr(g, f.name), getattr(v, f.name), getattr(x, f.name))
                   for f in dataclasses.fields(x) if f.init)
    if isinstance(x, (np.ndarray, float)) and np.asarray(x).dtype.kind == "f":
        return float(np.sum(np.asarray(g) * v))
    return 0.0


def scaled(v, s):
    return combine(v, v, s - 1.0)


def same_type(g, x):
    if isinstance(x, (dict, list, tuple)) or dataclasses.is_dataclass(x):
        assert type(g) is type(x), f"the gradient of a {type(x).__name__} came back as a {type(g).__name__}"
