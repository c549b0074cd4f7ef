"""``map``, ``reversed``, ``itertools.chain`` (and ``chain.from_iterable``), ``zip(*...)`` in
user code (s2sad/frontend/one_pass.py): gradients in reverse and forward mode, Hessian-vector
products and compile=True, each against central differences in float64; and the refusals of
an iterator that is not consumed at once, naming its file and line."""
import functools
import itertools
import warnings
from itertools import chain

import numpy as np
import pytest

import s2sad
from finite_differences import assert_gradients_match, numerical_gradient
from s2sad.errors import UnsupportedSyntaxError

rng = np.random.default_rng(1313)


def square(v):
    return v * v


# ---------------------------------------------------------------- reversed
def horner_reversed(coefficients, x):
    acc = 0.0
    for c in reversed(coefficients):
        acc = acc * x + c
    return acc


def rows_reversed(A, v):
    out = v
    for row in reversed(A):
        out = np.tanh(row * out + 0.1)
    return np.sum(out ** 2)


def reversed_in_a_comprehension(xs):
    weights = [1.0, 2.0, 3.0]
    return sum([w * v ** 2 for w, v in zip(weights, reversed(xs))])


def reversed_range_weights(x):
    total = 0.0
    for k in reversed(range(4)):
        total = total * x + k
    return total


def reversed_tuple_unpacked(x):
    a, b, c = reversed((x, 2.0 * x, x ** 3))
    return a * 10.0 + b * 100.0 + c


def backprop_by_hand(W1, W2, x):
    """The backward pass of a two-layer network, written by hand over reversed(layers)."""
    layers = [W1, W2]
    activations = [x]
    for W in layers:
        activations.append(np.tanh(W @ activations[-1]))
    delta = activations[-1] - 1.0
    norm = 0.0
    for W, a_in, a_out in zip(reversed(layers), reversed(activations[:-1]), reversed(activations[1:])):
        delta = W.T @ (delta * (1.0 - a_out ** 2))
        norm = norm + np.sum(delta ** 2) + np.sum(a_in)
    return norm


# ---------------------------------------------------------------- map
def map_ufunc_summed(x):
    return sum(map(np.sin, [x, 2.0 * x, x * x]))


def map_lambda_listed(xs):
    ys = list(map(lambda v: v ** 3 + np.cos(v), xs))
    return ys[0] * ys[2] + ys[1]


def map_user_function_tuple(x):
    ys = tuple(map(square, x))
    return np.sum(ys[0] * ys[1]) + np.sum(ys[-1])


def map_two_iterables(xs, ys):
    total = 0.0
    for p in map(lambda a, b: a * b + a, xs, ys):
        total = total + p ** 2
    return total


def map_nested_function(x, scale):
    def scaled(v):
        return scale * np.exp(-v)
    a, b = map(scaled, [x, 2.0 * x])
    return a + b ** 2


def map_of_map_in_a_comprehension(x):
    return np.sum(np.array([v + 1.0 for v in map(np.tanh, map(square, x))]))


def map_array_rows(A):
    return sum(map(np.linalg.norm, A))


def map_into_np_array(x):
    return np.sum(np.array(list(map(np.exp, [x, -x]))) * np.array([1.0, 3.0]))


def map_shorter_iterable(xs, ys):
    return sum(map(lambda a, b: a * b, xs, ys))   # zip's rule: the longer one's tail gets nothing


# ---------------------------------------------------------------- itertools.chain, zip(*...)
def chain_in_a_loop(a, b):
    s = 0.0
    for v in itertools.chain([a, 2.0 * a], [b]):
        s = s + v * v * a
    return s


def chain_of_arrays_summed(x, y):
    return sum(chain(x, y * y, [x[0] * y[1]]))


def chain_from_iterable(rows):
    return sum(v ** 2 for v in itertools.chain.from_iterable(rows))


def chain_unpacked(x):
    a, b, c = chain([x], (np.sin(x), 2.0))
    return a * b * c


def zip_star_transposed(pairs):
    first, second = zip(*pairs)
    return sum(first) * second[0] + second[1] ** 2


# ---------------------------------------------------------------- the gradients
SCALAR = 0.7
XS = [0.3, -1.1, 0.8]
ARR = rng.standard_normal(3)
CASES = [
    (horner_reversed, (XS, SCALAR), (0, 1)),
    (rows_reversed, (rng.standard_normal((3, 4)), rng.standard_normal(4)), (0, 1)),
    (reversed_in_a_comprehension, (XS,), (0,)),
    (reversed_range_weights, (SCALAR,), (0,)),
    (reversed_tuple_unpacked, (SCALAR,), (0,)),
    (backprop_by_hand, (0.5 * rng.standard_normal((3, 2)), 0.5 * rng.standard_normal((2, 3)),
                        rng.standard_normal(2)), (0, 1, 2)),
    (map_ufunc_summed, (SCALAR,), (0,)),
    (map_lambda_listed, (XS,), (0,)),
    (map_user_function_tuple, (rng.standard_normal((3, 2)),), (0,)),
    (map_two_iterables, (XS, ARR), (0, 1)),
    (map_nested_function, (SCALAR, 1.3), (0, 1)),
    (map_of_map_in_a_comprehension, (ARR,), (0,)),
    (map_array_rows, (rng.standard_normal((3, 2)),), (0,)),
    (map_into_np_array, (SCALAR,), (0,)),
    (map_shorter_iterable, (XS, [2.0, 3.0]), (0, 1)),
    (chain_in_a_loop, (SCALAR, -0.4), (0, 1)),
    (chain_of_arrays_summed, (ARR, rng.standard_normal(2)), (0, 1)),
    (chain_from_iterable, (rng.standard_normal((2, 3)),), (0,)),
    (chain_unpacked, (SCALAR,), (0,)),
    (zip_star_transposed, ([[0.5, 1.0], [2.0, -3.0], [0.25, 0.5]],), (0,)),
]
IDS = [case[0].__name__ for case in CASES]


@pytest.mark.parametrize("function, args, argnums", CASES, ids=IDS)
def test_gradient_against_central_differences(function, args, argnums):
    gradients = s2sad.grad(function, argnums=argnums)(*args)
    assert_gradients_match(function, args, argnums, gradients)


def _flat(value):
    return np.concatenate([np.ravel(np.asarray(item, dtype=float)) for item in value]) \
        if isinstance(value, (list, tuple)) else np.ravel(np.asarray(value, dtype=float))


@pytest.mark.parametrize("function, args, argnums", CASES, ids=IDS)
def test_forward_mode_against_central_differences(function, args, argnums):
    """The jvp along a random direction in every float argument is <central-difference gradient, direction>."""
    directions = []
    for value in args:
        direction = rng.standard_normal(np.shape(value))
        directions.append(direction.tolist() if isinstance(value, list) else
                          (float(direction) if isinstance(value, float) else direction))
    _, tangent = s2sad.jvp(function, args, tuple(directions))
    expected = sum(np.dot(_flat(numerical_gradient(function, args, k)), _flat(directions[k]))
                   for k in range(len(args)) if not isinstance(args[k], list) or k in argnums)
    assert abs(tangent - expected) < 1e-6 * max(1.0, abs(expected))


def _zero_like(value):
    return [0.0] * len(value) if isinstance(value, list) else (0.0 if isinstance(value, float) else np.zeros_like(value))


HVP_CASES = [(rows_reversed, 1), (map_user_function_tuple, 0), (map_two_iterables, 1), (chain_of_arrays_summed, 1),
             (chain_from_iterable, 0), (map_array_rows, 0)]


@pytest.mark.parametrize("function, argnum", HVP_CASES, ids=[c[0].__name__ for c in HVP_CASES])
def test_hvp_against_central_differences_of_central_differences(function, argnum):
    """H v in one array argument (the others held, their directions 0) against the central
    difference of central-difference gradients."""
    args = next(case[1] for case in CASES if case[0] is function)
    v = rng.standard_normal(np.shape(args[argnum]))
    tangents = tuple(v if k == argnum else _zero_like(value) for k, value in enumerate(args))
    hvp = s2sad.hvp(function, args, tangents)
    part = hvp[argnum] if isinstance(hvp, tuple) else hvp

    def moved(step):
        return [args[k] + step * v if k == argnum else value for k, value in enumerate(args)]

    h = 1e-4
    numeric = (numerical_gradient(function, moved(h), argnum, eps=1e-5)
               - numerical_gradient(function, moved(-h), argnum, eps=1e-5)) / (2 * h)
    np.testing.assert_allclose(part, numeric, rtol=1e-4, atol=1e-4)


COMPILED = [(rows_reversed, (0, 1)), (map_two_iterables, (0, 1)), (chain_of_arrays_summed, (0, 1)),
            (horner_reversed, (1,)), (map_ufunc_summed, (0,))]


@pytest.mark.parametrize("function, argnums", COMPILED, ids=[c[0].__name__ for c in COMPILED])
def test_compile_true_gives_the_same_gradient(function, argnums):
    pytest.importorskip("numba")
    args = next(case[1] for case in CASES if case[0] is function)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradients = s2sad.grad(function, argnums=argnums, compile=True)(*args)
    assert_gradients_match(function, args, argnums, gradients)
    # what does not compile yet (the helpers behind reversed and chain, a loop's tape of items) runs on
    # the NumPy path, with a warning that says so and names the calls
    for warning in caught:
        assert issubclass(warning.category, s2sad.CompiledFallbackWarning), warning.message
        assert function.__name__ in str(warning.message) and "runs on the NumPy path" in str(warning.message)


def test_generated_code_reads_as_the_loop_map_stands_for():
    text = s2sad.differentiate(map_two_iterables).source
    assert "enumerate(zip(xs, ys))" in text   # the loop of the generator map stands for, over the zip
    assert "= reversed_items_rrule(coefficients)" in s2sad.differentiate(horner_reversed).source
    assert "chained_rrule(" in s2sad.differentiate(chain_in_a_loop).source


# ---------------------------------------------------------------- refusals
def stored_map(xs):
    m = map(square, xs)  # refused: stored map
    return sum(m) + sum(m)


def next_of_reversed(xs):
    return next(reversed(xs)) * 2.0  # refused: next of reversed


def returned_chain(a, b):
    return chain([a], [b])  # refused: returned chain


def map_of_a_computed_function(xs, k):
    return sum(map(make_power(k), xs))  # refused: computed function


def reversed_of_map(xs):
    return sum(reversed(map(square, xs)))  # refused: reversed of map


def make_power(k):
    return lambda v: v ** k


def marked_line(what):
    with open(__file__) as stream:
        for number, line in enumerate(stream, start=1):
            if line.rstrip().endswith(f"# refused: {what}"):
                return number
    raise AssertionError(what)


REFUSED = [
    (stored_map, (XS,), "stored map", "`map(...)` gives an iterator"),
    (next_of_reversed, (XS,), "next of reversed", "`reversed(...)` gives an iterator"),
    (returned_chain, (0.5, 0.25), "returned chain", "`chain(...)` gives an iterator"),
    (map_of_a_computed_function, (XS, 2.0), "computed function", "computed by an expression"),
    (reversed_of_map, (XS,), "reversed of map", "`map(...)` gives an iterator"),
]


@pytest.mark.parametrize("function, args, marker, message", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_naming_file_and_line(function, args, marker, message):
    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(function)(*args)
    error = caught.value
    assert error.location.filename == __file__
    assert error.location.line == marked_line(marker)
    assert message in str(error)
    assert "hint: " in str(error)


def reduce_over_map(x):
    return functools.reduce(lambda a, b: a * b, map(np.cos, x))


def enumerate_reversed(xs):
    total = 0.0
    for k, v in enumerate(reversed(xs)):
        total = total + (k + 1.0) * v ** 2
    return total


@pytest.mark.parametrize("function, args", [(reduce_over_map, (ARR,)), (enumerate_reversed, (XS,))],
                         ids=["reduce_over_map", "enumerate_reversed"])
def test_more_consumers_against_central_differences(function, args):
    assert_gradients_match(function, args, (0,), (s2sad.grad(function)(*args),))


def over_dict_keys(x):
    weights = {"a": 1.0, "b": 2.0}
    total = 0.0
    for key in reversed(weights):
        total = total * x + weights[key]
    for key in chain(weights, ["c"]):
        total = total + len(key) * x
    return total


def test_a_dicts_keys_carry_no_gradient():
    # (2 x + 1) + 3 x: reversed walks the keys b, a; chain the keys and "c"
    assert abs(s2sad.grad(over_dict_keys)(0.5) - 5.0) < 1e-12
    assert abs(numerical_gradient(over_dict_keys, [0.5], 0) - 5.0) < 1e-6
