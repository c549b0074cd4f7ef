"""``for``/``while ... else``, the walrus ``:=`` and ``nonlocal`` in nested functions.

The first two are written out as plain statements before the fence
(s2sad/frontend/loop_else_and_walrus.py); a nested function's ``nonlocal`` names are handed
back to the enclosing function where its call is written out (normalize_calls.py). Every
program is checked in grad and jvp against central differences in float64, on inputs at
least 0.1 away from every branch threshold, one input per way through it; the refusals
are in test_fence.py.
"""
import inspect
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient
from s2sad.transform import transform

# ---------------------------------------------------------------- for / while ... else


def for_else_without_break(x):
    for i in range(3):
        if i > 5:
            break
    else:
        x = x * 2.0
    return np.sum(x ** 2)


def for_else_that_may_break(x):
    for e in x:
        if e > 1.0:
            x = x * e
            break
        x = np.sin(x)
    else:
        x = x * 2.0
    return np.sum(x ** 2)


def while_else_that_may_break(x):
    k = 0
    while np.sum(x) < 3.0:
        if k > 2:
            break
        x = x * 1.5 + 0.05
        k = k + 1
    else:
        x = np.tanh(x)
    return np.sum(x * x[0])


def inner_break_leaves_the_outer_else_to_run(x):
    # the inner loop's `break` is its own: the outer loop's `else` still runs
    total = 0.0
    for e in x:
        for k in range(3):
            if e * k > 0.7:
                break
            total = total + np.sin(e * k)
        else:
            total = total + e
    else:
        total = total * 3.0
    return total


def break_in_a_nested_loops_else(x):
    # a `break` in the inner loop's `else` leaves the outer loop (whose `else` then does not run)
    total = 0.0
    for e in x:
        k = 0
        while k < 2:
            if e * k > 2.5:
                break
            k = k + 1
        else:
            total = total + e * e
            if total > 1.0:
                break
        total = total + np.cos(e)
    else:
        total = total - 10.0
    return total


def return_in_a_for_else(x):
    for e in x:
        if e > 1.0:
            break
    else:
        return np.sum(np.exp(x))
    return np.sum(x ** 3)


# ---------------------------------------------------------------- the walrus


def walrus_in_an_if(x):
    if (n := np.sum(x)) > 0:
        return n * 2.0 + np.sum(x ** 2)
    return n * np.prod(x)


def walrus_in_an_elif(x):
    if np.max(x) > 5.0:
        return np.sum(x)
    elif (m := np.sum(x ** 2)) > 1.0:
        return m * np.sum(x)
    return -m


def walrus_inside_a_call_in_the_test(x):
    if np.abs(d := x[0] - x[1]) > 0.5:
        return d * np.sum(x)
    return d ** 2


def walrus_in_a_while(x):
    r = x
    k = 0
    while (s := np.sum(r ** 2)) > 0.5:   # evaluated again before each iteration, after `continue` too
        k = k + 1
        if k == 1:
            r = r * 0.9
            continue
        r = r * 0.7
    return s + np.sum(r)


def walrus_in_a_while_with_an_else(x):
    r = x
    while (s := np.sum(r ** 2)) > 0.5:
        if s > 20.0:
            break
        r = r * 0.6
    else:
        r = r + 1.0
    return s * np.sum(r)


def nested_walruses(x):
    if (a := (b := np.sum(x)) * 2.0) > 0.0:
        return a * b
    return a - b


# ---------------------------------------------------------------- nonlocal


def nonlocal_total(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
    add(x)
    add(x * x)
    return np.sum(total * x)


def nonlocal_in_a_loop_and_a_branch(x):
    total = 0.0
    count = 0

    def add(v, w):
        nonlocal total, count
        if np.sum(v) > 0.0:
            total = total + np.sin(v) * w
            count = count + 1
            return count
        total = total * 0.5
        return -1
    c = 0
    for k in range(3):
        c = add(x * k - 0.2, total + 1.0)
    return np.sum(total) * c + np.sum(total ** 2)


def nonlocal_read_before_and_after_the_call(x):
    state = x

    def step():
        nonlocal state
        state = np.tanh(state) * 2.0
        return np.sum(state)
    a = step() + np.sum(state)   # the call runs first: `state` then holds the new value
    b = np.sum(state) + step()   # `state` is read first: the value before this call
    return a * b


def nonlocal_in_a_comprehension(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return total
    partial_sums = [add(v) for v in x]
    return total * partial_sums[0] + partial_sums[-1]


def nonlocal_through_two_nested_functions(x):
    total = x

    def outer(v):
        def inner(w):
            nonlocal v
            v = v * w
        inner(2.0)
        nonlocal total
        total = total + v
    outer(np.sin(x))
    outer(x)
    return np.sum(total ** 2)


X = np.array([0.3, 1.2, -0.5])
INPUTS = [X, -X, 0.2 * X + 0.1, X + 2.0, 2.5 * X]
PROGRAMS = [for_else_without_break, for_else_that_may_break, while_else_that_may_break,
            inner_break_leaves_the_outer_else_to_run, break_in_a_nested_loops_else, return_in_a_for_else,
            walrus_in_an_if, walrus_in_an_elif, walrus_inside_a_call_in_the_test, walrus_in_a_while,
            walrus_in_a_while_with_an_else, nested_walruses,
            nonlocal_total, nonlocal_in_a_loop_and_a_branch, nonlocal_read_before_and_after_the_call,
            nonlocal_in_a_comprehension, nonlocal_through_two_nested_functions]
CASES = [(f, i) for f in PROGRAMS for i in range(len(INPUTS))]
IDS = [f"{f.__name__}-{i}" for f, i in CASES]
DIRECTION = np.array([0.3, -0.2, -0.7])


def smooth_at(f, x, h=1e-3):
    """Whether f is smooth around x (no branch threshold within reach of the finite
    differences): the central second difference along each coordinate stays moderate."""
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        if abs(f(x + e) - 2 * f(x) + f(x - e)) / h ** 2 > 1e4:
            return False
    return True


def test_every_input_is_smooth():
    assert [(f.__name__, i) for f, i in CASES if not smooth_at(f, INPUTS[i])] == []


@pytest.mark.parametrize("f, i", CASES, ids=IDS)
def test_grad(f, i):
    x = INPUTS[i]
    value, gradient = s2sad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(gradient, numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, i", CASES, ids=IDS)
def test_jvp(f, i):
    x, h = INPUTS[i], 1e-6
    value, tangent = s2sad.jvp(f, (x,), (DIRECTION,))
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx((f(x + h * DIRECTION) - f(x - h * DIRECTION)) / (2 * h), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("f", [for_else_that_may_break, while_else_that_may_break, walrus_in_a_while, nonlocal_total],
                         ids=lambda f: f.__name__)
def test_compiled(f):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # compiled, not the NumPy path
        for x in INPUTS[:3]:
            np.testing.assert_allclose(s2sad.grad(f, compile=True)(x), numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-7)


def test_every_path_is_taken():
    """The inputs reach each way through the loops: with and without `break`, each walrus branch."""
    taken = {f.__name__: {round(float(f(x)), 12) for x in INPUTS} for f in PROGRAMS}
    assert all(len(values) >= 3 for values in taken.values()), taken
    ends = set()
    for x in INPUTS:   # for_else_that_may_break: broke (some e > 1) or ran its else (none)
        ends.add(bool(np.any(x > 1.0)))
    assert ends == {True, False}


def test_a_loop_else_is_a_flag_in_the_generated_code():
    source = transform(for_else_that_may_break, ("x",)).source
    assert "    broke = False\n" in source
    assert "broke_2 = True" in source
    assert "not_broke = not broke" in source
    # the flag is set under the comment of the loop's line, tested under the `else`'s
    lines, first = inspect.getsourcelines(for_else_that_may_break)
    loop_line = first + next(i for i, line in enumerate(lines) if "for e in x" in line)
    else_line = first + next(i for i, line in enumerate(lines) if line.strip() == "else:")
    assert f"    # test_loop_else_walrus_nonlocal.py:{loop_line}: for e in x:\n    broke = False\n" in source
    assert f"    # test_loop_else_walrus_nonlocal.py:{else_line}: else:\n    not_broke = not broke\n" in source


def test_a_flag_takes_a_name_the_function_does_not_use():
    def uses_broke(x):
        broke = x * 2.0
        for e in x:
            if e > 1.0:
                break
        else:
            broke = broke + 1.0
        return np.sum(broke)
    x = np.array([0.3, 0.2])
    np.testing.assert_allclose(s2sad.grad(uses_broke)(x), numerical_gradient(uses_broke, [x], 0), rtol=1e-6)
    assert "broke_2 = False" in transform(uses_broke, ("x",)).source


class _Scaler:
    def __init__(self, w):
        self.w = w

    def scale(self, v):
        return self.w * v


def walrus_rebinding_the_callee(x):
    s = _Scaler(2.0)
    if s.scale(s := _Scaler(x)) is not None:   # `s.scale` is looked up before `s` is rebound
        return x * 2.0
    return x


def test_a_walrus_rebinding_a_name_its_call_looked_up_first_is_refused():
    from s2sad.errors import UnsupportedSyntaxError

    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(walrus_rebinding_the_callee)(1.0)
    lines, first = inspect.getsourcelines(walrus_rebinding_the_callee)
    index = next(i for i, line in enumerate(lines) if "s := " in line)
    assert caught.value.location.line == first + index
    assert caught.value.location.column == lines[index].index("s := ") + 1
    assert "where it runs first in the test" in str(caught.value)


# A nested function whose `nonlocal` names a variable further out than the nested function
# calling it: written out inside that caller, the call rebound the caller's copy, not the
# outer variable (the fuzzer's session-13 finding: `outer(x) + a` gave s + ..., not the new a).
def nonlocal_of_the_function_two_levels_out(x):
    a = 0.5 * x

    def outer(v):
        def inner(w):
            nonlocal a
            a = a * w + 0.5
        inner(v)
        return v * 2.0
    return np.sum(outer(x) + a)


def nonlocal_of_a_sibling_called_from_a_function_with_its_own_name(x):
    a = 0.5 * x

    def bump(v):
        nonlocal a
        a = a * v + 0.5

    def outer(v):
        a = v * 3.0   # outer's own `a`: bump rebinds the function's `a`, not this one
        bump(v)
        return a
    return np.sum(outer(x) + a)


@pytest.mark.parametrize("f, called", [(nonlocal_of_the_function_two_levels_out, "inner(v)"),
                                       (nonlocal_of_a_sibling_called_from_a_function_with_its_own_name, "bump(v)")])
def test_a_nonlocal_reaching_past_the_calling_nested_function_is_refused(f, called):
    from s2sad.errors import UnsupportedSyntaxError

    with pytest.raises(UnsupportedSyntaxError) as caught:
        s2sad.grad(f)(X)
    lines, first = inspect.getsourcelines(f)
    index = next(i for i, line in enumerate(lines) if line.strip() == called)
    assert caught.value.location.line == first + index
    assert "(nonlocal) of a function further out than `outer`" in str(caught.value)
