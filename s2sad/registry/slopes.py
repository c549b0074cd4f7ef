"""One derivative, both modes: an elementwise function registered by the slope of each parameter.

An elementwise function's derivative is, per parameter, its slope: ``d ans / d x`` at each
element. From that one definition both rules follow, so a rule author writes it once:

* reverse (the vjp): ``unbroadcast(g * conj(slope), x)``: the cotangent times the conjugate
  slope (s2sad's convention for complex inputs, right for holomorphic functions), summed
  back over broadcast axes in ``x``'s dtype;
* forward (the jvp): ``g * slope``, broadcast up to the output's shape and cast to its dtype.

``defderivative`` takes each slope as an expression (inlined in generated code, no call);
``defslopes`` takes functions ``slope(ans, *params)``, for slopes that need what rule
templates cannot name (SciPy's special functions).
"""
from __future__ import annotations

import ast
import operator
from typing import Any, Callable, Iterable

import numpy as np

from ..rules.helpers import conj, unbroadcast
from . import Rule, defvjp, derivative_rule, real_constant
from .forward import defjvp


def defderivative(function: Callable[..., Any], signature: str, *derivatives: str | None, name: str | None = None,
                  version: str = "1") -> Rule:
    """Register an elementwise function in both modes by the partial derivative of each
    parameter, one expression each (``None``: no derivative in that parameter)::

        defderivative(np.tanh, "x", "1 - ans ** 2")
        defderivative(np.arctan2, "y, x", "x / (x**2 + y**2)", "-y / (x**2 + y**2)")

    The expressions may use the parameters, ``ans`` (the output), ``np``, ``math``, the
    helpers of ``s2sad.rules.helpers`` and builtins; see ``registry.derivative_rule`` for
    what is refused at registration.

    >>> import numpy as np, s2sad
    >>> def logistic(x):
    ...     return 1.0 / (1.0 + np.exp(-x))
    >>> rule = s2sad.defderivative(logistic, "x", "ans * (1 - ans)")
    >>> float(s2sad.grad(logistic)(0.0)), float(s2sad.jvp(logistic, (0.0,), (2.0,))[1])
    (0.25, 0.5)
    """
    rule = derivative_rule(function, signature, *derivatives, name=name, version=version)
    defjvp(function, *(None if derivative is None else jvp_template(derivative) for derivative in derivatives),
           elementwise=True)
    return rule


def jvp_template(derivative: str) -> str:
    """The forward template of a slope expression (checked already by ``derivative_rule``)."""
    text = derivative.strip()
    constant = real_constant(ast.parse(text, mode="eval").body)
    if constant == 1:
        return "g"
    if constant == -1:
        return "-g"
    return f"g * {text}" if constant is not None else f"g * ({text})"


class Explicit:
    """A parameter whose rules are written out, ``rule(g, ans, *params)`` in each mode (the
    same one in both if ``jvp`` is not given): a Bessel function's order, which refuses a
    tangent and gives none; a slope that must be divided safely rather than multiplied."""

    def __init__(self, vjp, jvp=None):
        self.vjp, self.jvp = vjp, jvp if jvp is not None else vjp


def defslopes(function: Callable[..., Any], signature: str, *slopes: Callable[..., Any] | Explicit | None,
              guarded: Iterable[str] | bool = (), name: str | None = None) -> Rule:
    """Register an elementwise function in both modes by a slope function per parameter,
    ``slope(ans, *params)`` (``None``: no derivative; ``Explicit(vjp, jvp)``: written out).

    ``guarded`` names the parameters (or ``True``: all) whose term is exactly 0 wherever the
    cotangent or tangent is 0, even where the slope is infinite (``entr`` at 0: ``0 * inf``
    would be NaN).

    >>> import numpy as np, s2sad
    >>> def cube_root(x):
    ...     return np.cbrt(x)
    >>> rule = s2sad.defslopes(cube_root, "x", lambda ans, x: 1.0 / (3.0 * ans ** 2))
    >>> float(s2sad.grad(cube_root)(8.0)), float(s2sad.jvp(cube_root, (8.0,), (1.0,))[1])
    (0.08333333333333333, 0.08333333333333333)
    """
    params = [part.strip().split("=")[0].strip() for part in signature.split(",")]
    vjps, jvps = [], []
    for position, slope in enumerate(slopes):
        if slope is None:
            vjps.append(None)
            jvps.append(None)
        elif isinstance(slope, Explicit):
            vjps.append(slope.vjp)
            jvps.append(slope.jvp)
        else:
            multiply = times if guarded is True or params[position] in guarded else operator.mul
            vjps.append(_vjp(slope, position, multiply))
            jvps.append(_jvp(slope, multiply))
    rule = defvjp(function, signature, *vjps, name=name)
    defjvp(function, *jvps, elementwise=True)
    return rule


def times(g, slope):
    """``g * slope``, and exactly 0 wherever ``g`` is 0 (an infinite slope times a zero cotangent)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(g, 0), 0.0, g * slope)


def like_output(term, ans):
    """``term`` in the dtype of the output ``ans`` (a NumPy scalar for a scalar output): SciPy
    does not always take the output's dtype from the inputs (``beta(0.5, float32)`` is float64)."""
    dtype = getattr(ans, "dtype", None)
    if dtype is None:
        return term
    if isinstance(ans, np.generic) and np.ndim(term) == 0:
        return term if type(term) is dtype.type else dtype.type(term)
    if getattr(term, "dtype", None) == dtype:
        return term
    return np.asarray(term, dtype=dtype)


def jvp_of_slope(slope, guarded: bool = False):
    """The forward rule ``g * slope(ans, *params)`` alone, for a function whose reverse rule is
    written otherwise (a template)."""
    return _jvp(slope, times if guarded else operator.mul)


def _vjp(slope, position: int, multiply):
    def vjp(g, ans, *params):
        return unbroadcast(multiply(g, conj(slope(ans, *params))), params[position])

    return _named(vjp, slope, "vjp")


def _jvp(slope, multiply):
    def jvp(g, ans, *params):
        return like_output(multiply(g, slope(ans, *params)), ans)

    return _named(jvp, slope, "jvp")


def _named(rule, slope, kind: str):
    """Named after the slope it is made from (``beta_slope_a`` -> ``beta_vjp_a``), in the slope's
    module: what the rules reference lists and a traceback shows."""
    rule.__name__ = rule.__qualname__ = slope.__name__.replace("slope", kind)
    rule.__module__ = slope.__module__
    return rule
