"""Forward rules of rules/numpy_elementwise.py: each pushforward against central differences,
with the output's shape and dtype (float32, Python floats, 0-d arrays, numpy scalars,
broadcasting, complex: no conjugate), edges (ties, singular slopes, the clip bounds), and
coverage: every differentiable function the module registers has a forward rule."""
import importlib.util
from unittest import mock

import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad import registry
from s2sad.registry import forward as forward_rules
from s2sad.registry import slopes
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.runtime.tangents import ZERO

rng = np.random.default_rng(11)
C64 = dict(rtol=2e-3, atol=1e-4)  # complex64 results (check_frule's defaults are float64's)

DOMAINS = {
    "real": lambda shape: rng.standard_normal(shape),
    "positive": lambda shape: rng.uniform(0.5, 2.0, shape),
    "unit": lambda shape: rng.uniform(-0.9, 0.9, shape),
    "above1": lambda shape: rng.uniform(1.2, 3.0, shape),
    "nonzero": lambda shape: rng.choice([-1, 1], shape) * rng.uniform(0.3, 2.0, shape),
}


def complex_sample(shape, domain="complex"):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return {"complex": z, "small": 0.4 * z, "nonzero": z + 0.2 * np.sign(z.real)}[domain]


def as_kind(x, kind):
    """``x`` (an array of shape (2, 3)) as the given kind of argument."""
    return {"array": x, "float32": x.astype(np.float32), "float": float(x.flat[0]), "0d": np.array(x.flat[0]),
            "npscalar": np.float64(x.flat[0]), "float32scalar": np.float32(x.flat[0]), "column": x[:, :1],
            "empty": x[:0]}[kind]


def pushforward(f, args, tangents, kwargs=None):
    """The forward rule's output tangent for tangents given by parameter name."""
    kwargs = kwargs or {}
    ans = f(*args, **kwargs)
    return forward_rule(f).pushforward(args, kwargs, tangents, ans), ans


def check_keyword(f, args, kwargs, name, rtol=1e-5, atol=1e-7):
    """check_frule for a keyword argument (check_frule perturbs positional ones only)."""
    v = rng.standard_normal(np.shape(kwargs[name]))
    v = float(v) if type(kwargs[name]) is float else v
    got, ans = pushforward(f, args, {name: v}, kwargs)
    h = 1e-6
    up = f(*args, **{**kwargs, name: kwargs[name] + h * v})
    down = f(*args, **{**kwargs, name: kwargs[name] - h * v})
    assert np.shape(got) == np.shape(ans)
    np.testing.assert_allclose(got, (up - down) / (2 * h), rtol=rtol, atol=atol)
    return got


# ------------------------------------------------------------------ unary: (function, real domain)
UNARY = [
    (np.negative, "real"), (np.positive, "real"), (np.sin, "real"), (np.cos, "real"), (np.tan, "unit"),
    (np.arcsin, "unit"), (np.arccos, "unit"), (np.arctan, "real"), (np.sinh, "real"), (np.cosh, "real"),
    (np.tanh, "real"), (np.arcsinh, "real"), (np.arccosh, "above1"), (np.arctanh, "unit"), (np.exp, "real"),
    (np.exp2, "real"), (np.expm1, "real"), (np.log, "positive"), (np.log2, "positive"), (np.log10, "positive"),
    (np.log1p, "positive"), (np.sqrt, "positive"), (np.cbrt, "nonzero"), (np.square, "real"),
    (np.reciprocal, "nonzero"), (np.abs, "nonzero"), (np.fabs, "nonzero"), (np.deg2rad, "real"),
    (np.rad2deg, "real"), (np.radians, "real"), (np.degrees, "real"), (np.sinc, "nonzero"),
    (np.conjugate, "real"), (np.real, "real"), (np.nan_to_num, "real"), (np.real_if_close, "real"),
]
UNARY_IDS = [f.__name__ for f, _ in UNARY]
KINDS = ["array", "float32", "float", "0d", "npscalar", "float32scalar", "empty"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("f, domain", UNARY, ids=UNARY_IDS)
def test_unary(f, domain, kind):
    x = as_kind(DOMAINS[domain]((2, 3)), kind)
    (t,) = check_frule(f, x)  # shape and dtype checked too
    if kind == "float32":
        assert t.dtype == np.float32


# ------------------------------------------------------------------ holomorphic: f'(z) * g, no conjugate
HOLOMORPHIC = [
    (np.sin, "complex"), (np.cos, "complex"), (np.tan, "small"), (np.arcsin, "small"), (np.arccos, "small"),
    (np.arctan, "small"), (np.sinh, "complex"), (np.cosh, "complex"), (np.tanh, "small"), (np.arcsinh, "small"),
    (np.arccosh, "complex"), (np.arctanh, "small"), (np.exp, "complex"), (np.exp2, "complex"),
    (np.expm1, "complex"), (np.log, "nonzero"), (np.log2, "nonzero"), (np.log10, "nonzero"),
    (np.log1p, "small"), (np.sqrt, "nonzero"), (np.square, "complex"), (np.reciprocal, "nonzero"),
    (np.sinc, "nonzero"), (np.negative, "complex"), (np.positive, "complex"),
]


@pytest.mark.parametrize("f, domain", HOLOMORPHIC, ids=[f.__name__ for f, _ in HOLOMORPHIC])
def test_holomorphic(f, domain):
    z = complex_sample((2, 3), domain)
    (t,) = check_frule(f, z)
    check_frule(f, -z)  # the other half plane: branch cuts of arccosh, sqrt, log
    (t,) = check_frule(f, z.astype(np.complex64), **C64)
    assert t.dtype == np.complex64
    check_frule(f, complex(z[0, 0]))
    check_frule(f, np.array(z[0, 0]))


def test_holomorphic_slope_is_not_conjugated():
    z, g = complex_sample(4, "nonzero"), complex_sample(4)
    (t, _) = pushforward(np.log, (z,), {"x": g})
    np.testing.assert_allclose(t, g / z)
    (t, _) = pushforward(np.multiply, (z, 2 - 1j), {"x1": g})
    np.testing.assert_allclose(t, g * (2 - 1j))


# ------------------------------------------------------------------ complex parts
@pytest.mark.parametrize("f", [np.abs, np.real, np.imag, np.conjugate, np.conj, np.angle, np.real_if_close])
def test_complex_parts(f):
    z = complex_sample((2, 3), "nonzero")
    check_frule(f, z)
    (t,) = check_frule(f, z.astype(np.complex64), **C64)
    assert t.dtype == np.result_type(f(z.astype(np.complex64)))
    check_frule(f, complex(z[0, 0]))
    check_frule(f, np.array(z[0, 0]))


def test_abs_of_complex():
    z = np.array([3 + 4j, 0j, -1j])
    (t, ans) = pushforward(np.abs, (z,), {"x": np.array([1 + 1j, 5j, 2 + 2j])})
    np.testing.assert_allclose(t, [0.6 + 0.8, 0.0, -2.0])  # Re(conj(z) g) / |z|, 0 at 0
    assert t.dtype == np.float64


@pytest.mark.parametrize("deg", [False, True])
def test_angle(deg):
    z = complex_sample((2, 3), "nonzero")
    check_frule(np.angle, z, deg)
    check_frule(np.angle, z.astype(np.complex64), deg, **C64)
    g = complex_sample((2, 3))
    (t, _) = pushforward(np.angle, (z, deg), {"z": g})
    np.testing.assert_allclose(t, (180 / np.pi if deg else 1) * np.imag(g / z))
    with np.errstate(all="raise"):
        (t, _) = pushforward(np.angle, (np.array([0j, 1j]), deg), {"z": np.ones(2, complex)})
    assert t[0] == 0
    x = rng.standard_normal(3).astype(np.float32)  # a real number's angle is piecewise constant
    (t, _) = check_frule(np.angle, x, deg)
    assert t.dtype == np.float32 and not t.any()


def test_imag_of_real_is_zero_and_real_of_real_is_identity():
    x = rng.standard_normal(3).astype(np.float32)
    (t,) = check_frule(np.imag, x)
    assert t.dtype == np.float32 and not t.any()
    (t,) = check_frule(np.real, x)
    assert t.dtype == np.float32
    assert type(check_frule(np.real, 1.5)[0]) is float


def test_real_if_close():
    z = complex_sample((2, 3))
    (t,) = check_frule(np.real_if_close, z)  # not close: the identity
    assert t.dtype == np.complex128
    nearly_real = z.real + 1e-20j
    (t, ans) = pushforward(np.real_if_close, (nearly_real,), {"a": z})
    np.testing.assert_array_equal(t, z.real)  # close: the real part
    assert t.dtype == ans.dtype == np.float64


# ------------------------------------------------------------------ binary: (function, domains)
BINARY = [
    (np.add, ("real", "real")), (np.subtract, ("real", "real")), (np.multiply, ("real", "real")),
    (np.divide, ("real", "nonzero")), (np.power, ("positive", "real")), (np.float_power, ("positive", "real")),
    (np.remainder, ("positive", "positive")), (np.fmod, ("real", "positive")), (np.arctan2, ("real", "nonzero")),
    (np.hypot, ("real", "nonzero")), (np.logaddexp, ("real", "real")), (np.logaddexp2, ("real", "real")),
    (np.maximum, ("real", "real")), (np.minimum, ("real", "real")), (np.fmax, ("real", "real")),
    (np.fmin, ("real", "real")),
]
BINARY_IDS = [f.__name__ for f, _ in BINARY]
SHAPES = [((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((3, 1, 2), (4, 1)), ((0, 3), (3,))]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("f, domains", BINARY, ids=BINARY_IDS)
def test_binary_broadcasting(f, domains, shapes):
    check_frule(f, DOMAINS[domains[0]](shapes[0]), DOMAINS[domains[1]](shapes[1]))


@pytest.mark.parametrize("f, domains", BINARY, ids=BINARY_IDS)
def test_binary_scalars_and_dtypes(f, domains):
    a, b = DOMAINS[domains[0]]((2, 3)), DOMAINS[domains[1]]((2, 3))
    check_frule(f, float(a[0, 0]), float(b[0, 0]))
    check_frule(f, np.array(a[0, 0]), float(b[0, 0]))
    check_frule(f, np.float64(a[0, 0]), b)
    ta, tb = check_frule(f, a.astype(np.float32), b.astype(np.float32))
    want = np.float64 if f is np.float_power else np.float32
    assert ta.dtype == tb.dtype == want
    ta, tb = check_frule(f, a.astype(np.float32), float(b[0, 0]))  # a Python float's tangent, in float32
    assert ta.dtype == tb.dtype == want
    ta, tb = check_frule(f, float(a[0, 0]), b[0].astype(np.float32))
    assert ta.dtype == tb.dtype == want
    ta, tb = check_frule(f, a.astype(np.float32), b[0])  # float32 meets float64: float64 tangents
    assert ta.dtype == tb.dtype == np.float64
    check_frule(f, a, np.array(b[0, 0]))
    check_frule(f, a[:, :1], b[0])


@pytest.mark.parametrize("f", [np.add, np.subtract, np.multiply, np.divide, np.power, np.float_power])
def test_binary_complex(f):
    a, b = complex_sample((2, 3), "nonzero"), complex_sample(3, "nonzero")
    check_frule(f, a, b)
    ta, tb = check_frule(f, a.real, b)  # a real operand's real tangent makes a complex output tangent
    assert ta.dtype == tb.dtype == np.complex128
    ta, tb = check_frule(f, a.astype(np.complex64), 1.5, **C64)
    assert ta.dtype == tb.dtype == (np.complex128 if f is np.float_power else np.complex64)
    check_frule(f, complex(a[0, 0]), complex(b[0]))


def test_power_special_points():
    with np.errstate(all="raise"):
        (t, _) = pushforward(np.power, (np.array([0.0, 2.0]), np.array([2.0, 3.0])), {"x2": np.ones(2)})
        np.testing.assert_allclose(t, [0.0, 8 * np.log(2)])  # 0 ** y is flat in y
        (t, _) = pushforward(np.power, (np.array([0.0, 2.0]), 0.0), {"x1": np.ones(2)})
        np.testing.assert_array_equal(t, [0.0, 0.0])  # x ** 0 is flat, at 0 too
        (t, _) = pushforward(np.power, (np.array([0.0, 2.0]), 0.5), {"x1": np.zeros(2)})
        np.testing.assert_array_equal(t, [0.0, 0.0])  # a zero tangent at an infinite slope
    check_frule(np.power, rng.standard_normal((2, 3)), 2)  # an int exponent
    check_frule(np.power, rng.standard_normal((2, 3)), np.array([1, 2, 3]))
    check_frule(np.power, rng.standard_normal(3).astype(np.float32), 3.0)
    check_frule(np.power, -rng.uniform(0.5, 2, 3), 0.5j + rng.standard_normal(3))  # complex log of a negative base
    check_frule(np.power, rng.uniform(0.5, 2, 3), -1.5)
    check_frule(np.power, np.arange(1, 4), rng.standard_normal(3))  # an int base has no tangent


@pytest.mark.parametrize("f", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_ties_average_the_tangents(f):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    va, vb = np.array([2.0, 3.0, 4.0]), np.array([6.0, 7.0, 8.0])
    (t, _) = pushforward(f, (a, b), {"x1": va, "x2": vb})
    first = {np.maximum: [4.0, 3.0, 8.0], np.fmax: [4.0, 3.0, 8.0], np.minimum: [4.0, 7.0, 4.0],
             np.fmin: [4.0, 7.0, 4.0]}[f]
    np.testing.assert_array_equal(t, first)
    (t, _) = pushforward(f, (2.0, 2.0), {"x1": 1.0, "x2": 3.0})
    assert t == 2.0


# ------------------------------------------------------------------ selection
def test_where():
    condition = rng.standard_normal((2, 3)) > 0
    check_frule(np.where, condition, rng.standard_normal((2, 3)), rng.standard_normal(3))
    tx, ty = check_frule(np.where, condition, 1.5, rng.standard_normal((2, 1)).astype(np.float32))[1:]
    assert tx.dtype == ty.dtype == np.float32 and tx.shape == ty.shape == (2, 3)
    check_frule(np.where, condition, np.float32(1.5), rng.standard_normal(3))
    check_frule(np.where, condition[0], rng.standard_normal((2, 1)), 0.5)  # the output is larger than x
    check_frule(np.where, True, 1.5, 2.5)
    check_frule(np.where, condition, complex_sample(3), rng.standard_normal((2, 3)))
    (t, _) = pushforward(np.where, (condition, np.zeros((2, 3)), 0.0), {"x": np.ones((2, 3)), "y": 5.0})
    np.testing.assert_array_equal(t, np.where(condition, 1.0, 5.0))


def test_clip():
    x = rng.standard_normal((3, 4))
    check_frule(np.clip, x, -0.5, rng.uniform(0.1, 1, 4))
    check_frule(np.clip, x, rng.uniform(-1, -0.1, (3, 1)), 0.5)
    (t, _, _) = check_frule(np.clip, x.astype(np.float32), -0.5, None)
    assert t.dtype == np.float32
    check_frule(np.clip, x.astype(np.float32), -0.5, 0.5)
    check_frule(np.clip, x, None, np.float32(0.2))
    check_frule(np.clip, float(x[0, 0]), -0.5, 0.5)
    check_frule(np.clip, x, 0.5, -0.5)  # a lower bound above the upper: numpy returns the upper bound
    check_frule(np.clip, np.array([-2.0, 0.0, 2.0]), -1.0, 1.0)
    check_keyword(np.clip, (x,), {"min": -0.5, "max": 0.5}, "min")
    check_keyword(np.clip, (x,), {"min": -0.5, "max": rng.uniform(0.1, 1, 4)}, "max")
    check_keyword(np.clip, (x,), {"max": rng.uniform(0.1, 1, 4)}, "max")
    (t, _) = pushforward(np.clip, (np.array([-2.0, -1.0, 0.0, 1.0, 2.0]), -1.0, 1.0),
                         {"a": np.ones(5), "a_min": 10.0, "a_max": 100.0})
    np.testing.assert_array_equal(t, [10.0, 1.0, 1.0, 1.0, 100.0])  # the bounds are inside


def test_nan_to_num():
    x = rng.standard_normal((2, 4))
    x[0, 0], x[0, 1], x[1, 2] = np.nan, np.inf, -np.inf
    check_frule(np.nan_to_num, x)
    check_frule(np.nan_to_num, x, True, 1.5, 10.0, -10.0)
    check_frule(np.nan_to_num, x.astype(np.float32), True, 1.5, 10.0, -10.0)
    check_keyword(np.nan_to_num, (x,), {"nan": 0.5, "posinf": 3.0, "neginf": rng.standard_normal(4)}, "neginf")
    z = x + 1j * rng.standard_normal((2, 4))
    z[1, 0] = complex(1.0, np.nan)
    check_frule(np.nan_to_num, z, True, 1.5, 10.0, -10.0)
    (t, _) = pushforward(np.nan_to_num, (z,), {"x": np.ones((2, 4)) * (1 + 1j), "nan": 2.0})
    assert t[1, 0] == 1 + 2j and t[0, 0] == 2 + 1j and t[0, 1] == 1j and t[1, 1] == 1 + 1j


@pytest.mark.parametrize("cast", [np.float64, np.float32, np.float16])
def test_scalar_type_casts(cast):
    x = rng.standard_normal((2, 3))
    v = rng.standard_normal((2, 3))
    (t, ans) = pushforward(cast, (x,), {"x": v})
    assert t.dtype == ans.dtype == np.dtype(cast)
    np.testing.assert_array_equal(t, cast(v))
    (t, ans) = pushforward(cast, (np.float32(1.5),), {"x": np.float32(2.0)})
    assert type(t) is cast and t == 2.0
    if cast is np.float64:  # narrower outputs: central differences of a cast are all rounding
        check_frule(cast, np.float32(1.5))
        check_frule(cast, 1.5)


# ------------------------------------------------------------------ slopes and zero tangents
@pytest.mark.parametrize("f, x", [(np.sqrt, 0.0), (np.log, 0.0), (np.arcsin, 1.0), (np.arccos, -1.0),
                                  (np.arctanh, 1.0), (np.cbrt, 0.0), (np.log1p, -1.0), (np.arccosh, 1.0),
                                  (np.log2, 0.0), (np.log10, 0.0)])
def test_zero_tangent_at_an_infinite_slope_is_zero(f, x):
    forward = forward_rule(f)
    x = np.array([x, 0.5 if f is not np.arccosh else 2.0])
    with np.errstate(all="ignore"):
        t = forward.jvp_function("x")(np.zeros(2), f(x), x)
    np.testing.assert_array_equal(t, [0.0, 0.0])


def test_abs_and_sinc_slopes_at_zero():
    (t, _) = pushforward(np.abs, (np.array([-1.0, 0.0, 2.0]),), {"x": np.ones(3)})
    np.testing.assert_array_equal(t, [-1.0, 0.0, 1.0])
    (t, _) = pushforward(np.sinc, (np.array([0.0]),), {"x": np.ones(1)})
    np.testing.assert_array_equal(t, [0.0])


ARITHMETIC = [np.negative, np.positive, np.sin, np.cos, np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh,
              np.tanh, np.arcsinh, np.arccosh, np.arctanh, np.exp, np.exp2, np.expm1, np.log, np.log2, np.log10,
              np.log1p, np.sqrt, np.cbrt, np.square, np.reciprocal, np.abs, np.fabs, np.deg2rad, np.rad2deg,
              np.radians, np.degrees, np.sinc, np.real, np.add, np.subtract, np.multiply, np.divide, np.power,
              np.float_power, np.remainder, np.fmod, np.arctan2, np.hypot, np.logaddexp, np.logaddexp2]


@pytest.mark.parametrize("f", ARITHMETIC, ids=[f.__name__ for f in ARITHMETIC])
def test_arithmetic_jvps_keep_a_zero_tangent_zero(f):
    """Generated code may hold ZERO for a tangent (a loop's first pass, a branch not taken)."""
    forward = forward_rule(f)
    args = (np.array([0.5, 0.7]),) * len(forward.jvps)
    bound = forward.signature.bind(*args)
    bound.apply_defaults()  # np.square(x, dtype=...): the keywords after the arrays
    for param in forward.jvps:
        assert forward.jvp_function(param)(ZERO, f(*args), *bound.arguments.values()) is ZERO


# ------------------------------------------------------------------ coverage
def registrations(module_name):
    """What a rules module registers: the functions it gives reverse rules (or declares
    nondifferentiable) and the (owner, name) of the methods it gives rules, found by running its
    source again with the registry's registration functions recording (and registering nothing)."""
    spec = importlib.util.find_spec(module_name)
    functions, methods = [], []

    def record(function, *args, **kwargs):
        functions.append(function)
        return registry.rule_for(function)

    def record_all(*fs):
        functions.extend(fs)

    def record_method(owner, name, *args, **kwargs):
        methods.append((owner, name))

    def ignore(*args, **kwargs):
        return None

    recorders = {name: record for name in ("defvjp", "defvjp_all", "defrrule")}
    with mock.patch.multiple(registry, nondifferentiable=record_all, defmethod=record_method, **recorders), \
            mock.patch.multiple(slopes, defderivative=record, defslopes=record), \
            mock.patch.multiple(forward_rules, defjvp=ignore, deflinear=ignore, defjvp_method=ignore):
        namespace = {"__name__": f"{module_name}__recount", "__package__": spec.parent, "__file__": spec.origin}
        exec(compile(spec.loader.get_source(module_name), spec.origin, "exec"), namespace)
    return functions, methods


def registered_by(module_name):
    """The functions a rules module registers (see registrations)."""
    return registrations(module_name)[0]


def test_every_differentiable_rule_has_a_forward_rule():
    functions = registered_by("s2sad.rules.numpy_elementwise")
    assert np.sin in functions and np.clip in functions and np.fmin in functions
    rules = [rule for rule in registry.all_rules() if any(rule.function is f for f in functions)]
    assert len(rules) == len({id(f) for f in functions})
    missing = [rule.name for rule in rules if not rule.nondifferentiable and forward_rule(rule.function) is None]
    assert missing == []
    for rule in rules:  # one jvp per parameter of the reverse rule, no more
        assert set(forward_rule(rule.function).jvps) <= set(rule.params)


def test_no_tangent_for_int_operands():
    (t, _) = pushforward(np.add, (np.arange(3), 1.5), {"x2": 2.0})
    assert t.dtype == np.float64 and t.shape == (3,)
    assert check_frule(np.sin, np.arange(3)) == [None]
