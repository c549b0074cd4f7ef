"""Derivatives of a running product ``y = cumprod(x)`` along axis 0, step by step, for an ``x``
holding zeros.

Without zeros ``np.cumprod``'s rules divide by ``x`` (``y_k / x_j`` is the product of the
others), which is exact and smooth there. Where ``x`` holds a zero that division is not
possible, and a formula that drops the terms a zero makes 0 has the right value but not the
right derivative: ``hvp`` and ``hessian`` differentiate the rule's own code, and a term
``x_z * (...)`` with ``x_z = 0`` still has a slope in ``x_z``. These recurrences multiply and
add only, so their derivatives of every order are those of the product itself:

* tangent: ``dy_k = dy_(k-1) x_k + y_(k-1) dx_k`` (the product rule, step by step);
* cotangent: ``x_j`` gets ``conj(y_(j-1)) s_j`` with ``s_j = g_j + conj(x_(j+1)) s_(j+1)``
  (the conjugate slopes: ``cumprod`` is holomorphic).

One Python step per element along the axis, each over the whole of the other axes.
"""
import numpy as np

from .helpers import conj


def running_product_tangent(t, x):
    """The tangent of ``cumprod(x, axis=0)`` for the tangent ``t`` of ``x`` (``x.shape[0] > 0``)."""
    tangent, product = t[0], x[0]
    steps = [tangent]
    for k in range(1, x.shape[0]):
        tangent = tangent * x[k] + product * t[k]
        product = product * x[k]
        steps.append(tangent)
    return np.stack(steps)


def running_product_cotangent(g, x):
    """The cotangent of ``x`` for the cotangent ``g`` of ``cumprod(x, axis=0)`` (``x.shape[0] > 0``)."""
    n = x.shape[0]
    before = np.cumprod(np.concatenate([np.ones_like(x[:1]), x[:-1]]), axis=0)  # the product of the elements before
    carried = g[n - 1]
    steps = [conj(before[n - 1]) * carried]
    for j in range(n - 2, -1, -1):
        carried = g[j] + conj(x[j + 1]) * carried
        steps.append(conj(before[j]) * carried)
    return np.stack(steps[::-1])
