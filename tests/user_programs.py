"""Programs written the way scientists and ML engineers write them, not the way s2sad was designed.

Each entry of ``PROGRAMS`` is ``name -> (function, args, argnums)``. ``tests/test_user_programs.py``
holds s2sad to its one rule on every one: the gradient (and the jvp) equals central finite
differences of the plain NumPy function, or s2sad raises an error that points at this file.
``MUST_WORK`` names the programs that s2sad must differentiate, not merely refuse.

The traps (in-place writes through aliases, repeated indices, library functions that write
into their arguments) are here because an earlier s2sad gave silently wrong gradients on them.
"""
import functools

import numpy as np

rng = np.random.default_rng(20261124)


# ---------------------------------------------------------------------- models people publish
def init_mlp(sizes):
    return [(rng.normal(size=(m, n)) / np.sqrt(m), np.zeros(n)) for m, n in zip(sizes[:-1], sizes[1:])]


def mlp_loss(W1, b1, W2, b2, X, y):
    """Two layers, softmax cross-entropy, written with a log-sum-exp for stability."""
    params = [(W1, b1), (W2, b2)]
    h = X
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    logits = h @ W + b
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.sum(log_probs * y, axis=1))


def logistic_nll(w, X, t):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - t * z) + 0.5 * np.dot(w, w)


def gp_neg_log_likelihood(log_params, X, y):
    """A Gaussian process's negative log marginal likelihood, through a Cholesky factor."""
    lengthscale, variance, noise = np.exp(log_params)
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = variance * np.exp(-0.5 * sq / lengthscale ** 2) + noise * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(X) * np.log(2 * np.pi)


def mixture_log_likelihood(means, X):
    """A one-dimensional mixture of unit Gaussians with equal weights."""
    diffs = X[:, None] - means[None, :]
    log_terms = -0.5 * diffs ** 2 - 0.5 * np.log(2 * np.pi) - np.log(len(means))
    peak = np.max(log_terms, axis=1, keepdims=True)
    return np.sum(peak[:, 0] + np.log(np.sum(np.exp(log_terms - peak), axis=1)))


def rnn_loss(Wh, Wx, xs):
    h = np.zeros(Wh.shape[0])
    total = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + Wx @ xs[t])
        total = total + np.sum(h ** 2)
    return total / xs.shape[0]


def euler_decay(k, y0):
    """An ODE integrated by explicit Euler steps."""
    y = y0
    dt = 0.05
    for _ in range(20):
        y = y + dt * (-k * y + np.sin(y))
    return np.sum(y ** 2)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def layer_norm(x, gamma):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return np.sum(np.tanh(gamma * (x - mu) / np.sqrt(var + 1e-5)))


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.sum((weights @ V) ** 2)


def polynomial_fit_residual(coefficients, t, y):
    V = np.vander(t, len(coefficients))
    return np.sum((V @ coefficients - y) ** 2)


def masked_relu_energy(x):
    positive = x[x > 0]
    return np.sum(positive ** 2) + np.sum(np.maximum(x, 0.0) * x) + np.sum(np.where(x < 0, 0.1 * x, x))


def reversed_and_strided(x):
    return np.sum(x[::-1] * np.arange(1.0, 7.0)) + np.sum(x[::-2] ** 2) + np.sum(x.reshape(2, 3).T @ x[:2])


def fancy_gather_with_repeats(x):
    return np.sum(x[[0, 2, 2, -1]] ** 2) + np.sum(x.reshape(2, 3)[[1, 1, 0]][:, [2, 0]])


def sorted_and_clipped(x):
    return np.sum(np.sort(x) * np.arange(6.0)) + np.sum(np.clip(x, -0.5, 0.5) ** 2)


def kernel_ridge(w, X, y):
    K = np.exp(-np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1))
    residual = K @ w - y
    return residual @ residual + 1e-2 * w @ K @ w


def validated(x):
    assert x.ndim == 1, "x must be a vector"
    if x.shape[0] < 2:
        return np.sum(x)
    return np.sum(np.log1p(x ** 2))


def with_inner_helpers(x):
    square = lambda v: v ** 2  # noqa: E731
    def scaled(v):
        return np.sin(v) * x[0]
    return np.sum(square(x)) + np.sum(scaled(x))


def keyword_only_scale(x, *, scale=2.0):
    return scale * np.sum(x ** 3)


def tuple_params_loop(x):
    params = [(x[:3], x[3]), (x[3:], x[0])]
    out = 0.0
    for W, b in params:
        out = out + np.sum(np.tanh(W) * b)
    return out


def times_ten(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 10.0 * fn(x)
    return wrapper


@times_ten
def decorated_energy(x):
    return np.sum(x ** 2)


def calls_decorated(x):
    return decorated_energy(x) + np.sum(x)


# ---------------------------------------------------------------------- in-place traps
def scatter_with_repeats(x):
    y = np.zeros(6)
    y[[0, 2, 2]] += x[:3]                 # NumPy: one write per index, the last wins
    y[[5, 4, 5]] = x[3:]
    return np.sum(y * np.arange(1.0, 7.0))


def add_at_histogram(x):
    y = np.zeros(3)
    np.add.at(y, [0, 2, 2, 1, 0, 2], x)    # every occurrence accumulates
    return np.sum(y ** 2)


def write_through_reshape_view(x):
    b = np.zeros(4)
    r = b.reshape(2, 2)
    r[0, 0] = 3 * x[1]
    return np.sum(b * x[:4])


def write_through_transpose_view(x):
    b = np.ones((2, 3))
    t = b.T
    t[0] -= x[0]
    return np.sum(b * x.reshape(2, 3))


def scale_a_slice_view(x):
    b = np.outer(np.ones(2), x[:3])
    v = b[:, 1:3]
    v *= x[0]
    return np.sum(b ** 2)


def augmented_add_seen_by_an_alias(x):
    y = x * 1.0
    z = y
    y += 1.0                              # NumPy changes the array z names too
    return np.sum(z * x)


def alias_in_a_list(x):
    rows = [x * 1.0, x * 2.0]
    r = rows[0]
    r[0] = 7.0
    return np.sum(rows[0] * x)


def alias_in_a_dict(x):
    d = {"a": x * 1.0}
    v = d["a"]
    v[1] = 0.0
    return np.sum(d["a"] * x)


def library_writes_a_saved_array(x):
    A = np.ones((2, 3))
    B = A * x.reshape(2, 3)
    np.fill_diagonal(A, 0.0)              # the reverse of the product above reads A
    return np.sum(B) + np.sum(A * x.reshape(2, 3))


def copyto_a_saved_array(x):
    A = np.ones(6)
    B = A * x
    np.copyto(A, np.arange(6.0))
    return np.sum(B)


def ufunc_out_into_a_saved_array(x):
    A = np.ones(6)
    B = A * x
    np.multiply(A, 3.0, out=A)
    return np.sum(B)


def ufunc_out_of_an_active_value(x):
    A = np.ones(6)
    np.multiply(x, 3.0, out=A)
    return np.sum(A ** 2)


def put_into_zeros(x):
    A = np.zeros(6)
    np.put(A, [0, 2], x[:2])
    return np.sum(A * np.arange(6.0))


def item_of_an_element(x):
    return x[0].item() * np.sum(x)


def python_sum_over_an_array(x):
    return sum(x * x)


def _vector():
    return rng.normal(size=6)


PROGRAMS = {
    "mlp_loss": (mlp_loss, [*[p for layer in init_mlp([3, 4, 2]) for p in layer], rng.normal(size=(5, 3)),
                            np.eye(2)[rng.integers(0, 2, size=5)]], (0, 1, 2, 3)),
    "logistic_nll": (logistic_nll, [rng.normal(size=3), rng.normal(size=(8, 3)), rng.integers(0, 2, size=8) * 1.0], (0,)),
    "gp_neg_log_likelihood": (gp_neg_log_likelihood, [np.log(np.array([0.8, 1.2, 0.1])), rng.normal(size=(5, 2)),
                                                      rng.normal(size=5)], (0,)),
    "mixture_log_likelihood": (mixture_log_likelihood, [np.array([-1.0, 0.5, 2.0]), rng.normal(size=7)], (0,)),
    "rnn_loss": (rnn_loss, [0.3 * rng.normal(size=(3, 3)), rng.normal(size=(3, 2)), rng.normal(size=(4, 2))], (0, 1)),
    "euler_decay": (euler_decay, [np.array([0.5, 1.5, 2.0]), np.array([1.0, -0.5, 0.25])], (0, 1)),
    "rosenbrock": (rosenbrock, [_vector()], (0,)),
    "layer_norm": (layer_norm, [rng.normal(size=(3, 4)), rng.normal(size=4)], (0, 1)),
    "attention": (attention, [rng.normal(size=(3, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))], (0, 1, 2)),
    "polynomial_fit_residual": (polynomial_fit_residual, [rng.normal(size=3), np.linspace(-1, 1, 6), rng.normal(size=6)],
                                (0,)),
    "masked_relu_energy": (masked_relu_energy, [np.array([0.3, -0.7, 1.2, 0.45, -1.1, 0.8])], (0,)),
    "reversed_and_strided": (reversed_and_strided, [_vector()], (0,)),
    "fancy_gather_with_repeats": (fancy_gather_with_repeats, [_vector()], (0,)),
    "sorted_and_clipped": (sorted_and_clipped, [np.array([0.3, -0.7, 1.2, 0.45, -1.1, 0.8])], (0,)),
    "kernel_ridge": (kernel_ridge, [rng.normal(size=4), rng.normal(size=(4, 2)), rng.normal(size=4)], (0,)),
    "validated": (validated, [_vector()], (0,)),
    "with_inner_helpers": (with_inner_helpers, [_vector()], (0,)),
    "keyword_only_scale": (keyword_only_scale, [_vector()], (0,)),
    "tuple_params_loop": (tuple_params_loop, [_vector()], (0,)),
    "decorated_energy": (decorated_energy, [_vector()], (0,)),
    "calls_decorated": (calls_decorated, [_vector()], (0,)),
    "scatter_with_repeats": (scatter_with_repeats, [_vector()], (0,)),
    "add_at_histogram": (add_at_histogram, [_vector()], (0,)),
    "write_through_reshape_view": (write_through_reshape_view, [_vector()], (0,)),
    "write_through_transpose_view": (write_through_transpose_view, [_vector()], (0,)),
    "scale_a_slice_view": (scale_a_slice_view, [_vector()], (0,)),
    "augmented_add_seen_by_an_alias": (augmented_add_seen_by_an_alias, [_vector()], (0,)),
    "alias_in_a_list": (alias_in_a_list, [_vector()], (0,)),
    "alias_in_a_dict": (alias_in_a_dict, [_vector()], (0,)),
    "library_writes_a_saved_array": (library_writes_a_saved_array, [_vector()], (0,)),
    "copyto_a_saved_array": (copyto_a_saved_array, [_vector()], (0,)),
    "ufunc_out_into_a_saved_array": (ufunc_out_into_a_saved_array, [_vector()], (0,)),
    "ufunc_out_of_an_active_value": (ufunc_out_of_an_active_value, [_vector()], (0,)),
    "put_into_zeros": (put_into_zeros, [_vector()], (0,)),
    "item_of_an_element": (item_of_an_element, [_vector()], (0,)),
    "python_sum_over_an_array": (python_sum_over_an_array, [_vector()], (0,)),
}

# Differentiated today, and must stay so: a refusal of one of these is a regression. The other
# traps (writes through views and aliases, library functions writing in place) are refused today.
MUST_WORK = {
    "decorated_energy", "calls_decorated", "scatter_with_repeats", "add_at_histogram", "item_of_an_element",
    "python_sum_over_an_array", "ufunc_out_into_a_saved_array", "ufunc_out_of_an_active_value",
    "mlp_loss", "logistic_nll", "gp_neg_log_likelihood", "mixture_log_likelihood", "rnn_loss", "euler_decay",
    "rosenbrock", "layer_norm", "attention", "polynomial_fit_residual", "masked_relu_energy",
    "reversed_and_strided", "fancy_gather_with_repeats", "sorted_and_clipped", "kernel_ridge", "validated",
    "with_inner_helpers", "keyword_only_scale", "tuple_params_loop",
}
