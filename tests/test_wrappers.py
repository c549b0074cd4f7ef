"""Decorators are code, and s2sad's own transforms are not differentiated again (issue 15, item 1).

A ``functools.wraps`` wrapper's ``__wrapped__`` names the function it wraps; following it
skipped the wrapper's own code (``10 * fn(x)`` gave 2x, not 20x). Every gradient here is
compared with central finite differences of the decorated function as Python runs it, or
with a hand-derived formula; every refusal with its class and what its message names.
"""
import functools
import os
import time

import numpy as np
import pytest

import s2sad
from markers import line_marked
from s2sad.errors import ArgumentError, S2SADError, SourceUnavailableError, MissingRuleError
from finite_differences import numerical_gradient

FILE = os.path.abspath(__file__)
X = np.array([0.5, -1.0, 2.0])


def line_of(marker: str) -> int:
    return line_marked(FILE, marker)


def scaled(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 10.0 * fn(x)
    return wrapper


def shifted(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(x + 1.0)
    return wrapper


@scaled
def scaled_square(x):
    return np.sum(x ** 2)


@scaled
@shifted
def stacked(x):
    return np.sum(x ** 3)


def calls_scaled_square(x):
    return scaled_square(x) + np.sum(np.sin(x))


def logged(fn):
    @functools.wraps(fn)
    def wrapper(x):
        print("calling", fn.__name__)
        start = time.perf_counter()
        result = fn(x)
        elapsed = time.perf_counter() - start
        return result
    return wrapper


@logged
def logged_sine(x):
    return np.sum(np.sin(x) * x)


DECORATED = [scaled_square, stacked, calls_scaled_square, logged_sine]


@pytest.mark.parametrize("function", DECORATED, ids=["scaled", "stacked", "called", "logged"])
def test_a_decorators_code_is_differentiated(function):
    expected = numerical_gradient(function, [X], 0)
    np.testing.assert_allclose(s2sad.grad(function)(X), expected, rtol=1e-6, atol=1e-7)
    v = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(s2sad.jvp(function, (X,), (v,))[1], expected @ v, rtol=1e-6, atol=1e-7)
    y, pullback = s2sad.vjp(function, X)
    np.testing.assert_allclose(pullback(1.0)[0], expected, rtol=1e-6, atol=1e-7)


def test_the_scaling_wrapper_by_hand():
    np.testing.assert_allclose(s2sad.grad(scaled_square)(X), 20.0 * X)  # not 2x
    np.testing.assert_allclose(s2sad.grad(stacked)(X), 30.0 * (X + 1.0) ** 2)


def test_differentiate_still_calls_the_original():
    marked = s2sad.differentiate(scaled_square)
    np.testing.assert_allclose(marked.grad(X), 20.0 * X)


# ---------------------------------------------------------------------- forwarding wrappers
def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        result = fn(*args, **kwargs)
        elapsed = time.perf_counter() - start
        return result
    return wrapper


def timed_finally(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            print("took", time.perf_counter() - start)
    return wrapper


CALLS = []


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        CALLS.append(fn.__name__)
        with open(os.devnull, "w") as sink:
            result = fn(*args)
        return result
    return wrapper


@timed
def timed_sine(x):
    return np.sum(np.sin(x) * x)


@timed_finally
def timed_cube(x, y):
    return np.sum(x ** 3 * y)


@counted
def counted_exp(x):
    return np.sum(np.exp(x))


@timed
@scaled
def timed_scaled(x):
    return np.sum(x ** 2)


def calls_timed(x):
    return timed_sine(x) * 2.0 + counted_exp(x)


TRANSPARENT = [timed_sine, counted_exp, timed_scaled, calls_timed]


@pytest.mark.parametrize("function", TRANSPARENT, ids=[f.__name__ for f in TRANSPARENT])
def test_a_wrapper_returning_fn_of_args_unchanged_is_differentiated(function):
    expected = numerical_gradient(function, [X], 0)
    np.testing.assert_allclose(s2sad.grad(function)(X), expected, rtol=1e-6, atol=1e-7)
    v = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(s2sad.jvp(function, (X,), (v,))[1], expected @ v, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2sad.vjp(function, X)[1](1.0)[0], expected, rtol=1e-6, atol=1e-7)


def test_a_forwarding_wrapper_of_two_arguments():
    y = np.array([1.0, 2.0, 3.0])
    dx, dy = s2sad.grad(timed_cube, argnums=(0, 1))(X, y)
    np.testing.assert_allclose(dx, numerical_gradient(timed_cube, [X, y], 0), rtol=1e-6)
    np.testing.assert_allclose(dy, numerical_gradient(timed_cube, [X, y], 1), rtol=1e-6)
    np.testing.assert_allclose(s2sad.grad(timed_scaled)(X), 20.0 * X)  # the inner wrapper's 10 is kept


def doubling_forwarder(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 3.0 * fn(*args, **kwargs)  # forwarding
    return wrapper


def changes_the_result(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        result = fn(*args)  # forwarding
        result *= 2.0
        return result
    return wrapper


def looks_at_the_arguments(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        print("arguments", args)
        return fn(*args)  # forwarding
    return wrapper


def retries(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        for attempt in range(2):
            result = fn(*args)  # forwarding
        return result
    return wrapper


def caches(fn):
    memo = {}

    @functools.wraps(fn)
    def wrapper(*args):
        if id(args[0]) in memo:
            return memo[id(args[0])]
        return fn(*args)  # forwarding
    return wrapper


def forwards_to_another(fn):
    other = np.sum

    @functools.wraps(fn)
    def wrapper(*args):
        return other(*args)  # forwarding
    return wrapper


def cube_sum(x):
    return np.sum(x ** 3)


NOT_TRANSPARENT = [doubling_forwarder, changes_the_result, looks_at_the_arguments, retries, caches,
                   forwards_to_another]


@pytest.mark.parametrize("decorator", NOT_TRANSPARENT, ids=[d.__name__ for d in NOT_TRANSPARENT])
def test_a_forwarding_wrapper_that_does_more_is_differentiated_as_written(decorator):
    # its `fn(*args)` is a call like any other: the wrapper's own arithmetic is differentiated too
    function = decorator(cube_sum)
    expected = numerical_gradient(function, [X], 0)
    np.testing.assert_allclose(s2sad.grad(function)(X), expected, rtol=1e-6, atol=1e-7)
    v = np.array([1.0, 2.0, -1.0])
    np.testing.assert_allclose(s2sad.jvp(function, (X,), (v,))[1], expected @ v, rtol=1e-6, atol=1e-7)


def cached_square(x):
    return x * x


cached_square = functools.lru_cache(maxsize=None)(cached_square)


def calls_cached_square(x):
    return cached_square(x) + 1.0  # cached


def test_lru_cache_is_refused_naming_it():
    with pytest.raises(SourceUnavailableError, match="functools.lru_cache"):
        s2sad.grad(cached_square)(0.5)
    with pytest.raises(MissingRuleError, match="functools.lru_cache") as raised:
        s2sad.grad(calls_cached_square)(0.5)
    assert str(raised.value).startswith(f"{FILE}:") and "cached_square(x)" in str(raised.value)


def star_function(*xs):
    return np.sum(xs[0] * xs[1] ** 2)


def test_argnums_count_the_arguments_of_a_star_function():
    a, b = X, np.array([1.0, -2.0, 0.5])
    da, db = s2sad.grad(star_function, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(da, b ** 2)
    np.testing.assert_allclose(db, 2 * a * b)
    np.testing.assert_allclose(s2sad.grad(star_function, argnums=1)(a, b), 2 * a * b)
    y, pullback = s2sad.vjp(star_function, a, b)
    for _ in range(2):
        np.testing.assert_allclose(pullback(1.0)[1], 2 * a * b)


# ---------------------------------------------------------------------- compositions of s2sad's transforms
def cubic_sine(x):
    return x ** 3 * np.sin(x)


def cubic_sine_derivative(x):  # by hand
    return 3 * x ** 2 * np.sin(x) + x ** 3 * np.cos(x)


def cubic_sine_second(x):  # by hand
    return 6 * x * np.sin(x) + 6 * x ** 2 * np.cos(x) - x ** 3 * np.sin(x)


def sum_cubic_sine(x):
    return np.sum(x ** 3 * np.sin(x))


FUNCTION_TRANSFORMS = {"grad": s2sad.grad, "value_and_grad": s2sad.value_and_grad, "jacfwd": s2sad.jacfwd,
                       "jacrev": s2sad.jacrev, "jacobian": s2sad.jacobian, "hessian": s2sad.hessian}


def apply_outer(outer: str, function, x):
    if outer in FUNCTION_TRANSFORMS:
        return FUNCTION_TRANSFORMS[outer](function)(x)
    if outer == "vjp":
        return s2sad.vjp(function, x)[1](np.ones_like(np.asarray(function(x))))
    if outer == "jvp":
        return s2sad.jvp(function, (x,), (np.ones_like(x),))
    return s2sad.hvp(function, (x,), (np.ones_like(x),))


OUTERS = list(FUNCTION_TRANSFORMS) + ["vjp", "jvp", "hvp"]
BY_HAND = {"grad": cubic_sine_derivative, "jacfwd": cubic_sine_derivative, "jacrev": cubic_sine_derivative,
           "jacobian": cubic_sine_derivative, "hessian": cubic_sine_second}


@pytest.mark.parametrize("inner", list(BY_HAND))
@pytest.mark.parametrize("outer", OUTERS)
def test_a_composition_is_right(outer, inner):
    """Each transform of each derivative of a scalar function (tests/test_compositions.py:
    arrays and containers), against differences of the derivative written by hand."""
    first = FUNCTION_TRANSFORMS[inner](cubic_sine)
    for x in (0.7, np.float64(-1.3)):
        got = apply_outer(outer, first, x)
        got = got[0] if outer == "vjp" else got[1] if outer in ("jvp", "value_and_grad") else got
        if outer in ("hessian", "hvp"):
            expected = numerical_gradient(lambda t: numerical_gradient(BY_HAND[inner], [t], 0, eps=1e-4), [float(x)], 0, eps=1e-4)
            np.testing.assert_allclose(got, expected, rtol=1e-5)
        else:
            np.testing.assert_allclose(got, numerical_gradient(BY_HAND[inner], [float(x)], 0), rtol=1e-6)


@pytest.mark.parametrize("outer", ["grad", "hvp"])
def test_a_composition_that_is_not_scalar_is_refused_as_jax_refuses_it(outer):
    """A scalar-output transform of ``value_and_grad`` (a pair), or of a gradient of an array."""
    with pytest.raises(ArgumentError, match="scalar"):
        apply_outer(outer, s2sad.value_and_grad(cubic_sine), 0.7)
    with pytest.raises(ArgumentError, match="scalar"):
        apply_outer(outer, s2sad.grad(sum_cubic_sine), X)


def test_grad_of_grad_of_grad_by_hand():
    third = s2sad.grad(s2sad.grad(s2sad.grad(cubic_sine)))
    expected = numerical_gradient(cubic_sine_second, [0.7], 0)
    np.testing.assert_allclose(third(0.7), expected, rtol=1e-6)


GRADIENT_OF_SUM = s2sad.grad(sum_cubic_sine)


def calls_a_gradient(x):
    return np.sum(GRADIENT_OF_SUM(x))  # gradient call


def calls_vjp(x):
    y, pullback = s2sad.vjp(sum_cubic_sine, x)  # vjp call
    return np.sum(pullback(1.0)[0])


def test_a_gradient_called_in_a_differentiated_function_is_differentiated():
    second = s2sad.grad(calls_a_gradient)(X)
    np.testing.assert_allclose(second, cubic_sine_second(X), rtol=1e-10)
    np.testing.assert_allclose(s2sad.jvp(calls_a_gradient, (X,), (np.ones(3),))[1], np.sum(cubic_sine_second(X)), rtol=1e-10)


@pytest.mark.parametrize("function, marker", [(calls_vjp, "vjp call")])
def test_a_value_transform_called_in_a_differentiated_function_is_refused(function, marker):
    for run in (lambda: s2sad.grad(function)(X), lambda: s2sad.jvp(function, (X,), (np.ones(3),))):
        with pytest.raises(S2SADError) as raised:
            run()
        message = str(raised.value)
        assert message.startswith(f"{FILE}:{line_of(marker)}:"), message
        assert not isinstance(raised.value, ArgumentError)


def wraps_a_gradient(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


def test_a_users_wrapper_around_a_gradient_is_not_taken_for_the_gradient():
    # functools.wraps copies grad(f)'s attributes onto the wrapper: the wrapper is still user code
    wrapped = wraps_a_gradient(s2sad.grad(cubic_sine))
    np.testing.assert_allclose(s2sad.grad(wrapped)(0.7), 2.0 * cubic_sine_second(0.7), rtol=1e-10)


# ---------------------------------------------------------------------- decorated methods, decorator classes
def scaled_method(fn):
    @functools.wraps(fn)
    def wrapper(self, x):
        return 10.0 * fn(self, x)
    return wrapper


class Model:
    def __init__(self):
        self.w = np.array([2.0, -1.0, 0.5])

    @scaled_method
    def loss(self, x):  # its generated rrule is named loss_rrule_2: `loss_rrule` is taken by the method itself
        return np.sum(self.w * x ** 2)


MODEL = Model()


def calls_a_decorated_method(x):
    return MODEL.loss(x) + np.sum(x)


def test_a_decorated_method_is_differentiated_with_its_decorator():
    expected = numerical_gradient(calls_a_decorated_method, [X], 0)
    np.testing.assert_allclose(s2sad.grad(calls_a_decorated_method)(X), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(expected, 20.0 * MODEL.w * X + 1.0, rtol=1e-6)  # by hand: the 10 is there


class Doubled:
    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, x):
        return 2.0 * self.fn(x)


@Doubled
def doubled_square(x):
    return np.sum(x ** 2)


def calls_doubled_square(x):
    return doubled_square(x)  # decorator class


def test_a_decorator_class_is_refused_naming_it_and_called_through_its_call_method():
    with pytest.raises(SourceUnavailableError, match="decorator class"):
        s2sad.grad(doubled_square)(X)
    # called from differentiated code, the object is called as `doubled_square.__call__(x)`: its method's source
    np.testing.assert_allclose(s2sad.grad(calls_doubled_square)(X), 4.0 * X)  # d/dx 2 sum(x^2), by hand


def test_a_plain_function_s_source_is_read_without_looking_at_every_module(tmp_path, monkeypatch):
    """Its module is found by name: ``inspect`` given its code instead looked up the file of every
    module imported (30 ms of a compiled gradient's cold first call, with Numba's ~800)."""
    import inspect
    import sys

    from s2sad.frontend.wrappers import source_lines

    (tmp_path / "lately_written.py").write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import lately_written

    looked_up = []
    absolute = inspect.getabsfile
    monkeypatch.setattr(inspect, "getabsfile", lambda *args: looked_up.append(args) or absolute(*args))
    try:
        assert source_lines(lately_written.f) == (["def f(x):\n", "    return np.sum(x * x)\n"], 4)
    finally:
        sys.modules.pop("lately_written", None)
    assert not looked_up
