"""``c.copy()`` of a list or dict the function is given (session 16, brief copies16 item 2).

``ps = params.copy(); ps["W"] = ps["W"] - lr * g`` then reading ``params``: a new dict whose
slot is given a new array, ``params`` unchanged. Before, it was refused as it ran ("`.copy()`
of a dict holds the very objects the dict holds"), and a dict's or list's ``.copy()`` had no
rule. Now ``.copy()`` of a dict or list is ``dict(c)`` or ``list(c)`` (rules/python_containers.py),
and a slot of the copy written is a change of nothing the receiver holds, checked as the code
runs to be NumPy's, a list's or a dict's ``.copy()`` (runtime/methods.py ``copy_receiver``). A
change in place of an array the copy holds (``ps["W"] += v``) stays refused, as does a user
class's ``.copy()``, which may hand back an array the object holds.

Every gradient is checked against central differences in float64 in grad, vjp, jvp and hvp."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, numerical_gradient, refusal_in

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, -1.0, 1.5])
U = np.array([1.0, 0.25, -0.5])


def sgd_step(params, lr):
    ps = params.copy()
    ps["W"] = ps["W"] - lr * params["b"] * ps["W"]
    return np.sum(ps["W"] ** 2) + np.sum(params["W"] * params["b"])


def list_step(layers):
    out = layers.copy()
    out[0] = out[0] * layers[1]
    return np.sum(out[0] * layers[0]) + np.sum(np.sin(out[1]))


def array_step(w):
    v = w.copy()
    v[0] = v[1] * 3.0
    return np.sum(v * w)


def held_elsewhere_step(outer):
    params = outer["p"]
    ps = params.copy()
    ps["b"] = np.tanh(ps["b"])
    return np.sum(ps["b"] * outer["p"]["b"]) + np.sum(ps["W"])


def given_dict(x):
    return sgd_step({"W": x * 1.0, "b": np.sin(x)}, 0.1)


def given_list(x):
    return list_step([np.cos(x), x ** 2])


def given_array(x):
    return array_step(x * 2.0)


def given_dict_in_a_dict(x):
    return held_elsewhere_step({"p": {"W": x ** 2, "b": x * 1.5}})


@pytest.mark.parametrize("f", [given_dict, given_list, given_array, given_dict_in_a_dict], ids=lambda f: f.__name__)
def test_every_mode_matches_finite_differences(f):
    assert_every_mode_matches(f, X, V, U)


def test_the_gradient_of_a_dict_given_is_its_own():
    params = {"W": X.copy(), "b": np.cos(X)}
    gradient = s2sad.grad(sgd_step)(params, 0.1)
    for key in params:
        expected = numerical_gradient(lambda value: sgd_step({**params, key: value}, 0.1), [params[key]], 0)
        np.testing.assert_allclose(gradient[key], expected, rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- refused
def adds_into_an_array_the_copy_holds(params):
    ps = params.copy()
    ps["W"] += 1.0  # the very array params["W"] holds
    return np.sum(ps["W"] * params["W"])


def adds_into_the_given_copy(x):
    return adds_into_an_array_the_copy_holds({"W": x * 1.0})


class Holder:
    def __init__(self, w):
        self.w = w

    def copy(self):
        return self.w  # not a copy: the array the object holds


def writes_what_a_user_copy_returned(holder):
    w = holder.copy()
    w[0] = 1.0
    return np.sum(holder.w * 2.0)


def writes_into_a_user_copy(x):
    return writes_what_a_user_copy_returned(Holder(x * 1.0))


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f, words", [(adds_into_the_given_copy, "`.copy\\(\\)` of a dict holds the very objects"),
                                      (writes_into_a_user_copy, "`.copy\\(\\)` of Holder may hand back memory")],
                         ids=["array the copy holds", "user class"])
def test_what_would_change_the_original_is_refused(f, words, mode):
    error = refusal_in(mode, f, X, words)
    assert error.location is not None
