"""A corpus of idioms users reach for in structured models (tests/realistic_programs.py and
tests/user_programs.py hold the models themselves): namedtuple parameters updated with
``_replace``, keyword-only methods, ``dict.get`` with a default, ``np.split`` unpacked,
``functools.partial`` made inside the objective, ``@property``, a decorator of their own,
``*shape``, ``zip(*params)``, default function arguments, ``raise`` for validation,
``dataclasses.replace``, class and static methods. Nothing here is written for s2sad;
tests/test_idiom_programs.py differentiates each untouched (grad, vjp, jvp, hvp) and
compares with central finite differences."""
import dataclasses
import functools
from collections import namedtuple

import numpy as np

# ---------------------------------------------------------------- 1-3: namedtuples and _replace
Params = namedtuple("Params", ["W", "b", "log_scale"])


def shrink_bias_then_predict(params, x):
    """A prior step rewriting one field, as a JAX user writes an update of a pytree of parameters."""
    params = params._replace(b=0.9 * params.b)
    return np.sum(np.exp(params.log_scale) * np.tanh(x @ params.W + params.b) ** 2)


def replace_two_fields_in_a_loop(params, x, steps=3):
    for _ in range(steps):
        hidden = np.tanh(x @ params.W + params.b)
        params = params._replace(W=params.W - 0.1 * x.T @ hidden, log_scale=params.log_scale + 0.01 * np.sum(hidden))
    return np.sum((x @ params.W) ** 2) * np.exp(params.log_scale)


Gaussian = namedtuple("Gaussian", "mean log_std")


def posterior_update(prior, observation, noise=0.5):
    """A Kalman-like update that keeps the namedtuple type through ``_replace``."""
    var = np.exp(2 * prior.log_std)
    gain = var / (var + noise ** 2)
    posterior = prior._replace(mean=prior.mean + gain * (observation - prior.mean),
                               log_std=0.5 * np.log((1 - gain) * var))
    return np.sum(posterior.mean ** 2 + np.exp(posterior.log_std))


# ---------------------------------------------------------------- 4-6: methods with keywords, properties
class Scaler:
    def __init__(self, weights):
        self.weights = weights

    def apply(self, x, *, scale=1.0, shift=0.0):
        return np.tanh(x @ self.weights) * scale + shift


def keyword_only_method(weights, x, scale):
    return np.sum(Scaler(weights).apply(x, scale=scale, shift=0.1) ** 2)


class LogNormalPrior:
    def __init__(self, log_sigma):
        self.log_sigma = log_sigma

    @property
    def sigma(self):
        return np.exp(self.log_sigma)

    def log_prob(self, w):
        return -0.5 * np.sum((w / self.sigma) ** 2) - w.size * np.log(self.sigma)


def property_prior(w, log_sigma):
    return -LogNormalPrior(log_sigma).log_prob(w) + np.sum(np.cos(w))


class Optimizer:
    def step(self, w, grad_w, lr=0.1, momentum=None):
        if momentum is not None:
            grad_w = grad_w + momentum
        return w - lr * grad_w


def unrolled_optimizer_method(w, X, y, lr):
    opt = Optimizer()
    for _ in range(3):
        residual = X @ w - y
        w = opt.step(w, X.T @ residual / len(y), lr=lr)
    return np.sum((X @ w - y) ** 2)


# ---------------------------------------------------------------- 7-10: dicts, splits, partials, decorators
def dict_get_with_defaults(params, x):
    W = params["W"]
    b = params.get("b", 0.0)
    temperature = params.get("temperature", 1.0)
    logits = (x @ W + b) / temperature
    return np.sum(np.log(np.sum(np.exp(logits), axis=1)))


def split_flat_vector(theta, x):
    W_flat, b = np.split(theta, [6])
    W = W_flat.reshape(3, 2)
    return np.sum(np.tanh(x @ W + b) ** 2)


def leaky_relu(x, slope=0.01):
    return np.where(x > 0, x, slope * x)


def partial_activation_made_inside(params, x):
    act = functools.partial(leaky_relu, slope=0.2)
    for W, b in params:
        x = act(x @ W + b)
    return np.sum(x ** 2)


def check_finite(function):
    @functools.wraps(function)
    def checked(*args, **kwargs):
        out = function(*args, **kwargs)
        if not np.all(np.isfinite(out)):
            raise FloatingPointError(f"{function.__name__} returned a non-finite value")
        return out
    return checked


@check_finite
def softplus_features(x, w):
    return np.logaddexp(0.0, x @ w)


def decorated_helper(w, x):
    return np.sum(softplus_features(x, w) ** 2)


# ---------------------------------------------------------------- 11-15: shapes, zips, defaults, validation
def star_shape_reshape(theta, x, shape=(2, 3)):
    W = theta.reshape(*shape)
    noise_free = np.zeros((x.shape[0], *shape[1:]))
    return np.sum((x @ W + noise_free) ** 2)


def zip_star_layers(params, x):
    weights, biases = zip(*params)
    for W, b in zip(weights, biases):
        x = np.tanh(x @ W + b)
    return np.sum(x ** 2) + 0.01 * sum(np.sum(W ** 2) for W in weights)


def squared(r):
    return r ** 2


def robust_loss(w, X, y, loss=squared, reduce=np.mean):
    return reduce(loss(X @ w - y))


def cauchy_loss_through_defaults(w, X, y):
    return robust_loss(w, X, y, loss=lambda r: np.log1p(r ** 2)) + robust_loss(w, X, y, reduce=np.sum)


def validated_gaussian_nll(mean, log_var, y):
    if np.ndim(mean) != 1:
        raise ValueError(f"mean must be a vector, got shape {np.shape(mean)}")
    if mean.shape != y.shape:
        raise ValueError("mean and y differ in shape")
    return 0.5 * np.sum(log_var + (y - mean) ** 2 / np.exp(log_var))


# ---------------------------------------------------------------- 16-20: dataclasses, class and static methods
@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray

    @classmethod
    def from_flat(cls, flat, n_in, n_out):
        return cls(flat[:n_in * n_out].reshape(n_in, n_out), flat[n_in * n_out:])

    @staticmethod
    def activation(z):
        return np.tanh(z)

    def __call__(self, x):
        return self.activation(x @ self.W + self.b)


def classmethod_from_flat(flat, x):
    layer = Linear.from_flat(flat, 3, 2)
    return np.sum(layer(x) ** 2)


@dataclasses.dataclass
class State:
    position: np.ndarray
    velocity: np.ndarray


def dataclasses_replace_integrator(position, velocity, dt=0.1, steps=5):
    state = State(position, velocity)
    for _ in range(steps):
        state = dataclasses.replace(state, velocity=state.velocity - dt * np.sin(state.position))
        state = dataclasses.replace(state, position=state.position + dt * state.velocity)
    return np.sum(state.position ** 2 + state.velocity ** 2)


def enumerate_layers_last_linear(params, x):
    for i, (W, b) in enumerate(params):
        x = x @ W + b
        if i < len(params) - 1:
            x = np.maximum(x, 0.0) + 0.1 * np.minimum(x, 0.0)
    return np.sum(x ** 2)


def kwargs_config(w, X, y, config=None):
    config = config or {"l2": 0.1, "power": 2}
    penalty = config["l2"] * np.sum(np.abs(w) ** config["power"])
    return np.mean((X @ w - y) ** 2) + penalty


def config_splat(w, X, y):
    settings = dict(l2=0.05, power=3)
    return kwargs_config(w, X, y, config=settings)


def method_chain(w, X):
    return X.T.dot(np.tanh(X @ w)).clip(-2.0, 2.0).sum() + (X @ w).mean(axis=0)
