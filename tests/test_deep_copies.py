"""``copy.deepcopy`` makes new memory: writing into the copy leaves the original alone, so the
aliasing analysis no longer refuses ``q = copy.deepcopy(params); q["W"] = ...`` where ``params`` is
read after (it took the copy for the original). A class whose ``__deepcopy__`` hands back what the
original holds is refused as the code runs. References: central differences in float64."""
import copy

import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, refusal_in

BIAS = {"b": np.array([0.5, -1.0]), "scale": [np.array([2.0, 3.0])]}


def updated_copy_then_original_read(x):
    params = {"W": x * 2.0, "b": x ** 2}
    q = copy.deepcopy(params)
    q["W"] = q["W"] * 3.0
    q["b"][0] = 4.0  # into the copy's array: params["b"] keeps its first element
    return np.sum(q["W"] * params["b"] + q["b"] * np.sin(params["W"]))


def a_global_copied_and_changed_in_place(x):
    bias = copy.deepcopy(BIAS)
    bias["b"] += x
    bias["scale"][0] *= x
    return np.sum(bias["b"] * bias["scale"][0] + BIAS["b"] * x ** 2)


def an_array_copied(x):
    y = x ** 2
    z = copy.deepcopy(y)
    z[1] = np.cos(x[0])
    return np.sum(z * y)


@pytest.mark.parametrize("f", [updated_copy_then_original_read, a_global_copied_and_changed_in_place, an_array_copied])
def test_a_deep_copy_changed_in_place_in_every_mode(f):
    given = copy.deepcopy(BIAS)
    x, v, u = np.array([0.3, 0.7]), np.array([1.0, -0.5]), np.array([0.25, 2.0])
    assert_every_mode_matches(f, x, v, u)
    assert np.array_equal(BIAS["b"], given["b"]) and np.array_equal(BIAS["scale"][0], given["scale"][0])


class SharesOnCopy:
    def __init__(self, w):
        self.w = w

    def __deepcopy__(self, memo):
        return SharesOnCopy(self.w)  # the same array: no deep copy at all


def a_class_sharing_on_deepcopy(x):
    box = SharesOnCopy(x * 2.0)
    other = copy.deepcopy(box)
    return np.sum(other.w * box.w)


def test_a_deepcopy_handing_back_the_original_s_array_is_refused():
    error = refusal_in("grad", a_class_sharing_on_deepcopy, np.array([0.3, 0.7]), "gave back what the original holds")
    assert "test_deep_copies.py" in str(error) or "test_deep_copies.py" in "\n".join(getattr(error, "__notes__", []))


def tied_weights_copied_then_one_written(x):
    tied = x * 2.0
    params = {"W_in": tied, "W_out": tied}  # weights tied: one array in two places
    q = copy.deepcopy(params)  # the copy keeps them one array, as Python's deepcopy does
    q["W_in"] += x
    return np.sum(q["W_out"] ** 2)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_deep_copy_holding_one_array_twice_is_refused(mode):
    # it gave grad 8x (q["W_out"] read as 2x) where central differences give 18x (the write into q["W_in"] is q["W_out"]'s too)
    error = refusal_in(mode, tied_weights_copied_then_one_written, np.array([0.3, 0.7]), "holding one ndarray in two places")
    assert "q = copy.deepcopy(params)" in str(error)


def _relu(z):
    return np.maximum(z, 0.0)


def config_with_functions_copied(x):
    config = {"act": _relu, "out": _relu, "dtype": np.float64, "w": x * 2.0}
    q = copy.deepcopy(config)  # functions and classes are kept as they are: nothing shared to write into
    q["w"] += 1.0
    return np.sum(q["out"](q["act"](q["w"])) ** 2) + np.sum(config["w"] * x)


def test_a_deep_copy_of_a_dict_holding_functions_is_differentiated():
    # it was refused as a copy giving back what the original holds (the function)
    assert_every_mode_matches(config_with_functions_copied, np.array([0.3, -0.2]), np.array([1.0, -0.5]),
                              np.array([0.25, 2.0]))


def tied_argument_copied_then_one_written(params, x):
    q = copy.deepcopy(params)
    q["enc"] -= 0.1 * q["enc"] ** 3
    return np.sum(np.tanh(x @ q["enc"]) @ q["dec"].T)


def test_vjp_keeps_weights_the_caller_tied():
    # vjp ran the function on copies of each argument array, made one per place: the tie was cut,
    # the write into q["enc"] did not show in q["dec"], and the value came back 17.12 (NumPy's 12.00)
    rs = np.random.RandomState(0)
    W = rs.randn(3, 2)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="holding one ndarray in two places"):
        s2sad.vjp(tied_argument_copied_then_one_written, {"enc": W, "dec": W}, rs.randn(4, 3))
