"""Refusals that name the right thing, at the user's line: an in-place change of a list taken
out of an argument names the list changed (not only the argument it came from), with a copy
that works; an attribute given to a dataclass object outside its fields is refused at the
assignment (it was a TypeError from the tangent type, at a later read, naming no write)."""
import dataclasses
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import numerical_gradient  # noqa: E402
from markers import line_marked  # noqa: E402

HERE = os.path.abspath(__file__)


class Box:
    def __init__(self, items):
        self.items = items


def appends_to_a_list_the_argument_holds(x, box):
    first = box
    held = first.items
    held.append(x[1] * 2.0)  # MARK: held.append
    return held[0] * held[1]


def appends_to_a_copy_of_it(x, box):
    held = list(box.items)
    held.append(x[1] * 2.0)
    return held[0] * held[1] + x[0] ** 2


def test_the_list_changed_is_named_with_the_argument_it_came_from():
    with pytest.raises(s2sad.UnsupportedSyntaxError) as raised:
        s2sad.grad(appends_to_a_list_the_argument_holds)(np.array([1.0, 2.0]), Box([3.0]))
    message = str(raised.value)
    assert "changes `held` in place" in message and "`box`" in message
    assert f":{line_marked(HERE, 'MARK: held.append')}:" in message
    assert "list(held)" in message


def test_the_copy_the_hint_names_is_differentiated():
    x, box = np.array([1.5, -0.5]), Box([3.0])
    expected = numerical_gradient(lambda y: appends_to_a_copy_of_it(y, Box([3.0])), [x], 0)
    np.testing.assert_allclose(s2sad.grad(appends_to_a_copy_of_it)(x, box), expected, rtol=1e-6)
    assert box.items == [3.0]


@dataclasses.dataclass
class Params:
    w: np.ndarray


def gives_a_dataclass_an_attribute_outside_its_fields(x):
    p = Params(x)
    p.extra = x * 2.0  # MARK: p.extra
    return np.sum(p.w * p.extra)


def gives_it_a_label(x):
    p = Params(x)
    p.label = "weights"
    return np.sum(p.w ** 2)


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_an_attribute_outside_a_dataclasss_fields_is_refused_at_the_assignment(mode):
    f, x = gives_a_dataclass_an_attribute_outside_its_fields, np.array([1.0, 2.0])
    with pytest.raises(s2sad.S2SADError) as raised:
        if mode == "grad":
            s2sad.grad(f)(x)
        elif mode == "jvp":
            s2sad.jvp(f, (x,), (np.ones(2),))
        else:
            s2sad.hvp(f, (x,), (np.ones(2),))
    message = str(raised.value)
    assert "not one of its fields" in message and "`Params`" in message
    assert f":{line_marked(HERE, 'MARK: p.extra')}:" in message


def test_a_value_without_a_derivative_may_be_kept_outside_the_fields():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(gives_it_a_label)(x), 2 * x)
