"""Forward rules (jvps) of rules/scipy_linalg.py: finite differences, dense closed forms, storage of
the matrix, dtypes, agreement with the reverse rules, and coverage (skipped without SciPy)."""
import numpy as np
import pytest

linalg = pytest.importorskip("scipy.linalg")

import s2sad  # noqa: E402
from s2sad.forward_check import check_frule, pushforward as push  # noqa: E402
from s2sad.registry.forward import forward_rule  # noqa: E402
from s2sad.registry import all_rules, rule_for  # noqa: E402
from s2sad.runtime.tangents import ZERO, is_zero  # noqa: E402
from test_scipy_linalg import TRIANGULAR  # noqa: E402  (the same triangles and trans values)

rng = np.random.default_rng(32)


def r(*shape):
    return rng.standard_normal(shape)


def well_conditioned(n):
    return r(n, n) + 4 * np.eye(n)


def spd(n):
    a = r(n, n)
    return a @ a.T + n * np.eye(n)


def symmetric(n):
    a = r(n, n)
    return (a + a.T) / 2


def check_direction(f, args, i, v, rtol=1e-6, atol=1e-9):
    """The pushforward of ``v`` (a chosen tangent of argument ``i``) against central differences."""
    params = list(forward_rule(f).signature.parameters)
    tangent = push(f, *args, tangents={params[i]: v})
    h = 1e-6
    up, down = list(args), list(args)
    up[i], down[i] = args[i] + h * v, args[i] - h * v
    np.testing.assert_allclose(tangent, (f(*up) - f(*down)) / (2 * h), rtol=rtol, atol=atol)
    return tangent


def assert_transposes(f, *args, directions=None, **kwargs):
    """<jvp(v), w> = <v, vjp(w)> (real inputs) for random v of each array argument and a random w."""
    w = r(*np.shape(f(*args, **kwargs)))
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    cotangents = pullback(w)[1:]
    params = list(forward_rule(f).signature.parameters)
    for i, (x, ct) in enumerate(zip(args, cotangents)):
        if not isinstance(x, np.ndarray) or x.dtype.kind != "f":
            continue
        v = r(*x.shape) if directions is None or directions[i] is None else directions[i]
        tangent = push(f, *args, tangents={params[i]: v}, **kwargs)
        np.testing.assert_allclose(np.sum(tangent * w), np.sum(ct * v), rtol=1e-8, err_msg=f"argument {i}")


# ------------------------------------------------------------------ solve_triangular
@pytest.mark.parametrize("trans, lower, unit_diagonal", TRIANGULAR)
def test_solve_triangular(trans, lower, unit_diagonal):
    a = well_conditioned(4)                                         # the other triangle is not read
    for b in (r(4), r(4, 2)):
        ta, tb, *_ = check_frule(linalg.solve_triangular, a, b, trans, lower, unit_diagonal)
        assert ta.shape == tb.shape == b.shape
    if trans in (0, 1, "N", "T"):
        assert_transposes(linalg.solve_triangular, a, r(4, 2), trans=trans, lower=lower, unit_diagonal=unit_diagonal)


def test_solve_triangular_closed_form_dtypes_and_complex():
    a, b, v = np.triu(well_conditioned(4)), r(4), np.triu(r(4, 4))
    x = np.linalg.solve(a, b)
    np.testing.assert_allclose(push(linalg.solve_triangular, a, b, tangents={"a": v}),
                               -np.linalg.solve(a, v @ x), rtol=1e-10)
    ta, tb = check_frule(linalg.solve_triangular, a.astype(np.float32), r(4).astype(np.float32))
    assert ta.dtype == tb.dtype == np.float32
    c = well_conditioned(3) + 1j * r(3, 3)
    for trans in ("N", "T", "C"):
        ta, tb, _ = check_frule(linalg.solve_triangular, c, r(3) + 1j * r(3), trans, lower=True)
        assert ta.dtype == tb.dtype == np.complex128
    with pytest.raises(s2sad.S2SADError, match="overwrite_b"):  # b, read after, may hold the solution: refused
        check_frule(linalg.solve_triangular, a, r(4, 2), overwrite_b=True)


# ------------------------------------------------------------------ cho_solve
@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve(lower):
    m = spd(4)
    c = linalg.cho_factor(m, lower=lower)[0]                        # junk in the other triangle: not read
    for b in (r(4), r(4, 2)):
        (tc, tb) = check_frule(linalg.cho_solve, (c, lower), b)
        assert tc.shape == tb.shape == b.shape
    # the factor's tangent against the dense solve: dx = -M^-1 dM x, M = L L^T or U^T U
    b, v = r(4), r(4, 4)
    factor = np.tril(c) if lower else np.triu(c)
    dfactor = np.tril(v) if lower else np.triu(v)
    dm = dfactor @ factor.T + factor @ dfactor.T if lower else dfactor.T @ factor + factor.T @ dfactor
    np.testing.assert_allclose(push(linalg.cho_solve, (c, lower), b, tangents={"c_and_lower": (v, None)}),
                               -np.linalg.solve(m, dm @ np.linalg.solve(m, b)), rtol=1e-10)
    assert push(linalg.cho_solve, (c, lower), b, tangents={"c_and_lower": ZERO}) is ZERO
    tc, tb = check_frule(linalg.cho_solve, (c.astype(np.float32), lower), r(4).astype(np.float32))
    assert tc.dtype == tb.dtype == np.float32
    complex_m = spd(3) + 0j
    complex_m[0, 1] += 0.5j
    complex_m[1, 0] -= 0.5j
    cc = linalg.cho_factor(complex_m, lower=lower)[0]
    check_frule(linalg.cho_solve, (cc, lower), r(3) + 1j * r(3))
    # the transpose of the reverse rule (the flag gets no cotangent)
    w = r(4, 2)
    b = r(4, 2)
    (dc, _), db = rule_for(linalg.cho_solve).rrule((factor, lower), b)[1](w)[1:3]
    tangent = push(linalg.cho_solve, (factor, lower), b, tangents={"c_and_lower": (v, None)})
    np.testing.assert_allclose(np.sum(tangent * w), np.sum(dc * v), rtol=1e-9)


# ------------------------------------------------------------------ solve_banded
def banded(lower_width, upper_width, n):
    ab = r(lower_width + upper_width + 1, n)
    ab[upper_width] += 5                                            # a dominant diagonal
    return ab


def dense(lower_width, upper_width, ab):
    n = ab.shape[1]
    return np.array([[ab[upper_width + i - j, j] if -upper_width <= i - j <= lower_width else 0.0
                      for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("widths", [(0, 0), (1, 1), (2, 1), (0, 2), (3, 0)], ids=str)
def test_solve_banded(widths):
    ab = banded(*widths, 6)                                         # padding entries are not read
    for b in (r(6), r(6, 2)):
        twidths, tab, tb = check_frule(linalg.solve_banded, widths, ab, b)
        assert twidths is None and tab.shape == tb.shape == b.shape
    b, v = r(6), r(*ab.shape)
    a, da = dense(*widths, ab), dense(*widths, v)
    np.testing.assert_allclose(push(linalg.solve_banded, widths, ab, b, tangents={"ab": v}),
                               -np.linalg.solve(a, da @ np.linalg.solve(a, b)), rtol=1e-10)
    assert_transposes(linalg.solve_banded, widths, ab, r(6, 2))
    tab, tb = check_frule(linalg.solve_banded, widths, ab.astype(np.float32), r(6).astype(np.float32))[1:]
    assert tab.dtype == tb.dtype == np.float32


# ------------------------------------------------------------------ Sylvester equations, sqrtm, expm
def test_solve_sylvester():
    a, b = well_conditioned(4), well_conditioned(3)
    check_frule(linalg.solve_sylvester, a, b, r(4, 3))
    check_frule(linalg.solve_sylvester, a, -b.T, r(4, 3))
    check_frule(linalg.solve_sylvester, a + 1j * r(4, 4), b + 1j * r(3, 3), r(4, 3) + 1j * r(4, 3))
    # a real tangent of a complex matrix: the tangent solves A dX + dX B = -X dB
    ac, bc, v = a + 1j * r(4, 4), b + 1j * r(3, 3), r(3, 3)
    x = linalg.solve_sylvester(ac, bc, r(4, 3))
    t = push(linalg.solve_sylvester, ac, bc, ac @ x + x @ bc, tangents={"b": v})
    np.testing.assert_allclose(ac @ t + t @ bc, -x @ v, atol=1e-10)
    assert_transposes(linalg.solve_sylvester, a, b, r(4, 3))
    tangents = check_frule(linalg.solve_sylvester, a.astype(np.float32), b.astype(np.float32),
                           r(4, 3).astype(np.float32))
    assert all(t.dtype == np.float32 for t in tangents)


def test_sqrtm():
    m = spd(4)
    check_frule(linalg.sqrtm, m)
    check_frule(linalg.sqrtm, well_conditioned(3) @ well_conditioned(3).T + np.triu(r(3, 3)))
    (t32,) = check_frule(linalg.sqrtm, spd(3).astype(np.float32))
    assert t32.dtype == np.float32
    assert_transposes(linalg.sqrtm, m)
    # for a symmetric matrix and tangent, in the eigenbasis: dS_ij = dM_ij / (sqrt(l_i) + sqrt(l_j))
    values, vectors = np.linalg.eigh(m)
    v = symmetric(4)
    roots = np.sqrt(values)
    expected = vectors @ ((vectors.T @ v @ vectors) / (roots[:, None] + roots[None, :])) @ vectors.T
    np.testing.assert_allclose(check_direction(linalg.sqrtm, (m,), 0, v), expected, rtol=1e-8, atol=1e-12)
    q = np.linalg.qr(r(3, 3))[0]
    (tc,) = check_frule(linalg.sqrtm, q @ np.diag([-1.0, 4.0, 2.0]) @ q.T)  # a complex square root
    assert tc.dtype == np.complex128


def test_expm():
    check_frule(linalg.expm, r(4, 4))
    (t,) = check_frule(linalg.expm, r(2, 3, 3))                     # a stack
    assert t.shape == (2, 3, 3)
    (t32,) = check_frule(linalg.expm, r(3, 3).astype(np.float32))
    assert t32.dtype == np.float32
    (tc,) = check_frule(linalg.expm, r(3, 3) + 1j * r(3, 3))
    assert tc.dtype == np.complex128
    assert_transposes(linalg.expm, r(4, 4))
    assert_transposes(linalg.expm, r(2, 3, 3))
    a, v = r(4, 4), r(4, 4)
    block = linalg.expm(np.block([[a, v], [np.zeros((4, 4)), a]]))  # the Frechet derivative as a block
    np.testing.assert_allclose(push(linalg.expm, a, tangents={"A": v}), block[:4, 4:], rtol=1e-10)


def test_lu_factor_refuses_a_tangent_forward_too():
    with pytest.raises(s2sad.MissingRuleError):
        push(linalg.lu_factor, r(3, 3) + 3 * np.eye(3), tangents={"a": r(3, 3)})


# ------------------------------------------------------------------ coverage
def test_every_differentiable_rule_has_a_forward_rule():
    rule_for(linalg.expm)                                           # registers the module's rules
    rules = [r for r in all_rules() if r.library == "scipy" and r.name.startswith("scipy.linalg.")]
    differentiable = [r for r in rules if not r.nondifferentiable]
    assert len(differentiable) >= 6, [r.name for r in differentiable]
    missing = [r.name for r in differentiable if forward_rule(r.function) is None]
    assert not missing, f"no forward rule for {missing}"
    for r in differentiable:
        forward = forward_rule(r.function)
        assert forward.rule is r
        for param, vjp in r.vjps.items():
            assert (forward.jvps.get(param) is None) == (vjp is None), (r.name, param)


# ------------------------------------------------------------------ cholesky and cho_factor
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_factor(lower):
    a = np.tril(spd(4)) + np.triu(r(4, 4), 1)                        # the upper triangle is not positive definite
    a = a if lower else a.T
    check_frule(linalg.cholesky, a, lower=lower)
    check_frule(linalg.cho_factor, a, lower=lower)                   # the unused triangle: a copy of a's
    assert is_zero(push(linalg.cho_factor, a, lower, tangents={"a": r(4, 4)})[1])   # the flag has none
    (t32,) = check_frule(linalg.cholesky, a.astype(np.float32), lower=lower)
    assert t32.dtype == np.float32
    assert_transposes(linalg.cholesky, a, lower=lower)
    v, w = r(4, 4), r(4, 4)
    c_tangent = push(linalg.cho_factor, a, lower, tangents={"a": v})[0]
    (dc,) = rule_for(linalg.cho_factor).rrule(a, lower)[1]((w, None))[1:2]
    np.testing.assert_allclose(np.sum(c_tangent * w), np.sum(dc * v), rtol=1e-9)
    complex_a = spd(3) + 0j
    complex_a[0, 1] += 0.5j
    complex_a[1, 0] -= 0.5j
    check_frule(linalg.cholesky, complex_a, lower=lower)
    check_frule(linalg.cho_factor, complex_a, lower=lower)
