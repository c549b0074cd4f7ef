"""Forward rules (jvps) of rules/scipy_stats.py: finite differences over shapes and dtypes,
agreement with the reverse rules, edges, and coverage of every differentiable rule (skipped without SciPy)."""
import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")

import s2sad  # noqa: E402,F401
from s2sad.forward_check import check_frule, pushforward as push  # noqa: E402
from s2sad.registry.forward import forward_rule  # noqa: E402
from s2sad.registry import all_rules, rule_for  # noqa: E402
from s2sad.runtime.tangents import is_zero  # noqa: E402

rng = np.random.default_rng(21)


def real(*shape):
    return rng.standard_normal(shape)


def positive(*shape, low=0.5, high=3.0):
    return rng.uniform(low, high, shape)


def unit(*shape):
    return rng.uniform(0.1, 0.9, shape)


def check_direction(f, args, i, v, rtol=1e-6, atol=1e-9):
    """The pushforward of ``v`` (a chosen tangent of argument ``i``) against central differences."""
    params = list(forward_rule(f).signature.parameters)
    tangent = push(f, *args, tangents={params[i]: v})
    h = 1e-6
    up, down = list(args), list(args)
    up[i], down[i] = args[i] + h * v, args[i] - h * v
    expected = (f(*up) - f(*down)) / (2 * h)
    assert np.shape(tangent) == np.shape(f(*args))
    np.testing.assert_allclose(tangent, expected, rtol=rtol, atol=atol)
    return tangent


def assert_transposes(f, *args, directions=None):
    """<jvp(v), w> = <v, vjp(w)> for a random (or given) v of each float argument and a random w."""
    ans = f(*args)
    w = rng.standard_normal(np.shape(ans))
    y, pullback = rule_for(f).rrule(*args)
    cotangents = pullback(w)[1:]
    params = list(forward_rule(f).signature.parameters)
    for i, (x, ct) in enumerate(zip(args, cotangents)):
        if not isinstance(x, np.ndarray) or x.dtype.kind != "f":
            continue
        v = rng.standard_normal(x.shape) if directions is None or directions[i] is None else directions[i]
        tangent = push(f, *args, tangents={params[i]: v})
        left = 0.0 if is_zero(tangent) else float(np.sum(np.asarray(tangent) * w))
        right = 0.0 if is_zero(ct) else float(np.sum(np.asarray(ct) * v))
        np.testing.assert_allclose(left, right, rtol=1e-9, atol=1e-12, err_msg=f"argument {i}")


# ------------------------------------------------------------------ location-scale families
CONTINUOUS = [(stats.norm, method, real, ()) for method in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")]
CONTINUOUS += [(stats.t, method, lambda *s: 3 * real(*s), (lambda *s: positive(*s, high=12.0),))
               for method in ("pdf", "logpdf", "cdf", "logcdf")]
CONTINUOUS += [(stats.gamma, method, positive, (positive,)) for method in ("pdf", "logpdf", "cdf")]
CONTINUOUS += [(stats.chi2, method, positive, (positive,)) for method in ("pdf", "logpdf", "cdf")]
CONTINUOUS += [(stats.beta, method, unit, (positive, positive)) for method in ("pdf", "logpdf", "cdf")]
CONTINUOUS_IDS = [f"{d.name}.{m}" for d, m, _, _ in CONTINUOUS]


@pytest.mark.parametrize("dist, method, make_x, make_shapes", CONTINUOUS, ids=CONTINUOUS_IDS)
def test_continuous_finite_differences(dist, method, make_x, make_shapes):
    f = getattr(dist, method)
    shapes = [make(5) for make in make_shapes]
    check_frule(f, make_x(5), *shapes)                                                # standard: loc 0, scale 1
    check_frule(f, 0.2 + 1.3 * make_x(5), *shapes, 0.2, 1.3)                          # Python float loc, scale
    loc, scale = 0.05 * real(2, 1), positive(5, low=1.5, high=2.5)                     # broadcasting
    tangents = check_frule(f, loc + scale * make_x(2, 5), *[make(5) for make in make_shapes], loc, scale)
    assert all(t.shape == (2, 5) for t in tangents)
    tangents = check_frule(f, float(make_x(1)[0]), *[float(make(1)[0]) for make in make_shapes], 0.0, 1.0)
    assert all(np.shape(t) == () for t in tangents)
    check_frule(f, make_x(1).reshape(()), *[make(1).reshape(()) for make in make_shapes])     # 0-d arrays
    x = 0.1 + 1.2 * make_x(2, 3)
    assert_transposes(f, x, *[make(3) for make in make_shapes], real(2, 1) * 0.05, positive(3, low=1.0, high=1.5))


@pytest.mark.parametrize("dist, method, make_x, make_shapes", CONTINUOUS, ids=CONTINUOUS_IDS)
def test_continuous_float32_and_keywords(dist, method, make_x, make_shapes):
    f = getattr(dist, method)
    args = [make_x(4).astype(np.float32)] + [make(4).astype(np.float32) for make in make_shapes]
    for tangent in check_frule(f, *args, np.float32(0.0), np.float32(1.0)):
        assert tangent.dtype == f(*args).dtype                                         # SciPy answers in float64
    (tx, *_) = check_frule(f, make_x(3), *[make(3) for make in make_shapes], loc=0.1, scale=1.1)
    assert tx.shape == (3,)


def test_norm_closed_forms():
    x, loc, scale, v = real(6), 0.3, 1.7, real(6)
    z = (x - loc) / scale
    np.testing.assert_allclose(push(stats.norm.logpdf, x, loc, scale, tangents={"x": v}), -z / scale * v, rtol=1e-12)
    np.testing.assert_allclose(push(stats.norm.logpdf, x, loc, scale, tangents={"scale": 0.5}),
                               0.5 * (z ** 2 - 1) / scale, rtol=1e-12)
    np.testing.assert_allclose(push(stats.norm.cdf, x, loc, scale, tangents={"loc": 2.0}),
                               -2.0 * stats.norm.pdf(x, loc, scale), rtol=1e-12)


def test_tails_and_edges():
    x = np.array([-40.0, 40.0])
    np.testing.assert_allclose(push(stats.norm.logcdf, x, tangents={"x": np.ones(2)}), [40.0, 0.0],
                               rtol=0.01, atol=1e-300)
    np.testing.assert_allclose(push(stats.norm.logsf, x, tangents={"x": np.ones(2)}), [0.0, -40.0],
                               rtol=0.01, atol=1e-300)
    # t.cdf is 1/2 at 0 for every df
    t = push(stats.t.cdf, np.array([-30.0, 0.0, 0.5]), np.full(3, 2.5), tangents={"df": np.ones(3)})
    assert t[1] == 0.0 and np.all(np.isfinite(t))
    check_direction(stats.t.cdf, (np.array([-30.0, -0.01, 0.01, 30.0]), np.full(4, 2.5)), 1, np.ones(4),
                    rtol=1e-4, atol=1e-12)
    # outside the support the output is constant: the tangents of x, the shapes and loc are 0
    # (a log-density's slope in scale keeps its -1 / scale there, as in the reverse rule)
    for f, args in [(stats.gamma.logpdf, (np.array([-1.0]), np.array([2.0]))),
                    (stats.gamma.cdf, (np.array([-1.0]), np.array([2.0]))),
                    (stats.chi2.pdf, (np.array([-1.0]), np.array([3.0]))),
                    (stats.beta.logpdf, (np.array([1.5]), np.array([2.0]), np.array([2.0]))),
                    (stats.beta.cdf, (np.array([-0.5]), np.array([2.0]), np.array([2.0])))]:
        for param in list(forward_rule(f).signature.parameters)[:-1]:
            t = push(f, *args, tangents={param: np.ones(1)})
            np.testing.assert_array_equal(t, 0.0)


# ------------------------------------------------------------------ poisson: the count has no tangent
@pytest.mark.parametrize("method", ["pmf", "logpmf", "cdf"])
def test_poisson(method):
    f = getattr(stats.poisson, method)
    k, mu = np.array([0, 1, 2, 5, 3]), positive(5)
    tk, tmu = check_frule(f, k, mu)
    assert tk is None
    check_frule(f, k, 2.5)                                           # a Python float mu, broadcast against k
    (_, tmu, _) = check_frule(f, np.array([[3], [1]]), mu, 1)        # with loc
    assert tmu.shape == (2, 5)
    (_, tmu) = check_frule(f, k, mu.astype(np.float32))
    assert tmu.dtype == f(k, mu.astype(np.float32)).dtype
    assert_transposes(f, np.array([[3], [1]]), mu)
    assert is_zero(push(f, k, mu, 0.5, tangents={"k": np.ones(5), "loc": 1.0}))


def test_poisson_edges():
    t = push(stats.poisson.logpmf, np.array([0, 2]), np.array([0.0, 0.0]), tangents={"mu": np.ones(2)})
    assert t[0] == -1.0                                              # log pmf(0; mu) = -mu, also at mu = 0
    t = push(stats.poisson.pmf, np.array([1.5]), np.array([2.0]), tangents={"mu": np.ones(1)})
    assert t[0] == 0.0                                               # not a count: the pmf is 0 all around


# ------------------------------------------------------------------ multivariate_normal: symmetric tangents of cov
def spd(n):
    a = real(n, n)
    return a @ a.T + n * np.eye(n)


def symmetric(n):
    a = real(n, n)
    return (a + a.T) / 2


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_multivariate_normal(method):
    f = getattr(stats.multivariate_normal, method)
    cov = spd(3)
    for x in (real(4, 3), real(3), real(2, 5, 3), real(1, 3)):      # a single point gives a scalar
        args = (x, real(3), cov)
        check_direction(f, args, 0, real(*x.shape))
        check_direction(f, args, 1, real(3))
        check_direction(f, args, 2, symmetric(3))
        assert_transposes(f, *args, directions=[None, None, symmetric(3)])
    check_frule(f, real(4, 3), real(3), positive(3))                 # a diagonal cov, as a vector
    check_frule(f, real(4, 2), real(2), 1.7)                         # a scalar cov
    check_frule(f, real(5), 0.3, 2.0)                                # five points of one dimension
    check_direction(f, (real(4, 3), None, cov), 0, real(4, 3))       # no mean
    check_direction(f, (real(4, 3), None, cov), 2, symmetric(3))
    check_frule(f, real(4, 3), real(3), positive(3), True)           # allow_singular: the pseudo-inverse
    # the tangent of cov enters through its symmetric part (the reverse rule's symmetric gradient)
    x, mean, v = real(4, 3), real(3), real(3, 3)
    np.testing.assert_allclose(push(f, x, mean, cov, tangents={"cov": v}),
                               push(f, x, mean, cov, tangents={"cov": (v + v.T) / 2}), rtol=1e-12)


def test_multivariate_normal_closed_form():
    x, mean, cov, v = real(4, 3), real(3), spd(3), symmetric(3)
    inverse = np.linalg.inv(cov)
    r = (x - mean) @ inverse
    t = push(stats.multivariate_normal.logpdf, x, mean, cov, tangents={"cov": v})
    np.testing.assert_allclose(t, 0.5 * (np.einsum("ni,ij,nj->n", r, v, r) - np.trace(inverse @ v)), rtol=1e-10)


def test_multivariate_normal_entropy():
    cov = spd(3)
    v = symmetric(3)
    t = check_direction(stats.multivariate_normal.entropy, (real(3), cov), 1, v)
    np.testing.assert_allclose(t, 0.5 * np.trace(np.linalg.inv(cov) @ v), rtol=1e-10)
    assert type(t) is np.float64
    tmean, _ = check_frule(stats.multivariate_normal.entropy, real(3), positive(3))   # a diagonal cov, as a vector
    assert is_zero(tmean)
    check_frule(stats.multivariate_normal.entropy, None, 2.5)


# ------------------------------------------------------------------ dirichlet: tangents along the simplex
def on_simplex(k, n=None):
    return rng.dirichlet(np.ones(k) * 3, n).T if n else rng.dirichlet(np.ones(k) * 3)


def along_simplex(*shape):
    v = real(*shape)
    return v - v.mean(axis=0)


@pytest.mark.parametrize("method", ["logpdf", "pdf"])
def test_dirichlet(method):
    f = getattr(stats.dirichlet, method)
    alpha = positive(3)
    check_direction(f, (on_simplex(3), alpha), 0, along_simplex(3))
    check_direction(f, (on_simplex(3, 4), alpha), 0, along_simplex(3, 4))
    check_direction(f, (on_simplex(3, 4), alpha), 1, real(3))
    tx, talpha = check_frule(f, on_simplex(3, 4)[:2], alpha)         # the last component implied: x is free
    assert tx.shape == talpha.shape == (4,)
    tx, talpha = check_frule(f, on_simplex(4)[:3], positive(4))
    assert np.shape(tx) == np.shape(talpha) == ()
    x32, alpha32 = on_simplex(4)[:3].astype(np.float32), positive(4).astype(np.float32)
    tx, talpha = check_frule(f, x32, alpha32)
    assert tx.dtype == talpha.dtype == f(x32, alpha32).dtype
    assert_transposes(f, on_simplex(3, 4)[:2], alpha)


# ------------------------------------------------------------------ coverage
def test_every_differentiable_rule_has_a_forward_rule():
    rule_for(stats.norm.logpdf)                                      # registers the module's rules
    rules = [r for r in all_rules() if r.library == "scipy" and r.name.startswith("scipy.stats.")]
    differentiable = [r for r in rules if not r.nondifferentiable]
    assert len(differentiable) >= 27, [r.name for r in differentiable]
    missing = [r.name for r in differentiable if forward_rule(r.function) is None]
    assert not missing, f"no forward rule for {missing}"
    for r in differentiable:
        forward = forward_rule(r.function)
        assert forward.rule is r
        assert set(forward.jvps) == set(r.params), r.name
        assert any(jvp is not None for jvp in forward.jvps.values()), r.name
