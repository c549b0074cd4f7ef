"""Whether a function, read from its source, may write into what it is given or keep it.

Asked where a call's result is not differentiated (analysis/opaque.py) and where a method is
called for its effect (runtime/methods.py): such a call passes only when it changes none of its
arguments and keeps nothing it computes where the differentiated function could read it later
(a global list, a dict, an object), since s2sad would take what it reads there for a constant.

A function passes when its source only reads: each parameter is an operand, indexed or
described (``p[0]``, ``p.shape``), or given to a call that passes in turn; it stores only into
containers it made itself (``out = np.zeros(3); out[0] = ...``); and each call it makes is of a
function that keeps nothing: a NumPy function with a rule (without ``out=``), a builtin that only
reads, a user function judged by its source, or a parameter holding a function, judged as the
function the call passes there (or its default): a NumPy function, a user function, a lambda.
Anything else counts as a possible write, which refuses the call.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

import numpy as np

from .activity import CONSTANT_ATTRIBUTES
from .out_by_position import gives_out_by_position, method_gives_out_by_position
from ..frontend.resolve import Environment, found, is_library
from ..frontend.wrappers import source_lines
from ..registry import rule_for
from ..runtime.constructors import stored_fields


@dataclass(frozen=True)
class LambdaGiven:
    """A lambda a call passes (``act=lambda z: z * z``), as its source, with the function whose
    names it reads (the caller)."""
    code: str
    caller: object


UNKNOWN = "unknown"  # a parameter given a value s2sad cannot name (a variable of the caller)

# Builtins that read their arguments and keep none of them (no `key=` function: see _safe_call).
_READING_BUILTINS = {
    abs, all, any, bool, callable, complex, dict, divmod, enumerate, float, format, frozenset, getattr, hasattr,
    hash, id, int, isinstance, issubclass, len, list, max, min, pow, print, range, repr, reversed, round, set,
    sorted, str, sum, tuple, type, zip}
# What makes a new container, which the function may then fill (`out = np.zeros(n); out[0] = v`).
_NEW_CONTAINERS = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like, np.empty_like, np.full_like,
                   np.eye, np.arange, np.linspace, list, dict, set}
# Methods that only read their receiver: an array's (but those changing it), a dict's, a string's.
_CHANGES_AN_ARRAY = {"fill", "put", "sort", "partition", "resize", "setfield", "itemset", "setflags", "byteswap",
                     "tofile", "dump"}
_READING_METHODS = {name for name in dir(np.ndarray) if not name.startswith("_")} - _CHANGES_AN_ARRAY | {
    "keys", "values", "items", "get", "count", "index", "startswith", "endswith", "split", "strip", "join",
    "lower", "upper", "format"}

# Builtins whose result holds nothing of what they are given: `n = len(p); n -= 1` changes no parameter.
_NEW_NUMBERS = {"len", "float", "int", "bool", "str", "abs", "round", "sum", "repr", "isinstance", "range"}

_verdicts: dict = {}  # (code object, what the call gives) -> whether the function may write or keep


def may_write_into_parameters(function, given: dict | None = None) -> bool:
    """Whether ``function``'s source could change an array or object passed to it, or keep what it
    computes; True when unsure. ``given``: parameter -> the function a call passes there (an object,
    a :class:`LambdaGiven`, or ``UNKNOWN``), the parameters it leaves out holding their defaults;
    None when the call is not known (every parameter may hold anything)."""
    try:
        key = (function.__code__, None if given is None else tuple(sorted(given.items(), key=lambda item: item[0])))
        hash(key)
    except (AttributeError, TypeError):
        return True
    verdict = _verdicts.get(key)
    if verdict is None:
        _verdicts[key] = True  # reached again while judged (a recursion): unsure
        verdict = _verdicts[key] = _may_write(function, given)
    return verdict


def _may_write(function, given: dict | None) -> bool:
    try:
        lines, _ = source_lines(function)
        definition = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return True
    if not isinstance(definition, ast.FunctionDef):
        return True
    parameters = _parameters(definition.args)
    held = {name: UNKNOWN for name in parameters}
    if given is not None:
        defaults = {name: p.default for name, p in inspect.signature(function).parameters.items()
                    if p.default is not inspect.Parameter.empty}
        held.update({name: given.get(name, defaults.get(name, UNKNOWN)) for name in parameters})
    body = ast.Module(body=definition.body, type_ignores=[])
    return _Reading(parameters, held, Environment(function)).may_write(body)


def _lambda_may_write(given: LambdaGiven) -> bool:
    try:
        lambda_node = ast.parse(given.code.strip(), mode="eval").body
    except SyntaxError:
        return True
    if not isinstance(lambda_node, ast.Lambda):
        return True
    parameters = _parameters(lambda_node.args)
    body = ast.Module(body=[ast.Return(value=lambda_node.body)], type_ignores=[])
    return _Reading(parameters, {name: UNKNOWN for name in parameters}, Environment(given.caller)).may_write(body)


def _parameters(arguments: ast.arguments) -> set:
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    return names | {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}


def keeps_nothing(value) -> bool:
    """Whether calling ``value`` (a function a parameter holds) changes nothing it is given and keeps
    nothing: a function with a rule, a builtin that only reads, a user function or a lambda whose source
    only reads."""
    if isinstance(value, LambdaGiven):
        return not _lambda_may_write(value)
    if value is UNKNOWN or not found(value):
        return False
    try:
        if rule_for(value) is not None or value in _READING_BUILTINS:
            return True
    except TypeError:  # unhashable
        return False
    if getattr(value, "__module__", None) in ("math", "cmath") and inspect.isbuiltin(value):
        return True
    original = getattr(value, "__s2sad_original__", value)
    if inspect.isfunction(original) and not is_library(original):
        return not may_write_into_parameters(original, {})
    if isinstance(value, type) and (issubclass(value, BaseException) or stored_fields(value) is not None):
        return True  # an exception made to be raised; a constructor that only stores its arguments
    return False


class _Reading:
    """One function's body (or a lambda's), read for a write into a parameter or a value kept."""

    def __init__(self, parameters: set, held: dict, environment: Environment):
        self.parameters = set(parameters)
        self.held = held
        self.environment = environment

    def may_write(self, body: ast.Module) -> bool:
        self.parents = {}
        for node in ast.walk(body):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
        self.followed = _call_results(body, self.parameters | _items_iterated(body, self.parameters))
        self.assigned = {node.id for node in ast.walk(body) if isinstance(node, ast.Name)
                         and isinstance(node.ctx, ast.Store)} - self.parameters
        self.fresh = self._fresh_locals(body)
        for node in ast.walk(body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Global,
                                 ast.Nonlocal)):
                return True
            if isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load) \
                    and not (isinstance(node.value, ast.Name) and node.value.id in self.fresh):
                # G[k] = v, obj.w = v, p.w[0] = v: a store into what the function did not make; rows[0][1] = v
                # too (list(p) made rows, whose items are p's)
                return True
            if isinstance(node, ast.Call) and not self._safe_call(node):
                return True
            if isinstance(node, ast.Name) and node.id in self.followed and self._may_change(node):
                return True
        return False

    def _may_change(self, node: ast.Name) -> bool:
        """Whether what is done with the parameter (or an item of it) ``node`` may change it."""
        parent = self.parents.get(id(node))
        if isinstance(node.ctx, ast.Store) and not isinstance(parent, ast.AugAssign):
            return False  # p = ...: the name now holds another object; what is done with it later is read on
        if not isinstance(node.ctx, ast.Load):
            return True  # p += v changes an array in place; del p
        read, described = _read_through(node, self.parents)
        parent = self.parents.get(id(read))
        if described or isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Return,
                                             ast.FormattedValue)):
            return False  # n = p.shape[0]; p.w * 2
        if isinstance(parent, (ast.comprehension, ast.For)) and parent.iter is node:
            return False  # `for a in arrays`: iterating reads; the items, named by the loop, are followed as parameters
        if isinstance(parent, ast.Call) and parent.func is node and node.id in self.parameters:
            return False  # act(z): a call of the function the parameter holds, judged as a call (_safe_call)
        if isinstance(parent, ast.Call) and read in parent.args or isinstance(parent, ast.keyword):
            return False  # given to a call that keeps nothing (judged as a call)
        return True  # a method called on it (p.w.fill(0)), an alias (q = p.w), a keyword argument, a container's item

    def _safe_call(self, call: ast.Call) -> bool:
        """Whether ``call`` changes nothing it is given and keeps nothing."""
        if any(keyword.arg in ("out", "key", None) for keyword in call.keywords):
            return False  # out= writes; key= calls a function; **kwargs hides both
        function = call.func
        if isinstance(function, ast.Name) and function.id in self.parameters:
            return self._keeps_nothing(self.held.get(function.id, UNKNOWN), call)
        root = _root(function)
        if isinstance(function, ast.Attribute) and root is not None and root not in self.followed | self.assigned \
                and isinstance(self.environment.resolve_dotted(root), (list, dict, set)) \
                and all(isinstance(a, ast.Constant) for a in call.args) \
                and all(isinstance(k.value, ast.Constant) for k in call.keywords):
            return True  # CALLS.append("middle") on a module's list: it keeps a constant, nothing it was given
        if isinstance(function, ast.Attribute) and (root is None or root in self.assigned or root in self.followed):
            # a method: of an array or dict it only reads, or of a container the function made
            if _method_gives_out(function.attr, call):
                return False  # b.cumsum(0, None, p): p is written
            return function.attr in _READING_METHODS or root in self.fresh
        if root in self.assigned:
            return False  # a function held in a variable
        spelling = _dotted(function)
        value = self.environment.resolve_dotted(spelling) if spelling else None
        if spelling is None or not found(value):
            return False
        receiver = getattr(value, "__self__", None)
        if isinstance(function, ast.Attribute) and isinstance(receiver, (np.ndarray, np.generic)):
            return function.attr in _READING_METHODS and not _gives_out(value, call)  # W.dot(z), W a module's array
        return self._keeps_nothing(value, call)

    def _keeps_nothing(self, value, call: ast.Call) -> bool:
        """:func:`keeps_nothing`, a user function's parameters holding what ``call`` passes them."""
        original = getattr(value, "__s2sad_original__", value)
        if inspect.isfunction(original) and not is_library(original):
            given = self._given_by(call, original)
            return given is not None and not may_write_into_parameters(original, given)
        return keeps_nothing(value) and not _gives_out(value, call)

    def _given_by(self, call: ast.Call, function) -> dict | None:
        """What ``call`` passes to ``function``'s parameters: a function named in the module, what a
        parameter of this function holds, or UNKNOWN."""
        try:
            bound = inspect.signature(function).bind_partial(*call.args, **{k.arg: k.value for k in call.keywords})
        except (TypeError, ValueError):
            return None
        given = {}
        for name, node in bound.arguments.items():
            if isinstance(node, ast.Name) and node.id in self.parameters:
                given[name] = self.held.get(node.id, UNKNOWN)  # act=act: what this function's parameter holds
                continue
            spelling = _dotted(node) if not isinstance(node, (tuple, dict)) else None
            value = self.environment.resolve_dotted(spelling) \
                if spelling and _root(node) not in self.assigned | self.parameters else UNKNOWN
            given[name] = value if found(value) and callable(value) else UNKNOWN
        return given

    def _fresh_locals(self, body: ast.Module) -> set:
        """The names bound only to a container the function makes (``out = np.zeros(3)``, ``rows = []``),
        which it may fill: no one else holds them."""
        bound_to: dict = {}
        for node in ast.walk(body):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                parent = self.parents.get(id(node))
                if isinstance(parent, ast.AugAssign):
                    continue  # rows += [v]: the same container, changed
                new = isinstance(parent, ast.Assign) and node in parent.targets and self._makes_new(parent.value)
                bound_to[node.id] = bound_to.get(node.id, True) and new
        return {name for name, new in bound_to.items() if new and name not in self.parameters}

    def _makes_new(self, value: ast.AST) -> bool:
        if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Constant)):
            return True
        if not isinstance(value, ast.Call) or any(k.arg not in ("dtype", "fill_value") for k in value.keywords):
            return False
        spelling = _dotted(value.func)
        if not spelling or _root(value.func) in self.assigned | self.parameters:
            return False
        made = self.environment.resolve_dotted(spelling)
        return any(made is maker for maker in _NEW_CONTAINERS)


def _gives_out(function, call: ast.Call) -> bool:
    return gives_out_by_position(function, *_positional(call))


def _method_gives_out(name: str, call: ast.Call) -> bool:
    return method_gives_out_by_position(name, *_positional(call))


def _positional(call: ast.Call) -> tuple[int, bool, frozenset]:
    """How many arguments ``call`` gives by position, whether one is starred, and those given None."""
    return (len(call.args), any(isinstance(a, ast.Starred) for a in call.args),
            frozenset(k for k, a in enumerate(call.args) if isinstance(a, ast.Constant) and a.value is None))


def _root(node) -> str | None:
    """The variable an attribute or item read starts from (``p`` of ``p.w[0].b``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _read_through(node, parents) -> tuple:
    """The outermost of the attributes and items read from ``node`` (``p.w[0].b`` for ``p``), and
    whether one is a description of an array (``p.w.shape``), no alias of what ``p`` holds. (A store
    into one, ``p.w[0] = v``, is refused as a store into what the function did not make.)"""
    read, described = node, False
    while True:
        parent = parents.get(id(read))
        if not (isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is read):
            return read, described
        if not isinstance(parent.ctx, ast.Load):
            return parent, described
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


def _call_results(body, followed: set) -> set:
    """``followed`` with the names bound to what a call gives back when it is given a followed name
    (``q = np.reshape(p, -1)``, ``q = np.asarray(p)``, ``a, b = np.split(p, 2)``, ``for row in
    np.atleast_2d(p)``): a view of it, or the very object, which ``q *= 2`` changes in place.
    (``q = p.T``, ``q = p[1:]`` are aliases refused where read.)"""
    names = set(followed)

    def given_a_followed_name(value) -> bool:
        if not isinstance(value, ast.Call) or isinstance(value.func, ast.Name) and value.func.id in _NEW_NUMBERS:
            return False
        return any(isinstance(a, ast.Name) and a.id in names for a in value.args + [k.value for k in value.keywords])

    while True:
        found_now = set()
        for node in ast.walk(body):
            if isinstance(node, ast.Assign) and given_a_followed_name(node.value):
                found_now |= {n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.For, ast.comprehension)) and given_a_followed_name(node.iter):
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
