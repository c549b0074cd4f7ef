"""Derivatives of derivatives of a scalar function: ``grad(grad(f))`` and beyond.

Forward mode applied to generated forward code, once per order: the generated jvp is plain
Python with no closure, so s2sad differentiates it again like any function.
"""
from __future__ import annotations

import functools

import numpy as np

from .arguments import shaped_tangent
from .errors import ArgumentError, MissingRuleError
from .frontend.resolve import mark_transform, signature as _signature_of, unwrap as _unwrap
from .runtime.projection import check_differentiable
from .tracebacks import POINTING
from .transform import generated_jvp


def derivative(f, order: int, argnum: int = 0, made_as=None):
    """The ``order``-th derivative of a scalar ``f`` in its scalar argument ``argnum``, by
    forward mode applied to generated forward code ``order`` times. ``made_as``: ``(grad, g,
    by_rule)`` when it is ``grad(g)``, which is how it is differentiated again
    (s2sad.compositions); ``by_rule``, ``grad(g)`` through ``g``'s rule (reverse over forward),
    computes it where nested forward code cannot be made (forward code calling another
    function's generated code has no forward rule)."""
    original = _unwrap(f)
    name = list(_signature_of(original).parameters)[argnum]

    @functools.wraps(original)
    def derivative_f(*args):
        x = args[argnum]
        if np.ndim(x) != 0:
            raise ArgumentError(f"grad of a gradient needs a scalar argument, but argument {argnum} has shape {np.shape(x)}",
                                hint="use s2sad.hessian(f) or s2sad.hvp(f, primals, tangents) for array arguments")
        check_differentiable(x, name)
        one = type(x)(1.0) if isinstance(x, (float, np.generic)) else np.ones((), np.result_type(x))
        function, values, variable = original, list(args), name
        try:
            for _ in range(order):
                forward = generated_jvp(function, (variable,))
                values = values + [one]
                function, variable = forward, list(_signature_of(forward).parameters)[argnum]
        except MissingRuleError:
            if made_as is None:
                raise
            return made_as[2](*args)
        with POINTING:
            result = function(*values)
        for _ in range(order):  # the tangent of the tangent of ...: the last leaf, `order` levels down
            result = result[1]
        return shaped_tangent(result, x)

    derivative_f.__s2sad_derivative__ = (original, order, argnum)
    return mark_transform(derivative_f, "grad", None if made_as is None else (made_as[0], made_as[1], argnum))
