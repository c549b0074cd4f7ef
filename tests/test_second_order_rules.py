"""Second order through every rule: ``s2sad.hvp`` of a scalar loss around each rule's call
matches central differences of central differences (never s2sad against itself).

``hvp`` differentiates the generated forward code in reverse, so a rule's jvp (its template,
its callable, the helpers they call) must itself be differentiable: this walks the registry
as ``tests/rules/test_complex_audit.py`` does, and reuses its argument makers. For each rule
a small module is written with one function::

    def loss(x0, x1):
        y = function(C[0], x0, x1)       # function: the rule's (np.einsum), C: the constants
        return np.sum(np.real(W * y)) + 0.5 * np.sum(np.real(U * y * y))

(the rule called as users write it, its float arguments differentiated, the others module
constants), and ``hvp(loss, leaves, directions)`` along one random direction is compared
with the mixed central difference ``(L(x+h e_i+h v) - L(x+h e_i-h v) - L(x-h e_i+h v)
+ L(x-h e_i-h v)) / 4h^2`` for every real coordinate ``e_i`` (real and imaginary parts of a
complex leaf: the gradient of a real loss at complex ``z`` is ``dL/dRe z + i dL/dIm z``).

Rules are checked at real arguments (the real parts of the audit's), and at the audit's
complex arguments where it checks them (``CHECKED``). A rule is left out only with a reason,
in ``SKIPPED``.
"""
import importlib.util
import os
import sys
import warnings

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "rules"))
import test_complex_audit as audit  # noqa: E402  (the argument makers of every rule)

import s2sad  # noqa: E402
from s2sad import registry  # noqa: E402



def objective(y, w, u):
    """The loss's text for an output ``y`` and weights ``w``, ``u`` (written out in the loss: a
    helper function would be transformed again for every rule)."""
    return f"np.sum(np.real({w} * {y})) + 0.5 * np.sum(np.real({u} * {y} * {y}))"

SKIPPED = {  # rule name: why its second derivative is not checked here
    **{name: "a cast to a narrower float: the loss moves in steps of float32's (float16's) rounding, which "
             "central differences of central differences cannot resolve (its derivative is 1, and its second 0)"
       for name in ("numpy.float32", "numpy.float16")},
    **{name: "its first derivative is refused (rules/refusals.py): nothing to differentiate again" for name in """
        numpy.fromiter numpy.random.RandomState.choice numpy.random.RandomState.normal
        numpy.random.RandomState.permutation numpy.random.RandomState.uniform scipy.linalg.lu_factor""".split()},
    **{f"{name}-complex": "its forward rule takes digamma at complex arguments, which SciPy lacks: refused "
                          "(rules/scipy_special.py) with an s2sad error" for name in ("scipy.special.gamma",
                                                                                      "scipy.special.rgamma")},
    "scipy.integrate.odeint": "second derivatives through odeint are refused (README, scipy.integrate)",
    **{f"numpy.linalg.{name}": f"the rule functions (or templates) of numpy.{numpy_name}, called with the last axes: "
                               f"walked there (rules/numpy_array_api.py)"
       for name, numpy_name in (("matmul", "matmul"), ("vecdot", "vecdot"), ("tensordot", "tensordot"),
                                ("cross", "cross"), ("trace", "trace"), ("diagonal", "diagonal"),
                                ("matrix_transpose", "matrix_transpose"))},
    **{name: "SciPy refuses a point off the simplex, where central differences step: its jvp's second "
             "derivative is checked with directions along the simplex in tests/rules/test_scipy_stats.py"
       for name in ("scipy.stats.dirichlet.logpdf", "scipy.stats.dirichlet.pdf")},
}

# Arguments held constant: shape parameters whose first derivative is a series summed on dual
# numbers (rules/scipy_special.py), which s2sad refuses to differentiate again, and hyp2f1's a,
# b, c, which have no derivative at all: refused with an error naming the line
# (test_second_derivatives_in_shape_parameters_are_refused).
CONSTANTS = {"scipy.special.gammainc": (0,), "scipy.special.gammaincc": (0,),
             **{name: (1,) for name in "scipy.stats.gamma.cdf scipy.stats.chi2.cdf scipy.stats.t.cdf "
                                       "scipy.stats.t.logcdf".split()},
             "scipy.stats.beta.cdf": (1, 2), "scipy.special.hyp2f1": (0, 1, 2)}

# Real arguments where the audit's (the real parts of its complex ones) sit near a pole or
# off a domain: central differences need room around the point.
REAL_ARGUMENTS = {
    # q constant (a differentiated q is refused: the virtual index crosses sorted positions)
    **{name: lambda rng: audit.calls(audit.x(rng, 5), q=0.3) for name in ("numpy.quantile", "numpy.percentile")},
    "scipy.special.gamma": lambda rng: audit.calls(np.abs(audit.x(rng, 2, 3)) + 0.5),
}

# Outputs whose value is not a function of the input alone: eigenvectors and singular vectors
# have a free phase (a sign for real ones), so the loss reads them through |v|^2.
PHASE_BLIND = objective("y[0]", "W[0]", "U[0]") + " + np.sum(np.real(W[1]) * np.abs(y[1]) ** 2)"
OBJECTIVES = {
    "numpy.linalg.eig": PHASE_BLIND,
    "numpy.linalg.eigh": PHASE_BLIND,
    "numpy.linalg.svd": objective("y[1]", "W[1]", "U[1]") + " + np.sum(np.real(W[0]) * np.abs(y[0]) ** 2)"
                        " + np.sum(np.real(W[2]) * np.abs(y[2]) ** 2)",
}

# Arguments read through a symmetric part: SciPy's multivariate normal reads its covariance
# as symmetric (its gradient is the symmetric one), so the loss hands it (C + C^T) / 2.
SYMMETRIC = {"scipy.stats.multivariate_normal.logpdf": 2, "scipy.stats.multivariate_normal.pdf": 2,
             "scipy.stats.multivariate_normal.entropy": 1}


def _is_leaf(value) -> bool:
    if isinstance(value, (bool, int, str)) or value is None:
        return False
    if isinstance(value, (float, complex)):
        return True
    return isinstance(value, (np.ndarray, np.generic)) and np.asarray(value).dtype.kind in "fc"


def _each_item(value, changed):
    """``value`` with ``changed`` applied to it, or to each item of a list or tuple, at any depth."""
    if isinstance(value, (list, tuple)):
        return type(value)(_each_item(item, changed) for item in value)
    return changed(value)


def _real_part(value):
    if isinstance(value, complex):
        return value.real
    if isinstance(value, (np.ndarray, np.generic)) and np.iscomplexobj(value):
        return np.real(value).copy()
    return value


def _real(value):
    return _each_item(value, _real_part)


def _call_text(function_text, args, kwargs, rule, symmetric=None, constants=()):
    """The call's source and its leaves: float arguments (and float items of list or tuple
    arguments) become parameters x0, x1, ...; everything else a constant of the module."""
    leaves, parts = [], []
    params = list(rule.params)
    for i, value in enumerate(args):
        param = params[i] if i < len(params) else None
        differentiable = not (param is not None and rule.vjp_all is None and rule.rrule_function is None
                              and param in rule.vjps and rule.vjps[param] is None)
        differentiable = differentiable and i not in constants
        if differentiable and _is_leaf(value):
            parts.append(f"(x{len(leaves)} + x{len(leaves)}.T) / 2" if i == symmetric else f"x{len(leaves)}")
            leaves.append(value)
        elif differentiable and isinstance(value, (list, tuple)) and any(_is_leaf(item) for item in value):
            items = []
            for j, item in enumerate(value):
                if _is_leaf(item):
                    items.append(f"x{len(leaves)}")
                    leaves.append(item)
                else:
                    items.append(f"C[{i}][{j}]")
            parts.append(f"[{', '.join(items)}]" if isinstance(value, list) else f"({', '.join(items)},)")
        else:
            parts.append(f"C[{i}]")
    keywords = [f"{key}=K[{key!r}]" for key in kwargs]
    if any(p.kind is p.VAR_POSITIONAL for p in rule.signature.parameters.values()):
        # forward code calls a rule whose *args hold a differentiated value through the value (method_jvp)
        return f"{function_text}(*[{', '.join(parts)}]{''.join(', ' + k for k in keywords)})", leaves
    return f"{function_text}({', '.join(parts + keywords)})", leaves


def _is_float_output(y) -> bool:
    return isinstance(y, (float, complex, np.ndarray, np.generic)) and np.asarray(y).dtype.kind in "fc"


def _objective_text(name, y):
    """``objective`` of the output, of each float item of a tuple or list output (an int rank,
    a bool flag have no tangent), or the phase-blind objective a rule names in ``OBJECTIVES``."""
    if name in OBJECTIVES:
        return OBJECTIVES[name]
    if isinstance(y, (tuple, list)):
        if any(isinstance(item, list) for item in y):
            return objective("np.array(y)", "W", "U")  # nested lists (tolist): read as the array they came from
        return " + ".join(objective(f"y[{i}]", f"W[{i}]", f"U[{i}]") for i, item in enumerate(y) if _is_float_output(item))
    return objective("y", "W", "U")


def _weights(y, rng):
    if isinstance(y, (tuple, list)) and not any(isinstance(item, list) for item in y):
        pairs = [_weights(item, rng) if _is_float_output(item) else (None, None) for item in y]
        return [w for w, _ in pairs], [u for _, u in pairs]
    shape, complex_ = np.shape(y), np.iscomplexobj(y)

    def draw():
        sample = rng.standard_normal(shape)
        return sample + 1j * rng.standard_normal(shape) if complex_ else sample

    return draw(), draw()


# Every loss module stays alive for the session: s2sad's caches of generated code in memory are
# found by function identity, and a collected module's functions would hand their ids on
# (a later function then ran code generated for another: OPEN, reported).
KEPT = []


def _module(tmp_path, name, call, objective_text, constants, kwargs, weights, function):
    source = (f"import numpy as np\nimport scipy.special, scipy.stats, scipy.linalg, scipy.signal\n\n\n"
              f"def loss({', '.join(f'x{i}' for i in range(call[1]))}):\n"
              f"    y = {call[0]}\n    return {objective_text}\n")
    path = tmp_path / f"second_order_{abs(hash(name)) % 10 ** 8}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.C, module.K, (module.W, module.U), module.function = constants, kwargs, weights, function
    KEPT.append(module)
    return module


def _coordinates(leaves):
    """(leaf index, flat index, unit) for every real coordinate: 1 and, for a complex leaf, 1j."""
    for k, leaf in enumerate(leaves):
        for index in range(np.size(leaf)):
            yield k, index, 1.0
            if np.iscomplexobj(leaf):
                yield k, index, 1j


def _moved(leaves, steps):
    out = []
    for leaf, step in zip(leaves, steps):
        if isinstance(leaf, (float, complex)):
            out.append(leaf + complex(step).real if isinstance(leaf, float) else leaf + complex(step))
        else:
            out.append((np.asarray(leaf) + np.reshape(step, np.shape(leaf))).astype(np.asarray(leaf).dtype))
    return out


def _finite_difference_hvp(loss, leaves, directions, h=1e-4):
    products = [np.zeros(np.shape(leaf), dtype=complex if np.iscomplexobj(leaf) else float) for leaf in leaves]
    for k, index, unit in _coordinates(leaves):
        total = 0.0
        for a, b, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
            steps = []
            for j, (leaf, v) in enumerate(zip(leaves, directions)):
                step = b * h * np.asarray(v, dtype=complex)
                if j == k:
                    e = np.zeros(np.shape(leaf), dtype=complex)
                    e.flat[index] = a * h * unit
                    step = step + e
                steps.append(step if np.iscomplexobj(leaf) else np.real(step))
            total += sign * float(np.real(loss(*_moved(leaves, steps))))
        value = total / (4 * h * h)
        flat = products[k].reshape(-1)
        flat[index] += value * unit
    return [p.reshape(np.shape(leaf)) if np.ndim(leaf) else p[()] for p, leaf in zip(products, leaves)]


def check_second_order(tmp_path, name, function_text, args, kwargs, rule, seed, constants=None):
    rng = np.random.default_rng(seed)
    constants = CONSTANTS.get(name, ()) if constants is None else constants
    call, leaves = _call_text(function_text, args, kwargs, rule, SYMMETRIC.get(name), constants)
    if not leaves:
        pytest.skip("no float argument")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = rule.function(*args, **kwargs)
    module = _module(tmp_path, name, (call, len(leaves)), _objective_text(name, y), args, kwargs, _weights(y, rng),
                     rule.function)
    directions = [audit.random_like(leaf, rng) for leaf in leaves]
    got = s2sad.hvp(module.loss, tuple(leaves), tuple(directions))
    got = got if len(leaves) > 1 else (got,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _finite_difference_hvp(module.loss, leaves, directions)
    scale = max(1.0, max(float(np.max(np.abs(e))) if np.size(e) else 0.0 for e in expected))
    for k, (g, e) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-5 * scale,
                                   err_msg=f"hvp through {name}, argument x{k}")


# ------------------------------------------------------------------ the walk
def _rule(name):
    return next(rule for rule in registry.all_rules() if rule.name == name)


def _differentiable_names():
    return sorted({rule.name for rule in registry.all_rules() if not rule.nondifferentiable})


def _makers(name):
    """(kind, maker) pairs: real arguments always, complex ones where the audit checks them."""
    if name in audit.CHECKED:
        return [("real", audit.CHECKED[name]), ("complex", audit.CHECKED[name])]
    for table in (audit.REAL_ONLY, audit.REFUSED):
        if name in table:
            return [("real", table[name][1])]
    return []


CASES = [(name, kind) for name in _differentiable_names() for kind, _ in _makers(name) or [("none", None)]]


def test_every_rule_with_a_gradient_is_walked():
    """A rule without argument makers is one of the audit's NOT_NUMERIC (s2sad's own helpers,
    Python's value movers), skipped below with the audit's reason."""
    for name in _differentiable_names():
        assert _makers(name) or name in audit.NOT_NUMERIC, f"{name}: no arguments to check its second derivative at"


@pytest.mark.parametrize("name, kind", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_second_order_through_rule(tmp_path, name, kind):
    for key in (name, f"{name}-{kind}"):
        if key in SKIPPED:
            pytest.skip(SKIPPED[key])
    if kind == "none":
        pytest.skip(f"not numeric (see the complex audit): {audit.NOT_NUMERIC[name]}")
    rule = _rule(name)
    maker = REAL_ARGUMENTS.get(name, dict(_makers(name))[kind]) if kind == "real" else dict(_makers(name))[kind]
    args, kwargs, _ = audit._unpack(maker(audit._rng(name)))
    if kind == "real":
        args, kwargs = _in_domain(rule.function, _real(args), {key: _real(value) for key, value in kwargs.items()})
    if f"{name}-{kind}" in REFUSED_AGAIN:
        with pytest.raises(s2sad.S2SADError):
            check_second_order(tmp_path, name, "function", args, kwargs, rule, seed=len(name))
        return
    check_second_order(tmp_path, name, "function", args, kwargs, rule, seed=len(name))


# rule and kind -> why its second derivative is refused (an s2sad error, checked), not computed
REFUSED_AGAIN = {
    "scipy.special.betainc-real": "its derivative in a and b is a continued fraction of a `_Dual` class "
                                  "(rules/scipy_special.py) that has no rule itself",
}


# Real parts of the audit's complex arguments fall outside many functions' domains (log, sqrt and
# arcsin of a negative, Y_v below 0): the loss is NaN there, and so are its central differences,
# which then compared equal to anything NaN (hvp gave NaN everywhere while its value's cotangent was
# 0.0 * NaN). Such arguments are moved into (0.2, 0.8), or past 1 (arccosh).
_INTO_DOMAIN = (lambda v: 0.2 + 0.6 * np.abs(v) / (1.0 + np.abs(v)), lambda v: 1.2 + np.abs(v))


def _in_domain(function, args, kwargs):
    def moved(value, into):
        def moved_float(v):
            if isinstance(v, float) or isinstance(v, np.ndarray) and v.dtype.kind == "f":
                return type(v)(into(v)) if isinstance(v, float) else into(v).astype(v.dtype)
            return v
        return _each_item(value, moved_float)

    def finite(args, kwargs):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                out = function(*args, **kwargs)
            except (ValueError, ZeroDivisionError, OverflowError):
                return False
        return all(np.all(np.isfinite(leaf)) for leaf in _leaves_of(out))

    if finite(args, kwargs):
        return args, kwargs
    for into in _INTO_DOMAIN:
        candidate = moved(args, into), {key: moved(value, into) for key, value in kwargs.items()}
        if finite(*candidate):
            return candidate
    return args, kwargs


def _leaves_of(value):
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _leaves_of(item)]
    return [value] if isinstance(value, (float, complex, np.ndarray, np.generic)) else []


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_second_derivatives_in_shape_parameters_are_refused(tmp_path, name):
    """Differentiated again in a shape parameter, these rules raise an s2sad error (never a wrong number)."""
    rule = _rule(name)
    args, kwargs, _ = audit._unpack(REAL_ARGUMENTS.get(name, dict(_makers(name))["real"])(audit._rng(name)))
    args = _real(args)
    with pytest.raises(s2sad.S2SADError):
        check_second_order(tmp_path, name, "function", args, kwargs, rule, seed=len(name), constants=())


# ------------------------------------------------------------------ methods and properties: x.sum(), x.T
METHOD_CASES = [(name, kind) for name in sorted(audit.METHOD_CHECKED) for kind in ("real", "complex")]


@pytest.mark.parametrize("name, kind", METHOD_CASES, ids=[f"ndarray.{n}-{k}" for n, k in METHOD_CASES])
def test_second_order_through_method(tmp_path, name, kind):
    """Forward code reaches these through method_jvp / attribute_jvp, whose reverse rules
    (rules/forward_dispatch.py) pull back through the method's forward rule."""
    rng = np.random.default_rng(len(name))
    receiver = audit.METHOD_RECEIVERS[np.ndarray](rng)
    args, kwargs = audit.METHOD_CHECKED[name](rng, receiver) if audit.METHOD_CHECKED[name] else audit.calls()
    if kind == "real":
        receiver, args = _real(receiver), _real(args)
    rule = registry.method_rule(np.ndarray, name)
    if callable(getattr(receiver, name)):
        text = "x0.{}({})".format(name, ", ".join([f"C[{i}]" for i in range(len(args))] +
                                                   [f"{key}=K[{key!r}]" for key in kwargs]))
        y = getattr(receiver, name)(*args, **kwargs)
    else:
        text, y = f"x0.{name}", getattr(receiver, name)
    module = _module(tmp_path, f"method {name} {kind}", (text, 1), _objective_text("", y), args, kwargs,
                     _weights(y, rng), rule.function)
    direction = audit.random_like(receiver, rng)
    got = s2sad.hvp(module.loss, (receiver,), (direction,))
    expected = _finite_difference_hvp(module.loss, [receiver], [direction])[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(expected)))),
                               err_msg=f"hvp through x.{name}")


# ------------------------------------------------------------------ the cases the issue names
def _max_of_squares(x):
    return np.max(x ** 2)


def _sum_of_a_concatenation(x):
    return np.sum(np.concatenate([x, x ** 2]) ** 2)


def _product(x):
    return np.prod(x)


def _determinant(a):
    return np.linalg.det(a)


def _through_reshape_ravel_and_transpose(x):
    return np.sum(x.reshape(2, 2).T ** 3) + np.sum(x.ravel() * np.sin(x))


def _log_sum_exp(x):
    return scipy_special.logsumexp(x)


def _norm(x):
    return np.linalg.norm(x)


def _abs_of_complex(z):
    return np.sum(np.abs(z))


def _abs_squared(z):
    return np.sum(np.abs(z) ** 2)


scipy_special = pytest.importorskip("scipy.special")
NAMED = {  # function, argument
    "max": (_max_of_squares, np.array([0.3, -1.2, 0.7, 0.1])),
    "concatenate": (_sum_of_a_concatenation, np.array([0.3, -1.2, 0.7, 0.1])),
    "prod": (_product, np.array([0.3, -1.2, 0.7, 0.1])),
    "det": (_determinant, np.array([[1.2, 0.3], [-0.4, 0.9]])),
    "reshape, .T, .ravel": (_through_reshape_ravel_and_transpose, np.array([0.3, -1.2, 0.7, 0.1])),
    "logsumexp": (_log_sum_exp, np.array([0.3, -1.2, 0.7, 0.1])),
    "norm": (_norm, np.array([0.3, -1.2, 0.7, 0.1])),
    "abs of complex": (_abs_of_complex, np.array([1 + 2j, 0.5 - 1j])),
    "abs squared of complex": (_abs_squared, np.array([1 + 2j, 0.5 - 1j])),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_hessians_the_issue_names(name):
    function, x = NAMED[name]
    rng = np.random.default_rng(3)
    v = audit.random_like(x, rng)
    expected = _finite_difference_hvp(function, [x], [v])[0]
    np.testing.assert_allclose(s2sad.hvp(function, (x,), (v,)), expected, rtol=1e-5, atol=1e-6)
    if not np.iscomplexobj(x):
        hessian = s2sad.hessian(function)(x)
        columns = [_finite_difference_hvp(function, [x], [e])[0] for e in np.eye(x.size).reshape((x.size,) + x.shape)]
        np.testing.assert_allclose(hessian.reshape(x.size, x.size), np.array(columns).reshape(x.size, x.size).T,
                                   rtol=1e-5, atol=1e-6)


def test_hvp_of_abs_squared_is_twice_the_direction():
    z, v = np.array([1 + 2j, 0.5 - 1j]), np.array([1.0 + 0j, 1j])
    np.testing.assert_allclose(s2sad.hvp(_abs_squared, (z,), (v,)), 2 * v)


@pytest.mark.parametrize("function", [np.ceil, np.floor, np.sign, np.rint], ids=lambda f: f.__name__)
def test_jvp_of_a_function_without_a_gradient_is_zero(function):
    x = np.array([0.3, -1.2, 0.7])
    y, tangent = s2sad.jvp(function, (x,), (x,))
    np.testing.assert_array_equal(y, function(x))
    np.testing.assert_array_equal(tangent, np.zeros(3))


def _einsum_interleaved(x):
    return np.einsum(x, [0], x, [0], [])


def _einsum_repeated_index(a):
    return np.sum(np.einsum("lli->i", a) ** 3)


def test_einsum_interleaved_form_is_an_s2sad_error():
    """The interleaved form: refused, in both modes, naming the line."""
    x = np.array([0.3, -1.2])
    with pytest.raises(s2sad.S2SADError):
        s2sad.grad(_einsum_interleaved)(x)
    with pytest.raises(s2sad.S2SADError):
        s2sad.jvp(_einsum_interleaved, (x,), (x,))
    with pytest.raises(s2sad.S2SADError):
        s2sad.hvp(_einsum_interleaved, (x,), (x,))


def test_einsum_with_a_repeated_index_second_order():
    """A repeated index in one operand (a diagonal): hvp against central differences of central differences."""
    rng = np.random.default_rng(5)
    a, v = rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 2, 3))
    expected = _finite_difference_hvp(_einsum_repeated_index, [a], [v])[0]
    np.testing.assert_allclose(s2sad.hvp(_einsum_repeated_index, (a,), (v,)), expected, rtol=1e-5, atol=1e-6)


def _cdf_loss(x, loc, scale):
    from scipy import stats
    family, method = CDF_FAMILY
    if family == "beta":
        y = stats.beta.cdf(x, 2.0, 3.0, loc, scale)
    elif method == "logcdf":
        y = stats.t.logcdf(x, 4.0, loc, scale)
    elif family == "t":
        y = stats.t.cdf(x, 4.0, loc, scale)
    elif family == "chi2":
        y = stats.chi2.cdf(x, 3.0, loc, scale)
    else:
        y = stats.gamma.cdf(x, 2.5, loc, scale)
    return np.sum(np.sin(y) * np.arange(1.0, 4.0))


CDF_FAMILY = ["gamma", "cdf"]  # the family _cdf_loss calls: set by the test below


@pytest.mark.parametrize("family, method", [("gamma", "cdf"), ("chi2", "cdf"), ("t", "cdf"), ("t", "logcdf"),
                                            ("beta", "cdf")])
def test_second_order_of_a_cdf_in_x_loc_and_scale(family, method):
    """The jvps in x, loc and scale of these cdfs compute only the slope in z (the density), so
    their Hessian in (x, loc, scale) goes through: their shape slopes, series summed on dual
    numbers, are not differentiated again (refused when the shape is differentiated, above)."""
    CDF_FAMILY[:] = [family, method]
    x = np.array([0.3, 0.5, 0.7]) if family == "beta" else np.array([0.8, 1.9, 3.1])
    loc, scale = 0.05, 1.2
    directions = (np.array([0.3, -0.2, 0.5]), 0.4, -0.3)
    got = s2sad.hvp(_cdf_loss, (x, loc, scale), directions)
    expected = _finite_difference_hvp(_cdf_loss, [x, loc, scale], list(directions))
    for g, e, what in zip(got, expected, ("x", "loc", "scale")):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-6, err_msg=f"hvp of {family}.{method} in {what}")
