"""Attribute assignments (``p.w = v``) differentiated exactly, or refused.

The normaliser writes ``p.w = v`` as ``p_2 = with_attribute(p, "w", v)``: a new object, so
that each version of ``p`` is a value of its own to the derivative code. Python changes the
object itself instead. The two agree exactly when

* the function made the object (a class called, ``copy.copy``/``copy.deepcopy``,
  ``dataclasses.replace``, or an earlier ``with_attribute``), so no caller sees it change,
  through every copy, branch and loop that brought it to the assignment; and
* no other name for the object (``q = p`` before, a list or tuple holding it, what a user
  function handed back given it) is read after the assignment: that name would see the
  change in Python and the old object here.

Everything else is refused, naming the line, with the copy to make instead.
"""
from __future__ import annotations

import copy
import dataclasses
import inspect

from ..errors import UnsupportedSyntaxError
from ..frontend.ir import Operation, Var, operations_of
from ..frontend.resolve import Environment
from ..rules.helpers import deep_copied, with_attribute
from ..rules.python_objects import with_attribute_jvp_obj, with_attribute_jvp_value
from .aliasing import Reads, from_a_library, user_name

# Library functions whose result is a new object of the function's own
MAKES_A_COPY = (copy.copy, copy.deepcopy, deep_copied, dataclasses.replace, with_attribute)


def check_attribute_writes(function, source) -> None:
    operations = operations_of(function.statements)
    writes = [op for op in operations if _is_attribute_write(op)]
    if not writes:
        return
    made_by: dict[str, list[Operation]] = {}
    for op in operations:
        made_by.setdefault(op.target, []).append(op)
    environment = Environment(source.function)
    reads = Reads(function)
    reads.readers = [(op, used) for op, used in reads.readers if not _reads_only_the_tangent(op)]
    for write in writes:
        written = write.args[0].name
        owner, attribute = user_name(written), write.args[1].code.strip("'\"")
        where = reads.statement[id(write)]
        location = where.location if where is not None else source.location(source.funcdef)
        foreign = _foreign_origin(written, made_by, environment, function.bindings, set())
        if foreign is not None:
            raise UnsupportedSyntaxError(
                f"`{owner}.{attribute} = ...` changes an object the function did not make ({foreign}): "
                "the caller would see the change, which s2sad does not differentiate",
                location, f"work on a copy: `{owner} = copy.copy({owner})` first (import copy), then assign its attributes")
        for other in sorted(_other_names(written, operations, made_by)):
            if reads.after(other, write):
                raise UnsupportedSyntaxError(
                    f"`{owner}.{attribute} = ...` changes the object `{user_name(other)}` also names, and "
                    f"`{user_name(other)}` is read after the change: s2sad would differentiate it as if "
                    f"`{user_name(other)}` were unchanged", location,
                    f"take a copy where the second name is made (`{user_name(other)} = copy.copy({owner})`), "
                    "or read the object under one name only")


def _reads_only_the_tangent(op) -> bool:
    """A call of ``p.w = v``'s own forward rule, in forward code differentiated again (a
    Hessian): it reads the tangent and the new object, not ``p`` or ``v``, so it is no read of
    another name for the object after the change (``self.w = self.prep(w)``: ``v`` may be
    ``self`` for all s2sad knows)."""
    return isinstance(op, Operation) and op.calls(with_attribute_jvp_obj, with_attribute_jvp_value)


def _is_attribute_write(op: Operation) -> bool:
    return op.calls(with_attribute)


def _foreign_origin(name: str, made_by: dict, environment: Environment, bindings: dict, seen: set) -> str | None:
    """None when every way the object ``name`` holds was made is the function's own; else what
    it may come from (a parameter, a global, a call's result)."""
    if name in seen:
        return None  # a loop's back edge: the other definitions decide
    seen.add(name)
    definitions = made_by.get(name)
    if not definitions:
        return f"`{user_name(name)}` is an argument or a global"
    for op in definitions:
        if op.kind == "copy":
            source = op.args[0]
            found = _foreign_origin(source.name, made_by, environment, bindings, seen) if isinstance(source, Var) else None
            if found is not None:
                return found
        elif not _makes_a_new_object(op, environment, bindings):
            return f"`{user_name(name)}` comes from {op.callee.spelling if op.callee else op.kind}(...)"
    return None


def _makes_a_new_object(op: Operation, environment: Environment, bindings: dict) -> bool:
    if op.kind != "call" or op.callee is None:
        return False
    callee = op.callee
    if callee.kind == "static":
        return callee.value in MAKES_A_COPY or inspect.isclass(callee.value)
    if callee.kind == "method" and callee.name == "__call__" and op.args and not isinstance(op.args[0], Var):
        code = op.args[0].code
        return inspect.isclass(callee.value) or inspect.isclass(environment.resolve_dotted(code)) \
            or bindings.get(code, ("",))[0] == "class"  # a class defined in the function
    return False


def _other_names(written: str, operations, made_by: dict) -> set[str]:
    """The names that hold the object ``written`` holds under another user variable: the names
    it was copied from (``m2 = m`` makes ``m`` one), copies, containers holding it, and what a
    user function or method may hand back given it."""
    owner = user_name(written)
    holders, frontier = {written}, [written]
    while frontier:  # upstream: `m2 = m` then `m2.w = v` changes the object `m` names too
        for op in made_by.get(frontier.pop(), ()):
            source = op.args[0] if op.kind == "copy" and op.args else None
            if isinstance(source, Var) and source.name not in holders:
                holders.add(source.name)
                frontier.append(source.name)
    changed = True
    while changed:
        changed = False
        for op in operations:
            if op.target in holders or not (_held_operands(op) & holders):
                continue
            if op.kind == "copy" and user_name(op.target) == owner:
                continue  # the same variable carried through a branch or a loop: its own new versions
            holders.add(op.target)
            changed = True
    return holders - {written}


def _held_operands(op: Operation) -> set[str]:
    """The operands whose objects ``op``'s result may be or hold (not merely their values)."""
    if op.kind in ("copy", "list", "tuple", "dict"):
        return set(op.uses())
    if op.kind == "mutate":
        return set(op.uses()) if op.callee.name in ("append", "extend", "setitem", "insert") else set()
    if op.kind != "call" or op.callee is None:
        return set()
    callee = op.callee
    if callee.value is with_attribute:
        return {op.args[2].name} if isinstance(op.args[2], Var) else set()  # `q.inner = p`: q holds p
    if callee.kind == "static":
        if callee.value in MAKES_A_COPY or not inspect.isfunction(callee.value) or from_a_library(callee.value):
            return set()
        return set(op.uses())  # the user's function may hand back what it was given
    return set(op.uses()) if callee.kind == "method" else set()  # a user's method may return self
