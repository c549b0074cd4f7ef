"""A branch s2sad refuses blocks only the calls that take it (issue 16, item 10).

The refused branch raises its refusal, located at the user's line, when a call takes it; every
other path is differentiated and checked against central finite differences, in both modes;
a warning names the branch once. Refusals outside any branch still refuse the function.
"""
import contextlib
import functools
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import assert_gradients_match, numerical_gradient

rng = np.random.default_rng(10)


def standardise(x, data=None, scale=1.0):
    """Validation on paths the gradient never crosses, as library functions write it."""
    if isinstance(data, list):
        data = np.frombuffer(x)  # no rule: refused, but only when data is a list
        x = x + functools.reduce(np.add, data)
    elif data is not None and np.ndim(data) > 1:
        x.sort()  # changes an argument's order in place: refused here
    elif data is not None:
        x = x - np.mean(data)
    mean = np.mean(x)
    centred = x - mean
    return np.sum(np.tanh(centred / scale) ** 2)


def in_a_loop(x, steps):
    total = 0.0
    for step in range(steps):
        if step > 100:
            x.sort()
        total = total + np.sum(np.sin(x * step))
    return total


def nested(x, mode):
    if mode == "fast":
        if np.sum(x) > 1e9:
            raise ValueError("too large")
        return np.sum(x ** 3)
    else:
        if mode == "exact":
            return np.sum(np.cosh(x))
        else:
            x.sort()
            return np.sum(x)


def straight_line_refusal(x):
    x.sort()
    return np.sum(x)


def refusal_in_the_condition(x):
    if np.frombuffer(x)[0] > 0:
        return np.sum(x)
    return np.sum(x ** 2)


def caught_by_the_user(x, data=None):
    try:
        if data is not None:
            x.sort()
        y = np.sum(x ** 2)
    except Exception:
        y = 0.0
    return y


def caught_by_a_tuple_of_classes(x):
    try:
        y = np.sum(x ** 2)
        if y > 100.0:
            raise KeyError("too large")
    except (ValueError, KeyError):
        y = 0.0
    return y


def through_suppress(x):
    y = x * 2.0
    with contextlib.suppress(ValueError):
        y = y * 3.0
        if np.sum(x) > 0:
            raise ValueError("leave early")
        y = y * 5.0
    return np.sum(y ** 2)


def numerical_tangent(f, args, argnum, tangent, eps=1e-6):
    plus, minus = list(args), list(args)
    plus[argnum] = args[argnum] + eps * tangent
    minus[argnum] = args[argnum] - eps * tangent
    return (f(*plus) - f(*minus)) / (2 * eps)


PATHS = {
    "no data": (standardise, lambda: (rng.standard_normal(5),)),
    "data given": (standardise, lambda: (rng.standard_normal(5), rng.standard_normal(4), 0.7)),
    "loop": (in_a_loop, lambda: (rng.standard_normal(4), 5)),
    "nested fast": (nested, lambda: (rng.standard_normal(3), "fast")),
    "nested exact": (nested, lambda: (rng.standard_normal(3), "exact")),
}


@pytest.mark.parametrize("name", PATHS)
def test_paths_not_taking_the_refused_branch_are_differentiated(name):
    function, make = PATHS[name]
    args = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.RefusedBranchWarning)
        gradient = s2sad.grad(function)(*args)
        tangent = rng.standard_normal(np.shape(args[0]))
        value, pushed = s2sad.jvp(function, args, (tangent,) + tuple(None for _ in args[1:]))
    assert_gradients_match(function, args, (0,), (gradient,))
    np.testing.assert_allclose(value, function(*args), rtol=1e-12)
    np.testing.assert_allclose(pushed, numerical_tangent(function, args, 0, tangent), rtol=1e-5, atol=1e-7)


TAKEN = {
    "list data": (standardise, lambda: (rng.standard_normal(4), [1.0, 2.0]), s2sad.MissingRuleError,
                  "data = np.frombuffer(x)", "rule for `np.frombuffer`"),
    "matrix data": (standardise, lambda: (rng.standard_normal(4), np.ones((2, 2))), s2sad.UnsupportedSyntaxError,
                    "x.sort()", "which the caller passed in"),
    "loop": (in_a_loop, lambda: (rng.standard_normal(4), 102), s2sad.UnsupportedSyntaxError, "x.sort()", "in place"),
    "nested else": (nested, lambda: (rng.standard_normal(3), "other"), s2sad.UnsupportedSyntaxError, "x.sort()",
                    "in place"),
}


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("name", TAKEN)
def test_taking_the_refused_branch_raises_the_refusal_at_the_users_line(name, mode):
    function, make, error, text, words = TAKEN[name]
    args = make()
    before = args[0].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.RefusedBranchWarning)
        with pytest.raises(error) as raised:
            if mode == "reverse":
                s2sad.grad(function)(*args)
            else:
                s2sad.jvp(function, args, (np.ones_like(args[0]),) + tuple(None for _ in args[1:]))
    assert raised.value.location.filename == __file__
    assert raised.value.location.text.strip().startswith(text.split("(")[0])
    assert words in raised.value.message or words in str(raised.value)
    assert "this call took it" in raised.value.hint
    np.testing.assert_array_equal(args[0], before)  # the caller's array is as it was


def test_the_refused_branch_is_named_in_one_warning_at_its_line():
    def validated(x, data=None):
        if data is not None:
            x.sort()
        return np.sum(x ** 2)

    with pytest.warns(s2sad.RefusedBranchWarning) as caught:
        s2sad.grad(validated)(rng.standard_normal(3))
    mine = [w for w in caught if w.filename == __file__]
    assert len(mine) == 1
    assert "x.sort" not in str(mine[0].message) and "changes `x` in place" in str(mine[0].message)
    assert mine[0].lineno == validated.__code__.co_firstlineno + 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.RefusedBranchWarning)
        s2sad.grad(validated)(rng.standard_normal(3))  # the same function again: no second warning


@pytest.mark.parametrize("function, words", [
    (straight_line_refusal, "changes `x` in place"),
    (refusal_in_the_condition, "no rule for `np.frombuffer`"),
])
def test_refusals_outside_a_branch_still_refuse_the_function(function, words):
    with pytest.raises(s2sad.S2SADError, match=words):
        s2sad.grad(function)(rng.standard_normal(3))


def test_a_refused_branch_caught_by_the_users_except_is_still_refused():
    x = rng.standard_normal(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.RefusedBranchWarning)
        np.testing.assert_allclose(s2sad.grad(caught_by_the_user)(x), numerical_gradient(caught_by_the_user, (x,), 0),
                                   rtol=1e-6)
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="was raised in a `try` block"):
            s2sad.grad(caught_by_the_user)(x, 1.0)


@pytest.mark.parametrize("mode", ["grad", "hvp"])
def test_an_except_naming_a_tuple_of_classes_refuses_what_it_catches(mode):
    """``except (A, B)`` was written ``except ((A, B), )``, which Python refuses as it catches
    (a TypeError instead of the refusal); hvp met it with one class too, in the jvp module's own
    ``except (A, )`` read again."""
    small, large = np.full(3, 0.5), np.full(3, 7.0)
    run = {"grad": lambda x: s2sad.grad(caught_by_a_tuple_of_classes)(x),
           "hvp": lambda x: s2sad.hvp(caught_by_a_tuple_of_classes, (x,), (np.ones(3),))}[mode]
    np.testing.assert_allclose(run(small), 2.0 * small if mode == "grad" else 2.0 * np.ones(3), rtol=1e-12)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="was raised in a `try` block"):
        run(large)
    if mode == "hvp":
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="was raised in a `try` block"):
            s2sad.hvp(caught_by_the_user, (small, 1.0), (np.ones(3), 0.0))


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_context_manager_that_swallows_an_exception_is_refused_not_wrong(mode):
    negative = -np.abs(rng.standard_normal(3))
    positive = np.abs(rng.standard_normal(3))
    if mode == "reverse":
        gradient = s2sad.grad(through_suppress)(negative)
        np.testing.assert_allclose(gradient, numerical_gradient(through_suppress, (negative,), 0), rtol=1e-6)
        run = functools.partial(s2sad.grad(through_suppress), positive)
    else:
        value, tangent = s2sad.jvp(through_suppress, (negative,), (np.ones(3),))
        np.testing.assert_allclose(tangent, numerical_tangent(through_suppress, (negative,), 0, np.ones(3)), rtol=1e-6)
        run = functools.partial(s2sad.jvp, through_suppress, (positive,), (np.ones(3),))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="swallowed it") as raised:
        run()
    assert "contextlib.suppress" in raised.value.location.text
