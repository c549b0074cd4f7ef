"""Reads s2sad takes for constants by their names (``x.shape``, ``x.ndim``, ``x.argmax()``,
``x.all()``: NumPy's are constants) were constants on any receiver: a user class's ``.all()``
summing its differentiated field, an ``.argmax()`` returning a float, a ``.shape`` property
computing an array gave a gradient of 0 where central differences give 1.2, 3 and 2. Unless NumPy
made the receiver, the value is checked as the code runs: a discrete one (an int, a tuple of ints,
a flag) passes whatever made it; another is refused at the line."""
import dataclasses

import numpy as np
import pytest

from tests.finite_differences import assert_every_mode_matches, refusal_in


class Policy:
    def __init__(self, w):
        self.w = w

    def all(self):
        return np.sum(self.w ** 2)

    def argmax(self):
        return self.w[0] * 3.0

    @property
    def shape(self):
        return self.w * 2.0


def user_all(x):
    p = Policy(x * 1.0)
    return p.all() * 2.0


def user_argmax(x):
    p = Policy(x * 1.0)
    return p.argmax() + 1.0


def user_shape_property(x):
    p = Policy(x * 1.0)
    return np.sum(p.shape)


@pytest.mark.parametrize("f", [user_all, user_argmax, user_shape_property])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_users_read_of_such_a_name_giving_a_number_is_refused(f, mode):
    x = np.array([0.3, -1.2, 0.7])
    refused = refusal_in(mode, f, x, "takes `.[a-z]+` for a constant")
    assert refused.location.filename == __file__


@dataclasses.dataclass
class Grid:
    values: np.ndarray
    size: int
    shape: tuple


def shapes_and_sizes(x):
    g = Grid(x * 2.0, 3, (3,))  # fields named like NumPy's, holding ints: constants either way
    n = x.shape[0] + g.size + g.shape[0] + x.ndim
    k = int(np.argmax(x)) + int(x.argmax()) + int(x.all())
    return np.sum(g.values * x) / n + k * x[0]


def test_discrete_values_and_numpys_own_reads_still_differentiate():
    x = np.array([0.3, -1.2, 0.7])
    assert_every_mode_matches(shapes_and_sizes, x, np.array([1.0, -0.5, 0.25]), np.array([0.2, 0.4, -1.0]))
