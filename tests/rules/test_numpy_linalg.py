"""Rules of rules/numpy_linalg.py: products in every shape combination, and numpy.linalg."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.runtime.tangents import ZERO, Tangent
from s2sad.runtime.tangents import Thunk, unthunk
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
    return tuple(unthunk(c) for c in pullback(g)[1:])  # products give Thunks (lazy=True)


def test_products_through_rrule_compute_only_the_cotangents_read():
    a, b, g = r(2, 3), r(3, 4), r(2, 4)
    _, pullback = rule_for(np.matmul).rrule(a, b)
    _, da, db = pullback(g)
    assert isinstance(da, Thunk) and isinstance(db, Thunk)
    assert not da.evaluated and not db.evaluated  # a constant weight matrix's product never runs
    np.testing.assert_allclose(unthunk(db), a.T @ g)
    assert db.evaluated and not da.evaluated


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
    # 2-vectors (z = 0; two of them give the z-component alone), mixed, and vectors along other axes
    (np.cross, (r(2), r(2)), {}),
    (np.cross, (r(4, 2), r(2)), {}),
    (np.cross, (r(2), r(4, 3)), {}),
    (np.cross, (r(3, 4), r(4, 3)), {"axisa": 0}),
    (np.cross, (r(3, 4), r(3, 4)), {"axis": 0}),
    (np.cross, (r(3, 4, 2), r(4, 2, 3)), {"axisa": 0, "axisc": 0}),
    (np.cross, (r(2, 5), r(3, 5)), {"axis": 0}),
    (np.cross, (r(3, 2) + 1j * r(3, 2), r(2) - 1j * r(2)), {}),
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
    # an index repeated in one operand reads a diagonal
    ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij,jj->i", [(2, 3), (3, 3)]), ("iij->j", [(3, 3, 2)]),
    ("iij->ij", [(3, 3, 2)]), ("ijij->ij", [(2, 3, 2, 3)]), ("...ii->...i", [(2, 3, 3)]), ("ii,i->", [(3, 3), (1,)]),
]


@pytest.mark.parametrize("spec, shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum(spec, shapes):
    operands = [r(*shape) for shape in shapes]
    check_rrule(np.einsum, spec, *operands)
    cotangents32 = check_rrule(np.einsum, spec, *[x.astype(np.float32) for x in operands])
    assert all(ct.dtype == np.float32 for ct in cotangents32[1:])


def test_einsum_repeated_index_formulas():
    a = r(3, 3)
    (_, da) = cotangents(np.einsum, "ii", a, g=2.0)                # the trace: 2 I
    np.testing.assert_array_equal(da, 2 * np.eye(3))
    g = r(3)
    (_, da) = cotangents(np.einsum, "ii->i", a, g=g)               # the diagonal: g on it, 0 off it
    np.testing.assert_array_equal(da, np.diag(g))
    b, g = r(2, 3), r(2)
    _, db, da = cotangents(np.einsum, "ij,jj->i", b, a, g=g)       # sum_j b_ij a_jj
    np.testing.assert_allclose(db, np.outer(g, np.diag(a)))
    np.testing.assert_allclose(da, np.diag(g @ b))


def test_einsum_repeated_index_complex():
    z = r(3, 3) + 1j * r(3, 3)
    check_rrule(np.einsum, "ii->i", z)
    check_rrule(np.einsum, "ij,jj->i", r(2, 3) + 1j * r(2, 3), z)


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
    (np.linalg.solve, (well_conditioned(3, 3), r(4, 3, 2))),
    (np.linalg.solve, (well_conditioned(4, 3, 3), r(3))),
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


# ------------------------------------------------------------------ functions reading one triangle
# NumPy's cholesky, eigh and eigvalsh read one triangle of their input (the lower one by
# default) and ignore the other: the gradient is that of the function NumPy computes, so
# it is 0 on the triangle not read, and finite differences along any direction agree.
def c(*shape):
    return r(*shape) + 1j * r(*shape)


def hermitian_positive(*shape):
    a = c(*shape)
    return a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])


def test_cholesky():
    for a in (spd(3, 3), spd(2, 4, 4), spd(3, 3) + np.triu(r(3, 3), 1)):  # the last not symmetric
        (da,) = check_rrule(np.linalg.cholesky, a)
        assert np.all(np.triu(da, 1) == 0)  # the upper triangle is never read
    a = spd(3, 3) + np.tril(r(3, 3), -1)
    (da,) = check_rrule(np.linalg.cholesky, a, upper=True)
    assert np.all(np.tril(da, -1) == 0)
    (da,) = check_rrule(np.linalg.cholesky, a.astype(np.float32))
    assert da.dtype == np.float32


def test_cholesky_complex():
    for a in (hermitian_positive(3, 3), hermitian_positive(3, 3) + np.triu(c(3, 3), 1) + 0.5j * np.eye(3)):
        (da,) = check_rrule(np.linalg.cholesky, a)
        assert np.all(np.triu(da, 1) == 0) and np.all(np.diagonal(da).imag == 0)  # nor the diagonal's imaginary part
        check_rrule(np.linalg.cholesky, a, upper=True)


def test_eigh_eigenvalues():
    for a in (symmetric(4, 4), symmetric(3, 3, 3), r(3, 3), c(3, 3)):
        w = np.linalg.eigh(a).eigenvalues
        check_rrule(np.linalg.eigh, a, cotangent=(r(*w.shape), np.zeros_like(a)))
        check_rrule(np.linalg.eigh, a, "U", cotangent=(r(*w.shape), np.zeros_like(a)))


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("make", [r, c], ids=["real", "complex"])
def test_eigh_eigenvectors_through_a_phase_blind_loss(uplo, make):
    """L = <c, w> + <D, |V|^2> at a matrix that is not symmetric: eigh reads one triangle."""
    a, weights, d = make(4, 4), r(4), r(4, 4)

    def loss(a):
        w, v = np.linalg.eigh(a, uplo)
        return np.sum(weights * w) + np.sum(d * np.abs(v) ** 2)

    (w, v), pullback = rule_for(np.linalg.eigh).rrule(a, uplo)
    _, da, _ = pullback((weights, 2 * d * v))
    direction, step = make(4, 4), 1e-6
    numeric = (loss(a + step * direction) - loss(a - step * direction)) / (2 * step)
    assert np.real(np.sum(np.conj(da) * direction)) == pytest.approx(numeric, rel=1e-6, abs=1e-9)
    unread = np.triu(da, 1) if uplo == "L" else np.tril(da, -1)
    assert np.all(unread == 0)


def test_eigh_eigenvectors_through_a_sign_invariant_function():
    """f(A) = sum(C * V diag(c) V^T) does not depend on the eigenvectors' signs."""
    a, c, weights = symmetric(4, 4), r(4, 4), r(4)

    def f(a):
        w, v = np.linalg.eigh(a)
        return np.sum(c * ((v * weights) @ v.T))

    (w, v), pullback = rule_for(np.linalg.eigh).rrule(a)
    g_v = (c + c.T) @ v * weights
    _, da = pullback((np.zeros(4), g_v))
    direction, step = r(4, 4), 1e-6
    numeric = (f(a + step * direction) - f(a - step * direction)) / (2 * step)
    assert np.sum(da * direction) == pytest.approx(numeric, rel=1e-5)
    assert np.all(np.triu(da, 1) == 0)


# ------------------------------------------------------------------ vdot, matrix_power, det at singular matrices
def test_vdot():
    for a, b in ((r(3), r(3)), (r(2, 3), r(6)), (r(2, 2), r(2, 2))):
        check_rrule(np.vdot, a, b)
    da, db = check_rrule(np.vdot, r(3).astype(np.float32), r(3).astype(np.float32))
    assert da.dtype == db.dtype == np.float32
    da, db = check_rrule(np.vdot, 1.5, -2.0)
    assert type(da) is float and type(db) is float
    a, b = r(2, 3), r(6)
    da, db = cotangents(np.vdot, a, b, g=2.0)
    np.testing.assert_allclose(da, 2 * b.reshape(2, 3))
    np.testing.assert_allclose(db, 2 * a.ravel())


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13, -1, -2, -5])
def test_matrix_power(n):
    check_rrule(np.linalg.matrix_power, well_conditioned(3, 3) / 3, n)
    check_rrule(np.linalg.matrix_power, well_conditioned(2, 3, 3) / 3, n)


def test_matrix_power_formula_and_float32():
    a, g = r(3, 3), r(3, 3)
    (da, _) = cotangents(np.linalg.matrix_power, a, 2, g=g)
    np.testing.assert_allclose(da, g @ a.T + a.T @ g)
    (da, _) = cotangents(np.linalg.matrix_power, a, 0, g=g)
    np.testing.assert_array_equal(da, np.zeros((3, 3)))
    (da, _) = check_rrule(np.linalg.matrix_power, (well_conditioned(3, 3) / 3).astype(np.float32), -3)
    assert da.dtype == np.float32


def _cofactor_matrix(a):
    """Signed minors, one by one: an oracle independent of inv and svd."""
    n = a.shape[0]
    return np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(n)]
                     for i in range(n)])


@pytest.mark.parametrize("a", [
    np.array([[1.0, 2.0], [2.0, 4.0]]),                          # rank 1 of 2: cofactors nonzero
    r(3, 2) @ r(2, 3),                                           # rank 2 of 3
    r(4, 2) @ r(2, 4),                                           # rank 2 of 4: cofactors vanish
    np.zeros((3, 3)),
    well_conditioned(3, 3),
], ids=["rank1of2", "rank2of3", "rank2of4", "zeros", "regular"])
def test_det_exact_at_singular_matrices(a):
    check_rrule(np.linalg.det, a)
    (da,) = cotangents(np.linalg.det, a, g=1.0)
    np.testing.assert_allclose(da, _cofactor_matrix(a), atol=1e-12)


def test_det_of_a_stack_with_a_singular_member():
    a = np.stack([well_conditioned(3, 3), r(3, 2) @ r(2, 3)])
    check_rrule(np.linalg.det, a)


def test_slogdet_cotangent_forms():
    a = well_conditioned(3, 3)
    expected = np.linalg.inv(a).T
    for g in ((ZERO, 1.0), [0.0, 1.0], Tangent(type(np.linalg.slogdet(a)), logabsdet=1.0)):
        (da,) = cotangents(np.linalg.slogdet, a, g=g)
        np.testing.assert_allclose(da, expected)
    (da,) = cotangents(np.linalg.slogdet, a, g=(1.0, ZERO))
    assert da is ZERO


# ------------------------------------------------------------------ svd: losses blind to the singular vectors' signs
def _svd_cotangent(a, full_matrices):
    """The cotangent of (U, S, Vh) for L = <C, U_k diag(c) Vh_k> + <S', s> (+ projections on the extra columns)."""
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    k = s.shape[-1]
    c, weights = r(*a.shape), r(*s.shape)
    g_u, g_vh = np.zeros_like(u), np.zeros_like(vh)
    g_u[..., :k] = c @ np.swapaxes(vh[..., :k, :], -1, -2) * weights[..., None, :]
    g_vh[..., :k, :] = weights[..., :, None] * (np.swapaxes(u[..., :k], -1, -2) @ c)
    if full_matrices and u.shape[-1] > k:                 # <D, U2 U2^T>: blind to the basis of U2
        d = symmetric(*u.shape)
        g_u[..., k:] = 2 * d @ u[..., k:]
    if full_matrices and vh.shape[-1] > k:
        d = symmetric(*vh.shape)
        g_vh[..., k:, :] = 2 * np.swapaxes(d @ np.swapaxes(vh[..., k:, :], -1, -2), -1, -2)
    return g_u, r(*s.shape), g_vh


SVD_SHAPES = [(4, 3), (3, 5), (3, 3), (2, 4, 3), (2, 3, 5)]


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("shape", SVD_SHAPES, ids=str)
def test_svd(shape, full_matrices):
    a = r(*shape)
    check_rrule(np.linalg.svd, a, full_matrices, cotangent=_svd_cotangent(a, full_matrices))
    check_rrule(np.linalg.svd, a, full_matrices, False)


def test_svd_projection_loss_and_float32():
    a = r(5, 3)
    u = np.linalg.svd(a, full_matrices=False)[0]
    d = symmetric(5, 5)
    check_rrule(np.linalg.svd, a, False, cotangent=(2 * d @ u, np.zeros(3), np.zeros((3, 3))))   # L = <D, U U^T>
    a32 = r(4, 3).astype(np.float32)
    (da, _) = check_rrule(np.linalg.svd, a32, False, cotangent=tuple(
        x.astype(np.float32) for x in _svd_cotangent(a32.astype(np.float64), False)))
    assert da.dtype == np.float32


def test_svd_formulas_and_cotangent_forms():
    a = r(4, 3)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    (da, *_) = cotangents(np.linalg.svd, a, False, False, g=np.ones(3))    # nuclear norm: U Vh
    np.testing.assert_allclose(da, u @ vh)
    result = np.linalg.svd(a, full_matrices=False)
    (da_tangent, *_) = cotangents(np.linalg.svd, a, False, g=Tangent(type(result), S=np.ones(3)))
    (da_tuple, *_) = cotangents(np.linalg.svd, a, False, g=(ZERO, np.ones(3), ZERO))
    np.testing.assert_allclose(da_tangent, u @ vh)
    np.testing.assert_allclose(da_tuple, u @ vh)
    # a rank-deficient matrix: the singular values' gradient stays finite
    (da, *_) = cotangents(np.linalg.svd, r(4, 1) @ r(1, 3), False, False, g=np.ones(3))
    assert np.all(np.isfinite(da))


def test_svd_hermitian_and_svdvals():
    a = symmetric(4, 4)
    check_rrule(np.linalg.svd, a, False, False, True, directions=[symmetric(4, 4), None, None, None])
    check_rrule(np.linalg.svdvals, r(3, 5))
    check_rrule(np.linalg.svdvals, r(2, 4, 3))


# ------------------------------------------------------------------ pinv, lstsq
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (3, 3), (2, 4, 3)], ids=str)
def test_pinv(shape):
    check_rrule(np.linalg.pinv, r(*shape))


def test_pinv_rank_deficient_hermitian_float32():
    b, c = r(5, 2), r(2, 4)
    a = b @ c
    check_rrule(np.linalg.pinv, a, directions=[r(5, 2) @ c, None, None])   # moves that keep the rank 2
    check_rrule(np.linalg.pinv, a, directions=[b @ r(2, 4), None, None])
    check_rrule(np.linalg.pinv, symmetric(3, 3) + 3 * np.eye(3), None, True,
                directions=[symmetric(3, 3), None, None])
    (da, *_) = check_rrule(np.linalg.pinv, r(4, 3).astype(np.float32))
    assert da.dtype == np.float32


@pytest.mark.parametrize("shapes", [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 3), (3,)), ((3, 5), (3, 2)),
                                    ((3, 5), (3,))], ids=str)
def test_lstsq(shapes):
    check_rrule(np.linalg.lstsq, r(*shapes[0]), r(*shapes[1]))


def test_lstsq_formulas():
    a, b, g = r(5, 3), r(5), r(3)
    da, db = cotangents(np.linalg.lstsq, a, b, g=(g, ZERO, ZERO, ZERO))
    np.testing.assert_allclose(db, np.linalg.pinv(a).T @ g)
    x = np.linalg.lstsq(a, b)[0]
    _, db = cotangents(np.linalg.lstsq, a, b, g=(ZERO, np.ones(1), ZERO, ZERO))
    np.testing.assert_allclose(db, 2 * (b - a @ x))      # d |b - a x|^2 / db at the optimum


# ------------------------------------------------------------------ qr
def _qr_cotangent(a, mode):
    q, rr = np.linalg.qr(a, mode)
    g_q = r(*q.shape)
    cols = a.shape[-1]
    if q.shape[-1] > cols:   # mode='complete', tall: only losses blind to the basis of the extra columns
        g_q[..., cols:] = 2 * symmetric(*q.shape[:-1], q.shape[-2]) @ q[..., cols:]
    return g_q, np.triu(r(*rr.shape))


@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 5)], ids=str)
def test_qr(shape, mode):
    a = r(*shape)
    cotangent = np.triu(r(*np.linalg.qr(a, "r").shape)) if mode == "r" else _qr_cotangent(a, mode)
    check_rrule(np.linalg.qr, a, mode, cotangent=cotangent)


def test_qr_float32_and_raw():
    a = r(4, 3).astype(np.float32)
    (da,) = check_rrule(np.linalg.qr, a, cotangent=tuple(x.astype(np.float32) for x in _qr_cotangent(a, "reduced")))
    assert da.dtype == np.float32
    with pytest.raises(NotImplementedError, match="raw"):
        cotangents(np.linalg.qr, a, "raw", g=(np.ones((3, 4)), np.ones(3)))


# ------------------------------------------------------------------ eigenvalues and eigenvectors
def test_eigvalsh():
    for a in (symmetric(4, 4), symmetric(2, 3, 3), r(3, 3), c(3, 3), c(2, 3, 3)):
        (da,) = check_rrule(np.linalg.eigvalsh, a)
        assert np.all(np.triu(da, 1) == 0)
        (da, _) = check_rrule(np.linalg.eigvalsh, a, "U")
        assert np.all(np.tril(da, -1) == 0)
    (da, _) = cotangents(np.linalg.eigvalsh, symmetric(3, 3), "L", g=np.ones(3))
    np.testing.assert_allclose(da, np.eye(3), atol=1e-12)               # d trace / dA


def test_eigh_cotangent_as_a_tangent():
    a = symmetric(3, 3)
    result = np.linalg.eigh(a)
    (da,) = cotangents(np.linalg.eigh, a, g=Tangent(type(result), eigenvalues=np.ones(3)))
    np.testing.assert_allclose(da, np.eye(3), atol=1e-12)


def with_eigenvalues(values, *shape):
    """A real matrix (stack) with the given distinct eigenvalues, complex ones in conjugate pairs."""
    n = shape[-1]
    block = np.zeros((n, n))
    i = 0
    while i < n:
        value = complex(values[i])
        if value.imag:
            block[i:i + 2, i:i + 2] = [[value.real, value.imag], [-value.imag, value.real]]
            i += 2
        else:
            block[i, i] = value.real
            i += 1
    q = well_conditioned(*shape)
    return q @ block @ np.linalg.inv(q)


SPECTRA = [((4, 4), [1 + 2j, 1 - 2j, 3.0, -0.5]), ((3, 3), [0.5 + 1j, 0.5 - 1j, 2.0]),
           ((2, 3, 3), [-1.0, 1 + 0.5j, 1 - 0.5j]), ((3, 3), [1.0, 2.0, -3.0])]


@pytest.mark.parametrize("shape, values", SPECTRA, ids=str)
def test_eigvals_of_real_matrices(shape, values):
    a = with_eigenvalues(values, *shape)
    assert np.iscomplexobj(np.linalg.eigvals(a)) == any(complex(v).imag for v in values)
    check_rrule(np.linalg.eigvals, a)


def test_eigvals_real_spectrum_and_formula():
    q = well_conditioned(3, 3)
    a = q @ np.diag([1.0, 2.0, 4.0]) @ np.linalg.inv(q)
    check_rrule(np.linalg.eigvals, a)
    (da,) = cotangents(np.linalg.eigvals, a, g=np.ones(3))
    np.testing.assert_allclose(da, np.eye(3), atol=1e-10)               # the trace again


@pytest.mark.parametrize("shape, values", SPECTRA, ids=str)
def test_eig_through_phase_blind_losses(shape, values):
    """L = <D, |V|^2> + <c, w>: |V|^2 does not see the eigenvectors' phases, but does see their norms."""
    a = with_eigenvalues(values, *shape)
    w, v = np.linalg.eig(a)
    c = r(*w.shape) + (1j * r(*w.shape) if np.iscomplexobj(w) else 0)
    d = r(*v.shape)

    def loss(a):
        w, v = np.linalg.eig(a)
        return np.sum(np.real(np.conj(c) * w)) + np.sum(d * np.abs(v) ** 2)

    # Finite differences of the loss, not of V: LAPACK fixes each eigenvector's phase by a
    # rule that can jump between a + h v and a - h v, and only the loss is blind to it.
    (da,) = cotangents(np.linalg.eig, a, g=(c, 2 * d * v))
    direction = r(*a.shape)
    h = 1e-6
    slope = (loss(a + h * direction) - loss(a - h * direction)) / (2 * h)
    np.testing.assert_allclose(np.sum(da * direction), slope, rtol=1e-6, atol=1e-8)


def test_eig_cotangent_forms():
    a = r(3, 3)
    result = np.linalg.eig(a)
    (da,) = cotangents(np.linalg.eig, a, g=Tangent(type(result), eigenvalues=np.ones(3)))
    np.testing.assert_allclose(da, np.eye(3), atol=1e-10)
    assert da.dtype == np.float64


# ------------------------------------------------------------------ cond, norms
@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf], ids=str)
def test_cond(p):
    check_rrule(np.linalg.cond, well_conditioned(4, 4), p)
    check_rrule(np.linalg.cond, well_conditioned(2, 3, 3), p)


def test_cond_non_square_and_formula():
    check_rrule(np.linalg.cond, r(3, 5))
    check_rrule(np.linalg.cond, r(5, 3), -2)
    a = well_conditioned(3, 3)
    u, s, vh = np.linalg.svd(a)
    (da, _) = cotangents(np.linalg.cond, a, None, g=1.0)
    np.testing.assert_allclose(da, np.outer(u[:, 0], vh[0]) / s[-1] - s[0] / s[-1] ** 2 * np.outer(u[:, -1], vh[-1]))


VECTOR_ORDS = [None, 1, 2, 3, 0.5, -1, -2.5, np.inf, -np.inf, 0]
MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("ord", VECTOR_ORDS, ids=str)
def test_vector_norms_every_ord_and_axis(ord, keepdims):
    check_rrule(np.linalg.norm, r(5), ord=ord, keepdims=keepdims)     # ord by keyword: a constant, not probed
    for shape, axis in (((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -2)):
        check_rrule(np.linalg.norm, r(*shape), ord=ord, axis=axis, keepdims=keepdims)
    check_rrule(np.linalg.vector_norm, r(3, 4), axis=(0, 1), keepdims=keepdims, ord=2 if ord is None else ord)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
def test_matrix_norms_every_ord_and_axes(ord, keepdims):
    check_rrule(np.linalg.norm, r(3, 4), ord=ord, keepdims=keepdims)
    for axis in ((1, 2), (2, 0), (-1, -3), (1, 0)):
        check_rrule(np.linalg.norm, r(2, 3, 4), ord=ord, axis=axis, keepdims=keepdims)
    check_rrule(np.linalg.matrix_norm, r(2, 3, 4), keepdims=keepdims, ord="fro" if ord is None else ord)


def test_norm_float32_and_flattened():
    (dx,) = check_rrule(np.linalg.norm, r(3, 4).astype(np.float32), ord="nuc")
    assert dx.dtype == np.float32
    check_rrule(np.linalg.norm, r(2, 3, 4))                          # no ord, no axis: the flattened 2-norm
    check_rrule(np.linalg.vector_norm, r(2, 3, 4))


def test_eigvals_matches_eig_order_to_its_own():
    """eig and eigvals may list the eigenvalues in different orders: the rule pairs them by value."""
    a = r(4, 4)
    vjp = rule_for(np.linalg.eigvals).vjp_function("a")
    w = np.linalg.eigvals(a)
    g = r(4) + 1j * r(4)
    order = [2, 0, 3, 1]
    np.testing.assert_allclose(vjp(g[order], w[order], a), vjp(g, w, a))


# ------------------------------------------------------------------ complex decompositions, through phase-blind losses
# U and V of a complex SVD are defined up to a common phase per column (and LAPACK's choice
# can jump), so they are checked through losses blind to it, against finite differences of
# the loss itself.
def _slope_matches(f, a, cotangent, loss, **kwargs):
    _, pullback = rule_for(f).rrule(a, **kwargs)
    da = unthunk(pullback(cotangent)[1])
    direction, h = c(*a.shape), 1e-6
    numeric = (loss(f(a + h * direction, **kwargs)) - loss(f(a - h * direction, **kwargs))) / (2 * h)
    assert np.real(np.sum(np.conj(da) * direction)) == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def _mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)], ids=str)
@pytest.mark.parametrize("full", [False, True])
def test_complex_svd_through_phase_blind_losses(shape, full):
    a = c(*shape)
    u, s, vh = np.linalg.svd(a, full_matrices=full)
    k = s.shape[-1]
    uk, vhk = u[..., :k], vh[..., :k, :]
    # U diag(s) V^H, weighted: the reconstruction
    weights = c(*shape)
    g_u, g_vh = np.zeros_like(u), np.zeros_like(vh)
    g_u[..., :k] = weights @ _mH(vhk) * s[..., None, :]
    g_vh[..., :k, :] = s[..., :, None] * (_mH(uk) @ weights)
    g_s = np.real(np.einsum("...ij,...ik,...kj->...k", np.conj(weights), uk, vhk))
    _slope_matches(np.linalg.svd, a, (g_u, g_s, g_vh),
                   lambda out: np.real(np.sum(np.conj(weights) * ((out[0][..., :k] * out[1][..., None, :]) @ out[2][..., :k, :]))),
                   full_matrices=full)
    # |U|^2 and |Vh|^2 (the first k columns and rows), plus the singular values
    d_u, d_vh, d_s = r(*uk.shape), r(*vhk.shape), r(*s.shape)
    g_u, g_vh = np.zeros_like(u), np.zeros_like(vh)
    g_u[..., :k], g_vh[..., :k, :] = 2 * d_u * uk, 2 * d_vh * vhk
    _slope_matches(np.linalg.svd, a, (g_u, d_s, g_vh),
                   lambda out: np.sum(d_u * np.abs(out[0][..., :k]) ** 2) + np.sum(d_vh * np.abs(out[2][..., :k, :]) ** 2)
                   + np.sum(d_s * out[1]), full_matrices=full)
    # U U^H over all the columns of U (blind to the basis of the extra ones too)
    e = c(*(shape[:-1] + shape[-2:-1]))
    _slope_matches(np.linalg.svd, a, ((e + _mH(e)) @ u, ZERO, ZERO),
                   lambda out: np.real(np.sum(np.conj(e) * (out[0] @ _mH(out[0])))), full_matrices=full)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 3)], ids=str)
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_complex_qr(shape, mode):
    a = c(*shape)
    q, r_ = np.linalg.qr(a, mode)
    g_q, g_r = c(*q.shape), c(*r_.shape)
    k = shape[-1]
    if mode == "complete" and shape[-2] > k:  # Q's extra columns: only through Q_rest Q_rest^H
        e = c(*(shape[:-1] + shape[-2:-1]))
        g_q[..., :k] = 0
        g_q[..., k:] = (e + _mH(e)) @ q[..., k:]

        def loss(out):
            rest = out[0][..., k:]
            return np.real(np.sum(np.conj(e) * (rest @ _mH(rest)))) + np.real(np.sum(np.conj(g_r) * out[1]))
    else:
        def loss(out):
            return np.real(np.sum(np.conj(g_q) * out[0])) + np.real(np.sum(np.conj(g_r) * out[1]))
    _slope_matches(np.linalg.qr, a, (g_q, g_r), loss, mode=mode)


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4)], ids=str)
def test_complex_pinv_lstsq_svdvals(shape):
    a = c(*shape)
    check_rrule(np.linalg.pinv, a)
    check_rrule(np.linalg.lstsq, a, c(shape[0]))
    check_rrule(np.linalg.lstsq, a, c(shape[0], 2))
    check_rrule(np.linalg.svd, a, compute_uv=False)


@pytest.mark.parametrize("make", [r, c], ids=["real", "complex"])
def test_hermitian_flag_reads_the_lower_triangle(make):
    """svd and pinv with hermitian=True run eigh: the upper triangle is not read."""
    a = make(3, 3) + 3 * np.eye(3)  # not Hermitian
    for f, kwargs in ((np.linalg.svd, {"compute_uv": False}), (np.linalg.pinv, {})):
        (da,) = check_rrule(f, a, hermitian=True, **kwargs)
        assert np.all(np.triu(da, 1) == 0)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 2, -2, 1, np.inf], ids=str)
def test_complex_norm_and_cond(ord):
    check_rrule(np.linalg.norm, c(3, 3), ord)
    check_rrule(np.linalg.cond, c(3, 3) + 2 * np.eye(3), ord if ord not in ("nuc",) else None)


def test_complex_inverse_determinant_solve():
    a, b = c(3, 3) + 3 * np.eye(3), c(3, 2)
    check_rrule(np.linalg.inv, a)
    check_rrule(np.linalg.det, a)
    check_rrule(np.linalg.slogdet, a)  # the sign of a complex determinant moves with a
    check_rrule(np.linalg.solve, a, b)
    check_rrule(np.linalg.matrix_power, a, 3)
    check_rrule(np.linalg.matrix_power, a, -2)


# ------------------------------------------------------------------ convolve
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("sizes", [(7, 3), (3, 7), (5, 5)], ids=str)
def test_convolve_in_every_mode_real_and_complex(sizes, mode):
    rng = np.random.default_rng(sum(sizes))
    a, v = rng.standard_normal(sizes[0]), rng.standard_normal(sizes[1])
    check_rrule(np.convolve, a, v, mode)
    check_rrule(np.convolve, a + 1j * rng.standard_normal(sizes[0]), v - 2j * rng.standard_normal(sizes[1]), mode)
    # hand-derived, full mode: y[k] = sum_i a[i] v[k - i], so dy/da[i] = sum_k g[k] v[k - i]
    g = rng.standard_normal(sizes[0] + sizes[1] - 1)
    _, pullback = s2sad.rrule(np.convolve, a, v)
    expected = [sum(g[k] * v[k - i] for k in range(len(g)) if 0 <= k - i < len(v)) for i in range(len(a))]
    np.testing.assert_allclose(pullback(g)[1], expected, rtol=1e-12)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("sizes", [(7, 3), (3, 7), (5, 5), (1, 4)], ids=str)
def test_correlate_in_every_mode_real_and_complex(sizes, mode):
    rng = np.random.default_rng(sum(sizes) + 1)
    a, v = rng.standard_normal(sizes[0]), rng.standard_normal(sizes[1])
    check_rrule(np.correlate, a, v, mode)
    check_rrule(np.correlate, a + 1j * rng.standard_normal(sizes[0]), v - 2j * rng.standard_normal(sizes[1]), mode)
    # hand-derived, valid mode, len(a) >= len(v): y[k] = sum_n a[n + k] conj(v[n]), so for real
    # data dy/da[i] = sum_k g[k] v[i - k] and dy/dv[n] = sum_k g[k] a[n + k]
    if sizes[0] >= sizes[1]:
        _, pullback = s2sad.rrule(np.correlate, a, v, "valid")
        g = rng.standard_normal(sizes[0] - sizes[1] + 1)
        _, da, dv, _ = pullback(g)  # (and mode's: none)
        np.testing.assert_allclose(da, [sum(g[k] * v[i - k] for k in range(len(g)) if 0 <= i - k < len(v))
                                        for i in range(len(a))], rtol=1e-12)
        np.testing.assert_allclose(dv, [sum(g[k] * a[n + k] for k in range(len(g))) for n in range(len(v))],
                                   rtol=1e-12)


# ------------------------------------------------------------------ found by the sweep (test_systematic.py)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("a, v", [(1.5, np.arange(1.0, 4.0)), (np.array(2.0), np.arange(1.0, 4.0)),
                                  (np.arange(1.0, 4.0), np.array(0.5)), (np.array(-1.0), np.float64(3.0))],
                         ids=["float-array", "0d-array", "array-0d", "0d-scalar"])
def test_convolve_of_a_number(a, v, mode):
    """NumPy reads a number as a 1-D array of one; the rule's np.correlate did not (ValueError)."""
    da, dv, _ = check_rrule(np.convolve, a, v, mode)
    assert np.shape(da) == np.shape(a) and np.shape(dv) == np.shape(v)


def test_svdvals_of_an_empty_matrix():
    """No singular values: the check for repeated ones took the maximum of nothing (ValueError)."""
    for shape in ((2, 0), (0, 3), (4, 0, 2)):
        (dx,) = check_rrule(np.linalg.svdvals, np.zeros(shape))
        assert dx.shape == shape


# ------------------------------------------------------------------ multi_dot (it was refused: no rule)
def chained(v, A, B, w):
    return np.linalg.multi_dot([v, A, B, A.T, w]) ** 2 + np.sum(np.linalg.multi_dot((A, B, A)) ** 2)


def test_multi_dot_with_vector_ends_against_central_differences():
    from s2sad.testing import numerical_gradient

    rng = np.random.default_rng(8)
    args = (rng.normal(size=3), rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), rng.normal(size=3))
    gradients = s2sad.grad(chained, argnums=(0, 1, 2, 3))(*args)
    for gradient, reference in zip(gradients, numerical_gradient(chained, *args, argnums=(0, 1, 2, 3))):
        np.testing.assert_allclose(gradient, reference, rtol=1e-6, atol=1e-8)
    tangents = tuple(rng.normal(size=np.shape(a)) for a in args)
    np.testing.assert_allclose(s2sad.jvp(chained, args, tangents)[1],
                               sum(np.sum(g * t) for g, t in zip(gradients, tangents)), rtol=1e-10)
