"""A probe corpus of programs as scientists and ML engineers write them, in five families earlier
corpora covered little: indexing (repeated fancy indices, masks, negative steps, two-axis integer
arrays, 0-d items), views written in place (reshape, transpose, slices, ``out=``, ``np.put``),
linear algebra (real and complex, near-singular points), published ML code (cross-entropy,
attention, norms, convolutions, recurrent cells, Adam), and numerics at their awkward points
(sorts, cumulative products with zeros, padding, clipping at the bounds, powers of negative bases).
Nothing here is written for s2sad: tests/test_probe_programs.py differentiates each untouched in
every mode against central finite differences of these very functions (tests/probe_cases.py)."""
import numpy as np


# ================================================================ 1: indexing
def gather_repeated_indices(x):
    picked = x[[0, 0, 2, 2, 2]]
    return np.sum(np.sin(picked) * np.arange(1.0, 6.0))


def scatter_add_with_duplicates_once(x, v):
    # NumPy's x[idx] += v applies each duplicate index once: the last write wins
    y = x.copy()
    idx = np.array([1, 3, 1, 0])
    y[idx] += v
    return np.sum(y ** 3)


def scatter_add_at_with_duplicates(x, v):
    y = x.copy()
    np.add.at(y, [1, 3, 1, 0], v)
    return np.sum(y ** 3)


def boolean_mask_read(x):
    positive = x[x > 0]
    return np.sum(positive ** 2) + np.prod(x[x < 0] + 3.0)


def boolean_mask_write_zero(x, w):
    y = x * w
    y[y < 0.1] = 0.0
    return np.sum(np.exp(y))


def where_with_both_branches(x):
    safe = np.where(x > 0, np.log(np.abs(x) + 1.0), x ** 3)
    return np.sum(safe * x)


def negative_steps(x):
    reversed_x = x[::-1]
    strided = x[5:1:-2]
    return np.sum(reversed_x * x) + np.sum(strided ** 3)


def new_axes_and_ellipsis(x, y):
    outer = x[..., None] * y[np.newaxis, :]
    return np.sum(np.tanh(outer)) + np.sum(x[:, None, None] ** 2)


def two_axis_integer_arrays(A):
    rows = np.array([0, 2, 2, 1])
    cols = np.array([1, 0, 0, 2])
    picked = A[rows, cols]
    block = A[rows][:, cols]
    return np.sum(picked ** 2) + np.sum(np.sin(block))


def ix_block(A):
    block = A[np.ix_([0, 2, 0], [1, 2])]
    return np.sum(block ** 3)


def take_along_axis_of_argsort(A):
    order = np.argsort(A, axis=1)
    ranked = np.take_along_axis(A, order, axis=1)
    weights = np.arange(A.shape[1], dtype=float)
    return np.sum(ranked * weights)


def argmax_selected_items(A, B):
    best = np.argmax(A, axis=1)
    chosen = B[np.arange(B.shape[0]), best]
    return np.sum(chosen * A.max(axis=1))


def zero_d_items(x):
    total = np.sum(x ** 2)
    scalar = total[()]
    return scalar * x[1] + np.asarray(x[0])[()] ** 2


def item_of_an_array(x):
    s = np.sum(np.sin(x))
    first = x[0].item()
    return s * 2.0 + first


def take_with_repeats(x):
    return np.sum(np.take(x, [3, 3, 0, 1]) ** 2 * np.array([1.0, 2.0, 3.0, 4.0]))


def mask_and_fancy_assign(x):
    y = np.zeros(6)
    y[[0, 2, 4]] = x[:3] ** 2
    y[np.array([False, True, False, True, False, True])] = np.exp(x[3:])
    return np.sum(y * np.arange(1.0, 7.0))


# ================================================================ 2: views and in place
def reshape_view_written(x):
    y = x.reshape(2, 3)
    y[0] *= 2.0
    return np.sum(x ** 2) + np.sum(y[1] ** 3)


def transpose_view_plus_equals(A):
    B = A.copy()
    Bt = B.T
    Bt += 1.0
    return np.sum(B ** 2 * A)


def slice_view_of_a_copy(x):
    y = x.copy()
    tail = y[1:]
    tail *= y[:-1]
    return np.sum(y)


def ravel_view_written(A):
    B = A * 1.0
    flat = np.ravel(B)
    flat[::2] = 0.0
    return np.sum(B * A)


def asarray_is_the_same_object(x):
    y = x * 2.0
    z = np.asarray(y)
    z[0] = 5.0
    return np.sum(y ** 2)


def add_out_into_first(a, b):
    acc = a.copy()
    np.add(acc, b, out=acc)
    np.multiply(acc, b, out=acc)
    return np.sum(acc ** 2)


def multiply_out_into_fresh(a, b):
    out = np.empty_like(a)
    np.multiply(a, b, out=out)
    return np.sum(np.sin(out))


def put_and_place(x):
    y = x.copy()
    np.put(y, [0, 2], [1.0, 2.0])
    return np.sum(y ** 2 * x)


def put_values_from_x(x):
    y = np.zeros(5)
    np.put(y, [4, 1, 1], x[:3] * 2.0)
    return np.sum(y ** 2)


def place_values(x):
    y = x.copy()
    np.place(y, y > 0.5, [0.0])
    return np.sum(y ** 3)


def shape_assignment(x):
    y = x * 1.0
    y.shape = (3, 2)
    return np.sum(y[:, 0] * y[:, 1])


def resize_method(x):
    y = x * 1.0
    y.resize((2, 3), refcheck=False)
    return np.sum(y[0] * y[1])


def empty_like_buffer_filled_in_loop(x):
    out = np.empty_like(x)
    running = 0.0
    for i in range(x.shape[0]):
        running = 0.5 * running + x[i]
        out[i] = running ** 2
    return np.sum(out)


def view_of_argument_written(x):
    # a view of the caller's array written: the caller's array changes when this runs in NumPy;
    # s2sad must compute the same value and never let the caller see the change twice
    y = x[:]
    y = y * 2.0
    y[1] = 0.0
    return np.sum(y ** 2) + np.sum(x ** 2)


def reshape_of_a_slice_written(A):
    B = A.copy()
    row = B[1].reshape(1, -1)
    row[0, :] = row[0, :] ** 2
    return np.sum(B * A)


# ================================================================ 3: linear algebra
def solve_and_inv(A, b):
    x = np.linalg.solve(A, b)
    return np.sum(x ** 2) + np.trace(np.linalg.inv(A))


def det_and_slogdet(A):
    sign, logdet = np.linalg.slogdet(A)
    return np.linalg.det(A) + sign * logdet


def cholesky_log_det(L0):
    S = L0 @ L0.T + 0.5 * np.eye(L0.shape[0])
    L = np.linalg.cholesky(S)
    return 2.0 * np.sum(np.log(np.diag(L)))


def eigh_spectrum(A):
    S = A + A.T
    w, V = np.linalg.eigh(S)
    return np.sum(w ** 3) + np.sum(V[:, -1] ** 4)


def svd_nuclear_and_top(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(s) + s[0] ** 2 + np.sum(U[:, 0] ** 4)


def qr_r_diagonal(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum(Q ** 3)


def lstsq_residual(A, b):
    x, *_ = np.linalg.lstsq(A, b, rcond=None)
    return np.sum((A @ x - b) ** 2) + np.sum(x ** 2)


def norms_all_orders(A, v):
    total = np.linalg.norm(A) + np.linalg.norm(A, "fro") + np.linalg.norm(A, 1) + np.linalg.norm(A, np.inf)
    total = total + np.linalg.norm(A, 2) + np.linalg.norm(A, "nuc") + np.linalg.norm(A, -np.inf)
    total = total + np.linalg.norm(v, 1) + np.linalg.norm(v, 3) + np.linalg.norm(v, np.inf) + np.linalg.norm(v, -np.inf)
    return total + np.sum(np.linalg.norm(A, axis=0)) + np.sum(np.linalg.norm(A, ord=1, axis=1, keepdims=True))


def pinv_and_matrix_power(A, B):
    P = np.linalg.pinv(B)
    return np.sum(np.linalg.matrix_power(A, 3)) + np.sum(P ** 2) + np.sum(np.linalg.matrix_power(A, -2))


def kron_outer_tensordot(a, b, A):
    K = np.kron(A, np.outer(a, b))
    T = np.tensordot(A, K[:3, :3], axes=([1], [0]))
    return np.sum(K ** 2) + np.sum(T) + np.trace(A @ A)


def einsum_with_ellipsis(X, W):
    H = np.einsum("...ij,jk->...ik", X, W)
    G = np.einsum("...ii->...", np.einsum("...ij,...kj->...ik", H, H))
    return np.sum(G) + np.einsum("bij,bij->", X, X)


def complex_solve_real_loss(A, b):
    M = A + 1j * A.T + 2.0 * np.eye(A.shape[0])
    x = np.linalg.solve(M, b + 0.5j * b[::-1])
    return np.real(np.vdot(x, x)) + np.abs(np.linalg.det(M))


def complex_eigh_hermitian(A, B):
    H = A + A.T + 1j * (B - B.T)
    w, V = np.linalg.eigh(H)
    return np.sum(w * np.arange(1.0, w.shape[0] + 1)) + np.sum(np.abs(V[0]) ** 2 * w)


def complex_svd_and_norm(A, B):
    M = A + 1j * B
    s = np.linalg.svd(M, compute_uv=False)
    return np.sum(s ** 2 * np.arange(1.0, s.shape[0] + 1)) + np.linalg.norm(M, 2) + np.linalg.norm(M, "nuc")


def near_singular_solve(A, eps):
    M = A + eps * np.eye(A.shape[0])
    return np.sum(np.linalg.solve(M, np.ones(A.shape[0])))


def repeated_eigenvalue_trace(A):
    # a symmetric function of the eigenvalues is smooth even at repeated eigenvalues
    w = np.linalg.eigvalsh(A @ A.T + np.eye(A.shape[0]))
    return np.sum(w ** 2) + np.sum(np.log(w))


# ================================================================ 4: ML code
def softmax_cross_entropy_logsumexp(W, X, labels):
    logits = X @ W
    m = np.max(logits, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(logits - m), axis=-1, keepdims=True))
    log_probs = logits - lse
    onehot = np.eye(W.shape[1])[labels]
    return -np.mean(np.sum(onehot * log_probs, axis=-1))


def label_smoothing_loss(logits, labels, smoothing=0.1):
    k = logits.shape[-1]
    targets = np.full(logits.shape, smoothing / (k - 1))
    targets[np.arange(logits.shape[0]), labels] = 1.0 - smoothing
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return -np.sum(targets * log_probs) / logits.shape[0]


def scaled_dot_attention_with_mask(q, k, v):
    d = q.shape[-1]
    scores = q @ k.swapaxes(-1, -2) / np.sqrt(d)
    mask = np.triu(np.ones(scores.shape[-2:], dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.sum((weights @ v) ** 2)


def multi_head_attention_masked_fill(x, Wq, Wk):
    q = (x @ Wq).reshape(x.shape[0], 2, -1).transpose(1, 0, 2)
    k = (x @ Wk).reshape(x.shape[0], 2, -1).transpose(1, 0, 2)
    scores = np.matmul(q, np.swapaxes(k, -1, -2))
    scores[:, np.tril_indices(x.shape[0], -1)[0], np.tril_indices(x.shape[0], -1)[1]] = -np.inf
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.sum(p * scores.clip(-5.0, None))


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    xhat = (x - mu) / np.sqrt(var + eps)
    return np.sum((gamma * xhat + beta) ** 3)


def batch_norm_training(x, gamma, beta, eps=1e-5):
    mean = np.mean(x, axis=0)
    centred = x - mean
    var = np.mean(centred ** 2, axis=0)
    inv_std = 1.0 / np.sqrt(var + eps)
    out = gamma * centred * inv_std + beta
    return np.sum(np.tanh(out) * np.arange(out.size).reshape(out.shape))


def dropout_fixed_random_state(W, x, p=0.3):
    rs = np.random.RandomState(0)
    h = np.maximum(x @ W, 0.0)
    mask = rs.rand(*h.shape) > p
    h = h * mask / (1.0 - p)
    return np.sum(h ** 2)


def conv1d_loops(x, w):
    n, k = x.shape[0], w.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        for j in range(k):
            out[i] += x[i + j] * w[j]
    return np.sum(np.tanh(out))


def conv2d_slicing(img, kernel):
    kh, kw = kernel.shape
    H, W = img.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for a in range(kh):
        for b in range(kw):
            out += kernel[a, b] * img[a:a + H - kh + 1, b:b + W - kw + 1]
    return np.sum(np.maximum(out, 0.0) ** 2) + np.sum(out)


def max_pool_reshape(img, w):
    H, W = img.shape
    pooled = (img * w).reshape(H // 2, 2, W // 2, 2).max(axis=(1, 3))
    return np.sum(pooled ** 2)


def lstm_cell_dict_params(params, x, h, c):
    z = x @ params["Wx"] + h @ params["Wh"] + params["b"]
    n = h.shape[-1]
    i = 1.0 / (1.0 + np.exp(-z[..., :n]))
    f = 1.0 / (1.0 + np.exp(-z[..., n:2 * n]))
    o = 1.0 / (1.0 + np.exp(-z[..., 2 * n:3 * n]))
    g = np.tanh(z[..., 3 * n:])
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    return np.sum(h_new ** 2) + np.sum(c_new)


def gru_cell_sequence(params, xs):
    h = np.zeros(params["Uz"].shape[0])
    for x in xs:
        z = 1 / (1 + np.exp(-(params["Wz"] @ x + params["Uz"] @ h)))
        r = 1 / (1 + np.exp(-(params["Wr"] @ x + params["Ur"] @ h)))
        h_tilde = np.tanh(params["Wh"] @ x + params["Uh"] @ (r * h))
        h = (1 - z) * h + z * h_tilde
    return np.sum(h ** 2)


def adam_steps_in_a_loop(w0, X, y, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
    w = w0.copy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, 4):
        g = 2.0 * X.T @ (X @ w - y) / X.shape[0]
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        w -= lr * m_hat / (np.sqrt(v_hat) + eps)
    return np.mean((X @ w - y) ** 2)


def clipped_gradient_step(w, X, y, max_norm=0.5):
    g = X.T @ np.tanh(X @ w - y)
    norm = np.linalg.norm(g)
    if norm > max_norm:
        g = g * (max_norm / norm)
    g = np.clip(g, -0.2, 0.2)
    w_new = w - 0.1 * g
    return np.sum((X @ w_new - y) ** 2)


def one_hot_eye_labels(W, X, labels):
    Y = np.eye(3)[labels]
    P = np.exp(X @ W)
    P = P / P.sum(axis=1)[:, None]
    return np.sum((P - Y) ** 2)


# ================================================================ 5: numerics
def sort_gather(x):
    s = np.sort(x)
    order = np.argsort(x)
    return np.sum(s * np.arange(1.0, x.size + 1)) + np.sum(x[order][:3] ** 2)


def cumprod_with_a_zero(x):
    y = x.copy()
    y[2] = 0.0
    return np.sum(np.cumprod(y * x)) + np.sum(np.cumprod(x))


def cumsum_and_diff(x):
    c = np.cumsum(x ** 2)
    return np.sum(np.diff(c) ** 2) + np.sum(np.diff(x, n=2) ** 2)


def numpy_gradient_stencil(x, spacing):
    g = np.gradient(x ** 2, spacing)
    return np.sum(g ** 2)


def numpy_gradient_2d_edge_order(A):
    gy, gx = np.gradient(A, edge_order=2)
    return np.sum(gy * gx) + np.sum(np.gradient(A, axis=1) ** 2)


def pad_all_modes(x):
    total = 0.0
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum", "mean", "minimum", "median"):
        total = total + np.sum(np.pad(x, (2, 3), mode=mode) * np.arange(10.0))
    return total


def roll_tile_repeat(x):
    r = np.roll(x, 2) * np.roll(x, -1)
    t = np.tile(x, 3)[:7]
    p = np.repeat(x, [1, 0, 2, 3])
    return np.sum(r ** 2) + np.sum(t * np.arange(7.0)) + np.sum(p ** 3)


def clip_inside_and_outside(x):
    return np.sum(np.clip(x, -0.5, 0.7) ** 2) + np.sum(np.clip(2 * x, None, 0.3))


def sign_round_floor_are_flat(x):
    return np.sum(np.sign(x) * x ** 2) + np.sum(np.round(x * 3.0) * x) + np.sum(np.floor(x) + x ** 3) + np.sum(np.rint(x) * np.ceil(x))


def negative_base_integer_power(x):
    base = x - 2.0  # negative base
    return np.sum(base ** 3) + np.sum(base ** -2) + np.sum(np.power(base, 4)) + np.sum(base ** 2.0)


def power_of_sum_at_zero_exponent(x):
    return np.sum(x ** 0) + np.sum(x ** 1) + np.sum(np.power(x, 0.0) * x)


def sqrt_and_half_power_away_from_zero(x):
    return np.sum(np.sqrt(x ** 2 + 1.0)) + np.sum(np.power(x ** 2 + 0.5, 0.5))


def complex_square_vs_product(a, b):
    z = a + 1j * b
    return np.sum(np.abs(z ** 2 - z * z + z * np.conj(z)) ** 2) + np.sum(np.real(z ** 2)) + np.sum(np.imag(z * z))


def abs_max_min_with_margins(x):
    return np.sum(np.abs(x)) + np.max(x) - np.min(x) + np.sum(np.maximum(x, -x[::-1])) + np.sum(np.fmin(x, 0.2))


def searchsorted_interpolation(x, knots):
    idx = np.searchsorted(knots, x).clip(1, knots.size - 1)
    lo, hi = knots[idx - 1], knots[idx]
    t = (x - lo) / (hi - lo)
    return np.sum(t ** 2 * np.sin(hi))


def triangular_and_diagonal(A):
    L = np.tril(A)
    U = np.triu(A, 1)
    return np.sum(L @ U) + np.sum(np.diag(A) ** 3) + np.sum(np.diagonal(A, 1)) + np.trace(A, offset=-1)


def stack_concatenate_split(x, y):
    s = np.stack([x, y, x * y])
    parts = np.split(np.concatenate([x, y]), 2)
    h = np.hstack([parts[1], parts[0]])
    return np.sum(s ** 2) + np.sum(h * np.arange(h.size))


def percentile_free_robust_scale(x):
    med = np.median(x)
    mad = np.median(np.abs(x - med))
    return np.sum(((x - med) / mad) ** 2)


def logsumexp_with_minus_inf_entries(x):
    a = np.where(np.arange(x.size) % 3 == 0, -np.inf, x)
    m = np.max(a)
    return m + np.log(np.sum(np.exp(a - m)))


def nan_aware_reductions(x):
    y = np.where(x > 1.5, np.nan, x)
    return np.nansum(y ** 2) + np.nanmean(y) + np.nanmax(y)


def var_std_with_ddof(X):
    return np.sum(np.var(X, axis=0, ddof=1)) + np.sum(np.std(X, axis=1)) + np.std(X, ddof=1)


# ================================================================ a second round: what the first one suggested
def scatter_active_values_duplicates(x, v):
    y = np.zeros(5)
    y[[1, 1, 3]] += v * x[:3]
    return np.sum(y * x)


def zero_d_array_argument(s, x):
    return np.sum(x * s) + s[()] ** 2


def eig_nonsymmetric(A):
    w, V = np.linalg.eig(A)
    return np.sum(np.real(w) ** 2) + np.sum(np.abs(V) ** 2 * np.arange(9.0).reshape(3, 3))


def det_of_singular(A):
    B = A.copy()
    B[2] = B[0] + B[1]
    return np.linalg.det(B) + np.sum(B)


def log_softmax_neg_inf_mask(x):
    mask = np.array([True, False, True, True])
    z = np.where(mask, x, -np.inf)
    m = np.max(z, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))
    return np.sum(np.where(mask, z - lse, 0.0) * np.array([1.0, 2.0, 3.0, 4.0]))


def maxpool_with_argmax_scatter(x):
    windows = x.reshape(-1, 2)
    idx = np.argmax(windows, axis=1)
    pooled = windows[np.arange(windows.shape[0]), idx]
    up = np.zeros_like(windows)
    up[np.arange(windows.shape[0]), idx] = pooled ** 2
    return np.sum(up.reshape(-1) * x)


def diff_and_gradient_with_coordinates(x, t):
    return np.sum(np.diff(x, n=1) ** 2) + np.sum(np.gradient(x, t) ** 2)
