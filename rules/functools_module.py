"""Rules for ``functools.reduce``: the callee's own derivative, applied step by step.

``functools.reduce(function, items, initial)`` is ``function(...function(function(initial,
items[0]), items[1])..., items[-1])``; without ``initial`` the first item starts the chain.
Each step is differentiated by what ``function`` is when the code runs (a rule, a lambda or a
function of the user's, differentiated from its source: ``runtime/calls.py``). The pullback
runs the steps' pullbacks backwards, the cotangent of each step's first argument becoming that
of the step before; the tangent runs the steps forwards. An empty sequence without ``initial``
raises the ``TypeError`` Python raises.

The forward rule's signature spells "no initial value" as a string: a call giving that very
string as ``initial`` would be taken for one giving none.
"""
import functools

from s2sad.registry import defrrule
from s2sad.registry.forward import defjvp
from s2sad.runtime.calls import call_jvp, call_rrule
from s2sad.runtime.structure import split_cotangent
from s2sad.runtime.tangents import NO_TANGENT, ZERO, unthunk

from .python_containers import items_like

NO_INITIAL = "<no initial value>"


def _chain(items: list, initial: tuple):
    """The value the chain starts from and the items it goes on with."""
    if initial:
        return initial[0], items
    if not items:
        raise TypeError("reduce() of empty iterable with no initial value")
    return items[0], items[1:]


def reduce_rrule(function, iterable, *initial):
    items = list(iterable)
    value, rest = _chain(items, initial)
    pullbacks = []
    for item in rest:
        value, pullback = call_rrule(function, value, item)
        pullbacks.append(pullback)

    def reduce_pullback(g):
        rest_cotangents = [ZERO] * len(rest)
        for step in reversed(range(len(pullbacks))):
            cotangents = pullbacks[step](g)  # (call, function, accumulated value, item)
            g, rest_cotangents[step] = unthunk(cotangents[2]), unthunk(cotangents[3])
        if initial:
            return NO_TANGENT, NO_TANGENT, items_like(rest_cotangents, iterable), g
        return NO_TANGENT, NO_TANGENT, items_like([g] + rest_cotangents, iterable)

    return value, reduce_pullback


def _reduce_tangent(function, items: list, item_tangents, initial: tuple, initial_tangent):
    value, rest = _chain(items, initial)
    tangents = split_cotangent(item_tangents, len(items))
    tangent = initial_tangent if initial else tangents[0]
    rest_tangents = tangents if initial else tangents[1:]
    for item, item_tangent in zip(rest, rest_tangents):
        step = function(value, item)
        tangent = call_jvp(function, step, (value, item), (unthunk(tangent), unthunk(item_tangent)))
        value = step
    return tangent


def _given(initial) -> tuple:
    return () if isinstance(initial, str) and initial == NO_INITIAL else (initial,)


def reduce_jvp_iterable(g, ans, function, iterable, initial):
    return _reduce_tangent(function, list(iterable), g, _given(initial), ZERO)


def reduce_jvp_initial(g, ans, function, iterable, initial):
    items = list(iterable)
    return _reduce_tangent(function, items, [ZERO] * len(items), _given(initial), g)


defrrule(functools.reduce, reduce_rrule, signature=f"function, iterable, initial={NO_INITIAL!r}", name="functools.reduce")
defjvp(functools.reduce, None, reduce_jvp_iterable, reduce_jvp_initial)
