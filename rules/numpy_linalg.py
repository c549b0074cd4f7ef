"""Rules for products (``dot``, ``matmul``, ``outer``, ``inner``, ``vdot``, ``tensordot``, ``cross``,
``einsum``) and for ``numpy.linalg``.

Matrix rules work on stacks of matrices (the last two axes), as NumPy's do. ``mT`` swaps
the last two axes, ``mH`` also conjugates: the rules are written for complex matrices
(adjoints with conjugate transposes; for real ones ``mH`` is ``mT`` and costs no copy).
``eig`` and ``eigvals`` of a real matrix may return complex values, and take complex
cotangents for them (``tests/rules/test_complex_audit.py`` checks every rule at complex input). Functions returning several arrays (``svd``, ``qr``, ``eig``, ``eigh``,
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
  ``slogdet`` passes on the cotangent of ``logabsdet``, and that of ``sign`` for a complex
  matrix (``sign = det / |det|`` moves with it; a real sign is piecewise constant).
* ``einsum`` (subscripts-string form, ``...`` included) is an rrule, since its operands
  arrive as ``*operands``. An index repeated within one operand (``"ii->i"``, ``"ij,jj->i"``)
  reads a diagonal: that operand's cotangent is 0 off it.
* ``cholesky``, ``eigh``, ``eigvalsh`` and ``hermitian=True`` forms read one triangle of
  their input (the lower one by default; ``UPLO='U'``, ``upper=True`` the upper one) and
  ignore the imaginary part of its diagonal: their cotangents are those of the function
  NumPy computes, 0 on the triangle not read, so any direction checks them.
* Spectral rules divide by the gaps between values: ``eigh`` and ``eig`` eigenvalues,
  ``svd`` singular values. Where two are equal to rounding (or, for the vectors, a singular
  value is 0), what depends on the choice of vectors or on how the values split is refused
  (reverse) or NaN, which s2sad refuses (forward): ``repeated_spectra.py``. Singular vectors and
  eigenvectors are only defined up to sign (phase, for complex ones), so only losses
  that do not depend on that choice have a gradient: ``U @ diag(s) @ Vh``, ``U @ U^H``,
  ``abs(V) ** 2``. For complex ones the phase term of the SVD's pullback splits
  ``Im diag(U^H g_U)`` and ``-Im diag(V^H g_V)`` (equal for such losses) evenly. ``eig``'s eigenvectors have unit norm, as NumPy returns them.
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

from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry.forward import LINEAR, defjvp
from s2sad.registry import defrrule, defvjp, defvjp_all, nondifferentiable
from s2sad.runtime.tangents import NO_TANGENT, ZERO

from .helpers import conj, dtype_of, expand_reduced, mH, mT, output_parts, safe_divide, unbroadcast
from .numpy_shapes import as_tangent_of, varargs_tangents
from .repeated_spectra import (nan_columns_of_repeated, nan_where_values_split, refuse_reached_vectors,
                               refuse_split_values, refuse_zero_singular_values, zero_values)

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
    partial = np.tensordot(g, conj(b), axes=(g_free_b, free_b))  # axes: free_a, then b's axes_b ascending
    order = free_a + [axes_a[axes_b.index(bx)] for bx in sorted(axes_b)]
    return unbroadcast(np.transpose(partial, np.argsort(order)), a)


def tensordot_vjp_b(g, ans, a, b, axes):
    axes_a, axes_b = _tensordot_axes(axes, np.ndim(a), np.ndim(b))
    free_a = [ax for ax in range(np.ndim(a)) if ax not in axes_a]
    free_b = [ax for ax in range(np.ndim(b)) if ax not in axes_b]
    partial = np.tensordot(conj(a), g, axes=(free_a, list(range(len(free_a)))))  # a's axes_a ascending, free_b
    order = [axes_b[axes_a.index(ax)] for ax in sorted(axes_a)] + free_b
    return unbroadcast(np.transpose(partial, np.argsort(order)), b)


def inner_vjp_a(g, ans, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * conj(b), a)
    g_b_axes = list(range(np.ndim(a) - 1, np.ndim(g)))
    return unbroadcast(np.tensordot(g, conj(b), axes=(g_b_axes, list(range(np.ndim(b) - 1)))), a)


def inner_vjp_b(g, ans, a, b):
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * conj(a), b)
    g_a_axes = list(range(np.ndim(a) - 1))
    return unbroadcast(np.tensordot(g, conj(a), axes=(g_a_axes, list(range(np.ndim(a) - 1)))), b)


def _three(vectors):
    """Vectors along the last axis as 3-vectors: a 2-vector gets a zero z-component, as np.cross reads it."""
    vectors = np.asarray(vectors)
    if vectors.shape[-1] == 3:
        return vectors
    return np.concatenate([vectors, np.zeros(vectors.shape[:-1] + (1,), dtype=vectors.dtype)], axis=-1)


def _cross_cotangent(g, ans, of, other, axis_of, axis_other, axisc, axis, first):
    """The cotangent of one operand of ``np.cross``: with 3-vectors along the last axes, the
    adjoint of ``t -> t x b`` is ``g -> conj(b) x g`` (of ``t -> a x t``: ``g x conj(a)``); 2-vectors are
    3-vectors with z = 0 (the output of two 2-vectors is that z-component alone), other axes moved last."""
    if axis is not None:
        axis_of = axis_other = axisc = axis
    moved = np.moveaxis(np.asarray(of), axis_of, -1)
    other3 = conj(_three(np.moveaxis(np.asarray(other), axis_other, -1)))
    if np.ndim(ans) == len(np.broadcast_shapes(moved.shape[:-1], other3.shape[:-1])):  # two 2-vectors: z alone
        g3 = np.stack([np.zeros_like(g), np.zeros_like(g), g], axis=-1)
    else:
        g3 = np.moveaxis(np.asarray(g), axisc, -1)
    full = np.cross(other3, g3) if first else np.cross(g3, other3)
    return np.moveaxis(unbroadcast(full[..., :moved.shape[-1]], moved), -1, axis_of)


def cross_vjp_a(g, ans, a, b, axisa, axisb, axisc, axis):
    if np.shape(a)[-1] == 3 and np.shape(b)[-1] == 3 and (axisa, axisb, axisc, axis) == (-1, -1, -1, None):
        return unbroadcast(np.cross(conj(b), g), a)  # the common case, without the moves
    return _cross_cotangent(g, ans, a, b, axisa, axisb, axisc, axis, True)


def cross_vjp_b(g, ans, a, b, axisa, axisb, axisc, axis):
    if np.shape(a)[-1] == 3 and np.shape(b)[-1] == 3 and (axisa, axisb, axisc, axis) == (-1, -1, -1, None):
        return unbroadcast(np.cross(g, conj(a)), b)
    return _cross_cotangent(g, ans, b, a, axisb, axisa, axisc, axis, False)


def _full_cotangent(g, n, m, mode):
    """``g`` placed where ``np.convolve(a, v, mode)`` sits in the full convolution (length n + m - 1)."""
    full = np.zeros(n + m - 1, dtype=np.result_type(g))
    start = {"full": 0, "same": (min(n, m) - 1) // 2, "valid": min(n, m) - 1}[mode]
    full[start:start + np.size(g)] = g
    return full


def convolve_vjp_a(g, ans, a, v, mode):
    """y[k] = sum_i a[i] v[k - i]: a's cotangent is the full cotangent correlated with v
    (``np.correlate`` conjugates its second argument)."""
    full = _full_cotangent(g, np.size(a), np.size(v), mode)
    return unbroadcast(np.reshape(np.correlate(full, np.ravel(v), "valid"), np.shape(a)), a)  # (a number is 1-D here)


def convolve_vjp_v(g, ans, a, v, mode):
    full = _full_cotangent(g, np.size(a), np.size(v), mode)
    return unbroadcast(np.reshape(np.correlate(full, np.ravel(a), "valid"), np.shape(v)), v)


def correlate_vjp_a(g, ans, a, v, mode):
    """``np.correlate(a, v, mode)`` is ``np.convolve(a, w, mode)`` with ``w = conj(v)`` reversed."""
    return convolve_vjp_a(g, ans, a, np.conj(np.asarray(v)[::-1]), mode)


def correlate_vjp_v(g, ans, a, v, mode):
    # w = conj(v reversed): v's cotangent is w's conjugated and reversed back
    return np.conj(convolve_vjp_v(g, ans, a, np.conj(np.asarray(v)[::-1]), mode))[::-1]


def _as_matrices(arrays):
    """``multi_dot``'s arrays as matrices: a 1-d first array is a row, a 1-d last array a column."""
    matrices = [np.asarray(a) for a in arrays]
    if matrices[0].ndim == 1:
        matrices[0] = matrices[0][None, :]
    if matrices[-1].ndim == 1:
        matrices[-1] = matrices[-1][:, None]
    return matrices


def multi_dot_vjp(g, ans, arrays, out):
    """``A1 @ ... @ An``: ``Ai``'s cotangent is ``(A1 ... Ai-1)^H g (Ai+1 ... An)^H``, with the 1-d
    ends read as a row and a column (and ``g`` shaped to match)."""
    matrices = _as_matrices(arrays)
    g = np.reshape(g, (matrices[0].shape[0], matrices[-1].shape[1]))
    lefts = [None]  # lefts[i]: the product of the matrices before i (None: nothing)
    for m in matrices[:-1]:
        lefts.append(m if lefts[-1] is None else lefts[-1] @ m)
    cotangents, right = [], None  # right: the product of the matrices after i
    for i in range(len(matrices) - 1, -1, -1):
        c = g if right is None else g @ mH(right)
        c = c if lefts[i] is None else mH(lefts[i]) @ c
        cotangents.append(unbroadcast(np.reshape(c, np.shape(arrays[i])), arrays[i]))
        right = matrices[i] if right is None else matrices[i] @ right
    cotangents.reverse()
    return cotangents if isinstance(arrays, list) else tuple(cotangents)


def multi_dot_jvp(g, ans, arrays, out):
    """Multilinear, as ``einsum_jvp``: the sum over the arrays with a tangent of the product with that
    array replaced by it."""
    total = ZERO
    for i, t in enumerate(g if isinstance(g, (list, tuple)) else ()):  # (ZERO: no array moves)
        if _is_missing(t):
            continue
        term = np.linalg.multi_dot([*arrays[:i], t, *arrays[i + 1:]])
        total = term if total is ZERO else total + term
    return as_tangent_of(total, ans)


# Products are lazy through s2sad.rrule: a constant weight matrix's cotangent is a Thunk nobody runs.
defvjp(np.dot,       "a, b, out=None", "dot_vjp_a(g, a, b)", "dot_vjp_b(g, a, b)", lazy=True)
defvjp(np.matmul,    "x1, x2, out=None", "matmul_vjp_x1(g, x1, x2)", "matmul_vjp_x2(g, x1, x2)", lazy=True)
defvjp(np.linalg.multi_dot, "arrays, *, out=None", multi_dot_vjp, None)
defvjp(np.outer,     "a, b, out=None",
       "unbroadcast(np.reshape(np.dot(g, conj(np.ravel(b))), np.shape(a)), a)",
       "unbroadcast(np.reshape(np.dot(conj(np.ravel(a)), g), np.shape(b)), b)")
defvjp(np.inner,     "a, b", inner_vjp_a, inner_vjp_b)
defvjp(np.convolve,  "a, v, mode='full'", convolve_vjp_a, convolve_vjp_v, None)
defvjp(np.correlate, "a, v, mode='valid'", correlate_vjp_a, correlate_vjp_v, None)
defvjp(np.vdot,      "a, b", "unbroadcast(np.reshape(np.conjugate(g) * np.ravel(b), np.shape(a)), a)",
       "unbroadcast(np.reshape(g * np.ravel(a), np.shape(b)), b)")
defvjp(np.tensordot, "a, b, axes=2", tensordot_vjp_a, tensordot_vjp_b, lazy=True)
defvjp(np.cross,     "a, b, axisa=-1, axisb=-1, axisc=-1, axis=None", cross_vjp_a, cross_vjp_b)

# ------------------------------------------------------------------ numpy.linalg


def solve_vjp_a(g, ans, a, b):
    g_b = _solve_transposed(a, b, g)
    x = ans[..., None] if np.ndim(b) == 1 else ans
    g_b = g_b[..., None] if np.ndim(b) == 1 else g_b
    return unbroadcast(-np.matmul(g_b, mH(x)), a)


def solve_vjp_b(g, ans, a, b):
    return unbroadcast(_solve_transposed(a, b, g), b)


def _solve_transposed(a, b, g):
    """``solve(a^H, g)``, with ``g`` shaped like ``solve(a, b)``'s output."""
    if np.ndim(b) == 1:
        return np.linalg.solve(mH(a), g[..., None])[..., 0]
    return np.linalg.solve(mH(a), g)


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
        # the norm's slope is that of a sum of the singular values (nuc) or of the largest (2) or smallest (-2)
        weights = np.ones_like(s) if ord == "nuc" else np.zeros_like(s)
        weights[..., {"nuc": slice(None), 2: 0, -2: -1}[ord]] = 1.0
        _refuse_repeated_singular_values(s, weights, ZERO, ZERO, f"np.linalg.norm(..., ord={ord!r})")
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
        raise UnsupportedArgumentsError(f"no rule for np.linalg.norm with ord={ord!r} over two axes")
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


def _one_triangle_cotangent(g_hermitian, lower):
    """The cotangent of ``a`` for a function of the Hermitian matrix LAPACK reads from one
    triangle of ``a``: H = tril(a) + tril(a, -1)^H (``lower``; ``triu`` otherwise), the
    imaginary part of the diagonal ignored. ``g_hermitian`` is a cotangent of H, right on
    Hermitian directions. Entry (i, j) of the triangle moves H's (i, j) and, conjugated,
    (j, i); the other triangle is never read, so its cotangent is 0.
    """
    both = g_hermitian + mH(g_hermitian)
    off_diagonal = np.tril(both, -1) if lower else np.triu(both, 1)
    diagonal = np.real(np.diagonal(g_hermitian, axis1=-2, axis2=-1))
    return off_diagonal + diagonal[..., None] * np.eye(diagonal.shape[-1], dtype=diagonal.dtype)


def _hermitian_from_lower(a):
    """The matrix LAPACK's Hermitian routines read from the lower triangle of ``a``."""
    diagonal = np.real(np.diagonal(a, axis1=-2, axis2=-1))
    strictly_lower = np.tril(a, -1)
    return strictly_lower + mH(strictly_lower) + diagonal[..., None] * np.eye(diagonal.shape[-1])


def cholesky_vjp(g, ans, a, upper):
    """Murray (2016): with A = L L^H, A_bar = L^-H Phi(L^H L_bar) L^-1, Phi = tril, diagonal halved;
    NumPy reads the lower triangle of ``a`` (the upper one with ``upper=True``)."""
    lower, g_lower = (mH(ans), mH(g)) if upper else (ans, g)
    inner = np.matmul(mH(lower), g_lower)
    phi = np.tril(inner) - 0.5 * np.eye(inner.shape[-1], dtype=inner.dtype) * inner
    left = np.linalg.solve(mH(lower), phi)              # L^-H Phi
    s = mH(np.linalg.solve(mH(lower), mH(left)))        # (L^-H Phi) L^-1
    return unbroadcast(_one_triangle_cotangent(s, lower=not upper), a)


def eigh_rrule(a, *rest, **kwargs):
    result = np.linalg.eigh(a, *rest, **kwargs)
    w, v = result

    def eigh_pullback(dy):
        g_w, g_v = output_parts(dy, 2, ("eigenvalues", "eigenvectors"))
        inner = np.zeros(np.shape(a), dtype=np.result_type(w, v))
        if g_w is not ZERO:
            refuse_split_values(w, g_w, "np.linalg.eigh")
            inner = inner + g_w[..., None] * np.eye(w.shape[-1], dtype=w.dtype)
        if g_v is not ZERO:
            refuse_reached_vectors(w, g_v, "np.linalg.eigh")
            inner = inner + _reciprocal_gaps(w) * np.matmul(mH(v), g_v)
        a_bar = np.matmul(v, np.matmul(inner, mH(v)))
        return (NO_TANGENT, unbroadcast(_one_triangle_cotangent(a_bar, _reads_lower(rest, kwargs)), a)) + \
            (NO_TANGENT,) * len(rest)

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
    return unbroadcast(np.expand_dims(g, (-2, -1)) * conj(_cofactors(a, ans)), a)


def slogdet_vjp(g, ans, a):
    """d log|det A| = Re tr(A^-1 dA); a complex sign = exp(i arg det A) moves too: d sign = i sign Im tr(A^-1 dA)."""
    g_sign, g_logdet = output_parts(g, 2, ("sign", "logabsdet"))
    trace_cotangent = ZERO if g_logdet is ZERO else g_logdet
    if g_sign is not ZERO and np.iscomplexobj(ans[0]):
        trace_cotangent = 1j * np.imag(g_sign * np.conjugate(ans[0])) + trace_cotangent
    if trace_cotangent is ZERO:
        return ZERO
    return unbroadcast(np.expand_dims(trace_cotangent, (-2, -1)) * mH(np.linalg.inv(a)), a)


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
        g_squares[used[j]] = g_squares[used[j]] + np.matmul(mH(partials[j - 1]), g)
        g = np.matmul(g, mH(squares[used[j]]))
    g_squares[used[0]] = g_squares[used[0]] + g
    for i in range(len(squares) - 1, 0, -1):
        root = squares[i - 1]
        g_squares[i - 1] = g_squares[i - 1] + np.matmul(g_squares[i], mH(root)) + np.matmul(mH(root), g_squares[i])
    return g_squares[0]


def matrix_power_vjp(g, ans, a, n):
    if n == 0:
        return unbroadcast(np.zeros(np.shape(a)), a)
    if n > 0:
        return unbroadcast(_power_pullback(g, a, n), a)
    inverse = np.linalg.inv(a)
    g_inverse = _power_pullback(g, inverse, -n)
    return unbroadcast(-np.matmul(mH(inverse), np.matmul(g_inverse, mH(inverse))), a)


# ------------------------------------------------------------------ decompositions


def _reciprocal_gaps(values):
    """``F[i, j] = 1 / (values[j] - values[i])``, 0 where they are equal (the diagonal; a repeated pair, which
    the spectral rules refuse or make NaN where it matters, rules/repeated_spectra.py)."""
    gaps = values[..., None, :] - values[..., :, None]
    degenerate = gaps == 0
    return np.where(degenerate, 0, 1 / np.where(degenerate, 1, gaps))


def _svd_backward(u, s, v, g_u, g_s, g_v):
    """Cotangent of A = U diag(s) V^H (thin, ``V`` not ``Vh``), assuming distinct nonzero singular values.

    Complex U and V are defined up to a common phase per column; a loss blind to it has
    Im diag(U^H g_U) = -Im diag(V^H g_V), and the phase term below splits that evenly.
    """
    inner = np.zeros(s.shape + s.shape[-1:], dtype=np.result_type(u, v))
    if g_s is not ZERO:
        inner = inner + g_s[..., None, :] * np.eye(s.shape[-1], dtype=s.dtype)
    a_bar = 0
    if g_u is not ZERO or g_v is not ZERO:
        f = _reciprocal_gaps(s ** 2)
        s_inverse = np.where(s == 0, 0, 1 / np.where(s == 0, 1, s))
        phase = 0
        if g_u is not ZERO:
            uh_gu = np.matmul(mH(u), g_u)
            inner = inner + f * (uh_gu - mH(uh_gu)) * s[..., None, :]
            phase = phase + np.imag(np.diagonal(uh_gu, axis1=-2, axis2=-1))
            # the part of g_u outside the column space of U (A taller than it is wide)
            a_bar = a_bar + np.matmul((g_u - np.matmul(u, uh_gu)) * s_inverse[..., None, :], mH(v))
        if g_v is not ZERO:
            vh_gv = np.matmul(mH(v), g_v)
            inner = inner + s[..., :, None] * (f * (vh_gv - mH(vh_gv)))
            phase = phase - np.imag(np.diagonal(vh_gv, axis1=-2, axis2=-1))
            a_bar = a_bar + np.matmul(u * s_inverse[..., None, :], mH(g_v - np.matmul(v, vh_gv)))
        if np.iscomplexobj(inner):
            inner = inner + 0.5j * (phase * s_inverse)[..., None, :] * np.eye(s.shape[-1])
    return a_bar + np.matmul(u, np.matmul(inner, mH(v)))


def _complement_cotangent(g, q, rest, g_rest):
    """Fold the cotangent of the extra columns of a full unitary factor into that of the first ones.

    ``[q | rest]`` is unitary; ``rest`` is any orthonormal basis of what ``q`` leaves out,
    so only losses that do not care which basis (``rest @ rest^H``, say) have a gradient.
    For those, ``d rest = -q d q^H rest``, which is what this folds in.
    """
    return g - np.matmul(rest, np.matmul(mH(g_rest), q))


def svd_vjp(g, ans, a, full_matrices, compute_uv, hermitian):
    if compute_uv:
        u, s, vh = ans
        g_u, g_s, g_vh = output_parts(g, 3, ("U", "S", "Vh"))
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        g_u, g_s, g_vh = ZERO, g, ZERO
    k = s.shape[-1]
    g_v = ZERO if g_vh is ZERO else mH(g_vh)
    if compute_uv and full_matrices:
        u, u_rest, vh, vh_rest = u[..., :k], u[..., k:], vh[..., :k, :], vh[..., k:, :]
        if g_u is not ZERO:
            g_u = _complement_cotangent(g_u[..., :k], u, u_rest, g_u[..., k:])
        if g_v is not ZERO:
            g_v = _complement_cotangent(g_v[..., :k], mH(vh), mH(vh_rest), g_v[..., k:])
    _refuse_repeated_singular_values(s, g_s, g_u, g_v, "np.linalg.svd")
    a_bar = _svd_backward(u, s, mH(vh), g_u, g_s, g_v)
    # hermitian=True: NumPy runs eigh, which reads the lower triangle
    return unbroadcast(_one_triangle_cotangent(a_bar, lower=True) if hermitian else a_bar, a)


def _refuse_repeated_singular_values(s, g_s, g_u, g_v, function):
    """Refuse where the result depends on a choice that a repeated or zero singular value leaves open
    (rules/repeated_spectra.py). ``g_u``, ``g_v``: the cotangents of U and V (columns), or ZERO."""
    g_s = None if g_s is ZERO else g_s
    g_columns = [g for g in (g_u, g_v) if g is not ZERO]
    refuse_split_values(s, g_s, function, "singular values")
    refuse_zero_singular_values(s, g_columns, function)
    for g in g_columns:
        refuse_reached_vectors(s, g, function, "singular values")


def _refuse_extreme_singular_values_repeated(s):
    """``cond`` reads the largest and the smallest singular value: neither may be repeated (nor be one value)."""
    weights = np.zeros_like(s)
    weights[..., 0], weights[..., -1] = 1.0, -1.0
    _refuse_repeated_singular_values(s, weights, ZERO, ZERO, "np.linalg.cond")


# checks: constants where this code is differentiated again
nondifferentiable(_refuse_repeated_singular_values, _refuse_extreme_singular_values_repeated)


def svdvals_vjp(g, ans, x):
    if np.size(x) == 0:  # an empty matrix has no singular values (and nothing to check for repeats)
        return unbroadcast(np.zeros(np.shape(x)), x)
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    _refuse_repeated_singular_values(s, g, ZERO, ZERO, "np.linalg.svdvals")
    return unbroadcast(np.matmul(u * g[..., None, :], vh), x)


def pinv_vjp(g, ans, a, rcond, hermitian, rtol):
    """Golub & Pereyra's derivative of the pseudo-inverse, valid where the rank does not change."""
    x, t = ans, mH(g)
    inverted = _hermitian_from_lower(a) if hermitian else a  # hermitian: what eigh reads of a
    a_bar = -np.matmul(mH(x), np.matmul(g, mH(x)))
    w = np.matmul(t, np.matmul(x, mH(x)))
    a_bar = a_bar + w - np.matmul(inverted, np.matmul(x, w))           # (I - A X) G^H X X^H
    q = np.matmul(mH(x), np.matmul(x, t))
    a_bar = a_bar + q - np.matmul(np.matmul(q, x), inverted)           # X^H X G^H (I - X A)
    return unbroadcast(_one_triangle_cotangent(a_bar, lower=True) if hermitian else a_bar, a)  # eigh reads the lower triangle


def eigvalsh_vjp(g, ans, a, UPLO):
    refuse_split_values(ans, g, "np.linalg.eigvalsh")
    _, v = np.linalg.eigh(a, UPLO)
    return unbroadcast(_one_triangle_cotangent(np.matmul(v * g[..., None, :], mH(v)), UPLO.upper() == "L"), a)


def _reads_lower(rest, kwargs):
    """Whether ``eigh(a, *rest, **kwargs)`` reads the lower triangle (UPLO='L', the default)."""
    uplo = rest[0] if rest else kwargs.get("UPLO", "L")
    return uplo.upper() == "L"


def _eig_backward(values, vectors, g_values, g_vectors):
    """``V^-H (diag(g_values) + K) V^H``, K from the eigenvector cotangent (unit-norm vectors, any phase)."""
    vh = np.conj(mT(vectors))
    inner = np.zeros(vectors.shape, dtype=vectors.dtype)
    if g_values is not ZERO:
        refuse_split_values(values, g_values, "np.linalg.eig")
        inner = inner + g_values[..., None, :] * np.eye(values.shape[-1])
    if g_vectors is not ZERO:
        vh_gv = np.matmul(vh, g_vectors)
        # unit norm: moving along v_i itself changes nothing a normalised vector can show
        projected = vh_gv - np.matmul(vh, vectors) * np.real(np.diagonal(vh_gv, axis1=-2, axis2=-1))[..., None, :]
        refuse_reached_vectors(values, g_vectors, "np.linalg.eig")
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
    """A = Q R with R square and invertible (Walter & Lehmann): (G_Q + Q copyltu(M)) R^-H, M = R G_R^H - G_Q^H Q.

    LAPACK's R has a real diagonal, so only the real part of M's diagonal is seen."""
    m = np.zeros(r.shape, dtype=r.dtype)
    if g_r is not ZERO:
        m = m + np.matmul(r, mH(g_r))
    if g_q is not ZERO:
        m = m - np.matmul(mH(g_q), q)
    strictly_lower = np.tril(m, -1)
    diagonal = np.real(np.diagonal(m, axis1=-2, axis2=-1))
    b = np.matmul(q, strictly_lower + mH(strictly_lower) + diagonal[..., None] * np.eye(m.shape[-1]))
    if g_q is not ZERO:
        b = b + g_q
    return mH(np.linalg.solve(r, mH(b)))


def qr_vjp(g, ans, a, mode):
    if mode == "r":
        r, (q, _) = ans, np.linalg.qr(a)
        g_q, g_r = ZERO, g
    elif mode in ("reduced", "complete"):
        q, r = ans
        g_q, g_r = output_parts(g, 2, ("Q", "R"))
    else:
        raise UnsupportedArgumentsError(f"no rule for np.linalg.qr with mode={mode!r} (Householder reflectors)")
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
    g_q = np.matmul(np.asarray(a)[..., :, rows:], mH(g_y)) + g_q
    left = _qr_square_backward(q, x, g_q, g_r[..., :, :rows])
    return unbroadcast(np.concatenate([left, np.matmul(q, g_y)], axis=-1), a)


def _truncated_pinv(a, rcond):
    """The pseudo-inverse with lstsq's cutoff: singular values <= rcond * largest count as zero."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    if rcond is None or rcond < 0:
        rcond = np.finfo(s.dtype).eps * (max(np.shape(a)) if rcond is None else 1)
    kept = s > rcond * s[..., :1]
    s_inverse = np.where(kept, 1 / np.where(kept, s, 1), 0)
    return np.matmul(mH(vh) * s_inverse[..., None, :], mH(u)), u, vh


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
        a_bar = a_bar + pinv_vjp(np.matmul(g_x2, mH(b2)), pinv, a, None, False, None)
        b_bar = b_bar + np.matmul(mH(pinv), g_x2)
    if g_residuals is not ZERO and np.size(residuals):
        misfit = (b2 - np.matmul(a, x2)) * g_residuals
        a_bar = a_bar - 2 * np.matmul(misfit, mH(x2))
        b_bar = b_bar + 2 * misfit
    if g_s is not ZERO:
        a_bar = a_bar + np.matmul(u * g_s, vh)  # the singular values of a, as svd's rule
    return unbroadcast(a_bar, a), unbroadcast(np.reshape(b_bar, np.shape(b)), b), NO_TANGENT


def cond_vjp(g, ans, x, p):
    g = np.expand_dims(g, (-2, -1))
    if p in (None, 2, -2):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        _refuse_extreme_singular_values_repeated(s)
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
    return unbroadcast(g * norm_inverse * slope_x - np.matmul(mH(inverse), np.matmul(g_inverse, mH(inverse))), x)


def vector_norm_vjp(g, ans, x, axis, keepdims, ord):
    axes = tuple(range(np.ndim(x))) if axis is None else \
        tuple(ax % np.ndim(x) for ax in ((axis,) if np.ndim(axis) == 0 else axis))
    norm = expand_reduced(ans, x, axes, keepdims)
    return unbroadcast(expand_reduced(g, x, axes, keepdims) * _vector_norm_slope(x, norm, ord, axes), x)


def matrix_norm_vjp(g, ans, x, keepdims, ord):
    axes = (np.ndim(x) - 2, np.ndim(x) - 1)
    norm = expand_reduced(ans, x, axes, keepdims)
    return unbroadcast(expand_reduced(g, x, axes, keepdims) * _matrix_norm_slope(x, norm, ord, axes), x)


defvjp(np.linalg.inv,      "a", "-np.matmul(mH(ans), np.matmul(g, mH(ans)))")
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


def _onto_diagonal(partial, subs, distinct, sizes, x):
    """The cotangent of an operand whose subscripts repeat a letter (``"ii"``, ``"iij"``): einsum
    reads only the elements whose repeated indices are equal, so ``partial`` (over the distinct
    letters) goes onto that diagonal of zeros, and every other element gets 0."""
    sized = [sizes[ch] for ch in distinct]
    if any(n == 1 and m != 1 for n, m in zip(sized, np.shape(partial))):  # a size-1 axis NumPy broadcast
        partial = np.sum(partial, axis=tuple(k for k, (n, m) in enumerate(zip(sized, np.shape(partial)))
                                             if n == 1 and m != 1), keepdims=True)
    out = np.zeros(np.shape(x), dtype=np.result_type(partial, dtype_of(x)))
    diagonal = np.einsum(f"{subs}->{distinct}", out)  # a writable view of the diagonal einsum reads
    diagonal[...] = partial
    return out


def einsum_rrule(subscripts, *operands, **kwargs):
    if not isinstance(subscripts, str):
        raise UnsupportedArgumentsError("the rule for np.einsum takes the subscripts-string form only")
    y = np.einsum(subscripts, *operands, **kwargs)
    inputs, output = _einsum_subscripts(subscripts, operands)

    def einsum_pullback(dy):
        cotangents = []
        for i, (subs, x) in enumerate(zip(inputs, operands)):
            distinct = "".join(dict.fromkeys(subs))  # "ii" reads the diagonal: its letters once each
            sizes = dict(zip(subs, np.shape(x)))
            others = [(s, operand) for j, (s, operand) in enumerate(zip(inputs, operands)) if j != i]
            available = set(output).union(*[set(s) for s, _ in others])
            target = "".join(ch for ch in distinct if ch in available)
            spec = ",".join([output] + [s for s, _ in others]) + "->" + target
            partial = np.einsum(spec, dy, *[conj(operand) for _, operand in others])  # the adjoint: conjugates
            if target != distinct:  # indices summed in this operand alone: the cotangent is constant along them
                kept_shape = tuple(np.shape(partial)[target.index(ch)] if ch in available else 1 for ch in distinct)
                partial = np.reshape(partial, kept_shape)
            if distinct != subs:
                partial = _onto_diagonal(partial, subs, distinct, sizes, x)
            else:
                partial = np.broadcast_to(partial, np.broadcast_shapes(np.shape(partial), np.shape(x)))
            cotangents.append(unbroadcast(partial, x))  # sums size-1 axes that broadcast against others
        return (NO_TANGENT, NO_TANGENT) + tuple(cotangents)

    return y, einsum_pullback


defrrule(np.einsum, einsum_rrule)


# ================================================================== forward rules: what a template cannot say
#
# Derivations in the comments; A is the input, dA its tangent. Unlike the reverse rules,
# most of these are written for complex matrices too (conjugate transposes, ``mH``), and
# the spectral ones fix the gauge NumPy's results leave free the way LAPACK does, so
# that their tangents are the derivatives of what NumPy returns:
#
# * ``cholesky``, ``eigh``, ``eigvalsh`` and the ``hermitian=True`` forms read one
#   triangle of the matrix: a tangent is first made into the Hermitian matrix that
#   triangle stands for, so any direction (not only symmetric ones) is pushed exactly.
# * ``svd``: real singular vectors are fixed up to a joint sign, which does not move;
#   complex ones up to a joint phase, taken here to leave each right vector's phase fixed.
#   ``eigh``'s complex eigenvectors likewise keep ``v_i^H dv_i`` real (zero).
# * ``eig``: unit-norm eigenvectors whose largest component stays real (LAPACK's choice).
# * ``svd(full_matrices=True)`` and ``qr(mode='complete')``: the extra orthonormal columns
#   move only as much as orthogonality to the first ones demands (``dU2 = -U1 dU1^H U2``);
#   NumPy's own extra columns may turn within their span besides, so only quantities
#   blind to that basis (``U2 @ U2.T``) have these tangents.
# * Same assumptions as the reverse rules: distinct eigenvalues and singular values,
#   constant rank for ``pinv`` and ``lstsq``, an invertible leading block for ``qr``.


def mH(a):
    """The conjugate transpose of a stack of matrices."""
    return np.conj(np.swapaxes(a, -1, -2))


def _is_missing(t):
    return t is None or t is ZERO or t is NO_TANGENT


def einsum_jvp(g, ans, subscripts, operands, out, dtype, order, casting, optimize):
    """Multilinear: the sum over operands with a tangent of einsum with that operand replaced by it."""
    if not isinstance(subscripts, str):
        raise UnsupportedArgumentsError("the forward rule for np.einsum takes the subscripts-string form only")
    total = ZERO
    for i, t in enumerate(varargs_tangents(g, operands)):
        if _is_missing(t):
            continue
        replaced = list(operands)
        replaced[i] = t
        term = np.einsum(subscripts, *replaced, dtype=dtype, order=order, casting=casting, optimize=optimize)
        total = term if total is ZERO else total + term
    return as_tangent_of(total, ans)


def _hermitian_view(g, uplo):
    """The Hermitian matrix a routine reading only the ``uplo`` triangle of ``g`` sees (real diagonal)."""
    strict = np.tril(g, -1) if uplo.upper() == "L" else np.triu(g, 1)
    out = strict + mH(strict)
    n = np.shape(g)[-1]
    out[..., np.arange(n), np.arange(n)] = np.real(np.diagonal(g, axis1=-2, axis2=-1))
    return out


def _diagonal(a):
    return np.diagonal(a, axis1=-2, axis2=-1)


def _safe_reciprocal(s):
    return np.where(s == 0, 0, 1 / np.where(s == 0, 1, s))


def det_jvp(g, ans, a):
    """d det = tr(adj(A) dA) = sum(cofactors * dA): exact at singular matrices too."""
    return as_tangent_of(np.sum(_cofactors(a, ans) * g, axis=(-2, -1)), ans)


def slogdet_jvp(g, ans, a):
    """t = tr(A^-1 dA): logabsdet moves by Re t, the sign (a phase, for complex A) by i Im t times it."""
    sign, logabsdet = ans
    t = np.sum(mT(np.linalg.inv(a)) * g, axis=(-2, -1))
    d_sign = sign * (1j * np.imag(t)) if np.iscomplexobj(sign) else np.zeros_like(sign)
    return as_tangent_of(d_sign, sign), as_tangent_of(np.real(t), logabsdet)


def _power_tangent(a, t, n):
    """The tangent of A^n (n >= 1) through square-and-multiply: d(XY) = dX Y + X dY at each product."""
    result = d_result = None
    square, d_square = a, t
    while n:
        if n & 1:
            if result is None:
                result, d_result = square, d_square
            else:
                d_result = np.matmul(d_result, square) + np.matmul(result, d_square)
                result = np.matmul(result, square)
        n = n >> 1
        if n:
            d_square = np.matmul(d_square, square) + np.matmul(square, d_square)
            square = np.matmul(square, square)
    return d_result


def matrix_power_jvp(g, ans, a, n):
    if n == 0:
        return as_tangent_of(np.zeros(np.shape(ans)), ans)
    if n > 0:
        return as_tangent_of(_power_tangent(a, g, n), ans)
    inverse = np.linalg.inv(a)
    return as_tangent_of(_power_tangent(inverse, -np.matmul(inverse, np.matmul(g, inverse)), -n), ans)


def solve_jvp_a(g, ans, a, b):
    """x = A^-1 b: dx = -A^-1 dA x (a 1-D b is a vector, also against a stack of matrices)."""
    if np.ndim(b) == 1:
        return as_tangent_of(-np.linalg.solve(a, np.matmul(g, ans[..., None]))[..., 0], ans)
    return as_tangent_of(-np.linalg.solve(a, np.matmul(g, ans)), ans)


def _pinv_tangent(a, x, da):
    """Golub & Pereyra: dX = -X dA X + X X^H dA^H (I - A X) + (I - X A) dA^H X^H X (constant rank)."""
    da_h = mH(da)
    t = -np.matmul(x, np.matmul(da, x))
    left = np.matmul(x, np.matmul(mH(x), da_h))
    t = t + left - np.matmul(left, np.matmul(a, x))
    right = np.matmul(da_h, np.matmul(mH(x), x))
    return t + right - np.matmul(x, np.matmul(a, right))


def pinv_jvp(g, ans, a, rcond, hermitian, rtol):
    return as_tangent_of(_pinv_tangent(a, ans, _hermitian_view(g, "L") if hermitian else g), ans)


def _singular_value_tangents(u, vh, da):
    """ds_i = Re(u_i^H dA v_i)."""
    return np.real(np.sum(np.conj(u) * np.matmul(da, mH(vh)), axis=-2))


def lstsq_jvp_a(g, ans, a, b, rcond):
    """x = pinv(A) b; the residuals |b - A x|^2 at the optimum move by -2 <r, dA x> (A^T r = 0)."""
    x, residuals, rank, s = ans
    b2 = np.reshape(b, (-1, 1)) if np.ndim(b) == 1 else np.asarray(b)
    x2 = np.reshape(x, (-1, 1)) if np.ndim(b) == 1 else x
    pinv, u, vh = _truncated_pinv(a, rcond)
    dx = np.reshape(np.matmul(_pinv_tangent(a, pinv, g), b2), np.shape(x))
    d_residuals = np.zeros(np.shape(residuals))
    if np.size(residuals):
        misfit = b2 - np.matmul(a, x2)
        d_residuals = -2 * np.sum(np.real(np.conj(misfit) * np.matmul(g, x2)), axis=0)  # |r|^2 moves by 2 Re <r, dr>
    return (as_tangent_of(dx, x), as_tangent_of(d_residuals, residuals), NO_TANGENT,
            as_tangent_of(_singular_value_tangents(u, vh, g), s))


def lstsq_jvp_b(g, ans, a, b, rcond):
    x, residuals, rank, s = ans
    pinv, _, _ = _truncated_pinv(a, rcond)
    db = np.reshape(g, (-1, 1)) if np.ndim(b) == 1 else np.asarray(g)
    dx = np.reshape(np.matmul(pinv, db), np.shape(x))
    d_residuals = np.zeros(np.shape(residuals))
    if np.size(residuals):
        x2 = np.reshape(x, (-1, 1)) if np.ndim(b) == 1 else x
        b2 = np.reshape(b, (-1, 1)) if np.ndim(b) == 1 else np.asarray(b)
        d_residuals = 2 * np.sum(np.real(np.conj(b2 - np.matmul(a, x2)) * db), axis=0)
    return as_tangent_of(dx, x), as_tangent_of(d_residuals, residuals), NO_TANGENT, np.zeros_like(s)


def _norm_tangent(slope, g, axes, keepdims):
    """A norm moves by Re <slope, dx> over the reduced axes (slope: the reverse rules' subgradient)."""
    return np.sum(np.real(np.conj(slope) * g), axis=axes, keepdims=keepdims)


def norm_jvp(g, ans, x, ord, axis, keepdims):
    x = x if isinstance(x, float) else np.asarray(x)  # a list of numbers too
    ndim = np.ndim(x)
    if axis is None:
        axes = tuple(range(ndim))
        matrix = ord is not None and ndim == 2
    else:
        axes = tuple(ax % ndim for ax in ((axis,) if np.ndim(axis) == 0 else axis))
        matrix = len(axes) == 2
    norm = expand_reduced(ans, x, axes, keepdims)
    slope = _matrix_norm_slope(x, norm, ord, axes) if matrix else _vector_norm_slope(x, norm, ord, axes)
    return as_tangent_of(_norm_tangent(slope, g, axes, keepdims), ans)


def vector_norm_jvp(g, ans, x, axis, keepdims, ord):
    x = x if isinstance(x, float) else np.asarray(x)
    axes = tuple(range(np.ndim(x))) if axis is None else \
        tuple(ax % np.ndim(x) for ax in ((axis,) if np.ndim(axis) == 0 else axis))
    norm = expand_reduced(ans, x, axes, keepdims)
    return as_tangent_of(_norm_tangent(_vector_norm_slope(x, norm, ord, axes), g, axes, keepdims), ans)


def matrix_norm_jvp(g, ans, x, keepdims, ord):
    axes = (np.ndim(x) - 2, np.ndim(x) - 1)
    norm = expand_reduced(ans, x, axes, keepdims)
    return as_tangent_of(_norm_tangent(_matrix_norm_slope(x, norm, ord, axes), g, axes, keepdims), ans)


def cond_jvp(g, ans, x, p):
    """2-norm forms: s_max / s_min (or its inverse) through ds_i = Re(u_i^H dA v_i); the others:
    |A| |A^-1| through the norms' slopes, with dA^-1 = -A^-1 dA A^-1."""
    if p in (None, 2, -2):
        u, s, vh = np.linalg.svd(x, full_matrices=False)
        _refuse_extreme_singular_values_repeated(s)
        ds = _singular_value_tangents(u, vh, g)
        top, bottom, d_top, d_bottom = s[..., 0], s[..., -1], ds[..., 0], ds[..., -1]
        if p == -2:
            return as_tangent_of((d_bottom * top - bottom * d_top) / top ** 2, ans)
        return as_tangent_of((d_top * bottom - top * d_bottom) / bottom ** 2, ans)
    inverse = np.linalg.inv(x)
    axes = (np.ndim(x) - 2, np.ndim(x) - 1)
    norm_x = np.linalg.norm(x, p, axis=(-2, -1), keepdims=True)
    norm_inverse = np.linalg.norm(inverse, p, axis=(-2, -1), keepdims=True)
    d_inverse = -np.matmul(inverse, np.matmul(g, inverse))
    d_norm_x = _norm_tangent(_matrix_norm_slope(x, norm_x, p, axes), g, axes, False)
    d_norm_inverse = _norm_tangent(_matrix_norm_slope(inverse, norm_inverse, p, axes), d_inverse, axes, False)
    return as_tangent_of(d_norm_x * norm_inverse[..., 0, 0] + norm_x[..., 0, 0] * d_norm_inverse, ans)


def cholesky_jvp(g, ans, a, upper):
    """A = L L^H: dL = L Phi(L^-1 dA L^-H), Phi keeping the lower triangle with the diagonal halved."""
    lower = mH(ans) if upper else ans
    da = _hermitian_view(g, "U" if upper else "L")
    inner = np.linalg.solve(lower, mH(np.linalg.solve(lower, da)))      # L^-1 (L^-1 dA)^H = L^-1 dA L^-H
    phi = np.tril(inner, -1) + 0.5 * _diagonal(inner)[..., None] * np.eye(inner.shape[-1])
    d_lower = np.matmul(lower, phi)
    return as_tangent_of(mH(d_lower) if upper else d_lower, ans)


def eigh_jvp(g, ans, a, UPLO):
    """P = V^H dA V: dw = diag(P), dV = V (F o P) with F[i, j] = 1 / (w_j - w_i) off the diagonal."""
    w, v = ans
    p = np.matmul(mH(v), np.matmul(_hermitian_view(g, UPLO), v))
    dw = nan_where_values_split(np.real(_diagonal(p)), w, p)  # rules/repeated_spectra.py
    dv = nan_columns_of_repeated(np.matmul(v, _reciprocal_gaps(w) * p), w)
    return as_tangent_of(dw, w), as_tangent_of(dv, v)


def eigvalsh_jvp(g, ans, a, UPLO):
    _, v = np.linalg.eigh(a, UPLO)
    p = np.matmul(mH(v), np.matmul(_hermitian_view(g, UPLO), v))
    return as_tangent_of(nan_where_values_split(np.real(_diagonal(p)), ans, p), ans)


def _svd_tangent(u, s, v, da):
    """A = U diag(s) V^H (thin). P = U^H dA V = Om_U S + dS - S Om_V with Om_U, Om_V skew-Hermitian, so
    ds = Re diag(P), Om_U = F o (P S + S P^H), Om_V = F o (S P + P^H S), F[i, j] = 1 / (s_j^2 - s_i^2);
    a complex diagonal Im P_ii = s_i (Om_U - Om_V)_ii goes to Om_U. Columns of dA outside U's (V's)
    span add (I - U U^H) dA V S^-1 (and (I - V V^H) dA^H U S^-1)."""
    p = np.matmul(mH(u), np.matmul(da, v))
    diagonal = _diagonal(p)
    ds = _checked_singular_value_tangents(s, p)
    f = _reciprocal_gaps(s ** 2)
    s_inverse = _safe_reciprocal(s)
    omega_u = f * (p * s[..., None, :] + s[..., :, None] * mH(p))
    omega_v = f * (s[..., :, None] * p + mH(p) * s[..., None, :])
    if np.iscomplexobj(p):
        omega_u = omega_u + 1j * (np.imag(diagonal) * s_inverse)[..., None] * np.eye(s.shape[-1])
    du = np.matmul(u, omega_u) + np.matmul(da, v) * s_inverse[..., None, :] - \
        np.matmul(u, p * s_inverse[..., None, :])
    dv = np.matmul(v, omega_v) + np.matmul(mH(da), u) * s_inverse[..., None, :] - \
        np.matmul(v, mH(p) * s_inverse[..., None, :])
    zero = zero_values(s)  # rules/repeated_spectra.py: no vectors' tangent at a repeated or zero value
    return nan_columns_of_repeated(du, s, zero), ds, nan_columns_of_repeated(dv, s, zero)


def _checked_singular_value_tangents(s, p):
    """ds_i = Re P_ii (P = U^H dA V), NaN for a repeated value whose block of P's Hermitian part is not a
    multiple of the identity (rules/repeated_spectra.py); a zero value keeps Re P_ii, as the reverse rule
    keeps its subgradient."""
    return nan_where_values_split(np.real(_diagonal(p)), s, 0.5 * (p + mH(p)))


def _complement_tangent(q, dq, rest):
    """The extra orthonormal columns ``rest`` of ``[q | rest]`` move by -q dq^H rest: just what
    orthogonality to ``q`` demands."""
    return -np.matmul(q, np.matmul(mH(dq), rest))


def svd_jvp(g, ans, a, full_matrices, compute_uv, hermitian):
    da = _hermitian_view(g, "L") if hermitian else g
    if not compute_uv:
        u, s, vh = np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
        return as_tangent_of(_checked_singular_value_tangents(s, np.matmul(mH(u), np.matmul(da, mH(vh)))), ans)
    u, s, vh = ans
    k = s.shape[-1]
    du, ds, dv = _svd_tangent(u[..., :k], s, mH(vh[..., :k, :]), da)
    dvh = mH(dv)
    if full_matrices:
        if u.shape[-1] > k:
            du = np.concatenate([du, _complement_tangent(u[..., :k], du, u[..., k:])], axis=-1)
        if vh.shape[-2] > k:
            rest = _complement_tangent(mH(vh[..., :k, :]), dv, mH(vh[..., k:, :]))
            dvh = np.concatenate([dvh, mH(rest)], axis=-2)
    return as_tangent_of(du, u), as_tangent_of(ds, s), as_tangent_of(dvh, vh)


def svdvals_jvp(g, ans, x):
    if np.size(x) == 0:
        return as_tangent_of(np.zeros(np.shape(ans)), ans)
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return as_tangent_of(_checked_singular_value_tangents(s, np.matmul(mH(u), np.matmul(g, mH(vh)))), ans)


def _qr_square_tangent(q, r, da):
    """A = Q R, R square and invertible: C = Q^H dA R^-1 = Om + dR R^-1 with Om = Q^H dQ skew-Hermitian
    and dR R^-1 upper triangular, so Om = tril(C, -1) - tril(C, -1)^H (+ i Im diag C, which keeps a
    complex R's diagonal real, as LAPACK makes it); dR = (C - Om) R, dQ = dA R^-1 - Q (C - Om)."""
    da_r_inverse = mT(np.linalg.solve(mT(r), mT(da)))
    c = np.matmul(mH(q), da_r_inverse)
    lower = np.tril(c, -1)
    omega = lower - mH(lower)
    if np.iscomplexobj(c):
        omega = omega + 1j * np.imag(_diagonal(c))[..., None] * np.eye(c.shape[-1])
    return da_r_inverse - np.matmul(q, c - omega), np.matmul(c - omega, r)


def qr_jvp(g, ans, a, mode):
    if mode not in ("reduced", "complete", "r"):
        raise UnsupportedArgumentsError(f"no forward rule for np.linalg.qr with mode={mode!r} (Householder reflectors)")
    q, r = (np.linalg.qr(a)[0], ans) if mode == "r" else ans
    rows, cols = np.shape(a)[-2:]
    k = min(rows, cols)
    q1, r1 = q[..., :k], r[..., :k, :]
    if rows >= cols:
        dq, dr = _qr_square_tangent(q1, r1, g)
    else:  # a wide matrix: A = Q [X | Y], X square; Y = Q^H A[:, rows:]
        dq, dx = _qr_square_tangent(q1, r1[..., :rows], g[..., :rows])
        dy = np.matmul(mH(dq), np.asarray(a)[..., rows:]) + np.matmul(mH(q1), g[..., rows:])
        dr = np.concatenate([dx, dy], axis=-1)
    if r.shape[-2] > k:  # mode='complete' of a tall matrix: R's extra rows stay zero
        dr = np.concatenate([dr, np.zeros(dr.shape[:-2] + (r.shape[-2] - k, cols), dr.dtype)], axis=-2)
    if mode == "r":
        return as_tangent_of(dr, r)
    if q.shape[-1] > k:
        dq = np.concatenate([dq, _complement_tangent(q1, dq, q[..., k:])], axis=-1)
    return as_tangent_of(dq, q), as_tangent_of(dr, r)


def _eig_tangent(values, vectors, da):
    """P = V^-1 dA V: dw = diag(P), dV = V (F o P) (F[i, j] = 1 / (w_j - w_i) off the diagonal), then along
    each v_i itself: a real multiple keeping |v_i| = 1, an imaginary one keeping its largest component real."""
    p = np.matmul(np.linalg.inv(vectors), np.matmul(da, vectors))
    dv = nan_columns_of_repeated(np.matmul(vectors, _reciprocal_gaps(values) * p), values)  # rules/repeated_spectra.py
    dv = dv - vectors * np.real(np.sum(np.conj(vectors) * dv, axis=-2, keepdims=True))
    if np.iscomplexobj(dv):
        largest = np.argmax(np.abs(vectors), axis=-2)[..., None, :]
        ratio = np.take_along_axis(dv, largest, axis=-2) / np.take_along_axis(vectors, largest, axis=-2)
        dv = dv - 1j * np.imag(ratio) * vectors
    return nan_where_values_split(_diagonal(p), values, p), dv


def eig_jvp(g, ans, a):
    values, vectors = ans
    dw, dv = _eig_tangent(values, vectors, g)
    return as_tangent_of(dw, values), as_tangent_of(dv, vectors)


def eigvals_jvp(g, ans, a):
    values, vectors = np.linalg.eig(a)
    if not np.array_equal(values, ans):
        vectors = np.take_along_axis(vectors, _matching_order(values, ans)[..., None, :], axis=-1)
    p = np.matmul(np.linalg.inv(vectors), np.matmul(g, vectors))
    return as_tangent_of(nan_where_values_split(_diagonal(p), ans, p), ans)


# ---- forward rules
# ------------------------------------------------------------------ products (bilinear: the tangent in one place at a time)
defjvp(np.dot,       "np.dot(g, b)", "np.dot(a, g)")
defjvp(np.matmul,    "np.matmul(g, x2)", "np.matmul(x1, g)")
defjvp(np.outer,     "np.outer(g, b)", "np.outer(a, g)")
defjvp(np.linalg.multi_dot, multi_dot_jvp, None)
defjvp(np.convolve,  "np.convolve(g, v, mode)", "np.convolve(a, g, mode)")
defjvp(np.correlate, "np.correlate(g, v, mode)", "np.correlate(a, g, mode)")
defjvp(np.inner,     "np.inner(g, b)", "np.inner(a, g)")
defjvp(np.vdot,      "np.vdot(g, b)", "np.vdot(a, g)")
defjvp(np.tensordot, LINEAR, LINEAR)
defjvp(np.cross,     LINEAR, LINEAR)
defjvp(np.einsum,    None, einsum_jvp,
       signature="subscripts, *operands, out=None, dtype=None, order='K', casting='safe', optimize=False")

# ------------------------------------------------------------------ numpy.linalg
defjvp(np.linalg.inv,      "-np.matmul(ans, np.matmul(g, ans))")
defjvp(np.linalg.det,      det_jvp)
defjvp(np.linalg.slogdet,  slogdet_jvp)
defjvp(np.linalg.matrix_power, matrix_power_jvp)
defjvp(np.linalg.solve,    solve_jvp_a, LINEAR)
defjvp(np.linalg.lstsq,    lstsq_jvp_a, lstsq_jvp_b)
defjvp(np.linalg.pinv,     pinv_jvp)
defjvp(np.linalg.norm,     norm_jvp)
defjvp(np.linalg.cond,     cond_jvp)
defjvp(np.linalg.cholesky, cholesky_jvp)
defjvp(np.linalg.qr,       qr_jvp)
defjvp(np.linalg.svd,      svd_jvp)
defjvp(np.linalg.eig,      eig_jvp)
defjvp(np.linalg.eigvals,  eigvals_jvp)
defjvp(np.linalg.eigvalsh, eigvalsh_jvp)
defjvp(np.linalg.eigh,     eigh_jvp)

if hasattr(np.linalg, "svdvals"):  # NumPy >= 2: the array-API names
    defjvp(np.linalg.svdvals,     svdvals_jvp)
    defjvp(np.linalg.vector_norm, vector_norm_jvp)
    defjvp(np.linalg.matrix_norm, matrix_norm_jvp)
