"""Lambdas used as values whose defaults read the function's variables (``[lambda z, i=i: z * i for
i in range(3)]``), refused since session 15 (issue 16, item 5). They are made as Python makes them:
the defaults evaluated where the lambda is made, held by a ``functools.partial`` as keywords. One
holding constants (a loop's counter, a number) is differentiated in every mode; one holding a
differentiated value is refused at the lambda's line. Every gradient against central differences."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, refusal_in


def weighted_by_counter(x):
    fs = [lambda z, i=i: z * i for i in range(3)]
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x) ** 2)
    return total


def appended_in_a_loop_then_counter_rebound(x):
    fs = []
    for i in range(3):
        fs.append(lambda z, i=i: np.sin(z) * i)
    i = 10  # the lambdas hold the values their defaults had when made
    return np.sum(fs[2](x) ** 2) + np.sum(fs[1](x)) + i


def scaled_counter(x):
    fs = [lambda z, k=i * 2: z * k for i in range(3)]
    return sum(np.sum(f(x) ** 2) for f in fs)


def enumerated_constants(x):
    ws = [0.5, 1.5, -2.0]
    fs = [lambda z, i=i, w=w: z ** 2 * (i + w) for i, w in enumerate(ws)]
    return sum(np.sum(f(x)) for f in fs)


def default_replaced_by_keyword(x):
    fs = [lambda z, i=i: z * i for i in range(3)]
    return np.sum(fs[1](x, i=5) ** 2) + np.sum(fs[2](x))


def keyword_only_default(x):
    fs = [lambda z, *, p=p: z ** p for p in range(1, 4)]
    return sum(np.sum(f(x)) for f in fs)


@pytest.mark.parametrize("function", [weighted_by_counter, appended_in_a_loop_then_counter_rebound, scaled_counter,
                                      enumerated_constants, default_replaced_by_keyword, keyword_only_default])
def test_lambda_defaults_holding_constants_are_differentiated(function):
    x = np.linspace(-0.5, 0.7, 3)
    assert_every_mode_matches(function, x, np.cos(np.arange(3.0)), np.sin(np.arange(3.0) + 1.0))
    np.testing.assert_allclose(s2sad.grad(function, compile=True)(x), s2sad.grad(function)(x), rtol=1e-12)


def default_from_a_differentiated_value(x):
    s = np.sum(np.sin(x))
    fs = [(lambda z, k=k: z * k) for k in (s, 2.0)]  # marker: k holds s
    return np.sum(sum(g(x) for g in fs) ** 2)


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_default_holding_a_differentiated_value_is_refused_at_the_lambda(mode):
    caught = refusal_in(mode, default_from_a_differentiated_value, np.linspace(-0.5, 0.7, 3),
                        "takes a default value from a differentiated variable")
    assert "# marker: k holds s" in caught.location.text
    assert "pass the value as an argument" in caught.hint


def reads_a_variable_in_its_body_too(x):
    scale = np.sum(x)
    fs = [lambda z, i=i: z * i * scale for i in range(3)]
    return sum(np.sum(f(x)) for f in fs)


def test_a_lambda_reading_variables_in_its_body_and_its_defaults_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="reads the function's variables in its body"):
        s2sad.grad(reads_a_variable_in_its_body_too)(np.linspace(-0.5, 0.7, 3))


def positional_override(x):
    fs = [lambda z, i=i: z * i for i in range(3)]
    return np.sum(fs[1](x, 5) ** 2)


def test_passing_a_held_default_by_position_raises_rather_than_differentiates():
    """Not done: the partial holds the default as a keyword, so a call passing it by position
    (which Python's lambda accepts) raises TypeError; never a number."""
    x = np.linspace(-0.5, 0.7, 3)
    assert positional_override(x) == pytest.approx(np.sum((5 * x) ** 2))
    with pytest.raises(TypeError):
        s2sad.grad(positional_override)(x)
