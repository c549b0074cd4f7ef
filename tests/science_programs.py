"""A third corpus of programs as scientists and ML engineers publish them, in the families the
earlier corpora cover little: ODE integrators and stencils, Newton and fixed-point iterations,
splines and quadrature; likelihoods, mixtures, Kalman filters, Gaussian processes, EM and MCMC;
the code structure people write (validated classes, properties, class and static methods,
dataclasses with factories, decorators, closures, partials, lambdas in dicts, recursion); and
signal and image processing with convolutions, FFTs, windows and padding. Nothing here is
written for s2sad: tests/test_science_programs.py differentiates each untouched in every mode
against central finite differences of these very functions."""
import dataclasses
import functools
import math
from collections import namedtuple

import numpy as np
from scipy import linalg as sla
from scipy import signal, special

# ---------------------------------------------------------------- module-level constants and config
LOG_2PI = np.log(2.0 * np.pi)
GRAVITY = 9.81
SOLVER_CONFIG = {"steps": 6, "dt": 0.05, "method": "rk4"}
ACTS = {"relu": lambda z: np.maximum(z, 0.0), "tanh": np.tanh, "softplus": lambda z: np.logaddexp(0.0, z)}


# ================================================================ 1. scientific computing
def logistic_growth_euler(r, K, y0=0.1, dt=0.1, steps=20):
    """Forward Euler on dy/dt = r y (1 - y / K); returns the final population."""
    y = y0
    for _ in range(steps):
        y = y + dt * r * y * (1.0 - y / K)
    return y


def lotka_volterra_rhs(state, params):
    prey, predator = state
    a, b, c, d = params
    return (a * prey - b * prey * predator, d * prey * predator - c * predator)


def rk4_step(rhs, state, params, dt):
    k1 = rhs(state, params)
    k2 = rhs(tuple(s + 0.5 * dt * k for s, k in zip(state, k1)), params)
    k3 = rhs(tuple(s + 0.5 * dt * k for s, k in zip(state, k2)), params)
    k4 = rhs(tuple(s + dt * k for s, k in zip(state, k3)), params)
    return tuple(s + dt / 6.0 * (q1 + 2 * q2 + 2 * q3 + q4) for s, q1, q2, q3, q4 in zip(state, k1, k2, k3, k4))


def lotka_volterra_final(params, state0, dt=0.05, steps=8):
    state = tuple(state0)
    for _ in range(steps):
        state = rk4_step(lotka_volterra_rhs, state, params, dt)
    prey, predator = state
    return prey * predator + prey


def leapfrog_oscillator_energy(q0, p0, omega, dt=0.1, steps=10):
    """Kick-drift-kick leapfrog for a harmonic oscillator with the state as a (q, p) tuple."""
    state = (q0, p0)
    for _ in range(steps):
        q, p = state
        p_half = p - 0.5 * dt * omega ** 2 * q
        q_new = q + dt * p_half
        p_new = p_half - 0.5 * dt * omega ** 2 * q_new
        state = (q_new, p_new)
    q, p = state
    return np.sum(0.5 * p ** 2 + 0.5 * omega ** 2 * q ** 2) + np.sum(q * p)


def anharmonic_force(x, k, alpha):
    return -k * x - alpha * x ** 3


def velocity_verlet(x, v, k, alpha, force=anharmonic_force, dt=0.05, steps=12):
    a = force(x, k, alpha)
    for _ in range(steps):
        x = x + v * dt + 0.5 * a * dt ** 2
        a_new = force(x, k, alpha)
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return np.sum(x ** 2) + np.sum(v)


def gravitational_accelerations(positions, masses, softening=0.1):
    diff = positions[None, :, :] - positions[:, None, :]
    dist2 = np.sum(diff ** 2, axis=-1) + softening ** 2
    inv_r3 = dist2 ** -1.5
    np.fill_diagonal(inv_r3, 0.0)
    return np.sum(diff * (inv_r3 * masses[None, :])[:, :, None], axis=1)


def nbody_euler_kinetic(positions, velocities, masses, dt=0.02, steps=4):
    for _ in range(steps):
        acc = gravitational_accelerations(positions, masses)
        velocities = velocities + dt * acc
        positions = positions + dt * velocities
    return 0.5 * np.sum(masses[:, None] * velocities ** 2) + np.sum(positions[0])


def pairwise_coulomb_energy(positions, charges):
    n = positions.shape[0]
    i, j = np.triu_indices(n, k=1)
    r = np.linalg.norm(positions[i] - positions[j], axis=1)
    return np.sum(charges[i] * charges[j] / r)


def heat_equation_explicit(u0, alpha, steps=5):
    """FTCS stencil, fixed ends: the interior is updated in place on a copy."""
    u = u0.copy()
    for _ in range(steps):
        lap = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u[1:-1] = u[1:-1] + alpha * lap
    return np.sum(u ** 2)


def heat_equation_2d_padded(u0, kappa, steps=3):
    u = u0
    for _ in range(steps):
        p = np.pad(u, 1, mode="edge")
        lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4.0 * u
        u = u + kappa * lap
    return np.sum(u * u0)


def wave_equation_leapfrog(u0, c, steps=6, dx=0.5, dt=0.1):
    prev = u0.copy()
    cur = u0.copy()
    r2 = (c * dt / dx) ** 2
    for _ in range(steps):
        nxt = np.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + r2 * (cur[2:] - 2 * cur[1:-1] + cur[:-2])
        prev, cur = cur, nxt
    return np.sum(cur ** 2)


def newton_sqrt(a, tol=1e-12, max_iter=50):
    x = a if a > 1 else 1.0
    for _ in range(max_iter):
        x_new = 0.5 * (x + a / x)
        if abs(x_new - x) < tol:
            x = x_new
            break
        x = x_new
    return x


def newton_sqrt_objective(a):
    return newton_sqrt(a) * a


def fixed_point_cosine(a, x0=0.5, tol=1e-10):
    """Solve x = cos(a x) by iteration until the step falls below tol."""
    x = x0
    while True:
        x_next = np.cos(a * x)
        if np.abs(x_next - x) < tol:
            return x_next
        x = x_next


def implicit_euler_newton(y0, lam, dt=0.2, steps=4):
    """Backward Euler for y' = -lam y^3: each step solves z - y + dt lam z^3 = 0 by Newton."""
    y = y0
    for _ in range(steps):
        z = y
        for _ in range(20):
            residual = z - y + dt * lam * z ** 3
            slope = 1.0 + 3.0 * dt * lam * z ** 2
            step = residual / slope
            z = z - step
            if np.max(np.abs(step)) < 1e-13:
                break
        y = z
    return np.sum(y)


def horner(coeffs, x):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def horner_loss(coeffs, x):
    return np.sum(horner(coeffs, x) ** 2)


def polyval_fit_loss(coeffs, x, y):
    return np.mean((np.polyval(coeffs, x) - y) ** 2)


def clenshaw_chebyshev(coeffs, x):
    """Sum of c_k T_k(x) by Clenshaw's recurrence, run backwards over the coefficients."""
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for c in coeffs[:0:-1]:
        b1, b2 = 2.0 * x * b1 - b2 + c, b1
    return np.sum((x * b1 - b2 + coeffs[0]) ** 2)


def linear_spline(knots_x, knots_y, x):
    idx = np.searchsorted(knots_x, x) - 1
    idx = np.clip(idx, 0, len(knots_x) - 2)
    x0, x1 = knots_x[idx], knots_x[idx + 1]
    t = (x - x0) / (x1 - x0)
    return (1 - t) * knots_y[idx] + t * knots_y[idx + 1]


def linear_spline_loss(knots_y, x, target):
    knots_x = np.linspace(0.0, 1.0, len(knots_y))
    return np.sum((linear_spline(knots_x, knots_y, x) - target) ** 2)


def hermite_spline_energy(values, slopes, x):
    knots = np.arange(len(values), dtype=float)
    k = np.clip(np.searchsorted(knots, x, side="right") - 1, 0, len(knots) - 2)
    t = x - knots[k]
    h00 = 2 * t ** 3 - 3 * t ** 2 + 1
    h10 = t ** 3 - 2 * t ** 2 + t
    h01 = -2 * t ** 3 + 3 * t ** 2
    h11 = t ** 3 - t ** 2
    y = h00 * values[k] + h10 * slopes[k] + h01 * values[k + 1] + h11 * slopes[k + 1]
    return np.sum(y ** 2)


def interp_loss(fp, x):
    xp = np.linspace(-1.0, 1.0, len(fp))
    return np.sum(np.interp(x, xp, fp) ** 2)


def trapezoid_moment(theta, n=41):
    t = np.linspace(0.0, 2.0, n)
    density = np.exp(-theta[0] * t) * np.cos(theta[1] * t)
    return np.trapezoid(t * density, t) / np.trapezoid(density, t)


def simpson(f_values, h):
    return h / 3.0 * (f_values[0] + 4.0 * np.sum(f_values[1:-1:2]) + 2.0 * np.sum(f_values[2:-1:2]) + f_values[-1])


def simpson_integral(a, b, n=20):
    x = np.linspace(0.0, 1.0, n + 1)
    return simpson(np.exp(-a * x ** 2) * np.sin(b * x), 1.0 / n)


def gauss_legendre_expectation(mu, log_sigma, degree=8):
    nodes, weights = np.polynomial.legendre.leggauss(degree)
    x = 3.0 * nodes
    sigma = np.exp(log_sigma)
    pdf = np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))
    return np.sum(3.0 * weights * np.tanh(x) * pdf)


def cumulative_trapezoid_final(rate, dt=0.1):
    increments = 0.5 * dt * (rate[1:] + rate[:-1])
    path = np.concatenate([[0.0], np.cumsum(increments)])
    return np.sum(np.exp(-path))


def jacobi_solve(A, b, tol=1e-10, max_iter=200):
    D = np.diag(A)
    R = A - np.diag(D)
    x = np.zeros_like(b)
    for _ in range(max_iter):
        x_new = (b - R @ x) / D
        if np.linalg.norm(x_new - x, ord=np.inf) < tol:
            return x_new
        x = x_new
    return x


def jacobi_objective(A, b):
    return np.sum(jacobi_solve(A, b) ** 2)


def midpoint_while_time(k, y0, t_end=1.0, dt=0.15):
    """Explicit midpoint rule until t reaches t_end, the last step shortened to land on it."""
    t, y = 0.0, y0
    while t < t_end:
        h = min(dt, t_end - t)
        y_mid = y + 0.5 * h * (-k * y)
        y = y + h * (-k * y_mid)
        t += h
    return np.sum(y)


def projectile_with_drag(v0, angle, drag, dt=0.02, steps=30):
    pos = np.zeros(2)
    vel = v0 * np.array([np.cos(angle), np.sin(angle)])
    for _ in range(steps):
        speed = np.sqrt(vel @ vel)
        acc = -drag * speed * vel - np.array([0.0, GRAVITY])
        vel = vel + dt * acc
        pos = pos + dt * vel
    return pos[0] + pos[1]


# ================================================================ 2. statistics
def gaussian_log_likelihood(mu, log_sigma, x):
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    return -0.5 * np.sum(z ** 2) - x.size * (log_sigma + 0.5 * LOG_2PI)


def student_t_log_likelihood(loc, log_scale, log_nu, x):
    scale, nu = np.exp(log_scale), np.exp(log_nu)
    z = (x - loc) / scale
    const = special.gammaln(0.5 * (nu + 1)) - special.gammaln(0.5 * nu) - 0.5 * np.log(nu * np.pi) - log_scale
    return np.sum(const - 0.5 * (nu + 1) * np.log1p(z ** 2 / nu))


def poisson_regression_nll(beta, X, counts):
    eta = X @ beta
    return -np.sum(counts * eta - np.exp(eta) - special.gammaln(counts + 1))


def negative_binomial_nll(log_mu, log_r, counts):
    mu, r = np.exp(log_mu), np.exp(log_r)
    ll = (special.gammaln(counts + r) - special.gammaln(r) - special.gammaln(counts + 1)
          + r * np.log(r / (r + mu)) + counts * np.log(mu / (r + mu)))
    return -np.sum(ll)


def gmm_log_likelihood(logits, means, log_sds, x):
    log_w = logits - special.logsumexp(logits)
    sds = np.exp(log_sds)
    comp = (-0.5 * ((x[:, None] - means[None, :]) / sds) ** 2 - log_sds - 0.5 * LOG_2PI)
    return np.sum(special.logsumexp(comp + log_w, axis=1))


def logsumexp_rows(a):
    m = np.max(a, axis=1, keepdims=True)
    return (m + np.log(np.sum(np.exp(a - m), axis=1, keepdims=True)))[:, 0]


def gmm_2d_own_logsumexp(means, log_var, weights_raw, x):
    w = np.exp(weights_raw) / np.sum(np.exp(weights_raw))
    var = np.exp(log_var)
    sq = np.sum((x[:, None, :] - means[None, :, :]) ** 2, axis=2)
    log_comp = np.log(w) - sq / (2 * var) - x.shape[1] * 0.5 * np.log(2 * np.pi * var)
    return -np.mean(logsumexp_rows(log_comp))


def gmm_em_step_then_likelihood(means, x, sd=0.8, weights=(0.4, 0.6)):
    """One EM step for the means of a 1-D two-component mixture, then the new log likelihood."""
    w = np.asarray(weights)
    log_p = np.log(w) - 0.5 * ((x[:, None] - means) / sd) ** 2
    resp = np.exp(log_p - special.logsumexp(log_p, axis=1, keepdims=True))
    new_means = (resp * x[:, None]).sum(axis=0) / resp.sum(axis=0)
    new_log_p = np.log(w) - 0.5 * ((x[:, None] - new_means) / sd) ** 2 - np.log(sd) - 0.5 * LOG_2PI
    return np.sum(special.logsumexp(new_log_p, axis=1))


def kalman_filter_log_likelihood(q, r, observations, F=None, H=None):
    """A constant-velocity Kalman filter: predict, update, and the innovations' log likelihood."""
    F = np.array([[1.0, 1.0], [0.0, 1.0]]) if F is None else F
    H = np.array([[1.0, 0.0]]) if H is None else H
    Q = q * np.eye(2)
    R = np.array([[r]])
    m = np.zeros(2)
    P = np.eye(2)
    loglik = 0.0
    for y in observations:
        m = F @ m
        P = F @ P @ F.T + Q
        v = y - H @ m
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        m = m + K @ v
        P = P - K @ S @ K.T
        loglik = loglik - 0.5 * (np.log(2 * np.pi * S[0, 0]) + v[0] ** 2 / S[0, 0])
    return loglik


def scalar_kalman_smoother_mean(a, q, r, ys):
    m, P = 0.0, 1.0
    means = []
    for y in ys:
        m, P = a * m, a * a * P + q
        gain = P / (P + r)
        m = m + gain * (y - m)
        P = (1 - gain) * P
        means.append(m)
    return np.sum(np.array(means) ** 2)


def rbf_kernel(X1, X2, length, variance):
    sq = np.sum(X1 ** 2, 1)[:, None] + np.sum(X2 ** 2, 1)[None, :] - 2 * X1 @ X2.T
    return variance * np.exp(-0.5 * sq / length ** 2)


def gp_nlml_cholesky(log_params, X, y):
    length, variance, noise = np.exp(log_params)
    K = rbf_kernel(X, X, length, variance) + noise * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = sla.solve_triangular(L.T, sla.solve_triangular(L, y, lower=True), lower=False)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * LOG_2PI


def gp_nlml_solve(log_params, X, y):
    length, variance, noise = np.exp(log_params)
    K = rbf_kernel(X, X, length, variance) + noise * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


def gp_predictive_mean(log_length, X, y, X_star):
    length = np.exp(log_length)
    K = rbf_kernel(X, X, length, 1.0) + 0.1 * np.eye(X.shape[0])
    c, low = sla.cho_factor(K, lower=True)
    alpha = sla.cho_solve((c, low), y)
    return np.sum(rbf_kernel(X_star, X, length, 1.0) @ alpha)


def kde_log_density(log_bandwidth, samples, points):
    h = np.exp(log_bandwidth)
    d = (points[:, None] - samples[None, :]) / h
    log_k = -0.5 * d ** 2 - 0.5 * LOG_2PI - log_bandwidth
    return np.sum(special.logsumexp(log_k, axis=1) - np.log(len(samples)))


def metropolis_mean(step, target_mu, n_steps=25, seed=3):
    """Random-walk Metropolis with a fixed RandomState: the chain's mean is a function of the
    step size and the target through the accepted proposals."""
    rs = np.random.RandomState(seed)
    log_p = lambda z: -0.5 * (z - target_mu) ** 2
    x = 0.0
    total = 0.0
    for _ in range(n_steps):
        proposal = x + step * rs.randn()
        if np.log(rs.rand()) < log_p(proposal) - log_p(x):
            x = proposal
        total = total + x
    return total / n_steps


def importance_sampled_evidence(mu, log_sd, seed=7, n=40):
    rs = np.random.RandomState(seed)
    sd = np.exp(log_sd)
    z = mu + sd * rs.randn(n)
    log_q = -0.5 * ((z - mu) / sd) ** 2 - log_sd
    log_target = -0.5 * z ** 2 - 0.25 * z ** 4
    return special.logsumexp(log_target - log_q) - np.log(n)


def logistic_nll_logaddexp(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * 1e-2 * w @ w


def softmax_regression_take_along(W, X, labels):
    logits = X @ W
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(np.take_along_axis(log_probs, labels[:, None], axis=1))


def beta_binomial_nll(log_a, log_b, successes, trials):
    a, b = np.exp(log_a), np.exp(log_b)
    return -np.sum(special.betaln(successes + a, trials - successes + b) - special.betaln(a, b))


def ar2_conditional_nll(phi, log_sigma, series):
    sigma2 = np.exp(2 * log_sigma)
    nll = 0.0
    for t in range(2, len(series)):
        pred = phi[0] * series[t - 1] + phi[1] * series[t - 2]
        nll += 0.5 * (series[t] - pred) ** 2 / sigma2 + log_sigma
    return nll


def bayesian_linreg_evidence(log_alpha, log_beta, X, y):
    alpha, beta = np.exp(log_alpha), np.exp(log_beta)
    n, d = X.shape
    A = alpha * np.eye(d) + beta * X.T @ X
    m = beta * np.linalg.solve(A, X.T @ y)
    _, logdet_A = np.linalg.slogdet(A)
    E = 0.5 * beta * np.sum((y - X @ m) ** 2) + 0.5 * alpha * m @ m
    return 0.5 * d * log_alpha + 0.5 * n * log_beta - E - 0.5 * logdet_A - 0.5 * n * LOG_2PI


def hierarchical_normal_nll(params, groups):
    mu, log_tau = params["mu"], params["log_tau"]
    theta = params["theta"]
    tau = np.exp(log_tau)
    nll = 0.5 * np.sum(((theta - mu) / tau) ** 2) + len(theta) * log_tau
    for j, obs in enumerate(groups):
        nll = nll + 0.5 * np.sum((obs - theta[j]) ** 2)
    return nll


def pinball_quantile_loss(w, X, y, quantiles=(0.1, 0.5, 0.9)):
    total = 0.0
    for k, q in enumerate(quantiles):
        resid = y - X @ w[:, k]
        total += np.mean(np.where(resid >= 0, q * resid, (q - 1) * resid))
    return total


def weighted_lstsq_residual(log_weights, X, y):
    w = np.exp(0.5 * log_weights)
    coef, *_ = np.linalg.lstsq(X * w[:, None], y * w, rcond=None)
    return np.sum((X @ coef - y) ** 2)


# ================================================================ 3. code structure users write
class GaussianModel:
    """A model that checks its arguments in __init__ and derives a property from them."""

    def __init__(self, mean, variance):
        if np.any(np.asarray(variance) <= 0):
            raise ValueError("variance must be positive")
        self.mean = mean
        self.variance = variance

    @property
    def precision(self):
        return 1.0 / self.variance

    @classmethod
    def from_log_variance(cls, mean, log_variance):
        return cls(mean, np.exp(log_variance))

    @staticmethod
    def squared(z):
        return z * z

    def nll(self, x):
        return 0.5 * np.sum(self.precision * self.squared(x - self.mean)) + 0.5 * x.shape[0] * np.sum(np.log(self.variance))


def validated_model_nll(mean, log_variance, x):
    model = GaussianModel.from_log_variance(mean, log_variance)
    return model.nll(x)


@dataclasses.dataclass
class MLP:
    layers: list = dataclasses.field(default_factory=list)
    options: dict = dataclasses.field(default_factory=lambda: {"activation": "tanh"})

    def add(self, W, b):
        self.layers.append((W, b))
        return self

    def __call__(self, x):
        act = ACTS[self.options["activation"]]
        for W, b in self.layers[:-1]:
            x = act(x @ W + b)
        W, b = self.layers[-1]
        return x @ W + b


def dataclass_factory_mlp_loss(W1, b1, W2, x):
    net = MLP().add(W1, b1).add(W2, np.zeros(W2.shape[1]))
    return np.mean(net(x) ** 2)


def dense_layer(x, W, act=np.tanh):
    return act(x @ W)


def default_function_argument_net(W1, W2, x):
    h = dense_layer(x, W1)
    return np.sum(dense_layer(h, W2, act=np.sin) ** 2)


def scaled_by(factor):
    """A decorator factory: the loss is multiplied by factor."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return factor * fn(*args, **kwargs)
        return wrapper
    return decorate


@scaled_by(0.5)
def decorated_squared_error(w, X, y):
    return np.sum((X @ w - y) ** 2)


def init_weights(rs, *shape, scale=0.1):
    return scale * rs.standard_normal(shape)


def star_shape_forwarding(x, scale):
    rs = np.random.RandomState(11)
    W = init_weights(rs, x.shape[1], 3, scale=scale)
    return np.sum(np.tanh(x @ W) ** 2)


def penalty(w, l1=0.0, l2=0.0):
    return l1 * np.sum(np.abs(w)) + l2 * np.sum(w ** 2)


def kwargs_forwarding_objective(w, X, y, **penalty_options):
    return np.mean((X @ w - y) ** 2) + penalty(w, **penalty_options)


def kwargs_forwarding_caller(w, X, y):
    return kwargs_forwarding_objective(w, X, y, l1=0.01, l2=0.1)


def make_loss(X, y, reg=0.1):
    def loss(w):
        return np.mean((X @ w - y) ** 2) + reg * np.sum(w ** 2)
    return loss


def closure_from_factory(w, X, y):
    loss = make_loss(X, y)
    return loss(w) + loss(2 * w)


def minibatches(X, y, size):
    for start in range(0, len(y), size):
        yield X[start:start + size], y[start:start + size]


def generator_sum_loss(w, X, y):
    return sum(np.sum((xb @ w - yb) ** 2) for xb, yb in minibatches(X, y, 3))


def smooth_abs(x, eps):
    return np.sqrt(x * x + eps)


def partial_helper_loss(w, X):
    robust = functools.partial(smooth_abs, eps=1e-2)
    return np.sum(robust(X @ w))


def lambda_dict_activation_net(W, x, config={"act": "softplus", "depth": 2}):
    act = ACTS[config["act"]]
    for _ in range(config["depth"]):
        x = act(x @ W)
    return np.sum(x)


def config_dict_solver(k, y0):
    dt = SOLVER_CONFIG["dt"]
    y = y0
    for _ in range(SOLVER_CONFIG["steps"]):
        y = y + dt * (-k * y + np.sin(y))
    return np.sum(y ** 2)


def horner_recursive(coeffs, x):
    if len(coeffs) == 1:
        return coeffs[0] * np.ones_like(x)
    return coeffs[0] + x * horner_recursive(coeffs[1:], x)


def recursive_polynomial_loss(coeffs, x):
    return np.sum(horner_recursive(coeffs, x) ** 2)


def evaluate_tree(node, x):
    """An expression tree of nested tuples: ("add", l, r), ("mul", l, r), ("sin", c), ("x",), ("w", i)."""
    op = node[0]
    if op == "x":
        return x
    if op == "add":
        return evaluate_tree(node[1], x) + evaluate_tree(node[2], x)
    if op == "mul":
        return evaluate_tree(node[1], x) * evaluate_tree(node[2], x)
    if op == "sin":
        return np.sin(evaluate_tree(node[1], x))
    raise ValueError(f"unknown op {op}")


EXPRESSION = ("add", ("mul", ("x",), ("sin", ("x",))), ("sin", ("mul", ("x",), ("x",))))


def recursive_tree_expression(x):
    return np.sum(evaluate_tree(EXPRESSION, x))


def pairwise_sum(values):
    """Divide-and-conquer summation, recursive on slices."""
    if len(values) <= 2:
        return np.sum(values)
    mid = len(values) // 2
    return pairwise_sum(values[:mid]) + pairwise_sum(values[mid:])


def recursive_pairwise_sum(x):
    return pairwise_sum(np.sin(x) * x)


class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        return x @ self.W + self.b


class TanhLayer(Layer):
    def __init__(self, W, b, gain=1.0):
        super().__init__(W, b)
        self.gain = gain

    def forward(self, x):
        return np.tanh(self.gain * super().forward(x))


def inherited_layers(W1, b1, W2, x):
    stack = [TanhLayer(W1, b1, gain=0.7), Layer(W2, 0.0)]
    for layer in stack:
        x = layer(x)
    return np.sum(x ** 2)


State = namedtuple("State", ["position", "velocity", "time"])


def namedtuple_replace_integrator(k, x0, dt=0.1, steps=6):
    state = State(x0, np.zeros_like(x0), 0.0)
    for _ in range(steps):
        acc = -k * state.position
        state = state._replace(velocity=state.velocity + dt * acc)
        state = state._replace(position=state.position + dt * state.velocity, time=state.time + dt)
    return np.sum(state.position ** 2) + state.time


def map_lambda_weight_decay(params, x):
    W1, W2 = params
    out = np.sum(np.tanh(x @ W1) @ W2)
    return out + 1e-2 * sum(map(lambda p: np.sum(p ** 2), params))


def try_except_fallback_loss(A, b):
    try:
        L = np.linalg.cholesky(A @ A.T + 0.1 * np.eye(A.shape[0]))
    except np.linalg.LinAlgError:
        return np.sum(b ** 2)
    z = np.linalg.solve(L, b)
    return np.sum(z ** 2)


def counting_calls(w, X):
    calls = 0

    def model(v):
        nonlocal calls
        calls += 1
        return np.tanh(X @ v)

    out = model(w) + model(0.5 * w)
    return np.sum(out) * calls


def squared_norm(*arrays):
    return sum(np.sum(a ** 2) for a in arrays)


def star_args_pairs(x, pairs):
    return squared_norm(*pairs[0]) * np.sum(np.sin(x)) + squared_norm(*pairs[1], x)


def sorted_by_key_penalty(params):
    total = 0.0
    for name in sorted(params, key=len):
        total = total + len(name) * np.sum(params[name] ** 2)
    return total


def dict_comprehension_update(params, x, lr=0.1):
    grads = {k: 2 * v * np.sum(x) for k, v in params.items()}
    new = {k: params[k] - lr * grads[k] for k in params}
    return np.sum(np.tanh(x @ new["W"]) * new["b"])


# ================================================================ 4. signal processing and images
def convolve_same_denoise(kernel, signal, target):
    smooth = np.convolve(signal, kernel, mode="same")
    return np.mean((smooth - target) ** 2)


def convolve_valid_chain(k1, k2, signal):
    out = np.convolve(np.convolve(signal, k1, mode="valid"), k2, mode="valid")
    return np.sum(out ** 2)


def fft_convolution_real(kernel, signal):
    n = len(signal) + len(kernel) - 1
    out = np.fft.irfft(np.fft.rfft(signal, n) * np.fft.rfft(kernel, n), n)
    return np.sum(out ** 2) + np.sum(out[:3])


def fft_convolution_complex(kernel, signal):
    n = len(signal) + len(kernel) - 1
    out = np.fft.ifft(np.fft.fft(signal, n) * np.fft.fft(kernel, n)).real
    return np.sum(np.tanh(out))


def hann_power_spectrum(signal):
    window = np.hanning(len(signal))
    spectrum = np.fft.rfft(signal * window)
    power = np.abs(spectrum) ** 2
    return np.log(np.sum(power[1:4]) / np.sum(power))


def power_spectrum_conj(signal, freqs=3):
    X = np.fft.fft(signal - np.mean(signal))
    power = (X * np.conj(X)).real / len(signal)
    return np.sum(power[:freqs]) / np.sum(power)


def spectral_centroid(signal):
    spec = np.fft.rfft(signal * np.blackman(len(signal)))
    mag = np.sqrt(spec.real ** 2 + spec.imag ** 2 + 1e-12)
    freqs = np.fft.rfftfreq(len(signal))
    return np.sum(freqs * mag) / np.sum(mag)


def box_blur_reflect(image):
    p = np.pad(image, 1, mode="reflect")
    h, w = image.shape
    out = np.zeros_like(image)
    for di in range(3):
        for dj in range(3):
            out += p[di:di + h, dj:dj + w] / 9.0
    return np.sum((out - image) ** 2)


def sobel_edge_energy(image, eps=1e-3):
    p = np.pad(image, 1, mode="constant")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    return np.sum(np.sqrt(gx ** 2 + gy ** 2 + eps))


def total_variation_isotropic(image, eps=1e-6):
    dx = np.diff(image, axis=1)[:-1, :]
    dy = np.diff(image, axis=0)[:, :-1]
    return np.sum(np.sqrt(dx ** 2 + dy ** 2 + eps))


def total_variation_anisotropic(image, noisy, lam):
    tv = np.sum(np.abs(image[1:, :] - image[:-1, :])) + np.sum(np.abs(image[:, 1:] - image[:, :-1]))
    return 0.5 * np.sum((image - noisy) ** 2) + lam * tv


def tv_denoise_unrolled(noisy, lam, steps=4, lr=0.1, eps=1e-2):
    u = noisy.copy()
    for _ in range(steps):
        dx = np.diff(u, axis=1, append=u[:, -1:])
        dy = np.diff(u, axis=0, append=u[-1:, :])
        norm = np.sqrt(dx ** 2 + dy ** 2 + eps)
        px, py = dx / norm, dy / norm
        div = np.diff(px, axis=1, prepend=0.0) + np.diff(py, axis=0, prepend=0.0)
        u = u - lr * ((u - noisy) - lam * div)
    return np.sum(u ** 2)


def autocorrelation_peak(signal, lag=2):
    centred = signal - signal.mean()
    ac = np.correlate(centred, centred, mode="full")
    ac = ac[ac.size // 2:]
    return ac[lag] / ac[0]


def wiener_deconvolution(signal, kernel, snr):
    n = len(signal)
    H = np.fft.fft(kernel, n)
    G = np.conj(H) / (np.abs(H) ** 2 + 1.0 / snr)
    restored = np.fft.ifft(np.fft.fft(signal) * G).real
    return np.sum(restored ** 2)


def fft2_low_pass(image, cutoff=2):
    F = np.fft.fft2(image)
    mask = np.zeros(F.shape)
    mask[:cutoff, :cutoff] = 1.0
    mask[-cutoff:, :cutoff] = 1.0
    low = np.fft.ifft2(F * mask).real
    return np.sum((image - low) ** 2)


def moving_average_cumsum(signal, width=3):
    c = np.cumsum(np.concatenate([[0.0], signal]))
    smooth = (c[width:] - c[:-width]) / width
    return np.sum(np.diff(smooth) ** 2)


def framed_spectrogram_energy(signal, frame=8, hop=4):
    window = np.hanning(frame)
    frames = [signal[s:s + frame] * window for s in range(0, len(signal) - frame + 1, hop)]
    spec = np.abs(np.fft.rfft(np.stack(frames), axis=1)) ** 2
    return np.sum(np.log(spec + 1e-3))


def image_conv2d_valid(kernel, image):
    kh, kw = kernel.shape
    h, w = image.shape[0] - kh + 1, image.shape[1] - kw + 1
    out = np.zeros((h, w))
    for i in range(kh):
        for j in range(kw):
            out = out + kernel[i, j] * image[i:i + h, j:j + w]
    return np.sum(np.maximum(out, 0.0) ** 2)


def gaussian_window_smoothing(log_width, signal):
    t = np.arange(-3, 4)
    kernel = np.exp(-0.5 * t ** 2 / np.exp(2 * log_width))
    kernel = kernel / kernel.sum()
    return np.sum(np.convolve(signal, kernel, mode="same") * signal)


def ar1_filtered_residual(b, pole, x, target):
    """An IIR filter y[n] = b * x - pole * y[n-1], its denominator written as a list."""
    y = signal.lfilter(b, [1.0, pole], x)
    return np.mean((y - target) ** 2)
