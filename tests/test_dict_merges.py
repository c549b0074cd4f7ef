"""Dicts merged: ``{**a, **b}``, ``dict(a, **b)`` and ``a | b`` (session 16, brief copies16 item 1).

Before: a display with a second ``**`` was refused by the fence, ``dict(a, **b)`` refused as
keywords passed through ``**``, and ``a | b`` of two dicts was taken for the bitwise or of
NumPy masks, with no gradient: a gradient of zero, silently wrong in every mode. Now each is
a new dict holding the very objects its parts hold (``rules.helpers.dict_merged`` and
``or_merged``), each value's cotangent going back to the one dict Python took it from; a
write into an array the merged dict holds is refused where another holder of that array (the
dict merged from, a tuple or a dict holding it) is read after the write.

Every gradient is checked against central differences in float64 in grad, vjp, jvp and hvp."""
import inspect

import numpy as np
import pytest

import s2sad
from finite_differences import assert_every_mode_matches, numerical_gradient, refusal_in

X = np.array([0.3, -0.7, 1.1])
V = np.array([0.5, -1.0, 1.5])
U = np.array([1.0, 0.25, -0.5])


# ---------------------------------------------------------------- exact
def unpacked_twice(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = {**a, **b}
    return np.sum(c["u"] * c["v"])


def unpacked_twice_the_second_wins(x):
    a = {"u": x * 2.0, "v": x ** 3}
    b = {"v": np.sin(x)}
    c = {**a, **b}
    return np.sum(c["u"] * c["v"] * a["v"])


def unpacked_after_keys_and_between_them(x):
    a = {"u": x * 2.0}
    c = {"k": x, **a, "u": x * 3.0, **{"v": np.sin(x), "k": np.cos(x)}, "w": 2.0 * x}
    return np.sum(c["u"] * c["v"] * c["k"] * c["w"])


def unpacked_then_a_key_replaced(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = {**a, **b, "u": x ** 3}
    return np.sum(c["u"] * a["u"] + c["v"])


def dict_of_a_mapping_and_unpacked_keywords(x):
    b = {"v": np.sin(x), "u": x ** 2}
    c = dict({"u": x * 2.0, "w": x}, z=x * 3.0, **b)
    return np.sum(c["u"] * c["v"] * c["w"] * c["z"])


def dict_of_pairs_and_unpacked_keywords(x):
    b = {"v": np.sin(x)}
    c = dict([("u", x * 2.0), ("v", x)], **b)
    return np.sum(c["u"] * c["v"])


def dict_of_unpacked_keywords_only(x):
    b = {"v": np.sin(x)}
    c = dict(**b)
    c["v"] = c["v"] * 2.0  # a new array in the copy: b keeps its own
    return np.sum(c["v"] * b["v"])


def or_of_two_dicts(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = a | b
    return np.sum(c["u"] * c["v"])


def or_the_right_one_wins(x):
    a = {"u": x * 2.0, "v": np.exp(x)}
    b = {"v": np.sin(x)}
    c = a | b
    return np.sum(c["u"] * c["v"] + a["v"])


def or_then_a_value_replaced(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = a | b
    c["u"] = c["u"] + 1.0  # a new array under the key: `a` keeps its own
    return np.sum(c["u"] * c["v"] * a["u"])


def or_then_a_new_key(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = a | b
    c["w"] = x ** 2
    return np.sum(c["w"] * a["u"] * c["v"])


def or_of_masks_still_a_mask(x):
    mask = (x > 0) | (x < -0.5)
    return np.sum(np.where(mask, x ** 2, x)) + float(3 | 4)


def or_of_key_sets(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    return np.sum(a["u"] * b["v"]) * len(a.keys() | b.keys())


def merged_in_a_loop(x):
    state = {"s": x}
    for step in range(3):
        state = state | {"s": np.sin(state["s"]) + x * step}
    return np.sum(state["s"] ** 2)


EXACT = [unpacked_twice, unpacked_twice_the_second_wins, unpacked_after_keys_and_between_them,
         unpacked_then_a_key_replaced, dict_of_a_mapping_and_unpacked_keywords, dict_of_pairs_and_unpacked_keywords,
         dict_of_unpacked_keywords_only, or_of_two_dicts, or_the_right_one_wins, or_then_a_value_replaced,
         or_then_a_new_key, or_of_masks_still_a_mask, or_of_key_sets, merged_in_a_loop]


@pytest.mark.parametrize("f", EXACT, ids=lambda f: f.__name__)
def test_every_mode_matches_finite_differences(f):
    assert_every_mode_matches(f, X, V, U)


def with_defaults(params):
    """A dict the function is given, merged with its own: each given value's gradient is its own."""
    merged = {"scale": 2.0} | params
    extra = {**params, "b": params["b"] * 3.0}
    return np.sum(merged["W"] * merged["scale"] * extra["b"]) + np.sum(dict(params, **{"W": params["b"]})["W"] ** 2)


def test_a_given_dict_merged():
    params = {"W": X.copy(), "b": np.cos(X)}
    gradient = s2sad.grad(with_defaults)(params)
    for key in params:
        def of_one(value, key=key):
            return with_defaults({**params, key: value})
        np.testing.assert_allclose(gradient[key], numerical_gradient(of_one, [params[key]], 0), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- refused: another holder reads the changed array
def unpacked_then_changed(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = {**a, **b}
    c["u"] += 1.0  # the write: NumPy changes the array `a` holds too
    return np.sum(c["u"] * c["v"] * a["u"])


def or_then_changed(x):
    a, b = {"u": x * 2.0}, {"v": np.sin(x)}
    c = a | b
    c["v"] *= 3.0  # the write, into the array `b` holds
    return np.sum(c["v"] * b["v"])


def or_then_changed_a_tuple_holds(x):
    a = {"u": x * 2.0}
    t = (a, 1)
    c = a | {"v": np.sin(x)}
    c["u"] -= x  # the write
    return np.sum(t[0]["u"] * c["v"])


def or_then_changed_another_dict_holds(x):
    a = {"u": x * 2.0}
    outer = {"p": a}
    c = dict(a, **{"v": np.sin(x)})
    c["u"] *= 2.0  # the write
    return np.sum(outer["p"]["u"] * c["v"])


REFUSED = [(unpacked_then_changed, "and `a` shares it"), (or_then_changed, "and `b` shares it"),
           (or_then_changed_a_tuple_holds, "and `t` shares it"),
           (or_then_changed_another_dict_holds, "and `outer` shares it")]


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f, words", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_a_write_another_holder_sees_is_refused(f, words, mode):
    error = refusal_in(mode, f, X, words)
    assert "changes the ndarray" in str(error)
    lines, first = inspect.getsourcelines(f)
    assert error.location.line == first + next(i for i, line in enumerate(lines) if "# the write" in line)


def test_or_assign_is_refused_at_its_line():
    def or_assigned(x):
        a = {"u": x * 2.0}
        a |= {"v": np.sin(x)}
        return np.sum(a["u"] * a["v"])

    error = refusal_in("grad", or_assigned, X, "BitOrAssign")
    assert error.location.line == or_assigned.__code__.co_firstlineno + 2
