"""Rules of rules/numpy_reductions.py: axes, keepdims, dtypes, zeros in prod, ties in max/min."""
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.errors import UnsupportedArgumentsError
from s2sad.registry import method_rule, rule_for
from s2sad.testing import check_rrule, numerical_gradient

rng = np.random.default_rng(2)


def cotangents(f, *args, g=None, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(np.ones_like(y) if g is None else g)[1:]


REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std]
AXES = [
    ("all", {}),
    ("axis0", {"axis": 0}),
    ("axis-1", {"axis": -1}),
    ("tuple", {"axis": (0, 2)}),
    ("negative-tuple", {"axis": (-1, -2)}),
    ("keepdims", {"axis": 1, "keepdims": True}),
    ("keepdims-all", {"keepdims": True}),
    ("tuple-keepdims", {"axis": (0, 1), "keepdims": True}),
]


@pytest.mark.parametrize("name, kwargs", AXES, ids=[a[0] for a in AXES])
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_finite_differences(f, name, kwargs):
    check_rrule(f, rng.standard_normal((2, 3, 4)), **kwargs)


@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_float32_and_scalars(f):
    (dx,) = check_rrule(f, rng.standard_normal((3, 4)).astype(np.float32), axis=0)
    assert dx.dtype == np.float32
    if f not in (np.var, np.std):
        (dx,) = cotangents(f, 1.5, g=2.0)
        assert dx == 2.0
        check_rrule(f, np.array(1.5))


# ------------------------------------------------------------------ formulas
def test_sum_and_mean_formulas():
    x = rng.standard_normal((2, 3))
    (dx,) = cotangents(np.sum, x, axis=1, g=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dx, [[1, 1, 1], [2, 2, 2]])
    (dx,) = cotangents(np.mean, x, axis=(0, 1), g=6.0)
    np.testing.assert_allclose(dx, np.ones((2, 3)))
    (dx,) = cotangents(np.sum, x, where=np.array([True, False, True]), g=1.0)
    np.testing.assert_array_equal(dx, [[1, 0, 1], [1, 0, 1]])


def test_mean_with_where_divides_by_the_selected_count():
    mask = np.array([[True, False, True], [True, True, True]])
    (dx,) = cotangents(np.mean, np.zeros((2, 3)), axis=1, where=mask, g=np.array([1.0, 1.0]))
    np.testing.assert_allclose(dx, [[0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    check_rrule(np.mean, rng.standard_normal((2, 3)), axis=1, where=mask)


def test_var_and_std_formulas():
    x = np.array([1.0, 2.0, 4.0])
    (dx,) = cotangents(np.var, x, g=1.0)
    np.testing.assert_allclose(dx, 2 * (x - x.mean()) / 3)
    (dx,) = cotangents(np.var, x, ddof=1, g=1.0)
    np.testing.assert_allclose(dx, 2 * (x - x.mean()) / 2)
    (dx,) = cotangents(np.std, x, g=1.0)
    np.testing.assert_allclose(dx, (x - x.mean()) / (3 * x.std()))
    check_rrule(np.std, rng.standard_normal((3, 4)), axis=1, ddof=1)


def test_std_of_constant_is_zero_not_nan():
    (dx,) = cotangents(np.std, np.ones(4), g=1.0)
    np.testing.assert_array_equal(dx, np.zeros(4))


# ------------------------------------------------------------------ prod: exact with zeros
@pytest.mark.parametrize("x, expected", [
    ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
    ([2.0, 0.0, 4.0], [0.0, 8.0, 0.0]),
    ([0.0, 0.0, 4.0], [0.0, 0.0, 0.0]),
    ([5.0], [1.0]),
])
def test_prod_is_exact_with_zeros(x, expected):
    (dx,) = cotangents(np.prod, np.array(x), g=1.0)
    np.testing.assert_array_equal(dx, expected)


def test_prod_zeros_along_axes():
    x = rng.standard_normal((3, 4, 2))
    x[1, 2, 0] = 0.0
    x[0, :, 1] = 0.0
    for kwargs in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}):
        check_rrule(np.prod, x, **kwargs)


# ------------------------------------------------------------------ max/min: ties split equally
@pytest.mark.parametrize("f", [np.max, np.amax])
def test_max_ties_split_equally(f):
    (dx,) = cotangents(f, np.array([1.0, 3.0, 3.0, 2.0]), g=1.0)
    np.testing.assert_array_equal(dx, [0.0, 0.5, 0.5, 0.0])
    (dx,) = cotangents(f, np.array([[1.0, 1.0], [2.0, 0.0]]), axis=1, g=np.array([4.0, 4.0]))
    np.testing.assert_array_equal(dx, [[2.0, 2.0], [4.0, 0.0]])


@pytest.mark.parametrize("f", [np.min, np.amin])
def test_min_ties_split_equally(f):
    (dx,) = cotangents(f, np.array([[1.0, 2.0, 1.0]]), axis=-1, keepdims=True, g=np.array([[3.0]]))
    np.testing.assert_array_equal(dx, [[1.5, 0.0, 1.5]])


# ------------------------------------------------------------------ cumsum
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": -1}])
def test_cumsum(kwargs):
    check_rrule(np.cumsum, rng.standard_normal((3, 4)), **kwargs)
    (dx,) = cotangents(np.cumsum, np.zeros(3), g=np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(dx, [6.0, 5.0, 3.0])


def test_int_input_has_no_tangent():
    from s2sad.runtime.tangents import NO_TANGENT

    assert cotangents(np.sum, np.arange(3), g=1.0) == (NO_TANGENT,)
    assert cotangents(np.prod, np.arange(1, 4), g=1.0) == (NO_TANGENT,)


def test_methods_share_the_rules():
    x = rng.standard_normal((2, 3))
    for name in ("sum", "mean", "prod", "max", "min", "std", "var", "cumsum"):
        assert method_rule(np.ndarray, name) is rule_for(getattr(np, name))
        check_rrule(getattr(x, name), axis=1)


# ------------------------------------------------------------------ complex input
# sum, mean, prod and cumsum are holomorphic (prod pulls g back to g * conj(product of the
# others)); max/min order complex numbers lexicographically, as NumPy does, and pass g to the
# winner; var and std of complex input are real: var = mean(|z - mean(z)|**2) has gradient
# 2 * (z - mean(z)) / (n - ddof) times g, std's is that over 2 * std.
@pytest.fixture
def complex_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        yield


def complex_normal(*shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("name, kwargs", AXES, ids=[a[0] for a in AXES])
@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_complex_finite_differences(f, name, kwargs):
    z = complex_normal(2, 3, 4)
    (dz,) = check_rrule(f, z, **kwargs)
    assert dz.dtype == np.complex128 and dz.shape == z.shape


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("f", REDUCTIONS + [np.cumsum], ids=lambda f: f.__name__)
def test_reduction_complex64_and_scalars(f):
    (dz,) = check_rrule(f, complex_normal(3, 4, dtype=np.complex64), axis=0)
    assert dz.dtype == np.complex64
    check_rrule(f, np.array(1.5 - 0.5j))
    if f not in (np.var, np.std):
        check_rrule(f, np.complex128(1.5 - 0.5j))


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": -1}])
def test_cumsum_complex(kwargs):
    check_rrule(np.cumsum, complex_normal(3, 4), **kwargs)


def test_complex_formulas():
    z, g = complex_normal(4), 0.3 - 1.1j
    (dz,) = cotangents(np.prod, z, g=g)
    others = np.array([np.prod(np.delete(z, i)) for i in range(4)])
    np.testing.assert_allclose(dz, g * np.conj(others))
    gr = 0.7
    (dz,) = cotangents(np.var, z, g=gr)
    np.testing.assert_allclose(dz, gr * 2 * (z - z.mean()) / 4)
    (dz,) = cotangents(np.std, z, ddof=1, g=gr)
    np.testing.assert_allclose(dz, gr * (z - z.mean()) / (3 * np.std(z, ddof=1)))
    (dz,) = cotangents(np.max, np.array([1 + 2j, 3 - 1j, 3 + 0j, -1j]), g=g)
    np.testing.assert_array_equal(dz, [0, 0, g, 0])  # lexicographic: 3+0j beats 3-1j


def test_var_and_std_of_complex_are_real_with_complex_gradients():
    z = complex_normal(2, 3)
    for f in (np.var, np.std):
        y, pullback = rule_for(f).rrule(z, axis=1)
        assert y.dtype == np.float64
        (dz,) = pullback(np.ones(2))[1:]
        assert dz.dtype == np.complex128
        np.testing.assert_allclose(dz, numerical_gradient(lambda z: np.sum(f(z, axis=1)), z), rtol=1e-6)


def test_std_of_a_complex_constant_is_zero_not_nan():
    (dz,) = cotangents(np.std, np.full(3, 1 - 2j), g=1.0)
    np.testing.assert_array_equal(dz, np.zeros(3))


# ------------------------------------------------------------------ where= masks
MASK = np.array([[True, False, True, True], [False, True, True, True], [True, True, False, True]])


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize("f", [np.sum, np.mean, np.prod, np.var, np.std], ids=lambda f: f.__name__)
def test_reductions_with_where(f, kind):
    x = rng.standard_normal((3, 4)) if kind == "real" else complex_normal(3, 4)
    for kwargs in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": 1, "ddof": 1}):
        if "ddof" in kwargs and f not in (np.var, np.std):
            continue
        (dx,) = check_rrule(f, x, where=MASK, **kwargs)
        assert np.all(dx[~MASK] == 0)  # elements left out get no gradient


def test_var_and_std_with_a_given_mean():
    x = rng.standard_normal((3, 4))
    for f in (np.var, np.std):
        check_rrule(f, x, axis=1, mean=np.mean(x, axis=1, keepdims=True))


# ------------------------------------------------------------------ real losses of complex values, end to end
def loss_of_reductions(z, w):
    return np.abs(np.sum(z * w)) ** 2 + np.real(np.prod(z)) + np.var(z) + np.std(w, axis=0).sum()


def loss_of_extremes_and_scans(z, w):
    return np.real(np.max(z, axis=0) * np.min(w)).sum() + np.abs(np.cumsum(z * w)).sum() + np.imag(np.mean(z))


@pytest.mark.usefixtures("complex_warnings_are_errors")
@pytest.mark.parametrize("f", [loss_of_reductions, loss_of_extremes_and_scans], ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", ["complex-complex", "complex-real"])
def test_gradient_of_a_real_loss_of_complex_values(f, kind):
    z = complex_normal(3, 2)
    w = complex_normal(3, 2) if kind == "complex-complex" else rng.standard_normal((3, 2))
    dz, dw = s2sad.grad(f, argnums=(0, 1))(z, w)
    ez, ew = numerical_gradient(f, z, w, argnums=(0, 1))
    assert dz.dtype == z.dtype and dw.dtype == w.dtype
    np.testing.assert_allclose(dz, ez, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dw, ew, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [np.max, np.min, np.amax, np.amin], ids=lambda f: f.__name__)
def test_extremes_with_where_and_initial(f):
    x = rng.standard_normal((3, 4))
    low_bound = f in (np.max, np.amax)
    (dx,) = check_rrule(f, x, axis=1, where=MASK, initial=-10.0 if low_bound else 10.0)
    assert np.all(dx[~MASK] == 0)
    with np.errstate(all="raise"):  # ``initial`` beats every element: nobody gets g, and nothing is 0 / 0
        (dx,) = cotangents(f, x, axis=1, initial=100.0 if low_bound else -100.0, g=np.ones(3))
    np.testing.assert_array_equal(dx, np.zeros_like(x))


# ------------------------------------------------------------------ median and ptp
MEDIAN_AXES = AXES + [("odd-length", {"axis": 1})]


@pytest.mark.parametrize("name, kwargs", MEDIAN_AXES, ids=[a[0] for a in MEDIAN_AXES])
@pytest.mark.parametrize("f", [np.median, np.ptp], ids=lambda f: f.__name__)
def test_median_and_ptp_finite_differences(f, name, kwargs):
    check_rrule(f, rng.standard_normal((2, 3, 4)), **kwargs)   # even and odd slice lengths both
    check_rrule(f, rng.standard_normal((3, 5, 2)), **kwargs)


@pytest.mark.parametrize("f", [np.median, np.ptp], ids=lambda f: f.__name__)
def test_median_and_ptp_float32_and_scalars(f):
    (dx,) = check_rrule(f, rng.standard_normal((3, 4)).astype(np.float32), axis=0)
    assert dx.dtype == np.float32
    check_rrule(f, np.array(1.5))


def test_median_formulas():
    # odd length: the middle element gets g; even: the two middle ones g / 2 each
    (dx,) = cotangents(np.median, np.array([5.0, -1.0, 2.0]), g=3.0)
    np.testing.assert_array_equal(dx, [0, 0, 3])
    (dx,) = cotangents(np.median, np.array([5.0, -1.0, 2.0, 0.5]), g=4.0)
    np.testing.assert_array_equal(dx, [0, 0, 2, 2])
    (dx,) = cotangents(np.median, np.array([[4.0, 1.0, 3.0], [0.0, 9.0, 8.0]]), axis=1, keepdims=True,
                       g=np.array([[1.0], [10.0]]))
    np.testing.assert_array_equal(dx, [[0, 0, 1], [0, 0, 10]])


def test_median_ties_share_the_middle_positions():
    # [1, 2, 2, 3]: both middle positions hold a 2, each moves the median by 1/2: exact
    (dx,) = cotangents(np.median, np.array([2.0, 1.0, 3.0, 2.0]), g=1.0)
    np.testing.assert_array_equal(dx, [0.5, 0, 0, 0.5])
    # [1, 2, 2]: one-sided derivatives 0 and 1 for each 2: the rule gives their mean
    x = np.array([2.0, 1.0, 2.0])
    (dx,) = cotangents(np.median, x, g=1.0)
    np.testing.assert_array_equal(dx, [0.5, 0, 0.5])
    h = 1e-6
    up = (np.median(x + [h, 0, 0]) - np.median(x)) / h
    down = (np.median(x) - np.median(x - [h, 0, 0])) / h
    assert abs(dx[0] - (up + down) / 2) < 1e-9
    # all equal: 1 / n each, so the gradient still sums to g
    (dx,) = cotangents(np.median, np.full(5, 7.0), g=1.0)
    np.testing.assert_allclose(dx, np.full(5, 0.2))


def test_median_refuses_overwrite_input():
    with pytest.raises(s2sad.S2SADError, match="overwrite_input"):
        cotangents(np.median, rng.standard_normal(4), overwrite_input=True)


def test_ptp_formulas_and_ties():
    (dx,) = cotangents(np.ptp, np.array([[3.0, -1.0, 2.0], [0.0, 5.0, 1.0]]), axis=1, g=np.array([1.0, 2.0]))
    np.testing.assert_array_equal(dx, [[1, -1, 0], [-2, 2, 0]])
    (dx,) = cotangents(np.ptp, np.array([3.0, 1.0, 3.0, 1.0, 2.0]), g=1.0)   # ties shared as max's and min's
    np.testing.assert_array_equal(dx, [0.5, -0.5, 0.5, -0.5, 0])
    (dx,) = cotangents(np.ptp, np.full(3, 2.0), g=1.0)                       # max and min tie everywhere: 0
    np.testing.assert_array_equal(dx, [0, 0, 0])


def test_median_and_ptp_in_user_code_against_central_differences():
    def loss(x):
        return np.sum(np.median(x, axis=0) ** 2) + np.ptp(np.sin(x)) * np.median(x)

    x = rng.standard_normal((5, 4))
    np.testing.assert_allclose(s2sad.grad(loss)(x), numerical_gradient(loss, x), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ NaN-ignoring reductions
NAN_REDUCTIONS = [np.nansum, np.nanmean, np.nanprod, np.nanmax, np.nanmin, np.nanvar, np.nanstd]


def with_nans(shape, dtype=np.float64):
    """Random values with NaNs at fixed positions (one whole slice along the last axis stays finite)."""
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[[1, 4, 5]] = np.nan
    return x


@pytest.mark.parametrize("name, kwargs", AXES, ids=[a[0] for a in AXES])
@pytest.mark.parametrize("f", NAN_REDUCTIONS, ids=lambda f: f.__name__)
def test_nan_reductions_finite_differences(f, name, kwargs):
    """Central differences step every element; a NaN stays NaN, so the value does not move with it."""
    x = with_nans((2, 3, 4))
    (dx,) = check_rrule(f, x, **kwargs)
    np.testing.assert_array_equal(dx.flat[[1, 4, 5]], 0)  # the NaN elements get zero cotangent
    assert np.all(np.isfinite(dx))


@pytest.mark.parametrize("f", NAN_REDUCTIONS, ids=lambda f: f.__name__)
def test_nan_reductions_match_the_plain_ones_without_nans(f):
    plain = {np.nansum: np.sum, np.nanmean: np.mean, np.nanprod: np.prod, np.nanmax: np.max, np.nanmin: np.min,
             np.nanvar: np.var, np.nanstd: np.std}[f]
    x, g = rng.standard_normal((3, 4)), rng.standard_normal(4)
    np.testing.assert_allclose(cotangents(f, x, axis=0, g=g)[0], cotangents(plain, x, axis=0, g=g)[0], rtol=1e-13)


@pytest.mark.parametrize("f", NAN_REDUCTIONS, ids=lambda f: f.__name__)
def test_nan_reductions_float32_and_complex(f):
    (dx,) = check_rrule(f, with_nans((3, 4), np.float32), axis=0)
    assert dx.dtype == np.float32
    z = with_nans((3, 4)) + 1j * rng.standard_normal((3, 4))  # a NaN real part makes the number NaN
    (dz,) = check_rrule(f, z, axis=1)
    np.testing.assert_array_equal(dz.flat[[1, 4, 5]], 0)
    (dx,) = cotangents(f, 1.5, g=2.0)
    assert type(dx) is float and dx == (0.0 if f in (np.nanvar, np.nanstd) else 2.0)


def test_nan_reduction_formulas():
    x = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [2.0, 2.0, -1.0]])
    (dx,) = cotangents(np.nansum, x, axis=1, g=np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(dx, [[1, 0, 1], [0, 0, 0], [3, 3, 3]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN row: NumPy warns, its value is NaN
        (dx,) = cotangents(np.nanmean, x, axis=1, g=np.array([1.0, 2.0, 3.0]))
        np.testing.assert_allclose(dx, [[0.5, 0, 0.5], [0, 0, 0], [1, 1, 1]])
        (dx,) = cotangents(np.nanmax, x, axis=1, g=np.array([1.0, 2.0, 3.0]))   # ties in row 2: shared
        np.testing.assert_allclose(dx, [[0, 0, 1], [0, 0, 0], [1.5, 1.5, 0]])
        (dx,) = cotangents(np.nanmin, x, axis=1, g=np.array([1.0, 2.0, 3.0]))
        np.testing.assert_allclose(dx, [[1, 0, 0], [0, 0, 0], [0, 0, 3]])
    (dx,) = cotangents(np.nanprod, np.array([2.0, np.nan, 0.0, 5.0]), g=1.0)      # exact at the zero
    np.testing.assert_array_equal(dx, [0, 0, 10, 0])
    y = np.array([1.0, np.nan, 3.0, 5.0])                                           # var of [1, 3, 5] = 8/3
    (dx,) = cotangents(np.nanvar, y, g=1.0)
    np.testing.assert_allclose(dx, np.array([-2.0, 0.0, 0.0, 2.0]) * 2 / 3)
    (dx,) = cotangents(np.nanstd, y, ddof=1, g=1.0)                                 # std = 2: (y - 3) / (2 * 2)
    np.testing.assert_allclose(dx, [-0.5, 0, 0, 0.5])


def test_nan_reductions_in_user_code_against_central_differences():
    mask = np.array([[False, True, False], [False, False, False]])

    def loss(x):
        y = np.where(mask, np.nan, x)   # NaNs from a constant: the gradient in x is finite everywhere
        return np.nansum(y ** 2) + np.nanmean(y, axis=0) @ np.nanmax(y, axis=1, keepdims=True).repeat(3, 0)[:3, 0] \
            + np.nanstd(y) * np.nanprod(np.cos(y))

    x = rng.standard_normal((2, 3))
    np.testing.assert_allclose(s2sad.grad(loss)(x), numerical_gradient(loss, x), rtol=1e-6, atol=1e-8)
    # forward, the NaN's tangent is 2 * NaN * 0 in y ** 2, as that of a NaN made at the point is (below): refused
    with pytest.raises(s2sad.S2SADError, match="np.nansum skips a NaN whose tangent is not finite"):
        s2sad.jvp(loss, (x,), (np.ones_like(x),))


def entropy(p):
    return -np.nansum(p * np.log(p))  # 0 * log(0) is NaN, skipped: the value is continuous at p = 0


def shifted_data_sum(x):
    data = np.array([1.0, np.nan, 2.0])
    return np.nansum(data + x) + np.nanmean(data * 0.0 + x)  # the NaN of the data is a NaN around the point


def test_forward_nan_reductions_refuse_a_nan_made_at_the_point():
    # entropy at p[0] = 0: the slope is +inf from the right, 0 from the left, no derivative; forward
    # mode gave 0 (the NaN's tangent, NaN, was skipped with it)
    p = np.array([0.0, 0.5, 0.5])
    with np.errstate(all="ignore"):
        with pytest.raises(s2sad.S2SADError, match="np.nansum skips a NaN whose tangent is not finite"):
            s2sad.jvp(entropy, (p,), (np.array([1.0, 0.0, 0.0]),))
        with pytest.raises(s2sad.S2SADError):
            s2sad.grad(entropy)(p)
    x = np.array([0.3, -0.2, 0.7])
    _, tangent = s2sad.jvp(shifted_data_sum, (x,), (np.ones(3),))
    assert tangent == pytest.approx(np.sum(numerical_gradient(shifted_data_sum, x)), rel=1e-6)


# ------------------------------------------------------------------ trapezoid
TRAPEZOIDS = [
    ("y", (rng.standard_normal(5),), {}),
    ("y-dx", (rng.standard_normal(5),), {"dx": 0.3}),
    ("y-2d-axis0", (rng.standard_normal((4, 3)),), {"axis": 0}),
    ("y-x", (rng.standard_normal(5), np.sort(rng.standard_normal(5))), {}),
    ("y-2d-x-1d", (rng.standard_normal((3, 5)), np.sort(rng.standard_normal(5))), {}),
    ("y-2d-x-1d-axis0", (rng.standard_normal((4, 3)), np.sort(rng.standard_normal(4))), {"axis": 0}),
    ("y-2d-x-2d", (rng.standard_normal((3, 5)), np.sort(rng.standard_normal((3, 5)), axis=1)), {}),
    ("y-x-broadcast", (rng.standard_normal((3, 5)), np.sort(rng.standard_normal((1, 5)), axis=1)), {}),
    ("one-point", (rng.standard_normal(1), np.array([0.5])), {}),
]


@pytest.mark.parametrize("name, args, kwargs", TRAPEZOIDS, ids=[t[0] for t in TRAPEZOIDS])
def test_trapezoid_finite_differences(name, args, kwargs):
    check_rrule(np.trapezoid, *args, **kwargs)
    cotangents32 = check_rrule(np.trapezoid, *[a.astype(np.float32) for a in args], **kwargs)
    assert all(ct.dtype == np.float32 for ct in cotangents32[:len(args)])
    check_rrule(np.trapezoid, args[0] + 1j * rng.standard_normal(args[0].shape), *args[1:], **kwargs)


def test_trapezoid_in_dx_and_formulas():
    y = np.array([1.0, 4.0, 2.0, 3.0])
    check_rrule(np.trapezoid, y, None, 0.25)
    _, _, ddx = cotangents(np.trapezoid, y, None, 0.25, g=2.0)
    assert ddx == 2.0 * (2.5 + 3.0 + 2.5)            # the sum of the midpoints
    (dy,) = cotangents(np.trapezoid, y, dx=0.5, g=1.0)  # weights dx/2 at the ends, dx inside
    np.testing.assert_allclose(dy, [0.25, 0.5, 0.5, 0.25])
    x = np.array([0.0, 1.0, 3.0, 3.5])
    dy, dxs = cotangents(np.trapezoid, y, x, g=1.0)
    np.testing.assert_allclose(dy, [0.5, 1.5, 1.25, 0.25])  # half of each interval a point ends
    np.testing.assert_allclose(dxs, [-2.5, 2.5 - 3.0, 3.0 - 2.5, 2.5])  # m_(j-1) - m_j


def test_trapezoid_in_user_code_against_central_differences():
    def loss(y, x):
        return np.sum(np.trapezoid(np.sin(y) * x, x, axis=-1) ** 2)

    y, x = rng.standard_normal((2, 5)), np.cumsum(rng.uniform(0.2, 1.0, 5))
    dy, dx = s2sad.grad(loss, argnums=(0, 1))(y, x)
    np.testing.assert_allclose(dy, numerical_gradient(lambda v: loss(v, x), y), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dx, numerical_gradient(lambda v: loss(y, v), x), rtol=1e-6, atol=1e-8)


def test_trapezoid_with_one_width_per_interval():
    y, widths = rng.standard_normal((2, 4)), rng.uniform(0.1, 1.0, 3)
    check_rrule(np.trapezoid, y, None, widths)


@pytest.mark.parametrize("f", [np.sum, np.nansum, np.add.reduce])
def test_a_differentiated_initial_of_a_sum(f):
    # `initial=` given by position so that check_rrule moves it too: it is added to every entry
    # (before: no gradient reached it, in both modes: a silent zero)
    x = np.random.default_rng(4).standard_normal((3, 4))
    check_rrule(f, x, 1, None, None, False, 0.7)
    check_rrule(f, x, 0, None, None, True, np.array(-0.3))


def _max_from(x, c):
    return np.sum(np.max(x ** 2, axis=0, initial=c))


def _product_from(x, c):
    return np.sum(np.prod(x ** 2, axis=0, initial=c))


def _maximum_reduce_from(x, c):
    return np.sum(np.maximum.reduce(x ** 2, axis=0, initial=c))


def _variance_about(x, c):
    return np.sum(np.var(x ** 2, axis=0, mean=c))


def _deviation_corrected(x, c):
    return np.sum(np.std(x ** 2, axis=0, correction=c))


def _nan_variance_corrected(x, c):
    return np.sum(np.nanvar(x ** 2, axis=0, correction=c))


def _variance_with_ddof(x, c):
    return np.sum(np.var(x ** 2, axis=0, ddof=c))


@pytest.mark.parametrize("loss, keyword, value", [(_max_from, "initial", 5.0), (_product_from, "initial", 1.5),
                                                  (_maximum_reduce_from, "initial", 5.0), (_variance_about, "mean", None),
                                                  (_deviation_corrected, "correction", 1.0),
                                                  (_nan_variance_corrected, "correction", 1.0),
                                                  (_variance_with_ddof, "ddof", 1.0)])
def test_keywords_without_a_derivative_refuse_a_differentiated_value(loss, keyword, value):
    # before: the keyword's slot said "no gradient flows", and a differentiated value got zero
    x = np.random.default_rng(5).standard_normal((3, 4))
    c = np.mean(x ** 2, axis=0, keepdims=True) if value is None else value
    with pytest.raises(UnsupportedArgumentsError, match=f"`{keyword}=` of np"):
        s2sad.grad(loss, argnums=1)(x, c)
    with pytest.raises(UnsupportedArgumentsError, match=f"`{keyword}=` of np"):
        s2sad.jvp(loss, (x, c), (np.zeros_like(x), np.ones_like(c) if value is None else 1.0))
    s2sad.grad(loss)(x, c)  # a constant keyword stays as it was: differentiated in `x`


def _methods_with_constant_keywords(x):
    return x.var(ddof=1) + x.std(0, None, None, 1).sum() + x.max(initial=-5.0) + np.var(x, ddof=1)


def test_a_methods_whole_pullback_passes_over_an_int_or_constant_keyword():
    # a method's rule runs every slot of its pullback: ddof=1 (an int) was refused as differentiated
    x = np.random.default_rng(6).standard_normal((3, 4))
    np.testing.assert_allclose(s2sad.grad(_methods_with_constant_keywords)(x),
                               numerical_gradient(_methods_with_constant_keywords, x), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ found by the sweep (test_systematic.py)
@pytest.mark.parametrize("f", [np.var, np.std, np.nanvar, np.nanstd], ids=lambda f: f.__name__)
def test_spread_asked_for_in_a_complex_dtype(f):
    """np.var(z, dtype=complex128) is complex with a zero imaginary part: the imaginary part
    of its cotangent moves nothing (it was used: -0.2101 against -0.1862 by central differences)."""
    z = complex_normal(2, 4)
    for kwargs in ({"dtype": np.complex128}, {"dtype": np.complex128, "axis": 1}, {"dtype": np.complex64, "axis": 0}):
        check_rrule(f, z, **kwargs)


@pytest.mark.parametrize("f, kwargs", [(np.prod, {}), (np.prod, {"axis": 1}), (np.nanprod, {"axis": 0}),
                                       (np.cumprod, {}), (np.cumprod, {"axis": 1}), (np.multiply.reduce, {}),
                                       (np.multiply.accumulate, {})], ids=lambda v: getattr(v, "__name__", str(v)))
def test_products_of_empty_arrays(f, kwargs):
    """Empty arrays (NumPy computes 1s or an empty array) crashed the rules (an empty axis reshaped, an
    argmax of nothing): their cotangents are empty, and the tangents zeros."""
    from s2sad.registry.forward import forward_rule

    for x in (np.zeros((0,)), np.zeros((2, 0)), np.zeros((0, 3), dtype=complex)):
        if x.ndim == 1 and kwargs.get("axis") == 1:
            continue
        (dx,) = check_rrule(f, x, **kwargs)
        assert dx.shape == x.shape
        y = f(x, **kwargs)
        tangent = forward_rule(f).pushforward((x,), kwargs, {"a" if f in (np.prod, np.nanprod, np.cumprod) else "array": x}, y)
        assert np.shape(tangent) == np.shape(y) and not np.any(tangent)


def test_trapezoid_with_an_x_of_another_length_is_refused():
    """NumPy broadcasts the len(x) - 1 widths of a 1-D x against another axis of y when x does not
    match y's axis (a mistake it computes); the rule crashed there (ValueError): refused now."""
    y, x = rng.standard_normal((2, 3, 4)), np.linspace(0.0, 1.0, 5)
    _, pullback = rule_for(np.trapezoid).rrule(y, x, axis=0)
    with pytest.raises(s2sad.S2SADError, match="sample points"):
        pullback(np.ones((3, 4)))
    check_rrule(np.trapezoid, y, np.linspace(0.0, 1.0, 2), axis=0)  # an x as long as the axis: differentiated
