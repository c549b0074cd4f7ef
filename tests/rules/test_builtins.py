"""Rules of rules/builtins.py."""
import builtins

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.runtime.tangents import NO_TANGENT, is_zero
from s2sad.testing import check_grad, check_rrule


def cotangents(f, *args, g=1.0):
    _, pullback = rule_for(f).rrule(*args)
    return pullback(g)[1:]


@pytest.mark.parametrize("x", [-1.5, 2.5, np.array([-1.0, 2.0]), np.float32(-0.5)], ids=repr)
def test_abs(x):
    check_rrule(builtins.abs, x)


def test_abs_at_zero():
    assert cotangents(builtins.abs, 0.0) == (0.0,)
    assert cotangents(builtins.abs, -2.0, g=3.0) == (-3.0,)


def test_pow():
    assert cotangents(builtins.pow, 2.0, 3.0) == pytest.approx((12.0, 8 * np.log(2)))
    check_rrule(builtins.pow, 1.3, 2.2)
    check_rrule(builtins.pow, 1.3, 2)


def test_float():
    (dx,) = check_rrule(builtins.float, np.array(1.5))
    assert np.shape(dx) == ()
    (dx,) = check_rrule(builtins.float, np.float32(1.5))
    assert dx.dtype == np.float32
    assert cotangents(builtins.float, "1.5") == (NO_TANGENT,)


def test_sum():
    items = [1.5, np.array([1.0, 2.0]), 2.5]
    (ditems, dstart) = cotangents(builtins.sum, items, 0.5, g=np.array([1.0, 2.0]))
    assert ditems[0] == 3.0 and type(ditems) is list
    np.testing.assert_array_equal(ditems[1], [1.0, 2.0])
    assert dstart == 3.0
    check_rrule(builtins.sum, (1.5, 2.5, -0.5))
    check_rrule(builtins.sum, [np.ones(3), np.ones((2, 3))], 0.5)


@pytest.mark.parametrize("f", [builtins.len, builtins.int, builtins.round, builtins.range, builtins.bool])
def test_nondifferentiable(f):
    assert rule_for(f).nondifferentiable


def _python_sum_of_squares(x):
    return sum(x * x)


def _python_sum_of_rows(A):
    return np.sum(sum(A ** 2, np.ones(3)) * np.arange(3.0))


@pytest.mark.parametrize("function, x", [
    (_python_sum_of_squares, np.array([0.3, -0.7, 1.2])),
    (_python_sum_of_rows, np.arange(6.0).reshape(2, 3) / 7),
], ids=["vector", "rows of a matrix"])
def test_sum_over_an_array_walks_its_first_axis(function, x):
    """sum(x) over an ndarray adds its rows (a crash from inside the rule before)."""
    from finite_differences import numerical_gradient

    np.testing.assert_allclose(s2sad.grad(function)(x), numerical_gradient(function, [x], 0), rtol=1e-6)
    value, tangent = s2sad.jvp(function, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(tangent, np.sum(numerical_gradient(function, [x], 0)), rtol=1e-6)
    assert s2sad.grad(function)(x.astype(np.float32)).dtype == np.float32
    z = x + 0.5j * x[::-1]
    np.testing.assert_allclose(cotangents(builtins.sum, z, 0, g=1.0)[0], np.ones_like(z))


def test_sum_over_an_iterator_is_refused_with_an_s2sad_error():
    with pytest.raises(s2sad.errors.MissingRuleError, match="not an iterator"):
        cotangents(builtins.sum, iter([1.0, 2.0]), 0)


# ------------------------------------------------------------------ sorted and dicts, inside differentiated functions
def sorted_scalars(a):
    s = sorted([a[0], a[1] * 2, a[2]], reverse=True)
    return s[0] * 3 + s[1] ** 2 + s[2]


def sorted_arrays_by_a_key(a, b):
    rows = sorted([a, b, a * b], key=np.sum)
    return np.sum(rows[0] * 2 + rows[2] ** 2)


def sorted_tuple_by_abs(a):
    s = sorted((a[0], a[1], a[2], a[3]), key=abs)
    return s[0] + 2 * s[1] + 3 * s[2] + 4 * s[3]


def sorted_array(a):
    s = sorted(a)
    return s[0] - 2 * s[-1]


def get_with_and_without_default(a, b):
    d = {"w": a, "b": 2.0}
    return np.sum(d["w"] * d.get("b")) + np.sum(d.get("w") ** 2) + np.sum(d.get("missing", b) * a)


def dict_from_a_mapping(a, b):
    d = dict({"w": a, "v": b}, v=3.0)                # the keyword overrides the entry of the mapping
    return np.sum(d["w"] * d["v"]) + np.sum(b)


def dict_copied_then_written(a, b):
    d = {"w": a, "b": b}
    d2 = dict(d)
    d2["w"] = 2 * d2["w"]
    return np.sum(d2["w"] * d["w"] + d2.get("b") ** 2)


def dict_from_pairs(a, b):
    d = dict([("w", a), ("v", b), ("w", a * b)])     # the last of a repeated key stays
    return np.sum(d["w"] + np.tanh(d["v"]))


def first(pair):
    return pair[0]


def values_and_items(a, b):
    d = {"w": a, "v": b, "n": 3}
    values = list(d.values())
    items = sorted(d.items(), key=first)
    return np.sum(values[0] * values[1]) + np.sum(items[2][1] ** 3) + len(list(d.keys()))


def dict_by_keywords(a):
    d = dict(w=a, b=2.0)
    return np.sum(d["w"] * d.get("b"))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("f, argnums", [(sorted_scalars, 0), (sorted_tuple_by_abs, 0), (sorted_array, 0),
                                        (sorted_arrays_by_a_key, (0, 1)), (get_with_and_without_default, (0, 1)),
                                        (dict_from_a_mapping, (0, 1)), (dict_from_pairs, (0, 1)),
                                        (dict_copied_then_written, (0, 1)),
                                        (values_and_items, (0, 1))], ids=lambda v: getattr(v, "__name__", str(v)))
def test_sorted_and_dicts_end_to_end(f, argnums, dtype):
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(4).astype(dtype) for _ in range(2 if argnums != 0 else 1)]
    check_grad(f, *args, argnums=argnums)
    gradients = s2sad.grad(f, argnums=argnums)(*args)
    for gradient in gradients if isinstance(argnums, tuple) else (gradients,):
        assert gradient.dtype == dtype and gradient.shape == (4,)


def test_sorted_sends_cotangents_back_where_they_came_from():
    a = np.array([3.0, 1.0, 2.0, 1.0])
    np.testing.assert_array_equal(s2sad.grad(sorted_array)(a), [-2.0, 1.0, 0.0, 0.0])  # the first of tied 1.0s
    (ds,) = rule_for(builtins.sorted).rrule((3.0, 1.0, 2.0), reverse=True)[1]([10.0, 20.0, 30.0])[1:]
    assert ds == (10.0, 30.0, 20.0)


def test_dict_get_rule():
    d = {"w": np.ones(2)}
    (dd, _, ddefault) = s2sad.registry.method_rule(dict, "get").rrule(d, "w", 5.0)[1](np.array([1.0, 2.0]))[1:]
    np.testing.assert_array_equal(dd["w"], [1.0, 2.0])
    assert ddefault is s2sad.ZERO or not np.any(ddefault)
    (dd, _, ddefault) = s2sad.registry.method_rule(dict, "get").rrule(d, "x", 5.0)[1](7.0)[1:]
    assert ddefault == 7.0


def test_dict_by_differentiated_keywords():
    check_grad(dict_by_keywords, np.array([1.0, -2.0, 0.5]))


def test_dict_rules_pass_complex_values_as_they_are():
    a, g = np.array([1 + 2j, -1j]), np.array([0.5 - 1j, 2j])
    dd = s2sad.registry.method_rule(dict, "get").rrule({"w": a}, "w")[1](g)[1]
    np.testing.assert_array_equal(dd["w"], g)                        # no conjugate: the value is read, not computed
    (dd,) = s2sad.registry.method_rule(dict, "values").rrule({"w": a, "v": 1j})[1]([g, 3j])[1:]
    np.testing.assert_array_equal(dd["w"], g)
    assert dd["v"] == 3j
    (dpairs,) = rule_for(builtins.dict).rrule([("w", a), ("v", 1j)])[1]({"w": g})[1:]
    assert dpairs[0][1] is g and is_zero(dpairs[1][1])
    (ds,) = rule_for(builtins.sorted).rrule([2j, 1 + 0j], key=abs)[1]([g, 1j])[1:]
    assert ds[0] == 1j and ds[1] is g


# ------------------------------------------------------------------ divmod (np.divmod's rule)
@pytest.mark.parametrize("a, b", [(7.3, 2.0), (-7.3, 2.0), (7.3, -1.9), (np.array([7.3, -1.2, 0.4]), 0.7),
                                  (np.array([[7.3], [-1.2]]), np.array([0.7, 2.5, -3.0])),
                                  (np.array([2.5, 4.1], np.float32), np.float32(1.5))], ids=repr)
@pytest.mark.parametrize("f", [builtins.divmod, np.divmod], ids=["divmod", "np.divmod"])
def test_divmod(f, a, b):
    """Away from the jumps of the quotient: central differences see the remainder's slopes."""
    da, db = check_rrule(f, a, b)
    assert np.result_type(da) == np.result_type(a) and np.result_type(db) == np.result_type(b)


def test_divmod_formula_and_ints():
    # (q, r) = divmod(7.5, 2.0) = (3, 1.5): r = a - 3 b, so dr/da = 1, dr/db = -3; q has no slope
    assert cotangents(builtins.divmod, 7.5, 2.0, g=(10.0, 1.0)) == (1.0, -3.0)
    assert all(is_zero(c) for c in cotangents(builtins.divmod, 7.5, 2.0, g=(1.0, None)))
    assert cotangents(builtins.divmod, 7, 2, g=(1.0, 1.0)) == (NO_TANGENT, NO_TANGENT)


def test_divmod_in_user_code():
    def f(x, p):
        turns, phase = divmod(x * 3.0, p)
        return np.sum(np.sin(phase) * turns)

    check_grad(f, np.array([0.4, 2.3, -1.7]), 1.1, argnums=(0, 1))
