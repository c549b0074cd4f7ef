"""Lambdas that read the function's variables, used as values (issue 16, items 1 and 3): held in
lists and dicts, passed to helpers, called in loops; both modes against central finite
differences. Where Python's closure would read a variable as it is when called (changed after
the lambda, or in a loop around it), and where a rule would call the lambda, they are refused."""
import functools

import numpy as np
import pytest

import s2sad
from finite_differences import assert_gradients_match

rng = np.random.default_rng(31)


def apply_all(functions, x):
    for function in functions:
        x = function(x)
    return x


def pipeline(x, scale, shift):
    steps = [np.sin, lambda v: v * scale + shift, np.tanh, lambda v: v ** 2 * scale]
    return np.sum(apply_all(steps, x))


def activations_by_name(x, W, alpha):
    table = {"leaky": lambda z: np.where(z > 0.0, z, alpha * z), "soft": lambda z: np.log1p(np.exp(alpha * z))}
    hidden = table["soft"](x @ W)
    return np.sum(table["leaky"](hidden - 1.0))


def objective_with_data(w, X, y, l2):
    loss = lambda params: np.mean((X @ params - y) ** 2) + l2 * np.sum(params ** 2)  # noqa: E731
    return minimise_once(loss, w)


def minimise_once(objective, w):
    return objective(w) + objective(0.9 * w)


def numerical_tangent(f, args, tangents, eps=1e-6):
    plus = [a + eps * t if t is not None else a for a, t in zip(args, tangents)]
    minus = [a - eps * t if t is not None else a for a, t in zip(args, tangents)]
    return (f(*plus) - f(*minus)) / (2 * eps)


CASES = {
    "list of steps": (pipeline, lambda: (rng.standard_normal(4), 0.7, -0.3), (0, 1, 2)),
    "dict of activations": (activations_by_name, lambda: (rng.standard_normal((5, 3)), rng.standard_normal((3, 2)),
                                                        0.2), (1, 2)),
    "objective passed to a helper": (objective_with_data, lambda: (rng.standard_normal(3), rng.standard_normal((6, 3)),
                                                                   rng.standard_normal(6), 0.1), (0, 3)),
}


@pytest.mark.parametrize("name", CASES)
def test_reverse_mode_matches_finite_differences(name):
    function, make, argnums = CASES[name]
    args = make()
    assert_gradients_match(function, args, argnums, s2sad.grad(function, argnums=argnums)(*args))


@pytest.mark.parametrize("name", CASES)
def test_forward_mode_matches_finite_differences(name):
    function, make, argnums = CASES[name]
    args = make()
    tangents = [rng.standard_normal(np.shape(a)) if i in argnums else None for i, a in enumerate(args)]
    value, pushed = s2sad.jvp(function, args, tuple(tangents))
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    np.testing.assert_allclose(pushed, numerical_tangent(function, args, tangents), rtol=1e-5, atol=1e-8)


def changed_after(x, k):
    steps = [lambda v: v * k]
    k = k * 2.0  # Python's lambda reads this k
    return np.sum(steps[0](x))


def made_in_a_loop(x, ks):
    steps = []
    for k in ks:
        steps.append(lambda v: v * k)  # every lambda reads the last k
    return np.sum(steps[0](x))


def made_in_a_comprehension(x, ks):
    steps = [lambda v: v * k for k in ks]
    return np.sum(steps[0](x))


def given_to_reduce(xs, s):
    return functools.reduce(lambda a, b: a * b * s, [xs[0], xs[1]])


def users_partial(x, s):
    f = functools.partial(np.multiply, s)
    return np.sum(apply_all([f], x))


@pytest.mark.parametrize("function, args, error, words", [
    (changed_after, (np.ones(3), 0.5), s2sad.UnsupportedSyntaxError, "changes after the lambda is made"),
    (made_in_a_loop, (np.ones(3), [1.0, 2.0]), s2sad.UnsupportedSyntaxError, "changes after the lambda is made"),
    (made_in_a_comprehension, (np.ones(3), [1.0, 2.0]), s2sad.UnsupportedSyntaxError, "changes after the lambda"),
    (given_to_reduce, (np.ones(3), 0.5), s2sad.MissingRuleError, "given to a function that calls it"),
    (users_partial, (np.ones(3), 0.5), s2sad.UnsupportedSyntaxError, r"`functools.partial\(...\)` holding a differentiated"),
], ids=lambda value: getattr(value, "__name__", "")[:24])
def test_what_a_held_value_would_get_wrong_is_refused(function, args, error, words):
    for run in (lambda: s2sad.grad(function, argnums=(0, 1))(*args),
                lambda: s2sad.jvp(function, args, (np.ones(3), 1.0 if np.ndim(args[1]) == 0 else None))):
        with pytest.raises(error, match=words):
            run()


def test_the_refused_programs_really_read_the_later_value():
    x = np.array([1.0, 2.0])
    assert changed_after(x, 0.5) == pytest.approx(np.sum(x) * 1.0)  # k doubled after the lambda
    assert made_in_a_loop(x, [1.0, 2.0]) == pytest.approx(np.sum(x) * 2.0)
    assert made_in_a_comprehension(x, [1.0, 2.0]) == pytest.approx(np.sum(x) * 2.0)
