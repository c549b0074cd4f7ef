"""Rules of rules/numpy_shapes.py: every case checked by finite differences, in float64 and float32."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.runtime.tangents import NO_TANGENT, ZERO, Tangent
from s2sad.testing import check_rrule, numerical_gradient

rng = np.random.default_rng(3)


def r(*shape):
    return rng.standard_normal(shape)


def cotangents(f, *args, g, **kwargs):
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(g)[1:]


# (function, positional args, keyword args)
CASES = [
    (np.reshape,     (r(2, 3), (3, 2)), {}),
    (np.reshape,     (r(2, 3), -1), {"order": "F"}),
    (np.ravel,       (r(2, 3, 2),), {}),
    (np.ravel,       (r(2, 3),), {"order": "F"}),
    (np.transpose,   (r(2, 3, 4),), {}),
    (np.transpose,   (r(2, 3, 4), (1, 2, 0)), {}),
    (np.transpose,   (r(2, 3, 4), (-1, 0, 1)), {}),
    (np.swapaxes,    (r(2, 3, 4), 0, 2), {}),
    (np.moveaxis,    (r(2, 3, 4), 0, -1), {}),
    (np.moveaxis,    (r(2, 3, 4), (0, 1), (2, 0)), {}),
    (np.squeeze,     (r(1, 3, 1),), {}),
    (np.squeeze,     (r(1, 3, 1), 2), {}),
    (np.expand_dims, (r(2, 3), 1), {}),
    (np.expand_dims, (r(2, 3), (0, -1)), {}),
    (np.atleast_1d,  (r(),), {}),
    (np.atleast_2d,  (r(3),), {}),
    (np.atleast_3d,  (r(2, 3),), {}),
    (np.flip,        (r(2, 3),), {}),
    (np.flip,        (r(2, 3), 1), {}),
    (np.fliplr,      (r(2, 3),), {}),
    (np.flipud,      (r(2, 3),), {}),
    (np.roll,        (r(5), 2), {}),
    (np.roll,        (r(3, 4), (1, -1), (0, 1)), {}),
    (np.roll,        (r(3, 4), 1), {}),
    (np.rot90,       (r(2, 3),), {}),
    (np.rot90,       (r(2, 3, 4), 3, (1, 2)), {}),
    (np.copy,        (r(2, 3),), {}),
    (np.asarray,     (r(2, 3),), {}),
    (np.array,       (r(2, 3),), {}),
    (np.array,       ([1.5, r(), 2.5],), {}),
    (np.array,       ([[1.5, 2.5], (r(), 0.5)],), {}),
    (np.broadcast_to, (r(3), (2, 3)), {}),
    (np.broadcast_to, (r(2, 1), (4, 2, 3)), {}),
    (np.concatenate, ([r(2, 3), r(1, 3)],), {}),
    (np.concatenate, ((r(2, 3), r(2, 1)), 1), {}),
    (np.concatenate, ([r(2, 3), r(4)],), {"axis": None}),
    (np.stack,       ([r(2, 3), r(2, 3)],), {}),
    (np.stack,       ((r(2, 3), r(2, 3), r(2, 3)), -1), {}),
    (np.vstack,      ([r(3), r(2, 3)],), {}),
    (np.hstack,      ([r(3), r(2)],), {}),
    (np.hstack,      ((r(2, 3), r(2, 1)),), {}),
    (np.tile,        (r(2, 3), 2), {}),
    (np.tile,        (r(2, 3), (2, 1, 3)), {}),
    (np.tile,        (r(2, 3, 2), (2, 1)), {}),
    (np.repeat,      (r(2, 3), 2), {}),
    (np.repeat,      (r(2, 3), 3, 1), {}),
    (np.repeat,      (r(2, 3), [1, 0, 2], 1), {}),
    (np.diag,        (r(3),), {}),
    (np.diag,        (r(3), -1), {}),
    (np.diag,        (r(3, 4),), {}),
    (np.diag,        (r(3, 4), 2), {}),
    (np.diag,        (r(4, 3), -1), {}),
    (np.diagonal,    (r(3, 4),), {}),
    (np.diagonal,    (r(3, 4), 1), {}),
    (np.diagonal,    (r(2, 3, 4), -1, 2, 1), {}),
    (np.trace,       (r(3, 4),), {}),
    (np.trace,       (r(3, 4), 1), {}),
    (np.trace,       (r(2, 3, 4), 0, 0, 2), {}),
    (np.triu,        (r(3, 4),), {}),
    (np.triu,        (r(2, 3, 3), 1), {}),
    (np.tril,        (r(3, 4), -1), {}),
    (np.sort,        (r(5),), {}),
    (np.sort,        (r(3, 4), 0), {}),
    (np.sort,        (r(3, 4), None), {}),
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
    (np.linspace,    (r(), r(), 5), {}),
    (np.linspace,    (r(2), r(2), 4), {"endpoint": False}),
    (np.full,        ((2, 3), r()), {}),
    (np.full_like,   (r(2, 3), 1.5), {}),
]
if hasattr(np, "permute_dims"):
    CASES += [(np.permute_dims, (r(2, 3, 4), (2, 0, 1)), {}), (np.astype, (r(2, 3), np.float64), {})]


def increasing(n):
    """Distinct, unevenly spaced coordinates."""
    return np.cumsum(rng.uniform(0.2, 1.0, n))


def positive(*shape):
    return rng.uniform(0.2, 1.5, shape)


CASES += [
    # more axes and offsets for rules that select or move
    (np.flip,        (r(2, 3, 4), (0, 2)), {}),
    (np.flip,        (r(2, 3, 4), -1), {}),
    (np.diagonal,    (r(3, 3), -2), {}),
    (np.diagonal,    (r(2, 3, 4), 2, 0, 2), {}),
    (np.diagonal,    (r(4, 2, 3), 0, -1, 0), {}),
    (np.trace,       (r(4, 3), -2), {}),
    (np.trace,       (r(2, 3, 4), 1, 1, 2), {}),
    (np.triu,        (r(4),), {}),              # a 1-D m is broadcast to a square first
    (np.triu,        (r(3, 4), -1), {}),
    (np.tril,        (r(2, 3, 4), 2), {}),
    (np.tril,        (r(3), 1), {}),
    (np.sort,        (r(3, 4, 5), 1), {}),
    (np.sort,        (r(3, 4, 5), 0), {}),
    # kron: ndims equal, different, 0-d, a Python float
    (np.kron,        (r(2, 3), r(4, 2)), {}),
    (np.kron,        (r(3), r(2, 2)), {}),
    (np.kron,        (r(2, 1, 2), r(3)), {}),
    (np.kron,        (r(), r(3)), {}),
    (np.kron,        (1.5, r(2)), {}),
    (np.kron,        (r(2, 2), -0.5), {}),
    # rollaxis: NumPy's reading of start, negative axes
    (np.rollaxis,    (r(2, 3, 4), 2), {}),
    (np.rollaxis,    (r(2, 3, 4), 0, 3), {}),
    (np.rollaxis,    (r(2, 3, 4), -1, -2), {}),
    (np.rollaxis,    (r(2, 3, 4), 1, 1), {}),
    (np.rollaxis,    (r(2, 3, 4, 5), 1, 4), {}),
    # partition: kth an int or a sequence, any axis, flattened
    (np.partition,   (r(7), 3), {}),
    (np.partition,   (r(7), -1), {}),
    (np.partition,   (r(4, 6), [1, 3], 0), {}),
    (np.partition,   (r(3, 5, 4), (0, 3), 1), {}),
    (np.partition,   (r(4, 6), 2, None), {}),
    # take_along_axis: repeated indices, broadcasting indices, axis None
    (np.take_along_axis, (r(3, 4), np.array([[0, 0, 3], [1, 1, 1], [2, 0, 1]]), 1), {}),
    (np.take_along_axis, (r(3, 4), np.array([[0, 2, 1, 0, 0]]).T, 0), {}),
    (np.take_along_axis, (r(3, 4), np.array([[1], [0], [-1]]), -1), {}),
    (np.take_along_axis, (r(3, 4), np.array([11, 0, 0, 5]), None), {}),
    (np.take_along_axis, (r(2, 3, 4), np.argsort(r(2, 3, 4), axis=1), 1), {}),
    # splits: sections as an int or as indices, every axis, empty pieces
    (np.split,       (r(6, 2), 3), {}),
    (np.split,       (r(6, 2), [1, 4]), {}),
    (np.split,       (r(2, 6), [2, 2, 7], 1), {}),
    (np.split,       (r(2, 3, 4), 2, -1), {}),
    (np.array_split, (r(7, 3), 3), {}),
    (np.array_split, (r(2, 3), 5, 1), {}),
    (np.array_split, (r(8), [3]), {}),
    (np.hsplit,      (r(3, 4), 2), {}),
    (np.hsplit,      (r(6), [2, 5]), {}),
    (np.vsplit,      (r(4, 3), [1]), {}),
    (np.dsplit,      (r(2, 2, 6), 3), {}),
    # np.gradient: spacing none, one scalar, per axis, coordinates; axis; both edge orders
    (np.gradient,    (r(6),), {}),
    (np.gradient,    (r(2),), {}),
    (np.gradient,    (r(3),), {"edge_order": 2}),
    (np.gradient,    (r(6), 0.5), {}),
    (np.gradient,    (r(6), r() + 2.0), {"edge_order": 2}),
    (np.gradient,    (r(6), increasing(6)), {}),
    (np.gradient,    (r(6), increasing(6)), {"edge_order": 2}),
    (np.gradient,    (r(5, 6),), {}),
    (np.gradient,    (r(5, 6), 0.3), {"edge_order": 2}),
    (np.gradient,    (r(5, 6), 0.3, increasing(6)), {"edge_order": 2}),
    (np.gradient,    (r(5, 6), increasing(6)), {"axis": 1}),
    (np.gradient,    (r(4, 3, 5), 2.0, increasing(4)), {"axis": (-1, 0)}),
    (np.gradient,    (r(6), np.linspace(0.0, 1.0, 6)), {}),   # evenly spaced coordinates
    # cumprod: axes, flattened, zeros, a Python float and a 0-d array
    (np.cumprod,     (r(5),), {}),
    (np.cumprod,     (r(3, 4), 1), {}),
    (np.cumprod,     (r(3, 4), -2), {}),
    (np.cumprod,     (r(2, 3, 2),), {}),
    (np.cumprod,     (np.array([1.5, 0.0, 2.0, 0.0, 3.0]),), {}),
    (np.cumprod,     (np.array([[2.0, 0.0, 3.0], [0.0, 1.5, -2.0], [1.0, 2.0, 0.0]]), 1), {}),
    (np.cumprod,     (1.5,), {}),
    (np.cumprod,     (r(),), {}),
    # average: no weights, weights like a, 1-D weights along an axis, weights along a tuple of axes
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
]

IDS = [f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(CASES)]


@pytest.mark.parametrize("f, args, kwargs", CASES, ids=IDS)
def test_finite_differences(f, args, kwargs):
    check_rrule(f, *args, **kwargs)


def _float32(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_float32(item) for item in x)
    return x.astype(np.float32) if isinstance(x, np.ndarray) and x.dtype == np.float64 else x


# linspace, full, array and asarray build float64 from Python numbers, so they are left out here.
FLOAT32_KEPT = [i for i, case in enumerate(CASES) if case[0] not in (np.linspace, np.full, np.array, np.asarray)]


@pytest.mark.parametrize("f, args, kwargs", [CASES[i] for i in FLOAT32_KEPT], ids=[IDS[i] for i in FLOAT32_KEPT])
def test_float32_stays_float32(f, args, kwargs):
    check_rrule(f, *[_float32(a) for a in args], **kwargs)  # checks cotangent dtypes too


# ------------------------------------------------------------------ formulas
def test_reshape_and_transpose_undo_the_move():
    g = np.arange(6.0).reshape(3, 2)
    (dx, _) = cotangents(np.reshape, np.zeros((2, 3)), (3, 2), g=g)
    np.testing.assert_array_equal(dx, np.arange(6.0).reshape(2, 3))
    (dx, _) = cotangents(np.transpose, np.zeros((2, 3, 4)), (1, 2, 0), g=np.zeros((3, 4, 2)))
    assert dx.shape == (2, 3, 4)


def test_replications_sum():
    (dx, _, _) = cotangents(np.repeat, np.zeros(2), [2, 3], 0, g=np.array([1.0, 2, 3, 4, 5]))
    np.testing.assert_array_equal(dx, [3.0, 12.0])
    (dx, _) = cotangents(np.tile, np.zeros(2), 3, g=np.arange(6.0))
    np.testing.assert_array_equal(dx, [0 + 2 + 4, 1 + 3 + 5])
    (dx, _) = cotangents(np.broadcast_to, np.zeros((2, 1)), (3, 2, 4), g=np.ones((3, 2, 4)))
    np.testing.assert_array_equal(dx, np.full((2, 1), 12.0))


def test_joins_split_into_a_sequence_of_the_same_kind():
    (pieces, _) = cotangents(np.concatenate, [np.zeros(2), np.zeros(3)], 0, g=np.arange(5.0))
    assert type(pieces) is list
    np.testing.assert_array_equal(pieces[1], [2.0, 3.0, 4.0])
    (pieces, _) = cotangents(np.stack, (np.zeros(2), np.zeros(2)), 0, g=np.arange(4.0).reshape(2, 2))
    assert type(pieces) is tuple
    np.testing.assert_array_equal(pieces[0], [0.0, 1.0])
    (pieces,) = cotangents(np.hstack, [1.5, np.zeros(2)], g=np.arange(3.0))
    assert pieces[0] == 0.0 and type(pieces[0]) is float


def test_selections_scatter_into_zeros():
    (dx, _) = cotangents(np.diag, np.zeros((2, 3)), 1, g=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dx, [[0, 1, 0], [0, 0, 2]])
    (dx, _, _, _, _, _) = cotangents(np.trace, np.zeros((2, 2)), 0, 0, 1, None, None, g=3.0)
    np.testing.assert_array_equal(dx, 3 * np.eye(2))
    (dx, _) = cotangents(np.sort, np.array([3.0, 1.0, 2.0]), -1, g=np.array([10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(dx, [30.0, 10.0, 20.0])


def test_shape_arguments_have_no_tangent():
    (_, dshape) = cotangents(np.reshape, np.zeros((2, 3)), (3, 2), g=np.zeros((3, 2)))
    assert dshape is NO_TANGENT
    (_, dfill) = cotangents(np.full, (2, 3), 1.5, g=np.ones((2, 3)))
    assert dfill == 6.0


# ------------------------------------------------------------------ np.pad: every differentiable mode, every pad_width form
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
    check_rrule(np.pad, x, width, mode, **options)
    (dx, *_) = check_rrule(np.pad, x.astype(np.float32), width, mode, **options)
    assert dx.dtype == np.float32


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap", "linear_ramp", "maximum",
                                  "mean", "median"])
def test_pad_shapes(mode):
    check_rrule(np.pad, r(40), (3, 5), mode)            # a long axis: only elements near the ends are padded with
    check_rrule(np.pad, r(2, 3, 4), ((1, 0), (0, 2), (2, 1)), mode)
    check_rrule(np.pad, r(1, 3), 2, mode)               # a length-1 axis (reflect pads it like edge)
    (dx, *_) = check_rrule(np.pad, 1.5, 2, mode)        # a 0-d input has nothing to pad
    assert type(dx) is float


def test_pad_formulas():
    g = np.arange(1.0, 7.0)
    (dx, *_) = cotangents(np.pad, np.zeros(3), (2, 1), "reflect", g=g)      # [x2 x1 | x0 x1 x2 | x1]
    np.testing.assert_array_equal(dx, [3.0, 2.0 + 4.0 + 6.0, 1.0 + 5.0])
    (dx, *_) = cotangents(np.pad, np.zeros(3), (2, 1), "wrap", g=g)         # [x1 x2 | x0 x1 x2 | x0]
    np.testing.assert_array_equal(dx, [3.0 + 6.0, 1.0 + 4.0, 2.0 + 5.0])
    (dx, *_) = cotangents(np.pad, np.zeros(3), (2, 1), "edge", g=g)
    np.testing.assert_array_equal(dx, [1.0 + 2.0 + 3.0, 4.0, 5.0 + 6.0])
    (dx, *_) = cotangents(np.pad, np.zeros(3), (2, 1), "mean", g=g)
    np.testing.assert_allclose(dx, np.array([3.0, 4.0, 5.0]) + (1.0 + 2.0 + 6.0) / 3)
    (dx, *_) = cotangents(np.pad, np.zeros((2, 2)), 1, "constant", g=np.arange(16.0).reshape(4, 4))
    np.testing.assert_array_equal(dx, [[5.0, 6.0], [9.0, 10.0]])


def test_pad_statistics_at_ties_and_medians():
    # maximum: the two tied maxima share the padded value's cotangent
    (dx, *_) = cotangents(np.pad, np.array([3.0, 3.0, 1.0]), (1, 0), "maximum", g=np.array([1.0, 0, 0, 0]))
    np.testing.assert_array_equal(dx, [0.5, 0.5, 0.0])
    # median of an even window: half to each middle element
    (dx, *_) = cotangents(np.pad, np.array([4.0, 1.0, 3.0, 2.0]), (1, 0), "median", g=np.array([1.0, 0, 0, 0, 0]))
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.5, 0.5])
    (dx, *_) = cotangents(np.pad, np.array([4.0, 1.0, 3.0]), (0, 2), "median", g=np.array([0.0, 0, 0, 1, 1]))
    np.testing.assert_array_equal(dx, [0.0, 0.0, 2.0])


def _pad_values_check(mode, keyword, values, x, width):
    """The cotangent of constant_values / end_values (keyword arguments: not probed by check_rrule)."""
    rule = rule_for(np.pad)
    y = np.pad(x, width, mode, **{keyword: values})
    g = r(*y.shape)
    bound = rule.bind((x, width, mode), {keyword: values})
    dv = rule.vjp_function(keyword)(g, y, *bound)
    assert type(dv) is type(values) and np.shape(dv) == np.shape(values)
    direction = r(*np.shape(values))
    step = 1e-6

    def at(t):
        moved = np.asarray(values) + t * direction
        return np.sum(g * np.pad(x, width, mode, **{keyword: moved}))

    numeric = (at(step) - at(-step)) / (2 * step)
    assert np.sum(np.asarray(dv) * direction) == pytest.approx(numeric, rel=1e-6)


@pytest.mark.parametrize("values", [0.5, np.array(0.5), (0.5, -1.0), ((0.5, -1.0),), ((1.0, 2.0), (3.0, 4.0)),
                                    np.array([[1.0], [2.0]]), [[1.0, 2.0], [3.0, 4.0]]], ids=str)
def test_pad_constant_and_end_values(values):
    x, width = r(3, 4), ((1, 2), (2, 1))
    _pad_values_check("constant", "constant_values", values, x, width)
    _pad_values_check("linear_ramp", "end_values", values, x, width)


def test_pad_values_of_each_kind():
    rule = rule_for(np.pad)
    y = np.pad(np.zeros(2), 1, constant_values=0.5)
    (dv,) = [rule.vjp_function("constant_values")(np.ones(4), y, *rule.bind((np.zeros(2), 1), {"constant_values": 0.5}))]
    assert type(dv) is float and dv == 2.0
    dv = rule.vjp_function("constant_values")(np.ones(4), y, *rule.bind((np.zeros(2), 1), {"constant_values": (1, 2.5)}))
    assert dv == (NO_TANGENT, 1.0)
    with pytest.raises(NotImplementedError, match="empty"):
        rule.vjp_function("array")(np.ones(4), y, *rule.bind((np.zeros(2), 1, "empty"), {}))


# ------------------------------------------------------------------ selections: sort, partition, take_along_axis
def _is_permutation_into_slots(dx, x, ans, g):
    """Each slot's cotangent went to exactly one element holding that slot's value."""
    assert sorted(dx.tolist()) == sorted(g.tolist())
    for value in np.unique(x):
        assert sorted(dx[x == value].tolist()) == sorted(g[ans == value].tolist())


def test_sort_and_partition_send_each_slot_to_its_element():
    x = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
    g = np.array([10.0, 20.0, 30.0, 40.0, 50.0])
    ans = np.partition(x, 2)
    (dx, *_) = cotangents(np.partition, x, 2, g=g)
    np.testing.assert_array_equal(dx, [g[list(ans).index(v)] for v in x])
    ties = np.array([1.0, 3.0, 1.0, 3.0, 2.0, 1.0])
    g = np.arange(1.0, 7.0)
    for f, args in ((np.sort, ()), (np.partition, (2,)), (np.partition, ([0, 4],))):
        (dx, *_) = cotangents(f, ties, *args, g=g)
        _is_permutation_into_slots(dx, ties, f(ties, *args), g)


def test_take_along_axis_accumulates_repeated_indices():
    (dx, *_) = cotangents(np.take_along_axis, np.zeros((2, 3)), np.array([[0, 0, 2], [1, 1, 1]]), 1,
                          g=np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(dx, [[3.0, 0.0, 3.0], [0.0, 15.0, 0.0]])


def test_rollaxis_and_kron_formulas():
    (dx, *_) = cotangents(np.rollaxis, np.zeros((2, 3, 4)), 2, 1, g=np.zeros((2, 4, 3)))
    assert dx.shape == (2, 3, 4)
    a, b, g = r(3), r(4), r(12)
    da, db = cotangents(np.kron, a, b, g=g)
    np.testing.assert_allclose(da, g.reshape(3, 4) @ b)
    np.testing.assert_allclose(db, a @ g.reshape(3, 4))


# ------------------------------------------------------------------ splits: a list out, ZERO for unused pieces
def test_split_cotangent_with_unused_pieces():
    x = np.zeros(6)
    (dx, _, _) = cotangents(np.split, x, 3, 0, g=(ZERO, np.ones(2), ZERO))
    np.testing.assert_array_equal(dx, [0, 0, 1, 1, 0, 0])
    (dx, _, _) = cotangents(np.array_split, x, [1, 4], 0, g=[np.ones(1), ZERO, 2 * np.ones(2)])
    np.testing.assert_array_equal(dx, [1, 0, 0, 0, 2, 2])
    (dx, _, _) = cotangents(np.split, x, 2, 0, g=Tangent(list, {1: np.ones(3)}))
    np.testing.assert_array_equal(dx, [0, 0, 0, 1, 1, 1])
    (dx, _, _) = cotangents(np.split, x, 2, 0, g=ZERO)
    assert dx is ZERO
    (dx, _) = cotangents(np.hsplit, np.zeros((2, 4), np.float32), 2, g=[np.ones((2, 2), np.float32), ZERO])
    assert dx.dtype == np.float32
    np.testing.assert_array_equal(dx, [[1, 1, 0, 0], [1, 1, 0, 0]])


# ------------------------------------------------------------------ np.gradient against its own Jacobian
def _jacobian_transpose_product(f_shape, g_parts, *varargs, **kwargs):
    """J^T g for the linear map f -> np.gradient(f, ...), J built column by column from unit vectors."""
    total = np.zeros(int(np.prod(f_shape)))
    for i in range(total.size):
        unit = np.zeros(total.size)
        unit[i] = 1.0
        outputs = np.gradient(unit.reshape(f_shape), *varargs, **kwargs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        total[i] = sum(np.sum(out * part) for out, part in zip(outputs, g_parts))
    return total.reshape(f_shape)


@pytest.mark.parametrize("varargs, kwargs", [((), {}), ((0.5,), {"edge_order": 2}), ((0.3, increasing(5)), {}),
                                             ((increasing(4), increasing(5)), {"edge_order": 2}),
                                             ((increasing(5),), {"axis": -1})], ids=str)
def test_gradient_is_the_transpose_of_its_linear_map(varargs, kwargs):
    f = r(4, 5)
    ans = np.gradient(f, *varargs, **kwargs)
    parts = tuple(r(*f.shape) for _ in (ans if isinstance(ans, tuple) else (ans,)))
    g = parts if isinstance(ans, tuple) else parts[0]
    (df, *_) = cotangents(np.gradient, f, *varargs, g=g, **kwargs)
    np.testing.assert_allclose(df, _jacobian_transpose_product(f.shape, parts, *varargs, **kwargs), atol=1e-12)


def test_gradient_with_unused_outputs_and_shared_spacing():
    f = r(4, 5)
    df, dh = cotangents(np.gradient, f, 0.5, g=(ZERO, np.ones((4, 5))))
    np.testing.assert_allclose(df, _jacobian_transpose_product(f.shape, (np.zeros((4, 5)), np.ones((4, 5))), 0.5))
    # out = D f / h for each axis, so d/dh of <g, out> is -<g, out> / h
    gx, gy = r(4, 5), r(4, 5)
    outx, outy = np.gradient(f, 0.5)
    _, dh = cotangents(np.gradient, f, 0.5, g=(gx, gy))
    assert type(dh) is float and dh == pytest.approx(-(np.sum(gx * outx) + np.sum(gy * outy)) / 0.5)


# ------------------------------------------------------------------ cumprod exact at zeros, average formulas
def _cumprod_vjp_by_brute_force(x, g):
    """d/dx_j of sum_i g_i prod_{k<=i} x_k, each term a product of the other factors
    (conjugated for complex x: the convention of a * b)."""
    out = np.zeros_like(x)
    for j in range(len(x)):
        for i in range(j, len(x)):
            out[j] += g[i] * np.conj(np.prod(np.delete(x[: i + 1], j)))
    return out


@pytest.mark.parametrize("x", [[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 2.0, 3.0], [2.0, 3.0, 0.0], [0.0, 0.0, 1.0],
                               [1.5, -2.0, 0.5, 3.0]], ids=str)
def test_cumprod_exact_at_zeros(x):
    x, g = np.array(x), r(len(x))
    with np.errstate(all="raise"):
        (dx, *_) = cotangents(np.cumprod, x, g=g)
    np.testing.assert_allclose(dx, _cumprod_vjp_by_brute_force(x, g), rtol=1e-12)


@pytest.mark.parametrize("x", [[2.0 + 1.0j, 0.0, 3.0 - 2.0j, 0.0, 5.0j], [0.5 - 1.0j, 2.0 + 0.5j, -1.5j]], ids=str)
def test_cumprod_of_complex_values_takes_conjugate_slopes(x):
    x, g = np.array(x), r(len(x)) + 1j * r(len(x))
    (dx, *_) = cotangents(np.cumprod, x, g=g)
    np.testing.assert_allclose(dx, _cumprod_vjp_by_brute_force(x, g), rtol=1e-12)


def test_average_formulas():
    a, w, g = r(3, 4), positive(4), r(3)
    da, _, dw = cotangents(np.average, a, 1, w, g=g)
    np.testing.assert_allclose(da, np.outer(g, w) / w.sum())
    avg = np.average(a, 1, w)
    np.testing.assert_allclose(dw, g @ (a - avg[:, None]) / w.sum())
    # the returned sum of weights passes its cotangent to every weight
    _, _, dw, _ = cotangents(np.average, a, 1, w, True, g=(ZERO, np.ones(3)))
    np.testing.assert_allclose(dw, np.full(4, 3.0))
    (da, *_) = cotangents(np.average, a, None, None, True, g=(2.0, 1.0))
    np.testing.assert_allclose(da, np.full((3, 4), 2.0 / 12))
    _, _, dw = cotangents(np.average, a[0], 0, [1.0, 2.0, 3.0, 4.0], g=1.0)
    assert type(dw) is list and len(dw) == 4


# ---------------------------------------------------------------- append, column_stack, row_stack, select
def test_append_column_stack_row_stack_and_select_both_ways():
    import warnings

    from s2sad.forward_check import check_frule

    warnings.simplefilter("ignore", DeprecationWarning)  # np.row_stack is deprecated, not gone
    g = np.random.default_rng(9)
    a, b = g.standard_normal((2, 3)), g.standard_normal((2, 3))
    for axis in (None, 0, 1):
        check_rrule(np.append, a, b, axis=axis)
        check_frule(np.append, a, b, axis=axis)
    columns = [g.standard_normal(3), g.standard_normal((3, 2))]
    check_rrule(np.column_stack, columns)
    check_frule(np.column_stack, columns)
    rows = [g.standard_normal(3), g.standard_normal((2, 3))]
    check_rrule(np.row_stack, rows)
    check_frule(np.row_stack, rows)
    x = g.standard_normal(7)
    conditions = [x < 0, x > 1]
    check_rrule(np.select, conditions, [x ** 2, np.sin(x)], 0.5 * x)
    check_frule(np.select, conditions, [x ** 2, np.sin(x)], 0.5 * x)
    _, pullback = rule_for(np.select).rrule(conditions, [x ** 2, np.sin(x)], 0.5 * x)
    _, _, (d_first, d_second), d_default = pullback(np.ones(7))
    np.testing.assert_array_equal(d_first + d_second + d_default, np.ones(7))  # each element once


# ------------------------------------------------------------------ take (and x.take)
TAKES = [
    ((r(3, 4), np.array([0, 2, 2, -1])), {"axis": 1}),          # a repeated index gets both cotangents
    ((r(3, 4), np.array([[0, 1], [2, 2]])), {"axis": 0}),       # an index array of two dimensions
    ((r(2, 3, 4), np.array([1, 1, 3])), {"axis": -1}),
    ((r(2, 3, 4), 2), {"axis": 1}),                              # a scalar index removes the axis
    ((r(3, 4), np.array([11, 0, 0, 5])), {}),                    # axis None: the flattened array
    ((r(3, 4), np.array([5, -7, 3])), {"axis": 1, "mode": "wrap"}),
    ((r(3, 4), np.array([5, -7, 3])), {"axis": 1, "mode": "clip"}),
]


@pytest.mark.parametrize("args, kwargs", TAKES, ids=[str(i) for i in range(len(TAKES))])
def test_take_finite_differences(args, kwargs):
    check_rrule(np.take, *args, **kwargs)
    (da, _) = check_rrule(np.take, args[0].astype(np.float32), *args[1:], **kwargs)
    assert da.dtype == np.float32
    check_rrule(np.take, args[0] + 1j * r(*args[0].shape), *args[1:], **kwargs)
    check_rrule("take", *args, **kwargs)  # the method x.take(...)


def test_take_formula_with_repeated_indices():
    a = r(2, 3)
    (da, _) = cotangents(np.take, a, np.array([2, 0, 2, 2]), axis=1, g=np.array([[1.0, 2.0, 3.0, 4.0],
                                                                                   [5.0, 6.0, 7.0, 8.0]]))
    np.testing.assert_array_equal(da, [[2, 0, 8], [6, 0, 20]])
    (da, _) = cotangents(np.take, a, np.array([7, -1]), axis=1, mode="clip", g=np.ones((2, 2)))
    np.testing.assert_array_equal(da, [[1, 0, 1], [1, 0, 1]])  # clip: both read the last column, -1 the first


def test_select_tangent_of_a_python_float_default_takes_the_float32_output_dtype():
    """np.select of float32 choices and a default of 0.5 is float32; the default's tangent was
    float64. By hand: 1 where no condition holds, 0 elsewhere."""
    from s2sad.forward_check import check_frule
    from s2sad.registry.forward import forward_rule

    x = np.linspace(-1.0, 2.0, 7).astype(np.float32)
    conditions, choices = [x < 0, x > 1], [x ** 2, np.sin(x)]
    _, _, d_default = check_frule(np.select, conditions, choices, 0.5)
    assert d_default.dtype == np.float32
    pushed = forward_rule(np.select).pushforward((conditions, choices, 0.5), {}, {"default": 1.0},
                                                 np.select(conditions, choices, 0.5))
    assert pushed.dtype == np.float32
    np.testing.assert_array_equal(pushed, (0 <= x) & (x <= 1))


def test_select_tangent_of_the_default_where_the_output_is_infinite():
    """The default's tangent where it is inf (a chosen inf stays inf as it moves): by hand, the tangent
    given where no condition holds, 0 elsewhere; it was NaN there (``0 * ans`` of an inf)."""
    from s2sad.registry.forward import forward_rule

    x, default = np.array([0.5, 2.0, 0.3]), np.array([np.inf, -np.inf, 2.0])
    conditions, choices = [x > 1.0], [x ** 2]
    pushed = forward_rule(np.select).pushforward((conditions, choices, default), {}, {"default": np.ones(3)},
                                                 np.select(conditions, choices, default))
    np.testing.assert_array_equal(pushed, [1.0, 0.0, 1.0])


# ------------------------------------------------------------------ dstack, compress, choose, bincount's weights
def test_bincount_gives_each_weight_its_bins_cotangent():
    """bincount(x, weights=w)[b] sums the w[i] with x[i] == b: w[i]'s cotangent is g[x[i]] (hand-derived),
    in w's dtype; it was refused."""
    x = np.array([0, 2, 2, 4])
    bin_weights = np.arange(7.0) ** 2

    def loss(w):
        return np.sum(np.bincount(x, weights=w, minlength=7) * bin_weights)

    for w in (np.array([0.5, -1.0, 2.0, 0.25]), np.array([0.5, -1.0, 2.0, 0.25], dtype=np.float32)):
        gradient = s2sad.grad(loss)(w)
        np.testing.assert_array_equal(gradient, bin_weights[x])
        assert gradient.dtype == w.dtype
    np.testing.assert_allclose(s2sad.jvp(loss, (np.ones(4),), (np.ones(4),))[1], np.sum(bin_weights[x]))


def picked(x, y):
    """dstack, compress, choose (each mode) and extract as a user mixes them; they were refused (no rule;
    extract's source was differentiated in reverse mode, but forward mode has no rule to go by)."""
    stacked = np.dstack([x, y, 2.0 * x[:, :, None]])
    kept = np.compress([True, False, True], x, axis=1)
    chosen = np.choose(np.array([[0, 1, 2], [2, 0, 1]]), [x, y, 2.0 * x])
    wrapped = np.choose(np.array([3, -1, 0]), [x[0], y[1]], mode="wrap")
    return (np.sum(stacked * np.arange(18.0).reshape(2, 3, 3)) + np.sum(kept ** 2) + np.sum(chosen ** 2)
            + np.sum(wrapped * 1.5) + np.sum(np.compress([False, True], x) * 3.0) + np.sum(np.extract(y > 0, x) ** 2))


def test_dstack_compress_and_choose_against_central_differences():
    rng = np.random.default_rng(21)
    x, y = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    dx, dy = s2sad.grad(picked, argnums=(0, 1))(x, y)
    reference = numerical_gradient(picked, x, y, argnums=(0, 1))
    np.testing.assert_allclose(dx, reference[0], rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(dy, reference[1], rtol=1e-7, atol=1e-8)
    tx, ty = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    np.testing.assert_allclose(s2sad.jvp(picked, (x, y), (tx, ty))[1], np.sum(dx * tx) + np.sum(dy * ty), rtol=1e-12)


def cast_to_an_index(W):
    return np.sum(W[np.int64(W[0, 0] > 0)] ** 2) + np.float64(np.int32(2.7)) * W[0, 1]


def test_integer_casts_are_steps():
    """np.int64(...) of a float: an integer, no derivative (as int(...)); it was refused (no rule)."""
    W = np.array([[0.5, -1.0], [2.0, 0.25]])
    expected = np.zeros_like(W)
    expected[1] = 2 * W[1]
    expected[0, 1] += 2.0
    np.testing.assert_array_equal(s2sad.grad(cast_to_an_index)(W), expected)
