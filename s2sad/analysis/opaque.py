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

import ast
import builtins
import inspect
import textwrap

import numpy as np


from .activity import CONSTANT_ATTRIBUTES, CONSTANT_METHODS
from ..errors import MissingRuleError, UnsupportedSyntaxError
from ..frontend.ir import Const, Operation, Var
from ..frontend.resolve import Environment, found
from ..frontend.wrappers import source_lines
from ..runtime.constructors import stored_fields
from ..registry import rule_for

# Writes its arguments to a stream and changes none of them.
_LEAVES_ARGUMENTS_ALONE = {builtins.print}
# Methods that leave their receiver alone: NumPy's array methods (those that change the array, `.sort()`,
# `.fill()`, the front end writes out or refuses), and what reads a dict, list or string
_LEAVE_THE_RECEIVER = {name for name in dir(np.ndarray) if not name.startswith("_")} | {
    "keys", "values", "items", "get", "count", "index", "startswith", "endswith", "split", "strip", "join", "lower",
    "upper"}

def check_call(op: Operation, varied: set, differentiated: bool, location, treatment_of) -> bool:
    """Raise when the call ``op`` receives a varied (differentiated) value and s2sad cannot
    vouch for what it does with it. ``differentiated``: the generator differentiates the
    call's result (by ``treatment_of(op)``, which raises itself when it cannot). True when
    the receiver's type decides, as the code runs (``receiver_left_alone``)."""
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
            _refuse_writes_into_arguments(original, text, callee.spelling, location)
        return False
    treatment_of(op)  # no rule and no source: raises the located "no rule for ..." error
    return False


def _a_rules_function(function) -> bool:
    """A function of s2sad's rules or registry (a rule's jvp or vjp, a template compiled to one):
    it computes a new value from its arguments, as the rules' tests check, and keeps none."""
    module = getattr(function, "__module__", "") or ""
    return module.startswith(("s2sad.rules.", "s2sad.registry", "rules."))


def _refuse_writes_into_arguments(function, text: str, spelling: str, location) -> None:
    """A user's function whose result is not differentiated, given a differentiated value: refused
    unless its source only reads its arguments."""
    if not may_write_into_parameters(function):
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
        return (f"s2sad differentiates `.{name}` on a list held in a variable of the function's own: keep it in "
                f"one (`s_history = []` ... `s_history.{name}(...)`) and build the dict or list from it at the end")
    return (f"register a rule for it (s2sad.defmethod(type, {name!r}, ...)), or call it on values that are not "
            "differentiated")


_LIST_CHANGES = {"append", "extend", "pop", "insert", "remove"}

_parameter_verdicts: dict = {}  # code object -> whether the function may write into a parameter


def may_write_into_parameters(function) -> bool:
    """Whether ``function``'s source could change an array or object passed to it; True when unsure.

    It cannot when each parameter is only read: as an operand (``p * 2``, ``p < 0``), indexed
    or sliced for reading (``p[0]``), an attribute read (``p.shape``), or an argument of a
    function s2sad has a rule for, with any keywords but ``out=`` (NumPy's functions write
    into no argument but ``out=``). Anything else (a store, ``p += 1``, a method call ``p.fill(0)``, an alias
    ``q = p``, a call of an unknown function) counts as a possible write.
    """
    code = function.__code__
    verdict = _parameter_verdicts.get(code)
    if verdict is None:
        verdict = _parameter_verdicts[code] = _may_write(function)
    return verdict


def _may_write(function) -> bool:
    try:
        lines, _ = source_lines(function)
        definition = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return True
    if not isinstance(definition, ast.FunctionDef):
        return True
    arguments = definition.args
    parameters = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    parameters |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    environment = Environment(function)
    parents = {}
    body = ast.Module(body=definition.body, type_ignores=[])
    for node in ast.walk(body):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    parameters |= _items_iterated(body, parameters)
    for node in ast.walk(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global, ast.Nonlocal)):
            return True
        if not (isinstance(node, ast.Name) and node.id in parameters):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, ast.Store) and not isinstance(parent, ast.AugAssign):
            continue  # p = ...: the name now holds another object; what is done with it later is read on
        if not isinstance(node.ctx, ast.Load):
            return True  # p += v changes an array in place; del p
        read, stored, described = _read_through(node, parents)
        if stored:
            return True  # p.w[0] = v, p.w += v: a store into what p holds
        parent = parents.get(id(read))
        if described or isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Return,
                                             ast.FormattedValue)):
            continue  # n = p.shape[0]; p.w * 2
        if isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is node:
            continue  # `for a in arrays`: iterating reads; the items, named by the loop, are followed as parameters
        if isinstance(parent, ast.Call) and read in parent.args and all(k.arg not in ("out", None) for k in parent.keywords):
            spelling = _dotted(parent.func)
            value = environment.resolve_dotted(spelling) if spelling else None
            if spelling and found(value) and rule_for(value) is not None:
                continue
        return True  # given to another call, a method called on it (p.w.fill(0)), an alias (q = p.w)
    return False


def _read_through(node, parents) -> tuple:
    """The outermost of the attributes and items read from ``node`` (``p.w[0].b`` for ``p``);
    whether one of them is stored into or deleted instead (``p.w[0] = v``, ``del p.w``); whether one
    is a description of an array (``p.w.shape``), no alias of what ``p`` holds."""
    read, described = node, False
    while True:
        parent = parents.get(id(read))
        if not (isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is read):
            return read, False, described
        if not isinstance(parent.ctx, ast.Load):
            return parent, True, described
        # an array's shape, dtype, ...: never its data
        described = described or isinstance(parent, ast.Attribute) and parent.attr in CONSTANT_ATTRIBUTES
        read = parent


def _items_iterated(body, parameters: set) -> set:
    """The names a loop or comprehension gives the items of a parameter it iterates over
    (``sum(np.sum(a ** 2) for a in arrays)``: ``a``), and of those names' items in turn: each
    holds an object the caller passed, so what is done with it counts as done to a parameter."""
    names: set = set()
    while True:
        found_now = set()
        for node in ast.walk(body):
            if isinstance(node, (ast.comprehension, ast.For)) and isinstance(node.iter, ast.Name) \
                    and node.iter.id in parameters | names:
                found_now |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        if found_now <= names:
            return names
        names |= found_now


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
