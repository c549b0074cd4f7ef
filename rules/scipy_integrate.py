"""Rules for ``scipy.integrate`` (registered once the user imports ``scipy.integrate``).

``odeint(func, y0, t, args=...)`` solves ``dy/ds = func(y, s, *args)`` and returns ``y`` at the
times ``t``. Its derivatives are ODEs too, solved with ``odeint`` at the tolerances the call
asked for (``rtol``, ``atol``, ``mxstep``, ``hmax``, ``hmin``, ``h0``), with ``func``'s own
derivatives from s2sad (``func`` is differentiated from its source, like any Python function):

* reverse, the adjoint method: from the last time back to the first, the state ``y``, the
  adjoint ``a = dL/dy`` and the parameters' cotangent ``p`` solve
  ``dy/ds = f``, ``da/ds = -a^T df/dy``, ``dp/ds = -a^T df/dargs``; at each time ``t_i`` the
  adjoint takes the output's cotangent ``G_i``. Then ``dL/dy0 = a(t_0)``, ``dL/dargs = p(t_0)``,
  ``dL/dt_i = G_i . f(y_i, t_i)`` for ``i > 0`` and ``dL/dt_0 = -a(t_0) . f(y_0, t_0)`` (``a``
  before ``G_0``). ``args`` may be passed by keyword, as it usually is: its cotangent goes back
  by keyword.
* forward: the tangent ``S`` of the solution solves ``dS/ds = df/dy S + df/dargs dargs``
  alongside ``y``, from ``S(t_0) = dy0 - f(y_0, t_0) dt_0``; ``dy_i = S(t_i) + f(y_i, t_i) dt_i``.

Real states only (``odeint`` is real); ``full_output``, ``Dfun`` and ``tfirst`` are refused.
"""
import numpy as np
from scipy import integrate

from s2sad.api import vjp
from s2sad.errors import UnsupportedArgumentsError
from s2sad.jacobians import jvp
from s2sad.registry import defrrule
from s2sad.registry.forward import defjvp
from s2sad.runtime.tangents import NO_TANGENT, ZERO, is_zero, unthunk
from s2sad.transformed import CotangentTuple

SIGNATURE = ("func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None, mu=None, rtol=None, atol=None, "
             "tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0, "
             "tfirst=False")
PARAMETERS = [part.split("=")[0].strip() for part in SIGNATURE.split(",")]
ACCURACY = ("rtol", "atol", "tcrit", "h0", "hmax", "hmin", "mxstep", "mxordn", "mxords")


def _bound(args, kwargs) -> dict:
    values = dict(zip(PARAMETERS, (None, None, None, (), None, 0, 0, None, None, None, None, None, 0.0, 0.0, 0.0, 0,
                                   0, 0, 12, 5, 0, False)))
    values.update(zip(PARAMETERS, args))
    values.update(kwargs)
    if values["full_output"] or values["Dfun"] is not None or values["tfirst"]:
        raise UnsupportedArgumentsError("odeint is differentiated without full_output, Dfun or tfirst",
                                        hint="call odeint(func, y0, t, args=...) with func(y, t, *args)")
    if np.iscomplexobj(values["y0"]):
        raise UnsupportedArgumentsError("odeint integrates real states only")
    if not isinstance(values["args"], tuple):
        values["args"] = (values["args"],)
    return values


def _accuracy(values) -> dict:
    return {name: values[name] for name in ACCURACY if values[name] is not None}


def _is_parameter(value) -> bool:
    return np.asarray(value).dtype.kind == "f"


def _flat_parameters(args) -> np.ndarray:
    return np.concatenate([np.ravel(a) for a in args if _is_parameter(a)] or [np.zeros(0)])


def _unflatten(flat, args) -> tuple:
    """One cotangent per argument: a float's as a float, an array's in its shape, none for the rest."""
    out, start = [], 0
    for a in args:
        if not _is_parameter(a):
            out.append(NO_TANGENT)
            continue
        size = np.size(a)
        part = flat[start:start + size]
        start += size
        out.append(float(part[0]) if isinstance(a, float) else part.reshape(np.shape(a)).astype(np.asarray(a).dtype))
    return tuple(out)


def odeint_rrule(*args, **kwargs):
    values = _bound(args, kwargs)
    func, y0, t, extra = values["func"], np.asarray(values["y0"], dtype=float), np.asarray(values["t"]), values["args"]
    accuracy = _accuracy(values)
    ys = integrate.odeint(func, y0, t, args=extra, **accuracy)
    n = y0.size

    def augmented(state, s):
        y, a = state[:n], state[n:2 * n]
        slope, pullback = vjp(func, y, s, *extra)
        cotangents = pullback(a)
        return np.concatenate([slope, -_dense(cotangents[0], y), -_flat_cotangents(cotangents[2:], extra)])

    def odeint_pullback(g):
        g = unthunk(g)
        G = np.zeros_like(ys) if is_zero(g) else np.asarray(g, dtype=float).reshape(ys.shape)
        a, p = G[-1].copy(), np.zeros_like(_flat_parameters(extra))
        t_bar = np.zeros(len(t))
        for i in range(len(t) - 1, 0, -1):
            t_bar[i] = G[i] @ np.asarray(func(ys[i], t[i], *extra))
            state = integrate.odeint(augmented, np.concatenate([ys[i], a, p]), [t[i], t[i - 1]], **accuracy)[-1]
            a, p = state[n:2 * n] + G[i - 1], state[2 * n:]
        t_bar[0] = -(a - G[0]) @ np.asarray(func(ys[0], t[0], *extra))
        by_name = {"func": NO_TANGENT, "y0": a.reshape(np.shape(values["y0"])), "t": t_bar if _is_parameter(t) else NO_TANGENT,
                   "args": _unflatten(p, extra)}
        positional = [by_name.get(name, NO_TANGENT) for name in PARAMETERS[:len(args)]]
        result = CotangentTuple((NO_TANGENT, *positional))
        result.keywords = {key: by_name.get(key, NO_TANGENT) for key in kwargs}
        return result

    return ys, odeint_pullback


def _dense(cotangent, value):
    """A cotangent as an array: zeros where ``vjp`` gives none (a constant argument)."""
    return np.zeros(np.shape(value)) if cotangent is NO_TANGENT or cotangent is ZERO else np.asarray(cotangent, dtype=float)


def _flat_cotangents(cotangents, extra) -> np.ndarray:
    return np.concatenate([np.ravel(_dense(c, a)) for c, a in zip(cotangents, extra) if _is_parameter(a)] or [np.zeros(0)])


def _sensitivity(values, s0, parameter_tangents):
    """``S`` at the times ``t``: ``dS/ds = df/dy S + df/dargs dargs`` from ``S(t_0) = s0``."""
    func, y0, t, extra = values["func"], np.asarray(values["y0"], dtype=float), np.asarray(values["t"]), values["args"]
    n = y0.size

    def augmented(state, s):
        y, sensitivity = state[:n], state[n:]
        slope, tangent = jvp(func, (y, s, *extra), (sensitivity, 0.0, *parameter_tangents))
        return np.concatenate([slope, np.asarray(tangent)])

    solution = integrate.odeint(augmented, np.concatenate([y0, s0]), t, **_accuracy(values))
    return solution[:, n:]


def _zero_tangents(extra):
    return tuple(np.zeros_like(np.asarray(a, dtype=float)) if _is_parameter(a) else 0 * a if isinstance(a, int) else a
                 for a in extra)


def odeint_jvp_y0(g, ans, *params):
    values = _bound(params, {})
    return _sensitivity(values, np.asarray(g, dtype=float).ravel(), _zero_tangents(values["args"]))


def odeint_jvp_t(g, ans, *params):
    values = _bound(params, {})
    func, t, extra = values["func"], values["t"], values["args"]
    slopes = np.array([np.asarray(func(y, s, *extra)) for y, s in zip(ans, t)])
    s0 = -slopes[0] * g[0]
    return _sensitivity(values, s0, _zero_tangents(extra)) + slopes * np.asarray(g)[:, None]


def odeint_jvp_args(g, ans, *params):
    values = _bound(params, {})
    extra = values["args"]
    tangents = tuple(np.asarray(unthunk(d), dtype=float) if _is_parameter(a) and not is_zero(d) else z
                     for a, d, z in zip(extra, (g if isinstance(g, tuple) else (g,)), _zero_tangents(extra)))
    return _sensitivity(values, np.zeros(np.size(values["y0"])), tangents)


defrrule(integrate.odeint, odeint_rrule, signature=SIGNATURE, name="scipy.integrate.odeint", keywords=True)
defjvp(integrate.odeint, None, odeint_jvp_y0, odeint_jvp_t, odeint_jvp_args)
