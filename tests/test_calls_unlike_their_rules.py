"""A call of a function with a rule, given arguments its rule's signature does not take. Written
out (`math.hypot(a, b, c)`) it is refused when s2sad transforms the function; written with `*`
(`math.hypot(*xs)` of three) the count is known only as the code runs, where it crashed with
inspect's TypeError in every mode. Both are refused at the user's line now."""
import math

import numpy as np
import pytest

import s2sad
from tests.finite_differences import refusal_in


def hypot_written_out(x):
    return math.hypot(x[0], x[1], x[2])


def hypot_of_star(x):
    return math.hypot(*x)


def hypot_of_two_by_star(x):
    return math.hypot(*x[:2]) * x[2]


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f", [hypot_written_out, hypot_of_star])
def test_more_arguments_than_the_rule_takes_is_refused_at_the_line(f, mode):
    refused = refusal_in(mode, f, np.array([0.3, 0.4, 1.2]),
                         r"the call of `math.hypot` does not match its rule's signature") \
        if f is hypot_written_out else None
    if refused is None:
        run = {"grad": lambda: s2sad.grad(f)(np.array([0.3, 0.4, 1.2])),
               "jvp": lambda: s2sad.jvp(f, (np.array([0.3, 0.4, 1.2]),), (np.ones(3),)),
               "hvp": lambda: s2sad.hvp(f, (np.array([0.3, 0.4, 1.2]),), (np.ones(3),))}[mode]
        with pytest.raises(s2sad.MissingRuleError, match=r"does not match its rule's signature") as caught:
            run()
        refused = caught.value
    assert refused.location.filename == __file__


def test_as_many_as_it_takes_by_star_is_differentiated():
    x = np.array([0.3, 0.4, 1.2])
    by_hand = np.array([0.3 / 0.5 * 1.2, 0.4 / 0.5 * 1.2, 0.5])
    np.testing.assert_allclose(s2sad.grad(hypot_of_two_by_star)(x), by_hand, rtol=1e-12)
