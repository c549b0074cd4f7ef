"""Session 17's brief, item 4. ``filter(f, xs)`` consumed at once is the generator
``(v for v in xs if f(v))`` (it had no rule: "no rule for `filter`"), differentiated in every mode;
stored, it is refused as ``map`` is. ``iter(xs)`` / ``next(it)`` of differentiated values are
refused at the line saying what to write (it said "no rule for `iter`", with a hint to register
one). ``np.fromfunction(f, shape)`` whose function reads differentiated values is written out as
NumPy runs it, ``f(*np.indices(shape))`` (it had no rule). ``functools.partial`` of a user's
function holding a differentiated variable (``step = functools.partial(layer, W=W)``, W computed from
x) is the lambda it stands for, a closure holding W (it had no rule, in every mode); one holding an
expression is refused saying what to write. Against central differences."""
import functools

import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, numerical_gradient, refusal_in

X = np.linspace(-0.5, 0.7, 3)
W = np.linspace(-1.0, 1.0, 9).reshape(3, 3) * 0.4


def _positive(v):
    return np.sum(v) > 0.0


def filtered_arrays_and_numbers(x):
    xs = [x, np.sin(x) - 1.0, x ** 2]
    # (no constant 0.0 among them: `if v:` on the items of a list holding differentiated values is checked at
    # 0 item by item, and a constant's 0 is refused with a moving one's, tests/test_exact_point_guards.py)
    kept = list(filter(None, [x[0] * 2.0, np.sin(x[2])]))
    total = sum(np.sum(v ** 2) for v in filter(_positive, xs))
    for v in filter(lambda t: t > 0.0, x):
        total = total + v ** 3
    return total + kept[0] * kept[1]


def _filters_its_argument(rows):
    return np.sum(np.stack(list(filter(_positive, rows))) ** 2)


def filtered_in_a_helper(x):
    return _filters_its_argument([x, -x, np.cos(x)])


def _grid(i, j):
    return np.sin(i * 0.3) + j


def from_functions(x):
    m = np.fromfunction(lambda i, j: x[i] * j + i, (3, 3), dtype=int)
    return np.sum(m ** 2) + np.sum(np.fromfunction(_grid, (3, 3)) @ x)


def _layer(h, W, b=0.0):
    return np.tanh(h @ W + b)


def partial_of_a_layer(x):
    step = functools.partial(_layer, W=W)
    return np.sum(step(step(x)) ** 2)


def _applied_twice(f, h):
    return f(f(h))


def partials_holding_differentiated_variables(x):
    weights = np.outer(x, x) * 0.3
    step = functools.partial(_layer, W=weights)
    first = np.sin(x)
    shifted = functools.partial(_layer, first)
    return np.sum(step(W, b=x[0]) ** 2) + np.sum(_applied_twice(step, W)) + np.sum(shifted(weights))


def partial_then_its_variable_rebound(x):
    """A partial holds the value it is given: `weights = ...` after it is made leaves that value (it
    was refused as a lambda reading a variable changed after it is made), in a loop too."""
    weights = np.outer(x, x) * 0.3
    step = functools.partial(_layer, W=weights)
    h = step(x)
    weights, shift = weights * 2.0, x[0]
    for _ in range(2):
        inner = functools.partial(_layer, b=shift, W=weights)
        h = inner(step(h))
        weights = np.sin(weights)
    return np.sum(h ** 2)


def partial_with_held_keywords_given_again(x):
    """A call may give again a keyword the partial holds, as Python's partial lets it (it raised
    TypeError: multiple values for argument 'W')."""
    weights, shift = np.outer(x, x) * 0.3, x[1]
    step = functools.partial(_layer, W=weights, b=shift)
    other = np.sin(weights)
    return np.sum(step(x, W=other) * step(x)) + np.sum(step(x, b=x[0], W=W))


def _shifted_layer(h, W, b=np.zeros(3), *, c=np.ones(3)):
    return np.tanh(h @ W + b) * c


def partial_given_parameters_with_array_defaults(x):
    """A parameter whose default is no literal is taken too, the function's default read from it
    unless the call gives one (the lambda left it out: TypeError, unexpected keyword argument)."""
    weights = np.outer(x, x) * 0.3
    step, first = functools.partial(_shifted_layer, W=weights), functools.partial(_shifted_layer, x)
    return np.sum(step(x, b=x) * step(x, c=x)) + np.sum(first(W))


def _activated(h, W, act=np.tanh, scale=1.0):
    return act(h @ W) * scale


def partial_called_with_a_default_it_did_not_write(x):
    # session 18: the lambda took no `act` (its default is no literal), so `step(x, act=np.sin)` raised TypeError
    weights = np.outer(x, x) * 0.3
    step = functools.partial(_activated, W=weights)
    return np.sum(step(x, act=np.sin, scale=2.0)) + np.sum(step(x) ** 2)


@pytest.mark.parametrize("function", [filtered_arrays_and_numbers, filtered_in_a_helper, from_functions,
                                      partial_of_a_layer, partials_holding_differentiated_variables,
                                      partial_then_its_variable_rebound, partial_with_held_keywords_given_again,
                                      partial_given_parameters_with_array_defaults])
def test_every_mode_matches_central_differences(function):
    assert_every_mode_matches(function, X, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))


_SHIFT, _SCALE = np.zeros(3), np.full(3, 2.0)


def _affine(h, W, shift=_SHIFT, scale=_SCALE):
    return np.tanh(h @ W + shift) * scale


def partial_holding_a_parameter_that_has_a_default(x):
    # the lambda's default for `scale` must be _affine.__defaults__[1]: [0] (shift's) gave a wrong number
    weights = np.outer(x, x) * 0.3
    offset = np.sin(x)
    step = functools.partial(_affine, x, weights, offset)
    return np.sum(step() ** 2) + np.sum(step(scale=x))


def _clipped_energy(h, W, lo=-np.inf, hi=np.inf):
    return np.sum(np.clip(h @ W, lo, hi) ** 2)


def partial_of_a_function_with_infinite_defaults(x):
    # repr(-np.inf) is `-inf`, a name: the lambda's default read the user's global `inf` (refused as data)
    weights = np.outer(x, x) * 0.3
    step = functools.partial(_clipped_energy, W=weights)
    return step(x) + step(x, hi=0.1)


@pytest.mark.parametrize("f", [partial_called_with_a_default_it_did_not_write,
                               partial_holding_a_parameter_that_has_a_default,
                               partial_of_a_function_with_infinite_defaults])
def test_a_partial_is_called_with_a_default_it_did_not_write(f):
    expected = numerical_gradient(f, [X], 0)
    np.testing.assert_allclose(s2sad.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    _, tangent = s2sad.jvp(f, (X,), (np.cos(X),))
    np.testing.assert_allclose(tangent, expected @ np.cos(X), rtol=1e-6)


def next_of_an_iterator(x):
    it = iter([x, np.sin(x)])  # marker: iter
    return np.sum(next(it) * next(it))


def _yields(x):
    for k in range(3):
        yield x * k


def next_of_a_generator(x):
    g = _yields(x)
    a = next(g)  # marker: next
    return np.sum(a + next(g))


def stored_filter(x):
    kept = filter(_positive, [x, x * 2.0])  # marker: stored
    return np.sum(list(kept)[0])


def partial_holding_an_expression(x):
    step = functools.partial(_layer, W=np.outer(x, x))  # marker: partial
    return np.sum(step(W))


def partial_then_its_array_changed_in_place(x):
    weights = np.outer(x, x) * 0.3
    step = functools.partial(_layer, W=weights)  # marker: held
    weights += 1.0  # the partial holds this very array: changed for it too
    return np.sum(step(x))


@pytest.mark.parametrize("function, marker, message", [
    (partial_holding_an_expression, "partial", r"assign what it holds to a variable first|holding a differentiated"),
    (partial_then_its_array_changed_in_place, "held", r"reads `weights`, which the function changes after it is made"),
    (next_of_an_iterator, "iter", r"`iter\(...\)` of differentiated values is not differentiated"),
    (next_of_a_generator, "next", r"`next\(...\)` of differentiated values is not differentiated"),
    (stored_filter, "stored", r"`filter\(...\)` gives an iterator"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_an_iterator_read_step_by_step_is_refused_at_its_line(function, marker, message, mode):
    caught = refusal_in(mode, function, X, message)
    assert f"# marker: {marker}" in caught.location.text


def _logged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapper


@_logged
def _decorated_layer(h, W, act=np.tanh, scale=1.0):
    return act(h @ W) * scale


def partial_of_a_decorated_function(x):
    # its signature is the wrapped function's, its __defaults__ the wrapper's (none): no lambda reads them
    weights = np.outer(x, x) * 0.3
    step = functools.partial(_decorated_layer, W=weights)
    return np.sum(step(x, scale=2.0) ** 2)


def test_a_partial_of_a_decorated_function_is_right_or_refused_at_its_line():
    expected = numerical_gradient(partial_of_a_decorated_function, [X], 0)
    try:
        got = s2sad.grad(partial_of_a_decorated_function)(X)
    except s2sad.S2SADError as error:
        assert "test_filter_iter_and_fromfunction.py" in str(error)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
