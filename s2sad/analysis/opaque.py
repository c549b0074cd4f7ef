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
import re

import numpy as np


from .activity import CONSTANT_METHODS
from .argument_writes import UNKNOWN, LambdaGiven, may_write_into_parameters
from ..errors import MissingRuleError, UnsupportedSyntaxError
from ..frontend.ir import Const, Operation, Var
from ..frontend.resolve import Environment, found
from ..runtime.constructors import stored_fields
from ..registry import rule_for

# Writes its arguments to a stream and changes none of them.
_LEAVES_ARGUMENTS_ALONE = {builtins.print}
# Methods that leave their receiver alone: NumPy's array methods (those that change the array, `.sort()`,
# `.fill()`, the front end writes out or refuses), and what reads a dict, list or string
_LEAVE_THE_RECEIVER = {name for name in dir(np.ndarray) if not name.startswith("_")} | {
    "keys", "values", "items", "get", "count", "index", "startswith", "endswith", "split", "strip", "join", "lower",
    "upper"}

def check_call(op: Operation, varied: set, differentiated: bool, location, treatment_of, caller=None) -> bool:
    """Raise when the call ``op`` receives a varied (differentiated) value and s2sad cannot
    vouch for what it does with it. ``differentiated``: the generator differentiates the
    call's result (by ``treatment_of(op)``, which raises itself when it cannot). ``caller``:
    the user's function the call is in, whose names a function passed to the callee is read by.
    True when the receiver's type decides, as the code runs (``receiver_left_alone``)."""
    if op.kind not in ("call", "effect") or op.callee is None:
        return False
    given = [atom for atom in op.atoms() if isinstance(atom, Var) and atom.name in varied]
    if not given:
        return False
    callee = op.callee
    text = location.text.strip() if location is not None and location.text else callee.spelling
    for keyword, atom in op.kwargs:
        if keyword == "out":
            raise UnsupportedSyntaxError(
                f"`{callee.spelling}(..., out=...)` writes its result into an array, and a value it is given is "
                "differentiated: s2sad does not differentiate writes through out=",
                location, hint="assign the result instead (buf = np.add(x, 1.0)), which s2sad differentiates")
    if callee.kind == "attribute":
        return False
    if callee.kind == "method" and callee.name in CONSTANT_METHODS:
        return all(atom is op.args[0] for atom in given)  # x.argmax(): an array's, when x is one
    if callee.kind == "method" and callee.name == "format" and isinstance(op.args[0], Const):
        return False  # a message written as an f-string: formatting reads its values
    if callee.kind == "static" and isinstance(callee.value, type) and issubclass(callee.value, BaseException):
        return False  # an exception made for `raise`, holding its message
    if callee.kind == "method":
        if differentiated:
            return False  # method_rrule picks the rule by the receiver's type, and refuses without one
        named = getattr(callee.named, "__s2sad_original__", callee.named)
        if inspect.isfunction(named) and rule_for(callee.named) is None:
            # `squared_norm(*pairs[0])` read only by a test, or not at all: a function named in the
            # source and called with `*`, judged by its source as the same call written out is
            _refuse_writes_into_arguments(named, text, callee.spelling, location)
            return False
        if isinstance(callee.value, type) and stored_fields(callee.value) is not None:
            return False  # a constructor that only stores its arguments leaves them alone
        if all(atom is op.args[0] for atom in given):
            if callee.name in _LEAVE_THE_RECEIVER:
                return True  # x.max() read for a test, when x is an array (and not an object with a .max of its own)
            # `model.update(2.0)`: a method of the user's class may change its object (`self.W = ...`),
            # and, its result not differentiated, the change would be a constant's
            # (`if model.ok():` uses the result, as a test: its value carries no gradient there)
            result = "does not use its result" if op.kind == "effect" else \
                "uses its result only where it carries no gradient (a test, a count, an index)"
            raise UnsupportedSyntaxError(
                f"`{text}` calls `.{callee.name}` on a differentiated value and {result}: a "
                "method of your class may change its object (`self.W = ...`), which s2sad does not follow "
                "into the caller", location,
                hint=f"make `.{callee.name}` return what it computes and use that (`W = model.{callee.name}(...)`), "
                     "or build a new object")
        if callee.name in _LIST_CHANGES:  # `state.trace.append(x)`, `history["s"].append(s)`
            raise MissingRuleError(
                f"`{text}` calls the method `.{callee.name}` with a differentiated value on a list that is no "
                "variable of the function's own (an object's field, an item of a dict or list): s2sad follows a "
                "list changed in place only under the function's own name for it", location, hint=_method_hint(callee.name))
        raise MissingRuleError(
            f"`{text}` calls the method `.{callee.name}` with a differentiated value, and its result is not "
            "differentiated: a method without a rule may write the value into its receiver or an argument "
            "(a buffer read later), which s2sad cannot see",
            location, hint=_method_hint(callee.name))
    value = callee.value
    rule = rule_for(value)
    if rule is not None:  # random draws and weighted counts refuse in their rules (rules/refusals.py)
        return False
    if differentiated or value in _LEAVES_ARGUMENTS_ALONE or getattr(value, "reads_its_arguments_only", False):
        return False  # differentiated: treatment_of has a source to transform, or refuses
    original = getattr(value, "__s2sad_original__", value)
    if inspect.isfunction(original):
        treatment_of(op)  # a user function: refuses s2sad's own transforms, takes the rest
        if not _a_rules_function(original):  # (a jvp of s2sad's rules, in forward code read again for hvp)
            _refuse_writes_into_arguments(original, text, callee.spelling, location,
                                          functions_given(original, op, caller))
        return False
    treatment_of(op)  # no rule and no source: raises the located "no rule for ..." error
    return False


def _a_rules_function(function) -> bool:
    """A function of s2sad's rules or registry (a rule's jvp or vjp, a template compiled to one):
    it computes a new value from its arguments, as the rules' tests check, and keeps none."""
    module = getattr(function, "__module__", "") or ""
    return module.startswith(("s2sad.rules.", "s2sad.registry", "rules."))


def functions_given(function, op: Operation, caller) -> dict | None:
    """What the call ``op`` passes to ``function``'s parameters, for a parameter the function calls
    (``dense(x, W, b, act=np.sin)``): the function a name of the caller's module names, a lambda's
    source, or UNKNOWN (a variable's value); the parameters it leaves out hold their defaults. None
    when the call cannot be matched to the signature (``*args`` written at the call)."""
    if caller is None or not hasattr(caller, "__code__"):
        return None
    try:
        bound = inspect.signature(function).bind_partial(*op.args, **dict(op.kwargs))
    except (TypeError, ValueError):
        return None
    environment = Environment(caller)
    given = {}
    for name, atom in bound.arguments.items():
        given[name] = UNKNOWN
        if not isinstance(atom, Const):
            continue
        if atom.code.lstrip().startswith("lambda"):
            given[name] = LambdaGiven(atom.code, caller)
        elif _DOTTED_NAME.fullmatch(atom.code):
            value = environment.resolve_dotted(atom.code)
            if found(value) and callable(value):
                given[name] = value
    return given


_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _refuse_writes_into_arguments(function, text: str, spelling: str, location, given=None) -> None:
    """A user's function whose result is not differentiated, given a differentiated value: refused
    unless its source only reads its arguments and keeps nothing (``given``: the functions the
    call passes it, see :func:`functions_given`)."""
    if not may_write_into_parameters(function, given):
        return
    # It may write into what something else reads: a buffer whose value a result read only by a
    # test does not carry (r = fill(buf, x); if r: ...), the array a view looks into (fill(buf[0:3], x));
    # or keep the value where the function reads it later, even a value nothing else reads
    # (record(x * 2.0) storing it into a global dict or buffer the function then reads).
    raise UnsupportedSyntaxError(
        f"`{text}` gives {spelling} a differentiated value, and {spelling} may write into its arguments or keep "
        "them (in a global, an object) (its result alone is not differentiated here): s2sad differentiates what "
        "a function returns, not what it writes or keeps",
        location, hint=f"return the value {spelling} computes and use the result")


def _method_hint(name: str) -> str:
    if name in _LIST_CHANGES:
        # `history["s"].append(s)`: the list is an item of a dict or list, where s2sad does not follow changes
        return (f"keep the list in a variable of the function's own (`trace = []` ... `trace.{name}(...)`) and put "
                f"it in the object, dict or list once it is complete (`state.trace = trace`)")
    # `r.step(h)` whose method keeps h in its object (`self.history.append(h)`) and the function reads
    # r.history after: the method's result does not reach the output, the kept value does
    return (f"if `.{name}` is a method of your class that keeps the value in its object (`self.history.append(h)`), "
            f"return what it keeps and collect it in a list of the function's own (`hs.append(...)`); otherwise "
            f"register a rule for it (s2sad.defmethod(type, {name!r}, ...)), or call it on values that are not "
            "differentiated")


_LIST_CHANGES = {"append", "extend", "pop", "insert", "remove"}
