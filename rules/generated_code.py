"""Rules for the functions generated code itself calls, so that generated code can be
differentiated again: reverse mode over forward code (Hessian-vector products), forward
mode over forward code (derivatives of derivatives).

``fit`` (a tangent broadcast up to its output's shape), ``tangent_item`` (an element of
a sequence's tangent) and ``tangent_filled`` (a sequence's tangent with zeros for its ZERO
items) are linear in the tangent they take. ``safe_divide`` (``num / den``,
exactly 0 where ``num`` is 0) is what the rules of ``log``, ``sqrt`` and friends divide with.
``added_at`` and ``subtracted_at`` are what ``np.add.at`` and ``np.subtract.at`` become: every
occurrence of a repeated index adds its value. ``written_into`` is what ``y += v`` leaves in an
array ``y`` (its dtype kept): its cotangent passes through, cast to the dtype of ``y + v``
(``written_into_shared`` when another name reads ``y`` after: it refuses an array or a list).
``owned_copy`` is the copy of an argument the function changes in place (the cotangent passes
through; the tangent is copied too, ``owned_tangent``, as the function changes it in place); ``write_back`` leaves the function's changes in the caller's argument at the end.
"""
from s2sad.registry.forward import defjvp, deflinear
from s2sad.registry import defvjp, nondifferentiable
from s2sad.runtime.structure import field_cotangent, tangent_field, tangent_filled, tangent_item

from s2sad.runtime.tangents import ZERO, Tangent, unthunk

from .helpers import (added_at, fit, merged_keywords, owned_copy, safe_divide, subtracted_at, write_back,
                      written_into, written_into_shared)


def _entries(g, keys):
    g = unthunk(g)
    if g is ZERO:
        return ZERO
    return {key: field_cotangent(g, key) for key in keys}


def merged_keywords_vjp_first(g, ans, first, second):
    entries = _entries(g, first)
    return ZERO if entries is ZERO else Tangent(dict, entries)


def merged_keywords_vjp_second(g, ans, first, second):
    entries = _entries(g, second)
    return ZERO if entries is ZERO else Tangent(dict, entries)


def merged_keywords_jvp_first(g, ans, first, second):
    entries = _entries(g, first)
    return ZERO if entries is ZERO else {**{key: ZERO for key in second}, **entries}


def merged_keywords_jvp_second(g, ans, first, second):
    entries = _entries(g, second)
    return ZERO if entries is ZERO else {**{key: ZERO for key in first}, **entries}


def tangent_field_vjp(g, ans, t, name):
    return ZERO if g is ZERO else Tangent(type(t), {name: g})

defvjp(fit,          "t, ans", "unbroadcast(g, t)", None)
defvjp(safe_divide,  "num, den", "unbroadcast(safe_divide(g, conj(den)), num)",
       "unbroadcast(-safe_divide(g * conj(ans), conj(den)), den)")
defvjp(tangent_item, "t, index", "untake(g, index, t)", None)
defvjp(tangent_filled, "t, like", "g", None)
defvjp(tangent_field, "t, name", tangent_field_vjp, None)
defvjp(written_into,  "new, old", "unbroadcast(g, new)", None)
defvjp(owned_copy,    "value, name, others", "g", None, None)
defvjp(merged_keywords, "first, second", merged_keywords_vjp_first, merged_keywords_vjp_second)
nondifferentiable(write_back)
defvjp(written_into_shared, "new, old, name, other", "unbroadcast(g, new)", None, None, None)
defvjp(added_at,      "a, indices, b", "g", None, "unbroadcast(np.asarray(g)[indices], b)")
defvjp(subtracted_at, "a, indices, b", "g", None, "unbroadcast(-np.asarray(g)[indices], b)")

# ---- forward rules
deflinear(fit, "t")
defjvp(safe_divide, "safe_divide(g, den)", "-safe_divide(g * ans, den)", elementwise=True)
deflinear(tangent_item, "t")
deflinear(tangent_filled, "t")
deflinear(tangent_field, "t")
defjvp(written_into,  "written_into(g, old)", None)
defjvp(owned_copy,    "owned_tangent(g)", None, None)
defjvp(merged_keywords, merged_keywords_jvp_first, merged_keywords_jvp_second)
defjvp(written_into_shared, "written_into(g, old)", None, None, None)
defjvp(added_at,      "g", None, "added_at(np.zeros_like(ans), indices, g)")
defjvp(subtracted_at, "g", None, "subtracted_at(np.zeros_like(ans), indices, g)")
