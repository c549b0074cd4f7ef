"""``return`` inside loops, in all four modes (grad, vjp, jvp, hvp), against central differences.

A loop that may return copies the result out through its ``break``; the primal result starts
as None before the first such loop. Forward mode left the result's *tangent* unbound when that
loop ended without returning, and a later loop that may return (a double loop here) copies the
result, tangent too, into its own names before it starts: ``UnboundLocalError: 'dresult'``
(tests/fuzz_regressions/fuzz_forward_return_in_a_nested_loop_unbound_tangent.py). Each program
is checked on inputs that take each way out: the first loop returns, a later one does, none does.
"""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient


def reduced_from_the_fuzz_regression(x):
    # the smallest program that crashed: a loop that may return and does not, then a double loop
    while np.sum(x) > 5.0:
        if np.sum(x) > 6.0:
            return 2.0 * np.sum(x)
        x = x * 0.5
    for e in x:
        for i in range(1):
            if e > 5.0:
                return e * np.sum(x)
    return np.sum(x ** 2)


def early_return_from_a_double_loop(x):
    for k in range(2):
        if np.sum(x) + k > 15.0:
            return np.prod(x) * (k + 1)
    for e in x:
        for k in range(2):
            if e * k > 1.5:
                return e * np.sum(x ** 3)
            x = np.sin(x) + x
    return np.sum(x)


def return_in_an_if_in_a_for(x):
    for e in x:
        if e > 5.0:
            return np.sum(np.sin(x)) * e
    for e in x:
        if e > 2.0:
            return np.sum(x ** 2) * e
        x = np.tanh(x)
    return np.sum(x)


def return_in_a_while_in_a_for(x):
    j = 0
    while j < 2:
        if np.max(x) > 6.0 + j:
            return np.sum(x) * 0.5
        j = j + 1
    for e in x:
        k = 0
        while k < 3:
            if e + k > 3.5:
                return np.prod(x) * k
            k = k + 1
            x = x * 1.1
    return np.sum(x)


def return_in_a_double_while_after_a_while(x):
    k = 0
    while np.sum(x) > 5.0 and k < 2:
        if np.max(x) > 6.0:
            return 2.0 * np.sum(x)
        k = k + 1
    j = 0
    while j < 2:
        i = 0
        while i < 2:
            if np.sum(x) * i > 3.0:
                return np.sum(x ** 2) * j
            i = i + 1
        x = x * 1.5
        j = j + 1
    return np.sum(x)


PROGRAMS = [reduced_from_the_fuzz_regression, early_return_from_a_double_loop, return_in_an_if_in_a_for,
            return_in_a_while_in_a_for, return_in_a_double_while_after_a_while]
BASE = np.array([-1.1, 0.4, -0.1])
SHIFTS = [0.0, 1.3, 2.0, 6.5]   # no loop returns / a later loop returns / ... / the first loop returns
CASES = [(f, shift) for f in PROGRAMS for shift in SHIFTS]
IDS = [f"{f.__name__}-{shift}" for f, shift in CASES]
DIRECTION = np.array([0.3, -0.2, -0.7])


def finite_hvp(f, x, v, h=1e-4):
    """H v by central differences of f alone: (d/dx_i)(d/dt) f(x + t v), four points a coordinate."""
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e + h * v) - f(x + e - h * v) - f(x - e + h * v) + f(x - e - h * v)) / (4 * h * h)
    return out


@pytest.mark.parametrize("f, shift", CASES, ids=IDS)
def test_grad_and_vjp(f, shift):
    x = BASE + shift
    expected = numerical_gradient(f, [x], 0)
    np.testing.assert_allclose(s2sad.grad(f)(x), expected, rtol=1e-6, atol=1e-7)
    value, pullback = s2sad.vjp(f, x)
    assert value == pytest.approx(f(x), rel=1e-12)
    np.testing.assert_allclose(pullback(1.0)[0], expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, shift", CASES, ids=IDS)
def test_jvp(f, shift):
    x, h = BASE + shift, 1e-6
    value, tangent = s2sad.jvp(f, (x,), (DIRECTION,))
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx((f(x + h * DIRECTION) - f(x - h * DIRECTION)) / (2 * h), rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("f, shift", CASES, ids=IDS)
def test_hvp(f, shift):
    x = BASE + shift
    np.testing.assert_allclose(s2sad.hvp(f, (x,), (DIRECTION,)), finite_hvp(f, x, DIRECTION), rtol=1e-5, atol=1e-5)
