"""Rules of rules/numpy_linalg.py: products in every shape combination, and numpy.linalg."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.testing import check_rrule

rng = np.random.default_rng(4)


def r(*shape):
    return rng.standard_normal(shape)


def well_conditioned(*shape):
    n = shape[-1]
    return r(*shape) + 3 * np.eye(n)


def spd(*shape):
    a = r(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def symmetric(*shape):
    a = r(*shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def cotangents(f, *args, g, **kwargs):
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(g)[1:]


# ------------------------------------------------------------------ products
DOT_SHAPES = [((), ()), ((), (3,)), ((2, 3), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)),
              ((2, 3), (3, 4)), ((2, 5, 3), (3, 4)), ((2, 3), (4, 3, 5)), ((2, 2, 3), (4, 3, 5))]


@pytest.mark.parametrize("shapes", DOT_SHAPES, ids=str)
def test_dot(shapes):
    check_rrule(np.dot, r(*shapes[0]), r(*shapes[1]))


def test_dot_python_floats_and_float32():
    check_rrule(np.dot, 1.5, -2.0)
    da, db = check_rrule(np.dot, r(2, 3).astype(np.float32), r(3).astype(np.float32))
    assert da.dtype == db.dtype == np.float32


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((1, 2, 3), (5, 3, 4)), ((4, 1, 2, 3), (5, 3, 2))]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul(shapes):
    check_rrule(np.matmul, r(*shapes[0]), r(*shapes[1]))


def test_matmul_formula():
    a, b, g = r(2, 3), r(3, 4), r(2, 4)
    da, db = cotangents(np.matmul, a, b, g=g)
    np.testing.assert_allclose(da, g @ b.T)
    np.testing.assert_allclose(db, a.T @ g)


PRODUCTS = [
    (np.outer, (r(3), r(4)), {}),
    (np.outer, (r(2, 2), r(3)), {}),
    (np.inner, (r(3), r(3)), {}),
    (np.inner, (r(2, 3), r(4, 3)), {}),
    (np.inner, (r(2, 5, 3), r(3)), {}),
    (np.inner, (1.5, r(3)), {}),
    (np.tensordot, (r(2, 3, 4), r(3, 4, 5)), {}),
    (np.tensordot, (r(2, 3, 4), r(4, 2)), {"axes": 1}),
    (np.tensordot, (r(2, 3, 4), r(4, 5, 2)), {"axes": ([0, 2], [2, 0])}),
    (np.tensordot, (r(3, 4), r(5, 3)), {"axes": (0, 1)}),
    (np.tensordot, (r(2, 3), r(4)), {"axes": 0}),
    (np.cross, (r(3), r(3)), {}),
    (np.cross, (r(4, 3), r(3)), {}),
]


@pytest.mark.parametrize("f, args, kwargs", PRODUCTS, ids=[f"{p[0].__name__}-{i}" for i, p in enumerate(PRODUCTS)])
def test_products(f, args, kwargs):
    check_rrule(f, *args, **kwargs)


EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]), ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]), ("ij->ji", [(2, 3)]), ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (3, 4)]), ("...ij,...jk->...ik", [(1, 2, 3), (5, 3, 4)]),
    ("ij,kl->ijkl", [(2, 3), (4, 5)]), ("ijk,k->ij", [(2, 3, 4), (4,)]), ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("ij,j", [(2, 3), (3,)]),
]


@pytest.mark.parametrize("spec, shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum(spec, shapes):
    operands = [r(*shape) for shape in shapes]
    check_rrule(np.einsum, spec, *operands)
    cotangents32 = check_rrule(np.einsum, spec, *[x.astype(np.float32) for x in operands])
    assert all(ct.dtype == np.float32 for ct in cotangents32[1:])


def test_einsum_formula():
    a, b, g = r(2, 3), r(3, 4), r(2, 4)
    _, da, db = cotangents(np.einsum, "ij,jk->ik", a, b, g=g)
    np.testing.assert_allclose(da, g @ b.T)
    np.testing.assert_allclose(db, a.T @ g)


# ------------------------------------------------------------------ numpy.linalg
LINALG = [
    (np.linalg.inv, (well_conditioned(3, 3),)),
    (np.linalg.inv, (well_conditioned(2, 3, 3),)),
    (np.linalg.det, (well_conditioned(3, 3),)),
    (np.linalg.det, (well_conditioned(4, 2, 2),)),
    (np.linalg.slogdet, (well_conditioned(3, 3),)),
    (np.linalg.slogdet, (well_conditioned(2, 3, 3) * np.array([[[-1.0]], [[1.0]]]),)),
    (np.linalg.solve, (well_conditioned(3, 3), r(3))),
    (np.linalg.solve, (well_conditioned(3, 3), r(3, 2))),
    (np.linalg.solve, (well_conditioned(4, 3, 3), r(4, 3, 2))),
    (np.linalg.solve, (well_conditioned(4, 3, 3), r(3, 2))),
]


@pytest.mark.parametrize("f, args", LINALG, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(LINALG)])
def test_linalg(f, args):
    check_rrule(f, *args)


def test_linalg_float32():
    a = well_conditioned(3, 3).astype(np.float32)
    for f in (np.linalg.inv, np.linalg.det):
        (da,) = check_rrule(f, a)
        assert da.dtype == np.float32


def test_det_and_inv_formulas():
    a = well_conditioned(3, 3)
    (da,) = cotangents(np.linalg.det, a, g=1.0)
    np.testing.assert_allclose(da, np.linalg.det(a) * np.linalg.inv(a).T)
    (da,) = cotangents(np.linalg.slogdet, a, g=(0.0, 1.0))
    np.testing.assert_allclose(da, np.linalg.inv(a).T)
    g = r(3, 3)
    (da,) = cotangents(np.linalg.inv, a, g=g)
    ainv = np.linalg.inv(a)
    np.testing.assert_allclose(da, -ainv.T @ g @ ainv.T)


NORMS = [
    ((5,), {}), ((5,), {"ord": 1}), ((5,), {"ord": 3}), ((5,), {"ord": np.inf}), ((5,), {"ord": -np.inf}),
    ((5,), {"ord": 0.5}), ((3, 4), {}), ((3, 4), {"ord": "fro"}), ((3, 4), {"ord": "nuc"}),
    ((3, 4), {"ord": 2}), ((3, 4), {"ord": -2}), ((3, 4), {"ord": 1}), ((3, 4), {"ord": np.inf}),
    ((3, 4), {"ord": -1}), ((3, 4), {"axis": 1}), ((3, 4), {"axis": 0, "keepdims": True}),
    ((2, 3, 4), {"axis": (1, 2)}), ((2, 3, 4), {"axis": (2, 0), "ord": "nuc"}), ((2, 3, 4), {"axis": -1, "ord": 1}),
    ((2, 3, 4), {}),
]


@pytest.mark.parametrize("shape, kwargs", NORMS, ids=str)
def test_norm(shape, kwargs):
    check_rrule(np.linalg.norm, r(*shape), **kwargs)


def test_norm_of_zero_vector_has_zero_gradient():
    with np.errstate(all="raise"):
        (dx, *_) = cotangents(np.linalg.norm, np.zeros(3), g=1.0)
    np.testing.assert_array_equal(dx, np.zeros(3))
    (dx, *_) = cotangents(np.linalg.norm, np.zeros((2, 3)), None, 1, g=np.ones(2))
    np.testing.assert_array_equal(dx, np.zeros((2, 3)))


def test_norm_formula_and_ties():
    x = np.array([3.0, -4.0])
    (dx, *_) = cotangents(np.linalg.norm, x, g=2.0)
    np.testing.assert_allclose(dx, 2 * x / 5)
    (dx, _) = cotangents(np.linalg.norm, np.array([2.0, -2.0, 1.0]), np.inf, g=1.0)
    np.testing.assert_allclose(dx, [0.5, -0.5, 0.0])


# ------------------------------------------------------------------ symmetric input: symmetric directions
def test_cholesky():
    for a in (spd(3, 3), spd(2, 4, 4)):
        check_rrule(np.linalg.cholesky, a, directions=[symmetric(*a.shape)])
    a = spd(3, 3)
    check_rrule(np.linalg.cholesky, a, upper=True, directions=[symmetric(3, 3)])
    (da,) = check_rrule(np.linalg.cholesky, a.astype(np.float32), directions=[symmetric(3, 3).astype(np.float32)])
    assert da.dtype == np.float32
    (da,) = cotangents(np.linalg.cholesky, a, g=r(3, 3))
    np.testing.assert_allclose(da, da.T)


def test_eigh_eigenvalues():
    for a in (symmetric(4, 4), symmetric(3, 3, 3)):
        w = np.linalg.eigh(a).eigenvalues
        check_rrule(np.linalg.eigh, a, cotangent=(r(*w.shape), np.zeros_like(a)), directions=[symmetric(*a.shape)])


def test_eigh_eigenvectors_through_a_sign_invariant_function():
    """f(A) = sum(C * V diag(c) V^T) does not depend on the eigenvectors' signs."""
    a, c, weights = symmetric(4, 4), r(4, 4), r(4)

    def f(a):
        w, v = np.linalg.eigh(a)
        return np.sum(c * ((v * weights) @ v.T))

    (w, v), pullback = rule_for(np.linalg.eigh).rrule(a)
    g_v = (c + c.T) @ v * weights
    _, da = pullback((np.zeros(4), g_v))
    direction, step = symmetric(4, 4), 1e-6
    numeric = (f(a + step * direction) - f(a - step * direction)) / (2 * step)
    assert np.sum(da * direction) == pytest.approx(numeric, rel=1e-5)
    np.testing.assert_allclose(da, da.T)
