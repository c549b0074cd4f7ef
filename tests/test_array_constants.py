"""The pass making a typed version's numbers 0-d float64 arrays (s2sad/codegen/array_constants.py):
its before/after text, the NumPy fact it rests on, and whole gradients against hand-derived ones."""
import itertools

import numpy as np
import pytest

import s2sad
from s2sad.codegen.array_constants import constants_as_arrays

VECTOR = ("array", ("n0",))
TYPES = {"w": VECTOR, "t": VECTOR, "x": ("float",), "s": ("f64",)}


def fresh(name):
    return name


def rewritten(line):
    text, constants = constants_as_arrays(line + "\n", TYPES, fresh)
    return text.rstrip("\n"), [c for c in constants.splitlines() if not c.startswith("#")]


def test_numbers_beside_arrays_become_constants():
    assert rewritten("a = 2.0 * w + 1") == ("a = f64_2_0 * w + f64_1_0", ["f64_2_0 = np.array(2.0)",
                                                                         "f64_1_0 = np.array(1.0)"])
    assert rewritten("a = (1 - t ** 2) / 4.5") == ("a = (f64_1_0 - t ** 2) / f64_4_5", ["f64_1_0 = np.array(1.0)",
                                                                                     "f64_4_5 = np.array(4.5)"])
    assert rewritten("a = 0.5 * w - 0.5 / t") == ("a = f64_0_5 * w - f64_0_5 / t", ["f64_0_5 = np.array(0.5)"])


def test_names_assigned_once_have_the_shape_of_their_value():
    text = ("def f_pullback(dresult):\n"
            "    dp = dresult\n"
            "    dt = dp * (2.0 * t)\n"
            "    dw = dt * 2.0\n"
            "    ds = dp * 2.0\n"
            "    du = dt\n"
            "    du = du * 3.0\n")
    after, _ = constants_as_arrays(text, TYPES, fresh, seed="dresult")
    assert after.splitlines()[2:] == [
        "    dt = dp * (f64_2_0 * t)",
        "    dw = dt * f64_2_0",   # an array: of the seed times an array
        "    ds = dp * 2.0",       # a number: the seed's
        "    du = dt",
        "    du = du * 3.0",       # bound twice: not known
    ]
    after, _ = constants_as_arrays(text.replace("dp = dresult", "dp = dresult\n    dresult = x"), TYPES, fresh,
                                   seed="dresult")
    assert "    ds = dp * 2.0" in after.splitlines()  # a seed assigned again is no longer known


@pytest.mark.parametrize("line", [
    "a = t ** 2",            # a power keeps its number: NumPy squares
    "a = x * 2.0",           # a Python float: a Python float it stays
    "a = s * 2.0",           # a NumPy scalar
    "a = dw * 2.0",          # a cotangent: nothing known of it here
    "a = 2.0 * 3.0",
    "a = 1152921504606846977 * w",  # 2 ** 60 + 1: no float64 holds it exactly
    "a = w % 2.0",
    "a = np.maximum(w, 0.0)",
])
def test_other_numbers_stay(line):
    assert rewritten(line) == (line, [])


def test_numpy_computes_the_same_arrays_with_the_constants():
    rng = np.random.default_rng(0)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -2.2e-308, 1.7e308])
    for _ in range(50):
        x = np.concatenate([rng.standard_normal(20) * 10.0 ** rng.uniform(-300, 300, 20), special])
        for number, operation in itertools.product([2.0, 1, 0.1, -3.5, 1e-300, 7], ["+", "-", "*", "/"]):
            zero_d = np.array(float(number))
            with np.errstate(all="ignore"):
                for python, array in [(eval(f"number {operation} x"), eval(f"zero_d {operation} x")),
                                      (eval(f"x {operation} number"), eval(f"x {operation} zero_d"))]:
                    assert array.dtype == python.dtype == np.float64
                    assert np.array_equal(python, array, equal_nan=True)
                    assert np.array_equal(np.signbit(python), np.signbit(array))


# ---------------------------------------------------------------------- whole gradients, typed versions
def quadratic(w):
    return np.sum((3.0 - w) * (w + 1.5) / 2.0)


def reciprocal(w):
    return np.sum(4.0 / w - w / 8.0)


def scaled_tanh(w, v):
    return np.sum(np.tanh(0.5 * w - 1) * (2 + v))


W = np.array([0.3, -0.8, 1.4, 2.5])
V = np.array([1.1, -0.4, 0.6, -2.0])


@pytest.mark.parametrize("function, args, argnums, expected", [
    (quadratic, (W,), 0, (1.5 - 2 * W) / 2.0),
    (reciprocal, (W,), 0, -4.0 / W ** 2 - 1 / 8.0),
    (scaled_tanh, (W, V), (0, 1), (0.5 * (1 - np.tanh(0.5 * W - 1) ** 2) * (2 + V), np.tanh(0.5 * W - 1))),
])
def test_typed_gradients_are_the_hand_derived_ones(function, args, argnums, expected):
    gradient = s2sad.grad(function, argnums=argnums)
    for _ in range(3):  # the first call, then the lane's typed version
        got = gradient(*args)
        got, want = (got, expected) if isinstance(argnums, tuple) else ((got,), (expected,))
        for a, b in zip(got, want):
            assert a.__class__ is np.ndarray and a.dtype == np.float64 and a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_the_small_workloads_typed_version_uses_the_constants():
    from s2sad.analysis.array_types import signature_of
    from s2sad.transform import generated_source, typed_mode

    def small(w):
        return np.sum(np.tanh(2.0 * w + 1.0) ** 2)

    text = generated_source(small, ("w",), typed_mode(signature_of((W,))))
    assert "f64_2_0 = np.array(2.0)\n" in text and " = f64_2_0 * w\n" in text
    assert "** 2" in text  # the square kept
