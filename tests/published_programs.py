"""A second corpus of programs in the style of published scientific and ML NumPy code (autograd's
examples, physics integrators, optimisation loops, signal processing, statistics), written the
way their authors write them: helpers with default function arguments and ``*shape``, lambdas
and decorators, dataclasses and namedtuples of parameters, validation with ``raise``, lists and
dicts of arrays, in-place buffer updates, early returns. Nothing here is written for s2sad;
tests/test_published_programs.py differentiates each untouched in every mode and compares with
central finite differences of these very functions."""
import dataclasses
import functools
import math
from collections import namedtuple

import numpy as np
from scipy import linalg as sla
from scipy import special


# ---------------------------------------------------------------- helpers, as papers' code has them
def stable_logsumexp(a, axis=-1, keepdims=False):
    """log(sum(exp(a))) without overflow: shift by the max first."""
    shift = np.max(a, axis=axis, keepdims=True)
    total = np.log(np.sum(np.exp(a - shift), axis=axis, keepdims=True)) + shift
    if keepdims:
        return total
    return np.squeeze(total, axis=axis)


def relu(z):
    return np.maximum(z, 0.0)


def softplus(z):
    return np.logaddexp(0.0, z)


def gaussian_noise(rs, *shape):
    return rs.standard_normal(shape)


def logged(fn):
    """A decorator of the kind people put on their losses: it only forwards the call."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


# ---------------------------------------------------------------- 1: MLP classifier, list of (W, b)
def mlp_logits(params, x, activation=relu):
    *hidden, (W_out, b_out) = params
    for W, b in hidden:
        x = activation(x @ W + b)
    return x @ W_out + b_out


def mlp_cross_entropy(params, x, labels, l2=1e-3):
    logits = mlp_logits(params, x, activation=np.tanh)
    log_probs = logits - stable_logsumexp(logits, axis=1, keepdims=True)
    n = x.shape[0]
    nll = -np.mean(log_probs[np.arange(n), labels])
    penalty = sum(np.sum(W * W) for W, _ in params)
    return nll + l2 * penalty


# ---------------------------------------------------------------- 2: logistic regression with validation
def logistic_nll(w, X, y, prior_var=10.0):
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("labels must be 0 or 1")
    z = X @ w
    signs = 2.0 * y - 1.0
    return np.sum(np.logaddexp(0.0, -signs * z)) + 0.5 * np.dot(w, w) / prior_var


# ---------------------------------------------------------------- 3: GP marginal likelihood, kernel as a default argument
def squared_exponential(xa, xb, lengthscale, variance):
    sq = np.sum(xa ** 2, 1)[:, None] + np.sum(xb ** 2, 1)[None, :] - 2.0 * xa @ xb.T
    return variance * np.exp(-0.5 * sq / lengthscale ** 2)


def gp_negative_log_marginal(log_hypers, x, y, kernel=squared_exponential, jitter=1e-6):
    lengthscale, variance, noise = np.exp(log_hypers)
    K = kernel(x, x, lengthscale, variance) + (noise + jitter) * np.eye(x.shape[0])
    L = np.linalg.cholesky(K)
    alpha = sla.solve_triangular(L.T, sla.solve_triangular(L, y, lower=True), lower=False)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


# ---------------------------------------------------------------- 4: vanilla RNN, dict params, list of outputs
def rnn_sequence_loss(params, sequence, targets):
    h = np.zeros(params["W_hh"].shape[0])
    predictions = []
    for x_t in sequence:
        h = np.tanh(params["W_xh"] @ x_t + params["W_hh"] @ h + params["b_h"])
        predictions.append(params["W_hy"] @ h + params["b_y"])
    predictions = np.stack(predictions)
    return 0.5 * np.sum((predictions - targets) ** 2) / len(sequence)


# ---------------------------------------------------------------- 5: LSTM cell, namedtuple of gate weights
LSTMWeights = namedtuple("LSTMWeights", ["Wi", "Wf", "Wo", "Wg", "bias"])


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_final_state_norm(weights, xs):
    hidden_size = weights.Wi.shape[1]
    h, c = np.zeros(hidden_size), np.zeros(hidden_size)
    for x in xs:
        v = np.concatenate([x, h])
        i = sigmoid(v @ weights.Wi + weights.bias[0])
        f = sigmoid(v @ weights.Wf + weights.bias[1])
        o = sigmoid(v @ weights.Wo + weights.bias[2])
        g = np.tanh(v @ weights.Wg + weights.bias[3])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h ** 2) + 0.1 * np.sum(c)


# ---------------------------------------------------------------- 6: mixture density network, np.split of the head
def mdn_negative_log_likelihood(params, x, y, n_components=3):
    W1, b1, W2, b2 = params["W1"], params["b1"], params["W2"], params["b2"]
    hidden = np.tanh(x @ W1 + b1)
    out = hidden @ W2 + b2
    logit_pi, mu, log_sigma = np.split(out, [n_components, 2 * n_components], axis=1)
    log_pi = logit_pi - stable_logsumexp(logit_pi, axis=1, keepdims=True)
    z = (y[:, None] - mu) / np.exp(log_sigma)
    log_component = -0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    return -np.sum(stable_logsumexp(log_pi + log_component, axis=1))


# ---------------------------------------------------------------- 7: Bayesian linear regression, dataclass prior
@dataclasses.dataclass
class Prior:
    log_alpha: float
    log_beta: float


def blr_log_evidence(prior, X, t):
    alpha, beta = np.exp(prior.log_alpha), np.exp(prior.log_beta)
    n, d = X.shape
    precision = alpha * np.eye(d) + beta * X.T @ X
    chol = np.linalg.cholesky(precision)
    mean = beta * np.linalg.solve(precision, X.T @ t)
    residual = t - X @ mean
    log_det = 2.0 * np.sum(np.log(np.diag(chol)))
    return (0.5 * d * np.log(alpha) + 0.5 * n * np.log(beta) - 0.5 * beta * residual @ residual
            - 0.5 * alpha * mean @ mean - 0.5 * log_det - 0.5 * n * np.log(2 * np.pi))


# ---------------------------------------------------------------- 8: black-box VI, fixed-seed RandomState inside
def log_density_two_moons(z):
    r = np.sqrt(z[:, 0] ** 2 + z[:, 1] ** 2)
    return -0.5 * ((r - 2.0) / 0.4) ** 2 - 0.1 * z[:, 1] ** 2


def bbvi_objective(var_params, n_samples=16, log_density=log_density_two_moons, seed=0):
    D = len(var_params) // 2
    mean, log_std = var_params[:D], var_params[D:]
    rs = np.random.RandomState(seed)
    eps = gaussian_noise(rs, n_samples, D)
    samples = mean + eps * np.exp(log_std)
    entropy = np.sum(log_std) + 0.5 * D * (1.0 + np.log(2 * np.pi))
    return -(entropy + np.mean(log_density(samples)))


# ---------------------------------------------------------------- 9: N-body energy, early return
def nbody_total_energy(positions, velocities, masses, G=1.0, softening=0.1):
    kinetic = 0.5 * np.sum(masses[:, None] * velocities ** 2)
    n = positions.shape[0]
    if n < 2:
        return kinetic
    i, j = np.triu_indices(n, k=1)
    delta = positions[i] - positions[j]
    distance = np.sqrt(np.sum(delta ** 2, axis=1) + softening ** 2)
    potential = -G * np.sum(masses[i] * masses[j] / distance)
    return kinetic + potential


# ---------------------------------------------------------------- 10: pendulum with RK4, lambda right-hand side
def rk4_step(f, y, dt):
    k1 = f(y)
    k2 = f(y + 0.5 * dt * k1)
    k3 = f(y + 0.5 * dt * k2)
    k4 = f(y + dt * k3)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def pendulum_final_angle(params, y0, dt=0.05, steps=20):
    g_over_l, damping = params[0], params[1]
    rhs = lambda s: np.array([s[1], -g_over_l * np.sin(s[0]) - damping * s[1]])
    y = y0
    for _ in range(steps):
        y = rk4_step(rhs, y, dt)
    return y[0] ** 2 + 0.5 * y[1] ** 2


# ---------------------------------------------------------------- 11: heat equation, in-place slice updates of a buffer
def heat_equation_1d(u0, kappa, steps=10):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] += kappa * lap[1:-1]
    return np.sum(u ** 2) + u[len(u) // 2]


# ---------------------------------------------------------------- 12: spring-mass chain, force buffer filled in a loop
def spring_chain_energy(x, k, rest=1.0, dt=0.01, steps=5):
    v = np.zeros_like(x)
    for _ in range(steps):
        force = np.zeros_like(x)
        for i in range(len(x) - 1):
            stretch = x[i + 1] - x[i] - rest
            force[i] += k[i] * stretch
            force[i + 1] -= k[i] * stretch
        v = v + dt * force
        x = x + dt * v
    stretch = np.diff(x) - rest
    return 0.5 * np.sum(k * stretch ** 2) + 0.5 * np.sum(v ** 2)


# ---------------------------------------------------------------- 13: Rosenbrock, written two ways
def rosenbrock(x, a=1.0, b=100.0):
    return np.sum(b * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2)


def rosenbrock_loop(x):
    total = 0.0
    for i in range(len(x) - 1):
        total += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return total


# ---------------------------------------------------------------- 14: Huber regression, branch per sample
def huber(r, delta=1.0):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def huber_regression_loop(w, X, y, delta=0.5):
    total = 0.0
    for xi, yi in zip(X, y):
        total = total + huber(float(yi - xi @ w), delta)
    return total / len(y)


def huber_regression_vectorised(w, X, y, delta=0.5):
    r = y - X @ w
    small = np.abs(r) <= delta
    return np.mean(np.where(small, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta)))


# ---------------------------------------------------------------- 15: softmax cross-entropy with one-hot targets, scipy logsumexp
def softmax_cross_entropy(W, X, one_hot):
    logits = X @ W
    return -np.sum(one_hot * (logits - special.logsumexp(logits, axis=1, keepdims=True))) / X.shape[0]


# ---------------------------------------------------------------- 16: backtracking line search loop calling a loss
def quadratic_loss(w, A, b):
    return 0.5 * w @ A @ w - b @ w + 0.1 * np.sum(w ** 4)


def quadratic_gradient(w, A, b):
    return A @ w - b + 0.4 * w ** 3


def descend_with_line_search(w, A, b, iters=4, shrink=0.5, c=1e-4):
    loss = lambda v: quadratic_loss(v, A, b)
    for _ in range(iters):
        g = quadratic_gradient(w, A, b)
        step = 1.0
        f0 = loss(w)
        while loss(w - step * g) > f0 - c * step * (g @ g):
            step *= shrink
        w = w - step * g
    return loss(w)


# ---------------------------------------------------------------- 17: FIR filter with np.convolve
def fir_filter_mse(taps, signal, target):
    filtered = np.convolve(signal, taps, mode="same")
    return np.mean((filtered - target) ** 2)


# ---------------------------------------------------------------- 18: FFT power spectrum in a band
def band_power_ratio(signal, low=2, high=6):
    spectrum = np.fft.rfft(signal * np.hanning(len(signal)))
    power = np.abs(spectrum) ** 2
    return np.sum(power[low:high]) / np.sum(power)


# ---------------------------------------------------------------- 19: multivariate Gaussian log-likelihood, Cholesky
def mvn_log_likelihood(mean, cov_factor, data):
    d = mean.shape[0]
    cov = cov_factor @ cov_factor.T + 0.5 * np.eye(d)
    L = np.linalg.cholesky(cov)
    centred = (data - mean).T
    solved = np.linalg.solve(L, centred)
    mahalanobis = np.sum(solved ** 2, axis=0)
    log_det = 2 * np.sum(np.log(np.diagonal(L)))
    return np.sum(-0.5 * (mahalanobis + log_det + d * np.log(2 * np.pi)))


# ---------------------------------------------------------------- 20: Gaussian log-likelihood, slogdet with a sign check
def gaussian_nll_slogdet(cov_params, residuals):
    d = residuals.shape[1]
    A = cov_params.reshape(d, d)
    cov = A @ A.T + np.eye(d)
    sign, logdet = np.linalg.slogdet(cov)
    if sign <= 0:
        raise np.linalg.LinAlgError("covariance is not positive definite")
    inv = np.linalg.inv(cov)
    quad = np.einsum("ni,ij,nj->n", residuals, inv, residuals)
    return 0.5 * np.sum(quad) + 0.5 * residuals.shape[0] * logdet


# ---------------------------------------------------------------- 21: kernel density estimate, leave-one-out log-likelihood
def kde_loo_log_likelihood(log_bandwidth, points):
    h = np.exp(log_bandwidth)
    n = points.shape[0]
    diffs = (points[:, None, :] - points[None, :, :]) / h
    log_k = -0.5 * np.sum(diffs ** 2, axis=-1) - points.shape[1] * (log_bandwidth + 0.5 * np.log(2 * np.pi))
    log_k = np.where(np.eye(n, dtype=bool), -np.inf, log_k)
    return np.sum(special.logsumexp(log_k, axis=1) - np.log(n - 1))


# ---------------------------------------------------------------- 22: decorated loss with keyword defaults
@logged
def ridge_objective(w, X, y, lam=0.1):
    residual = X @ w - y
    return residual @ residual / len(y) + lam * np.sum(w ** 2)


# ---------------------------------------------------------------- 23: parameters made with *shape, zeros helper
def init_layer(rs, *shape, scale=0.1):
    return scale * rs.randn(*shape)


def two_layer_with_own_init(x, scale):
    rs = np.random.RandomState(3)
    W1 = init_layer(rs, x.shape[1], 4, scale=scale)
    W2 = init_layer(rs, 4, 1)
    return np.sum(np.tanh(x @ W1) @ W2)


# ---------------------------------------------------------------- 24: early returns for cheap cases
def barrier_or_quadratic(x, t=5.0):
    if np.all(x > 0):
        return -np.sum(np.log(x)) / t + np.sum(x ** 2)
    if np.any(x < -10):
        raise ValueError("far out of the domain")
    return np.sum(x ** 2) + 100.0 * np.sum(np.minimum(x, 0.0) ** 2)


# ---------------------------------------------------------------- 25: unrolled optimisation on a dict of parameters
def unrolled_linear_fit(params, X, y, lr=0.1, steps=3):
    params = dict(params)
    for _ in range(steps):
        pred = X @ params["w"] + params["b"]
        err = pred - y
        grads = {"w": X.T @ err / len(y), "b": np.mean(err)}
        params = {k: params[k] - lr * grads[k] for k in params}
    return np.mean((X @ params["w"] + params["b"] - y) ** 2)


# ---------------------------------------------------------------- 26: activation as a lambda default argument
def gated_features(x, W, act=lambda z: z * sigmoid(z)):
    return np.sum(act(x @ W) ** 2)


# ---------------------------------------------------------------- 27: image smoothing with shifted slices
def smoothness_penalty(image, weight):
    dx = image[:, 1:] - image[:, :-1]
    dy = image[1:, :] - image[:-1, :]
    blurred = image.copy()
    blurred[1:-1, 1:-1] = 0.25 * (image[:-2, 1:-1] + image[2:, 1:-1] + image[1:-1, :-2] + image[1:-1, 2:])
    return weight * (np.sum(dx ** 2) + np.sum(dy ** 2)) + np.sum((blurred - image) ** 2)


# ---------------------------------------------------------------- 28: closed-form ridge, validation error
def ridge_validation_error(log_lam, X_train, y_train, X_val, y_val):
    lam = np.exp(log_lam)
    d = X_train.shape[1]
    w = np.linalg.solve(X_train.T @ X_train + lam * np.eye(d), X_train.T @ y_train)
    return np.mean((X_val @ w - y_val) ** 2)


# ---------------------------------------------------------------- 29: PCA reconstruction through eigh
def pca_reconstruction_error(X, k=2):
    centred = X - X.mean(axis=0)
    cov = centred.T @ centred / (X.shape[0] - 1)
    eigenvalues, eigenvectors = np.linalg.eigh(cov)
    top = eigenvectors[:, -k:]
    reconstructed = centred @ top @ top.T
    return np.sum((centred - reconstructed) ** 2) + np.sum(eigenvalues[-k:])


# ---------------------------------------------------------------- 30: Poisson regression with expit-gated rates
def zero_inflated_poisson_nll(w, X, counts):
    eta = X @ w
    rate = np.exp(eta[:, 0])
    zero_prob = special.expit(eta[:, 1])
    is_zero = counts == 0
    ll_zero = np.log(zero_prob + (1 - zero_prob) * np.exp(-rate))
    ll_count = np.log1p(-zero_prob) + counts * np.log(rate) - rate - special.gammaln(counts + 1)
    return -np.sum(np.where(is_zero, ll_zero, ll_count))


# ---------------------------------------------------------------- 31: Welford running statistics, scalar accumulators
def welford_coefficient_of_variation(samples):
    count, mean, m2 = 0, 0.0, 0.0
    for value in samples:
        count += 1
        delta = value - mean
        mean += delta / count
        m2 += delta * (value - mean)
    variance = m2 / (count - 1)
    return np.sqrt(variance) / mean


# ---------------------------------------------------------------- 32: masked attention
def masked_self_attention(x, Wq, Wk, Wv, causal=True):
    q, k, v = x @ Wq, x @ Wk, x @ Wv
    scores = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        mask = np.tril(np.ones(scores.shape, dtype=bool))
        scores = np.where(mask, scores, -1e9)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.sum((weights @ v) ** 2)


# ---------------------------------------------------------------- 33: velocity Verlet, trajectory kept in a list
def verlet_trajectory_action(q0, p0, dt=0.1, steps=8, force=lambda q: -q - 0.1 * q ** 3):
    q, p = q0, p0
    trajectory = [q0]
    a = force(q)
    for _ in range(steps):
        q = q + dt * p + 0.5 * dt ** 2 * a
        a_new = force(q)
        p = p + 0.5 * dt * (a + a_new)
        a = a_new
        trajectory.append(q)
    path = np.array(trajectory)
    return np.sum(np.diff(path, axis=0) ** 2) / dt


# ---------------------------------------------------------------- 34: planar normalising flow, list of dicts
def planar_flow_log_density(flows, z):
    log_det = np.zeros(z.shape[0])
    for layer in flows:
        u, w, b = layer["u"], layer["w"], layer["b"]
        activation = np.tanh(z @ w + b)
        psi = (1 - activation ** 2)[:, None] * w
        log_det = log_det + np.log(np.abs(1 + psi @ u))
        z = z + activation[:, None] * u
    base = -0.5 * np.sum(z ** 2, axis=1) - z.shape[1] * 0.5 * np.log(2 * np.pi)
    return np.mean(base + log_det)


# ---------------------------------------------------------------- 35: cross-validation folds with boolean masks
def kfold_ridge_score(log_lam, X, y, n_folds=3):
    lam = np.exp(log_lam)
    folds = np.arange(len(y)) % n_folds
    total = 0.0
    for fold in range(n_folds):
        train, test = folds != fold, folds == fold
        Xt, yt = X[train], y[train]
        w = np.linalg.solve(Xt.T @ Xt + lam * np.eye(X.shape[1]), Xt.T @ yt)
        total = total + np.mean((X[test] @ w - y[test]) ** 2)
    return total / n_folds


# ---------------------------------------------------------------- 36: a linear SVM as a callable class
class LinearSVM:
    def __init__(self, C=1.0):
        self.C = C

    def __call__(self, w, X, y):
        margins = y * (X @ w[:-1] + w[-1])
        return 0.5 * np.dot(w[:-1], w[:-1]) + self.C * np.sum(softplus(10 * (1 - margins)) / 10)


def svm_objective(w, X, y):
    return LinearSVM(C=0.5)(w, X, y)


# ---------------------------------------------------------------- 37: Lennard-Jones with a pair loop and continue
def lj_cluster_energy(positions, epsilon=1.0, sigma=1.0, cutoff=3.0):
    energy = 0.0
    n = len(positions)
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(positions[i] - positions[j])
            if r > cutoff:
                continue
            sr6 = (sigma / r) ** 6
            energy += 4 * epsilon * (sr6 ** 2 - sr6)
    return energy


# ---------------------------------------------------------------- 38: ODE parameters as a namedtuple, forward Euler with a history dict
SIRParams = namedtuple("SIRParams", "beta gamma")


def sir_peak_infected(params, s0=0.99, i0=0.01, dt=0.5, steps=20):
    s, i = s0, i0
    history = {"s": [], "i": []}
    for _ in range(steps):
        new_inf = params.beta * s * i
        s, i = s - dt * new_inf, i + dt * (new_inf - params.gamma * i)
        history["s"].append(s)
        history["i"].append(i)
    infected = np.array(history["i"])
    return np.sum(infected ** 2) + history["s"][-1]


# ---------------------------------------------------------------- 39: projectile with drag, Python floats and math
def projectile_range(speed, angle, drag=0.05, dt=0.01, gravity=9.81):
    """Horizontal distance when the projectile comes back to the ground (forward Euler on floats)."""
    if speed <= 0.0:
        raise ValueError("speed must be positive")
    x, y = 0.0, 0.0
    vx, vy = speed * math.cos(angle), speed * math.sin(angle)
    while True:
        v = math.sqrt(vx * vx + vy * vy)
        vx, vy = vx - dt * drag * v * vx, vy - dt * (gravity + drag * v * vy)
        x, y = x + dt * vx, y + dt * vy
        if y < 0.0:
            return x - y * vx / vy  # back to y = 0 along the last step


# ---------------------------------------------------------------- 40: Kepler's equation by Newton, early return on convergence
def kepler_position(mean_anomaly, eccentricity, tol=1e-13, max_iter=50):
    E = mean_anomaly if eccentricity < 0.8 else np.pi
    for _ in range(max_iter):
        step = (E - eccentricity * np.sin(E) - mean_anomaly) / (1 - eccentricity * np.cos(E))
        E = E - step
        if abs(step) < tol:
            return np.cos(E) - eccentricity, np.sqrt(1 - eccentricity ** 2) * np.sin(E)
    raise RuntimeError("Kepler's equation did not converge")


def orbit_radius(mean_anomaly, eccentricity):
    x, y = kepler_position(mean_anomaly, eccentricity)
    return np.hypot(x, y)


# ---------------------------------------------------------------- 41: periodic heat equation, spectral derivative with the FFT
def spectral_diffusion(u0, nu, dt=0.01, steps=5):
    n = u0.shape[0]
    k = 2 * np.pi * np.fft.fftfreq(n, d=1.0 / n)
    u = u0
    for _ in range(steps):
        u_hat = np.fft.fft(u)
        u = np.real(np.fft.ifft(u_hat * np.exp(-nu * k ** 2 * dt)))
    return np.sum(u ** 4)


# ---------------------------------------------------------------- 42: padded stencil, np.pad with edge values and np.roll
def padded_stencil_energy(u, alpha):
    padded = np.pad(u, 1, mode="edge")
    lap = padded[2:] - 2 * padded[1:-1] + padded[:-2]
    periodic = np.roll(u, 1) - u
    return np.sum(lap ** 2) + alpha * np.sum(periodic ** 2)


# ---------------------------------------------------------------- 43: ReLU through a boolean mask written in place
def masked_relu_network(W, x):
    h = x @ W
    h[h < 0] = 0.0
    out = h.copy()
    out *= 2.0
    return np.sum(out ** 2) + np.sum(np.clip(h, 0.1, 1.0))


# ---------------------------------------------------------------- 44: Student-t likelihood, degrees of freedom learned
def student_t_nll(log_nu, log_scale, residuals):
    nu, scale = np.exp(log_nu), np.exp(log_scale)
    z = residuals / scale
    log_pdf = (special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - log_scale
               - (nu + 1) / 2 * np.log1p(z ** 2 / nu))
    return -np.sum(log_pdf)


# ---------------------------------------------------------------- 45: polynomial fit through np.vander and lstsq
def polynomial_fit_residual(x, y, degree=2):
    V = np.vander(x, degree + 1)
    coeffs, *_ = np.linalg.lstsq(V, y, rcond=None)
    return np.sum((np.polyval(coeffs, x) - y) ** 2) + np.sum(coeffs ** 2)


# ---------------------------------------------------------------- 46: a model as a dataclass with a property and a staticmethod
@dataclasses.dataclass
class SoftmaxPolicy:
    logits: np.ndarray
    temperature: float = 1.0

    @property
    def probabilities(self):
        return self.softmax(self.logits / self.temperature)

    @staticmethod
    def softmax(z):
        e = np.exp(z - np.max(z))
        return e / e.sum()


def policy_objective(policy, rewards):
    probs = policy.probabilities
    entropy = -np.sum(probs * np.log(probs))
    return probs @ rewards + 0.1 * entropy


# ---------------------------------------------------------------- 47: activations looked up by name, star-unpacked layers
ACTIVATIONS = {"tanh": np.tanh, "softplus": softplus, "identity": lambda z: z}


def configurable_net(layers, x, names=("softplus", "tanh", "identity")):
    first, *rest = layers
    h = ACTIVATIONS[names[0]](x @ first)
    for name, W in zip(names[1:], rest):
        h = ACTIVATIONS[name](h @ W)
    return np.mean(h ** 2)


# ---------------------------------------------------------------- 48: trapezoid rule over a grid, integrated density normalised
def normalised_density_nll(params, samples, grid=np.linspace(-4, 4, 81)):
    a, b, c = params
    log_unnorm = lambda t: -a * t ** 2 + b * t - c * t ** 4
    dx = grid[1] - grid[0]
    vals = np.exp(log_unnorm(grid))
    Z = dx * (np.sum(vals) - 0.5 * (vals[0] + vals[-1]))
    return -np.mean(log_unnorm(samples)) + np.log(Z)


# ---------------------------------------------------------------- 49: Generator draws inside, default_rng
def dropout_regression(w, X, y, rate=0.3):
    rng = np.random.default_rng(7)
    keep = rng.random(X.shape) > rate
    Xd = np.where(keep, X / (1 - rate), 0.0)
    noise = rng.normal(0.0, 0.1, size=y.shape)
    return np.mean((Xd @ w - y + noise) ** 2)


# ---------------------------------------------------------------- 50: a recursive tree of parameters
def tree_energy(node, x):
    if isinstance(node, dict):
        return sum(tree_energy(child, x) for child in node.values())
    return np.sum(np.sin(node * x))


# ---------------------------------------------------------------- 51: power iteration with a tolerance and a break
def top_eigenvalue(A_factor, iters=200, tol=1e-12, verbose=False):
    A = A_factor @ A_factor.T
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    eigenvalue = 0.0
    for it in range(iters):
        w = A @ v
        new_eigenvalue = v @ w
        v = w / np.linalg.norm(w)
        if abs(new_eigenvalue - eigenvalue) < tol:
            if verbose:
                print(f"converged after {it} iterations")
            break
        eigenvalue = new_eigenvalue
    return v @ A @ v


# ---------------------------------------------------------------- 52: Gauss-Seidel sweeps on a 2-D grid, in place on a copy
def poisson_gauss_seidel(source, boundary_scale, sweeps=3):
    n = source.shape[0]
    u = np.zeros((n, n))
    u[0, :] = boundary_scale
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - source[i, j])
    return np.sum(u ** 2)


# ---------------------------------------------------------------- 53: Cholesky with a jitter fallback in try/except
def robust_gaussian_logdet(X, noise):
    K = X @ X.T + noise * np.eye(X.shape[0])
    try:
        L = np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 1e-6 * np.eye(X.shape[0]))
    return 2 * np.sum(np.log(np.diag(L))) + np.trace(K)


# ---------------------------------------------------------------- 54: keyword-only arguments and **kwargs forwarded
def penalised(w, *, l1=0.0, l2=0.0):
    return l1 * np.sum(np.sqrt(w ** 2 + 1e-8)) + l2 * np.sum(w ** 2)


def elastic_net(w, X, y, **penalty):
    residual = y - X @ w
    return 0.5 * np.mean(residual ** 2) + penalised(w, **penalty)


def elastic_net_objective(w, X, y):
    return elastic_net(w, X, y, l1=0.1, l2=0.05)


# ---------------------------------------------------------------- 55: mini-batches from a generator, sum with start
def batches(X, y, size):
    for start in range(0, len(y), size):
        yield X[start:start + size], y[start:start + size]


def batched_squared_loss(w, X, y, size=3):
    return sum((np.sum((xb @ w - yb) ** 2) for xb, yb in batches(X, y, size)), 0.0) / len(y)


# ---------------------------------------------------------------- 56: quantile (pinball) loss with np.sort and drawdown with maximum.accumulate
def sorted_quantile_risk(returns, alpha=0.2):
    ordered = np.sort(returns)
    k = int(alpha * len(returns))
    tail = ordered[:k + 1]
    wealth = np.cumsum(returns)
    drawdown = np.maximum.accumulate(wealth) - wealth
    return -np.mean(tail) + np.max(drawdown)


# ---------------------------------------------------------------- 57: dict of parameters updated in place on a copy
def momentum_sgd_final_loss(params, X, y, lr=0.05, beta=0.9, steps=3):
    params = {k: np.array(v, copy=True) for k, v in params.items()}
    velocity = {k: np.zeros_like(v) for k, v in params.items()}
    for _ in range(steps):
        err = X @ params["w"] + params["b"] - y
        grads = {"w": X.T @ err / len(y), "b": np.mean(err)}
        for k in params:
            velocity[k] = beta * velocity[k] + grads[k]
            params[k] -= lr * velocity[k]
    return np.mean((X @ params["w"] + params["b"] - y) ** 2)


# ---------------------------------------------------------------- 58: histogram-style scatter with np.add.at
def soft_histogram_entropy(samples, centres, width=0.5):
    counts = np.zeros(len(centres))
    nearest = np.argmin(np.abs(samples[:, None] - centres[None, :]), axis=1)
    weights = np.exp(-0.5 * ((samples - centres[nearest]) / width) ** 2)
    np.add.at(counts, nearest, weights)
    p = (counts + 1e-3) / np.sum(counts + 1e-3)
    return -np.sum(p * np.log(p))
