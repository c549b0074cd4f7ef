"""The probe corpus (tests/probe_programs.py, cases in tests/probe_cases.py), differentiated untouched
in grad, value_and_grad, vjp, jvp, hvp and grad(compile=True) against central finite differences
in float64 of the plain NumPy function; grad checked to leave the caller's arrays as they were and
to keep float32 in float32. Programs s2sad refuses in a mode are listed with the error and message
expected. Then the bugs the corpus found, reduced, each against its own reference."""

import numpy as np
import pytest

import probe_cases as cases
import s2sad
from s2sad.errors import ArgumentError, NonFiniteDerivativeError, UnsupportedArgumentsError, UnsupportedSyntaxError
from corpus_cases import check_or_refused, in_every_mode
from finite_differences import mixed_second_difference, numerical_gradient

_IN_PLACE = "s2sad differentiates an in-place change only under the one name written"
_VIEW_WRITES = {
    # name: (error, message fragment)
    "reshape_view_written": (s2sad.UnsupportedSyntaxError, r"changes `y` in place, which may be `x`.*the caller passed in `x`"),
    "transpose_view_plus_equals": (s2sad.UnsupportedSyntaxError, r"changes the ndarray `Bt` in place, and `B` shares it"),
    "slice_view_of_a_copy": (s2sad.UnsupportedSyntaxError, r"changes the ndarray `tail` in place, and `y` shares it"),
    "ravel_view_written": (s2sad.UnsupportedSyntaxError, r"`flat\[\.\.\.\] = \.\.\.` changes memory that `B` shares"),
    "asarray_is_the_same_object": (s2sad.UnsupportedSyntaxError, r"`z\[\.\.\.\] = \.\.\.` changes memory that `y` shares"),
    "reshape_of_a_slice_written": (s2sad.UnsupportedSyntaxError, r"`row\[\.\.\.\] = \.\.\.` changes memory that `B` shares"),
    "put_and_place": (s2sad.UnsupportedSyntaxError, r"`np\.put\(\.\.\.\)` changes an array in place"),
    "put_values_from_x": (s2sad.UnsupportedSyntaxError, r"`np\.put\(\.\.\.\)` changes an array in place"),
    "place_values": (s2sad.UnsupportedSyntaxError, r"`np\.place\(\.\.\.\)` changes an array in place"),
    "shape_assignment": (s2sad.UnsupportedSyntaxError, r"`y\.shape = \.\.\.` changes an object the function did not make"),
    "resize_method": (s2sad.UnsupportedSyntaxError, r"`\.resize\(\.\.\.\)` changes a value in place"),
}
REFUSED = {}
for _mode in cases.MODES + ("caller_unchanged", "float32"):
    for _name, (_error, _message) in _VIEW_WRITES.items():
        REFUSED[(_mode, _name)] = (_error, r"probe_programs\.py:\d+:\d+: .*" + _message, _IN_PLACE)
# at A = I every eigenvalue of A A^T + I repeats: the sum of a function of them has a gradient, but
# forward mode cannot know its tangents will be summed (rules/repeated_spectra.py)
REFUSED[("jvp", "repeated_eigenvalue_trace")] = (
    NonFiniteDerivativeError, r"probe_programs\.py:\d+:1: .*repeated eigenvalue or singular value",
    "forward eigvalsh at repeated eigenvalues: the values would split, each with one-sided derivatives only")
REFUSED[("hvp", "repeated_eigenvalue_trace")] = (
    UnsupportedArgumentsError, r"probe_programs\.py:\d+:5: .*np\.linalg\.eigvalsh at a matrix whose eigenvalues repeat",
    "the second derivative goes through eigenvectors, which a repeated eigenvalue leaves undefined")
REFUSED[("hvp", "det_of_singular")] = (
    UnsupportedArgumentsError, r"numpy_linalg\.py:\d+:5: .*singular values include 0.*reached from .*probe_programs\.py:\d+:5",
    "det's Hessian at a singular matrix goes through the SVD's vectors of the zero singular value (before: a wrong number)")

# y = np.where(x > 1.5, np.nan, x) then y ** 2: forward, the NaN's tangent is 2 * NaN * 0, as that of a NaN made
# at the point (p * np.log(p) at p = 0, where the function has no derivative) is: np.nansum cannot tell them apart
for _mode, _message in (("jvp", r"probe_programs\.py:\d+:\d+: .*np\.nansum skips a NaN whose tangent is not finite"),
                       ("hvp", r"np\.nansum skips a NaN whose tangent is not finite.*reached from .*probe_programs\.py")):
    REFUSED[(_mode, "nan_aware_reductions")] = (
        UnsupportedArgumentsError, _message,
        "forward nan-reductions refuse a NaN with a non-finite tangent (rules/numpy_reductions.py, steady_nans)")
# np.abs(x - med) is 0 at the median element, and a second derivative refuses an abs at 0 it differentiates
# (analysis/exact_points.py: np.abs(x) ** 2 has Hessian 2 there, which sign(0) = 0 made 0); here that element
# moves with the median and never crosses the kink, which the check, without its tangent, cannot tell
REFUSED[("hvp", "percentile_free_robust_scale")] = (
    UnsupportedSyntaxError, r"probe_programs\.py:\d+:5: .*`np\.abs\(\.\.\.\) == 0` finds a differentiated value",
    "an abs at 0 in a second derivative, whose input here stays put (a refusal, not a wrong number)")
MODES = cases.MODES + ("caller_unchanged", "float32")


def _run(name, mode):
    if mode == "caller_unchanged":
        cases.check_caller_unchanged(name)
    elif mode == "float32":
        cases.check_float32(name)
    else:
        cases.check(name, mode)


@pytest.mark.parametrize(("name", "mode"), in_every_mode(cases.CORPUS, MODES))
def test_program_in_every_mode(name, mode):
    check_or_refused(_run, name, mode, REFUSED)


def test_the_corpus_is_large_and_mostly_differentiated():
    assert 60 <= len(cases.CORPUS) <= 90
    assert {name for _, name in REFUSED} <= set(cases.CORPUS)
    assert len(REFUSED) <= 15 * len(MODES)


# ---------------------------------------------------------------- bug 1: spectral rules at repeated values
def _expm_symmetric(S):
    w, V = np.linalg.eigh(S)
    return np.sum((V * np.exp(w)) @ V.T)


def _smallest_eigenvalue(S):
    return np.linalg.eigvalsh(S)[0]


def _sqrtm_weighted(S):
    w, V = np.linalg.eigh(S)
    return np.sum(V @ np.diag(np.sqrt(w)) @ V.T * np.arange(9.0).reshape(3, 3))


def _largest_singular_value(A):
    return np.linalg.svd(A, compute_uv=False)[0]


def _svd_reconstruction(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum((U * s ** 2) @ Vt * np.arange(6.0).reshape(3, 2))


def _rotated(values, seed):
    Q, _ = np.linalg.qr(np.random.RandomState(seed).randn(len(values), len(values)))
    return Q @ np.diag(values) @ Q.T


_REPEATED_POINTS = {"identity": np.eye(3), "rotated_1_1_2": _rotated([1.0, 1.0, 2.0], 3)}


@pytest.mark.parametrize("point", list(_REPEATED_POINTS))
@pytest.mark.parametrize("function", [_expm_symmetric, _smallest_eigenvalue, _sqrtm_weighted])
def test_eigh_at_repeated_eigenvalues_is_refused_not_a_wrong_number(function, point):
    # before: the 1 / (w_j - w_i) of a repeated pair was taken as 0. expm at I, along a symmetric u:
    # s2sad 19.18, central differences 37.89; the smallest eigenvalue at I (no derivative there) 3.53
    # from an arbitrary eigenvector; at the rotated point the gaps are ~1e-16, not 0, and the numbers
    # were as wrong (sqrtm: grad 5.20, jvp 6.46, central differences 7.59)
    S = _REPEATED_POINTS[point]
    with pytest.raises(UnsupportedArgumentsError, match=r"test_probe_programs\.py:\d+:5: .*eigenvalues repeat"):
        s2sad.grad(function)(S)
    u = np.random.RandomState(0).randn(3, 3)
    with pytest.raises(NonFiniteDerivativeError, match="repeated eigenvalue or singular value"):
        s2sad.jvp(function, (S,), (u + u.T,))


@pytest.mark.parametrize("function", [_largest_singular_value, _svd_reconstruction])
def test_svd_at_repeated_singular_values_is_refused(function):
    # before: top singular value of 2 * (orthonormal columns): s2sad -1.285, central differences -0.198;
    # U s^2 Vt (smooth) -28.75 against -28.00
    A = np.linalg.qr(np.random.RandomState(4).randn(3, 3))[0][:, :2] * 2.0
    with pytest.raises(UnsupportedArgumentsError, match=r"singular values repeat"):
        s2sad.grad(function)(A)
    with pytest.raises(NonFiniteDerivativeError):
        s2sad.jvp(function, (A,), (np.random.RandomState(1).randn(3, 2),))


def _eig_vector_weights(A):
    w, V = np.linalg.eig(A)
    return np.sum(np.abs(V) ** 2 * np.arange(9.0).reshape(3, 3))


def _eigh_vector_weights(S):
    w, V = np.linalg.eigh(S)
    return np.sum(V ** 2 * np.arange(9.0).reshape(3, 3))


def _condition_number(A):
    return np.linalg.cond(A)


@pytest.mark.parametrize("function, point", [
    (_eig_vector_weights, np.array([[1.0, 0.0, 0.3], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]])),
    (_eigh_vector_weights, np.diag([1.0, 1.0, 2.0])),
    (_condition_number, np.eye(3)),
], ids=["eig vectors", "eigh vectors", "cond at I"])
def test_vectors_of_a_repeated_value_and_cond_at_the_identity_are_refused(function, point):
    # before: eig's |V|^2 weighted: s2sad -4.404, central differences -4.472 (the cotangent meets the
    # block's other vector with weight 0 at a diagonal point, so a check of that weight let it through);
    # cond at I (a minimum, a kink): 1.867 from an arbitrary pair of singular vectors, central difference 0
    with pytest.raises(UnsupportedArgumentsError, match=r"test_probe_programs\.py:\d+:5: .*(eigenvalues|singular values) repeat"):
        s2sad.grad(function)(point)


def _spectral_sum(S):
    w = np.linalg.eigvalsh(S)
    return np.sum(w ** 2) + np.sum(np.log(w))


def _nuclear_norm(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


def test_functions_treating_repeated_values_alike_keep_their_gradient():
    # sum(w^2) + sum(log w) = |S|_F^2 + log det S: d/dS = 2 S + S^-1, read on the lower triangle
    # eigvalsh reads (off-diagonal entries count twice, as both triangles move)
    S = 2.0 * np.eye(3)
    full = 2 * S + np.linalg.inv(S)
    expected = np.tril(full) + np.tril(full, -1)
    np.testing.assert_allclose(s2sad.grad(_spectral_sum)(S), expected, rtol=1e-12)
    # nuclear norm with a repeated singular value: U Vh, against central differences
    A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(s2sad.grad(_nuclear_norm)(A), numerical_gradient(_nuclear_norm, (A,), 0), atol=1e-7)


def _matrix_function_away_from_repeats(S):
    return _expm_symmetric(S)


def test_distinct_eigenvalues_are_unchanged():
    S = _rotated([1.0, 1.5, 2.0], 5)
    u = np.random.RandomState(2).randn(3, 3)
    u = u + u.T
    slope = (_expm_symmetric(S + 1e-6 * u) - _expm_symmetric(S - 1e-6 * u)) / 2e-6
    np.testing.assert_allclose(np.sum(s2sad.grad(_expm_symmetric)(S) * np.tril(u)), slope, rtol=1e-6)
    np.testing.assert_allclose(s2sad.jvp(_expm_symmetric, (S,), (u,))[1], slope, rtol=1e-6)
    v = np.random.RandomState(3).randn(3, 3)
    v = v + v.T
    products = s2sad.hvp(_expm_symmetric, (S,), (u,))
    np.testing.assert_allclose(np.sum(products * np.tril(v)), mixed_second_difference(_expm_symmetric, (S,), (u,), (v,)),
                               rtol=1e-4)


# ---------------------------------------------------------------- bug 2: `out +=` in a nested loop
def _nested_window_sum(x):
    out = np.zeros(3)
    for a in range(2):
        for b in range(2):
            out += x[a + b:a + b + 3]
    return np.sum(out ** 2)


def _alias_kept_from_before(x):
    out = np.zeros(3)
    keep = out
    for a in range(2):
        for b in range(2):
            out += x[a + b:a + b + 3]
    return np.sum(keep * x[:3]) + np.sum(out ** 2)


def _alias_read_later_in_the_same_iteration(x):
    out = np.zeros(3)
    s = 0.0
    for a in range(2):
        prev = out
        for b in range(2):
            out += x[a + b:a + b + 3]
        s = s + np.sum(prev * x[:3])
    return s


def _alias_rebound_before_its_next_read(x):
    out = np.zeros(3)
    prev = out
    s = 0.0
    for a in range(2):
        s = s + np.sum(prev * x[:3])
        for b in range(2):
            out += x[a + b:a + b + 3]
        prev = out
    return s + np.sum(out ** 2)


@pytest.mark.parametrize("function", [_nested_window_sum, _alias_rebound_before_its_next_read])
def test_in_place_add_in_a_nested_loop(function):
    # before: "changes the ndarray `out` in place, and `out` shares it": the outer loop's name for
    # `out`, read in its next iteration and after it, was taken for a stale alias, though the outer
    # loop binds it anew (to the written array) at the end of every iteration
    x = np.random.RandomState(0).randn(6)
    np.testing.assert_allclose(s2sad.grad(function)(x), numerical_gradient(function, (x,), 0), rtol=1e-6, atol=1e-8)
    v = np.random.RandomState(1).randn(6)
    np.testing.assert_allclose(s2sad.jvp(function, (x,), (v,))[1], numerical_gradient(function, (x,), 0) @ v, rtol=1e-6)


@pytest.mark.parametrize("function, alias", [(_alias_kept_from_before, "keep"),
                                             (_alias_read_later_in_the_same_iteration, "prev")])
def test_a_stale_alias_around_a_nested_loop_is_still_refused(function, alias):
    x = np.random.RandomState(0).randn(6)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=rf"`out` in place, and `{alias}` shares it"):
        s2sad.grad(function)(x)


# ---------------------------------------------------------------- bug 3: det's Hessian at a singular matrix
def _det(B):
    return np.linalg.det(B)


def test_det_hessian_at_a_singular_matrix_is_refused_at_the_users_line():
    # before: u . H v of det at a rank-2 3x3 matrix came out 4.32; the mixed central difference is
    # -1.55 (the smallest singular value is 5e-17 here; where LAPACK returns exactly 0 the masked
    # 1 / s happened to give the right number). det's cotangent there is its cofactors through the
    # SVD, whose vectors of the zero singular value flip sign as it passes through 0: s2sad cannot
    # vouch for the product, so it refuses. The gradient itself stays exact.
    A = np.random.RandomState(34).randn(3, 3)
    A[2] = A[0] + A[1]
    v, u = np.random.RandomState(3).randn(3, 3), np.random.RandomState(4).randn(3, 3)
    assert abs(mixed_second_difference(_det, (A,), (v,), (u,)) - (-1.55)) < 0.01
    with pytest.raises(UnsupportedArgumentsError, match=r"singular values include 0(.|\n)*reached from .*test_probe_programs\.py:\d+:5"):
        s2sad.hvp(_det, (A,), (v,))
    np.testing.assert_allclose(s2sad.grad(_det)(A), numerical_gradient(_det, (A,), 0), atol=1e-7)
    # rank 1: two zero singular values, whose cotangents differ in the cofactors' derivative. Refused
    # too (this one came out right before, 4.7388 against 4.7388: a refusal where s2sad cannot tell)
    rank_one = np.outer([1.0, -2.0, 0.5], [0.3, 1.0, 2.0])
    with pytest.raises(UnsupportedArgumentsError, match=r"singular values repeat"):
        s2sad.hvp(_det, (rank_one,), (v,))


# ---------------------------------------------------------------- bug 4: tangents shaped unlike their primal
def _scaled_by_a_0d_array(s, x):
    return np.sum(x * s) + s[()] ** 2


def _cubic_in_the_first(x):
    return np.sum(x[0] * x ** 2)


def test_a_number_as_the_tangent_of_a_0d_array():
    # before: TypeError "'float' object is not subscriptable" in generated code (s[()] of the tangent)
    s, x = np.array(0.7), np.ones(3)
    value, slope = s2sad.jvp(_scaled_by_a_0d_array, (s, x), (0.3, np.zeros(3)))
    assert slope == pytest.approx((np.sum(x) + 2 * 0.7) * 0.3, rel=1e-14)
    ds, dx = s2sad.hvp(_scaled_by_a_0d_array, (s, x), (0.3, np.zeros(3)))   # H = [[2, 1^T], [1, 0]]
    assert isinstance(ds, np.ndarray) and ds.shape == () and ds == pytest.approx(0.6)
    np.testing.assert_allclose(dx, [0.3, 0.3, 0.3])


@pytest.mark.parametrize("tangent", [1.0, np.ones(2)], ids=["a number", "two of three"])
def test_a_tangent_shaped_unlike_its_array_is_refused(tangent):
    # before: TypeError or a NumPy broadcast error from inside the generated code
    with pytest.raises(ArgumentError, match=r"tangent for argument 0 has shape .*, but the array it moves has shape \(3,\)"):
        s2sad.jvp(_cubic_in_the_first, (np.arange(3.0),), (tangent,))
    with pytest.raises(ArgumentError, match=r"has shape \(3,\)"):
        s2sad.hvp(_cubic_in_the_first, (np.arange(3.0),), (tangent,))


# ---------------------------------------------------------------- bug 5: hvp through np.gradient with a spacing
def _gradient_energy_2d(A, h):
    gy, gx = np.gradient(A ** 2, h)
    return np.sum(gy * gx) + np.sum(gx ** 2)


def _gradient_energy_coordinates(x, t):
    return np.sum(np.gradient(x ** 2, t, edge_order=2) ** 2)


@pytest.mark.parametrize("function, args", [
    (_gradient_energy_2d, (np.random.RandomState(5).randn(4, 5), 0.7)),
    (_gradient_energy_coordinates, (np.random.RandomState(6).randn(6), np.cumsum(np.random.RandomState(7).rand(6) + 0.2))),
], ids=["2-d, one spacing", "coordinates, edge_order=2"])
def test_hvp_through_np_gradient_with_a_differentiated_spacing(function, args):
    # before: refused in the rule's own code (numpy_shapes.py): a write through a view (moved_d of d_out),
    # `[h] * count`, `tangents * len(axes)` and `blocks.append`, none of which reverse mode over the
    # forward rule differentiates; rewritten as one-name writes and list displays
    rs = np.random.RandomState(8)
    v = tuple(rs.randn(*np.shape(a)) if np.ndim(a) else float(rs.randn()) for a in args)
    u = tuple(rs.randn(*np.shape(a)) if np.ndim(a) else float(rs.randn()) for a in args)
    products = s2sad.hvp(function, args, v)
    np.testing.assert_allclose(sum(np.sum(p * d) for p, d in zip(products, u)),
                               mixed_second_difference(function, args, v, u), rtol=1e-5)
