"""The language users write around their maths: containers, classes, helper functions.

Each gradient is checked against central finite differences; gradients with respect to a
container or object come back as structural tangents read by the same keys or attributes."""
import numpy as np
import pytest

import language_programs as programs
import s2sad
from finite_differences import assert_gradients_match, numerical_gradient
from s2sad.tangents import Tangent

rng = np.random.default_rng(8)


def r(*shape):
    return rng.standard_normal(shape)


ARRAY_CASES = {
    "uses_helper": (programs.uses_helper, (r(3),), (0,)),
    "uses_varargs": (programs.uses_varargs, (r(2), r(2)), (0, 1)),
    "fact_like": (programs.fact_like, (1.3, 4), (0,)),
    "uses_tuple_return": (programs.uses_tuple_return, (r(3),), (0,)),
    "nested_unpack": (programs.nested_unpack, (r(3),), (0,)),
    "list_append": (programs.list_append, (r(3),), (0,)),
    "star_unpack": (programs.star_unpack, (r(3),), (0,)),
}


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
def test_gradient_matches_finite_differences(name):
    function, args, argnums = ARRAY_CASES[name]
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, list(args), argnums, gradients)


def _field_gradient(function, args, position, read, write):
    """The finite-difference gradient of ``function`` in one field of argument ``position``."""
    def along(value):
        changed = list(args)
        changed[position] = write(args[position], value)
        return function(*changed)
    return numerical_gradient(along, [read(args[position])], 0)


def test_a_method_of_a_dataclass_layer_gives_a_structural_tangent():
    layer, x = programs.Layer(r(3, 2), r(3)), r(2)
    dlayer, dx = s2sad.grad(programs.layer_loss, argnums=(0, 1))(layer, x)
    assert type(dlayer) is Tangent and dlayer.primal_type is programs.Layer
    for field in ("W", "b"):
        expected = _field_gradient(programs.layer_loss, [layer, x], 0, lambda l: getattr(l, field),
                                   lambda l, v: programs.Layer(**{**vars(l), field: v}))
        np.testing.assert_allclose(getattr(dlayer, field), expected, rtol=1e-5, atol=1e-7)
    assert_gradients_match(programs.layer_loss, [layer, x], (1,), (dx,))


def test_a_dict_of_parameters_gives_a_tangent_read_by_key():
    params, x = {"W1": r(3, 2), "W2": r(2, 3)}, r(2)
    dparams = s2sad.grad(programs.dict_loss)(params, x)
    for key in params:
        expected = _field_gradient(programs.dict_loss, [params, x], 0, lambda p: p[key], lambda p, v: {**p, key: v})
        np.testing.assert_allclose(dparams[key], expected, rtol=1e-5, atol=1e-7)


def test_a_namedtuple_gives_a_tangent_read_by_attribute():
    pair = programs.Pair(r(2), r(2))
    dpair = s2sad.grad(programs.namedtuple_loss)(pair)
    np.testing.assert_allclose(dpair.a, pair.b)
    np.testing.assert_allclose(dpair.b, pair.a)


def test_recursion_depth_follows_the_argument():
    for n in (0, 1, 5):
        assert s2sad.grad(programs.fact_like)(1.1, n) == pytest.approx(n * 1.1 ** (n - 1) if n else 0.0)
