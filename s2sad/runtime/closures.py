"""Lambdas that read the function's variables, used as values: ``[np.sin, lambda v: v * scale]``.

The normaliser writes such a lambda as ``closure(lambda scale, v: v * scale, (scale,))``: a
``functools.partial`` of its own type, ``Closure``, holding the values the lambda reads (it
refuses a lambda whose variables change after it is made, so holding them is what Python's
closure reads). Its tangent is structural, one entry per held value, so a call of it
(``transform(x)``) differentiates the held values with the arguments: ``closure_call_rrule``
and ``closure_call_jvp`` in ``calls.py``. A rule that calls a function it is given
(``functools.reduce``, ``odeint``) does not know to do that, so ``calls.py`` refuses to let one
call a closure holding a number, rather than treat what it holds as constant.
"""
from __future__ import annotations

import functools
import inspect

from ..errors import MissingRuleError, UnsupportedSyntaxError
from .projection import is_float_like
from .tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk


class Closure(functools.partial):
    """A lambda with the values it reads from the function around it held as its first arguments."""

    __slots__ = ()

    def __call__(self, /, *args, **kwargs):
        if kwargs:
            refuse_keywords_not_taken(self, kwargs)
        return super().__call__(*args, **kwargs)


_KEYWORDS_TAKEN: dict = {}  # (the lambda's code, how many values it holds) -> its keywords; None: any


def refuse_keywords_not_taken(receiver: Closure, kwargs: dict) -> None:
    """Refuse a keyword the closure's lambda does not take, rather than raise Python's TypeError from
    code of s2sad's: the lambda s2sad writes for a ``functools.partial`` (frontend/partials_written_out.py)
    leaves out a parameter whose default is no literal, which a call of the partial may give."""
    if not inspect.isfunction(receiver.func):
        return
    key = (receiver.func.__code__, len(receiver.args))
    if key not in _KEYWORDS_TAKEN:
        parameters = list(inspect.signature(receiver.func).parameters.values())[len(receiver.args):]
        _KEYWORDS_TAKEN[key] = None if any(p.kind is p.VAR_KEYWORD for p in parameters) else {
            p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    taken = _KEYWORDS_TAKEN[key]
    for name in kwargs if taken is not None else ():
        if name not in taken:
            raise UnsupportedSyntaxError(
                f"`{name}=` is given to a lambda or a `functools.partial(...)` that does not take it (s2sad's lambda "
                "for a partial takes the function's parameters without a default or with a number, a string or None "
                "as default)", hint=f"call the function itself (`f(..., {name}=...)`), or make the partial hold it")


def closure(function, held: tuple):
    """``Closure(function, *held)``: what generated code makes of a lambda that reads variables."""
    return Closure(function, *held)


def held_tangent(values) -> Tangent | type(ZERO):
    """The structural tangent (or cotangent) of a closure, from one per held value."""
    fields = {index: value for index, value in enumerate(values) if not is_zero(unthunk(value))
              and value is not NO_TANGENT}
    return Tangent(Closure, fields) if fields else ZERO


def held_parts(tangent, count: int) -> tuple:
    """One tangent per held value, from a closure's structural tangent."""
    tangent = unthunk(tangent)
    if is_zero(tangent) or tangent is NO_TANGENT or tangent is None:
        return (ZERO,) * count
    return tuple(tangent[index] for index in range(count))


def refuse_held_numbers(function) -> None:
    """A rule calling a function it was given (``functools.reduce``, ``odeint``) treats the function
    as a constant: a closure holding a number may hold a differentiated one, whose derivative would
    be lost. Forward code checks it too where the rule gives that function no tangent (its other
    arguments may have none: the rule's own check would not run)."""
    if isinstance(function, Closure) and any(is_float_like(value) for value in function.args):
        raise MissingRuleError(
            "a lambda (or a `functools.partial`) that reads the function's variables is given to a function "
            "that calls it (a rule's "
            "callee): s2sad differentiates the values such a lambda reads only where the code itself calls it",
            hint="pass the values the lambda reads as arguments of that call (args=(...)), or call the lambda "
                 "in the function's own code")


refuse_held_numbers.reads_its_arguments_only = True  # (forward code calling it is differentiated again for hvp)
