"""Forward rules of rules/numpy_linalg.py: products, einsum and numpy.linalg against finite differences.

Decompositions whose factors NumPy fixes only up to a sign, a phase or a basis (complex
singular vectors and eigenvectors, the extra columns of ``full_matrices``/``'complete'``
forms) are checked through losses blind to that choice: the loss's derivative along the
pushed tangents must match finite differences of the loss of the primal.
"""
import ast

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.registry import all_rules
from s2sad.runtime.tangents import NO_TANGENT, ZERO

rng = np.random.default_rng(23)
L = np.linalg


def r(*shape):
    return rng.standard_normal(shape)


def c(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def H(a):
    return np.conj(np.swapaxes(a, -1, -2))


def well_conditioned(*shape):
    return r(*shape) + 3 * np.eye(shape[-1])


def spd(*shape):
    a = r(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def hpd(*shape):
    a = c(*shape)
    return a @ H(a) + shape[-1] * np.eye(shape[-1])


def symmetric(*shape):
    a = r(*shape)
    return (a + np.swapaxes(a, -1, -2)) / 2


def hermitian(*shape):
    a = c(*shape)
    return (a + H(a)) / 2


def f32(*args):
    return tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args)


def _leaves(x):
    return [leaf for item in x for leaf in _leaves(item)] if isinstance(x, (list, tuple)) else [x]


def pushed(f, args, kwargs, tangents):
    return forward_rule(f).pushforward(args, kwargs, tangents, f(*args, **kwargs))


def check_direction(f, args, kwargs, tangents, moves, rtol=1e-6, atol=1e-8):
    """The pushforward of ``tangents`` (by parameter) against finite differences moving ``args[i]`` by ``moves[i]``."""
    got = pushed(f, args, kwargs, tangents)
    step = 1e-6
    up = f(*[a + step * moves[i] if i in moves else a for i, a in enumerate(args)], **kwargs)
    down = f(*[a - step * moves[i] if i in moves else a for i, a in enumerate(args)], **kwargs)
    for g, hi, lo in zip(_leaves(got), _leaves(up), _leaves(down)):
        g = np.zeros(np.shape(hi)) if g is ZERO or g is NO_TANGENT else g
        np.testing.assert_allclose(g, (np.asarray(hi) - np.asarray(lo)) / (2 * step), rtol=rtol, atol=atol)
    return got


def check_through_loss(loss, f, a, direction, *args, rel=1e-5, **kwargs):
    """d loss(f(a)) along ``direction``: by the rule's tangents of f's outputs, and by finite differences."""
    out = f(a, *args, **kwargs)
    tangents = forward_rule(f).pushforward((a, *args), kwargs, {"a": direction}, out)
    step = 1e-6

    def moved(sign):
        return tuple(o + sign * step * np.asarray(t) for o, t in zip(out, tangents))

    via_rule = (loss(moved(1)) - loss(moved(-1))) / (2 * step)
    numeric = (loss(f(a + step * direction, *args, **kwargs)) - loss(f(a - step * direction, *args, **kwargs))) / (2 * step)
    assert via_rule == pytest.approx(numeric, rel=rel, abs=1e-7)
    return tangents


# ------------------------------------------------------------------ products
PRODUCTS = [
    (np.dot, (r(2, 3), r(3, 4))), (np.dot, (1.5, r(3))), (np.dot, (r(3), r(3))), (np.dot, (r(2, 2, 3), r(4, 3, 5))),
    (np.dot, (r(2, 3), r(3))),
    (np.matmul, (r(2, 3), r(3))), (np.matmul, (r(3), r(3, 2))), (np.matmul, (r(3), r(3))),
    (np.matmul, (r(2, 1, 3, 4), r(5, 4, 2))),
    (np.outer, (r(3), r(2, 2))), (np.inner, (r(2, 3), r(4, 3))), (np.inner, (r(3), 2.0)),
    (np.vdot, (c(3), c(3))), (np.vdot, (r(2, 2), c(4))),
    (np.tensordot, (r(2, 3, 4), r(4, 3, 5), ([1, 2], [1, 0]))), (np.tensordot, (r(2, 3), r(3, 2), 1)),
    (np.tensordot, (r(2, 3), r(2, 3), 2)),
    (np.cross, (r(4, 3), r(3))), (np.cross, (r(2), r(2))), (np.cross, (r(3, 2), r(3, 2), 0, 0)),
    (np.matmul, (c(2, 3), r(3, 2))),
]


@pytest.mark.parametrize("f, args", PRODUCTS, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(PRODUCTS)])
def test_products(f, args):
    check_frule(f, *args)
    if not any(np.iscomplexobj(a) for a in args):
        check_frule(f, *f32(*args))


def test_product_out_holds_only_the_primal():
    a, b, out = r(2, 3), r(3, 4), np.zeros((2, 4))
    t = pushed(np.dot, (a, b), {"out": out}, {"a": r(2, 3)})
    np.testing.assert_allclose(out, a @ b)
    assert t is not out


EINSUMS = [("ij,jk->ik", (r(2, 3), r(3, 4))), ("ij,jk", (r(2, 3), r(3, 4))), ("i,i->", (r(3), r(3))),
           ("ii->i", (r(3, 3),)), ("ii", (r(3, 3),)), ("...ij,...jk->...ik", (r(2, 2, 3), r(3, 4))),
           ("ij,jk,kl->il", (r(2, 3), r(3, 4), r(4, 2))), ("ijk->kj", (r(2, 3, 4),)), ("i,j->ij", (r(2), r(3)))]


@pytest.mark.parametrize("spec, operands", EINSUMS, ids=[s for s, _ in EINSUMS])
def test_einsum(spec, operands):
    for i, x in enumerate(operands):
        v = r(*x.shape)
        tangents = tuple(v if j == i else None for j in range(len(operands)))
        check_direction(np.einsum, (spec, *operands), {}, {"operands": tangents}, {1 + i: v})
    every = tuple(r(*x.shape) for x in operands)     # all operands moving at once
    check_direction(np.einsum, (spec, *operands), {}, {"operands": every}, {1 + i: v for i, v in enumerate(every)})
    one = tuple(x.astype(np.float32) for x in operands)
    t = pushed(np.einsum, (spec, *one), {}, {"operands": tuple(np.ones_like(x) for x in one)})
    assert t.dtype == np.float32


def test_einsum_lone_operand_tangent_and_interleaved_form():
    x, v = r(3, 3), r(3, 3)
    np.testing.assert_allclose(pushed(np.einsum, ("ij->ji", x), {}, {"operands": v}), v.T)
    with pytest.raises(NotImplementedError, match="subscripts"):
        pushed(np.einsum, (x, [0, 1]), {}, {"operands": (v,)})


# ------------------------------------------------------------------ inverses, determinants, powers, solves
LINALG = [
    (L.inv, (well_conditioned(3, 3),)), (L.inv, (well_conditioned(2, 3, 3),)), (L.inv, (c(3, 3) + 3 * np.eye(3),)),
    (L.det, (r(3, 3),)), (L.det, (r(2, 4, 4),)), (L.det, (r(1, 1),)), (L.det, (c(3, 3),)),
    (L.slogdet, (r(3, 3),)), (L.slogdet, (r(2, 3, 3),)), (L.slogdet, (c(3, 3),)),
    (L.matrix_power, (r(3, 3) / 2, 5)), (L.matrix_power, (r(3, 3) / 2, 0)), (L.matrix_power, (r(3, 3) / 2, 1)),
    (L.matrix_power, (well_conditioned(3, 3), -3)), (L.matrix_power, (r(2, 3, 3) / 2, 6)),
    (L.matrix_power, (c(3, 3) / 2, 3)),
    (L.solve, (well_conditioned(3, 3), r(3))), (L.solve, (well_conditioned(2, 3, 3), r(3))),
    (L.solve, (well_conditioned(2, 3, 3), r(2, 3, 2))), (L.solve, (well_conditioned(3, 3), r(3, 4))),
    (L.solve, (c(3, 3) + 3 * np.eye(3), c(3))),
    (L.lstsq, (r(5, 3), r(5))), (L.lstsq, (r(5, 3), r(5, 2))), (L.lstsq, (r(3, 5), r(3))),
    (L.lstsq, (r(3, 3), r(3, 2))),
    (L.pinv, (r(4, 3),)), (L.pinv, (r(3, 5),)), (L.pinv, (r(3, 3),)), (L.pinv, (r(2, 4, 3),)), (L.pinv, (c(4, 3),)),
    (L.pinv, (symmetric(3, 3) + 3 * np.eye(3), None, True)),
    (L.cond, (r(3, 3),)), (L.cond, (r(3, 3), -2)), (L.cond, (r(3, 3), "fro")), (L.cond, (r(3, 3), 1)),
    (L.cond, (r(3, 3), -np.inf)), (L.cond, (r(3, 5),)), (L.cond, (r(2, 3, 3), "nuc")), (L.cond, (c(3, 3),)),
    (L.cholesky, (spd(3, 3),)), (L.cholesky, (spd(2, 4, 4),)), (L.cholesky, (hpd(3, 3),)),
    (L.eigvalsh, (symmetric(4, 4),)), (L.eigvalsh, (symmetric(2, 3, 3), "U")), (L.eigvalsh, (hermitian(3, 3),)),
    (L.eigh, (symmetric(4, 4),)), (L.eigh, (symmetric(2, 3, 3), "U")),
    (L.eig, (r(3, 3),)), (L.eig, (r(4, 4),)), (L.eig, (r(2, 3, 3),)), (L.eig, (c(3, 3),)),
    (L.eigvals, (r(4, 4),)), (L.eigvals, (r(2, 3, 3),)), (L.eigvals, (c(3, 3),)),
    (L.qr, (r(4, 3),)), (L.qr, (r(3, 3),)), (L.qr, (r(3, 5),)), (L.qr, (r(2, 4, 3),)), (L.qr, (r(2, 3, 5),)),
    (L.qr, (r(4, 3), "r")), (L.qr, (r(3, 5), "r")), (L.qr, (r(3, 5), "complete")), (L.qr, (r(4, 3), "complete")),
    (L.qr, (c(4, 3),)), (L.qr, (c(3, 5),)),
    (L.svd, (r(4, 3), False)), (L.svd, (r(3, 5), False)), (L.svd, (r(3, 3), False)), (L.svd, (r(2, 4, 3), False)),
    (L.svd, (r(4, 3), True, False)), (L.svd, (r(3, 3), True)), (L.svd, (c(3, 4), True, False)),
    (L.svd, (symmetric(4, 4), False, True, True)), (L.svd, (symmetric(4, 4), False, False, True)),
]
if hasattr(L, "svdvals"):
    LINALG += [(L.svdvals, (r(3, 5),)), (L.svdvals, (r(2, 4, 3),))]
LINALG_IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(LINALG)]


@pytest.mark.parametrize("f, args", LINALG, ids=LINALG_IDS)
def test_linalg(f, args):
    check_frule(f, *args)


FLOAT32 = [(L.inv, (well_conditioned(3, 3),)), (L.det, (r(3, 3),)), (L.slogdet, (r(3, 3),)),
           (L.matrix_power, (r(3, 3) / 2, 3)), (L.solve, (well_conditioned(3, 3), r(3))),
           (L.lstsq, (r(5, 3), r(5))), (L.pinv, (r(4, 3),)), (L.cond, (r(3, 3),)), (L.cholesky, (spd(3, 3),)),
           (L.eigvalsh, (symmetric(3, 3),)), (L.eigh, (symmetric(3, 3),)), (L.eig, (r(3, 3),)),
           (L.eigvals, (r(3, 3),)), (L.qr, (r(4, 3),)), (L.svd, (r(4, 3), False)), (L.norm, (r(3, 4),)),
           (L.norm, (r(3, 4), "nuc"))]


@pytest.mark.parametrize("f, args", FLOAT32, ids=[f"{f.__name__}-{i}" for i, (f, _) in enumerate(FLOAT32)])
def test_float32_stays_float32(f, args):
    check_frule(f, *f32(*args))        # checks every tangent's dtype against its output's


def test_cholesky_upper_and_one_triangle():
    a = spd(3, 3)
    check_frule(L.cholesky, a, upper=True)
    check_frule(L.cholesky, hpd(3, 3), upper=True)
    # only the triangle cholesky reads moves the factor: a change in the other one pushes nothing
    t = pushed(L.cholesky, (a,), {}, {"a": np.triu(r(3, 3), 1)})
    np.testing.assert_allclose(t, 0, atol=1e-15)
    t = pushed(L.cholesky, (a,), {"upper": True}, {"a": np.tril(r(3, 3), -1)})
    np.testing.assert_allclose(t, 0, atol=1e-15)


def test_det_exact_at_singular_matrices():
    for a in (np.zeros((3, 3)), r(3, 1) @ r(1, 3), r(3, 2) @ r(2, 3)):
        check_frule(L.det, a)
    stack = np.stack([well_conditioned(3, 3), r(3, 2) @ r(2, 3)])
    check_frule(L.det, stack)


def test_matrix_power_formula():
    a, v = r(3, 3), r(3, 3)
    t = pushed(L.matrix_power, (a, 3), {}, {"a": v})
    np.testing.assert_allclose(t, v @ a @ a + a @ v @ a + a @ a @ v)


def test_lstsq_tangents_of_both_and_rank():
    a, b = r(5, 3), r(5, 2)
    v = r(5, 2)
    check_direction(L.lstsq, (a, b), {}, {"b": v}, {1: v})
    x, residuals, rank, s = pushed(L.lstsq, (a, b), {}, {"a": r(5, 3)})
    assert x.shape == (3, 2) and residuals.shape == (2,) and s.shape == (3,)
    assert rank is NO_TANGENT                 # an int: no tangent space
    low = r(2, 3)
    a_low = r(5, 2) @ low               # rank 2, and a move that keeps the rank
    v = r(5, 2) @ low
    x_t, _, _, _ = pushed(L.lstsq, (a_low, b[:, 0]), {}, {"a": v})
    step = 1e-6
    numeric = (L.lstsq(a_low + step * v, b[:, 0])[0] - L.lstsq(a_low - step * v, b[:, 0])[0]) / (2 * step)
    np.testing.assert_allclose(x_t, numeric, rtol=1e-5, atol=1e-7)


def test_pinv_rank_deficient():
    b, cc = r(5, 2), r(2, 4)
    a = b @ cc
    for direction in (r(5, 2) @ cc, b @ r(2, 4)):      # moves that keep the rank 2
        check_direction(L.pinv, (a,), {}, {"a": direction}, {0: direction}, rtol=1e-5)


# ------------------------------------------------------------------ norms
NORMS = [((5,), {}), ((3, 4), {}), ((3, 4), {"ord": "fro"}), ((3, 4), {"ord": "nuc"}), ((3, 4), {"ord": 2}),
         ((3, 4), {"ord": -2}), ((3, 4), {"ord": 1}), ((3, 4), {"ord": -1}), ((3, 4), {"ord": np.inf}),
         ((3, 4), {"ord": -np.inf}), ((3, 4), {"ord": 3, "axis": 1}), ((3, 4), {"ord": 1, "axis": 0, "keepdims": True}),
         ((2, 3, 4), {"axis": (0, 2)}), ((2, 3, 4), {"ord": "nuc", "axis": (2, 0)}), ((5,), {"ord": 0.5}),
         ((5,), {"ord": np.inf}), ((5,), {"ord": -np.inf}), ((5,), {"ord": 0}), ((2, 3, 4), {"axis": -1}),
         ((3, 4), {"keepdims": True})]


@pytest.mark.parametrize("shape, kwargs", NORMS, ids=str)
def test_norm(shape, kwargs):
    check_frule(L.norm, r(*shape), **kwargs)
    check_frule(L.norm, c(*shape), **kwargs)


def test_norm_of_zero_and_python_floats():
    t = pushed(L.norm, (np.zeros(3),), {}, {"x": r(3)})
    assert t == 0                          # the reverse rule's subgradient 0 at the kink
    check_frule(L.norm, [1.5, -2.0, 0.5])
    check_frule(L.norm, 1.5)


def test_array_api_norms():
    if not hasattr(L, "vector_norm"):
        pytest.skip("NumPy < 2")
    for kwargs in ({}, {"axis": 1, "ord": 1}, {"ord": np.inf, "keepdims": True}, {"axis": (0, 1), "ord": 3}):
        check_frule(L.vector_norm, r(3, 4), **kwargs)
    for kwargs in ({}, {"ord": "nuc"}, {"ord": 2, "keepdims": True}, {"ord": -np.inf}):
        check_frule(L.matrix_norm, r(2, 3, 4), **kwargs)
    check_frule(L.vector_norm, r(3, 4).astype(np.float32))


# ------------------------------------------------------------------ sign-, phase- and basis-blind checks
def test_svd_complex_through_phase_blind_losses():
    for a in (c(4, 3), c(3, 5), c(2, 3, 3)):
        k = min(a.shape[-2:])
        cc, w = c(*a.shape), r(*a.shape[:-2], k)

        def loss(out):
            u, s, vh = out
            return float(np.sum(np.real(np.conj(cc) * ((u[..., :k] * w[..., None, :]) @ vh[..., :k, :])))
                         + np.sum(w * s) + np.sum(np.abs(u[..., :k]) ** 2 * np.real(cc[..., :, :1])))

        check_through_loss(loss, L.svd, a, c(*a.shape), False)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 5, 3)], ids=str)
def test_svd_full_matrices_extra_columns(shape):
    """<D, U2 U2^T> and <E, V2 V2^T> only see the span of the extra columns."""
    a = r(*shape)
    m, n = shape[-2:]
    k = min(m, n)
    d, e, w = symmetric(*shape[:-2], m, m), symmetric(*shape[:-2], n, n), r(*shape[:-2], k)

    def loss(out):
        u, s, vh = out
        u2, v2 = u[..., k:], H(vh[..., k:, :])
        return float(np.sum(d * (u2 @ H(u2))) + np.sum(e * (v2 @ H(v2))) + np.sum(w * s)
                     + np.sum(d[..., :, :k] * (u[..., :k] * w[..., None, :]) @ vh[..., :k, :k]))

    check_through_loss(loss, L.svd, a, r(*shape), True)


def test_qr_complete_extra_columns():
    for a in (r(5, 3), r(2, 4, 2)):
        m = a.shape[-2]
        d = symmetric(*a.shape[:-2], m, m)
        n = a.shape[-1]

        def loss(out):
            q, rr = out
            return float(np.sum(d * (q[..., n:] @ H(q[..., n:]))) + np.sum(d[..., :, :n] * q[..., :n]) + np.sum(rr))

        check_through_loss(loss, L.qr, a, r(*a.shape), "complete")


def test_eigh_complex_through_phase_blind_losses():
    for a in (hermitian(3, 3), hermitian(2, 4, 4)):
        n = a.shape[-1]
        cc, w = c(*a.shape), r(*a.shape[:-1])

        def loss(out):
            values, v = out
            return float(np.sum(np.real(np.conj(cc) * ((v * w[..., None, :]) @ H(v)))) + np.sum(values * w[..., :n])
                         + np.sum(np.abs(v) ** 2 * np.real(cc)))

        check_through_loss(loss, L.eigh, a, c(*a.shape))       # any direction: eigh reads one triangle
        check_through_loss(loss, L.eigh, a, c(*a.shape), "U")


def test_eigh_and_eigvalsh_read_one_triangle():
    a = symmetric(3, 3)
    w_t, v_t = pushed(L.eigh, (a,), {}, {"a": np.triu(r(3, 3), 1)})
    np.testing.assert_allclose(w_t, 0, atol=1e-15)
    np.testing.assert_allclose(v_t, 0, atol=1e-15)
    t = pushed(L.eigvalsh, (a, "U"), {}, {"a": np.tril(r(3, 3), -1)})
    np.testing.assert_allclose(t, 0, atol=1e-15)
    w_t, _ = pushed(L.eigh, (a,), {}, {"a": np.eye(3)})    # d trace-like: every eigenvalue moves by 1
    np.testing.assert_allclose(w_t, 1)


def test_eig_keeps_unit_norm_and_a_real_largest_component():
    a = c(4, 4)
    w, v = L.eig(a)
    _, dv = pushed(L.eig, (a,), {}, {"a": c(4, 4)})
    np.testing.assert_allclose(np.real(np.sum(np.conj(v) * dv, axis=0)), 0, atol=1e-12)
    largest = np.argmax(np.abs(v), axis=0)
    ratio = dv[largest, range(4)] / v[largest, range(4)]
    np.testing.assert_allclose(np.imag(ratio), 0, atol=1e-12)


def test_qr_raw_and_einsum_forms_are_refused():
    a = r(4, 3)
    with pytest.raises(NotImplementedError, match="raw"):
        pushed(L.qr, (a, "raw"), {}, {"a": r(4, 3)})


def test_zero_tangents_push_zero():
    a = well_conditioned(3, 3)
    assert forward_rule(L.inv).pushforward((a,), {}, {"a": ZERO}, L.inv(a)) is ZERO


# ------------------------------------------------------------------ every differentiable rule has a forward rule
def test_every_differentiable_rule_has_a_forward_rule():
    import s2sad.rules.numpy_linalg as module

    tree = ast.parse(open(module.__file__).read())
    names = {ast.unparse(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) in ("defvjp", "defvjp_all", "defrrule") and node.args}
    functions = [eval(name, {"np": np}) for name in names]
    assert len(functions) >= 25
    rules = [rule for rule in all_rules() if any(rule.function is f for f in functions) and not rule.nondifferentiable]
    assert len(rules) == len(functions)
    missing = [rule.name for rule in rules if forward_rule(rule.function) is None]
    assert not missing, f"no forward rule for {missing}"
