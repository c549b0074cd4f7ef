"""The Python around the maths in real programs: functions held in values, calls with `*` and
`**`, lambdas, validation with `raise`, and `with` blocks (issue 16). Each is written the way
published NumPy code writes it; tests/test_python_constructs.py checks each against finite
differences."""
import collections
import contextlib
import dataclasses
import functools
import warnings

import numpy as np


# ---------------------------------------------------------------- functions held in values
def relu(z):
    return np.maximum(z, 0.0)


def softplus(z):
    return np.log1p(np.exp(z))


ACTIVATIONS = {"tanh": np.tanh, "softplus": softplus, "relu": relu}


def predict(params, inputs, nonlinearity=np.tanh):
    for W, b in params:
        outputs = inputs @ W + b
        inputs = nonlinearity(outputs)
    return outputs


def mlp_loss(params, inputs, targets):
    return np.mean((predict(params, inputs) - targets) ** 2)


def mlp_loss_softplus(params, inputs, targets):
    return np.mean((predict(params, inputs, nonlinearity=softplus) - targets) ** 2)


def activation_by_name(x, name="softplus"):
    f = ACTIVATIONS[name]
    return np.sum(f(x) * x)


def chain_of_functions(x):
    total = 0.0
    for f in [np.sin, np.cos, softplus]:
        total = total + np.sum(f(x))
    return total


def fixed_point(f, a, x0, steps=20):
    x = x0
    for _ in range(steps):
        x = f(a, x)
    return x


def contraction(a, x):
    return 0.5 * np.cos(x) + a


def solves_a_fixed_point(a):
    return np.sum(fixed_point(contraction, a, np.zeros_like(a)))


def scaled_sum(x, scale):
    return np.sum(x ** 2) * scale


def calls_a_partial(x):
    half = functools.partial(scaled_sum, scale=0.5)
    return half(x) + half(2 * x)


class Layer:
    def __init__(self, activation):
        self.activation = activation

    def apply(self, x, W):
        return self.activation(x @ W)


TANH_LAYER = Layer(np.tanh)


def calls_a_function_an_object_holds(W, x):
    return np.sum(TANH_LAYER.apply(x, W))


def apply_twice(f, x):
    return f(f(x))


def composes(x):
    return np.sum(apply_twice(np.sin, x) + apply_twice(softplus, x))


# ---------------------------------------------------------------- * and ** at call sites
def standard_normal_like(x, rs):
    return rs.standard_normal(size=x.shape)


def ones_by_shape(x):
    mask = np.ones(*x.shape[1:])
    return np.sum(x * mask)


def helper(a, b, scale=1.0, power=2):
    return np.sum((a * b) ** power) * scale


def forwards_everything(a, *args, **kwargs):
    return helper(a, *args, **kwargs)


def forwards_star_args(x, y):
    return forwards_everything(x, y, scale=3.0) + forwards_everything(x, *[y], **{"power": 3})


def reshapes_with_star(a, b):
    return np.sum(np.tanh(a.reshape(b.shape[0], *b.shape[1:])) * b)


def unpacks_a_list_into_a_call(x, y):
    pair = [x, y * 2]
    return np.sum(np.add(*pair) ** 2) + np.sum(np.hypot(*(x, y)))


def stacks_args(*arrays):
    return np.sum(np.stack(arrays) ** 2)


def star_over_layers(x):
    layers = [x, 2 * x, x ** 2]
    return stacks_args(*layers)


# ---------------------------------------------------------------- raise and assert
def validated_loss(x, reduction="mean"):
    if x.ndim != 1:
        raise ValueError(f"expected a vector, got {x.ndim} dimensions of sizes {x.shape!r} (first {x.flat[0]:.3g})")
    assert x.shape[0] > 1, "need two points at least"
    squares = x ** 2
    if reduction == "mean":
        value = np.mean(squares)
    elif reduction == "sum":
        value = np.sum(squares)
    else:
        raise ValueError("unknown reduction " + reduction)
    return value * 3


def guards_inside_a_loop(xs, limit=100.0):
    total = 0.0
    for i in range(xs.shape[0]):
        if abs(xs[i]) > limit:
            raise OverflowError("value out of range")
        total = total + np.sin(xs[i]) * i
    return total


def raises_from(x):
    if not np.all(np.isfinite(x)):
        raise ValueError("not finite") from None
    return np.sum(np.exp(-x ** 2))


# ---------------------------------------------------------------- with blocks
def log_likelihood_quietly(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(x ** 2)
        weighted = logs * x
    return np.sum(weighted)


def nested_managers_in_a_loop(x, steps):
    total = 0.0
    for i in range(steps):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if i > 2:
                break
            total = total + np.sum(np.sqrt(x) * (i + 1))
    with np.errstate(over="ignore"):
        return total * 2


@contextlib.contextmanager
def constant_weight(value):
    yield value


class Settings:
    """A context manager of the user's, giving a pair of constants."""

    def __init__(self, offset, scale):
        self.offset, self.scale = offset, scale

    def __enter__(self):
        return self.offset, self.scale

    def __exit__(self, *exception):
        return False


def log_likelihood_with_state(x):
    with np.errstate(divide="ignore", invalid="ignore") as state:
        logs = np.log(x ** 2)
        weight = 1.0 if state is None else 2.0  # NumPy 2's errstate gives None
    return np.sum(logs * weight)


def weighted_by_a_file(x, path):
    with open(path) as handle:
        weights = np.loadtxt(handle)
    return np.sum(np.tanh(x) * weights)


def uses_entered_constants(x):
    with constant_weight(0.5) as weight, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = np.sin(x) * weight + len(caught)
    with Settings(0.2, 3.0) as (offset, scale):
        return np.sum((y - offset) ** 2) * scale


# ---------------------------------------------------------------- imports inside the function
def imports_in_its_body(x):
    import numpy as np  # the module's own np, shadowed as a script's function does
    import scipy.special
    from scipy.special import expit, logsumexp as lse
    import numpy.linalg
    y = np.tanh(x) * expit(x) + scipy.special.erf(x)
    return lse(y) + numpy.linalg.norm(x)


def imports_inside_a_branch(x, squash):
    if squash:
        from scipy.special import expit
        x = expit(x)
    return np.sum(x ** 2)


# ---------------------------------------------------------------- lambdas
square_norm = lambda x: np.sum(x * x)  # noqa: E731


def lambda_objective_factory(data):
    return lambda p: np.sum((p - data) ** 2) + np.sum(np.sin(p))


def grows_a_list(x):
    outputs = []
    for i in range(3):
        outputs = outputs + [np.sin(x) * i]
    outputs = outputs + [x ** 2]
    return np.sum(outputs[1] * outputs[3])


# ---------------------------------------------------------------- objects built inside
class Affine:
    """A layer that stores its parameters, as small model classes do."""

    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


@dataclasses.dataclass
class Gaussian:
    mean: np.ndarray
    log_scale: np.ndarray

    def log_density(self, x):
        scale = np.exp(self.log_scale)
        return np.sum(-0.5 * ((x - self.mean) / scale) ** 2 - self.log_scale)


Pair = collections.namedtuple("Pair", "left right")


def builds_layers(W, b, x):
    layer = Affine(W, b)
    hidden = layer(x)
    return np.sum(hidden ** 2)


def builds_a_dataclass(mean, log_scale, x):
    q = Gaussian(mean, log_scale)
    return q.log_density(x)


def builds_a_namedtuple(x):
    pair = Pair(np.sin(x), x ** 2)
    return np.sum(pair.left * pair.right) + np.sum(pair[0])


class Standardised:
    def __init__(self, x):
        self.x = (x - np.mean(x)) / np.std(x)  # computes: not a plain store


def builds_a_computing_object(x):
    return np.sum(Standardised(x).x ** 3)


# ---------------------------------------------------------------- arguments changed in place
def relaxes_in_place(u, source, steps=3):
    """Jacobi sweeps on the caller's grid, as simulation code writes them."""
    for _ in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:]) + 0.1 * source[1:-1]
    u[0] += 0.1 * np.sum(u)
    return np.sum(u ** 2)


def normalises_rows_in_place(X):
    for i in range(X.shape[0]):
        X[i] = X[i] / np.sqrt(np.sum(X[i] ** 2))
    return np.sum(X[:, 0] * X[:, 1])


def records_in_a_list(history, x):
    history.append(np.tanh(x))
    history[0] = history[0] * 2.0
    return np.sum(history[0] * history[-1])


def changes_its_argument(a):
    a[0] = 3.0 * a[1]
    return np.sum(a)


def calls_a_helper_that_changes_its_argument(x):
    y = x * 1.0
    return changes_its_argument(y) + np.sum(y)


# ---------------------------------------------------------------- generators consumed by a loop
def unpack_layers(params):
    for W, b in params:
        yield W, b


def generator_mlp(W1, b1, W2, b2, x):
    params = [(W1, b1), (W2, b2)]
    for W, b in unpack_layers(params):
        x = np.tanh(x @ W + b)
    return np.sum(x ** 2)


def windows(xs, scale=2.0):
    """Yields on both paths of a branch, inside a loop."""
    for i in range(len(xs) - 1):
        if i % 2 == 0:
            yield xs[i] * scale, xs[i + 1]
        else:
            yield xs[i], xs[i + 1] * scale


def sums_over_windows(x):
    total = 0.0
    for a, b in windows([x, x ** 2, np.sin(x), np.cos(x)]):
        total = total + np.sum(a * b)
    return total + sum(np.sum(v) for v in unpack_layers([(x, x)]) for v in v)


# ---------------------------------------------------------------- sorted, zip, dict
def smallest_two_costs(x):
    costs = [np.sum(x ** 2), np.sum(np.sin(x)), np.sum(x) * 0.5, np.sum(np.cos(x))]
    ranked = sorted(costs, reverse=True)
    by_size = sorted([x * 2.0, x[:2], np.tanh(x)], key=len)
    return ranked[-1] + ranked[-2] * 2.0 + np.sum(by_size[0]) + np.sum(by_size[-1] ** 2)


def transposes_pairs(x):
    pairs = [(x, 1.0), (x ** 2, 3.0), (np.sin(x), 0.5)]
    values, weights = zip(*pairs)
    total = 0.0
    for v, w in zip(values, weights):
        total = total + np.sum(v) * w
    return total + np.sum(values[1] * values[2])


def config_dicts(x, scale):
    options = dict(weight=scale, bias=0.5)
    merged = dict(options)
    layer = dict([("W", x), ("b", x[0])])
    return np.sum(layer["W"] * merged.get("weight")) + merged.get("missing", scale * 2.0) + layer.get("b") ** 2


# ---------------------------------------------------------------- lambdas as values
def integrate(f, y0, steps=20, h=0.05):
    y = y0
    for i in range(steps):
        y = y + h * f(y, i * h)
    return y


def decays_with_a_lambda(y0):
    path = integrate(lambda y, t: -y * np.cos(t), y0)
    ranked = sorted([np.sum(y0), np.sum(y0 ** 2), np.sum(np.sin(y0))], key=lambda v: -abs(v))
    return np.sum(path ** 2) + ranked[0]


def lambda_over_a_local(y0, k):
    return np.sum(integrate(lambda y, t: -k * y, y0))


def unpacks_an_array(state, k):
    s, i, r = state  # the rows of an array, as ODE right-hand sides unpack their state
    return np.sum(np.array([-k * s * i, k * s * i - 0.3 * i, 0.3 * i]) ** 2) + s * r


def slices_by_a_carried_bound(gains, samples, n_channels=3):
    """A slice whose bound changes after the loop reads it: each reverse iteration must read
    the bound its primal iteration read (it was replayed at its final value: a wrong gradient)."""
    response = samples
    channel = 0
    for _ in range(n_channels):
        response = np.tanh(response * gains[channel::n_channels])
        channel = (channel + 1) % n_channels
    return np.sum(response ** 2) + np.sum(gains[channel:channel + 2])


# ---------------------------------------------------------------- try / except / else / finally
def logdet_with_a_fallback(A):
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        print("not positive definite: adding jitter")
        L = np.linalg.cholesky(A + 1e-3 * np.eye(A.shape[0]))
    else:
        L = L * 1.0
    finally:
        pass
    return 2.0 * np.sum(np.log(np.diag(L)))


def guarded_steps(x):
    total = 0.0
    for i in range(3):
        try:
            total = total + np.sum(np.sqrt(x) * (i + 1))
        except (ValueError, FloatingPointError):
            total = 0.0
    return total


def accumulates_into_its_argument(x, v):
    """`x += ...` on the caller's array, in a loop and a branch: the caller's array ends changed."""
    for i in range(3):
        if i % 2:
            x += v * np.sin(x)
        else:
            x *= 1.5
    return np.sum(x ** 2)


def augments_then_rebinds(x, v):
    x += v
    x = x * 2.0
    return np.sum(x)
