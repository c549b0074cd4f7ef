"""The written-out lanes (s2sad/lanes.py): a warm derivative's calls of Python floats, or of one array.

Each test warms a derivative up with floats, so that later calls take the lane written for
their number of arguments and differentiated positions, then checks what such a call must
do as the long way does: the gradients derived by hand, a NaN refused, a cotangent that is
not a float handed over, an argument that is not a float sent the long way.
"""
import math

import numpy as np
import pytest

import s2sad
from s2sad import api
from s2sad.errors import ArgumentError, NonFiniteDerivativeError
from test_lane_staleness import assert_gradients, assert_lane_taken, long_way_calls, written_lane  # noqa: F401
from test_staleness import modules  # noqa: F401

FUNCTIONS = """
    import math

    def quotient(x, y, s):
        u = x * s * s
        return y / (u * u)

    def power(x, n):
        return x ** n

    def first_only(x, y):
        return x * 3.0

    def three(x, y, z):
        return x * math.sin(y) + z ** 2 * x
"""


def test_several_arguments_and_their_gradients(modules, long_way_calls):
    m = modules(FUNCTIONS)
    gradient = s2sad.grad(m.three, argnums=(0, 2))
    x, y, z = 0.7, -1.2, 2.5
    for _ in range(3):
        assert_gradients(gradient(x, y, z), (math.sin(y) + z ** 2, 2 * z * x))
    assert_lane_taken(gradient, (x, y, z), long_way_calls)
    gradient_of_y = s2sad.grad(m.three, argnums=1)
    for _ in range(3):
        assert_gradients(gradient_of_y(x, y, z), x * math.cos(y))


def test_value_and_gradient_with_an_int_beside(modules, long_way_calls):
    m = modules(FUNCTIONS)
    both = s2sad.value_and_grad(m.power)
    for _ in range(3):
        value, gradient = both(2.0, 3)
        assert value == 8.0
        assert_gradients(gradient, 12.0)
    assert_lane_taken(both, (2.0, 3), long_way_calls)
    value, gradient = both(1.5, 4)  # another int: read as the code runs
    assert value == 1.5 ** 4
    assert_gradients(gradient, 4 * 1.5 ** 3)


def test_a_nan_of_a_finite_value_is_refused_on_the_lane(modules, long_way_calls):
    m = modules(FUNCTIONS)
    x, y = 0.5, 2.0
    for argnums, expected in [((0, 1), (-2 * y / x ** 3, 1 / x ** 2)), (0, -2 * y / x ** 3)]:
        gradient = s2sad.grad(m.quotient, argnums=argnums)
        for _ in range(3):  # y / (x s s)**2 at s = 1: (-2 y / x**3, 1 / x**2)
            assert_gradients(gradient(x, y, 1.0), expected)
        assert_lane_taken(gradient, (x, y, 1.0), long_way_calls)
        assert "s2sad_" in written_lane(gradient, 3).__code__.co_filename  # the gradient's body written in (lanes.py)
        # at s = 1e200, u overflows to inf: the value is 0.0, and u's cotangent times its slope is 0 * inf
        assert m.quotient(1.0, 2.0, 1e200) == 0.0
        with pytest.raises(NonFiniteDerivativeError, match="quotient"):
            gradient(1.0, 2.0, 1e200)
        assert_lane_taken(gradient, (x, y, 1.0), long_way_calls)


def test_a_cotangent_that_is_not_a_float_is_handed_over(modules):
    m = modules(FUNCTIONS)
    gradient = s2sad.grad(m.first_only, argnums=(0, 1))
    for _ in range(3):  # y is not read: its gradient is 0.0, a float, as the long way gives it
        assert_gradients(gradient(0.7, 1.3), (3.0, 0.0))


@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_an_argument_that_is_not_a_float_takes_the_long_way(modules, argnums):
    m = modules(FUNCTIONS)
    gradient = s2sad.grad(m.three, argnums=argnums)
    gradient(0.7, 1.3, 2.0)
    gradient(0.7, 1.3, 2.0)
    with pytest.raises(ArgumentError) as on_the_lane:
        gradient(1, 1.3, 2.0)  # an int is not differentiated
    with pytest.raises(ArgumentError) as fresh:
        s2sad.grad(m.three, argnums=argnums)(1, 1.3, 2.0)
    assert str(on_the_lane.value) == str(fresh.value)
    x = np.float64(0.7)  # a NumPy float is no Python float: the general lane or the long way, the same numbers
    got = gradient(x, 1.3, 2.0)
    expected_x = math.sin(1.3) + 4.0
    if argnums == 0:
        np.testing.assert_allclose(got, expected_x, rtol=1e-13)
    else:
        np.testing.assert_allclose(got, (expected_x, 0.7 * math.cos(1.3)), rtol=1e-13)


def test_the_lane_is_written_for_its_positions():
    from s2sad.lanes import float_lane

    def gradient_for_floats(a, b, c):
        return a + b + c, (None, 1.0, 2.0, 3.0)

    def refuse(gradient, value):
        raise AssertionError("no NaN here")

    def handed_back(*args):
        raise AssertionError("floats only here")

    lane = float_lane(gradient_for_floats, 3, (0, 2), False, False, refuse, handed_back)
    assert lane(1.0, 2, 3.0) == (1.0, 3.0)
    assert lane(1.0, 2.0, 3) is None  # a differentiated argument that is not a float
    lane = float_lane(gradient_for_floats, 3, (1,), True, True, refuse, handed_back)
    assert lane(1.0, 2.0, 3.0) == (6.0, 2.0)
    refused = []
    lane = float_lane(lambda a: (a, (None, math.nan)), 1, (0,), False, True,
                      lambda gradient, value: refused.append((gradient, value)), handed_back)
    assert math.isnan(lane(5.0)) and len(refused) == 1 and refused[0][1] == 5.0


# ---------------------------------------------------------------------- the lane for one float array
ARRAYS = """
    import numpy as np

    def quotient(w, s):
        u = w * s * s
        return np.sum(2.0 / (u * u))
"""


def test_the_array_lane_gives_the_hand_derived_gradient_and_refuses_a_nan(modules, long_way_calls):
    m = modules(ARRAYS)
    w = np.array([0.5, -1.5, 2.0])
    for transform in (s2sad.grad, s2sad.value_and_grad):
        gradient = transform(m.quotient)
        for _ in range(3):  # sum(2 / w**2) at s = 1: -4 / w**3
            got = gradient(w, 1.0)
            got = got[1] if transform is s2sad.value_and_grad else got
            assert got.__class__ is np.ndarray and got.dtype == np.float64
            np.testing.assert_allclose(got, -4.0 / w ** 3, rtol=1e-13)
        assert_lane_taken(gradient, (w, 1.0), long_way_calls)
        with np.errstate(over="ignore", invalid="ignore"):
            assert m.quotient(w, 1e200) == 0.0  # u overflows: 0 * inf in its cotangent
            with pytest.raises(NonFiniteDerivativeError, match="quotient"):
                gradient(w, 1e200)


def test_the_array_lane_hands_over_as_the_general_lane_does():
    from s2sad.lanes import array_lane

    x = np.array([1.0, 2.0, 3.0])
    refused, general = [], []

    def handed_back(*args):
        general.append(args)
        return "general"

    def lane_returning(gradient):  # the typed rrule's value and pullback (seeded with 1.0 for a float value)
        return array_lane(lambda a, b: (7.0, lambda seed: (None, gradient * seed if seed != 1.0 else gradient, None)),
                          None, None, 2, 0, False, lambda g, value: refused.append(g), handed_back)

    own = lane_returning(x)(x, 1.0)  # the argument itself: a copy is handed over
    assert own is not x and not np.shares_memory(own, x) and np.array_equal(own, x)
    view = lane_returning(x[::-1][::-1])(x, 1.0)
    assert not np.shares_memory(view, x)
    fresh = np.array([4.0, 5.0, 6.0])
    assert lane_returning(fresh)(x, 1.0) is fresh
    nan = np.array([1.0, np.nan, 3.0])
    assert lane_returning(nan)(x, 1.0) is nan and refused == [nan]
    assert lane_returning(np.ones(2))(x, 1.0) == "general" and len(general) == 1  # another shape
    assert lane_returning(np.ones(3, np.float32))(x, 1.0) == "general"  # another dtype
    assert lane_returning(x)(1.0, 1.0) is None  # not an array: the general lane's
    with_value = array_lane(lambda a: (7.0, lambda seed: (None, fresh)), None, None, 1, 0, True, None, None)
    assert with_value(x) == (7.0, fresh)
    # a value that is no float is seeded by ``seed``; a call the typed rrule refuses goes to ``otherwise``
    seeded = array_lane(lambda a: (np.array(7.0), lambda seed: (None, a * seed)), None, lambda value: 2.0,
                        1, 0, True, None, None)
    np.testing.assert_array_equal(seeded(x)[1], 2.0 * x)
    otherwise = array_lane(lambda a: None, lambda a: (3.0, (None, fresh)), None, 1, 0, False, None, None)
    assert otherwise(x) is fresh
    assert array_lane(lambda a: None, None, None, 1, 0, False, None, None)(x) is None
