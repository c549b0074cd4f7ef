"""Forward mode, one operation at a time: its value's line, then its tangent's.

A call with a forward rule gets the rule's jvp per differentiated argument (a template
inlined, or a function called), guarded where a tangent may be ZERO; a user function without
a rule is called through its own generated jvp; methods go by the receiver's type when the
code runs; in-place changes update the container's tangent the same way.
"""
from __future__ import annotations

import ast
import inspect
import operator
import re
from collections import Counter

import numpy as np

from ..analysis.activity import Activity, propagates
from ..errors import MissingRuleError
from ..frontend.ir import Const, Function, Operation, Var, operations_of
from ..frontend.resolve import describe_callee, is_library, refuse_transform
from ..registry.forward import LINEAR, forward_rule
from .core import STRUCTURE_KINDS, Emitter, callee_reference, names_in, operator_name
from .expressions import substitute
from .forward_facts import SHAPED_FLAG, TangentFacts


class ForwardOperations:
    def __init__(self, core: Emitter, facts: TangentFacts, activity: Activity, function: Function):
        self.core = core
        self.namer = core.namer
        self.facts = facts
        self.activity = activity
        self.function = function
        self._producers: dict | None = None    # variable -> the operations assigning it (may_hold_a_sequence)
        assignments = Counter(op.target for op in operations_of(function.statements) if op.kind != "mutate")
        self.assigned_once = {name for name, count in assignments.items() if count == 1}  # not a loop's carried value

    def set_tangent(self, name: str, expression: str, maybe_zero: bool = False, zero_items: bool = False,
                    shaped: bool = True) -> list[str]:
        self.facts.flag(name, maybe_zero or expression == "ZERO", zero_items, shaped)
        return [f"{self.core.derivative(name)} = {expression}"]

    def operation(self, op: Operation) -> list[str]:
        number = op.kind == "copy" and _is_number(op.args[0])
        if number:
            self.facts.numbers.add(op.target)
        else:
            self.facts.numbers.discard(op.target)
        active = op.target in self.activity.active and op.kind not in ("assert", "effect")
        if op.kind == "mutate":
            return self.mutation(op)
        self.core.check_opaque(op, active and op.kind == "call" and propagates(op))
        if active and op.kind == "call" and op.callee.kind == "static" and op.callee.operator_code is None \
                and forward_rule(op.callee.value) is None and self._transformable(op.callee.value):
            return self.transformed_call(op)
        lines = self.value(op)
        if not active:
            return lines
        tangent = self.tangent(op)
        if not tangent and op.target in self.facts.tangents:
            # the target already holds a tangent (a loop's carried value from the iteration before,
            # now given a constant): it must not keep that one
            tangent = self.set_tangent(op.target, "ZERO", shaped=not number)
        return lines + tangent

    def value(self, op: Operation) -> list[str]:
        """The primal line: as the reverse generator writes it, except calls stay plain calls."""
        if op.kind in STRUCTURE_KINDS:
            return self.core.structure_line(op)
        if op.kind == "copy":
            return [f"{op.target} = {self.core.code(op.args[0])}"] if op.target in self.core.read_names or op.target in self.activity.active else []
        if op.kind == "effect":
            return [self.core.call_text(op)]
        return [f"{op.target} = {self.core.call_text(op)}"]

    def tangent(self, op: Operation) -> list[str]:
        if op.kind == "copy":
            source = op.args[0]
            if not self.facts.has_tangent(source):
                return []
            return self.set_tangent(op.target, self.facts.tangent_of(source), self.facts.may_be_zero(source),
                                    source.name in self.facts.zero_items, source.name in self.facts.flags[SHAPED_FLAG])
        if op.kind == "unpack":
            source = op.args[0]
            known = self.facts.static_item(source, op.index)
            if known is not None and not known[0]:
                return []  # a constant item of a tuple built here: its tangent is zero, and no code
            if not self.facts.has_tangent(source):
                return []
            maybe_zero, zero_items = known[1:] if known is not None else (self.facts.items_may_be_zero(source),) * 2
            return self.set_tangent(op.target, f"tangent_item({self.facts.tangent_of(source)}, {op.index})", maybe_zero, zero_items)
        if op.kind in ("tuple", "list"):
            if not any(self.facts.has_tangent(a) for a in op.args):
                return []
            if op.kind == "tuple" and op.target in self.assigned_once:
                self.facts.static_items[op.target] = {i: (self.facts.has_tangent(a), self.facts.may_be_zero(a), self.facts.items_may_be_zero(a))
                                                for i, a in enumerate(op.args)}
            items = ", ".join(self.facts.tangent_of(a) for a in op.args)
            text = f"({items},)" if op.kind == "tuple" and len(op.args) == 1 else (f"({items})" if op.kind == "tuple" else f"[{items}]")
            return self.set_tangent(op.target, text, zero_items=not all(self.facts.has_tangent(a) and not self.facts.may_be_zero(a)
                                                                        for a in op.args))
        if op.kind == "dict":
            if not any(self.facts.has_tangent(v) for _, v in op.kwargs):
                return []
            return self.set_tangent(op.target, "{" + ", ".join(f"{k}: {self.facts.tangent_of(v)}" for k, v in op.kwargs) + "}",
                                    zero_items=not all(self.facts.has_tangent(v) and not self.facts.may_be_zero(v) for _, v in op.kwargs))
        callee = op.callee
        if callee.kind == "attribute":
            receiver = op.args[0]
            if not self.facts.has_tangent(receiver):
                return []
            # a field of a structural tangent that does not have it is ZERO
            return self.set_tangent(op.target, f"attribute_jvp({self.core.code(receiver)}, {self.facts.tangent_of(receiver)}, {callee.name!r})",
                                    self.facts.items_may_be_zero(receiver), self.facts.items_may_be_zero(receiver))
        if callee.kind == "method":
            if not any(self.facts.has_tangent(a) for a in op.atoms()):
                return []
            receiver, rest = op.args[0], op.args[1:]
            arguments = ", ".join([self.core.code(receiver), self.facts.tangent_of(receiver), repr(callee.name), op.target,
                                   "(" + "".join(self.core.code(a) + ", " for a in rest) + ")",
                                   "(" + "".join(self.facts.tangent_of(a) + ", " for a in rest) + ")"]
                                  + [f"{k}={self.core.code(v)}" for k, v in op.kwargs])
            # the receiver's type picks the rule when the code runs: a method of the user's class
            # is differentiated from source and, like a helper, may give ZERO
            return self.set_tangent(op.target, f"method_jvp({arguments})", maybe_zero=True, zero_items=True)
        return self.rule_tangent(op)

    def rule_tangent(self, op: Operation) -> list[str]:
        if not propagates(op):
            return []  # np.zeros, a comparison: a constant, whose tangent is zero
        forward = forward_rule(op.callee.value)
        if forward is None:
            raise MissingRuleError(
                f"no forward rule for `{op.callee.spelling}` ({describe_callee(op.callee.value)})",
                self.core.location_of(op), "register one with s2sad.defjvp(...) next to its reverse rule")
        codes = self.core.bound_parameters(op, forward.rule)
        if codes is None:
            raise MissingRuleError(f"the forward rule of `{op.callee.spelling}` cannot be bound to this call",
                                   self.core.location_of(op), "pass the arguments the rule's signature names")
        arguments = forward.rule.signature.bind(*op.args, **dict(op.kwargs)).arguments
        known = self.indexed_item(op)
        if known is not None and not known[0]:
            return []  # a constant item of a tuple built here
        terms, bare = [], []
        for param in codes:
            atom = arguments.get(param)
            if not self.facts.has_tangent(atom):
                continue
            jvp = forward.jvps.get(param)
            tangent = self.facts.tangent_of(atom)
            if jvp is None:
                continue
            if atom.name in self.facts.zero_items and _reads_sequences_as_arrays(op.callee.value) \
                    and self.may_hold_a_sequence(atom.name):
                tangent = f"tangent_filled({tangent}, {self.core.code(atom)})"  # np.sum([2.0, x]): no ZERO inside
            if jvp == LINEAR:
                replaced = Operation(op.target, "call", op.callee, [Var(tangent) if a is atom else a for a in op.args],
                                     [(k, Var(tangent) if a is atom else a) for k, a in op.kwargs])
                terms.append(self.core.call_text(replaced))
                bare.append(len(op.args) + len(op.kwargs) == 1)
            elif isinstance(jvp, str):
                jvp = _constant_exponent(forward, param, arguments) or _without_defaults(jvp, forward, arguments)
                terms.append(substitute(jvp, {"g": tangent, "ans": op.target, **codes}))
                bare.append(not (_names(jvp) & set(codes) or "ans" in _names(jvp)))
            else:
                binding = self.bind_jvp(op, param)
                terms.append(f"{binding}({tangent}, {op.target}, {', '.join(codes.values())})")
                bare.append(False)
        if not terms:
            return []
        guarded = [name for name in codes if self.facts.has_tangent(arguments.get(name))
                   and arguments[name].name in self.facts.zero_tangents]
        if guarded:
            # a tangent that may be ZERO when the code runs: rules are not handed symbolic zeros
            # (a term that is the tangent itself, or its negation, needs no guard)
            contributing = [p for p in codes if self.facts.has_tangent(arguments.get(p)) and forward.jvps.get(p) is not None]
            terms = [f"({term} if {self.facts.tangent_of(arguments[p])} is not ZERO else ZERO)"
                     if p in guarded and term.lstrip("-+") != self.facts.tangent_of(arguments[p]) else term
                     for term, p in zip(terms, contributing)]
        if len(terms) > 1 and not all(bare) and any(not isinstance(forward.jvps.get(p), str) for p in codes
                                                      if self.facts.has_tangent(arguments.get(p))):
            expression = terms[0]  # a rule written as functions may push a tuple: add item by item
            for term in terms[1:]:
                expression = f"add_tangents({expression}, {term})"
        else:
            expression = terms[0] if len(terms) == 1 else " + ".join(f"({t})" if " " in t else t for t in terms)
        others_without_tangent = any(forward.jvps.get(p) is not None and not self.facts.has_tangent(arguments.get(p))
                                     for p in codes)
        if forward.elementwise and all(bare) and (others_without_tangent or any(
                arguments[name].name in self.facts.flags[SHAPED_FLAG] for name in guarded)):
            # a broadcast operand's tangent, up to the output's shape: the sum of the terms has
            # it only if no operand larger than the others has a tangent that is ZERO
            expression = f"fit({expression}, {op.target})"
        contributing = [arguments[p] for p in codes if self.facts.has_tangent(arguments.get(p)) and forward.jvps.get(p) is not None]
        every_zero = all(self.facts.may_be_zero(atom) for atom in contributing)
        zero_items = any(atom.name in self.facts.zero_items for atom in contributing)   # list(xs), zip(xs, ys)
        if op.callee.value is operator.getitem:
            # an item taken out of a container is ZERO where the container's is
            every_zero, zero_items = known[1:] if known is not None else (every_zero or zero_items,) * 2
        return self.set_tangent(op.target, expression, maybe_zero=every_zero, zero_items=zero_items)

    def may_hold_a_sequence(self, name: str, seen=()) -> bool:
        """Whether ``name`` may hold a list or tuple: not when every operation assigning it is
        a NumPy call (an array), or a copy of such a value."""
        if self._producers is None:
            self._producers = {}
            for operation in operations_of(self.function.statements):
                self._producers.setdefault(operation.target, []).append(operation)
        for operation in self._producers.get(name, [None]):
            if operation is None or name in seen:
                return True   # a parameter, or a loop carrying it: anything
            if operation.kind == "copy" and isinstance(operation.args[0], Var):
                if self.may_hold_a_sequence(operation.args[0].name, (*seen, name)):
                    return True
            elif not (operation.kind == "call" and operation.callee.kind == "static"
                      and _reads_sequences_as_arrays(operation.callee.value)):
                return True
        return False

    def indexed_item(self, op: Operation):
        """What static_item knows of ``container[i]`` with ``i`` written as a number."""
        if op.callee.value is not operator.getitem or len(op.args) != 2 or not isinstance(op.args[1], Const):
            return None
        try:
            index = ast.literal_eval(op.args[1].code)
        except (ValueError, SyntaxError):
            return None
        return self.facts.static_item(op.args[0], index)

    def bind_jvp(self, op: Operation, param: str) -> str:
        recipe = ("jvp", callee_reference(op), param)
        for name, existing in self.core.bindings.items():
            if existing == recipe:
                return name
        word = operator_name(op.callee.value) if op.callee.operator_code else op.callee.spelling.split(".")[-1]
        name = self.namer.fresh(f"{word}_jvp_{param}")
        self.core.bindings[name] = recipe
        return name

    def _transformable(self, value) -> bool:
        original = getattr(value, "__s2sad_original__", value)
        return inspect.isfunction(original) and not is_library(original)

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
        # what the helper returns may not depend on the arguments given tangents (a constant,
        # a tuple holding one): its tangent, or items of it, may be ZERO
        self.facts.flag(op.target, maybe_zero=True, zero_items=True)
        return [f"{op.target}, {self.core.derivative(op.target)} = {call}"]

    def mutation(self, op: Operation) -> list[str]:
        lines = self.core.mutation_line(op) if op.callee.name != "setitem" else \
            [f"{self.core.code(op.args[0])}[{self.core.code(op.args[1])}] = {self.core.code(op.args[2])}"]
        container, method = op.args[0], op.callee.name
        if container.name not in self.activity.active:
            return lines
        held = self.facts.tangent_of(container)
        # a container's tangent is ZERO until something with a tangent is put in; the items the
        # code puts in without one (or with one that may be ZERO) are ZERO in it
        empty = not self.facts.has_tangent(container) or self.facts.may_be_zero(container)
        items_zero = empty or container.name in self.facts.zero_items
        if method == "setitem":
            value = op.args[2]
            if not (self.facts.has_tangent(value) or self.facts.has_tangent(container)):
                return lines
            # tangent_setitem writes into real zeros where the tangent was ZERO
            return lines + self.set_tangent(container.name, f"tangent_setitem({held}, {self.core.code(container)}, "
                                            f"{self.core.code(op.args[1])}, {self.facts.tangent_of(value)})",
                                            zero_items=items_zero or not self.facts.has_tangent(value) or self.facts.may_be_zero(value)
                                            or self.facts.items_may_be_zero(value))
        if method in ("append", "extend"):
            value = op.args[1]
            tangent = (f"tangent_append({held}, {self.core.code(container)}, {self.facts.tangent_of(value)})" if method == "append" else
                       f"tangent_extend({held}, {self.core.code(container)}, {self.facts.tangent_of(value)}, {self.core.code(value)})")
            added_zero = not self.facts.has_tangent(value) or self.facts.may_be_zero(value) or \
                (method == "extend" and self.facts.items_may_be_zero(value))
            return lines + self.set_tangent(container.name, tangent, maybe_zero=empty and (
                not self.facts.has_tangent(value) or self.facts.may_be_zero(value)), zero_items=items_zero or added_zero)
        # pop
        position = self.core.code(op.args[1]) if len(op.args) > 1 else "-1"
        if self.facts.has_tangent(container):
            lines += self.set_tangent(op.target, f"tangent_pop({held}, {position})", self.facts.items_may_be_zero(container),
                                      self.facts.items_may_be_zero(container))
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
    return f"g * (2 * {base})" if value == 2 else f"g * ({exponent.code} * {base} ** ({exponent.code} - 1))"


def _without_defaults(template: str, forward, arguments) -> str:
    """The template without ``name=name`` keywords the call left at their defaults, so
    ``np.sum(g, axis=axis, keepdims=keepdims)`` reads ``np.sum(dx)`` for ``np.sum(x)``."""
    for name in forward.signature.parameters:
        if name not in arguments:
            template = re.sub(rf",\s*{name}={name}\b", "", template)
    return template


def _reads_sequences_as_arrays(function) -> bool:
    """A NumPy function, which reads a list it is given as an array (not a container op)."""
    module = getattr(function, "__module__", None) or ""
    return isinstance(function, np.ufunc) or module == "numpy" or module.startswith("numpy.")


def _is_number(atom) -> bool:
    """A number written in the source (``0.0``, ``-1``): a 0-d value, which no broadcast enlarges."""
    if not isinstance(atom, Const):
        return False
    try:
        value = ast.literal_eval(atom.code)
    except (ValueError, SyntaxError):
        return False
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _names(template: str) -> set[str]:
    return names_in(template)
