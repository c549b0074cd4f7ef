"""Rules for products (``dot``, ``matmul``, ``outer``, ``inner``, ``tensordot``, ``cross``, ``einsum``)
and for ``numpy.linalg``.

Matrix rules work on stacks of matrices (the last two axes), as NumPy's do. ``mT`` swaps
the last two axes.

Conventions:

* ``norm`` of a zero vector (or zero matrix, Frobenius) has gradient 0: the subgradient
  at the kink that ``x / |x|`` tends to along no direction in particular, chosen so that
  ``np.linalg.norm(x - y)`` at ``x == y`` gives 0, not NaN. ``ord=inf`` and the induced
  matrix norms split the cotangent equally among tied maxima.
* ``einsum`` (subscripts-string form, ``...`` included) is an rrule, since its operands
  arrive as ``*operands``; an index repeated within one operand (``"ii->i"``) is not covered.
* ``cholesky`` and ``eigh`` read one triangle of a symmetric matrix; their cotangents are
  symmetric (the gradient on the space of symmetric matrices). Check them with symmetric
  directions. ``eigh`` assumes distinct eigenvalues: the eigenvector cotangent of a
  degenerate pair (undefined there) is dropped rather than made infinite.
"""
import numpy as np

from s2sad.registry import defrrule, defvjp
from s2sad.tangents import NO_TANGENT, ZERO

from .helpers import expand_reduced, mT, safe_divide, unbroadcast

# ------------------------------------------------------------------ products


def _tensordot_axes(axes, ndim_a, ndim_b):
    if np.ndim(axes) == 0:
        return list(range(ndim_a - axes, ndim_a)), list(range(axes))
    axes_a, axes_b = axes
    axes_a = [axes_a] if np.ndim(axes_a) == 0 else list(axes_a)
    axes_b = [axes_b] if np.ndim(axes_b) == 0 else list(axes_b)
    return [ax % ndim_a for ax in axes_a], [ax % ndim_b for ax in axes_b]


def tensordot_vjp_a(g, ans, a, b, axes):
    axes_a, axes_b = _tensordot_axes(axes, np.ndim(a), np.ndim(b))
    free_a = [ax for ax in range(np.ndim(a)) if ax not in axes_a]
    free_b = [ax for ax in range(np.ndim(b)) if ax not in axes_b]
    g_free_b = list(range(len(free_a), np.ndim(g)))
    partial = np.tensordot(g, b, axes=(g_free_b, free_b))  # axes: free_a, then b's axes_b ascending
    order = free_a + [axes_a[axes_b.index(bx)] for bx in sorted(axes_b)]
    return unbroadcast(np.transpose(partial, np.argsort(order)), a)


def tensordot_vjp_b(g, ans, a, b, axes):
    axes_a, axes_b = _tensordot_axes(axes, np.ndim(a), np.ndim(b))
    free_a = [ax for ax in range(np.ndim(a)) if ax not in axes_a]
    free_b = [ax for ax in range(np.ndim(b)) if ax not in axes_b]
    partial = np.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))  # a's axes_a ascending, free_b
    order = [axes_b[axes_a.index(ax)] for ax in sorted(axes_a)] + free_b
    return unbroadcast(np.transpose(partial, np.argsort(order)), b)


def inner_vjp_a(g, ans, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    g_b_axes = list(range(np.ndim(a) - 1, np.ndim(g)))
    return unbroadcast(np.tensordot(g, b, axes=(g_b_axes, list(range(np.ndim(b) - 1)))), a)


def inner_vjp_b(g, ans, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    g_a_axes = list(range(np.ndim(a) - 1))
    return unbroadcast(np.tensordot(g, a, axes=(g_a_axes, list(range(np.ndim(a) - 1)))), b)


def _check_cross(a, b, axisa, axisb, axisc, axis):
    if (axisa, axisb, axisc, axis) != (-1, -1, -1, None) or np.shape(a)[-1] != 3 or np.shape(b)[-1] != 3:
        raise NotImplementedError("the rule for np.cross covers 3-vectors along the last axis only")


def cross_vjp_a(g, ans, a, b, axisa, axisb, axisc, axis):
    _check_cross(a, b, axisa, axisb, axisc, axis)
    return unbroadcast(np.cross(b, g), a)


def cross_vjp_b(g, ans, a, b, axisa, axisb, axisc, axis):
    _check_cross(a, b, axisa, axisb, axisc, axis)
    return unbroadcast(np.cross(g, a), b)


defvjp(np.dot,       "a, b, out=None", "dot_vjp_a(g, a, b)", "dot_vjp_b(g, a, b)")
defvjp(np.matmul,    "x1, x2, out=None", "matmul_vjp_x1(g, x1, x2)", "matmul_vjp_x2(g, x1, x2)")
defvjp(np.outer,     "a, b, out=None",
       "unbroadcast(np.reshape(np.dot(g, np.ravel(b)), np.shape(a)), a)",
       "unbroadcast(np.reshape(np.dot(np.ravel(a), g), np.shape(b)), b)")
defvjp(np.inner,     "a, b", inner_vjp_a, inner_vjp_b)
defvjp(np.tensordot, "a, b, axes=2", tensordot_vjp_a, tensordot_vjp_b)
defvjp(np.cross,     "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None", cross_vjp_a, cross_vjp_b)

# ------------------------------------------------------------------ numpy.linalg


def solve_vjp_a(g, ans, a, b):
    g_b = _solve_transposed(a, b, g)
    x = ans[..., None] if np.ndim(b) == 1 else ans
    g_b = g_b[..., None] if np.ndim(b) == 1 else g_b
    return unbroadcast(-np.matmul(g_b, mT(x)), a)


def solve_vjp_b(g, ans, a, b):
    return unbroadcast(_solve_transposed(a, b, g), b)


def _solve_transposed(a, b, g):
    """``solve(a.T, g)``, with ``g`` shaped like ``solve(a, b)``'s output."""
    if np.ndim(b) == 1:
        return np.linalg.solve(mT(a), g[..., None])[..., 0]
    return np.linalg.solve(mT(a), g)


def _vector_norm_slope(x, norm, ord, axes):
    """d|x|_ord / dx along ``axes`` (``norm`` broadcast to ``x``'s shape)."""
    if ord is None or ord == 2:
        return safe_divide(x, norm)
    if ord == 1:
        return np.sign(x)
    if ord == 0:
        return np.zeros_like(x)
    if ord in (np.inf, -np.inf):
        winners = np.equal(np.abs(x), norm)
        return np.sign(x) * winners / np.sum(winners, axis=axes, keepdims=True)
    magnitude = np.abs(x)
    return np.sign(x) * safe_divide(magnitude ** (ord - 1), norm ** (ord - 1))


def _matrix_norm_slope(x, norm, ord, axes):
    if ord is None or ord == "fro":
        return safe_divide(x, norm)
    moved = np.moveaxis(x, axes, (-2, -1))
    if ord in ("nuc", 2, -2):
        u, s, vt = np.linalg.svd(moved, full_matrices=False)
        if ord == "nuc":
            slope = np.matmul(u, vt)
        else:
            k = 0 if ord == 2 else -1
            slope = u[..., :, k, None] * vt[..., None, k, :]
    elif ord in (1, -1, np.inf, -np.inf):
        sum_axis = -2 if ord in (1, -1) else -1  # 1: largest column sum, inf: largest row sum
        sums = np.sum(np.abs(moved), axis=sum_axis, keepdims=True)
        best = np.max(sums, axis=-1 if sum_axis == -2 else -2, keepdims=True) if ord in (1, np.inf) else \
            np.min(sums, axis=-1 if sum_axis == -2 else -2, keepdims=True)
        winners = np.equal(sums, best)
        slope = np.sign(moved) * winners / np.sum(winners, axis=(-2, -1), keepdims=True)
    else:
        raise NotImplementedError(f"no rule for np.linalg.norm with ord={ord!r} over two axes")
    return np.moveaxis(slope, (-2, -1), axes)


def norm_vjp(g, ans, x, ord, axis, keepdims):
    ndim = np.ndim(x)
    if axis is None:
        axes = tuple(range(ndim))
        matrix = ord is not None and ndim == 2
    else:
        axes = tuple(ax % ndim for ax in ((axis,) if np.ndim(axis) == 0 else axis))
        matrix = len(axes) == 2
    norm = expand_reduced(ans, x, axes, keepdims)
    if matrix:
        slope = _matrix_norm_slope(x, norm, ord, axes)
    else:
        slope = _vector_norm_slope(x, norm, ord, axes)
    return unbroadcast(expand_reduced(g, x, axes, keepdims) * slope, x)


def cholesky_vjp(g, ans, a, upper):
    """Murray (2016): with A = L L^T, A_bar = sym(L^-T Phi(L^T L_bar) L^-1), Phi = tril, diagonal halved."""
    lower, g_lower = (mT(ans), mT(g)) if upper else (ans, g)
    inner = np.matmul(mT(lower), g_lower)
    phi = np.tril(inner) - 0.5 * np.eye(inner.shape[-1], dtype=inner.dtype) * inner
    left = np.linalg.solve(mT(lower), phi)              # L^-T Phi
    s = mT(np.linalg.solve(mT(lower), mT(left)))        # (L^-T Phi) L^-1
    return unbroadcast(0.5 * (s + mT(s)), a)


def eigh_rrule(a, *rest, **kwargs):
    result = np.linalg.eigh(a, *rest, **kwargs)
    w, v = result

    def eigh_pullback(dy):
        g_w, g_v = dy
        inner = np.zeros(np.shape(a), dtype=w.dtype)
        if g_w is not ZERO and g_w is not None:
            inner = inner + g_w[..., None] * np.eye(w.shape[-1], dtype=w.dtype)
        if g_v is not ZERO and g_v is not None:
            gaps = w[..., None, :] - w[..., :, None]  # gaps[i, j] = w_j - w_i
            with np.errstate(divide="ignore"):
                f = np.where(gaps == 0, 0, 1 / np.where(gaps == 0, 1, gaps))
            inner = inner + f * np.matmul(mT(v), g_v)
        a_bar = np.matmul(v, np.matmul(inner, mT(v)))
        return (NO_TANGENT, unbroadcast(0.5 * (a_bar + mT(a_bar)), a)) + (NO_TANGENT,) * len(rest)

    return result, eigh_pullback


defvjp(np.linalg.inv,      "a", "-np.matmul(mT(ans), np.matmul(g, mT(ans)))")
defvjp(np.linalg.det,      "a", "np.expand_dims(g * ans, (-2, -1)) * mT(np.linalg.inv(a))")
defvjp(np.linalg.slogdet,  "a", "np.expand_dims(g[1], (-2, -1)) * mT(np.linalg.inv(a))")
defvjp(np.linalg.solve,    "a, b", solve_vjp_a, solve_vjp_b)
defvjp(np.linalg.norm,     "x, ord=None, axis=None, keepdims=False", norm_vjp)
defvjp(np.linalg.cholesky, "a, *, upper=False", cholesky_vjp)
defrrule(np.linalg.eigh, eigh_rrule, "a, UPLO='L'")


# ------------------------------------------------------------------ einsum (an rrule: its operands are *args)


def _einsum_subscripts(subscripts, operands):
    """Explicit subscripts for each operand and the output, with ``...`` spelt as letters."""
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    inputs = inputs.split(",")
    used = set(spec) - set(".,->")
    spare = iter(ch for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch not in used)
    ellipsis_dims = max((np.ndim(x) - len(s.replace("...", "")) for s, x in zip(inputs, operands) if "..." in s),
                        default=0)
    letters = "".join(next(spare) for _ in range(ellipsis_dims))
    expanded = []
    for s, x in zip(inputs, operands):
        if "..." in s:
            count = np.ndim(x) - len(s.replace("...", ""))
            s = s.replace("...", letters[ellipsis_dims - count:])
        expanded.append(s)
    if not arrow:
        counts = {ch: "".join(expanded).count(ch) for ch in "".join(expanded)}
        output = letters + "".join(sorted(ch for ch, n in counts.items() if n == 1 and ch not in letters))
    else:
        output = output.replace("...", letters)
    return expanded, output


def einsum_rrule(subscripts, *operands, **kwargs):
    if not isinstance(subscripts, str):
        raise NotImplementedError("the rule for np.einsum takes the subscripts-string form only")
    y = np.einsum(subscripts, *operands, **kwargs)
    inputs, output = _einsum_subscripts(subscripts, operands)

    def einsum_pullback(dy):
        cotangents = []
        for i, (subs, x) in enumerate(zip(inputs, operands)):
            if len(set(subs)) != len(subs):
                raise NotImplementedError(f"no rule for np.einsum with a repeated index in one operand ({subs!r})")
            others = [(s, operand) for j, (s, operand) in enumerate(zip(inputs, operands)) if j != i]
            available = set(output).union(*[set(s) for s, _ in others])
            target = "".join(ch for ch in subs if ch in available)
            spec = ",".join([output] + [s for s, _ in others]) + "->" + target
            partial = np.einsum(spec, dy, *[operand for _, operand in others])
            if target != subs:  # indices summed in this operand alone: the cotangent is constant along them
                kept_shape = tuple(np.shape(partial)[target.index(ch)] if ch in available else 1 for ch in subs)
                partial = np.broadcast_to(np.reshape(partial, kept_shape), np.shape(x))
            cotangents.append(unbroadcast(partial, x))  # sums size-1 axes that broadcast against others
        return (NO_TANGENT, NO_TANGENT) + tuple(cotangents)

    return y, einsum_pullback


defrrule(np.einsum, einsum_rrule)
