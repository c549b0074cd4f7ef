"""Forward rules (jvps) of rules/scipy_special.py: finite differences over shapes and dtypes,
agreement with the reverse rules, edges, and coverage of every differentiable rule (skipped without SciPy)."""
import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

from s2sad.errors import MissingRuleError  # noqa: E402
import s2sad  # noqa: E402,F401
from s2sad.forward_check import check_frule, pushforward as push  # noqa: E402
from s2sad.registry.forward import forward_rule  # noqa: E402
from s2sad.registry import all_rules, rule_for  # noqa: E402
from s2sad.runtime.tangents import is_zero  # noqa: E402

rng = np.random.default_rng(20)

DOMAINS = {
    "real": lambda shape: rng.standard_normal(shape),
    "positive": lambda shape: rng.uniform(0.5, 3.0, shape),
    "unit": lambda shape: rng.uniform(0.1, 0.9, shape),
    "centred": lambda shape: rng.uniform(-0.8, 0.8, shape),
    "upper": lambda shape: rng.uniform(0.2, 1.8, shape),
}
POS, UNIT, REAL = DOMAINS["positive"], DOMAINS["unit"], DOMAINS["real"]


def pull(f, *args, g, **kwargs):
    y, pullback = rule_for(f).rrule(*args, **kwargs)
    return pullback(g)[1:]


def assert_transposes(f, *args, **kwargs):
    """<jvp(v), w> = <v, vjp(w)> for a random v of each float argument and a random w."""
    ans = f(*args, **kwargs)
    w = rng.standard_normal(np.shape(ans))
    cotangents = pull(f, *args, g=w, **kwargs)
    params = list(forward_rule(f).signature.parameters)
    for i, (x, ct) in enumerate(zip(args, cotangents)):
        if not isinstance(x, np.ndarray) or x.dtype.kind != "f":
            continue
        v = rng.standard_normal(x.shape)
        tangent = push(f, *args, tangents={params[i]: v}, **kwargs)
        left = 0.0 if is_zero(tangent) else float(np.sum(np.asarray(tangent) * w))
        right = 0.0 if is_zero(ct) else float(np.sum(np.asarray(ct) * v))
        np.testing.assert_allclose(left, right, rtol=1e-9, atol=1e-12, err_msg=f"{f.__name__}, argument {i}")


# ------------------------------------------------------------------ one float argument
UNARY = [
    (special.erf, "real"), (special.erfc, "real"), (special.erfcx, "real"), (special.erfinv, "centred"),
    (special.erfcinv, "upper"), (special.ndtr, "real"), (special.ndtri, "unit"), (special.log_ndtr, "real"),
    (special.expit, "real"), (special.logit, "unit"), (special.log_expit, "real"), (special.entr, "positive"),
    (special.gamma, "positive"), (special.gammaln, "positive"), (special.digamma, "positive"),
    (special.rgamma, "positive"), (special.i0, "real"), (special.i1, "real"), (special.i0e, "real"),
    (special.i1e, "real"), (special.j0, "real"), (special.j1, "real"), (special.y0, "positive"),
    (special.y1, "positive"), (special.k0, "positive"), (special.k1, "positive"), (special.k0e, "positive"),
    (special.k1e, "positive"), (special.dawsn, "real"), (special.erfi, "real"), (special.exp1, "positive"),
    (special.expi, "positive"),
]
UNARY_IDS = [f.__name__ for f, _ in UNARY]


@pytest.mark.parametrize("f, domain", UNARY, ids=UNARY_IDS)
def test_unary_finite_differences(f, domain):
    for shape in [(5,), (2, 3), (2, 1, 3)]:
        check_frule(f, DOMAINS[domain](shape))
    x = DOMAINS[domain]((2, 3))
    (t,) = check_frule(f, float(x[0, 0]))
    assert np.shape(t) == ()
    check_frule(f, np.array(x[0, 1]))                                  # 0-d array
    (t32,) = check_frule(f, x.astype(np.float32))
    assert t32.dtype == np.float32
    (t16,) = check_frule(f, x.astype(np.float16))                    # SciPy gives float32 or float64
    assert t16.dtype == f(x.astype(np.float16)).dtype
    assert_transposes(f, x)


# ------------------------------------------------------------------ two or three float arguments, broadcasting
SEVERAL = [
    (special.xlogy, (REAL, POS)), (special.xlog1py, (REAL, POS)), (special.rel_entr, (POS, POS)),
    (special.kl_div, (POS, POS)), (special.beta, (POS, POS)), (special.betaln, (POS, POS)),
    (special.gammainc, (POS, POS)), (special.gammaincc, (POS, POS)), (special.betainc, (POS, POS, UNIT)),
]
SEVERAL_IDS = [f.__name__ for f, _ in SEVERAL]
SHAPES = [((4,), (4,)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (3,)), ((2, 3), ())]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("f, makers", SEVERAL, ids=SEVERAL_IDS)
def test_several_finite_differences(f, makers, shapes):
    shapes = (shapes + shapes[:1])[:len(makers)]
    args = [make(shape) for make, shape in zip(makers, shapes)]
    check_frule(f, *args)
    if all(shape for shape in shapes):
        assert_transposes(f, *args)


@pytest.mark.parametrize("f, makers", SEVERAL, ids=SEVERAL_IDS)
def test_several_float32_and_python_floats(f, makers):
    for t in check_frule(f, *[make(3).astype(np.float32) for make in makers]):
        assert t.dtype == np.float32
    for t in check_frule(f, *[float(make(())) for make in makers]):
        assert np.shape(t) == () and np.asarray(t).dtype == np.float64
    # a Python float with float32 arrays: SciPy makes some float64, others float32 (check_frule
    # checks the tangent has the output's dtype), and the scalar's tangent is broadcast up
    args = [make(3).astype(np.float32) for make in makers]
    args[0] = float(makers[0](()))
    for t in check_frule(f, *args):
        assert t.shape == (3,)


# ------------------------------------------------------------------ an order or a dimension without a tangent
BESSEL = [(special.jv, "real"), (special.jn, "real"), (special.yv, "positive"), (special.yn, "positive"),
          (special.iv, "real"), (special.ive, "positive"), (special.kv, "positive"), (special.kve, "positive")]


@pytest.mark.parametrize("f, domain", BESSEL, ids=[f.__name__ for f, _ in BESSEL])
def test_bessel_functions_of_any_order(f, domain):
    x = DOMAINS[domain]((2, 3))
    check_frule(f, 2, x)
    check_frule(f, np.array([[0], [1]]), x)                          # orders broadcast against x
    check_frule(f, np.array([0, -1, 3]), x)
    check_frule(f, 1, float(x[0, 0]))
    (_, t32) = check_frule(f, 1, x.astype(np.float32))
    assert t32.dtype == f(1, x.astype(np.float32)).dtype            # float64 for yn (an integer order)
    assert_transposes(f, np.array([0, 1, 2]), x)
    if f not in (special.jn, special.yn):                            # a real order's tangent is refused
        orders = np.array([0.5, 1.7, 2.25])
        with pytest.raises(MissingRuleError, match="order"):
            push(f, orders, np.abs(x) + 0.1, tangents={"v": np.ones(3)})


def test_polygamma_and_multigammaln():
    x = POS((2, 3))
    for n in (0, 1, 3):
        check_frule(special.polygamma, n, x)
    check_frule(special.polygamma, np.array([0, 1, 2]), x)
    (_, t) = check_frule(special.polygamma, 1, x.astype(np.float32))    # float64 out, from float32 in
    assert t.dtype == special.polygamma(1, x.astype(np.float32)).dtype
    assert_transposes(special.polygamma, np.array([0, 1, 2]), x)
    a = rng.uniform(2.0, 4.0, (2, 3))
    for d in (1, 2, 3):
        check_frule(special.multigammaln, a, d)
    check_frule(special.multigammaln, 3.5, 2)
    assert_transposes(special.multigammaln, a, 3)


def test_slopes_against_closed_forms():
    a, b, x = POS(5), POS(5), UNIT(5)
    v = rng.standard_normal(5)
    np.testing.assert_allclose(push(special.gammaln, a, tangents={"x": v}), v * special.digamma(a), rtol=1e-12)
    np.testing.assert_allclose(push(special.betainc, a, b, x, tangents={"x": v}),
                               v * x ** (a - 1) * (1 - x) ** (b - 1) / special.beta(a, b), rtol=1e-10)
    np.testing.assert_allclose(push(special.gammainc, a, x, tangents={"x": v}),
                               v * x ** (a - 1) * np.exp(-x) / special.gamma(a), rtol=1e-10)
    np.testing.assert_allclose(push(special.j1, x, tangents={"x": v}), v * (special.j0(x) - special.jv(2, x)) / 2,
                               rtol=1e-12)


# ------------------------------------------------------------------ shape slopes of the incomplete functions
def test_shape_slopes_across_branch_switches():
    # both sides of x = a + 1 (gammainc) and x = (a + 1) / (a + b + 2) (betainc), where the series change
    a, x = np.array([[0.5, 0.01], [1.0, 1.99], [1.0, 2.01], [3.0, 9.0], [30.0, 31.5]]).T
    check_frule(special.gammainc, a, x)
    check_frule(special.gammaincc, a, x)
    a, b, x = np.array([[0.3, 0.4, 0.2], [2.0, 3.0, 0.4], [2.0, 3.0, 0.45], [5.0, 1.5, 0.9], [0.8, 30.0, 0.1]]).T
    check_frule(special.betainc, a, b, x)


# ------------------------------------------------------------------ edges: 0 * inf = 0, finite slopes where defined
def test_zero_tangents_through_infinite_slopes():
    t = push(special.entr, np.array([0.0, 1.0]), tangents={"x": np.array([0.0, 1.0])})
    np.testing.assert_array_equal(t, [0.0, -1.0])
    t = push(special.logit, np.array([0.0, 0.5, 1.0]), tangents={"x": np.array([0.0, 1.0, 0.0])})
    np.testing.assert_array_equal(t, [0.0, 4.0, 0.0])
    t = push(special.rel_entr, np.array([0.0, 2.0]), np.array([1.0, 1.0]), tangents={"x": np.array([0.0, 1.0])})
    np.testing.assert_allclose(t, [0.0, np.log(2.0) + 1])
    t = push(special.kl_div, np.array([0.0, 2.0]), np.array([1.0, 1.0]), tangents={"x": np.array([0.0, 1.0])})
    np.testing.assert_allclose(t, [0.0, np.log(2.0)])
    # rel_entr(0, y) is 0 for every y >= 0: flat in y, even at y = 0
    t = push(special.rel_entr, np.array([0.0, 0.0]), np.array([0.0, 1.0]), tangents={"y": np.ones(2)})
    np.testing.assert_array_equal(t, [0.0, 0.0])


def test_xlogy_and_xlog1py_at_zero():
    x, v = np.array([0.0, 0.0, 1.5]), np.ones(3)
    np.testing.assert_array_equal(push(special.xlogy, x, np.array([0.0, 2.0, 2.0]), tangents={"x": v}),
                                  [0.0, np.log(2.0), np.log(2.0)])
    np.testing.assert_array_equal(push(special.xlogy, x, np.array([0.0, 2.0, 2.0]), tangents={"y": v}),
                                  [0.0, 0.0, 0.75])
    np.testing.assert_array_equal(push(special.xlog1py, x, np.array([-1.0, 1.0, 1.0]), tangents={"y": v}),
                                  [0.0, 0.0, 0.75])
    check_frule(special.xlogy, np.zeros(3), rng.uniform(0.5, 2, 3))   # smooth at x = 0 for y > 0
    check_frule(special.xlog1py, np.zeros(3), rng.uniform(0.5, 2, 3))


def test_incomplete_functions_at_the_ends_of_their_domain():
    a, x = np.array([0.5, 1.0, 2.0, 2.0]), np.array([0.0, 0.0, 0.0, np.inf])
    np.testing.assert_array_equal(push(special.gammainc, a, x, tangents={"a": np.ones(4)}), [0, 0, 0, 0])
    np.testing.assert_array_equal(push(special.gammainc, a, x, tangents={"x": np.array([0.0, 1, 1, 1])}),
                                  [0, 1, 0, 0])
    t = push(special.betainc, np.full(3, 2.0), np.full(3, 3.0), np.array([0.0, 1.0, 0.5]),
             tangents={"a": np.ones(3), "b": np.ones(3)})
    assert np.all(np.isfinite(t)) and t[0] == t[1] == 0


def test_bessel_slopes_at_zero_and_log_ndtr_far_out():
    for f in (special.i1, special.i1e):
        np.testing.assert_allclose(push(f, np.array([0.0]), tangents={"x": np.array([2.0])}), [1.0])
    x = np.array([-40.0, -10.0])
    t = push(special.log_ndtr, x, tangents={"x": np.ones(2)})
    assert np.all(np.isfinite(t))
    np.testing.assert_allclose(t, -x, rtol=0.01)                     # the slope tends to -x
    check_frule(special.log_ndtr, np.array([-30.0, -8.0, 8.0, 30.0]))
    check_frule(special.erfcx, np.array([-3.0, 5.0, 50.0]))


def test_gammasgn_is_nondifferentiable_forward_too():
    forward = forward_rule(special.gammasgn)
    assert forward is not None and forward.rule.nondifferentiable and forward.jvps == {}


# ------------------------------------------------------------------ logsumexp, softmax, log_softmax
@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"axis": 0, "keepdims": True}, {"axis": (0, 2)},
                                    {"axis": -1, "keepdims": True}, {"keepdims": True}], ids=str)
def test_logsumexp_axes(kwargs):
    a = rng.standard_normal((3, 4, 2))
    (t,) = check_frule(special.logsumexp, a, **kwargs)
    assert np.shape(t) == np.shape(special.logsumexp(a, **kwargs))
    assert_transposes(special.logsumexp, a, **kwargs)


def test_logsumexp_weights_broadcast_and_dtypes():
    a = rng.standard_normal((3, 4))
    check_frule(special.logsumexp, a, 0, rng.uniform(0.5, 1, (3, 4)), True)
    check_frule(special.logsumexp, a, 1, rng.uniform(0.5, 1, (4,)))
    check_frule(special.logsumexp, rng.standard_normal((3, 1)), 1, rng.uniform(0.5, 1, (3, 4)))  # b wider than a
    check_frule(special.logsumexp, a, None, 0.7)
    check_frule(special.logsumexp, 1.5)
    b = rng.uniform(0.5, 1, (4,))
    assert_transposes(special.logsumexp, a, 1, b)
    (t32, *_) = check_frule(special.logsumexp, a.astype(np.float32), 1)
    assert t32.dtype == np.float32
    t, _, tb = check_frule(special.logsumexp, a.astype(np.float32), None, b.astype(np.float32))
    assert t.dtype == tb.dtype == np.float32 and t.shape == tb.shape == ()


def test_logsumexp_of_nothing_gives_zero_not_nan():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.0, 0.0], [1.0, 1.0]])
    t = push(special.logsumexp, a, 1, b, tangents={"a": np.ones((2, 2))})
    np.testing.assert_array_equal(t[0], 0.0)
    t = push(special.logsumexp, np.full(3, -np.inf), tangents={"a": np.ones(3)})
    assert t == 0


def test_logsumexp_with_its_sign():
    """return_sign=True: (log|sum|, sign), weights of both signs (sums negative, then positive), complex too."""
    a, b = rng.standard_normal((3, 4)), np.array([1.0, -2.0, 0.5, -0.25])
    check_frule(special.logsumexp, a, 1, b, False, True)
    check_frule(special.logsumexp, a, 1, -b, False, True)
    check_frule(special.logsumexp, a + 1j * rng.standard_normal((3, 4)), None, b, True, True)


def test_logsumexp_with_its_sign_refuses_a_sum_of_zero():
    with pytest.raises(NotImplementedError, match="weighted sum is not 0"):
        forward_rule(special.logsumexp).pushforward((np.zeros(2), None, np.array([1.0, -1.0]), False, True), {},
                                                    {"a": np.ones(2)}, (-np.inf, 0.0))


@pytest.mark.parametrize("f", [special.softmax, special.log_softmax], ids=lambda f: f.__name__)
def test_softmax_family(f):
    x = rng.standard_normal((3, 4))
    check_frule(f, x)
    check_frule(f, x, axis=0)
    check_frule(f, x, axis=-1)
    check_frule(f, x, axis=(0, 1))
    check_frule(f, rng.standard_normal(5))
    check_frule(f, 0.3)
    (t32,) = check_frule(f, x.astype(np.float32), axis=1)
    assert t32.dtype == np.float32
    assert_transposes(f, x, axis=1)
    if f is special.softmax:                                         # a shift along the axis changes nothing
        t = push(f, x, 1, tangents={"x": np.ones((3, 4))})
        np.testing.assert_allclose(t, 0, atol=1e-12)


# ------------------------------------------------------------------ coverage
def test_every_differentiable_rule_has_a_forward_rule():
    rule_for(special.erf)                                            # registers the module's rules
    rules = [r for r in all_rules() if r.library == "scipy" and r.name.startswith("scipy.special.")]
    differentiable = [r for r in rules if not r.nondifferentiable]
    assert len(differentiable) >= 49, [r.name for r in differentiable]
    missing = [r.name for r in differentiable if forward_rule(r.function) is None]
    assert not missing, f"no forward rule for {missing}"
    for r in differentiable:                                         # one jvp for each parameter with a vjp
        forward = forward_rule(r.function)
        assert forward.rule is r
        for param, vjp in r.vjps.items():
            assert (forward.jvps.get(param) is None) == (vjp is None), (r.name, param)
