"""Forward rules: how each function pushes a tangent forward (its jvp, seed 001's frule).

They sit next to the reverse rules of ``registry.py`` and are looked up through them (a
function with a forward rule always has a reverse rule; bound methods resolve the same way).
One entry per differentiable parameter, like a reverse rule:

* a template: one line of Python in ``g`` (the tangent of that parameter), ``ans`` (the
  output) and the parameter names; the output's tangent is the sum of the templates of the
  parameters that have tangents. Generated code inlines it.
* ``LINEAR``: the function is linear in that parameter, so its tangent is the function
  itself with the tangent in the parameter's place (``np.reshape(g, shape)``,
  ``g @ b`` and ``a @ g`` for a product).
* a callable ``(g, ans, *params)`` returning the tangent, for what a line cannot say.
* ``None``: no tangent flows through that parameter (an index, a shape, a flag).

``elementwise=True`` marks functions whose output has the broadcast shape of the inputs:
a tangent term with a smaller shape (from a broadcast operand) is broadcast up to the
output's shape, as the output's tangent must be. Nondifferentiable functions push ZERO.
"""
from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

from ..runtime.accumulate import add
from ..runtime.tangents import ZERO, fit, is_zero
from . import (Rule, bound_to_rule, compile_template, from_user_code, method_rule, no_derivative_given, registered_rules,
               rule_for, rules_changed, signature_from_text, stored_quietly)

__all__ = ["LINEAR", "ForwardRule", "add_forward_finder", "defjvp", "deflinear", "forward_rule", "forward_method_rule"]

LINEAR = "linear"
_ANY_ARGUMENTS = signature_from_text("*args, **kwargs")


@dataclass
class ForwardRule:
    rule: Rule                       # the reverse rule of the same function (its signature and name)
    jvps: dict[str, Any] = field(default_factory=dict)
    elementwise: bool = False
    _compiled: dict = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.rule.name

    @property
    def signature(self):
        if self.rule.signature is None and self.rule.nondifferentiable:
            return _ANY_ARGUMENTS  # a nondifferentiable rule takes anything, and pushes ZERO
        return self.rule.signature

    def template(self, param: str) -> str | None:
        jvp = self.jvps.get(param)
        return jvp if isinstance(jvp, str) and jvp != LINEAR else None

    def jvp_function(self, param: str) -> Callable | None:
        """The jvp for ``param`` as ``(g, ans, *params)``; templates and LINEAR compiled once."""
        jvp = self.jvps.get(param)
        if jvp is None or callable(jvp):
            return jvp
        if param not in self._compiled:
            params = tuple(self.signature.parameters)
            if jvp == LINEAR:
                self._compiled[param] = _linear(self.rule.function, self.signature, param)
            else:
                self._compiled[param] = compile_template(jvp, params, f"{_python_name(self.name)}_jvp_{param}")
        return self._compiled[param]

    def pushforward(self, args: tuple, kwargs: dict, tangents: dict, ans):
        """The output's tangent, given tangents by parameter name (absent: zero)."""
        if self.rule.nondifferentiable:
            return ZERO

        values = tuple(bound_to_rule(self.signature, self.rule.name, args, kwargs).arguments.values())
        total = ZERO
        for param, tangent in tangents.items():
            jvp = self.jvp_function(param)
            if jvp is None or is_zero(tangent):
                continue
            term = jvp(tangent, ans, *values)
            total = term if total is ZERO else add(total, term)  # tuples of tangents add item by item
        if self.elementwise and total is not ZERO:
            total = fit(total, ans)
        return total


def _linear(function, signature, param: str) -> Callable:
    """``function`` called with the tangent in ``param``'s place (see ``linear_call``)."""
    layout = linear_call(signature, param)

    def linear_jvp(g, ans, *values):
        args, kwargs, _ = layout(g, values)
        return function(*args, **kwargs)

    return linear_jvp


def linear_call(signature, param: str) -> Callable:
    """``layout(g, values) -> (args, kwargs, origins)``: the call of a function linear in
    ``param`` with the tangent ``g`` in its place, positional parameters passed positionally
    (NumPy's ufuncs and builtins take no keywords for them); ``origins`` names, for each
    positional argument, its parameter and its index within a ``*args`` parameter (or None)."""
    # leading parameters without defaults go positionally, the rest by keyword (np.sum's
    # `where` must not land in `initial`'s slot)
    kinds, leading = [], True
    defaults = {name: p.default for name, p in signature.parameters.items()}
    for name, p in signature.parameters.items():
        if p.default is not inspect.Parameter.empty or p.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD:
            leading = leading and p.kind is inspect.Parameter.POSITIONAL_ONLY
        positional = p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and leading
        kinds.append((name, inspect.Parameter.POSITIONAL_ONLY if positional else p.kind))

    def layout(g, values):
        args, kwargs, origins = [], {}, []
        for (name, kind), value in zip(kinds, values):
            value = g if name == param else value
            if kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(value)
                origins.extend((name, index) for index in range(len(value)))
            elif kind is inspect.Parameter.VAR_KEYWORD:
                kwargs.update(value)
            elif kind is inspect.Parameter.POSITIONAL_ONLY:
                args.append(value)
                origins.append((name, None))
            elif value is not defaults[name]:  # a default left out: the rule's spelling of it may differ
                kwargs[name] = value
        return args, kwargs, origins

    return layout


def _python_name(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.split(".")[-1]) or "rule"


_forward: dict[int, ForwardRule] = {}  # id(reverse rule) -> its forward rule


def defjvp(function: Callable[..., Any], *jvps: str | Callable[..., Any] | None, elementwise: bool = False,
           signature: str | None = None) -> ForwardRule:
    """Register ``function``'s forward rule: one jvp per parameter of its reverse rule's
    signature, in order (a template over the tangent ``g``, ``ans`` and the parameters;
    ``LINEAR``; a callable ``(g, ans, *params)``; or ``None``). The reverse rule comes first.

    >>> import s2sad
    >>> def cube(x):
    ...     return x ** 3
    >>> rule = s2sad.defvjp(cube, "x", "g * 3 * x ** 2")
    >>> forward = s2sad.defjvp(cube, "g * 3 * x ** 2")
    >>> s2sad.jvp(cube, (2.0,), (1.0,))                  # (value, tangent)
    (8.0, 12.0)
    """
    rule = rule_for(function)
    if rule is None:
        raise ValueError(f"{function!r} has no reverse rule: register that first (s2sad.defvjp)")
    known = rule.signature or (signature_from_text(signature) if signature is not None else None)
    if known is not None and len(jvps) <= len(known.parameters) and from_user_code():
        # a parameter it gives no jvp refuses a differentiated value, as its vjp does
        params = tuple(known.parameters)
        jvps = tuple(no_derivative_given(rule.name, p, params, ZERO) if j is None else j
                     for p, j in zip(params, jvps + (None,) * (len(params) - len(jvps))))
    return _store(rule, jvps, elementwise, signature)


def deflinear(function: Callable[..., Any], *params: str, elementwise: bool = False) -> ForwardRule:
    """Register the forward rule of a function linear in each of ``params`` (all of its
    parameters if none are named): its tangent is the function of the tangents.

    >>> import numpy as np, s2sad
    >>> def twice(x):
    ...     return 2.0 * x
    >>> rule = s2sad.defvjp(twice, "x", "2.0 * g")
    >>> forward = s2sad.deflinear(twice)
    >>> s2sad.jvp(twice, (np.ones(2),), (np.array([1.0, -1.0]),))
    (array([2., 2.]), array([ 2., -2.]))
    """
    rule = rule_for(function)
    if rule is None:
        raise ValueError(f"{function!r} has no reverse rule: register that first (s2sad.defvjp)")
    names = params or tuple(rule.signature.parameters)
    return _store(rule, [LINEAR if p in names else None for p in rule.signature.parameters], elementwise, None)


def defjvp_method(owner: type, name: str, *jvps, elementwise: bool = False) -> ForwardRule:
    rule = method_rule(owner, name)
    if rule is None:
        raise ValueError(f"{owner.__name__}.{name} has no reverse rule: register that first (s2sad.defmethod)")
    return _store(rule, jvps, elementwise, None)


def _store(rule: Rule, jvps, elementwise: bool, signature: str | None) -> ForwardRule:
    if rule.signature is None:
        if signature is None:
            raise ValueError(f"the rule of {rule.name} has no signature: give one (signature='x, y')")
        rule.signature = signature_from_text(signature)
    params = tuple(rule.signature.parameters)
    if len(jvps) > len(params):
        raise ValueError(f"{len(jvps)} jvps given for the {len(params)} parameters of {rule.name}")
    forward = ForwardRule(rule, dict(zip(params, jvps)), elementwise)
    _forward[id(rule)] = forward
    rules_changed(stored_quietly(rule))  # generated forward code in memory is made again (unless none can have read it)
    return forward


def forward_rule(function) -> ForwardRule | None:
    rule = rule_for(function)
    return None if rule is None else _forward_of(rule)


def forward_method_rule(owner: type, name: str) -> ForwardRule | None:
    rule = method_rule(owner, name)
    return None if rule is None else _forward_of(rule)


def _forward_of(rule: Rule) -> ForwardRule | None:
    forward = _forward.get(id(rule))
    if forward is not None and forward.rule is rule:
        return forward
    if rule.nondifferentiable:
        return ForwardRule(rule, {}, False)  # every tangent is zero
    for finder in _forward_finders:
        forward = finder(rule)
        if forward is not None:
            return forward
    return None


_forward_finders: list = []  # each: reverse Rule -> ForwardRule | None, asked when none is registered


def add_forward_finder(finder) -> None:
    """Ask ``finder(rule) -> ForwardRule | None`` for a reverse rule without a registered forward
    rule: a transform's rule carries its own, and a user's reverse rule gives forward mode
    (s2sad.compositions)."""
    _forward_finders.append(finder)


def all_forward_rules() -> list[ForwardRule]:
    """The forward rules of the reverse rules registered now (one left by ``unregister`` is not)."""
    live = registered_rules()
    return [f for key, f in _forward.items() if key in live]


def forward_fingerprint() -> str:
    """Changes whenever a forward rule would generate different code."""
    parts = sorted(f"{f.name}|{f.elementwise}|" + "|".join(f"{p}={v if isinstance(v, str) or v is None else getattr(v, '__qualname__', v)}"
                                                          for p, v in f.jvps.items()) for f in all_forward_rules())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
