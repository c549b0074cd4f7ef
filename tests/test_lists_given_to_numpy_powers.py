"""`np.power(xs, 2)` of a Python list: the rule's slope `2 * x` repeated the list (`2 * [a]` is
`[a, a]`), which broadcasts against a one-item cotangent. Now the constant is a float, which a
list refuses; a gradient given is NumPy's, checked against central differences."""
import numpy as np
import pytest

import s2sad
from s2sad.errors import S2SADError


def squared_by_power(xs):
    return np.sum(np.power(xs, 2) * np.array([1.5]))


def cubed_by_power(xs):
    return np.sum(np.power(xs, 3))


def central(f, xs, step=1e-6):
    return [(f(xs[:i] + [x + step] + xs[i + 1:]) - f(xs[:i] + [x - step] + xs[i + 1:])) / (2 * step)
            for i, x in enumerate(xs)]


@pytest.mark.parametrize("f", [squared_by_power, cubed_by_power])
@pytest.mark.parametrize("xs", [[2.0], [1.0, -0.5]])
def test_a_list_given_to_np_power_gets_numpy_s_gradient_or_an_error(f, xs):
    try:
        gradient = s2sad.grad(f)(list(xs))
    except (TypeError, S2SADError):
        gradient = None
    if gradient is not None:
        np.testing.assert_allclose(np.ravel(gradient), central(f, xs), rtol=1e-6)
    try:
        _, slope = s2sad.jvp(f, (list(xs),), ([1.0] * len(xs),))
    except (TypeError, S2SADError):
        return
    np.testing.assert_allclose(slope, sum(central(f, xs)), rtol=1e-6)
