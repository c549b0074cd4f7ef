"""Calls s2sad does not differentiate, given a differentiated value: refused, never constants.

A call's result is differentiated by its rule or its source (``generate.treatment``). A
call whose result is not differentiated (kept for its side effect, or unused) still runs,
and what it does with a differentiated argument is out of s2sad's sight: a compiled
``loss(x, out=buf)`` or ``np.copyto(buf, x)`` writes the value into a buffer the function
reads later, and treating the call as a constant gives a zero gradient. So such a call
passes only when s2sad knows it leaves its arguments alone and carries no gradient into
anything else.
"""
from __future__ import annotations

import builtins
import inspect

import numpy as np

from .activity import CONSTANT_METHODS
from .errors import MissingRuleError, UnsupportedSyntaxError
from .ir import Operation, Var
from .registry import rule_for

# Writes its arguments to a stream and changes none of them.
_LEAVES_ARGUMENTS_ALONE = {builtins.print}

# Registered as nondifferentiable, yet their value moves with some arguments: a random
# draw with a differentiated location or scale (reparametrise it instead), a permutation
# or choice of differentiated values, counts weighted by differentiated weights.
_DRAWS = {np.random.rand, np.random.randn, np.random.random, np.random.uniform, np.random.normal,
          np.random.randint, np.random.choice, np.random.permutation, np.random.default_rng}
_CARRIES_GRADIENT = _DRAWS | {np.bincount}


def check_call(op: Operation, varied: set, differentiated: bool, result_read: bool, location, treatment_of) -> None:
    """Raise when the call ``op`` receives a varied (differentiated) value and s2sad cannot
    vouch for what it does with it. ``differentiated``: the generator differentiates the
    call's result (by ``treatment_of(op)``, which raises itself when it cannot);
    ``result_read``: some code reads the result."""
    if op.kind not in ("call", "effect") or op.callee is None:
        return
    given = [atom for atom in op.atoms() if isinstance(atom, Var) and atom.name in varied]
    if not given:
        return
    callee = op.callee
    text = location.text.strip() if location is not None and location.text else callee.spelling
    for keyword, atom in op.kwargs:
        if keyword == "out":
            raise UnsupportedSyntaxError(
                f"`{callee.spelling}(..., out=...)` writes its result into an array, and a value it is given is "
                "differentiated: s2sad does not differentiate writes through out=",
                location, hint="assign the result instead (buf = np.add(x, 1.0)), which s2sad differentiates")
    if callee.kind == "attribute" or (callee.kind == "method" and callee.name in CONSTANT_METHODS):
        return
    if callee.kind == "method":
        if differentiated:
            return  # method_rrule picks the rule by the receiver's type, and refuses without one
        if all(atom is op.args[0] for atom in given):
            return  # x.max() read for a test: an array method leaves its receiver alone (the fence refuses those that do not)
        raise MissingRuleError(
            f"`{text}` calls the method `.{callee.name}` with a differentiated value, and its result is not "
            "differentiated: a method without a rule may write the value into its receiver or an argument "
            "(a buffer read later), which s2sad cannot see",
            location, hint=f"register a rule for it (s2sad.defmethod(type, {callee.name!r}, ...)), or call it on "
                           "values that are not differentiated")
    value = callee.value
    rule = rule_for(value)
    if rule is not None:
        if rule.nondifferentiable and _carries_gradient(value):
            raise MissingRuleError(
                f"`{callee.spelling}` is given a differentiated value, and its result moves with it: s2sad has "
                "no rule for that (its registration as nondifferentiable covers constant arguments only)",
                location, hint="reparametrise a random draw (loc + scale * np.random.standard_normal(shape)), "
                               "or register a rule with s2sad.defvjp")
        return
    if differentiated or value in _LEAVES_ARGUMENTS_ALONE:
        return  # differentiated: treatment_of has a source to transform, or refuses
    original = getattr(value, "__s2sad_original__", value)
    if inspect.isfunction(original):
        treatment_of(op)  # a user function: refuses s2sad's own transforms, takes the rest
        if op.kind != "effect" and result_read:
            return  # its result read for a test (if is_small(x): ...)
        raise UnsupportedSyntaxError(
            f"`{text}` calls {callee.spelling} with a differentiated value for its side effects only (its result "
            "is not used): s2sad differentiates what a function returns, not what it writes into its arguments",
            location, hint=f"return the value {callee.spelling} computes and use the result")
    treatment_of(op)  # no rule and no source: raises the located "no rule for ..." error


def _carries_gradient(value) -> bool:
    try:
        return value in _CARRIES_GRADIENT
    except TypeError:  # unhashable
        return False
