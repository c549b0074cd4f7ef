"""Calls s2sad does not differentiate, given a differentiated value, are refused (issue 15, item 6).

Before, a compiled callee with no rule and no source that received a differentiated value
was run as a constant: ``np.copyto(buf, x)`` or ``np.add(x, 1, out=buf)`` then
``np.sum(buf)`` gave an all-zero gradient. Each refusal is checked for its class and for
naming this file, the call's line and its text; each case s2sad keeps is checked against
central finite differences (tests/finite_differences.py) or a hand-derived formula.
"""
import math
import os

import numpy as np
import pytest

import s2sad
from markers import line_marked
from s2sad.errors import MissingRuleError, S2SADError, UnsupportedSyntaxError
from finite_differences import numerical_gradient

FILE = os.path.abspath(__file__)


def line_of(marker: str) -> int:
    return line_marked(FILE, marker)


# ---------------------------------------------------------------------- refused: they would give zeros
def copies_into_a_buffer_where(x):
    buf = np.empty(3)
    np.copyto(buf, x, where=x > 0)  # copyto
    return np.sum(buf * buf)


def compiled_sum(x):
    return np.sum(np.cov(x, -x)) * 2.0  # cov


def compiled_sum_unused(x):
    total = np.cov(x, -x)  # cov unused
    return np.sum(x ** 2)


class CompiledLoss:
    """Stands for a Cython object: its method is C code writing into ``loss_out``."""

    def __init__(self):
        self.loss = np.copyto


CLOSS = CompiledLoss()


def calls_a_compiled_method(x):
    buf = np.zeros(3)
    CLOSS.loss(buf, x)  # compiled method
    return np.sum(buf * x)


def draws_around_x(x):
    np.random.seed(0)
    return np.sum(np.random.normal(x, 1.0))  # normal


def fill_helper(buf, x):
    buf[:] = x


def helper_writing_into_an_argument(x):
    buf = np.zeros(3)
    fill_helper(buf, x)  # helper effect
    return np.sum(buf * buf)


def fill_and_report(buf, x):
    buf[:] = x
    return 0.0


def helper_result_unused(x):
    buf = np.zeros(3)
    status = fill_and_report(buf, x)  # helper unused result
    return np.sum(buf * buf)


def fill_a_view(x):
    buf = np.zeros(5)
    fill_helper(buf[0:3], x)  # helper into a view
    return np.sum(buf * buf)


def fill_and_test(x):
    buf = np.zeros(3)
    status = fill_and_report(buf, x)  # helper result tested
    if status == 0.0:
        return np.sum(buf * buf)
    return 0.0


REFUSED = [
    (copies_into_a_buffer_where, "copyto", UnsupportedSyntaxError, "np.copyto(buf, x, where=x > 0)"),
    (compiled_sum, "cov", MissingRuleError, "np.cov"),
    (compiled_sum_unused, "cov unused", MissingRuleError, "np.cov"),
    (calls_a_compiled_method, "compiled method", MissingRuleError, "CLOSS.loss(buf, x)"),
    (draws_around_x, "normal", MissingRuleError, "np.random.normal"),
    (helper_writing_into_an_argument, "helper effect", UnsupportedSyntaxError, "fill_helper(buf, x)"),
    (helper_result_unused, "helper unused result", UnsupportedSyntaxError, "fill_and_report(buf, x)"),
    (fill_a_view, "helper into a view", UnsupportedSyntaxError, "fill_helper(buf[0:3], x)"),
    (fill_and_test, "helper result tested", UnsupportedSyntaxError, "fill_and_report(buf, x)"),
]


@pytest.mark.parametrize("mode", ["grad", "jvp", "vjp"])
@pytest.mark.parametrize("function, marker, error, text", REFUSED, ids=[case[1] for case in REFUSED])
def test_a_call_given_a_differentiated_value_without_a_rule_is_refused(function, marker, error, text, mode):
    x = np.array([0.5, -1.5, 2.0])
    with pytest.raises(error) as raised:
        if mode == "grad":
            s2sad.grad(function)(x)
        elif mode == "jvp":
            s2sad.jvp(function, (x,), (np.ones(3),))
        else:
            s2sad.vjp(function, x)[1](1.0)
    message = str(raised.value)
    assert message.startswith(f"{FILE}:{line_of(marker)}:"), message
    assert text in message
    assert "hint:" in message


def test_the_no_rule_message_says_how_to_register_one():
    with pytest.raises(MissingRuleError, match=r"no rule for `np.cov`.*\n.*\n.*\nhint: register one with s2sad.defvjp"):
        s2sad.grad(compiled_sum)(np.array([1.0, 2.0]))


# ---------------------------------------------------------------------- kept: right as they are
def prints_x(x):
    print("x has shape", x.shape, x)
    return np.sum(x ** 2)


def floats_x(x):
    return float(np.sum(x)) * 2.0


def truncates_x(x):
    return int(np.sum(x)) * np.sum(x)


def rounds_x(x):
    return np.sum(np.round(x) * x + np.floor(x) * x)


def draws_noise_of_constant_parameters(x):
    np.random.seed(1)
    return np.sum(x * np.random.normal(0.0, 1.0, size=3))


def constant_into_a_buffer(x):
    buf = np.arange(3.0)
    np.add(buf, 1.0, out=buf)
    return np.sum(buf * x)


def adds_x_into_out(x):
    buf = np.empty(3)
    np.add(x, 1.0, out=buf)  # a write through out= is differentiated as buf[...] = x + 1.0
    return np.sum(buf * buf)


def asks_a_helper(x):
    if is_small(x):
        return np.sum(x ** 2)
    return np.sum(x ** 3)


def is_small(x):
    return math.prod(np.abs(x).tolist()) < 100.0


def reads_x_max(x):
    scale = x.max()
    if scale > 0:
        return np.sum(x * 3.0)
    return np.sum(x)


def only_reads(a, b):
    if a.shape[0] > 3:
        return np.sum(a[0] * b) + 1.0
    return np.max(np.abs(a)) - b


def result_of_a_reading_helper_unused(x):
    unused = only_reads(x, 2.0)
    return np.sum(x ** 2)


def copies_into_a_buffer(x):
    buf = np.empty(3)
    np.copyto(buf, x)  # refused before session 13: now `buf[...] = written_into(x, buf)`
    return np.sum(buf * buf)


KEPT = [copies_into_a_buffer, result_of_a_reading_helper_unused, prints_x, floats_x, truncates_x, rounds_x, draws_noise_of_constant_parameters, constant_into_a_buffer,
        adds_x_into_out,
        asks_a_helper, reads_x_max]


@pytest.mark.parametrize("function", KEPT, ids=[f.__name__ for f in KEPT])
def test_calls_that_leave_differentiated_values_alone_are_differentiated(function):
    x = np.array([0.3, -1.2, 2.4])  # away from the jumps of round, floor and int
    expected = numerical_gradient(function, [x], 0)
    np.testing.assert_allclose(s2sad.grad(function)(x), expected, rtol=1e-6, atol=1e-7)
    v = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(s2sad.jvp(function, (x,), (v,))[1], expected @ v, rtol=1e-6, atol=1e-7)


def test_rounding_and_truncation_have_zero_slope():
    # hand-derived: d/dx (round(x) * x) = round(x) away from the jumps
    x = np.array([0.3, -1.2, 2.4])
    np.testing.assert_allclose(s2sad.grad(rounds_x)(x), np.round(x) + np.floor(x))
    np.testing.assert_allclose(s2sad.grad(truncates_x)(x), np.full(3, float(int(np.sum(x)))))


class CompiledSum:
    """Stands for a Cython object whose method computes a value from its argument."""

    def __init__(self):
        self.total = np.cov


CSUM = CompiledSum()


def uses_a_compiled_methods_result(x):
    return np.sum(CSUM.total(x, -x)) * 2.0  # compiled method result


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_compiled_methods_result_is_refused_at_its_call(mode):
    x = np.array([0.5, -1.5, 2.0])
    with pytest.raises(MissingRuleError) as raised:
        if mode == "grad":
            s2sad.grad(uses_a_compiled_methods_result)(x)
        else:
            s2sad.jvp(uses_a_compiled_methods_result, (x,), (np.ones(3),))
    message = str(raised.value)
    # raised as the generated code runs: located by the generated code's comments, which name the file's base name
    assert f"{os.path.basename(FILE)}:{line_of('compiled method result')}:" in message.splitlines()[0], message
    assert "rule for numpy.cov" in message and "hint: register one" in message


def reads_with_keywords(a, b):
    b = np.sum(a, axis=0) * b  # rebinding a parameter and keyword arguments write into nothing
    return b


def helper_reading_with_keywords(x):
    kept = [reads_with_keywords(np.outer(x, x), x)]
    return np.sum(x ** 2) + 0.0 * len(kept)


def test_a_helper_that_only_reads_is_kept_whatever_reads_its_result():
    x = np.array([0.3, -1.2, 2.4])
    np.testing.assert_allclose(s2sad.grad(helper_reading_with_keywords)(x), 2 * x)


def test_containers_hold_their_items_without_making_them_one_memory():
    """``p = (y, s)`` holds y and s: a write into y is not a write into s (a false refusal before)."""
    def writes_an_item(s):
        y = np.empty(2)
        for i in range(2):
            y[i] = np.tanh(s) * (i + 1)
        pair = (y, s)
        return np.sum(y * s) + 0.0 * len(pair)

    np.testing.assert_allclose(s2sad.grad(writes_an_item)(0.7), numerical_gradient(writes_an_item, [0.7], 0), rtol=1e-6)
