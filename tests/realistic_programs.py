"""A corpus of programs written the way published scientific and ML NumPy code is written:
lists of ``(W, b)`` tuples, helpers with default function arguments, ``*shape``, closures and
lambdas as objectives, classes and dataclasses, validation with ``raise`` and ``assert``,
in-place updates, ODE integrators as Python loops. Nothing here is written for s2sad;
tests/test_realistic_programs.py differentiates each untouched and compares with central
finite differences."""
import dataclasses
import functools
import math
import warnings
from collections import namedtuple

import numpy as np
from scipy import special
from scipy.integrate import odeint


# ---------------------------------------------------------------- helpers shared by the models
def logsumexp(a, axis=None, keepdims=False):
    amax = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - amax), axis=axis, keepdims=True)) + amax
    return out if keepdims else np.squeeze(out, axis=axis)


def sigmoid(x):
    return 0.5 * (np.tanh(x / 2.0) + 1.0)


def init_random_params(scale, layer_sizes, rs=None):
    rs = rs if rs is not None else np.random.RandomState(0)
    return [(scale * rs.randn(m, n), scale * rs.randn(n)) for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]


# ---------------------------------------------------------------- 1-3: neural networks
def neural_net_predict(params, inputs, nonlinearity=np.tanh):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = nonlinearity(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def mlp_log_posterior(params, inputs, targets, l2_reg=0.01):
    log_prior = -l2_reg * sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in params)
    log_lik = np.sum(neural_net_predict(params, inputs) * targets)
    return -(log_prior + log_lik)


def rnn_predict(params, inputs):
    hidden = np.repeat(params["init_hidden"], inputs.shape[1], axis=0)
    outputs = []
    for x in inputs:
        hidden = np.tanh(np.concatenate((x, hidden), axis=1) @ params["change"])
        outputs.append(hidden @ params["predict"])
    return outputs


def rnn_loss(params, inputs, targets):
    logprobs = [out - logsumexp(out, axis=1, keepdims=True) for out in rnn_predict(params, inputs)]
    return -sum(np.sum(lp * t) for lp, t in zip(logprobs, targets)) / inputs.shape[0]


def lstm_loss(params, inputs):
    hidden = np.zeros((inputs.shape[1], params["forget"].shape[1]))
    cells = hidden
    for x in inputs:
        joined = np.concatenate((x, hidden), axis=1)
        forget = sigmoid(joined @ params["forget"])
        ingate = sigmoid(joined @ params["ingate"])
        change = np.tanh(joined @ params["change"])
        outgate = sigmoid(joined @ params["outgate"])
        cells = cells * forget + ingate * change
        hidden = outgate * np.tanh(cells)
    return np.sum(hidden ** 2)


# ---------------------------------------------------------------- 4-7: probabilistic models
def gmm_log_likelihood(params, data):
    cluster_lls = []
    for log_proportion, mean, log_std in zip(params["log_proportions"], params["means"], params["log_stds"]):
        z = (data - mean) / np.exp(log_std)
        cluster_lls.append(log_proportion - 0.5 * np.sum(z ** 2 + 2 * log_std + np.log(2 * np.pi), axis=1))
    return np.sum(logsumexp(np.vstack(cluster_lls), axis=0)) - data.shape[0] * logsumexp(params["log_proportions"])


def rbf_covariance(kernel_params, x, xp):
    output_scale = np.exp(kernel_params[0])
    lengthscales = np.exp(kernel_params[1:])
    diffs = np.expand_dims(x / lengthscales, 1) - np.expand_dims(xp / lengthscales, 0)
    return output_scale * np.exp(-0.5 * np.sum(diffs ** 2, axis=2))


def gp_log_marginal_likelihood(params, x, y, cov_func=rbf_covariance):
    noise_scale, mean = np.exp(params[0]) + 1e-4, params[1]
    cov_y = cov_func(params[2:], x, x) + noise_scale * np.eye(len(y))
    chol = np.linalg.cholesky(cov_y)
    alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, y - mean))
    return -0.5 * np.dot(y - mean, alpha) - np.sum(np.log(np.diag(chol))) - 0.5 * len(y) * np.log(2 * np.pi)


def bayesian_linear_regression_evidence(log_alpha, log_beta, X, t):
    alpha, beta = np.exp(log_alpha), np.exp(log_beta)
    n, d = X.shape
    A = alpha * np.eye(d) + beta * X.T @ X
    m = beta * np.linalg.solve(A, X.T @ t)
    fit = beta / 2 * np.sum((t - X @ m) ** 2) + alpha / 2 * np.dot(m, m)
    sign, logdet = np.linalg.slogdet(A)
    return d / 2 * np.log(alpha) + n / 2 * np.log(beta) - fit - 0.5 * logdet - n / 2 * np.log(2 * np.pi)


def black_box_elbo(variational_params, noise, log_density):
    mean, log_std = variational_params[:2], variational_params[2:]
    samples = noise * np.exp(log_std) + mean
    entropy = np.sum(log_std) + 0.5 * len(mean) * (1.0 + np.log(2 * np.pi))
    return entropy + np.mean(log_density(samples))


def banana_log_density(x):
    mu, log_sigma = x[:, 0], x[:, 1]
    sigma_density = -0.5 * (log_sigma / 1.35) ** 2
    mu_density = -0.5 * (mu / np.exp(log_sigma)) ** 2 - log_sigma
    return sigma_density + mu_density


# ---------------------------------------------------------------- 8-11: regression and classification
def logistic_regression_loss(weights, inputs, targets, l2=0.1):
    if inputs.shape[0] != targets.shape[0]:
        raise ValueError(f"{inputs.shape[0]} inputs but {targets.shape[0]} targets")
    preds = sigmoid(inputs @ weights)
    label_probabilities = preds * targets + (1 - preds) * (1 - targets)
    return -np.sum(np.log(label_probabilities)) + l2 * np.dot(weights, weights)


def huber_regression(w, X, y, delta=1.0):
    residual = X @ w - y
    small = np.abs(residual) <= delta
    loss = np.where(small, 0.5 * residual ** 2, delta * (np.abs(residual) - 0.5 * delta))
    if delta > 10.0:
        return np.mean(residual ** 2)
    return np.mean(loss)


def poisson_glm_nll(beta, X, counts):
    log_rate = X @ beta
    return np.sum(np.exp(log_rate) - counts * log_rate + special.gammaln(counts + 1))


def softmax_regression(params, X, labels):
    logits = X @ params["W"] + params["b"]
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(len(labels)), labels])


# ---------------------------------------------------------------- 12-16: ODEs and simulation
def euler_decay(k, y0, dt=0.01, steps=100):
    y = y0
    for _ in range(steps):
        y = y - dt * k * y
    return np.sum(y)


def lotka_volterra(state, t, theta):
    prey, predator = state[0], state[1]
    alpha, beta, delta, gamma = theta
    return np.array([alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator])


def rk4(f, y0, t0, t1, steps, *args):
    h = (t1 - t0) / steps
    y, t = y0, t0
    for _ in range(steps):
        k1 = f(y, t, *args)
        k2 = f(y + h / 2 * k1, t + h / 2, *args)
        k3 = f(y + h / 2 * k2, t + h / 2, *args)
        k4 = f(y + h * k3, t + h, *args)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = t + h
    return y


def lotka_volterra_final_prey(theta, y0):
    return rk4(lotka_volterra, y0, 0.0, 2.0, 40, theta)[0]


def leapfrog_energy_drift(q0, p0, step=0.1, n_steps=30):
    grad_potential = lambda q: q + 0.1 * q ** 3  # noqa: E731
    q, p = q0, p0
    p = p - 0.5 * step * grad_potential(q)
    for _ in range(n_steps - 1):
        q = q + step * p
        p = p - step * grad_potential(q)
    q = q + step * p
    p = p - 0.5 * step * grad_potential(q)
    return np.sum(0.5 * p ** 2 + 0.5 * q ** 2 + 0.025 * q ** 4)


def heat_equation(u0, kappa, steps=20):
    u = u0.copy()
    for _ in range(steps):
        laplacian = np.zeros_like(u)
        laplacian[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
        u[1:-1] = u[1:-1] + kappa * laplacian[1:-1]
    return np.sum(u ** 2)


def relax_in_place(u, source, sweeps=5):
    """Gauss-Seidel on the caller's grid, which is left relaxed as the plain code leaves it."""
    n = u.shape[0]
    for _ in range(sweeps):
        for i in range(1, n - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1]) + 0.25 * source[i]
    return np.sum(u * source)


def nbody_potential(positions, masses):
    energy = 0.0
    n = positions.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            r = np.sqrt(np.sum((positions[i] - positions[j]) ** 2) + 0.01)
            energy = energy - masses[i] * masses[j] / r
    return energy


def damped_spring(k, x0, v0, steps=50):
    x, v = x0, v0
    with np.errstate(over="raise"):
        for _ in range(steps):
            a = -k * x - 0.1 * v
            v = v + 0.01 * a
            x = x + 0.01 * v
    return np.sum(x ** 2)


# ---------------------------------------------------------------- 17-22: attention, convolution, normalisation
def attention(Q, K, V):
    d = Q.shape[-1]
    scores = Q @ K.T / math.sqrt(d)
    weights = np.exp(scores - np.max(scores, axis=-1, keepdims=True))
    weights = weights / np.sum(weights, axis=-1, keepdims=True)
    return np.sum((weights @ V) ** 2)


def conv1d_valid(signal, kernel):
    n, k = signal.shape[0], kernel.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        out[i] = np.sum(signal[i:i + k] * kernel)
    return np.sum(np.tanh(out))


def layer_norm_residual(x, gamma, beta, W, eps=1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    normed = (x - mean) / np.sqrt(var + eps) * gamma + beta
    return np.sum((x + np.tanh(normed @ W)) ** 2)


def batchnorm_mlp(W, x, momentum_stats=None):
    h = x @ W
    mu = h.mean(axis=0)
    sigma = h.std(axis=0) + 1e-3
    return np.sum(np.maximum((h - mu) / sigma, 0.0) ** 2)


def tied_autoencoder(W, x):
    code = np.tanh(x @ W)
    reconstruction = code @ W.T
    return np.mean((reconstruction - x) ** 2)


def sinkhorn_cost(log_a, cost, n_iters=20, reg=0.5):
    a = np.exp(log_a) / np.sum(np.exp(log_a))
    b = np.ones(cost.shape[1]) / cost.shape[1]
    K = np.exp(-cost / reg)
    u = np.ones_like(a)
    for _ in range(n_iters):
        v = b / (K.T @ u)
        u = a / (K @ v)
    plan = u[:, None] * K * v[None, :]
    return np.sum(plan * cost)


# ---------------------------------------------------------------- 23-27: objects, partials, validation
@dataclasses.dataclass
class FactorModel:
    users: np.ndarray
    items: np.ndarray
    l2: float = 0.05

    def loss(self, ratings, mask):
        assert ratings.shape == mask.shape, "ratings and mask differ in shape"
        predicted = self.users @ self.items.T
        return np.sum(mask * (predicted - ratings) ** 2) + self.l2 * (np.sum(self.users ** 2) + np.sum(self.items ** 2))


def matrix_factorization(users, items, ratings, mask):
    return FactorModel(users, items).loss(ratings, mask)


class Regressor:
    def __init__(self, X, y, activation=np.tanh):
        self.X = X
        self.y = y
        self.activation = activation

    def loss(self, w):
        return np.mean((self.activation(self.X @ w) - self.y) ** 2)


Layer = namedtuple("Layer", "W b")


def namedtuple_network(layers, x):
    for layer in layers:
        x = np.tanh(x @ layer.W + layer.b)
    return np.sum(x ** 2)


def weighted_loss(w, X, y, weights=None, loss_fn=None):
    if loss_fn is None:
        loss_fn = lambda r: r ** 2  # noqa: E731
    residuals = X @ w - y
    if weights is not None:
        residuals = residuals * np.sqrt(weights)
    return np.sum(loss_fn(residuals))


def mixture_density_nll(params, x, y, n_components=3):
    hidden = np.tanh(x @ params[0][0] + params[0][1])
    raw = hidden @ params[1][0] + params[1][1]
    logits, means, log_stds = raw[:, :n_components], raw[:, n_components:2 * n_components], raw[:, 2 * n_components:]
    log_weights = logits - logsumexp(logits, axis=1, keepdims=True)
    z = (y[:, None] - means) / np.exp(log_stds)
    log_components = -0.5 * z ** 2 - log_stds - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(log_weights + log_components, axis=1))


# ---------------------------------------------------------------- 28-32: finance, kalman, pooling, generators
def black_scholes_call(spot, strike, rate, vol, maturity):
    d1 = (np.log(spot / strike) + (rate + 0.5 * vol ** 2) * maturity) / (vol * np.sqrt(maturity))
    d2 = d1 - vol * np.sqrt(maturity)
    return np.sum(spot * special.ndtr(d1) - strike * np.exp(-rate * maturity) * special.ndtr(d2))


def kalman_log_likelihood(log_q, log_r, observations):
    q, r = np.exp(log_q), np.exp(log_r)
    mean, var = 0.0, 1.0
    total = 0.0
    for y in observations:
        var = var + q
        innovation_var = var + r
        total = total - 0.5 * (np.log(2 * np.pi * innovation_var) + (y - mean) ** 2 / innovation_var)
        gain = var / innovation_var
        mean = mean + gain * (y - mean)
        var = (1 - gain) * var
    return total


def batches(X, y, batch_size):
    for start in range(0, X.shape[0], batch_size):
        yield X[start:start + batch_size], y[start:start + batch_size]


def minibatch_objective(w, X, y, batch_size=4):
    total = 0.0
    for xb, yb in batches(X, y, batch_size):
        total = total + np.sum((xb @ w - yb) ** 2) / xb.shape[0]
    return total


def noisy_features(x, scale, rs=None):
    rs = rs if rs is not None else np.random.RandomState(1)
    noise = rs.randn(*x.shape)
    return np.sum(np.sin(x + scale * noise) ** 2)


def quiet_log_barrier(x, lower=0.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        barrier = -np.sum(np.log(x - lower))
    return barrier + np.sum(x ** 2)


def sir_model(state, t, beta, gamma):
    s, i, r = state
    return np.array([-beta * s * i, beta * s * i - gamma * i, gamma * i])


def sir_fit_loss(log_params, observed_infected, times):
    beta, gamma = np.exp(log_params)
    trajectory = odeint(sir_model, np.array([0.99, 0.01, 0.0]), times, args=(beta, gamma), rtol=1e-10, atol=1e-10)
    return np.sum((trajectory[:, 1] - observed_infected) ** 2)


# ---------------------------------------------------------------- 37-63: more of the same, some still refused
# (tests/test_realistic_programs.py lists which are refused today, and why)
def relu(x):
    return np.maximum(x, 0.0)


def softplus(x):
    return np.logaddexp(0.0, x)


ACTIVATIONS = {"tanh": np.tanh, "relu": relu, "softplus": softplus}


def activation_table_mlp(params, x, activation="softplus"):
    act = ACTIVATIONS[activation]
    for W, b in params[:-1]:
        x = act(x @ W + b)
    W, b = params[-1]
    return np.sum((x @ W + b) ** 2)


def layer_shapes(sizes):
    return list(zip(sizes[:-1], sizes[1:]))


def unpack_layers(flat, sizes):
    offset = 0
    for m, n in layer_shapes(sizes):
        W = flat[offset:offset + m * n].reshape(m, n)
        offset += m * n
        b = flat[offset:offset + n]
        offset += n
        yield W, b


def flat_parameter_net(flat, x, sizes=(3, 4, 2)):
    for W, b in unpack_layers(flat, sizes):
        x = np.tanh(x @ W + b)
    return np.sum(x ** 2)


def unzip_pairs_loss(pairs, scale):
    xs, ys = zip(*pairs)
    xs, ys = np.stack(xs), np.stack(ys)
    return np.sum((scale * xs - ys) ** 2)


def ones_like_shape_prior(w, prior_scale):
    prior_mean = np.ones(*w.shape)
    return np.sum((w - prior_mean) ** 2) / prior_scale ** 2 + np.sum(np.sin(w))


def reparameterised_elbo(mean, log_std, noise, targets):
    if mean.shape != log_std.shape:
        raise ValueError("mean and log_std must have the same shape")
    samples = mean + np.exp(log_std) * noise
    log_lik = -0.5 * np.mean(np.sum((samples @ np.ones((mean.shape[0], targets.shape[0])) - targets) ** 2, axis=1))
    kl = 0.5 * np.sum(np.exp(2 * log_std) + mean ** 2 - 1.0 - 2 * log_std)
    return log_lik - kl


def unrolled_sgd_validation(log_lr, w0, X_train, y_train, X_val, y_val, steps=10):
    lr = np.exp(log_lr)
    w = w0
    for _ in range(steps):
        residual = X_train @ w - y_train
        w = w - lr * X_train.T @ residual / X_train.shape[0]
    return np.mean((X_val @ w - y_val) ** 2)


def sgd_dict_inner_loop(params, X, y, lr=0.1, steps=5):
    """The inner loop of a meta-learning step: a JAX-style update of a dict of parameters."""
    for _ in range(steps):
        residual = X @ params["w"] + params["b"] - y
        grads = {"w": X.T @ residual / len(y), "b": np.mean(residual)}
        params = {k: params[k] - lr * grads[k] for k in params}
    return np.sum((X @ params["w"] + params["b"] - y) ** 2)


def convolve_smoothness(signal, kernel):
    smoothed = np.convolve(signal, kernel, mode="valid")
    return np.sum(np.diff(smoothed) ** 2) + 0.1 * np.sum(smoothed ** 2)


def conv2d_loops(image, kernel):
    H, W = image.shape
    kh, kw = kernel.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    return np.sum(relu(out) ** 2)


def wave_equation(u0, c, steps=15):
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        u_next = u.copy()
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c ** 2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return np.sum(u ** 2)


def pendulum_energy_error(theta0, omega0, dt=0.05, steps=40):
    theta, omega = theta0, omega0
    for _ in range(steps):
        omega = omega - dt * np.sin(theta)
        theta = theta + dt * omega
    return np.sum(0.5 * omega ** 2 - np.cos(theta))


def safe_log_likelihood(p, counts):
    with np.errstate(divide="ignore"):
        logp = np.log(p)
    return np.sum(counts * logp)


def robust_mean_loss(theta, data):
    try:
        residual = data - theta
    except ValueError:
        residual = data.T - theta
    return np.sum(np.log1p(residual ** 2))


def ridge_with_asserts(w, X, y, alpha=0.5):
    assert X.ndim == 2, "X must be a matrix"
    assert X.shape[1] == w.shape[0]
    return np.sum((X @ w - y) ** 2) + alpha * np.sum(w ** 2)


def composed_transforms(x, scale):
    transforms = [np.sin, lambda v: v * scale, np.tanh]
    for transform in transforms:
        x = transform(x)
    return np.sum(x ** 2)


def reduce_products(matrices, v):
    product = functools.reduce(lambda a, b: a @ b, matrices)
    return np.sum(np.tanh(product @ v))


class Gaussian:
    def __init__(self, mean, log_std):
        self.mean = mean
        self.log_std = log_std

    def log_prob(self, x):
        z = (x - self.mean) / np.exp(self.log_std)
        return np.sum(-0.5 * z ** 2 - self.log_std - 0.5 * np.log(2 * np.pi))


def class_built_inside(mean, log_std, data):
    return Gaussian(mean, log_std).log_prob(data)


def ridge_forwarding_kwargs(w, X, y, **kwargs):
    return ridge_with_asserts(w, X, y, **kwargs)


def nested_closure_loss(w, X, y):
    def predict(inputs):
        return np.tanh(inputs @ w)

    def loss(pred):
        return np.mean((pred - y) ** 2)
    return loss(predict(X))


def bivariate_normal_correlation(rho, x):
    one_minus = 1 - rho ** 2
    return np.sum(-0.5 * np.log(one_minus) - (rho ** 2 * (x[:, 0] ** 2 + x[:, 1] ** 2) - 2 * rho * x[:, 0] * x[:, 1]) / (2 * one_minus))


def local_class_regression(w, X, y):
    class Linear:
        def __init__(self, weights):
            self.weights = weights

        def __call__(self, inputs):
            return inputs @ self.weights

    model = Linear(w)
    return np.mean((model(X) - y) ** 2)


def local_dataclass_state(q, p, steps=10, dt=0.1):
    @dataclasses.dataclass
    class State:
        q: np.ndarray
        p: np.ndarray

    state = State(q, p)
    for _ in range(steps):
        state = State(state.q + dt * state.p, state.p - dt * np.sin(state.q))
    return np.sum(state.q ** 2 + state.p ** 2)


def split_heads(x, n_heads):
    return x.reshape(x.shape[0], n_heads, -1).transpose(1, 0, 2)


def multi_head_attention(x, Wq, Wk, Wv, n_heads=2):
    q, k, v = (split_heads(x @ W, n_heads) for W in (Wq, Wk, Wv))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = (weights @ v).transpose(1, 0, 2)
    return np.sum(out.reshape(out.shape[0], *out.shape[2:]) ** 2) if n_heads == 1 else np.sum(out.reshape(x.shape[0], -1) ** 2)


def gru_loss(params, inputs):
    Wz, Wr, Wh = params
    h = np.zeros((inputs.shape[1], Wz.shape[1]))
    for x in inputs:
        xh = np.concatenate([x, h], axis=1)
        z = 1.0 / (1.0 + np.exp(-xh @ Wz))
        r = 1.0 / (1.0 + np.exp(-xh @ Wr))
        candidate = np.tanh(np.concatenate([x, r * h], axis=1) @ Wh)
        h = (1 - z) * h + z * candidate
    return np.sum(h ** 2)


def call_with_star_args(f, *args):
    return f(*args)


def star_args_forwarding(w, X, y):
    return call_with_star_args(lambda a, b, c: np.sum((b @ a - c) ** 2), w, X, y)


def sorted_penalties(w):
    penalties = sorted([np.sum(w ** 2), np.sum(np.abs(w)), np.sum(np.sin(w))])
    return penalties[0] + 2 * penalties[-1]


def lennard_jones(positions, epsilon=1.0, sigma=1.0):
    n = positions.shape[0]
    energy = 0.0
    for i in range(n):
        diffs = positions[i + 1:] - positions[i]
        r2 = np.sum(diffs ** 2, axis=1)
        s6 = (sigma ** 2 / r2) ** 3
        energy += np.sum(4 * epsilon * (s6 ** 2 - s6))
    return energy


def finite_check_loss(w, X):
    out = np.tanh(X @ w)
    if not np.all(np.isfinite(out)):
        raise FloatingPointError("non-finite activations")
    return np.sum(out ** 2)


def multiplexed_channel_gains(gains, samples, n_channels=3):
    """Samples from a time-multiplexed sensor: channel c holds every n_channels-th sample, starting at c."""
    response = samples
    channel = 0
    for _ in range(n_channels):
        response = np.tanh(response * gains[channel::n_channels])
        channel = (channel + 1) % n_channels
    return np.sum(response ** 2)


# ---------------------------------------------------------------- loops and scalars, as scientists write them
def rk4_oscillator_energy(omega, x0, v0, dt=0.05, steps=40):
    """A harmonic oscillator stepped by classical RK4 on Python floats, its energy summed with +=."""
    x, v = x0, v0
    energy = 0.0
    for _ in range(steps):
        k1x, k1v = v, -omega ** 2 * x
        k2x, k2v = v + 0.5 * dt * k1v, -omega ** 2 * (x + 0.5 * dt * k1x)
        k3x, k3v = v + 0.5 * dt * k2v, -omega ** 2 * (x + 0.5 * dt * k2x)
        k4x, k4v = v + dt * k3v, -omega ** 2 * (x + dt * k3x)
        x += dt / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v += dt / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
        energy += 0.5 * v * v + 0.5 * omega ** 2 * x * x
    return energy * dt


def euler_logistic_growth(rate, capacity, n0, dt=0.1, steps=50):
    """Forward Euler on dN/dt = r N (1 - N / K), the area under the curve summed as it goes."""
    n = n0
    area = 0.0
    for _ in range(steps):
        n += dt * rate * n * (1.0 - n / capacity)
        area += n * dt
    return area


def damped_spring_scalar(k, c, x0, dt=0.02, steps=100):
    """A damped spring on floats (semi-implicit Euler), the work done by damping taken away as it goes."""
    x, v = x0, 0.0
    lost = 0.0
    for _ in range(steps):
        force = -k * x - c * v
        v += force * dt
        x += v * dt
        lost -= c * v * v * dt
    return 0.5 * k * x * x + 0.5 * v * v - lost


def newton_cube_root(a, x0=1.0, tol=1e-12, max_iter=50):
    """Newton's iteration for the cube root of a, stopping as soon as the step is small."""
    x = x0
    for _ in range(max_iter):
        step = (x ** 3 - a) / (3.0 * x ** 2)
        x = x - step
        if abs(step) < tol:
            return x
    return x


def horner_polynomial(coefficients, x):
    """The polynomial with these coefficients (highest power first) at x, by Horner's rule."""
    result = 0.0
    for c in coefficients:
        result = result * x + c
    return result


def logistic_map_average(r, x0, steps=30):
    """The orbit's average of the logistic map x -> r x (1 - x)."""
    x = x0
    total = 0.0
    for _ in range(steps):
        x = r * x * (1.0 - x)
        total += x
    return total / steps


def welford_variance(data, shift):
    """Welford's running mean and variance of data + shift, as a streaming statistic is written."""
    count = 0
    mean = 0.0
    m2 = 0.0
    for value in data:
        value = value + shift
        count += 1
        delta = value - mean
        mean += delta / count
        m2 += delta * (value - mean)
    return m2 / (count - 1) + mean ** 2


def projectile_range_with_drag(speed, angle, drag, dt=0.01, steps=200):
    """A projectile with quadratic drag: velocity as (speed, heading) through math.hypot and math.atan2."""
    x, y = 0.0, 0.0
    vx, vy = speed * math.cos(angle), speed * math.sin(angle)
    for _ in range(steps):
        v = math.hypot(vx, vy)
        heading = math.atan2(vy, vx)
        vx -= drag * v * v * math.cos(heading) * dt
        vy -= (9.81 + drag * v * v * math.sin(heading)) * dt
        x += vx * dt
        y += vy * dt
    return x + 0.1 * y


def wrapped_pendulum_phase(theta0, omega, damping, dt=0.1, steps=60):
    """A driven rotor's angle kept in [0, 2 pi) with math.fmod, read through its cosine."""
    theta = theta0
    signal = 0.0
    for i in range(steps):
        theta = math.fmod(theta + omega * dt, 2.0 * math.pi)
        omega *= 1.0 - damping * dt
        signal += math.cos(theta) * math.exp(-0.01 * i)
    return signal


def clipped_gradient_descent(w0, target, lr=0.3, steps=25):
    """Gradient descent on (w - target)^4 with each step clipped to [-0.5, 0.5] by min and max."""
    w = w0
    for _ in range(steps):
        g = 4.0 * (w - target) ** 3
        step = max(-0.5, min(0.5, lr * g))
        w -= step
    return w * w


def discounted_cash_flow(rate, growth, first_payment, years=20):
    """The present value of payments growing each year, discounted at rate, by a loop with *= and +=."""
    value = 0.0
    payment = first_payment
    discount = 1.0
    for _ in range(years):
        discount /= 1.0 + rate
        value += payment * discount
        payment *= 1.0 + growth
    return value


def trapezoid_gaussian_integral(width, centre, a=-3.0, b=3.0, n=60):
    """The trapezoid rule on a Gaussian bump, written with an accumulator and math.exp."""
    h = (b - a) / n
    total = 0.5 * (math.exp(-((a - centre) / width) ** 2) + math.exp(-((b - centre) / width) ** 2))
    for i in range(1, n):
        t = a + i * h
        total += math.exp(-((t - centre) / width) ** 2)
    return total * h


def soft_threshold_path(x, threshold, steps=12):
    """Iterative soft thresholding of a scalar, the shrinkage written with max() of two floats."""
    z = x
    penalty = 0.0
    for _ in range(steps):
        z = math.copysign(max(abs(z) - threshold, 0.0), z) + 0.1 * x
        penalty += abs(z)
    return z * z + 0.05 * penalty


def array_recurrence_with_accumulators(weights, signal):
    """An exponential moving average over an array signal, its squared error summed with += into a 0-d value."""
    ema = np.zeros_like(weights)
    loss = 0.0
    for t in range(signal.shape[0]):
        ema = 0.8 * ema + 0.2 * weights * signal[t]
        loss += np.sum((ema - signal[t]) ** 2)
    return loss


# ---------------------------------------------------------------- deep learning, as ML users write it in NumPy
def gru_sequence_states(params, inputs):
    """A GRU run over a sequence, each hidden state appended to a list and the list concatenated at the end."""
    Wz, Wr, Wh = params
    h = np.zeros((inputs.shape[1], Wz.shape[1]))
    states = []
    for x in inputs:
        xh = np.concatenate([x, h], axis=1)
        z = sigmoid(xh @ Wz)
        r = sigmoid(xh @ Wr)
        h = (1 - z) * h + z * np.tanh(np.concatenate([x, r * h], axis=1) @ Wh)
        states.append(h)
    all_states = np.concatenate(states, axis=0)
    return np.mean(all_states ** 2)


def lstm_step(weights, x, h, c):
    W, b = weights
    gates = np.hstack([x, h]) @ W + b
    n = h.shape[1]
    i, f, o = sigmoid(gates[:, :n]), sigmoid(gates[:, n:2 * n]), sigmoid(gates[:, 2 * n:3 * n])
    g = np.tanh(gates[:, 3 * n:])
    c = f * c + i * g
    return o * np.tanh(c), c


def lstm_tuple_state_loss(weights, inputs, targets):
    """An LSTM cell stepped in a loop, its state (h, c) a tuple returned by the step function."""
    batch, n = inputs.shape[1], weights[0].shape[1] // 4
    h, c = np.zeros((batch, n)), np.zeros((batch, n))
    loss = 0.0
    for t in range(inputs.shape[0]):
        h, c = lstm_step(weights, inputs[t], h, c)
        loss = loss + np.sum((h - targets[t]) ** 2)
    return loss / inputs.shape[0]


def conv2d_by_slicing(images, kernels):
    """A valid 2-d convolution of a multi-channel image, written as a sum over kernel offsets of shifted
    slices weighted per channel and summed over the channels, then a ReLU and a mean."""
    channels, kh, kw = kernels.shape
    oh, ow = images.shape[1] - kh + 1, images.shape[2] - kw + 1
    feature_map = np.zeros((oh, ow))
    for di in range(kh):
        for dj in range(kw):
            window = images[:, di:di + oh, dj:dj + ow]
            feature_map += np.sum(kernels[:, di, dj][:, None, None] * window, axis=0)
    return np.mean(np.maximum(feature_map, 0.0) ** 2)


def softmax_cross_entropy(W, b, X, onehot):
    """Softmax cross-entropy over a batch with one-hot labels, the log-softmax stabilised by the row max."""
    logits = X @ W + b
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(onehot * log_probs, axis=1))


def relu_mlp_mse(params, X, y, weight_decay=1e-3):
    """An MLP on a list of (W, b) tuples: ReLU hidden layers, a linear last layer, squared error plus weight decay."""
    h = X
    for W, b in params[:-1]:
        h = np.maximum(h @ W + b, 0.0)
    W_out, b_out = params[-1]
    prediction = h @ W_out + b_out
    decay = sum(np.sum(W ** 2) for W, _ in params)
    return np.mean((prediction - y) ** 2) + weight_decay * decay


def batched_attention(q, k, v):
    """Scaled dot-product attention over a batch with 3-d @ and a transpose of the last two axes."""
    scores = q @ np.transpose(k, (0, 2, 1)) / np.sqrt(q.shape[-1])
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    weights = np.exp(scores) / np.sum(np.exp(scores), axis=-1, keepdims=True)
    return np.sum((weights @ v) ** 2)


def squeezed_regression_head(W, X, y):
    """A linear head giving an (n, 1) column, squeezed to (n,) with an axis before the loss."""
    column = np.tanh(X @ W)
    prediction = np.squeeze(column, axis=1)
    return np.sum((prediction - y) ** 2)


def l1_regularised_logistic(w, X, labels, lam=0.1):
    """Logistic regression with an L1 penalty written with the builtin abs on the weight vector."""
    margins = labels * (X @ w)
    return np.mean(np.log1p(np.exp(-margins))) + lam * np.sum(abs(w))


def rnn_states_stacked(Wx, Wh, inputs):
    """A vanilla RNN whose hidden states are collected in a list and stacked into one array."""
    h = np.zeros(Wh.shape[0])
    states = []
    for x in inputs:
        h = np.tanh(x @ Wx + h @ Wh)
        states.append(h)
    return np.sum(np.stack(states) ** 2)
