"""Rules of rules/scipy_linalg.py: finite differences, dense closed forms, storage of the matrix (skipped without SciPy)."""
import numpy as np
import pytest

linalg = pytest.importorskip("scipy.linalg")

import s2sad  # noqa: E402,F401
from s2sad.registry import rule_for  # noqa: E402
from s2sad.runtime.tangents import NO_TANGENT  # noqa: E402
from s2sad.testing import check_rrule, numerical_gradient  # noqa: E402

rng = np.random.default_rng(31)


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


def cotangents(f, *args, g, count, **kwargs):
    _, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(g)[1:1 + count]


# ------------------------------------------------------------------ solve_triangular
# Each letter with each triangle and diagonal; the rule reads 0, 1, 2 as "N", "T", "C" before
# anything else, so each number once.
TRIANGULAR = [(trans, lower, unit_diagonal) for trans in "NTC" for lower in (False, True)
              for unit_diagonal in (False, True)] + [(0, False, True), (1, True, False), (2, True, True)]


@pytest.mark.parametrize("trans, lower, unit_diagonal", TRIANGULAR)
def test_solve_triangular(trans, lower, unit_diagonal):
    a = well_conditioned(4)
    for b in (r(4), r(4, 3)):
        check_rrule(linalg.solve_triangular, a, b, trans, lower, unit_diagonal)


def test_solve_triangular_closed_form_and_dtypes():
    a, b, g = well_conditioned(4), r(4, 2), r(4, 2)
    da, db = cotangents(linalg.solve_triangular, a, b, g=g, count=2, lower=True)
    triangle = np.tril(a)
    x = np.linalg.solve(triangle, b)
    np.testing.assert_allclose(db, np.linalg.solve(triangle.T, g), rtol=1e-12)
    np.testing.assert_allclose(da, np.tril(-np.linalg.solve(triangle.T, g) @ x.T), rtol=1e-12)
    assert np.all(np.triu(da, 1) == 0)                 # the upper triangle is never read
    da, db = check_rrule(linalg.solve_triangular, a.astype(np.float32), r(4).astype(np.float32))
    assert da.dtype == db.dtype == np.float32
    check_rrule(linalg.solve_triangular, a, r(4), lower=True, trans="T")


# ------------------------------------------------------------------ cho_solve
@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve(lower):
    m = spd(4)
    c = linalg.cho_factor(m, lower=lower)[0]
    c = np.tril(c) if lower else np.triu(c)             # cho_factor leaves junk in the other triangle
    for b in (r(4), r(4, 2)):
        (dc, dlower), db = check_rrule(linalg.cho_solve, (c, lower), b)
        assert dlower is NO_TANGENT
    g = r(4)
    ((dc, _), db) = cotangents(linalg.cho_solve, (c, lower), b[:, 0], g=g, count=2)
    np.testing.assert_allclose(db, np.linalg.solve(m, g), rtol=1e-10)
    x = np.linalg.solve(m, b[:, 0])
    dm = -np.outer(np.linalg.solve(m, g), x)
    expected = np.tril((dm + dm.T) @ c) if lower else np.triu(c @ (dm + dm.T))
    np.testing.assert_allclose(dc, expected, rtol=1e-10)


@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve_ignores_what_cho_factor_leaves_in_the_other_triangle(lower):
    # the junk must get no cotangent and change no other: the rule reads c's triangle only
    c = linalg.cho_factor(spd(4), lower=lower)[0]
    assert np.any((np.triu(c, 1) if lower else np.tril(c, -1)) != 0)
    (dc, dlower), db = check_rrule(linalg.cho_solve, (c, lower), r(4))
    np.testing.assert_array_equal(np.triu(dc, 1) if lower else np.tril(dc, -1), 0.0)


@pytest.mark.parametrize("lower", [False, True])
def test_cho_factor(lower):
    m = spd(4)
    m[0, 3] += 0.5  # not symmetric: the factor reads one triangle, the other is passed through
    dm = check_rrule(linalg.cho_factor, m, lower)[0]
    assert dm.shape == m.shape


def solve_through_cho_factor(a, b, lower):
    c_and_lower = linalg.cho_factor(a, lower=lower)
    x = linalg.cho_solve(c_and_lower, b)
    return np.sum(x ** 2) + np.sum(np.log(np.diag(c_and_lower[0])))


@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve_of_cho_factor_end_to_end_in_both_modes(lower):
    from finite_differences import numerical_gradient
    a, b = spd(4), r(4)
    expected = numerical_gradient(lambda m: solve_through_cho_factor(m, b, lower), [a], 0)
    gradient = s2sad.grad(solve_through_cho_factor)(a, b, lower)
    np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-7)
    v = r(4, 4)
    _, tangent = s2sad.jvp(solve_through_cho_factor, (a, b, lower), (v, np.zeros(4), False))
    np.testing.assert_allclose(tangent, np.sum(expected * v), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ solve_banded
def banded(lower_width, upper_width, n):
    ab = r(lower_width + upper_width + 1, n)
    ab[upper_width] += 5                                 # a dominant diagonal
    return ab


def dense(lower_width, upper_width, ab):
    n = ab.shape[1]
    return np.array([[ab[upper_width + i - j, j] if -upper_width <= i - j <= lower_width else 0.0
                      for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("widths", [(0, 0), (1, 1), (2, 1), (0, 2), (3, 0)], ids=str)
def test_solve_banded(widths):
    ab = banded(*widths, 6)
    for b in (r(6), r(6, 2)):
        _, dab, db = check_rrule(linalg.solve_banded, widths, ab, b)
    g = r(6)
    dab, db = cotangents(linalg.solve_banded, widths, ab, b[:, 0], g=g, count=3)[1:]
    a = dense(*widths, ab)
    np.testing.assert_allclose(db, np.linalg.solve(a.T, g), rtol=1e-10)
    da = -np.outer(np.linalg.solve(a.T, g), np.linalg.solve(a, b[:, 0]))
    lower_width, upper_width = widths
    for row in range(ab.shape[0]):
        for j in range(6):
            i = row - upper_width + j
            expected = da[i, j] if 0 <= i < 6 else 0.0    # padding entries are not read
            np.testing.assert_allclose(dab[row, j], expected, rtol=1e-10, atol=1e-14)


# ------------------------------------------------------------------ Sylvester equations, sqrtm, expm
def test_solve_sylvester():
    a, b = well_conditioned(4), well_conditioned(3)
    check_rrule(linalg.solve_sylvester, a, b, r(4, 3))
    check_rrule(linalg.solve_sylvester, a, -b.T, r(4, 3))
    g = r(4, 3)
    da, db, dq = cotangents(linalg.solve_sylvester, a, b, r(4, 3), g=g, count=3)
    np.testing.assert_allclose(a.T @ dq + dq @ b.T, g, atol=1e-10)     # dq solves the transposed equation
    (dq32,) = check_rrule(linalg.solve_sylvester, a.astype(np.float32), b.astype(np.float32),
                          r(4, 3).astype(np.float32))[2:]
    assert dq32.dtype == np.float32


def test_sqrtm():
    check_rrule(linalg.sqrtm, spd(4), directions=[symmetric(4)])
    check_rrule(linalg.sqrtm, spd(3))
    check_rrule(linalg.sqrtm, well_conditioned(3) @ well_conditioned(3).T + np.triu(r(3, 3)))


def test_sqrtm_closed_form_for_symmetric_matrices():
    m = spd(4)
    values, vectors = np.linalg.eigh(m)
    g = symmetric(4)
    (dm,) = cotangents(linalg.sqrtm, m, g=g, count=1)
    roots = np.sqrt(values)
    inner = (vectors.T @ g @ vectors) / (roots[:, None] + roots[None, :])
    np.testing.assert_allclose(dm, vectors @ inner @ vectors.T, rtol=1e-8, atol=1e-12)


def test_expm():
    check_rrule(linalg.expm, r(4, 4))
    check_rrule(linalg.expm, r(2, 3, 3))                                 # a stack
    (da,) = check_rrule(linalg.expm, r(3, 3).astype(np.float32))
    assert da.dtype == np.float32
    a, g = r(4, 4), r(4, 4)
    (da,) = cotangents(linalg.expm, a, g=g, count=1)
    block = linalg.expm(np.block([[a.T, g], [np.zeros((4, 4)), a.T]]))  # the Frechet derivative as a block
    np.testing.assert_allclose(da, block[:4, 4:], rtol=1e-10)
    (da,) = cotangents(linalg.expm, np.diag([1.0, 2.0]), g=np.eye(2), count=1)
    np.testing.assert_allclose(da, np.diag(np.exp([1.0, 2.0])), rtol=1e-12)


def lu_of(a):
    lu, _ = linalg.lu_factor(a)
    return np.sum(lu)


def test_lu_factor_refuses_a_derivative():
    """Its factors move with A: no rule, so a derivative is refused (it was once a silent 0)."""
    rule = rule_for(linalg.lu_factor)
    assert not rule.nondifferentiable and rule.name == "scipy.linalg.lu_factor"
    with pytest.raises(s2sad.MissingRuleError) as caught:
        s2sad.grad(lu_of)(well_conditioned(3))
    assert "lu_factor" in str(caught.value) and "test_scipy_linalg.py" in str(caught.value)


# ------------------------------------------------------------------ cholesky and cho_factor: one triangle read
def spd_with_another_upper_triangle(n, dtype=np.float64):
    """A positive definite lower triangle, and an upper one LAPACK must not read."""
    return (np.tril(spd(n)) + np.triu(r(n, n), 1)).astype(dtype)


@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_and_cho_factor(lower):
    a = spd_with_another_upper_triangle(4)
    a = a if lower else a.T                                           # the triangle read is positive definite
    check_rrule(linalg.cholesky, a, lower=lower)
    check_rrule(linalg.cho_factor, a, lower=lower)                    # its unused triangle: a copy of a's
    (da,) = check_rrule(linalg.cholesky, a.astype(np.float32), lower=lower)
    assert da.dtype == np.float32
    (da,) = check_rrule(linalg.cho_factor, a.astype(np.float32), lower=lower)
    assert da.dtype == np.float32


def gp_log_likelihood(K, y):
    factor = linalg.cho_factor(K)
    alpha = linalg.cho_solve(factor, y)
    return -0.5 * np.dot(y, alpha) - np.sum(np.log(np.diag(factor[0])))


def solve_through_lower_factor(K, y):
    return np.sum(linalg.cho_solve(linalg.cho_factor(K, lower=True), y) ** 2)


def sum_of_the_factor_storage(K):
    c, lower = linalg.cho_factor(K)
    return np.sum(c ** 2)


@pytest.mark.parametrize("f", [gp_log_likelihood, solve_through_lower_factor])
def test_cho_solve_of_cho_factor_end_to_end(f):
    """The unused triangle of cho_factor's c holds garbage cho_solve never reads: finite differences
    of the whole program in every entry of K (read or not) give the gradient."""
    K, y = spd(4) + np.triu(r(4, 4), 1), r(4)
    K = K.T if f is solve_through_lower_factor else K
    dK, dy = s2sad.grad(f, argnums=(0, 1))(K, y)
    np.testing.assert_allclose(dK, numerical_gradient(lambda k: f(k, y), K), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dy, numerical_gradient(lambda v: f(K, v), y), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dK[np.tril_indices(4, -1) if f is gp_log_likelihood else np.triu_indices(4, 1)], 0)


def test_reading_cho_factor_storage_is_its_copy_of_a():
    K = spd(3) + np.tril(r(3, 3), -1)
    np.testing.assert_allclose(s2sad.grad(sum_of_the_factor_storage)(K),
                               numerical_gradient(sum_of_the_factor_storage, K), rtol=1e-6, atol=1e-8)


def test_overwrite_a_is_refused():
    with pytest.raises(s2sad.S2SADError, match="overwrite_a"):  # as the rule is called (bound_to_rule)
        _, pullback = rule_for(linalg.cholesky).rrule(spd(3), overwrite_a=True)
        pullback(np.eye(3))


def _triangular_solve_then_its_right_hand_side_read(x):
    A = np.tril(np.outer(x, x)) + 3.0 * np.eye(3)
    b = x * 2.0
    y = linalg.solve_triangular(A, b, lower=True, overwrite_b=True)  # b may now hold y
    return np.sum(y) + np.sum(b ** 2)


def _cho_solve_through_a_value(x):
    b = x * 2.0
    solve = linalg.cho_solve
    y = solve(linalg.cho_factor(np.outer(x, x) + 3.0 * np.eye(3)), b, overwrite_b=True)
    return np.sum(y) + np.sum(b ** 2)


@pytest.mark.parametrize("f, line", [(_triangular_solve_then_its_right_hand_side_read, "y = linalg.solve_triangular"),
                                     (_cho_solve_through_a_value, "y = solve(")])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_overwrite_b_is_refused_at_the_user_s_line(f, line, mode):
    # SciPy left the solution in b, read after: every mode differentiated b as unchanged (grad [1.38, -0.98, 1.91]
    # of the first where central differences give [0.70, 0.42, 0.32])
    x = np.array([0.3, -0.7, 1.1])
    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.ones(3),))}[mode]
    with pytest.raises(s2sad.S2SADError, match="overwrite_b") as raised:
        run()
    assert raised.value.location.text.strip().startswith(line)


@pytest.mark.parametrize("lower", [False, True])
def test_cho_solve_ignores_the_unused_triangle_of_cho_factor(lower):
    c = linalg.cho_factor(spd(4), lower=lower)[0]                     # a's entries left in the other triangle
    for b in (r(4), r(4, 2)):
        (dc, db) = check_rrule(linalg.cho_solve, (c, lower), b, directions=[(r(4, 4), None), r(*b.shape)])
        unread = np.triu(dc[0], 1) if lower else np.tril(dc[0], -1)
        np.testing.assert_array_equal(unread, 0)


# ------------------------------------------------------------------ found by the sweep (test_systematic.py)
@pytest.mark.parametrize("function, kwargs", [(linalg.sqrtm, {}), (linalg.expm, {}), (linalg.cholesky, {}),
                                              (linalg.cho_factor, {})], ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("a", [2.0, np.array(2.0), np.array([2.0])], ids=["float", "0-d", "1-element"])
def test_a_number_for_a_matrix_is_refused(function, kwargs, a):
    """SciPy reads a number as a 1 x 1 matrix here, and sqrtm of one returns exp(a) (SciPy 1.17):
    the rule differentiated a square root (0.0265 against 1.5497 by central differences)."""
    y, pullback = rule_for(function).rrule(a, **kwargs)
    cotangent = (np.ones((1, 1)), False) if function is linalg.cho_factor else np.ones((1, 1))
    with pytest.raises(s2sad.S2SADError, match="matrices"):
        pullback(cotangent)


def sylvester_sum(a, b, q):
    return np.sum(linalg.solve_sylvester(a, b, q))


@pytest.mark.parametrize("a, b", [(np.zeros((0, 0)), well_conditioned(2)), (np.zeros((2, 0)), well_conditioned(2)),
                                  (well_conditioned(3), np.zeros(0))], ids=["0x0", "2x0", "b-empty"])
def test_solve_sylvester_of_an_empty_matrix_into_a_full_q_is_refused(a, b):
    """SciPy solves nothing when a or b is empty and returns np.empty of q's shape: memory left
    uninitialised, no function of the arguments (the rules crashed in mH or unbroadcast)."""
    q = r(3, 2)
    with pytest.raises(s2sad.S2SADError, match="uninitialised") as caught:
        s2sad.grad(sylvester_sum, argnums=2)(a, b, q)
    assert "test_scipy_linalg.py" in str(caught.value)
    with pytest.raises(s2sad.S2SADError, match="uninitialised"):
        s2sad.jvp(sylvester_sum, (a, b, q), (np.zeros_like(a), np.zeros_like(b), r(3, 2)))


def test_solve_sylvester_of_empty_matrices_has_empty_derivatives():
    """a 0 x 0, q 0 x 2: the solution is 0 x 2, so every derivative is zero (by hand)."""
    a, b, q = np.zeros((0, 0)), well_conditioned(2), np.zeros((0, 2))
    da, db, dq = s2sad.grad(sylvester_sum, argnums=(0, 1, 2))(a, b, q)
    assert (np.shape(da), np.shape(dq)) == ((0, 0), (0, 2))
    np.testing.assert_array_equal(db, np.zeros((2, 2)))
    _, tangent = s2sad.jvp(sylvester_sum, (a, b, q), (a, r(2, 2), q))
    assert tangent == 0.0


def _triangular_solve_given_keywords_by_star_star(x):
    options = {"lower": True}
    return np.sum(linalg.solve_triangular(np.tril(np.outer(x, x)) + 3.0 * np.eye(3), x, **options) ** 2)


def test_a_rule_called_with_star_star_keywords_hands_back_values():
    # the cotangents of the positional arguments came back as the rule's Thunks: TypeError in unbroadcast
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(s2sad.grad(_triangular_solve_given_keywords_by_star_star)(x),
                               numerical_gradient(_triangular_solve_given_keywords_by_star_star, x), rtol=1e-6, atol=1e-8)
