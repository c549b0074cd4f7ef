"""Rules for products (``dot``, ``matmul``, ``outer``, ``inner``, ``vdot``, ``tensordot``, ``cross``,
``einsum``) and for ``numpy.linalg``.

Matrix rules work on stacks of matrices (the last two axes), as NumPy's do. ``mT`` swaps
the last two axes. The ``numpy.linalg`` rules are for real matrices (they transpose, they
do not conjugate); ``eig`` and ``eigvals`` of a real matrix may return complex values, and
take complex cotangents for them. Functions returning several arrays (``svd``, ``qr``, ``eig``, ``eigh``,
``slogdet``, ``lstsq``) take the cotangent as a tuple with ZERO for unused parts, or as a
structural Tangent of the result's fields (``helpers.output_parts``).

Conventions:

* complex cotangents are adjoints for the real inner product ``Re(sum(conj(a) * b))``
  (``vdot(a, b)`` gives ``conj(g) * b`` to ``a``); a real argument gets the real part.
* ``norm`` of a zero vector (or zero matrix, Frobenius) has gradient 0: the subgradient
  at the kink that ``x / |x|`` tends to along no direction in particular, chosen so that
  ``np.linalg.norm(x - y)`` at ``x == y`` gives 0, not NaN. ``ord=inf`` and the induced
  matrix norms split the cotangent equally among tied maxima; ``ord=0`` (a count) has
  gradient 0. A vector norm with ``ord < 1`` has no derivative at an element that is 0.
* ``det`` is exact at singular matrices (the cofactor matrix, through the SVD there);
  ``slogdet`` passes on the cotangent of ``logabsdet`` only (``sign`` is piecewise constant).
* ``einsum`` (subscripts-string form, ``...`` included) is an rrule, since its operands
  arrive as ``*operands``; an index repeated within one operand (``"ii->i"``) is not covered.
* ``cholesky``, ``eigh``, ``eigvalsh`` and ``hermitian=True`` forms read one triangle of
  a symmetric matrix; their cotangents are symmetric (the gradient on the space of
  symmetric matrices). Check them with symmetric directions.
* Spectral rules assume distinct values: ``eigh`` and ``eig`` distinct eigenvalues,
  ``svd`` distinct nonzero singular values. The cotangent of a degenerate pair's vectors
  (undefined there) is dropped rather than made infinite. Singular vectors and
  eigenvectors are only defined up to sign (phase, for complex ones), so only losses
  that do not depend on that choice have a gradient: ``U @ diag(s) @ Vh``, ``U @ U.T``,
  ``abs(V) ** 2``. ``eig``'s eigenvectors have unit norm, as NumPy returns them.
* ``svd(full_matrices=True)`` and ``qr(mode='complete')`` return extra orthonormal
  columns spanning what the first ones leave out; any basis of that space would do, so
  only losses that do not depend on the basis chosen (``U2 @ U2.T``) are differentiated
  correctly through them.
* ``pinv`` and ``lstsq`` assume the rank stays the same near the point (true for full
  rank). ``lstsq``'s residuals are differentiated at the optimum (the envelope theorem);
  its ``rank`` has no tangent. ``qr`` needs a matrix whose leading square block is
  invertible; ``mode='raw'`` has no rule. ``matrix_rank`` is nondifferentiable.
"""
import numpy as np

from s2sad.registry import defrrule, defvjp, defvjp_all
from s2sad.tangents import NO_TANGENT, ZERO

from .helpers import expand_reduced, mT, output_parts, safe_divide, unbroadcast

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


# Products are lazy through s2sad.rrule: a constant weight matrix's cotangent is a Thunk nobody runs.
defvjp(np.dot,       "a, b, out=None", "dot_vjp_a(g, a, b)", "dot_vjp_b(g, a, b)", lazy=True)
defvjp(np.matmul,    "x1, x2, out=None", "matmul_vjp_x1(g, x1, x2)", "matmul_vjp_x2(g, x1, x2)", lazy=True)
defvjp(np.outer,     "a, b, out=None",
       "unbroadcast(np.reshape(np.dot(g, np.ravel(b)), np.shape(a)), a)",
       "unbroadcast(np.reshape(np.dot(np.ravel(a), g), np.shape(b)), b)")
defvjp(np.inner,     "a, b", inner_vjp_a, inner_vjp_b)
defvjp(np.vdot,      "a, b", "unbroadcast(np.reshape(np.conjugate(g) * np.ravel(b), np.shape(a)), a)",
       "unbroadcast(np.reshape(g * np.ravel(a), np.shape(b)), b)")
defvjp(np.tensordot, "a, b, axes=2", tensordot_vjp_a, tensordot_vjp_b, lazy=True)
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
        g_w, g_v = output_parts(dy, 2, ("eigenvalues", "eigenvectors"))
        inner = np.zeros(np.shape(a), dtype=w.dtype)
        if g_w is not ZERO:
            inner = inner + g_w[..., None] * np.eye(w.shape[-1], dtype=w.dtype)
        if g_v is not ZERO:
            gaps = w[..., None, :] - w[..., :, None]  # gaps[i, j] = w_j - w_i
            with np.errstate(divide="ignore"):
                f = np.where(gaps == 0, 0, 1 / np.where(gaps == 0, 1, gaps))
            inner = inner + f * np.matmul(mT(v), g_v)
        a_bar = np.matmul(v, np.matmul(inner, mT(v)))
        return (NO_TANGENT, unbroadcast(0.5 * (a_bar + mT(a_bar)), a)) + (NO_TANGENT,) * len(rest)

    return result, eigh_pullback


def _real_if_real(value, like):
    """The cotangent of a real ``like`` is the real part (the adjoint of the embedding R -> C)."""
    if np.iscomplexobj(value) and not np.iscomplexobj(like):
        value = np.real(value)
    return unbroadcast(value, like)


def _products_of_others(s):
    """``prod(s[..., j != i])`` for each ``i`` along the last axis, without dividing."""
    ones = np.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    left = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return left * right


def _cofactors(a, det):
    """The cofactor matrix ``det(a) * inv(a).T``, also of a singular matrix (through the SVD)."""
    if np.all(det != 0):
        try:
            return np.expand_dims(det, (-2, -1)) * mT(np.linalg.inv(a))
        except np.linalg.LinAlgError:
            pass
    u, s, vh = np.linalg.svd(a)
    signs = np.linalg.det(u) * np.linalg.det(vh)  # each +-1
    return np.expand_dims(signs, (-2, -1)) * np.matmul(u * _products_of_others(s)[..., None, :], vh)


def det_vjp(g, ans, a):
    return unbroadcast(np.expand_dims(g, (-2, -1)) * _cofactors(a, ans), a)


def slogdet_vjp(g, ans, a):
    _, g_logdet = output_parts(g, 2, ("sign", "logabsdet"))
    if g_logdet is ZERO:
        return ZERO
    return unbroadcast(np.expand_dims(g_logdet, (-2, -1)) * mT(np.linalg.inv(a)), a)


def _power_pullback(g, a, n):
    """Backward through square-and-multiply: O(log n) products, like the forward pass."""
    squares = [a]  # a, a^2, a^4, ...
    while 1 << len(squares) <= n:
        squares.append(np.matmul(squares[-1], squares[-1]))
    used = [i for i in range(len(squares)) if n >> i & 1]
    partials = [squares[used[0]]]  # the running product after each used square
    for i in used[1:]:
        partials.append(np.matmul(partials[-1], squares[i]))
    g_squares = [0] * len(squares)
    for j in range(len(used) - 1, 0, -1):
        g_squares[used[j]] = g_squares[used[j]] + np.matmul(mT(partials[j - 1]), g)
        g = np.matmul(g, mT(squares[used[j]]))
    g_squares[used[0]] = g_squares[used[0]] + g
    for i in range(len(squares) - 1, 0, -1):
        root = squares[i - 1]
        g_squares[i - 1] = g_squares[i - 1] + np.matmul(g_squares[i], mT(root)) + np.matmul(mT(root), g_squares[i])
    return g_squares[0]


def matrix_power_vjp(g, ans, a, n):
    if n == 0:
        return unbroadcast(np.zeros(np.shape(a)), a)
    if n > 0:
        return unbroadcast(_power_pullback(g, a, n), a)
    inverse = np.linalg.inv(a)
    g_inverse = _power_pullback(g, inverse, -n)
    return unbroadcast(-np.matmul(mT(inverse), np.matmul(g_inverse, mT(inverse))), a)


# ------------------------------------------------------------------ decompositions


def _reciprocal_gaps(values):
    """``F[i, j] = 1 / (values[j] - values[i])``, 0 where they are equal (the diagonal, degenerate pairs)."""
    gaps = values[..., None, :] - values[..., :, None]
    degenerate = gaps == 0
    return np.where(degenerate, 0, 1 / np.where(degenerate, 1, gaps))


def _svd_backward(u, s, v, g_u, g_s, g_v):
    """Cotangent of A = U diag(s) V^T (thin, ``V`` not ``Vh``), assuming distinct nonzero singular values."""
    inner = np.zeros(s.shape + s.shape[-1:], dtype=s.dtype)
    if g_s is not ZERO:
        inner = inner + g_s[..., None, :] * np.eye(s.shape[-1], dtype=s.dtype)
    a_bar = 0
    if g_u is not ZERO or g_v is not ZERO:
        f = _reciprocal_gaps(s ** 2)
        s_inverse = np.where(s == 0, 0, 1 / np.where(s == 0, 1, s))
        if g_u is not ZERO:
            ut_gu = np.matmul(mT(u), g_u)
            inner = inner + f * (ut_gu - mT(ut_gu)) * s[..., None, :]
            # the part of g_u outside the column space of U (A taller than it is wide)
            a_bar = a_bar + np.matmul((g_u - np.matmul(u, ut_gu)) * s_inverse[..., None, :], mT(v))
        if g_v is not ZERO:
            vt_gv = np.matmul(mT(v), g_v)
            inner = inner + s[..., :, None] * (f * (vt_gv - mT(vt_gv)))
            a_bar = a_bar + np.matmul(u * s_inverse[..., None, :], mT(g_v - np.matmul(v, vt_gv)))
    return a_bar + np.matmul(u, np.matmul(inner, mT(v)))


def _complement_cotangent(g, q, rest, g_rest):
    """Fold the cotangent of the extra columns of a full orthogonal factor into that of the first ones.

    ``[q | rest]`` is orthogonal; ``rest`` is any orthonormal basis of what ``q`` leaves out,
    so only losses that do not care which basis (``rest @ rest.T``, say) have a gradient.
    For those, ``d rest = -q d q^T rest``, which is what this folds in.
    """
    return g - np.matmul(rest, np.matmul(mT(g_rest), q))


def _symmetric_part(a):
    return 0.5 * (a + mT(a))


def svd_vjp(g, ans, a, full_matrices, compute_uv, hermitian):
    if compute_uv:
        u, s, vh = ans
        g_u, g_s, g_vh = output_parts(g, 3, ("U", "S", "Vh"))
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        g_u, g_s, g_vh = ZERO, g, ZERO
    k = s.shape[-1]
    g_v = ZERO if g_vh is ZERO else mT(g_vh)
    if compute_uv and full_matrices:
        u, u_rest, vh, vh_rest = u[..., :k], u[..., k:], vh[..., :k, :], vh[..., k:, :]
        if g_u is not ZERO:
            g_u = _complement_cotangent(g_u[..., :k], u, u_rest, g_u[..., k:])
        if g_v is not ZERO:
            g_v = _complement_cotangent(g_v[..., :k], mT(vh), mT(vh_rest), g_v[..., k:])
    a_bar = _svd_backward(u, s, mT(vh), g_u, g_s, g_v)
    return unbroadcast(_symmetric_part(a_bar) if hermitian else a_bar, a)


def svdvals_vjp(g, ans, x):
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return unbroadcast(np.matmul(u * g[..., None, :], vh), x)


def pinv_vjp(g, ans, a, rcond, hermitian, rtol):
    """Golub & Pereyra's derivative of the pseudo-inverse, valid where the rank does not change."""
    x, t = ans, mT(g)
    a_bar = -np.matmul(mT(x), np.matmul(g, mT(x)))
    w = np.matmul(t, np.matmul(x, mT(x)))
    a_bar = a_bar + w - np.matmul(a, np.matmul(x, w))           # (I - A X) G^T X X^T
    q = np.matmul(mT(x), np.matmul(x, t))
    a_bar = a_bar + q - np.matmul(np.matmul(q, x), a)           # X^T X G^T (I - X A)
    return unbroadcast(_symmetric_part(a_bar) if hermitian else a_bar, a)


def eigvalsh_vjp(g, ans, a, UPLO):
    _, v = np.linalg.eigh(a, UPLO)
    return unbroadcast(np.matmul(v * g[..., None, :], mT(v)), a)


def _eig_backward(values, vectors, g_values, g_vectors):
    """``V^-H (diag(g_values) + K) V^H``, K from the eigenvector cotangent (unit-norm vectors, any phase)."""
    vh = np.conj(mT(vectors))
    inner = np.zeros(vectors.shape, dtype=vectors.dtype)
    if g_values is not ZERO:
        inner = inner + g_values[..., None, :] * np.eye(values.shape[-1])
    if g_vectors is not ZERO:
        vh_gv = np.matmul(vh, g_vectors)
        # unit norm: moving along v_i itself changes nothing a normalised vector can show
        projected = vh_gv - np.matmul(vh, vectors) * np.real(np.diagonal(vh_gv, axis1=-2, axis2=-1))[..., None, :]
        inner = inner + np.conj(_reciprocal_gaps(values)) * projected
    return np.linalg.solve(vh, np.matmul(inner, vh))


def _matching_order(values, reference):
    """Indices putting ``values`` in the order of ``reference`` (eig and eigvals may order differently)."""
    return np.argmin(np.abs(reference[..., :, None] - values[..., None, :]), axis=-1)


def eig_vjp(g, ans, a):
    values, vectors = ans
    g_values, g_vectors = output_parts(g, 2, ("eigenvalues", "eigenvectors"))
    return _real_if_real(_eig_backward(values, vectors, g_values, g_vectors), a)


def eigvals_vjp(g, ans, a):
    values, vectors = np.linalg.eig(a)
    if not np.array_equal(values, ans):
        vectors = np.take_along_axis(vectors, _matching_order(values, ans)[..., None, :], axis=-1)
    return _real_if_real(_eig_backward(ans, vectors, g, ZERO), a)


def _qr_square_backward(q, r, g_q, g_r):
    """A = Q R with R square and invertible (Walter & Lehmann): (G_Q + Q copyltu(M)) R^-T, M = R G_R^T - G_Q^T Q."""
    m = np.zeros(r.shape, dtype=r.dtype)
    if g_r is not ZERO:
        m = m + np.matmul(r, mT(g_r))
    if g_q is not ZERO:
        m = m - np.matmul(mT(g_q), q)
    lower = np.tril(m)
    b = np.matmul(q, lower + mT(np.tril(m, -1)))
    if g_q is not ZERO:
        b = b + g_q
    return mT(np.linalg.solve(r, mT(b)))


def qr_vjp(g, ans, a, mode):
    if mode == "r":
        r, (q, _) = ans, np.linalg.qr(a)
        g_q, g_r = ZERO, g
    elif mode in ("reduced", "complete"):
        q, r = ans
        g_q, g_r = output_parts(g, 2, ("Q", "R"))
    else:
        raise NotImplementedError(f"no rule for np.linalg.qr with mode={mode!r} (Householder reflectors)")
    rows, cols = np.shape(a)[-2:]
    if q.shape[-1] > cols:  # mode='complete' of a tall matrix: R's extra rows are zeros
        q, q_rest, r = q[..., :cols], q[..., cols:], r[..., :cols, :]
        if g_q is not ZERO:
            g_q = _complement_cotangent(g_q[..., :cols], q, q_rest, g_q[..., cols:])
        if g_r is not ZERO:
            g_r = g_r[..., :cols, :]
    if rows >= cols:
        return unbroadcast(_qr_square_backward(q, r, g_q, g_r), a)
    # a wide matrix: A = Q [X | Y], X square; Y = Q^T A[:, rows:] passes its cotangent on
    x = r[..., :, :rows]
    if g_r is ZERO:
        left = _qr_square_backward(q, x, g_q, ZERO)
        return unbroadcast(np.concatenate([left, np.zeros(left.shape[:-1] + (cols - rows,), left.dtype)], axis=-1), a)
    g_y = g_r[..., :, rows:]
    g_q = np.matmul(np.asarray(a)[..., :, rows:], mT(g_y)) + g_q
    left = _qr_square_backward(q, x, g_q, g_r[..., :, :rows])
    return unbroadcast(np.concatenate([left, np.matmul(q, g_y)], axis=-1), a)


def _truncated_pinv(a, rcond):
    """The pseudo-inverse with lstsq's cutoff: singular values <= rcond * largest count as zero."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    if rcond is None or rcond < 0:
        rcond = np.finfo(s.dtype).eps * (max(np.shape(a)) if rcond is None else 1)
    kept = s > rcond * s[..., :1]
    s_inverse = np.where(kept, 1 / np.where(kept, s, 1), 0)
    return np.matmul(mT(vh) * s_inverse[..., None, :], mT(u)), u, vh


def lstsq_vjp(g, ans, a, b, rcond):
    """x = pinv(a) b through pinv's rule; the residuals by the envelope theorem (x is optimal)."""
    x, residuals, _, s = ans
    g_x, g_residuals, _, g_s = output_parts(g, 4)
    vector = np.ndim(b) == 1
    b2 = np.reshape(b, (-1, 1)) if vector else np.asarray(b)
    x2 = np.reshape(x, (-1, 1)) if vector else x
    pinv, u, vh = _truncated_pinv(a, rcond)
    a_bar = np.zeros(np.shape(a))
    b_bar = np.zeros(b2.shape)
    if g_x is not ZERO:
        g_x2 = np.reshape(g_x, (-1, 1)) if vector else g_x
        a_bar = a_bar + pinv_vjp(np.matmul(g_x2, mT(b2)), pinv, a, None, False, None)
        b_bar = b_bar + np.matmul(mT(pinv), g_x2)
    if g_residuals is not ZERO and np.size(residuals):
        misfit = (b2 - np.matmul(a, x2)) * g_residuals
        a_bar = a_bar - 2 * np.matmul(misfit, mT(x2))
        b_bar = b_bar + 2 * misfit
    if g_s is not ZERO:
        a_bar = a_bar + np.matmul(u * g_s, vh)  # the singular values of a, as svd's rule
    return unbroadcast(a_bar, a), unbroadcast(np.reshape(b_bar, np.shape(b)), b), NO_TANGENT


def cond_vjp(g, ans, x, p):
    g = np.expand_dims(g, (-2, -1))
    if p in (None, 2, -2):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        top, bottom = s[..., :1, None], s[..., -1:, None]
        largest = u[..., :, :1] * vh[..., :1, :]
        smallest = u[..., :, -1:] * vh[..., -1:, :]
        if p == -2:
            slope = smallest / top - bottom / top ** 2 * largest
        else:
            slope = largest / bottom - top / bottom ** 2 * smallest
        return unbroadcast(g * slope, x)
    inverse = np.linalg.inv(x)
    axes = (np.ndim(x) - 2, np.ndim(x) - 1)
    norm_x = np.linalg.norm(x, p, axis=(-2, -1), keepdims=True)
    norm_inverse = np.linalg.norm(inverse, p, axis=(-2, -1), keepdims=True)
    slope_x = _matrix_norm_slope(x, norm_x, p, axes)
    g_inverse = g * norm_x * _matrix_norm_slope(inverse, norm_inverse, p, axes)
    return unbroadcast(g * norm_inverse * slope_x - np.matmul(mT(inverse), np.matmul(g_inverse, mT(inverse))), x)


def vector_norm_vjp(g, ans, x, axis, keepdims, ord):
    axes = tuple(range(np.ndim(x))) if axis is None else \
        tuple(ax % np.ndim(x) for ax in ((axis,) if np.ndim(axis) == 0 else axis))
    norm = expand_reduced(ans, x, axes, keepdims)
    return unbroadcast(expand_reduced(g, x, axes, keepdims) * _vector_norm_slope(x, norm, ord, axes), x)


def matrix_norm_vjp(g, ans, x, keepdims, ord):
    axes = (np.ndim(x) - 2, np.ndim(x) - 1)
    norm = expand_reduced(ans, x, axes, keepdims)
    return unbroadcast(expand_reduced(g, x, axes, keepdims) * _matrix_norm_slope(x, norm, ord, axes), x)


defvjp(np.linalg.inv,      "a", "-np.matmul(mT(ans), np.matmul(g, mT(ans)))")
defvjp(np.linalg.det,      "a", det_vjp)
defvjp(np.linalg.slogdet,  "a", slogdet_vjp)
defvjp(np.linalg.matrix_power, "a, n", matrix_power_vjp)
defvjp(np.linalg.solve,    "a, b", solve_vjp_a, solve_vjp_b)
defvjp_all(np.linalg.lstsq, "a, b, rcond=None", lstsq_vjp)
defvjp(np.linalg.pinv,     "a, rcond=None, hermitian=False, *, rtol=None", pinv_vjp)
defvjp(np.linalg.norm,     "x, ord=None, axis=None, keepdims=False", norm_vjp)
defvjp(np.linalg.cond,     "x, p=None", cond_vjp)
defvjp(np.linalg.cholesky, "a, *, upper=False", cholesky_vjp)
defvjp(np.linalg.qr,       "a, mode='reduced'", qr_vjp)
defvjp(np.linalg.svd,      "a, full_matrices=True, compute_uv=True, hermitian=False", svd_vjp)
defvjp(np.linalg.eig,      "a", eig_vjp)
defvjp(np.linalg.eigvals,  "a", eigvals_vjp)
defvjp(np.linalg.eigvalsh, "a, UPLO='L'", eigvalsh_vjp)
defrrule(np.linalg.eigh, eigh_rrule, "a, UPLO='L'")

if hasattr(np.linalg, "svdvals"):  # NumPy >= 2: the array-API names
    defvjp(np.linalg.svdvals,     "x", svdvals_vjp)
    defvjp(np.linalg.vector_norm, "x, *, axis=None, keepdims=False, ord=2", vector_norm_vjp)
    defvjp(np.linalg.matrix_norm, "x, *, keepdims=False, ord='fro'", matrix_norm_vjp)


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
