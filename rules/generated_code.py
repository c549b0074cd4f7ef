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
``diagonal_filled`` is what ``np.fill_diagonal(a, val)`` leaves in ``a``: ``a``'s cotangent
with the diagonal's zeroed, and ``val``'s the diagonal's, summed over the places each item of
``val`` went (NumPy repeats a short one). ``owned_copy`` is the copy of an argument the function changes in place (the cotangent passes
through; the tangent is copied too, ``owned_tangent``, as the function changes it in place); ``write_back`` leaves the function's changes in the caller's argument at the end.

Rules' jvps are differentiated again from their source (``hvp`` is reverse mode over forward
code), so the helpers they call have rules of their own: ``add_tangents`` (the sum of a
call's tangent terms), ``expand_reduced`` (a reduction's value or tangent broadcast back: its
adjoint sums over the reduced axes), ``as_tangent_of`` and ``like_output`` (a tangent cast to
its output's dtype: the cotangent cast back), ``times`` (a product guarded where the tangent is
0), ``unthunk`` (the identity on values), ``array_like`` (a list read as an array), ``split_cotangent`` (a tuple's tangent as its items),
``field_cotangent`` (an entry of a dict's tangent); ``dtype_of`` and ``np.isfortran`` only read a dtype or
a layout, ``tied_indices`` which items ``max``/``min`` return, ``is_zero`` whether a tangent is a symbolic zero.
"""
import copy

import numpy as np

from s2sad.registry.forward import defjvp, deflinear
from s2sad.registry import defrrule, defvjp, nondifferentiable
from s2sad.registry.slopes import like_output, times
from s2sad.runtime.indexing import dtype_of
from s2sad.runtime.accumulate import zeroed_at
from s2sad.runtime.structure import (add_tangents, field_cotangent, insertion_index, split_cotangent, tangent_append,
                                     tangent_extend, tangent_insert,
                                     tangent_field, tangent_filled, tangent_item, tangent_setitem, tangent_without,
                                     written_item_of)

from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk

from .builtins import tied_indices
from .helpers import (added_at, array_like, conj, expand_reduced, fit, merged_keywords, output_parts, owned_copy, safe_divide,
                      deleted_name, diagonal_filled, diagonal_positions, filled_in_place, logged, piecewise_conditions, vectorized_dtype, sorted_in_place, subtracted_at, taken_for_writing, not_the_callers, unbroadcast, write_back, written_into,
                      written_into_argument, written_into_shared)
from .numpy_shapes import as_tangent_of, sort_jvp, sort_vjp


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


def field_cotangent_vjp(g, ans, t, key):
    """The entry's cotangent goes back to that entry of the whole: a dict's, an object's, a tuple's."""
    g, t = unthunk(g), unthunk(t)
    if is_zero(g) or is_zero(t) or t is None:
        return ZERO
    return Tangent(t.primal_type if isinstance(t, Tangent) else type(t), {key: g})


def tangent_field_vjp(g, ans, t, name):
    return ZERO if g is ZERO else Tangent(type(t), {name: g})

def summand_cotangent(g, t):
    """The cotangent of one term ``t`` of ``add_tangents``: ``g`` summed back to ``t``'s shape and
    dtype, item by item for the tangent of a tuple or list output."""
    g = unthunk(g)
    if t is ZERO or g is ZERO:
        return ZERO
    if isinstance(t, (tuple, list)):
        return type(t)(summand_cotangent(part, item) for part, item in zip(output_parts(g, len(t)), t))
    if isinstance(t, dict):  # a dict's tangent (a jvp's result: `params.copy()`'s): its entries' cotangents
        fields = {key: summand_cotangent(field_cotangent(g, key), value) for key, value in t.items()}
        fields = {key: value for key, value in fields.items() if value is not ZERO}
        return Tangent(dict, fields) if fields else ZERO
    if isinstance(t, Tangent):  # an object's tangent (attributes assigned): its fields' cotangents
        fields = {key: summand_cotangent(value, t.fields[key]) for key, value in g.fields.items() if key in t.fields}
        fields = {key: value for key, value in fields.items() if value is not ZERO}
        return Tangent(type(t), fields) if fields else ZERO  # (a Tangent value's: tangent_field_vjp's kind)
    return unbroadcast(g, t)


def add_tangents_vjp_a(g, ans, a, b):
    return summand_cotangent(g, a)


def add_tangents_vjp_b(g, ans, a, b):
    return summand_cotangent(g, b)


def split_cotangent_vjp(g, ans, t, count):
    return tuple(output_parts(g, count))


def expand_reduced_vjp(g, ans, t, a, axis, keepdims, where):
    """The adjoint of broadcasting ``t`` over the reduced axes: the sum over them (of the elements
    ``where`` keeps), in ``t``'s shape and dtype."""
    g = unthunk(g)
    if g is ZERO:
        return ZERO
    if where is True:
        total = np.sum(g, axis=axis, keepdims=True)
    else:
        total = np.sum(np.where(where, g, 0), axis=axis, keepdims=True)
    return unbroadcast(np.reshape(total, np.shape(t)), t)


def tangent_setitem_rrule(t, container, index, value_tangent):
    """``tangent_setitem`` writes into ``t`` where it may; differentiated, it must not: what earlier
    reverse code reads of ``t`` would change under it. So it writes into a copy here."""
    t = unthunk(t)
    before = np.array(t) if isinstance(t, np.ndarray) else list(t) if isinstance(t, list) else t
    after = tangent_setitem(before, container, index, value_tangent)

    def tangent_setitem_pullback(g):
        return (NO_TANGENT, tangent_setitem_vjp_t(g, after, t, container, index, value_tangent), NO_TANGENT, NO_TANGENT,
                tangent_setitem_vjp_value(g, after, t, container, index, value_tangent))

    return after, tangent_setitem_pullback


def tangent_setitem_vjp_t(g, ans, t, container, index, value_tangent):
    """The tangent before ``t[index] = value_tangent`` reaches the result everywhere but at ``index``."""
    g = unthunk(g)
    if g is ZERO or g is NO_TANGENT:
        return ZERO
    return zeroed_at(np.array(g) if isinstance(g, np.ndarray) else copy.copy(g), index)


def tangent_setitem_vjp_value(g, ans, t, container, index, value_tangent):
    part = written_item_of(g, index)  # a repeated fancy index: the last write is the one kept
    value_tangent = unthunk(value_tangent)
    if isinstance(container, np.ndarray) and container.dtype.kind not in "fc":
        return ZERO  # an int array's elements carry no tangent (tangent_setitem writes 0)
    if is_zero(part) or value_tangent is ZERO or value_tangent is NO_TANGENT:
        return part
    return unbroadcast(part, value_tangent)


def tangent_append_vjp_t(g, ans, t, container, value_tangent):
    """The items before the append get theirs; the appended tangent the last."""
    return list(split_cotangent(g, len(container))[:-1])


def tangent_append_vjp_value(g, ans, t, container, value_tangent):
    return split_cotangent(g, len(container))[-1]


def tangent_insert_vjp_t(g, ans, t, container, index, value_tangent):
    """The items around the inserted one get theirs; the inserted tangent its own."""
    items = list(split_cotangent(g, len(container)))
    del items[insertion_index(index, len(container) - 1)]
    return items


def tangent_insert_vjp_value(g, ans, t, container, index, value_tangent):
    return split_cotangent(g, len(container))[insertion_index(index, len(container) - 1)]


def tangent_extend_vjp_t(g, ans, t, container, values_tangent, values):
    """The items before the extend get theirs; the values' tangents the rest."""
    return list(split_cotangent(g, len(container))[:len(container) - len(values)])


def tangent_extend_vjp_values(g, ans, t, container, values_tangent, values):
    items = split_cotangent(g, len(container))[len(container) - len(values):]
    return tuple(items) if isinstance(values, tuple) else list(items)


def tangent_without_vjp(g, ans, t, index):
    """Every item but the one popped gets its cotangent back, in its place."""
    count = len(t)
    items = list(split_cotangent(g, count - 1))
    items.insert(index % count, ZERO)
    return items


def diagonal_filled_vjp_val(g, ans, val, a, wrap):
    taken = np.ravel(g)[diagonal_positions(np.shape(a), wrap)]
    count = max(np.size(val), 1)
    # the k-th place holds item k % count of val: its cotangent is the sum over those places
    summed = np.bincount(np.arange(taken.size) % count, weights=np.real(taken), minlength=count)
    if np.iscomplexobj(taken):
        summed = summed + 1j * np.bincount(np.arange(taken.size) % count, weights=np.imag(taken), minlength=count)
    return unbroadcast(np.reshape(summed.astype(taken.dtype), np.shape(val)), val)


def diagonal_filled_jvp_val(g, ans, val, a, wrap):
    return as_tangent_of(diagonal_filled(g, np.zeros(np.shape(a), np.result_type(ans, g)), wrap), ans)


def times_vjp_t(g, ans, t, slope):
    """``times(t, slope)`` is ``t * slope``, 0 where ``t`` is 0: its slope in ``t`` is ``slope``, at
    ``t == 0`` too wherever that is finite (0 there made a second derivative through a tangent
    that passes through 0, ``dx * h(x)`` at a root of ``h``, wrong); 0 where it is not."""
    with np.errstate(invalid="ignore"):
        return unbroadcast(np.where(np.equal(t, 0) & ~np.isfinite(slope), 0.0 * g, g * conj(slope)), t)


def times_vjp_slope(g, ans, t, slope):
    return unbroadcast(times(g, conj(t)), slope)


defvjp(fit,          "t, ans", "unbroadcast(g, t)", None)
defvjp(safe_divide,  "num, den", "unbroadcast(safe_divide(g, conj(den)), num)",
       "unbroadcast(-safe_divide(g * conj(ans), conj(den)), den)")
defvjp(tangent_item, "t, index", "untake(g, index, t)", None)
defvjp(tangent_filled, "t, like", "g", None)
defvjp(tangent_field, "t, name", tangent_field_vjp, None)
defvjp(written_into,  "new, old", "unbroadcast(g, new)", None)
defvjp(sorted_in_place, "a, axis=-1, kind=None, order=None, *, stable=None", sort_vjp)  # `y.sort()`: np.sort's rules, its receiver checked
defvjp(filled_in_place, "value, a", "unbroadcast(g, value)", None)
defvjp(diagonal_filled, "val, a, wrap=False", diagonal_filled_vjp_val, "diagonal_filled(0, g, wrap)", None)
defvjp(owned_copy,    "value, name, others", "g", None, None)
defvjp(merged_keywords, "first, second", merged_keywords_vjp_first, merged_keywords_vjp_second)
nondifferentiable(write_back)
nondifferentiable(taken_for_writing)  # refuses a write into NumPy's copy, else returns None
nondifferentiable(not_the_callers)  # refuses a write into the caller's object, else returns None
nondifferentiable(deleted_name)  # what `del y` leaves in y: no value at all
nondifferentiable(logged)  # `LOG.append(loss)` into a module's list: a record, no gradient (normalize_statements.py)
nondifferentiable(vectorized_dtype, piecewise_conditions)  # a dtype; boolean masks (numpy_written_out.py)
defvjp(written_into_shared, "new, old, name, other", "unbroadcast(g, new)", None, None, None)
defvjp(written_into_argument, "new, old, name", "unbroadcast(g, new)", None, None)
defvjp(added_at,      "a, indices, b", "g", None, "unbroadcast(np.asarray(g)[indices], b)")
defvjp(subtracted_at, "a, indices, b", "g", None, "unbroadcast(-np.asarray(g)[indices], b)")

defvjp(add_tangents,  "a, b", add_tangents_vjp_a, add_tangents_vjp_b)
defrrule(tangent_setitem, tangent_setitem_rrule, "t, container, index, value_tangent")
defvjp(tangent_append, "t, container, value_tangent", tangent_append_vjp_t, None, tangent_append_vjp_value)
defvjp(tangent_insert, "t, container, index, value_tangent", tangent_insert_vjp_t, None, None, tangent_insert_vjp_value)
defvjp(tangent_extend, "t, container, values_tangent, values", tangent_extend_vjp_t, None, tangent_extend_vjp_values, None)
defvjp(tangent_without, "t, index", tangent_without_vjp, None)
defvjp(expand_reduced, "t, a, axis=None, keepdims=False, where=True", expand_reduced_vjp)
defvjp(as_tangent_of, "t, ans", "unbroadcast(g, t)", None)
defvjp(like_output,   "term, ans", "unbroadcast(g, term)", None)
defvjp(times,         "t, slope", times_vjp_t, times_vjp_slope)
defvjp(unthunk,       "t", "g")
defvjp(array_like,    "value", "g")  # the cotangent of a list an array, as the rules of NumPy's functions give it
defvjp(split_cotangent, "t, count", split_cotangent_vjp, None)
defvjp(field_cotangent, "t, key", field_cotangent_vjp, None)
nondifferentiable(dtype_of, tied_indices, is_zero)  # a dtype; which items max/min return (indices); a symbolic zero?

# ---- forward rules
deflinear(fit, "t")
defjvp(safe_divide, "safe_divide(g, den)", "-safe_divide(g * ans, den)", elementwise=True)
deflinear(tangent_item, "t")
deflinear(tangent_filled, "t")
deflinear(tangent_field, "t")
defjvp(written_into,  "written_into(g, old)", None)
defjvp(sorted_in_place, sort_jvp)
defjvp(filled_in_place, "g", None)
defjvp(diagonal_filled, diagonal_filled_jvp_val, "diagonal_filled(0, g, wrap)", None)
defjvp(owned_copy,    "owned_tangent(g)", None, None)
defjvp(merged_keywords, merged_keywords_jvp_first, merged_keywords_jvp_second)
defjvp(written_into_shared, "written_into(g, old)", None, None, None)
defjvp(written_into_argument, "written_into(g, old)", None, None)
defjvp(added_at,      "g", None, "added_at(np.zeros_like(ans), indices, g)")
defjvp(subtracted_at, "g", None, "subtracted_at(np.zeros_like(ans), indices, g)")
deflinear(add_tangents, "a", "b")
deflinear(expand_reduced, "t")
deflinear(as_tangent_of, "t")
deflinear(like_output, "term")
defjvp(times,         "times(g, slope)", "times(t, g)", elementwise=True)
deflinear(unthunk, "t")
deflinear(array_like, "value")
deflinear(split_cotangent, "t")
deflinear(field_cotangent, "t")
