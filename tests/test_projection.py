"""project: every input's cotangent in that input's type, shape and dtype."""
import warnings
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

import s2sad
from s2sad.errors import ArgumentError, RuleError, SourceLocation
from s2sad.runtime.projection import check_differentiable, project
from s2sad.runtime.tangents import NO_TANGENT, ZERO, InplaceableThunk, Tangent, Thunk


@dataclass
class Layer:
    W: np.ndarray
    b: float
    name: str = "dense"


Point = namedtuple("Point", "x y")


class Plain:
    def __init__(self):
        self.scale = 2.0
        self.count = 3


def test_arrays_keep_dtype_and_shape():
    primal = np.ones((2, 3), np.float32)
    g = project(primal, np.ones((2, 3)))
    assert type(g) is np.ndarray and g.dtype == np.float32 and g.shape == (2, 3)


def test_broadcast_cotangents_are_summed_down():
    g = project(np.ones((1, 3)), np.ones((4, 2, 3)))
    np.testing.assert_array_equal(g, np.full((1, 3), 8.0))
    g = project(np.ones(3), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(g, [3.0, 5.0, 7.0])


def test_a_smaller_cotangent_stands_for_a_constant():
    g = project(np.ones((2, 3)), 1.5)
    np.testing.assert_array_equal(g, np.full((2, 3), 1.5))
    g[0, 0] = 0.0  # a real, writeable array for the user


def test_incompatible_shapes_are_a_rule_error():
    with pytest.raises(RuleError, match=r"shape \(2,\)"):
        project(np.ones(3), np.ones(2))


def test_python_floats_and_complex_stay_python_numbers():
    g = project(1.0, np.float64(2.0))
    assert type(g) is float and g == 2.0
    g = project(1.0, np.array([1.0, 2.0]))
    assert type(g) is float and g == 3.0
    assert type(project(1j, 2.0)) is complex


def test_numpy_scalars_keep_their_type():
    g = project(np.float32(1), 2.0)
    assert type(g) is np.float32 and g == 2.0
    assert type(project(np.float64(1), np.ones(1))) is np.float64


def test_zero_dimensional_arrays_stay_arrays():
    g = project(np.array(1.0, np.float32), 2.0)
    assert type(g) is np.ndarray and g.shape == () and g.dtype == np.float32


def test_zero_becomes_real_zeros():
    g = project(np.ones((2, 2), np.float32), ZERO)
    assert type(g) is np.ndarray and g.dtype == np.float32
    np.testing.assert_array_equal(g, 0.0)
    assert project(1.0, ZERO) == 0.0 and type(project(1.0, ZERO)) is float
    assert type(project(np.float32(1), NO_TANGENT)) is np.float32


def test_thunks_are_unthunked():
    g = project(np.ones(2), Thunk(lambda: np.ones(2)))
    np.testing.assert_array_equal(g, [1.0, 1.0])
    g = project(np.ones(2), InplaceableThunk(None, lambda: np.full(2, 3.0)))
    np.testing.assert_array_equal(g, [3.0, 3.0])


def test_complex_primal_keeps_complex_and_real_primal_takes_the_real_part():
    g = project(np.ones(2, np.complex64), np.array([1 + 2j, 3.0]))
    assert g.dtype == np.complex64 and g[0] == 1 + 2j
    g = project(np.ones(2), np.array([1 + 2j, 3.0]))
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, [1.0, 3.0])
    assert project(1.0, 2 + 5j) == 2.0


def test_complex_scalars_arrays_and_broadcasting():
    g = project(np.complex64(1), np.array(2 + 3j))
    assert type(g) is np.complex64 and g == 2 + 3j
    g = project(1j, np.array([1 + 1j, 2j]))
    assert type(g) is complex and g == 1 + 3j
    g = project(np.ones((1, 3), np.complex64), np.full((4, 3), 1 + 1j))
    assert g.dtype == np.complex64 and g.shape == (1, 3)
    np.testing.assert_array_equal(g, np.full((1, 3), 4 + 4j))
    g = project(np.ones(2, np.complex128), np.array([1.0, 2.0]))  # a real cotangent of a complex input
    assert g.dtype == np.complex128
    np.testing.assert_array_equal(g, [1, 2])


def test_real_primal_keeps_the_real_part_of_a_broadcast_complex_cotangent_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = project(np.ones(3, np.float32), np.full((2, 3), 1 + 5j))
        assert g.dtype == np.float32
        np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])
        assert type(project(np.float64(1), 2 - 1j)) is np.float64
        assert project(np.array(1.0), np.array(3 + 4j)) == 3.0


def test_zero_for_a_complex_primal_is_complex_zeros():
    g = project(np.ones(2, np.complex64), ZERO)
    assert g.dtype == np.complex64
    np.testing.assert_array_equal(g, 0)
    assert type(project(1j, ZERO)) is complex


@pytest.mark.parametrize("primal", [3, True, "s", None, np.int64(2), np.ones(3, dtype=np.int32), len])
def test_values_without_a_tangent_space_give_no_tangent(primal):
    assert project(primal, 1.0) is NO_TANGENT


def test_structures_project_field_by_field():
    primal = {"layer": Layer(np.ones(2, np.float32), 1.0), "pair": (np.float32(1), 2), "point": Point(1.0, 2.0)}
    cotangent = Tangent(dict, {
        "layer": Tangent(Layer, W=np.ones((3, 2))),
        "pair": Tangent(tuple, (1.0, NO_TANGENT)),
        "point": (ZERO, Thunk(lambda: 5.0)),  # a raw tuple for a namedtuple is accepted
    })
    g = project(primal, cotangent)
    assert type(g) is Tangent and g.primal_type is dict
    layer = g["layer"]
    assert layer.primal_type is Layer and layer.W.dtype == np.float32
    np.testing.assert_array_equal(layer.W, [3.0, 3.0])
    assert type(layer.b) is float and layer.b == 0.0  # absent: real zeros for the user
    assert layer.name is NO_TANGENT
    assert type(g["pair"][0]) is np.float32 and g["pair"][1] is NO_TANGENT
    assert g["point"].x == 0.0 and g["point"].y == 5.0


def test_zero_for_a_structure_gives_zeros_in_every_float_field():
    g = project([np.ones(2), 1.0, "label"], ZERO)
    assert g == Tangent(list, (np.zeros(2), 0.0, NO_TANGENT))


def test_plain_objects_project_their_attributes():
    g = project(Plain(), Tangent(Plain, scale=1.5))
    assert g.scale == 1.5 and g.count is NO_TANGENT


def test_structure_mismatches_are_rule_errors():
    with pytest.raises(RuleError, match="tangent of Point was given for a Layer"):
        project(Layer(np.ones(2), 1.0), Tangent(Point, x=1.0))
    with pytest.raises(RuleError, match="'z'"):
        project({"x": 1.0}, Tangent(dict, {"z": 1.0}))
    with pytest.raises(RuleError):
        project(np.ones(2), Tangent(dict, {"x": 1.0}))


# ---------------------------------------------------------------- check_differentiable


@pytest.mark.parametrize("value", [1.0, 1j, np.float32(1), np.ones(2), np.ones(2, np.complex64),
                                   (1.0, 2), {"W": np.ones(2), "n": 3}, Layer(np.ones(2), 1.0), Plain()])
def test_differentiable_values_pass(value):
    check_differentiable(value, "x")


@pytest.mark.parametrize("value, words", [
    (3, "an int"), (True, "a bool"), ("s", "a str"), (None, "None"), (np.int64(3), "numpy scalar"),
    (np.arange(3), "dtype int64"), ((1, 2), "no floating-point"), ({"n": 1}, "no floating-point"), (len, "builtin"),
])
def test_non_differentiable_values_raise_argument_error(value, words):
    with pytest.raises(ArgumentError) as info:
        check_differentiable(value, "x")
    message = str(info.value)
    assert "argument 'x'" in message and words in message
    assert "leave it out of argnums" in message


def test_the_error_points_at_the_source():
    location = SourceLocation("model.py", 3, 5, "grad(f, argnums=1)(x, 3)")
    with pytest.raises(ArgumentError) as info:
        check_differentiable(3, 1, location)
    assert str(info.value).startswith("model.py:3:5: error: cannot differentiate with respect to argument 1")
    assert "astype" not in str(info.value)
    with pytest.raises(ArgumentError, match=r"x.astype\(float\)"):
        check_differentiable(np.arange(2), "x")


def test_a_cotangent_given_row_by_row_is_stacked_with_zero_rows_as_zeros():
    # the array's rows walked one by one (`sorted(x)`): a tuple of their cotangents, some ZERO
    primal = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    projected = project(primal, (ZERO, np.array([1.0, 2.0]), 3.0))
    np.testing.assert_array_equal(projected, [[0.0, 0.0], [1.0, 2.0], [3.0, 3.0]])
    np.testing.assert_array_equal(project(np.array([1.0, 2.0]), [ZERO, 2.0]), [0.0, 2.0])


def sorted_by_a_key(x):
    v = sorted(x, key=lambda t: -t)
    return v[0] ** 2 * v[1]


def test_a_hessian_through_sorted_rows():
    # the second derivative of x1^2 x2 (x1 the largest item, x2 the next) along v, by hand
    x, v = np.array([1.0, 3.0, 2.0]), np.array([0.5, -1.0, 2.0])
    hessian = np.array([[0.0, 0.0, 0.0], [0.0, 2 * x[2], 2 * x[1]], [0.0, 2 * x[1], 0.0]])
    np.testing.assert_allclose(s2sad.hvp(sorted_by_a_key, (x,), (v,)), hessian @ v, rtol=1e-12)
