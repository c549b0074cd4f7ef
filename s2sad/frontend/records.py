"""``LOG.append(loss)``: a value recorded in a list of the function's module (or of an enclosing
function), its result unused. It runs as Python runs it and carries no gradient
(``rules.helpers.logged``), which is right as long as nothing differentiated reads the list:
refused where the function reads it otherwise (``LOG[-1]``, ``sum(LOG)``). The aliasing analysis
counts the recorded value as read when the function returns, and refuses a change in place of
the recorded object (aliasing.py ``_refuse_recorded``)."""
from __future__ import annotations

import dis
import functools
import inspect

from ..analysis.aliasing import conditions_of
from ..errors import UnsupportedSyntaxError
from ..rules.helpers import logged
from .ir import Callee, Var, operations_of
from .normalize_state import NormalizerState
from .resolve import is_library


class RecordNormalizer(NormalizerState):
    def record_if_a_log(self, op, node) -> None:
        """Make ``op`` (a call kept for its effect, written at ``node``) a record if it is ``LOG.append(v)``."""
        if self.appends_to_a_module_list(op):
            op.callee = Callee("static", "logged", logged)
            self.logs.append((op, self.source.location(node)))

    def appends_to_a_module_list(self, op) -> bool:
        """``LOG.append(v)``: ``LOG`` a list the function reads from its module (or an enclosing
        function), not one of its own variables."""
        if op.callee.kind != "method" or op.callee.name != "append" or len(op.args) != 2 or op.kwargs:
            return False
        receiver = op.args[0]
        names = [name for name, local in self.free_reads.items() if isinstance(receiver, Var) and local == receiver.name]
        return bool(names) and type(self.env.lookup(names[0])) is list

    def check_logs_unread(self, statements) -> None:
        """Refuse ``LOG.append(v)`` where the function also reads ``LOG`` otherwise (``LOG[-1]``,
        ``sum(LOG)``, another method): what it reads would hold values appended while it runs,
        which the derivative code takes for constants."""
        readers = operations_of(statements)
        for log, location in self.logs:
            name = log.args[0].name
            if any(name in op.uses() for op in readers if op is not log and not self.is_log_of(op, name)) \
                    or any(name in names for _, names in conditions_of(statements)):
                user = self.user_name_of_log(name)
                raise UnsupportedSyntaxError(
                    f"`{user}.append(...)` records a value in a list the function also reads: what it reads "
                    f"there would hold values appended while the function runs, which s2sad takes for constants",
                    location, f"read `{user}` outside the differentiated function, or keep the values in a local list "
                              f"and return it with the result (has_aux=True)")
            function = getattr(self.source.function, "__func__", self.source.function)
            reader = read_beside_appending(function, self.env.lookup(self.user_name_of_log(name))) \
                if inspect.isfunction(function) else None
            if reader is not None:
                user = self.user_name_of_log(name)
                raise UnsupportedSyntaxError(
                    f"`{user}.append(...)` records a value in a list that `{reader}`, which this function may call, "
                    f"reads: what it reads there while the function runs would hold values recorded here, which "
                    f"s2sad takes for constants", location,
                    f"read `{user}` outside the differentiated function, or pass the value `{reader}` needs as an argument")

    def check_lists_read_unrecorded(self) -> None:
        """Refuse reading a list of the module (``LOG[-1]``) that a function this one may call records a
        differentiated value in (``record(z)`` doing ``LOG.append(z)``): the read would see the value
        recorded during the call, which s2sad takes for a constant. (``check_logs_unread`` looks the
        other way, from the function that appends.)"""
        function = getattr(self.source.function, "__func__", self.source.function)
        if not inspect.isfunction(function):
            return
        for name in self.free_reads:
            value = self.env.lookup(name)
            if type(value) is not list or "read" not in _uses_of(function, value):
                continue
            appender = appended_beside_reading(function, value)
            if appender is not None:
                raise UnsupportedSyntaxError(
                    f"the function reads `{name}`, a list of its module that `{appender}`, which it may call, records "
                    f"values in: what it reads there may hold a value recorded while it runs, which s2sad takes for "
                    f"a constant", self.source.location(self.source.funcdef),
                    f"have `{appender}` return the value, and use that")

    def user_name_of_log(self, local: str) -> str:
        return next(n for n, held in self.free_reads.items() if held == local)

    def is_log_of(self, op, name: str) -> bool:
        return any(op is log for log, _ in self.logs) and op.args[0].name == name


def read_beside_appending(function, log: list) -> str | None:
    """The name of a function or method of the user's that the differentiated ``function`` may call
    (by name, through what its module names, through a method name of a class it meets) and that
    reads ``log`` otherwise than to append to it; None when there is none. Such a read, during the
    call being differentiated, would take what was recorded for a constant."""
    for reached in _reachable_user_code(function):
        if _reads_besides_appending(reached, log):
            return reached.__qualname__
    return None


def _user_code(value) -> bool:
    module = getattr(value, "__module__", "") or ""
    return not is_library(value) and not module.startswith("s2sad")


def _names(code) -> set[str]:
    found = set(code.co_names) | set(code.co_freevars)
    for const in code.co_consts:
        if inspect.iscode(const):
            found |= _names(const)
    return found


def _reachable_user_code(function, limit: int = 2000) -> list:
    """The user's functions ``function`` may reach: those its code names in its module or closure,
    the methods of the user's classes and objects it meets whose names its code uses, and so on
    (a method of a class from elsewhere, on an object given as an argument, is not followed)."""
    # (the classes of the function's module too: an object of one may come in as an argument)
    found, seen = [], set()
    pending = [function, *[value for value in function.__globals__.values() if isinstance(value, type)]]
    methods, names_used = {}, set()
    while pending and len(seen) < limit:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, functools.partial):
            pending.append(value.func)
        elif inspect.ismethod(value) or isinstance(value, (staticmethod, classmethod)):
            pending.append(value.__func__)
        elif isinstance(value, property):
            pending += [f for f in (value.fget, value.fset, value.fdel) if f is not None]
        elif inspect.isfunction(value):
            if not _user_code(value):
                continue
            found.append(value)
            for name in _names(value.__code__):
                names_used.add(name)
                if name in value.__globals__:
                    pending.append(value.__globals__[name])
                pending += methods.get(name, [])
            for cell in value.__closure__ or ():
                try:
                    pending.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
        elif isinstance(value, type):
            if not _user_code(value):
                continue
            for klass in value.__mro__:
                if not _user_code(klass):
                    continue
                for attribute, member in vars(klass).items():
                    methods.setdefault(attribute, []).append(member)
                    if attribute in names_used or attribute.startswith("__"):
                        pending.append(member)
        elif _user_code(type(value)):
            pending.append(type(value))  # an object of the user's class: its methods
    return found


def _reads_besides_appending(function, log: list) -> bool:
    return "read" in _uses_of(function, log)


def _uses_of(function, log: list) -> set:
    """How ``function``'s code uses ``log``: "append" (``log.append(...)``) and "read" (anything else)."""
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))

    def names_the_log(instruction) -> bool:
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            return function.__globals__.get(instruction.argval) is log
        if instruction.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF") and instruction.argval in cells:
            try:
                return cells[instruction.argval].cell_contents is log
            except ValueError:
                return False
        return False

    def uses(code) -> set:
        found = set()
        instructions = list(dis.get_instructions(code))
        for position, instruction in enumerate(instructions):
            if names_the_log(instruction):
                following = instructions[position + 1] if position + 1 < len(instructions) else None
                appends = following is not None and following.opname in ("LOAD_METHOD", "LOAD_ATTR") \
                    and following.argval == "append"
                found.add("append" if appends else "read")
        for const in code.co_consts:
            if inspect.iscode(const):
                found |= uses(const)
        return found

    return uses(function.__code__)


def appended_beside_reading(function, log: list) -> str | None:
    """The name of a function of the user's that ``function`` (which reads ``log``) may call and that
    appends to ``log``: what ``function`` reads there would hold what was recorded during the call."""
    for reached in _reachable_user_code(function):
        if reached is not function and "append" in _uses_of(reached, log):
            return reached.__qualname__
    return None
