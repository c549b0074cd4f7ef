"""Rules for ``scipy.integrate`` (registered once the user imports ``scipy.integrate``).

``odeint(func, y0, t, args=...)`` solves ``y' = func(y, t, *args)``; its rules differentiate
the solution of that equation (what odeint approximates to its tolerances ``rtol`` and
``atol``), with respect to ``y0``, the time grid ``t`` and the float arrays and floats among
``args``. The derivatives of ``func`` come from s2sad itself, as a call of ``func`` in
differentiated code would (its rule, or its generated code: ``runtime.calls``).

Reverse: the adjoint method. The adjoint ``a`` solves ``a' = -a J_y`` backwards from the
last time, jumping by the output's cotangent ``g_i`` at each ``t_i``; ``odeint`` itself
integrates ``[y, a, p]`` backwards between neighbouring times, starting each interval from
the solution odeint returned there, with ``p' = -a J_args``. Then ``dy0 = a(t_0)``,
``dargs = p(t_0)``, ``dt_i = g_i . func(y_i, t_i)`` and ``dt_0 = -a(t_0+) . func(y_0, t_0)``
(``a`` before ``g_0`` is added: the first row of the output is ``y0`` whatever ``t_0``).

Forward: the tangent ``v`` solves ``v' = J_y v + J_args dargs`` alongside ``y`` from
``v(t_0) = dy0 - func(y_0, t_0) dt_0``, and row ``i`` of the output moves by
``v(t_i) + func(y_i, t_i) dt_i``.

Both passes integrate with the call's ``rtol``, ``atol``, ``mxstep``, ``hmin``, ``hmax`` and
orders; ``Dfun``, ``col_deriv``, ``ml`` and ``mu`` describe ``func``'s Jacobian alone and are
left out there. Refused: ``full_output=True`` (a dict of solver statistics), ``tcrit`` (points
the solver must stop at, in one direction), and ``args`` holding containers or complex
numbers (pass their arrays as separate ``args``). odeint is real-only: complex ``y0`` is
refused by SciPy itself. So is a ``func`` holding numbers (a closure over them, a
``functools.partial`` or a bound method whose object holds them): they might be differentiated
values, and only what odeint passes to ``func`` is differentiated here; pass them through ``args``.
"""
import functools
import inspect

import numpy as np
from scipy import integrate

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry import defvjp_all
from s2sad.registry.forward import defjvp
from s2sad.runtime.calls import call_jvp, call_rrule
from s2sad.runtime.structure import tangent_item
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero, unthunk

from .helpers import unbroadcast

SIGNATURE = ("func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, atol=None, "
             "tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0, "
             "tfirst=False")


class Problem:
    """One call of odeint, as its rules see it: the equation, the grid, the solver's settings."""

    def __init__(self, func, y0, t, args, full_output, rtol, atol, tcrit, hmax, hmin, mxstep, mxordn, mxords, tfirst):
        if full_output:
            raise UnsupportedArgumentsError("odeint(..., full_output=True) has no rule: its second output is a "
                                            "dict of solver statistics", hint="leave full_output off")
        if tcrit is not None:
            raise UnsupportedArgumentsError("odeint(..., tcrit=...) has no rule: the adjoint equation is integrated "
                                            "backwards, past those points", hint="leave tcrit out")
        _refuse_held_numbers(func)
        self.func, self.tfirst = func, tfirst
        self.args = tuple(args)  # odeint itself refuses anything but a tuple
        self.differentiable = [_has_float_tangent(arg) for arg in self.args]
        self.times = np.asarray(t, dtype=np.float64)
        self.size = np.size(y0)
        self.settings = {"rtol": rtol, "atol": atol, "hmax": hmax, "hmin": hmin, "mxstep": mxstep,
                         "mxordn": mxordn, "mxords": mxords}

    def call(self, y, time):
        return self.func(time, y, *self.args) if self.tfirst else self.func(y, time, *self.args)

    def slope(self, y, time):
        return np.asarray(self.call(y, time), dtype=np.float64).reshape(self.size)

    def integrate(self, dynamics, start, times, extra):
        """odeint of the augmented system ``dynamics(state, time)``: the call's tolerances, given
        to the state's first ``size`` entries as to ``y``, and their smallest to the ``extra`` rest."""
        settings = dict(self.settings)
        for name in ("rtol", "atol"):
            value = settings[name]
            if value is not None and np.ndim(value) > 0:
                value = np.asarray(value, dtype=np.float64).reshape(-1)
                settings[name] = np.concatenate([np.broadcast_to(value, self.size), np.full(extra, value.min())])
        return integrate.odeint(dynamics, start, times, **settings)

    def flat_args(self, parts) -> np.ndarray:
        """The differentiated args' parts (cotangents or tangents), flattened into one float64 vector."""
        pieces = [np.zeros(np.size(arg)) if part is ZERO or part is NO_TANGENT or part is None
                  else np.asarray(unthunk(part), dtype=np.float64).reshape(-1)
                  for arg, part, used in zip(self.args, parts, self.differentiable) if used]
        return np.concatenate(pieces) if pieces else np.zeros(0)

    def unflattened_args(self, flat) -> tuple:
        cotangents, start = [], 0
        for arg, used in zip(self.args, self.differentiable):
            if not used:
                cotangents.append(NO_TANGENT)
                continue
            count = np.size(arg)
            cotangents.append(unbroadcast(flat[start:start + count].reshape(np.shape(arg)), arg))
            start += count
        return tuple(cotangents)


def _has_float_tangent(arg) -> bool:
    """A float array or float of ``args`` is differentiated; ints, strings, functions are not;
    containers and complex numbers are refused (their cotangent would be dropped)."""
    if isinstance(arg, (float, np.floating)) or isinstance(arg, np.ndarray) and arg.dtype.kind == "f":
        return True
    if callable(arg):
        _refuse_held_numbers(arg)
        return False
    if isinstance(arg, (bool, int, str, np.integer, np.bool_)) or arg is None:
        return False
    if isinstance(arg, np.ndarray) and arg.dtype.kind in "iub":
        return False
    raise UnsupportedArgumentsError(f"odeint is differentiated with respect to the float arrays and floats of its "
                                    f"args, not a {type(arg).__name__}",
                                    hint="pass the arrays it holds as separate args (real numbers only)")


def _holds_numbers(value) -> bool:
    if isinstance(value, (float, complex, np.inexact)) or isinstance(value, np.ndarray) and value.dtype.kind in "fc":
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_numbers(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_numbers(item) for item in value.values())
    return False


def _refuse_held_numbers(func) -> None:
    """The rules differentiate ``func``'s arguments, never what it holds: a closure, a partial
    or a bound method holding numbers might hold differentiated ones, whose gradient would be lost."""
    if isinstance(func, functools.partial):
        held = [*func.args, *func.keywords.values()]
        func = func.func
    elif inspect.ismethod(func):
        held = list(vars(func.__self__).values()) if hasattr(func.__self__, "__dict__") else [func.__self__]
        func = func.__func__
    else:
        held = []
    held += [cell.cell_contents for cell in getattr(func, "__closure__", None) or () if _filled(cell)]
    if any(_holds_numbers(value) for value in held):
        raise UnsupportedArgumentsError(f"odeint's func ({getattr(func, '__qualname__', func)!r}) holds numbers "
                                        "(a closure, a functools.partial or a method's object): s2sad differentiates "
                                        "only what odeint passes to func",
                                        hint="define func at module level and pass the numbers through args=(...)")


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:  # a cell not yet assigned
        return False
    return True


def _cotangent_for_output(a, value):
    """The cotangent ``a`` in the form of ``func``'s output (a list for a list)."""
    if isinstance(value, (list, tuple)):
        return type(value)(a.tolist())
    return a.reshape(np.shape(value))


# ------------------------------------------------------------------ reverse: the adjoint method
def odeint_vjp(g, ans, func, y0, t, args, Dfun, col_deriv, full_output, ml, mu, rtol, atol, tcrit, h0, hmax, hmin,
               ixpr, mxstep, mxhnil, mxordn, mxords, printmessg, tfirst):
    problem = Problem(func, y0, t, args, full_output, rtol, atol, tcrit, hmax, hmin, mxstep, mxordn, mxords, tfirst)
    size, times = problem.size, problem.times
    g = np.broadcast_to(np.asarray(unthunk(g), dtype=np.float64), np.shape(ans))
    arg_count = problem.flat_args([ZERO] * len(problem.args)).size
    position = 3 if tfirst else 2  # where y's cotangent is in the pullback's (call, func, *arguments)

    def adjoint_dynamics(state, time):
        y, a = state[:size], state[size:2 * size]
        value, pullback = call_rrule(func, *((time, y) if tfirst else (y, time)), *problem.args)
        parts = pullback(_cotangent_for_output(-a, value))
        dy = parts[position]
        dy = np.zeros(size) if dy is ZERO or dy is NO_TANGENT else np.asarray(unthunk(dy), dtype=np.float64)
        return np.concatenate([np.asarray(value, dtype=np.float64).reshape(size), dy.reshape(size),
                               problem.flat_args(parts[4:])])

    last = len(times) - 1
    d_times = np.zeros(len(times))
    adjoint, d_args = g[last].copy(), np.zeros(arg_count)
    for i in range(last, 0, -1):
        d_times[i] = g[i] @ problem.slope(ans[i], times[i])
        if times[i] != times[i - 1]:
            start = np.concatenate([ans[i], adjoint, d_args])
            state = problem.integrate(adjoint_dynamics, start, times[[i, i - 1]], size + arg_count)[1]
            adjoint, d_args = state[size:2 * size], state[2 * size:]
        adjoint = adjoint + g[i - 1] if i > 1 else adjoint
    # the adjoint at t_0 before g_0 joins it: what moving t_0 (y0 fixed) changes
    d_times[0] = -(adjoint @ problem.slope(ans[0], times[0])) if last > 0 else 0.0
    d_y0 = adjoint + g[0] if last > 0 else g[0].copy()
    return (NO_TANGENT, unbroadcast(d_y0.reshape(np.shape(y0)), y0),
            unbroadcast(d_times.reshape(np.shape(t)), t) if np.result_type(t).kind == "f" else NO_TANGENT,
            problem.unflattened_args(d_args), *(NO_TANGENT,) * 18)


# ------------------------------------------------------------------ forward: the tangent equation alongside
def _tangent_rows(problem, y0, start, arg_tangents):
    """Rows of ``v``, ``v' = J_y v + J_args arg_tangents`` from ``v(t_0) = start``, with ``y``."""
    size = problem.size
    args = problem.args
    tangents_of_args = tuple(tangent if used else ZERO for tangent, used in zip(arg_tangents, problem.differentiable))

    def tangent_dynamics(state, time):
        y, v = state[:size], state[size:]
        value = problem.call(y, time)
        inputs = (time, y) if problem.tfirst else (y, time)
        tangents = (ZERO, v) if problem.tfirst else (v, ZERO)
        dv = call_jvp(problem.func, value, inputs + args, tangents + tangents_of_args)
        dv = np.zeros(size) if dv is ZERO else np.asarray(unthunk(dv), dtype=np.float64).reshape(size)
        return np.concatenate([np.asarray(value, dtype=np.float64).reshape(size), dv])

    first = np.concatenate([np.asarray(y0, dtype=np.float64).reshape(size), start])
    return problem.integrate(tangent_dynamics, first, problem.times, size)[:, size:]


def odeint_jvp_y0(g, ans, func, y0, t, args, Dfun, col_deriv, full_output, ml, mu, rtol, atol, tcrit, h0, hmax, hmin,
                  ixpr, mxstep, mxhnil, mxordn, mxords, printmessg, tfirst):
    problem = Problem(func, y0, t, args, full_output, rtol, atol, tcrit, hmax, hmin, mxstep, mxordn, mxords, tfirst)
    g = unthunk(g)
    if isinstance(g, (list, tuple)):  # a list y0's tangent: ZERO for its items without one
        g = [0.0 if is_zero(item) else unthunk(item) for item in g]
    start = np.asarray(g, dtype=np.float64).reshape(problem.size)
    return _tangent_rows(problem, y0, start, (ZERO,) * len(problem.args))


def odeint_jvp_t(g, ans, func, y0, t, args, Dfun, col_deriv, full_output, ml, mu, rtol, atol, tcrit, h0, hmax, hmin,
                 ixpr, mxstep, mxhnil, mxordn, mxords, printmessg, tfirst):
    problem = Problem(func, y0, t, args, full_output, rtol, atol, tcrit, hmax, hmin, mxstep, mxordn, mxords, tfirst)
    d_times = np.asarray(unthunk(g), dtype=np.float64).reshape(-1)
    first_slope = problem.slope(ans[0], problem.times[0])
    rows = _tangent_rows(problem, y0, -first_slope * d_times[0], (ZERO,) * len(problem.args))
    slopes = np.stack([problem.slope(row, time) for row, time in zip(ans, problem.times)])
    return rows + slopes * d_times[:, None]


def odeint_jvp_args(g, ans, func, y0, t, args, Dfun, col_deriv, full_output, ml, mu, rtol, atol, tcrit, h0, hmax,
                    hmin, ixpr, mxstep, mxhnil, mxordn, mxords, printmessg, tfirst):
    problem = Problem(func, y0, t, args, full_output, rtol, atol, tcrit, hmax, hmin, mxstep, mxordn, mxords, tfirst)
    arg_tangents = tuple(unthunk(tangent_item(g, i)) for i in range(len(problem.args)))
    return _tangent_rows(problem, y0, np.zeros(problem.size), arg_tangents)


defvjp_all(integrate.odeint, SIGNATURE, odeint_vjp, name="scipy.integrate.odeint")
defjvp(integrate.odeint, None, odeint_jvp_y0, odeint_jvp_t, odeint_jvp_args)
