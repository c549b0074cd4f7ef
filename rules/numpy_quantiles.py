"""Rules for ``np.quantile`` and ``np.percentile`` (``method='linear'``, NumPy's default).

Each quantile of a slice is read from its sorted values ``s`` at the virtual index
``v = q (n - 1)`` (as NumPy computes it): ``s[i] + (v - i) (s[i + 1] - s[i])`` with ``i =
floor(v)``, so it is linear in the two sorted values it reads, with the weights ``1 - (v - i)``
and ``v - i``. Each element gets the weight of its sorted position.

Ties: elements of equal value may leave in either order, so the weight of an element in a tie
is well defined only when every sorted position the tied group fills has the same weight
(``np.quantile([1, 1, 3], 0.25)`` reads the two ones half each: the function is their mean
near the point, slope 1/2 each). Where the positions' weights differ (``np.quantile([1, 1, 3],
0.0)`` is the smaller of the two ones), the function has a kink at the point: refused, as is
a differentiated ``q`` (the virtual index moves across sorted positions, with a kink at each
whole index), another ``method``, ``weights=`` and ``overwrite_input=True``.
"""
import numpy as np

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry import defvjp, nondifferentiable
from s2sad.registry.forward import defjvp
from s2sad.runtime.tangents import NO_TANGENT

from .helpers import dtype_of, expand_reduced, unbroadcast
from .numpy_reductions import refused_keyword
from .numpy_shapes import as_tangent_of

_QUANTILE = "a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False, *, weights=None"


def _refuse_options(function, overwrite_input, method, weights):
    if overwrite_input:
        raise UnsupportedArgumentsError(f"no rule for {function} with overwrite_input=True: NumPy reorders the input "
                                        "in place, so its elements are no longer where the cotangent puts them")
    if method != "linear" or weights is not None:
        chosen = f"method={method!r}" if method != "linear" else "weights="
        raise UnsupportedArgumentsError(f"no rule for {function} with {chosen}: s2sad differentiates the default, "
                                        "method='linear' without weights", hint="drop the keyword")


def _position_weights(fractions, n):
    """For each quantile (``fractions``, flat), the weight of each of the ``n`` sorted positions,
    from the virtual index and the two positions NumPy's 'linear' method reads."""
    virtual = (n - 1) * fractions  # as NumPy's 'linear' method computes it (rounded as its own)
    below = np.clip(np.floor(virtual), 0, n - 1).astype(np.intp)
    above = np.minimum(below + 1, n - 1)
    step = np.where(virtual >= n - 1, 0.0, np.where(virtual < 0, 0.0, virtual - below))
    weights = np.zeros((fractions.size, n))
    rows = np.arange(fractions.size)
    np.add.at(weights, (rows, below), 1 - step)
    np.add.at(weights, (rows, above), step)
    return weights


def quantile_weights(a, fractions, axis, function):
    """The weight of each element of ``a`` in each quantile of its slice: an array of shape
    ``(number of quantiles,) + a.shape``; refused where a tie meets unequal weights."""
    x = np.asarray(a)
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted(
        ax % x.ndim for ax in (axis if isinstance(axis, (tuple, list)) else (axis,))))
    kept = [ax for ax in range(x.ndim) if ax not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = np.reshape(moved, [x.shape[ax] for ax in kept] + [-1])
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    ordered = np.take_along_axis(flat, order, axis=-1)
    tied = ordered[..., 1:] == ordered[..., :-1]
    fractions = np.asarray(fractions, dtype=np.float64).reshape(-1)
    result = []
    for weights in _position_weights(fractions, n):
        if np.any(tied & (weights[1:] != weights[:-1])):
            raise UnsupportedArgumentsError(
                f"{function} reads a value that ties with another one where the two take different weights (the "
                "quantile falls on or next to the tie): the function has a kink at this point and no derivative",
                hint="differentiate at a point without tied values, or add a tiny jitter to break the tie")
        by_element = np.empty(flat.shape)
        np.put_along_axis(by_element, order, np.broadcast_to(weights, flat.shape), axis=-1)
        back = np.reshape(by_element, moved.shape)
        result.append(np.transpose(back, np.argsort(kept + list(axes))))
    return np.stack(result) if result else np.zeros((0,) + x.shape)


def _fractions(function, q):
    return np.true_divide(q, 100) if function == "np.percentile" else np.asarray(q)


def _quantile_vjp(function):
    def vjp(g, ans, a, q, axis, out, overwrite_input, method, keepdims, weights):
        if dtype_of(a).kind not in "fc":
            return NO_TANGENT
        _refuse_options(function, overwrite_input, method, weights)
        by_quantile = quantile_weights(a, _fractions(function, q), axis, function)
        g = np.reshape(np.asarray(g), (by_quantile.shape[0],) + np.shape(g)[np.ndim(q):])
        total = sum(expand_reduced(g[k], a, axis, keepdims) * by_quantile[k] for k in range(by_quantile.shape[0]))
        return unbroadcast(total, a)
    vjp.__name__ = vjp.__qualname__ = f"{function.split('.')[-1]}_vjp"
    return vjp


def _quantile_jvp(function):
    def jvp(g, ans, a, q, axis, out, overwrite_input, method, keepdims, weights):
        _refuse_options(function, overwrite_input, method, weights)
        by_quantile = quantile_weights(a, _fractions(function, q), axis, function)
        moved = [np.sum(by_quantile[k] * g, axis=None if axis is None else axis, keepdims=keepdims)
                 for k in range(by_quantile.shape[0])]
        return as_tangent_of(np.reshape(np.stack(moved), np.shape(ans)), ans)
    jvp.__name__ = jvp.__qualname__ = f"{function.split('.')[-1]}_jvp"
    return jvp


nondifferentiable(quantile_weights)

for _function, _name in ((np.quantile, "np.quantile"), (np.percentile, "np.percentile")):
    defvjp(_function, _QUANTILE, _quantile_vjp(_name), refused_keyword("q", _name, _QUANTILE), None, None, None,
           None, None, None)
    defjvp(_function, _quantile_jvp(_name), refused_keyword("q", _name, _QUANTILE), None, None, None, None, None,
           None)
