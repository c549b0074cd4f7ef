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

from ..errors import MissingRuleError
from .projection import is_float_like
from .tangents import NO_TANGENT, ZERO, Tangent, is_zero, unthunk


class Closure(functools.partial):
    """A lambda with the values it reads from the function around it held as its first arguments."""

    __slots__ = ()


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
