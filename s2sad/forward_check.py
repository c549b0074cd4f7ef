"""Checking forward rules against finite differences: ``check_frule(np.tanh, x)``.

For a random tangent ``v`` of one argument at a time, the rule's pushforward must equal the
central difference ``(f(x + h v) - f(x - h v)) / 2h`` of the primal run on float64 copies,
have the output's shape, and keep float32 in float32. Arguments without a tangent space
(ints, strings) get none. Complex arguments get complex tangents.
"""
from __future__ import annotations

import numpy as np

from .registry.forward import forward_method_rule, forward_rule
from .runtime.tangents import ZERO, Tangent, is_zero, unthunk
from .testing import TOLERANCES, has_tangent, inexact_dtypes, least_precise, random_like, shifted_by, widened

__all__ = ["check_frule", "pushforward"]


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    if isinstance(x, Tangent):
        return [leaf for value in x.fields.values() for leaf in _leaves(value)]
    return [x]


def _tangent_leaves(tangent, primal):
    """Tangent leaves lined up with the primal's leaves (ZERO expanded to zeros)."""
    if isinstance(primal, (list, tuple)):
        if is_zero(tangent):
            return [leaf for item in primal for leaf in _tangent_leaves(ZERO, item)]
        items = [tangent[i] for i in range(len(primal))]
        return [leaf for item, p in zip(items, primal) for leaf in _tangent_leaves(item, p)]
    tangent = unthunk(tangent)
    if is_zero(tangent):  # a strong zero has the primal's dtype (complex zeros for a complex output)
        return [np.zeros(np.shape(primal), dtype=np.result_type(primal, np.float64))]
    return [tangent]


def pushforward(f, *args, tangents, **kwargs):
    """The forward rule of ``f`` pushing ``tangents`` (by parameter name) forward at ``args``."""
    return forward_rule(f).pushforward(args, kwargs, tangents, f(*args, **kwargs))


def check_frule(f, *args, rtol=None, atol=None, seed=0, method=None, **kwargs):
    """Check the forward rule of ``f`` (or of ``method`` on ``args[0]``'s type) at ``args``.

    Returns the pushforward of each argument's random tangent, in argument order (None for
    arguments without a tangent space).
    """
    rng = np.random.default_rng(seed)
    forward = forward_method_rule(type(args[0]), method) if method else forward_rule(f)
    if forward is None:
        raise AssertionError(f"no forward rule for {method or f!r}")
    call = (lambda *a, **k: getattr(a[0], method)(*a[1:], **k)) if method else f
    ans = call(*args, **kwargs)
    worst = least_precise([d for a in args for d in inexact_dtypes(a)] + inexact_dtypes(ans))
    default_rtol, default_atol = TOLERANCES.get(np.dtype(worst), (1e-5, 1e-7))
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    params = list(forward.signature.parameters)
    results = []
    for i, x in enumerate(args):
        if not has_tangent(x):
            results.append(None)
            continue
        v = random_like(x, rng)
        pushed = forward.pushforward(args, kwargs, {params[min(i, len(params) - 1)]: v}, ans)
        step = float(np.finfo(np.float64).eps) ** (1 / 3)
        plus = list(widened(a) for a in args)
        minus = list(plus)
        plus[i], minus[i] = shifted_by(plus[i], step, v), shifted_by(minus[i], -step, v)
        up, down = call(*plus, **kwargs), call(*minus, **kwargs)
        for got, hi, lo, out in zip(_tangent_leaves(pushed, ans), _leaves(up), _leaves(down), _leaves(ans)):
            expected = (np.asarray(hi, dtype=np.result_type(hi, np.float64)) -
                        np.asarray(lo, dtype=np.result_type(lo, np.float64))) / (2 * step)
            got = np.asarray(got)
            if got.shape != np.shape(out):
                raise AssertionError(f"tangent of argument {i} has shape {got.shape}, the output {np.shape(out)}")
            if hasattr(out, "dtype") and out.dtype.kind in "fc" and got.dtype != out.dtype and got.size:
                raise AssertionError(f"tangent of argument {i} has dtype {got.dtype}, the output {out.dtype}")
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol,
                                       err_msg=f"forward rule of {forward.name}, argument {i}")
        results.append(pushed)
    return results
