"""A method called on a differentiated value for its effect or a test, its result not
differentiated: NumPy's and the builtin containers' readers pass (``x.max()`` in a test,
``params.get(k)``); the same name on an object of the user's class, which may change its object
(``self.w = ...``), is refused at the line as the code runs (the name alone cannot tell them apart:
a ``.get`` that rebinds a field gave a gradient of 1 where central differences give 3). A method of
the user's whose source only reads its object passes."""
import warnings

import numpy as np
import pytest

import collections

import s2sad
from s2sad.runtime.methods import receiver_left_alone
from tests.finite_differences import assert_every_mode_matches, numerical_gradient, refusal_in


class Scaler:
    def __init__(self, w):
        self.w = w

    def get(self, k):  # named like dict.get, but rebinds its field
        self.w = self.w * k


class Counter(dict):
    def get(self, key, default=None):  # a dict whose .get writes: not dict.get
        self["w"] = self["w"] * 3.0
        return default


class Ranked:
    def __init__(self, w):
        self.w = w

    def max(self):  # named like ndarray.max, but scales its field
        self.w = self.w * 2.0
        return 1.0


def user_get_for_effect(x):
    s = Scaler(x * 1.0)
    s.get(3.0)
    return np.sum(s.w)


def user_max_in_a_test(x):
    r = Ranked(x * 1.0)
    if r.max() > 0.5:
        return np.sum(r.w ** 2)
    return np.sum(r.w)


@pytest.mark.parametrize("f", [user_get_for_effect, user_max_in_a_test])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_a_users_method_of_a_readers_name_is_refused_at_its_line(f, mode):
    x = np.array([0.3, -1.2, 0.7])
    refused = refusal_in(mode, f, x, "may change its object")
    assert refused.location.filename == __file__
    assert refused.location.text.strip().startswith(("s.get", "if r.max"))


def test_the_refusal_under_compile_names_the_line_too():
    x = np.array([0.3, -1.2, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(s2sad.S2SADError) as caught:
            s2sad.grad(user_get_for_effect, compile=True)(x)
    assert caught.value.location.filename == __file__


def array_max_in_a_loop_test(x):
    y = x * 1.0
    while np.abs(y).max() > 0.1:
        y = 0.5 * y
    return np.sum(np.sin(y) * x)


def readers_of_containers(x):
    params = {"w": x * 2.0, "scale": 1.5}
    s = float(np.sum(x))
    pair = (s, 2.0 * s)
    total = np.sum(params.get("w") * params.get("scale", 1.0))
    if pair.count(0.0) == 0 and "w" in params.keys():
        total = total + pair[1] ** 2
    arg = x.argmax()  # an array's own: a constant index
    return total + x[arg]


class Reads:
    def __init__(self, w):
        self.w = w

    def get(self):  # only reads its object
        return self.w


def a_users_reading_method_in_a_test(x):
    r = Reads(x * 1.0)
    if r.get()[0] > -5.0:
        return np.sum(r.w ** 2)
    return np.sum(r.w)


def numpy_scalar_method(x):
    s = np.sum(x * x)
    if s.max() > 0.0:  # a NumPy float64's own method
        return s * 2.0
    return s


@pytest.mark.parametrize("f", [array_max_in_a_loop_test, readers_of_containers, numpy_scalar_method,
                               a_users_reading_method_in_a_test])
def test_numpy_and_builtin_readers_still_differentiate(f):
    x = np.array([0.3, -1.2, 0.7])
    v, u = np.array([1.0, -0.5, 0.25]), np.array([0.2, 0.4, -1.0])
    assert_every_mode_matches(f, x, v, u)


def test_compiled_code_keeps_an_arrays_method_in_a_test():
    x = np.array([0.3, -1.2, 0.7])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        try:
            gradient = s2sad.grad(array_max_in_a_loop_test, compile=True)(x)
        except s2sad.CompiledFallbackWarning as warned:  # only the guard must not be what keeps it from compiling
            assert "receiver_left_alone" not in str(warned)
            gradient = s2sad.grad(array_max_in_a_loop_test)(x)
    np.testing.assert_allclose(gradient, numerical_gradient(array_max_in_a_loop_test, (x,), 0), rtol=1e-6, atol=1e-8)


Pair = collections.namedtuple("Pair", "a b")


@pytest.mark.parametrize("receiver, name", [
    (np.ones(3), "max"), (np.float64(2.0), "max"), (np.ones((2, 2)).view(np.matrix), "max"),
    ({"w": 1.0}, "get"), (collections.OrderedDict(w=1.0), "get"), (Pair(1.0, 2.0), "index"), ([1.0], "count"),
    ("text", "startswith")])
def test_numpy_and_builtin_receivers_pass_the_check(receiver, name):
    receiver_left_alone(receiver, name, __file__, 1, 1)


@pytest.mark.parametrize("receiver, name", [
    (Counter(w=1.0), "get"), (Scaler(1.0), "get"), (Ranked(1.0), "max")])
def test_a_class_with_its_own_method_of_that_name_is_refused(receiver, name):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="may change its object"):
        receiver_left_alone(receiver, name, __file__, 1, 1)
