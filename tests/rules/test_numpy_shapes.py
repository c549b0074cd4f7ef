"""Rules of rules/numpy_shapes.py: every case checked by finite differences, in float64 and float32."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.tangents import NO_TANGENT
from s2sad.testing import check_rrule

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
    (np.diff,        (r(5),), {}),
    (np.diff,        (r(3, 5), 2), {}),
    (np.diff,        (r(4, 3), 1, 0), {}),
    (np.linspace,    (r(), r(), 5), {}),
    (np.linspace,    (r(2), r(2), 4), {"endpoint": False}),
    (np.full,        ((2, 3), r()), {}),
    (np.full_like,   (r(2, 3), 1.5), {}),
]
if hasattr(np, "permute_dims"):
    CASES += [(np.permute_dims, (r(2, 3, 4), (2, 0, 1)), {}), (np.astype, (r(2, 3), np.float64), {})]

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
