"""Rules for changing an object's attribute: ``p.w = v``, written ``p = with_attribute(p, "w", v)``.

An object's cotangent is a structural ``Tangent`` with one entry per field. The new object
holds ``v`` at ``w`` and the old object's other fields as they were, so the cotangent of
``v`` is the new object's ``w`` entry, and the old object's cotangent is the rest of it (its
old ``w`` was overwritten and reaches nothing). Tangents go the same way, forward.

``copy.copy`` and ``copy.deepcopy`` (how a function makes an object of its own to change)
pass cotangents and tangents through.

A lambda that reads the function's variables, used as a value, is ``closure(lambda scale, v:
..., (scale,))`` (runtime/closures.py): its cotangent holds one entry per value it holds, each
handed back to that value; its tangent is made of theirs.
"""
import copy

from s2sad.registry import defvjp
from s2sad.registry.forward import defjvp
from s2sad.runtime.closures import closure, held_parts, held_tangent
from s2sad.runtime.structure import tangent_field
from s2sad.runtime.tangents import ZERO, Tangent, is_zero, unthunk

from .helpers import deep_copied, with_attribute


def _without(tangent, name: str, primal_type: type):
    """``tangent`` (of an object of ``primal_type``) without its entry ``name``."""
    tangent = unthunk(tangent)
    if is_zero(tangent):
        return ZERO
    rest = {key: value for key, value in tangent.fields.items() if key != name}
    return Tangent(primal_type, rest) if rest else ZERO


def with_attribute_vjp_obj(g, ans, obj, name, value):
    return _without(g, name, type(obj))


def with_attribute_vjp_value(g, ans, obj, name, value):
    return ZERO if is_zero(unthunk(g)) else tangent_field(g, name)


def with_attribute_jvp_obj(g, ans, obj, name, value):
    return _without(g, name, type(ans))


def with_attribute_jvp_value(g, ans, obj, name, value):
    return ZERO if is_zero(unthunk(g)) else Tangent(type(ans), {name: g})


def with_attribute_jvp_obj_vjp_g(cotangent, term, g, ans, obj, name, value):
    # the cotangent of a tangent (a Tangent value), as tangent_field's reverse writes it: of type Tangent
    return ZERO if is_zero(unthunk(g)) else _without(cotangent, name, type(unthunk(g)))


def with_attribute_jvp_value_vjp_g(cotangent, term, g, ans, obj, name, value):
    return ZERO if is_zero(unthunk(cotangent)) else tangent_field(cotangent, name)


defvjp(with_attribute, "obj, name, value", with_attribute_vjp_obj, None, with_attribute_vjp_value)
defjvp(with_attribute, with_attribute_jvp_obj, None, with_attribute_jvp_value)
# The jvps are linear in ``g``: their reverses (forward code read again for a Hessian) are the vjps',
# not their source (a dict keyed by a variable, which s2sad does not differentiate)
defvjp(with_attribute_jvp_obj, "g, ans, obj, name, value", with_attribute_jvp_obj_vjp_g, None, None, None, None)
defvjp(with_attribute_jvp_value, "g, ans, obj, name, value", with_attribute_jvp_value_vjp_g, None, None, None, None)


# ------------------------------------------------------------------ copy.copy, copy.deepcopy
# A copy holds the same values: each cotangent and tangent passes through as it is.
def copied_vjp(g, ans, x, memo=None):
    return g


def copied_jvp(g, ans, x, memo=None):
    return g


defvjp(copy.copy, "x", copied_vjp)
defvjp(copy.deepcopy, "x, memo=None", copied_vjp)
defjvp(copy.copy, copied_jvp)
defjvp(copy.deepcopy, copied_jvp)


# copy.deepcopy as generated code calls it: the copy's tangent is a copy of the original's (the
# tangent dict of `q = copy.deepcopy(params)` is changed in place where `q["W"] = ...` is), and so
# is its cotangent
def deep_copied_tangent(g, ans, x, memo=None):
    return copy.deepcopy(unthunk(g))


def deep_copied_tangent_vjp_g(cotangent, result, g, ans, x, memo=None):
    return copy.deepcopy(unthunk(cotangent))


defvjp(deep_copied, "x, memo=None", deep_copied_tangent)
defjvp(deep_copied, deep_copied_tangent)
# linear in g: its reverse (forward code read again for a Hessian) is a copy too
defvjp(deep_copied_tangent, "g, ans, x, memo=None", deep_copied_tangent_vjp_g, None, None, None)


# ------------------------------------------------------------------ closures
def closure_vjp_held(g, ans, function, held):
    parts = held_parts(g, len(held))
    return Tangent(tuple, {i: part for i, part in enumerate(parts) if not is_zero(part)}) \
        if any(not is_zero(part) for part in parts) else ZERO


def closure_jvp_held(g, ans, function, held):
    return held_tangent(held_parts(g, len(held)))


def closure_jvp_held_vjp_g(cotangent, ans, g, closure_value, function, held):
    """The jvp above is linear in ``g``: its reverse (forward code read again for a Hessian) is the vjp."""
    return closure_vjp_held(cotangent, closure_value, function, held)


defvjp(closure, "function, held", None, closure_vjp_held)
defjvp(closure, None, closure_jvp_held)
defvjp(closure_jvp_held, "g, ans, function, held", closure_jvp_held_vjp_g, None, None, None)
