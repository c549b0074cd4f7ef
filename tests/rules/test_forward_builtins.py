"""Forward rules of rules/builtins.py: abs, pow, float, sum, list, tuple, max, min; and
coverage of every differentiable rule the module registers."""
import builtins
import collections

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad import registry
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.runtime.tangents import ZERO, Tangent
from test_forward_numpy_elementwise import registered_by

rng = np.random.default_rng(5)


def push(f, args, tangents, kwargs=None):
    kwargs = kwargs or {}
    return forward_rule(f).pushforward(args, kwargs, tangents, f(*args, **kwargs))


@pytest.mark.parametrize("x", [-1.5, 2.5, np.array([-1.0, 2.0]), np.float32(-0.5), np.array([0.5, -2.0], np.float32),
                               np.array(-3.0), 1.0 - 2.0j, np.array([3 + 4j, -1j]), np.array([1 - 1j], np.complex64)],
                         ids=repr)
def test_abs(x):
    (t,) = check_frule(builtins.abs, x, **({"rtol": 2e-3, "atol": 1e-4} if np.result_type(x) == np.complex64 else {}))
    if type(x) is float:
        assert type(t) is float


def test_abs_edges():
    assert push(builtins.abs, (0.0,), {"x": 1.0}) == 0.0
    assert push(builtins.abs, (-2.0,), {"x": 3.0}) == -3.0
    assert push(builtins.abs, (3 + 4j,), {"x": 1 + 1j}) == pytest.approx(1.4)  # Re(conj(z) dz) / |z|


@pytest.mark.parametrize("base, exp", [(1.3, 2.2), (1.3, 2), (-2.0, 3), (2.0, -0.5), (-2.0, 0.5),
                                       (1.5 + 0.5j, 2.0), (1.5, 0.5j),
                                       (np.array([1.5, 2.0]), 0.7), (np.array([1.5, 2.0], np.float32), 2.5),
                                       (np.float64(1.5), np.array([[1.0], [2.0]])), (np.array(1.5), 2)],
                         ids=repr)
def test_pow(base, exp):
    tangents = check_frule(builtins.pow, base, exp)
    out = builtins.pow(base, exp)
    for t, a in zip(tangents, (base, exp)):
        if type(a) is int:
            assert t is None
        elif type(out) is float:
            assert type(t) is float
        elif type(out) is complex:
            assert isinstance(t, complex)  # Python's semantics: complex for a negative base
        else:
            assert np.shape(t) == np.shape(out) and t.dtype == out.dtype


def test_pow_edges_and_mod():
    assert push(builtins.pow, (0.0, 2.0), {"base": 1.0, "exp": 1.0}) == 0.0  # 2 * 0 ** 1, and 0 ** y is flat
    assert push(builtins.pow, (2.0, 0.0), {"base": 1.0}) == 0.0
    assert push(builtins.pow, (0.0, 0.5), {"base": 1.0}) == np.inf
    assert np.isnan(push(builtins.pow, (-2.0, 3.0), {"exp": 1.0}))  # (-2.0) ** y is real at integers only
    assert check_frule(builtins.pow, 3, 4, 5) == [None, None, None]


def test_float():
    (t,) = check_frule(builtins.float, np.array(1.5))
    assert type(t) is float
    (t,) = check_frule(builtins.float, np.float32(1.5), rtol=1e-5)
    assert type(t) is float
    (t,) = check_frule(builtins.float, 2.5)
    assert type(t) is float
    assert check_frule(builtins.float, "1.5") == [None]


@pytest.mark.parametrize("items, start", [
    ([1.5, -2.0, 0.25], 0),
    ((1.5, 2.5, -0.5), 0.5),
    ([np.ones(3), np.ones((2, 3))], 0.5),
    ([np.ones(3, np.float32), 2.5], 0),
    ([np.ones(3, np.float32), np.float32(2.5)], 1.5),
    ([1.5, np.array(2.0), np.float64(3.0)], 0),
    ([1.0 + 2.0j, 0.5], 0),
    ([], 1.5),
])
def test_sum(items, start):
    (t_items, t_start) = check_frule(builtins.sum, items, start)
    out = builtins.sum(items, start)
    for t in (t_items, t_start):
        if t is not None and type(out) is float:
            assert type(t) is float


def test_sum_of_items_without_tangents():
    ints = np.arange(3)
    t = push(builtins.sum, ([ints, np.ones(3, np.float32)],), {"iterable": [ZERO, np.ones(3, np.float32)]})
    assert t.dtype == np.float64 and t.shape == (3,)  # int64 + float32 is float64
    t = push(builtins.sum, ([2, np.ones(3)],), {"iterable": [ZERO, ZERO]})
    assert np.shape(t) == (3,) and not np.any(t)
    t = push(builtins.sum, ([np.ones((2, 3)), 1.5],), {"iterable": [ZERO, 2.0]})
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(t, np.full((2, 3), 2.0))


@pytest.mark.parametrize("f", [builtins.list, builtins.tuple])
def test_list_and_tuple(f):
    (t,) = check_frule(f, [1.5, np.ones(2)])
    assert type(t) is f
    (t,) = check_frule(f, (1.5, -2.5))
    assert type(t) is f
    (t,) = check_frule(f, rng.standard_normal((3, 2)).astype(np.float32))
    assert type(t) is f and len(t) == 3 and t[0].dtype == np.float32
    assert check_frule(f, "abc") == [None]


def check_varargs(f, *args, **kwargs):
    """check_frule for ``f(a, b, c, ...)``: a tangent for each positional argument in turn,
    given through ``iterable`` (the first) and ``args`` (a tuple of the others)."""
    ans = f(*args, **kwargs)
    h = 1e-6
    for i, x in enumerate(args):
        v = rng.standard_normal(np.shape(x))
        v = float(v) if type(x) is float else v
        if i == 0:
            tangents = {"iterable": v}
        else:
            tangents = {"args": tuple(v if j == i else ZERO for j in range(1, len(args)))}
        got = forward_rule(f).pushforward(args, kwargs, tangents, ans)
        up = f(*[a + h * v if j == i else a for j, a in enumerate(args)], **kwargs)
        down = f(*[a - h * v if j == i else a for j, a in enumerate(args)], **kwargs)
        expected = (np.asarray(up) - np.asarray(down)) / (2 * h)
        if got is ZERO:
            got = np.zeros_like(expected)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f", [builtins.max, builtins.min])
def test_max_min(f):
    check_frule(f, [1.0, 3.0, -2.0, 0.5])
    check_frule(f, (1.0, 3.0, -2.0))
    check_frule(f, rng.standard_normal(5))
    check_frule(f, [np.float32(1.0), np.float32(-1.0)])
    check_frule(f, [1.0, -3.0], key=abs)
    check_varargs(f, 1.0, 3.0, -2.0)
    check_varargs(f, -2.0, 3.0)
    check_varargs(f, 1.5, -2.5, key=abs)
    check_varargs(f, np.float64(2.0), 1.0, -4.0)


def test_max_min_ties_default_and_ints():
    assert push(builtins.max, ([2.0, 2.0, 1.0],), {"iterable": [5.0, 6.0, 7.0]}) == 5.5  # the mean of tied ones
    assert push(builtins.min, (1.0, 1.0), {"iterable": 5.0, "args": (6.0,)}) == 5.5
    assert push(builtins.max, (2.0, 1.0, 2.0), {"args": (ZERO, 7.0)}) == 3.5
    assert push(builtins.max, ([2.0, 2.0],), {"iterable": [5.0, 6.0]}, {"key": abs}) == 5.0  # key= chose the first
    assert push(builtins.max, (1.0, 2.0, 3.0), {"iterable": 5.0}) is ZERO
    assert push(builtins.max, (1.0, 2.0, 3.0), {"args": (ZERO, 7.0)}) == 7.0
    assert push(builtins.max, ([1.0, 3],), {"iterable": [5.0, None]}) is ZERO  # an int wins: no tangent
    assert push(builtins.max, ([],), {"default": 4.0}, {"default": 1.5}) == 4.0
    assert push(builtins.max, ([1.0],), {"default": 4.0}, {"default": 1.5}) is ZERO


def test_every_differentiable_rule_has_a_forward_rule():
    functions = registered_by("s2sad.rules.builtins")
    assert builtins.max in functions and builtins.len in functions
    rules = [rule for rule in registry.all_rules() if any(rule.function is f for f in functions)]
    assert len(rules) == len({id(f) for f in functions})
    missing = [rule.name for rule in rules if not rule.nondifferentiable and forward_rule(rule.function) is None]
    assert missing == []


# ------------------------------------------------------------------ sorted and dicts, inside functions s2sad.jvp transforms
from test_builtins import (dict_from_a_mapping, dict_from_pairs, get_with_and_without_default,  # noqa: E402
                           sorted_array, sorted_arrays_by_a_key, sorted_scalars, sorted_tuple_by_abs, values_and_items)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("f, count", [(sorted_scalars, 1), (sorted_tuple_by_abs, 1), (sorted_array, 1),
                                      (sorted_arrays_by_a_key, 2), (get_with_and_without_default, 2),
                                      (dict_from_a_mapping, 2), (dict_from_pairs, 2), (values_and_items, 2)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_sorted_and_dicts_jvp(f, count, dtype):
    rng = np.random.default_rng(4)
    args = [rng.standard_normal(4).astype(dtype) for _ in range(count)]
    tangents = [rng.standard_normal(4).astype(dtype) for _ in range(count)]
    value, tangent = s2sad.jvp(f, args, tangents)
    h = 1e-6
    wide = [a.astype(np.float64) for a in args]
    up = f(*[a + h * t for a, t in zip(wide, tangents)])
    down = f(*[a - h * t for a, t in zip(wide, tangents)])
    np.testing.assert_allclose(tangent, (up - down) / (2 * h), rtol=1e-5 if dtype == np.float64 else 1e-3, atol=1e-6)


def test_sorted_rule_pushes_each_tangent_to_its_new_place():
    assert push(builtins.sorted, ([3.0, 1.0, 2.0],), {"iterable": [10.0, 20.0, 30.0]}) == [20.0, 30.0, 10.0]


Affine = collections.namedtuple("Affine", ["W", "b"])


def _affine_tanh(x, W, b):
    return np.tanh(W @ x + b)


def _star_call_of_a_namedtuple_made_inside(x):
    layer = Affine(np.outer(np.cos(x[:2]), x), np.sin(x[:2]))
    return np.sum(_affine_tanh(x, *layer)) + np.sum(list(layer)[1])


def test_list_and_tuple_of_a_namedtuple_made_in_forward_code():
    """Its tangent is a structural Tangent read field by field (``tuple(g)`` of it raised
    TypeError; found by the fuzzer, fuzz21): jvp against central differences."""
    x, v = np.array([0.3, -0.7, 1.1]), np.array([0.5, 1.0, -0.25])
    _, tangent = s2sad.jvp(_star_call_of_a_namedtuple_made_inside, (x,), (v,))
    h = 1e-6
    expected = (_star_call_of_a_namedtuple_made_inside(x + h * v) - _star_call_of_a_namedtuple_made_inside(x - h * v)) / (2 * h)
    assert tangent == pytest.approx(expected, rel=1e-7)
    assert push(builtins.tuple, ({"a": 1.0},), {"iterable": Tangent(dict, {"a": 2.0})}) is ZERO   # a dict's keys


@pytest.mark.parametrize("f", [builtins.divmod, np.divmod], ids=["divmod", "np.divmod"])
def test_divmod(f):
    for a, b in [(7.3, 2.0), (-7.3, -1.9), (np.array([7.3, -1.2, 0.4]), 0.7),
                 (np.array([[7.3], [-1.2]]), np.array([0.7, 2.5, -3.0]))]:
        check_frule(f, a, b)
    q_tangent, r_tangent = push(f, (7.5, 2.0), {"x1": 1.0, "x2": 1.0})
    assert (q_tangent, r_tangent) == (0.0, 1.0 - 3.0)
