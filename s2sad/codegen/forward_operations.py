"""Forward mode, one operation at a time: its value's line, then its tangent's.

A call with a forward rule gets the rule's jvp per differentiated argument (a template
inlined, or a function called), guarded where a tangent may be ZERO; a user function without
a rule is called through its own generated jvp; methods go by the receiver's type when the
code runs; in-place changes update the container's tangent the same way.
"""
from __future__ import annotations

import operator
import re

import numpy as np

from ..analysis.activity import Activity, propagates
from ..errors import MissingRuleError
from ..frontend.ir import Const, Function, Operation, Var, operations_of
from ..frontend.resolve import describe_callee, refuse_transform
from ..registry.forward import LINEAR, forward_rule
from ..runtime.closures import closure
from .core import (STRUCTURE_KINDS, Emitter, callee_reference, exact_point_checks, names_in, operator_name, refuse_differentiated_defaults,
                   refuse_stepwise_iteration)
from .array_likes import Producers, as_array_like, as_read_by, computed_with, reads_sequences_as_arrays
from .expressions import substitute
from ..runtime.exact_points import EXACT_POINT_ARGUMENTS, at_an_exact_point
from ..analysis.tangent_flow import (SHAPED_FLAG, FunctionFacts, TangentFacts, apply, change_of, has_packed_tangent,
                                     indexed_item, through_generated_jvp)


class ForwardOperations:
    def __init__(self, core: Emitter, facts: TangentFacts, activity: Activity, function: Function):
        self.core = core
        self.namer = core.namer
        self.facts = facts
        self.activity = activity
        self.function = function
        self.known = FunctionFacts(function, activity)
        self.sources = Producers(function)     # what may hold a list, or a function
        self.written: list[str] = []           # the tangent variables the operation being written sets

    def set_tangent(self, name: str, expression: str) -> list[str]:
        self.written.append(name)
        return [f"{self.core.derivative(name)} = {expression}"]

    def operation(self, op: Operation) -> list[str]:
        """The operation's lines, from the facts before it; then the facts after it."""
        change = change_of(op, self.facts, self.known)
        self.written = []
        lines = self.lines(op)
        if self.written != ([change.name] if change is not None else []):  # one definition of the facts: never
            raise AssertionError(f"forward mode wrote the tangents of {self.written} for `{op.target}`, "
                                 f"its facts say {change}")
        apply(op, change, self.facts)
        return lines

    def lines(self, op: Operation) -> list[str]:
        active = op.target in self.activity.active and op.kind not in ("assert", "effect")
        if op.kind == "mutate":
            return self.core.operand_check(op) + self.mutation(op)
        if op.kind == "effect" and op.callee.value is at_an_exact_point and len(op.args) == EXACT_POINT_ARGUMENTS:
            return []  # reverse code's check, without tangents: this code checks its comparison with them
        checks = self.core.check_opaque(op, active and op.kind == "call" and propagates(op))
        if active and through_generated_jvp(op, self.activity):
            return checks + self.transformed_call(op)
        lines = (checks + self.core.operand_check(op) + self.value(op) + self.core.constant_checks(op)
                 + self.exact_point_checks(op))
        if not active:
            return lines
        tangent = self.tangent(op)
        if not tangent and op.target in self.facts.tangents:
            # the target already holds a tangent (a loop's carried value from the iteration before,
            # now given a constant): it must not keep that one
            tangent = self.set_tangent(op.target, "ZERO")
        return lines + tangent

    def exact_point_checks(self, op: Operation) -> list[str]:
        """``x == c``'s check (codegen/core.py), given ``x``'s tangent. A moving ``x`` whose tangent
        nothing reads has none written (``if x[0] == 1.0:``): it is checked as reverse code checks it,
        refused wherever the two are equal."""
        if op.kind != "call":
            return []
        operand = next((a for a in op.args if self.facts.has_tangent(a)), None)
        return exact_point_checks(self.core, op, self.facts.tangent_of(operand) if operand is not None else None)

    def value(self, op: Operation) -> list[str]:
        """The primal line: as the reverse generator writes it, except calls stay plain calls."""
        if op.kind in STRUCTURE_KINDS:
            return self.core.structure_line(op)
        if op.kind == "copy":
            return [f"{op.target} = {self.core.code(op.args[0])}"] if op.target in self.core.read_names or op.target in self.activity.active else []
        if op.kind == "effect":
            return [self.core.call_text(op)]
        if op.kind == "call" and op.callee.value is operator.concat:
            # `a + b` of two sequence variables, read again for a second derivative, would be numbers added
            return [f"{op.target} = concat({', '.join(self.core.code(a) for a in op.args)})"]
        return [f"{op.target} = {self.core.call_text(op)}"]

    def tangent(self, op: Operation) -> list[str]:
        if op.kind == "copy":
            source = op.args[0]
            if not self.facts.has_tangent(source):
                return []
            return self.set_tangent(op.target, self.facts.tangent_of(source))
        if op.kind == "unpack":
            source = op.args[0]
            known = self.facts.static_item(source, op.index)
            if known is not None and not known[0]:
                return []  # a constant item of a tuple built here: its tangent is zero, and no code
            if not self.facts.has_tangent(source):
                return []
            return self.set_tangent(op.target, f"tangent_item({self.facts.tangent_of(source)}, {op.index})")
        if op.kind in ("tuple", "list"):
            if not any(self.facts.has_tangent(a) for a in op.args):
                return []
            items = ", ".join(self.facts.tangent_of(a) for a in op.args)
            text = f"({items},)" if op.kind == "tuple" and len(op.args) == 1 else (f"({items})" if op.kind == "tuple" else f"[{items}]")
            return self.set_tangent(op.target, text)
        if op.kind == "dict":
            if not any(self.facts.has_tangent(v) for _, v in op.kwargs):
                return []
            return self.set_tangent(op.target, "{" + ", ".join(f"{k}: {self.facts.tangent_of(v)}" for k, v in op.kwargs) + "}")
        callee = op.callee
        if callee.kind == "attribute":
            receiver = op.args[0]
            if not self.facts.has_tangent(receiver):
                return []
            return self.set_tangent(op.target, f"attribute_jvp({self.core.code(receiver)}, {self.facts.tangent_of(receiver)}, {callee.name!r})")
        if callee.kind == "method":
            if not any(self.facts.has_tangent(a) for a in op.atoms()):
                return []
            receiver, rest = op.args[0], op.args[1:]
            if callee.packed:
                arguments = ", ".join([self.core.code(receiver), self.facts.tangent_of(receiver), repr(callee.name), op.target]
                                      + [f"{self.core.code(a)}, {self.facts.tangent_of(a)}" for a in rest])
                return self.set_tangent(op.target, f"packed_jvp({arguments})")
            positional = ["(" + "".join(self.core.code(a) + ", " for a in rest) + ")",
                          "(" + "".join(self.facts.tangent_of(a) + ", " for a in rest) + ")"]
            head = [self.core.code(receiver), self.facts.tangent_of(receiver), repr(callee.name), op.target]
            if any(self.facts.has_tangent(v) for _, v in op.kwargs):
                # keywords with tangents: both go as dicts, in packed_jvp's form (`f(*args, **kwargs)`'s)
                keywords = ["{" + ", ".join(f"{k!r}: {self.core.code(v)}" for k, v in op.kwargs) + "}",
                            "{" + ", ".join(f"{k!r}: {self.facts.tangent_of(v)}" for k, v in op.kwargs
                                            if self.facts.has_tangent(v)) + "}"]
                return self.set_tangent(op.target, f"packed_jvp({', '.join(head + positional + keywords)})")
            arguments = ", ".join(head + positional + [f"{k}={self.core.code(v)}" for k, v in op.kwargs])
            return self.set_tangent(op.target, f"method_jvp({arguments})")
        return self.rule_tangent(op)

    def rule_tangent(self, op: Operation) -> list[str]:
        if not propagates(op):
            return []  # np.zeros, a comparison: a constant, whose tangent is zero
        forward = forward_rule(op.callee.value)
        if forward is None:
            refuse_differentiated_defaults(op, self.core.location_of(op))
            refuse_stepwise_iteration(op, self.core.location_of(op))
            raise MissingRuleError(
                f"no forward rule for `{op.callee.spelling}` ({describe_callee(op.callee.value)})",
                self.core.location_of(op), "register one with s2sad.defjvp(...) next to its reverse rule")
        codes = self.core.bound_parameters(op, forward.rule, packed_tangents=True)
        if codes is None:
            raise MissingRuleError(f"the forward rule of `{op.callee.spelling}` cannot be bound to this call",
                                   self.core.location_of(op), "pass the arguments the rule's signature names")
        arguments = forward.rule.signature.bind(*op.args, **dict(op.kwargs)).arguments
        converted = self.sources.array_like_codes(op.callee.value, arguments, codes)  # NumPy's reading of a list
        array_likes = converted is not codes
        known = indexed_item(op, self.facts)
        if known is not None and not known[0]:
            return []  # a constant item of a tuple built here
        terms, bare, checks = [], [], []

        def has(param):
            return has_packed_tangent(self.facts, arguments.get(param))

        for param in codes:
            atom = arguments.get(param)
            if not has(param):
                continue
            jvp = forward.jvps.get(param)
            if jvp is None:
                if isinstance(atom, Var) and param not in forward.rule.choosers and self.may_hold_a_function(atom.name):
                    # a function the rule calls (`odeint(lambda y, t: -k * y, ...)`, `reduce`) gets no tangent:
                    # refused below if it holds numbers and no other argument has a tangent (a jvp of
                    # the rule's that runs refuses it itself), as reverse mode refuses it; not one that
                    # only chooses items (`key`: Rule.choosers)
                    checks.append(f"refuse_held_numbers({self.core.code(atom)})")
                continue
            if isinstance(atom, tuple):
                # a *args parameter (max(a, b), np.einsum(s, A, B)): the tuple of its arguments'
                # tangents, ZERO for those without, goes to its jvp, as rules' pushforwards take it
                if not callable(jvp):
                    raise MissingRuleError(f"the forward rule of `{op.callee.spelling}` cannot be bound to this call",
                                           self.core.location_of(op), "its jvp of the *args parameter is not a function")
                tangents = "(" + "".join(self.facts.tangent_of(a) + ", " for a in atom) + ")"
                terms.append(f"{self.bind_jvp(op, param)}({tangents}, {op.target}, {', '.join(converted.values())})")
                bare.append(False)
                continue
            tangent = self.facts.tangent_of(atom)
            if atom.name in self.facts.zero_items and reads_sequences_as_arrays(op.callee.value) \
                    and self.sources.may_hold_a_sequence(atom.name):
                tangent = f"tangent_filled({tangent}, {self.core.code(atom)})"  # np.sum([2.0, x]): no ZERO inside
            if array_likes and jvp != LINEAR and self.sources.may_hold_a_sequence(atom.name) and (
                    not isinstance(jvp, str) or "g" in computed_with(jvp)):
                tangent = as_array_like(tangent)  # np.square(xs) of a list: its tangent a list too
            if jvp == LINEAR:
                replaced = Operation(op.target, "call", op.callee, [Var(tangent) if a is atom else a for a in op.args],
                                     [(k, Var(tangent) if a is atom else a) for k, a in op.kwargs])
                terms.append(self.core.call_text(replaced))
                bare.append(len(op.args) + len(op.kwargs) == 1)
            elif isinstance(jvp, str):
                jvp = _constant_exponent(forward, param, arguments) or _without_defaults(jvp, forward, arguments)
                terms.append(substitute(jvp, {"g": tangent, "ans": op.target, **(
                    codes if not array_likes else as_read_by(jvp, codes, converted))}))
                bare.append(not (_names(jvp) & set(codes) or "ans" in _names(jvp)))
            else:
                binding = self.bind_jvp(op, param)
                terms.append(f"{binding}({tangent}, {op.target}, {', '.join(converted.values())})")
                bare.append(False)
        if not terms:
            return checks
        guarded = [name for name in codes if self.facts.has_tangent(arguments.get(name))
                   and arguments[name].name in self.facts.zero_tangents]
        if guarded:
            # a tangent that may be ZERO when the code runs: rules are not handed symbolic zeros
            # (a term that is the tangent itself, or its negation, needs no guard)
            contributing = [p for p in codes if has(p) and forward.jvps.get(p) is not None]
            terms = [f"({term} if {self.facts.tangent_of(arguments[p])} is not ZERO else ZERO)"
                     if p in guarded and term.lstrip("-+") != self.facts.tangent_of(arguments[p]) else term
                     for term, p in zip(terms, contributing)]
        if len(terms) > 1 and not all(bare) and any(not isinstance(forward.jvps.get(p), str) for p in codes if has(p)):
            expression = terms[0]  # a rule written as functions may push a tuple: add item by item
            for term in terms[1:]:
                expression = f"add_tangents({expression}, {term})"
        else:
            expression = terms[0] if len(terms) == 1 else " + ".join(f"({t})" if " " in t else t for t in terms)
        others_without_tangent = any(forward.jvps.get(p) is not None and not has(p) for p in codes)
        if forward.elementwise and all(bare) and (others_without_tangent or any(
                arguments[name].name in self.facts.flags[SHAPED_FLAG] for name in guarded)):
            # a broadcast operand's tangent, up to the output's shape: the sum of the terms has
            # it only if no operand larger than the others has a tangent that is ZERO
            expression = f"fit({expression}, {op.target})"
        return self.set_tangent(op.target, expression)

    def may_hold_a_function(self, name: str) -> bool:
        """Whether ``name`` may hold a function (a lambda reading the function's variables, a
        parameter, an item taken out of a container): not when every operation assigning it is
        a static call other than ``closure`` (a number or an array), or copies one."""
        return self.sources.may_hold(name, lambda callee: callee is not closure)

    def bind_jvp(self, op: Operation, param: str) -> str:
        recipe = ("jvp", callee_reference(op), param)
        for name, existing in self.core.bindings.items():
            if existing == recipe:
                return name
        word = operator_name(op.callee.value) if op.callee.operator_code else op.callee.spelling.split(".")[-1]
        name = self.namer.fresh(f"{word}_jvp_{param}")
        self.core.bindings[name] = recipe
        return name

    def transformed_call(self, op: Operation) -> list[str]:
        """A user function: its own generated jvp, given the tangents its arguments have."""
        refuse_transform(getattr(op.callee.value, "__s2sad_original__", op.callee.value), self.core.location_of(op))
        active = tuple(i for i, a in enumerate(op.args) if self.facts.has_tangent(a))
        keywords = tuple(k for k, a in op.kwargs if self.facts.has_tangent(a))
        recipe = ("transformed_forward", callee_reference(op), active, keywords)
        binding = next((n for n, r in self.core.bindings.items() if r == recipe), None)
        if binding is None:
            binding = self.namer.fresh(f"{op.callee.spelling.split('.')[-1]}_jvp")
            self.core.bindings[binding] = recipe
        tangents = [self.facts.tangent_of(op.args[i]) for i in active] + [self.facts.tangent_of(dict(op.kwargs)[k]) for k in keywords]
        arguments = ", ".join(self.core.argument_list(op.args, op.kwargs))
        call = f"{binding}(({', '.join(tangents)}{',' if len(tangents) == 1 else ''}), {arguments})"
        self.written.append(op.target)
        return [f"{op.target}, {self.core.derivative(op.target)} = {call}"]

    def mutation(self, op: Operation) -> list[str]:
        lines = self.core.mutation_line(op) if op.callee.name != "setitem" else \
            [f"{self.core.code(op.args[0])}[{self.core.code(op.args[1])}] = {self.core.code(op.args[2])}"]
        container, method = op.args[0], op.callee.name
        if container.name not in self.activity.active:
            return lines
        held = self.facts.tangent_of(container)
        if method == "setitem":
            value = op.args[2]
            if not (self.facts.has_tangent(value) or self.facts.has_tangent(container)):
                return lines
            # tangent_setitem writes into real zeros where the tangent was ZERO
            return lines + self.set_tangent(container.name, f"tangent_setitem({held}, {self.core.code(container)}, "
                                            f"{self.core.code(op.args[1])}, {self.facts.tangent_of(value)})")
        if method == "insert":
            index, value = op.args[1], op.args[2]
            return lines + self.set_tangent(container.name, f"tangent_insert({held}, {self.core.code(container)}, "
                                            f"{self.core.code(index)}, {self.facts.tangent_of(value)})")
        if method in ("append", "extend"):
            value = op.args[1]
            tangent = (f"tangent_append({held}, {self.core.code(container)}, {self.facts.tangent_of(value)})" if method == "append" else
                       f"tangent_extend({held}, {self.core.code(container)}, {self.facts.tangent_of(value)}, {self.core.code(value)})")
            return lines + self.set_tangent(container.name, tangent)
        # pop
        position = self.core.code(op.args[1]) if len(op.args) > 1 else "-1"
        if self.facts.has_tangent(container):
            lines += self.set_tangent(op.target, f"tangent_item({held}, {position})")
            # the container's tangent stays what its facts say (a sequence's): a new one without the item
            lines.append(f"{held} = tangent_without({held}, {position})")
        return lines


POWER_FUNCTIONS = {"pow", "power", "float_power"}


def _constant_exponent(forward, param, arguments):
    """``x ** 2`` with the exponent written as a number: the base's tangent as plain
    arithmetic (``g * (2 * a)``), so the forward code has no helper call to look through
    when it is differentiated again."""
    if forward.name.split(".")[-1] not in POWER_FUNCTIONS:
        return None
    params = list(forward.signature.parameters)
    if param != params[0] or len(params) < 2:
        return None
    exponent = arguments.get(params[1])
    if not isinstance(exponent, Const):
        return None
    try:
        value = float(exponent.code)
    except ValueError:
        return None
    if value < 1:
        return None
    base = params[0]
    # (`2.0 *`: `2 * xs` of a list given to np.power would repeat it)
    return f"g * (2.0 * {base})" if value == 2 else f"g * ({exponent.code} * {base} ** ({exponent.code} - 1))"


def _without_defaults(template: str, forward, arguments) -> str:
    """The template without ``name=name`` keywords the call left at their defaults, so
    ``np.sum(g, axis=axis, keepdims=keepdims)`` reads ``np.sum(dx)`` for ``np.sum(x)``.

    Dropping one leaves the template's callee at *its* default, which is the rule's only for
    ``None``, ``False`` and ``True`` (tests/rules/test_forward_template_defaults.py checks each
    registered template): another default is written out, as ``np.add.reduce``'s ``axis=0``
    must reach ``np.sum``, whose own default is ``None``."""
    for name, parameter in forward.signature.parameters.items():
        if name in arguments:
            continue
        default = parameter.default
        if default is not None and default is not True and default is not False \
                and default.__class__ in (int, float, str):
            template = re.sub(rf"\b{name}={name}\b", f"{name}={default!r}", template)
        else:
            template = re.sub(rf",\s*{name}={name}\b", "", template)
    return template


def _names(template: str) -> set[str]:
    return names_in(template)
