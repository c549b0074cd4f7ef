"""The tangent types: symbolic zeros, thunks and structural tangents."""
import copy
import pickle
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest

from s2sad.runtime.tangents import (
    NO_TANGENT, ZERO, InplaceableThunk, NoTangent, Tangent, Thunk, ZeroTangent, is_zero, unthunk,
)


@dataclass
class Layer:
    W: np.ndarray
    b: float


Point = namedtuple("Point", "x y")


class Plain:
    def __init__(self, scale):
        self.scale = scale


class Counter:
    """A zero-argument function that counts its calls."""

    def __init__(self, value):
        self.value, self.calls = value, 0

    def __call__(self):
        self.calls += 1
        return self.value


# ---------------------------------------------------------------- ZERO


@pytest.mark.parametrize("x", [np.arange(3.0), 2.5, np.float32(1.5), np.zeros((2, 2), np.complex64)])
def test_zero_vanishes_from_sums_without_copying(x):
    assert ZERO + x is x
    assert x + ZERO is x
    assert x - ZERO is x


def test_zero_absorbs_products_on_either_side_of_an_array():
    x = np.ones((2, 2))
    for result in (ZERO * x, x * ZERO, ZERO @ x, x @ ZERO, ZERO / x, -ZERO, +ZERO, 3.0 * ZERO):
        assert result is ZERO  # numpy deferred to us instead of building an object array


def test_zero_minus_array_negates():
    np.testing.assert_array_equal(ZERO - np.ones(2), -np.ones(2))


def test_division_by_zero_tangent_raises():
    with pytest.raises(ZeroDivisionError):
        np.ones(2) / ZERO


def test_zero_is_a_falsy_singleton_that_survives_copying():
    assert not ZERO
    assert repr(ZERO) == "ZERO"
    assert ZeroTangent() is ZERO
    assert pickle.loads(pickle.dumps(ZERO)) is ZERO
    assert copy.deepcopy(ZERO) is ZERO


def test_zero_stays_zero_when_indexed_or_transposed():
    assert ZERO[0] is ZERO and ZERO.T is ZERO and ZERO.conj() is ZERO
    with pytest.raises(TypeError):
        list(ZERO)


# ---------------------------------------------------------------- NO_TANGENT


def test_no_tangent_is_a_different_zero():
    assert NO_TANGENT is not ZERO
    assert NoTangent() is NO_TANGENT
    assert repr(NO_TANGENT) == "NO_TANGENT"
    assert is_zero(NO_TANGENT) and is_zero(ZERO)
    assert not is_zero(np.zeros(3)) and not is_zero(0.0)
    assert pickle.loads(pickle.dumps(NO_TANGENT)) is NO_TANGENT


def test_no_tangent_addition():
    x = np.ones(3)
    assert NO_TANGENT + NO_TANGENT is NO_TANGENT
    assert NO_TANGENT + x is x and x + NO_TANGENT is x
    # "zero" says more than "no tangent": together they are ZERO, in either order
    assert ZERO + NO_TANGENT is ZERO and NO_TANGENT + ZERO is ZERO
    assert NO_TANGENT * x is NO_TANGENT and x @ NO_TANGENT is NO_TANGENT


# ---------------------------------------------------------------- thunks


def test_thunk_is_lazy_and_evaluates_once():
    fn = Counter(np.arange(3.0))
    thunk = Thunk(fn)
    assert fn.calls == 0 and not thunk.evaluated
    assert unthunk(thunk) is fn.value
    assert unthunk(thunk) is fn.value
    assert fn.calls == 1 and thunk.evaluated


def test_unthunk_returns_other_values_unchanged():
    x = np.ones(2)
    assert unthunk(x) is x and unthunk(ZERO) is ZERO and unthunk(3.0) == 3.0


def test_nested_thunks_unthunk_fully():
    assert unthunk(Thunk(lambda: Thunk(lambda: 4.0))) == 4.0


def test_arithmetic_on_a_thunk_unthunks_first():
    x = np.array([1.0, 2.0])
    thunk = Thunk(lambda: np.array([10.0, 20.0]))
    np.testing.assert_array_equal(thunk + x, [11.0, 22.0])
    np.testing.assert_array_equal(x + thunk, [11.0, 22.0])
    np.testing.assert_array_equal(thunk - x, [9.0, 18.0])
    np.testing.assert_array_equal(x - thunk, [-9.0, -18.0])
    np.testing.assert_array_equal(thunk * x, [10.0, 40.0])
    np.testing.assert_array_equal(2.0 * thunk, [20.0, 40.0])
    np.testing.assert_array_equal(-thunk, [-10.0, -20.0])
    assert ZERO + thunk is thunk  # a zero does not force the computation


def test_thunks_of_tuples_add_elementwise():
    thunk = Thunk(lambda: (1.0, 2.0))
    assert thunk + (10.0, 20.0) == (11.0, 22.0)


def test_inplaceable_thunk_has_a_value_form_and_an_action():
    fn = Counter(np.array([0.0, 5.0]))

    def add_five(buffer):
        buffer[1] += 5.0
        return buffer

    thunk = InplaceableThunk(add_five, fn)
    assert isinstance(thunk.val, Thunk) and fn.calls == 0
    buffer = np.ones(2)
    assert thunk.add(buffer) is buffer and fn.calls == 0
    np.testing.assert_array_equal(unthunk(thunk), [0.0, 5.0])
    np.testing.assert_array_equal(thunk + np.ones(2), [1.0, 6.0])
    assert fn.calls == 1
    assert unthunk(InplaceableThunk(add_five, Thunk(lambda: 7.0))) == 7.0


# ---------------------------------------------------------------- structural tangents


def test_tangent_of_a_dataclass_reads_by_attribute():
    dW = np.ones((2, 2))
    t = Tangent(Layer, W=dW)
    assert t.W is dW and t.b is ZERO  # absent fields read as ZERO
    assert t.primal_type is Layer
    with pytest.raises(AttributeError, match="no field 'V'"):
        t.V
    with pytest.raises(TypeError, match="no field 'V'"):
        Tangent(Layer, V=dW)


def test_tangent_of_a_dict_reads_by_key():
    t = Tangent(dict, {"W": 1.0, 3: 2.0})
    assert t["W"] == 1.0 and t[3] == 2.0 and t["missing"] is ZERO
    with pytest.raises(AttributeError, match=r"t\['W'\]"):
        t.W


def test_tangent_of_a_tuple_reads_by_index():
    t = Tangent(tuple, (1.0, ZERO, 3.0))
    assert t == Tangent(tuple, {0: 1.0, 2: 3.0})
    assert t[0] == 1.0 and t[1] is ZERO and t[5] is ZERO
    with pytest.raises(TypeError, match="index"):
        Tangent(list, {"a": 1.0})


def test_tangents_of_namedtuples_and_plain_objects_read_by_attribute():
    assert Tangent(Point, x=1.0).y is ZERO
    assert Tangent(Plain, scale=2.0).scale == 2.0


def test_tangent_is_not_iterable_and_not_hashable():
    t = Tangent(tuple, (1.0,))
    with pytest.raises(TypeError):
        list(t)
    with pytest.raises(TypeError):
        hash(t)


def test_tangent_keeps_its_own_copy_of_the_fields():
    fields = {"W": 1.0}
    t = Tangent(dict, fields)
    fields["W"] = 2.0
    assert t["W"] == 1.0
    with pytest.raises(TypeError):
        t.fields["W"] = 3.0  # read-only view


def test_copies_of_a_tangent_do_not_share_fields():
    t = Tangent(dict, {"W": 1.0})
    for other in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert other == t and other._fields is not t._fields


def test_tangents_add_field_by_field_recursively():
    inner_a = Tangent(Layer, W=np.ones(2))
    inner_b = Tangent(Layer, W=np.full(2, 2.0), b=1.0)
    a = Tangent(dict, {"layer": inner_a, "pair": Tangent(tuple, (1.0, 2.0)), "raw": (1.0, 2.0)})
    b = Tangent(dict, {"layer": inner_b, "pair": Tangent(tuple, {1: 5.0}), "raw": (3.0, 4.0), "extra": 7.0})
    total = a + b
    assert total == Tangent(dict, {
        "layer": Tangent(Layer, W=np.full(2, 3.0), b=1.0),
        "pair": Tangent(tuple, (1.0, 7.0)),
        "raw": (4.0, 6.0),  # tuples of cotangents add elementwise, they do not concatenate
        "extra": 7.0,
    })
    assert a["layer"].W[0] == 1.0  # + never writes into its operands


def test_tangent_addition_unthunks_fields():
    a = Tangent(dict, {"x": Thunk(lambda: 1.0)})
    b = Tangent(dict, {"x": InplaceableThunk(None, lambda: 2.0)})
    assert (a + b)["x"] == 3.0


def test_tangent_plus_zero_and_sum():
    t = Tangent(dict, {"x": 1.0})
    assert t + ZERO is t and ZERO + t is t and NO_TANGENT + t is t
    assert sum([t, t, t]) == Tangent(dict, {"x": 3.0})


def test_adding_tangents_of_different_primal_types_is_an_error():
    with pytest.raises(TypeError, match="tangent of Point to a tangent of Layer"):
        Tangent(Layer, W=1.0) + Tangent(Point, x=1.0)
    with pytest.raises(TypeError, match="ndarray to a structural tangent"):
        Tangent(dict, {"x": 1.0}) + np.ones(2)
    with pytest.raises(TypeError):
        np.ones(2) + Tangent(dict, {"x": 1.0})


def test_tangent_scaling_and_negation():
    t = Tangent(dict, {"x": 1.0, "pair": (1.0, 2.0), "z": ZERO})
    assert 2.0 * t == Tangent(dict, {"x": 2.0, "pair": (2.0, 4.0), "z": ZERO})
    assert t - t == Tangent(dict, {"x": 0.0, "pair": (0.0, 0.0), "z": ZERO})


def test_tangent_equality():
    assert Tangent(dict, {"W": np.ones(2)}) == Tangent(dict, {"W": np.ones(2)})
    assert Tangent(dict, {"W": np.ones(2)}) != Tangent(dict, {"W": np.ones(3)})
    assert Tangent(dict, {"W": ZERO}) == Tangent(dict)
    assert Tangent(dict, {"W": NO_TANGENT}) != Tangent(dict)
    assert Tangent(dict) != Tangent(Layer)


def test_tangent_repr_is_readable():
    assert repr(Tangent(Layer, W=1.0)) == "Tangent(Layer, W=1.0)"
    assert repr(Tangent(dict, {"W": ZERO})) == "Tangent(dict, {'W': ZERO})"
    assert repr(Tangent(tuple, (1.0,))) == "Tangent(tuple, {0: 1.0})"
