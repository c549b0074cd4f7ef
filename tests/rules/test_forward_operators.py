"""Forward rules of rules/operators.py: arithmetic on Python floats, numpy scalars, 0-d and
broadcast arrays, float32 and complex (no conjugate); matmul; indexing of arrays, lists,
tuples and structural tangents; coverage of every differentiable rule the module registers."""
import operator

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad import registry
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.runtime.tangents import ZERO, Tangent
from test_forward_numpy_elementwise import registered_by

rng = np.random.default_rng(3)
C64 = dict(rtol=2e-3, atol=1e-4)


def push(f, args, tangents):
    return forward_rule(f).pushforward(args, {}, tangents, f(*args))


def positive(shape, dtype=np.float64):
    return rng.uniform(0.5, 2.0, shape).astype(dtype)


def normal(shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.mod]
IDS = [f.__name__ for f in BINARY]
SHAPES = [((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((3, 1, 2), (4, 1)), ((0, 3), (3,))]


def operands(f, shapes, dtype=np.float64):
    a = positive(shapes[0], dtype) if f in (operator.pow, operator.mod) else normal(shapes[0], dtype)
    b = positive(shapes[1], dtype) if f in (operator.truediv, operator.mod) else normal(shapes[1], dtype)
    return a, b


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("f", BINARY, ids=IDS)
def test_broadcasting(f, shapes):
    check_frule(f, *operands(f, shapes))


@pytest.mark.parametrize("f", BINARY, ids=IDS)
def test_python_floats_stay_python_floats(f):
    a, b = (float(x) for x in operands(f, ((), ())))
    for t in check_frule(f, a, b):
        assert type(t) is float
    check_frule(f, a, 2)  # an int operand has no tangent
    check_frule(f, 3, b)


@pytest.mark.parametrize("f", BINARY, ids=IDS)
def test_dtypes(f):
    a, b = operands(f, ((2, 3), (2, 3)))
    ta, tb = check_frule(f, a.astype(np.float32), b.astype(np.float32))
    assert ta.dtype == tb.dtype == np.float32
    ta, tb = check_frule(f, a.astype(np.float32), float(b[0, 0]))  # a Python float's tangent, in float32
    assert ta.dtype == tb.dtype == np.float32 and tb.shape == (2, 3)
    ta, tb = check_frule(f, float(a[0, 0]), b.astype(np.float32))
    assert ta.dtype == tb.dtype == np.float32 and ta.shape == (2, 3)
    ta, tb = check_frule(f, a.astype(np.float32), b[0])  # float32 meets float64
    assert ta.dtype == tb.dtype == np.float64
    check_frule(f, np.float64(a[0, 0]), np.float32(b[0, 0]))
    check_frule(f, np.float32(a[0, 0]), float(b[0, 0]))
    check_frule(f, np.array(a[0, 0]), b)
    check_frule(f, a, np.array(b[0, 0]))


@pytest.mark.parametrize("f", [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow])
def test_complex(f):
    a = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    b = rng.standard_normal(3) + 1j * rng.standard_normal(3)
    check_frule(f, a, b)
    ta, tb = check_frule(f, np.abs(a), b)  # a real operand's tangent becomes complex
    assert ta.dtype == tb.dtype == np.complex128
    ta, tb = check_frule(f, a.astype(np.complex64), 1.5, **C64)
    assert ta.dtype == tb.dtype == np.complex64
    for t in check_frule(f, complex(a[0, 0]), complex(b[0])):
        assert isinstance(t, complex)
    check_frule(f, 1.5, complex(b[0]))  # a real operand of a complex operation


def test_holomorphic_without_conjugate():
    z, w, g = 1 + 2j, 0.5 - 1j, 0.3 + 0.4j
    assert push(operator.mul, (z, w), {"a": g}) == g * w
    assert push(operator.truediv, (z, w), {"b": g}) == pytest.approx(-g * z / w ** 2)
    assert push(operator.pow, (z, 3.0), {"a": g}) == pytest.approx(g * 3 * z ** 2)


def test_power():
    check_frule(operator.pow, -2.0, 0.5)  # Python's ** gives a complex number: so does its tangent
    check_frule(operator.pow, normal((2, 3)), 2)
    check_frule(operator.pow, positive(3, np.float32), 3.0)
    assert push(operator.pow, (0.0, 2.0), {"a": 1.0, "b": 1.0}) == 0.0
    assert push(operator.pow, (2.0, 0.0), {"a": 1.0}) == 0.0
    assert np.isnan(push(operator.pow, (-2.0, 2.0), {"b": 1.0}))  # (-2.0) ** y is real at integers only
    with np.errstate(all="raise"):
        t = push(operator.pow, (np.array([0.0, 2.0]), np.array([2.0, 0.5])), {"b": np.ones(2)})
    np.testing.assert_allclose(t, [0.0, np.sqrt(2) * np.log(2)])


def test_mod():
    assert push(operator.mod, (7.5, 2.0), {"a": 1.0, "b": 1.0}) == 1.0 - 3.0
    assert push(operator.mod, (-7.5, 2.0), {"b": 1.0}) == 4.0  # Python's % floors


@pytest.mark.parametrize("shapes", [((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)),
                                    ((5, 2, 3), (3, 4)), ((2, 1, 2, 3), (4, 3, 2))], ids=str)
def test_matmul(shapes):
    a, b = normal(shapes[0]), normal(shapes[1])
    check_frule(operator.matmul, a, b)
    ta, tb = check_frule(operator.matmul, a.astype(np.float32), b.astype(np.float32))
    assert ta.dtype == tb.dtype == np.float32
    ta, tb = check_frule(operator.matmul, a.astype(np.float32), b)
    assert ta.dtype == tb.dtype == np.float64
    check_frule(operator.matmul, a + 1j * normal(shapes[0]), b)


@pytest.mark.parametrize("f", [operator.neg, operator.pos])
@pytest.mark.parametrize("x", [1.5, np.float32(-2.0), np.array(0.5), normal((2, 3)), normal(3, np.float32),
                               1 - 2j, normal(2) + 1j], ids=repr)
def test_unary(f, x):
    (t,) = check_frule(f, x)
    assert type(t) is type(f(x)) and np.result_type(t) == np.result_type(f(x))


@pytest.mark.parametrize("index", [0, -1, (1, 2), slice(1, None), (slice(None), 0), np.array([2, 0, 2]),
                                   (np.array([0, 1]), np.array([2, 2])), Ellipsis, (None, 1)], ids=repr)
def test_getitem_of_arrays(index):
    x = normal((3, 4))
    (t, _) = check_frule(operator.getitem, x, index)
    check_frule(operator.getitem, x.astype(np.float32), index)
    check_frule(operator.getitem, x + 1j * normal((3, 4)), index)
    (t, _) = check_frule(operator.getitem, x, x > 0)  # a mask
    assert t.shape == (np.sum(x > 0),)


def test_getitem_of_containers():
    items = [1.5, np.ones(3), -2.0]
    (t, _) = check_frule(operator.getitem, items, 1)
    assert t.shape == (3,)
    (t, _) = check_frule(operator.getitem, tuple(items), slice(0, 2))
    assert type(t) is tuple and len(t) == 2
    (t, _) = check_frule(operator.getitem, items, slice(None, None, -1))
    assert type(t) is list
    assert push(operator.getitem, ({"w": 1.5, "b": 2.0}, "w"), {"a": {"w": 3.0, "b": ZERO}}) == 3.0
    assert push(operator.getitem, ({"w": 1.5, "b": 2.0}, "b"), {"a": Tangent(dict, {"w": 3.0})}) is ZERO
    assert push(operator.getitem, ((1.5, 2.5), 1), {"a": Tangent(tuple, {1: 4.0})}) == 4.0
    assert push(operator.getitem, ([1.5, 2.5], 0), {"a": [ZERO, 4.0]}) is ZERO


def test_every_differentiable_rule_has_a_forward_rule():
    functions = registered_by("s2sad.rules.operators")
    assert operator.add in functions and operator.lt in functions
    rules = [rule for rule in registry.all_rules() if any(rule.function is f for f in functions)]
    assert len(rules) == len({id(f) for f in functions})
    missing = [rule.name for rule in rules if not rule.nondifferentiable and forward_rule(rule.function) is None]
    assert missing == []
