"""Forward rules of rules/numpy_shapes.py: every case against finite differences, float64 and float32."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.registry import all_rules
from s2sad.runtime.tangents import NO_TANGENT, ZERO

rng = np.random.default_rng(13)


def r(*shape):
    return rng.standard_normal(shape)


def increasing(n):
    """Distinct, unevenly spaced coordinates."""
    return np.cumsum(rng.uniform(0.2, 1.0, n))


def positive(*shape):
    return rng.uniform(0.2, 1.5, shape)


def _leaves(x):
    return [leaf for item in x for leaf in _leaves(item)] if isinstance(x, (list, tuple)) else [x]


def _moved(x, step, direction):
    if isinstance(x, (list, tuple)):
        return type(x)(_moved(item, step, d) for item, d in zip(x, direction))
    return x if direction is None else x + step * np.asarray(direction)


def check_direction(f, args, kwargs, param, tangent, where, direction=None, rtol=1e-6, atol=1e-8):
    """The rule's pushforward of ``tangent`` (given for ``param``) against finite differences that move
    the argument at ``where`` (a position, or a keyword's name) along ``direction`` (default: the tangent)."""
    direction = tangent if direction is None else direction
    ans = f(*args, **kwargs)
    pushed = forward_rule(f).pushforward(args, kwargs, {param: tangent}, ans)

    def at(step):
        a, k = list(args), dict(kwargs)
        if isinstance(where, str):
            k[where] = _moved(k[where], step, direction)
        else:
            a[where] = _moved(a[where], step, direction)
        return f(*a, **k)

    step = 1e-6
    numeric = [(np.asarray(hi) - np.asarray(lo)) / (2 * step) for hi, lo in zip(_leaves(at(step)), _leaves(at(-step)))]
    got = _leaves(pushed) if not (pushed is ZERO) else [np.zeros(np.shape(x)) for x in _leaves(ans)]
    assert len(got) == len(numeric)
    for g, n, out in zip(got, numeric, _leaves(ans)):
        g = np.zeros(np.shape(out)) if g is ZERO else g
        assert np.shape(g) == np.shape(out)
        np.testing.assert_allclose(g, n, rtol=rtol, atol=atol)
    return pushed


# (function, positional args, keyword args)
CASES = [
    (np.reshape,     (r(2, 3), (3, 2)), {}),
    (np.reshape,     (r(2, 3), -1), {"order": "F"}),
    (np.reshape,     (r(6),), {"shape": (2, 3)}),
    (np.ravel,       (r(2, 3, 2),), {}),
    (np.ravel,       (r(2, 3),), {"order": "F"}),
    (np.transpose,   (r(2, 3, 4),), {}),
    (np.transpose,   (r(2, 3, 4), (1, 2, 0)), {}),
    (np.transpose,   (r(2, 3, 4), (-1, 0, 1)), {}),
    (np.swapaxes,    (r(2, 3, 4), 0, 2), {}),
    (np.moveaxis,    (r(2, 3, 4), 0, -1), {}),
    (np.moveaxis,    (r(2, 3, 4), (0, 1), (2, 0)), {}),
    (np.rollaxis,    (r(2, 3, 4), 2), {}),
    (np.rollaxis,    (r(2, 3, 4), -1, -2), {}),
    (np.squeeze,     (r(1, 3, 1),), {}),
    (np.squeeze,     (r(1, 3, 1), 2), {}),
    (np.expand_dims, (r(2, 3), 1), {}),
    (np.expand_dims, (r(2, 3), (0, -1)), {}),
    (np.atleast_1d,  (r(),), {}),
    (np.atleast_1d,  (1.5,), {}),
    (np.atleast_2d,  (r(3),), {}),
    (np.atleast_3d,  (r(2, 3),), {}),
    (np.flip,        (r(2, 3),), {}),
    (np.flip,        (r(2, 3, 4), (0, 2)), {}),
    (np.fliplr,      (r(2, 3),), {}),
    (np.flipud,      (r(2, 3),), {}),
    (np.roll,        (r(5), 2), {}),
    (np.roll,        (r(3, 4), (1, -1), (0, 1)), {}),
    (np.rot90,       (r(2, 3),), {}),
    (np.rot90,       (r(2, 3, 4), 3, (1, 2)), {}),
    (np.copy,        (r(2, 3),), {}),
    (np.asarray,     (r(2, 3),), {}),
    (np.asarray,     ([1.5, r(), 2.5],), {}),
    (np.asarray,     (r(2, 3),), {"dtype": np.complex128}),
    (np.array,       (r(2, 3),), {}),
    (np.array,       ([1.5, r(), 2.5],), {}),
    (np.array,       ([[1.5, 2.5], (r(), 0.5)],), {}),
    (np.array,       ([1.5, 2, r()],), {}),                  # an int element has no tangent
    (np.array,       (r(3),), {"ndmin": 3}),
    (np.broadcast_to, (r(3), (2, 3)), {}),
    (np.broadcast_to, (r(2, 1), (4, 2, 3)), {}),
    (np.concatenate, ([r(2, 3), r(1, 3)],), {}),
    (np.concatenate, ((r(2, 3), r(2, 1)), 1), {}),
    (np.concatenate, ([r(2, 3), r(4)],), {"axis": None}),
    (np.concatenate, ([r(2), np.arange(3)],), {}),         # an int array has no tangent
    (np.stack,       ([r(2, 3), r(2, 3)],), {}),
    (np.stack,       ((r(2, 3), r(2, 3), r(2, 3)), -1), {}),
    (np.stack,       ([1.5, r(), 2.0],), {}),
    (np.vstack,      ([r(3), r(2, 3)],), {}),
    (np.hstack,      ([r(3), r(2)],), {}),
    (np.hstack,      ((r(2, 3), r(2, 1)),), {}),
    (np.tile,        (r(2, 3), 2), {}),
    (np.tile,        (r(2, 3), (2, 1, 3)), {}),
    (np.tile,        (1.5, 3), {}),
    (np.repeat,      (r(2, 3), 2), {}),
    (np.repeat,      (r(2, 3), [1, 0, 2], 1), {}),
    (np.kron,        (r(2, 3), r(4, 2)), {}),
    (np.kron,        (r(3), r(2, 2)), {}),
    (np.kron,        (1.5, r(2)), {}),
    (np.kron,        (r(2, 2), -0.5), {}),
    (np.diag,        (r(3),), {}),
    (np.diag,        (r(3), -1), {}),
    (np.diag,        (r(3, 4), 2), {}),
    (np.diagonal,    (r(3, 4), 1), {}),
    (np.diagonal,    (r(2, 3, 4), -1, 2, 1), {}),
    (np.trace,       (r(3, 4),), {}),
    (np.trace,       (r(2, 3, 4), 1, 1, 2), {}),
    (np.triu,        (r(3, 4),), {}),
    (np.triu,        (r(4),), {}),
    (np.tril,        (r(2, 3, 4), 2), {}),
    (np.sort,        (r(5),), {}),
    (np.sort,        (r(3, 4), 0), {}),
    (np.sort,        (r(3, 4), None), {}),
    (np.sort,        (r(3, 4, 5), 1), {}),
    (np.partition,   (r(7), 3), {}),
    (np.partition,   (r(4, 6), [1, 3], 0), {}),
    (np.partition,   (r(3, 5, 4), (0, 3), 1), {}),
    (np.partition,   (r(4, 6), 2, None), {}),
    (np.take_along_axis, (r(3, 4), np.array([[0, 0, 3], [1, 1, 1], [2, 0, 1]]), 1), {}),
    (np.take_along_axis, (r(3, 4), np.array([11, 0, 0, 5]), None), {}),
    (np.ascontiguousarray, (r(2, 3).T,), {}),
    (np.ascontiguousarray, (r(),), {}),  # a 0-d array comes back with one axis
    (np.asfortranarray, (r(2, 3),), {}),
    (np.asfortranarray, ([1.5, r(), 2.5],), {}),
    (np.ediff1d,     (r(2, 3),), {}),  # flattened first
    (np.ediff1d,     (r(4), r(2), 0.7), {}),  # ends given by position (to_end, to_begin), differentiated too
    (np.ediff1d,     (r(1), r(3)), {}),  # one element: no differences, only the end
    (np.ediff1d,     (r(3), None, r(2, 1)), {}),
    (np.diff,        (r(5),), {}),
    (np.diff,        (r(3, 5), 2), {}),
    (np.diff,        (r(4, 3), 1, 0), {}),
    # ends given by position, so that they are differentiated too (u[:, -1:] appended: probe15)
    (np.diff,        (r(4, 3), 1, -1, r(4, 1), r(4, 2)), {}),
    (np.diff,        (r(5), 2, 0, 0.7, r(2)), {}),
    (np.diff,        (r(3, 4), 1, 0, np.array(0.3)), {}),
    (np.diff,        (r(4, 3),), {"prepend": 1.0, "append": r(4, 1)}),
    (np.split,       (r(6, 2), 3), {}),
    (np.split,       (r(2, 6), [2, 2, 7], 1), {}),
    (np.array_split, (r(7, 3), 3), {}),
    (np.hsplit,      (r(3, 4), 2), {}),
    (np.vsplit,      (r(4, 3), [1]), {}),
    (np.dsplit,      (r(2, 2, 6), 3), {}),
    (np.gradient,    (r(6),), {}),
    (np.gradient,    (r(3),), {"edge_order": 2}),
    (np.gradient,    (r(6), 0.5), {}),
    (np.gradient,    (r(6), r() + 2.0), {"edge_order": 2}),
    (np.gradient,    (r(6), increasing(6)), {}),
    (np.gradient,    (r(6), increasing(6)), {"edge_order": 2}),
    (np.gradient,    (r(5, 6),), {}),
    (np.gradient,    (r(5, 6), 0.3), {"edge_order": 2}),
    (np.gradient,    (r(5, 6), increasing(6)), {"axis": 1}),
    (np.gradient,    (r(6), np.linspace(0.0, 1.0, 6)), {}),   # evenly spaced coordinates
    (np.cumprod,     (r(5),), {}),
    (np.cumprod,     (r(3, 4), 1), {}),
    (np.cumprod,     (r(3, 4), -2), {}),
    (np.cumprod,     (r(2, 3, 2),), {}),
    (np.cumprod,     (np.array([1.5, 0.0, 2.0, 0.0, 3.0]),), {}),
    (np.cumprod,     (np.array([[2.0, 0.0, 3.0], [0.0, 1.5, -2.0], [1.0, 2.0, 0.0]]), 1), {}),
    (np.cumprod,     (1.5,), {}),
    (np.average,     (r(3, 4),), {}),
    (np.average,     (r(3, 4), 0), {}),
    (np.average,     (r(3, 4), 1, positive(4)), {}),
    (np.average,     (r(3, 4), None, positive(3, 4)), {}),
    (np.average,     (r(3, 4), 1, positive(3, 4), True), {}),
    (np.average,     (r(3, 4), 0, positive(3), True), {"keepdims": True}),
    (np.average,     (r(2, 3, 4), (2, 0), positive(4, 2), True), {}),
    (np.average,     (r(2, 3), None, None, True), {}),
    (np.average,     (1.5,), {}),
    (np.average,     (r(), None, r() + 2.0), {}),
    (np.linspace,    (r(), r(), 5), {}),
    (np.linspace,    (r(2), r(2), 4), {"endpoint": False}),
    (np.linspace,    (r(2), 3.0, 4), {"axis": 1}),
    (np.linspace,    (r(), r(3), 5, True, True), {}),
    (np.full,        ((2, 3), r()), {}),
    (np.full,        ((2, 3), r(3)), {}),
    (np.full_like,   (r(2, 3), 1.5), {}),
]
if hasattr(np, "permute_dims"):
    CASES += [(np.permute_dims, (r(2, 3, 4), (2, 0, 1)), {}), (np.astype, (r(2, 3), np.float64), {}),
              (np.astype, (r(2, 3), np.complex128), {})]

IDS = [f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(CASES)]


def float32(x):
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        return x.astype(np.float32)
    if isinstance(x, list):
        return [float32(item) for item in x]
    if isinstance(x, tuple) and any(isinstance(item, np.ndarray) for item in x):
        return tuple(float32(item) for item in x)
    return x


@pytest.mark.parametrize("f, args, kwargs", CASES, ids=IDS)
def test_finite_differences(f, args, kwargs):
    check_frule(f, *args, **kwargs)


# full_like's array only gives the output its shape: the checker's zero tangent for it is float64
@pytest.mark.parametrize("f, args, kwargs", [c for c in CASES if c[0] is not np.full_like],
                         ids=[i for i, c in zip(IDS, CASES) if c[0] is not np.full_like])
def test_float32_stays_float32(f, args, kwargs):
    check_frule(f, *(float32(a) for a in args), **kwargs)


LAYOUTS = {"C": lambda x: x, "F": np.asfortranarray, "transposed": lambda x: x.T.copy().T,
           "strided": lambda x: np.repeat(np.repeat(x, 2, 0), 3, 1)[::-2, ::3], "reversed": lambda x: x[::-1, ::-1]}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_orders_follow_the_input_layout(order, layout):
    """'A' and 'K' read the input in its memory order: the tangent's elements must follow, whatever its layout."""
    x, v = LAYOUTS[layout](r(4, 6)), LAYOUTS[layout](r(4, 6))   # v: laid out as x is
    t = np.ascontiguousarray(v)                                      # the same values, another layout
    np.testing.assert_array_equal(forward_rule(np.ravel).pushforward((x, order), {}, {"a": t}, np.ravel(x, order)),
                                  np.ravel(v, order))
    if order != "K":
        pushed = forward_rule(np.reshape).pushforward((x, (3, 8)), {"order": order}, {"a": t},
                                                      np.reshape(x, (3, 8), order=order))
        np.testing.assert_array_equal(pushed, np.reshape(v, (3, 8), order=order))


def test_views_and_copies_mirror_the_primal():
    x, t = r(2, 3), r(2, 3)
    for f, args in ((np.reshape, ((3, 2),)), (np.transpose, ()), (np.ravel, ())):
        pushed = forward_rule(f).pushforward((x, *args), {}, {"a": t}, f(x, *args))
        assert np.shares_memory(pushed, t)
    for f in (np.array, np.copy):
        param = list(forward_rule(f).signature.parameters)[0]
        pushed = forward_rule(f).pushforward((x,), {}, {param: t}, f(x))
        assert not np.shares_memory(pushed, t)
        np.testing.assert_array_equal(pushed, t)


def test_sequence_tangents_with_missing_elements():
    a, b = r(2, 3), r(1, 3)
    ta = r(2, 3)
    for missing in (None, ZERO, NO_TANGENT):
        pushed = forward_rule(np.concatenate).pushforward(([a, b],), {}, {"arrays": [ta, missing]}, np.concatenate([a, b]))
        np.testing.assert_array_equal(pushed, np.concatenate([ta, np.zeros((1, 3))]))
    pushed = forward_rule(np.stack).pushforward(((a, a),), {}, {"arrays": ZERO}, np.stack((a, a)))
    assert pushed is ZERO
    pushed = forward_rule(np.array).pushforward(([1.0, 2.0],), {}, {"object": [None, 3.0]}, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(pushed, [0.0, 3.0])


def test_split_gives_one_tangent_per_piece():
    x, t = r(6, 2), r(6, 2)
    pushed = forward_rule(np.split).pushforward((x, 3), {}, {"ary": t}, np.split(x, 3))
    assert len(pushed) == 3
    np.testing.assert_array_equal(pushed[1], t[2:4])


def test_sort_and_partition_move_each_tangent_with_its_element():
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    t = np.array([50.0, 10.0, 40.0, 20.0, 30.0])  # each tangent tells its element
    pushed = forward_rule(np.sort).pushforward((x,), {}, {"a": t}, np.sort(x))
    np.testing.assert_array_equal(pushed, 10 * np.sort(x))
    for kth in (2, [0, 4], -1):
        ans = np.partition(x, kth)
        pushed = forward_rule(np.partition).pushforward((x, kth), {}, {"a": t}, ans)
        np.testing.assert_array_equal(pushed, 10 * ans)
    ties = np.array([1.0, 3.0, 1.0, 3.0, 2.0])
    pushed = forward_rule(np.sort).pushforward((ties,), {}, {"a": np.arange(5.0)}, np.sort(ties))
    assert sorted(pushed.tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0]     # a permutation of the tangent


# ------------------------------------------------------------------ np.pad
PAD_WIDTHS = [2, (1,), (1, 3), ((2, 0), (1, 2)), {1: (0, 2)}, ((7, 9), (6, 5))]   # the last is wider than the array
PAD_MODES = [
    ("constant", {}), ("constant", {"constant_values": 1.5}), ("edge", {}), ("wrap", {}),
    ("reflect", {}), ("reflect", {"reflect_type": "odd"}), ("symmetric", {}), ("symmetric", {"reflect_type": "odd"}),
    ("linear_ramp", {}), ("linear_ramp", {"end_values": ((1.0, -1.0), (0.5, 2.0))}),
    ("maximum", {}), ("minimum", {"stat_length": 2}), ("mean", {}), ("mean", {"stat_length": ((1, 2), (3, 1))}),
    ("median", {}), ("median", {"stat_length": (2, 3)}),
]


@pytest.mark.parametrize("width", PAD_WIDTHS, ids=str)
@pytest.mark.parametrize("mode, options", PAD_MODES, ids=[f"{m}-{i}" for i, (m, _) in enumerate(PAD_MODES)])
def test_pad(mode, options, width):
    x = r(4, 5)
    check_frule(np.pad, x, width, mode, **options)
    (dx, *_) = check_frule(np.pad, x.astype(np.float32), width, mode, **options)
    assert dx.dtype == np.float32


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum",
                                  "mean", "median"])
def test_pad_shapes(mode):
    check_frule(np.pad, r(40), (3, 5), mode)
    check_frule(np.pad, r(2, 3, 4), ((1, 0), (0, 2), (2, 1)), mode)
    check_frule(np.pad, r(1, 3), 2, mode)
    check_frule(np.pad, np.array(1.5), 2, mode)


def test_pad_statistics_at_ties_and_medians():
    rule = forward_rule(np.pad)
    x = np.array([3.0, 3.0, 1.0])          # maximum: the tied maxima share, as in the reverse rule
    pushed = rule.pushforward((x, (1, 0), "maximum"), {}, {"array": np.array([1.0, 3.0, 5.0])},
                              np.pad(x, (1, 0), "maximum"))
    np.testing.assert_array_equal(pushed, [2.0, 1.0, 3.0, 5.0])
    x = np.array([4.0, 1.0, 3.0, 2.0])     # median of an even window: the mean of the two middle ones
    pushed = rule.pushforward((x, (1, 0), "median"), {}, {"array": np.array([1.0, 10.0, 100.0, 1000.0])},
                              np.pad(x, (1, 0), "median"))
    np.testing.assert_array_equal(pushed[0], 550.0)


@pytest.mark.parametrize("values", [0.5, np.array(0.5), (0.5, -1.0), ((0.5, -1.0),), ((1.0, 2.0), (3.0, 4.0)),
                                    np.array([[1.0], [2.0]]), [[1.0, 2.0], [3.0, 4.0]]], ids=str)
def test_pad_constant_and_end_values(values):
    x, width = r(3, 4), ((1, 2), (2, 1))
    direction = r(*np.shape(values)) if np.ndim(values) else r()
    for mode, keyword in (("constant", "constant_values"), ("linear_ramp", "end_values")):
        check_direction(np.pad, (x, width, mode), {keyword: values}, keyword, direction, keyword)
    # the other mode's values do not move the output
    pushed = forward_rule(np.pad).pushforward((x, width, "edge"), {}, {"constant_values": 1.0}, np.pad(x, width, "edge"))
    assert pushed is ZERO


# ------------------------------------------------------------------ np.gradient: several spacings (a *varargs parameter)
@pytest.mark.parametrize("varargs, kwargs", [((0.3, increasing(6)), {}), ((increasing(5), increasing(6)), {"edge_order": 2}),
                                             ((2.0, 0.5), {}), ((0.7, increasing(5)), {"axis": (-1, 0)})], ids=str)
def test_gradient_spacings_one_at_a_time(varargs, kwargs):
    f = r(5, 6)
    for j, spacing in enumerate(varargs):
        tangent = r() if np.ndim(spacing) == 0 else r(*np.shape(spacing))
        tangents = tuple(tangent if i == j else None for i in range(len(varargs)))
        check_direction(np.gradient, (f, *varargs), kwargs, "varargs", tangents, 1 + j, direction=tangent)
    check_direction(np.gradient, (f, *varargs), kwargs, "f", r(5, 6), 0)


def test_gradient_shared_spacing_and_float32():
    f = r(4, 5)
    pushed = check_direction(np.gradient, (f, 0.5), {}, "varargs", (0.25,), 1, direction=0.25)
    outx, outy = np.gradient(f, 0.5)
    np.testing.assert_allclose(pushed[0], -outx * 0.25 / 0.5)
    pushed = forward_rule(np.gradient).pushforward((f.astype(np.float32), increasing(4)), {"axis": 0},
                                                   {"varargs": (r(4),)}, np.gradient(f.astype(np.float32), increasing(4), axis=0))
    assert pushed.dtype == np.float32


# ------------------------------------------------------------------ exact at zeros, formulas
@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 2.0, 3.0], [2.0, 3.0, 0.0], [0.0, 0.0, 1.0]], ids=str)
def test_cumprod_exact_at_zeros(x):
    x, t = np.array(x), r(len(x))
    with np.errstate(all="raise"):
        pushed = forward_rule(np.cumprod).pushforward((x,), {}, {"a": t}, np.cumprod(x))
    expected = [sum(t[j] * np.prod(np.delete(x[: i + 1], j)) for j in range(i + 1)) for i in range(len(x))]
    np.testing.assert_allclose(pushed, expected, rtol=1e-12)


def test_average_and_linspace_tuples():
    a, w = r(3, 4), positive(4)
    avg, total = np.average(a, 1, w, returned=True)
    pushed = forward_rule(np.average).pushforward((a, 1, w, True), {}, {"weights": np.ones(4)}, (avg, total))
    np.testing.assert_allclose(pushed[1], np.full(3, 4.0))
    pushed = forward_rule(np.linspace).pushforward((0.0, 1.0, 5), {"retstep": True}, {"stop": 1.0},
                                                   np.linspace(0.0, 1.0, 5, retstep=True))
    np.testing.assert_allclose(pushed[0], np.linspace(0, 1, 5))
    assert pushed[1] == pytest.approx(0.25)


def test_casts_take_the_output_dtype():
    # (a function that casts to float32 itself is too coarse for finite differences)
    x, t = r(3, 3), r(3, 3)
    pushed = forward_rule(np.trace).pushforward((x,), {"dtype": np.float32}, {"a": t}, np.trace(x, dtype=np.float32))
    assert pushed.dtype == np.float32 and pushed == pytest.approx(np.trace(t), rel=1e-6)
    if hasattr(np, "astype"):
        pushed = forward_rule(np.astype).pushforward((x, np.float32), {}, {"x": t}, np.astype(x, np.float32))
        assert pushed.dtype == np.float32
        np.testing.assert_allclose(pushed, t, rtol=1e-6)
        z = x + 1j * r(3, 3)
        pushed = forward_rule(np.astype).pushforward((z, np.float64), {}, {"x": t + 1j * t}, np.real(z))
        assert pushed.dtype == np.float64          # a real output keeps the real part
        np.testing.assert_array_equal(pushed, t)


def test_full_like_float32_fill():
    x = np.zeros((2, 3), np.float32)
    pushed = forward_rule(np.full_like).pushforward((x, 1.5), {}, {"fill_value": 2.0}, np.full_like(x, 1.5))
    assert pushed.dtype == np.float32
    np.testing.assert_array_equal(pushed, np.full((2, 3), 2.0))


# ------------------------------------------------------------------ every differentiable rule has a forward rule
def _functions_registered_by(path):
    """The functions a rules module registers: read from its defvjp/defrrule lines."""
    import ast
    import importlib

    module = importlib.import_module(path)
    tree = ast.parse(open(module.__file__).read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("defvjp", "defvjp_all", "defrrule",
                                                                               "defderivative") and node.args:
            names.add(ast.unparse(node.args[0]))
    return names


def test_every_differentiable_rule_has_a_forward_rule():
    names = _functions_registered_by("s2sad.rules.numpy_shapes")
    assert len(names) >= 50
    functions = {id(eval(name, {"np": np})) for name in names}
    rules = [rule for rule in all_rules() if id(rule.function) in functions and not rule.nondifferentiable]
    assert len(rules) >= len(functions) - 1          # np.permute_dims may be np.transpose itself
    missing = [rule.name for rule in rules if forward_rule(rule.function) is None]
    assert not missing, f"no forward rule for {missing}"


@pytest.mark.parametrize("args, kwargs", [((r(3, 4), np.array([0, 2, 2, -1])), {"axis": 1}),
                                          ((r(3, 4), np.array([[0, 1], [2, 2]])), {"axis": 0}),
                                          ((r(3, 4), np.array([11, 0, 0, 5])), {}),
                                          ((r(3, 4), np.array([5, -7, 3])), {"axis": 1, "mode": "wrap"}),
                                          ((r(3, 4) + 1j * r(3, 4), np.array([1, 1])), {"axis": 0})], ids=str)
def test_take(args, kwargs):
    check_frule(np.take, *args, **kwargs)
    check_frule(None, *args, method="take", **kwargs)
