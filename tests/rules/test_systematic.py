"""A systematic sweep of the NumPy and SciPy rules: every rule, many calls, three derivatives.

The per-rule tests check each rule where its author thought to; this sweep calls every
registered NumPy/SciPy rule with a differentiable argument over combinations its author may
not have thought of, and checks each call's reverse rule (``check_rrule``: a random
cotangent), forward rule (a random tangent) and, for a sample, the second order (``hvp`` of
a loss around the call, ``test_second_order_rules.check_second_order``) against central
differences in float64.

The calls start from the complex audit's (``test_complex_audit.CHECKED`` and ``REAL_ONLY``:
every rule has one) and vary, one thing at a time or two together:

* the dtype: float64, float32, and complex128 where NumPy takes complex numbers;
* the first array's shape: a Python float, 0-d, 1-d, 2-d, 3-d, size-1 axes, empty;
* the two first arrays of a binary rule: broadcasting pairs (scalar and array, (2, 1) and
  (1, 3), a leading axis added, empty);
* each keyword of the rule's signature with a table of values (axis as an int, negative,
  a tuple, None; keepdims; ddof; ord; dtype; norm; n; where), and axis with each other one.

A combination NumPy refuses, warns about, or answers with something not finite is dropped:
only calls NumPy computes are checked (the counts are in ``test_sweep_reaches_every_rule``).
A rule's calls are checked in one test (``test_first_order``), which names every failing call.

By default a fixed-seed sample of each rule's calls runs (``SAMPLE`` of them), and a second order
check where it adds to tests/test_second_order_rules.py's check of every rule at its base call
(``_second_order_adds``: one per rule whose forward code reads more than the tangent, at a
broadcasting pair for an elementwise rule); ``S2SAD_SWEEP=full`` runs every call, and four second
order checks of every rule.
"""
import ast
import itertools
import os
import sys
import warnings
import zlib

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
import test_complex_audit as audit  # noqa: E402  (each rule's base call)
import test_second_order_rules as second_order  # noqa: E402

from s2sad import registry  # noqa: E402
from s2sad.errors import S2SADError  # noqa: E402
from s2sad.registry.forward import LINEAR, forward_rule  # noqa: E402
from s2sad.runtime.tangents import is_zero, unthunk  # noqa: E402
from s2sad.testing import (TOLERANCES, check_rrule, finite_difference_step, inexact_dtypes, inner,  # noqa: E402
                           least_precise, random_like, shifted_by, widened)

FULL = os.environ.get("S2SAD_SWEEP") == "full"
SAMPLE = 8  # calls per rule checked by default (all of them with S2SAD_SWEEP=full)
SEED = 16

# ------------------------------------------------------------------ where the arguments live
# Arguments are drawn from a standard normal and then moved into the function's domain (a
# real log needs positive numbers, arcsin numbers in (-1, 1)); central differences need room.
POSITIVE = """numpy.log numpy.log2 numpy.log10 numpy.sqrt numpy.reciprocal numpy.power numpy.float_power
    builtins.pow operator.pow scipy.special.gamma scipy.special.rgamma scipy.special.gammaln scipy.special.digamma
    scipy.special.polygamma scipy.special.xlogy scipy.special.i0 scipy.special.i0e scipy.special.i1
    scipy.special.i1e scipy.special.k0 scipy.special.k0e scipy.special.k1 scipy.special.k1e scipy.special.kv
    scipy.special.kve scipy.special.yv scipy.special.y0 scipy.special.y1 scipy.special.gammainc
    scipy.special.gammaincc scipy.special.beta scipy.special.betaln scipy.special.betainc scipy.special.loggamma
    scipy.special.multigammaln scipy.special.exp1 scipy.special.expi scipy.special.erfcinv scipy.special.zeta
    numpy.linalg.cholesky scipy.linalg.cholesky scipy.linalg.sqrtm math.log math.sqrt
    numpy.divide operator.truediv numpy.fmod numpy.remainder numpy.divmod scipy.stats.chi2.cdf scipy.stats.gamma.cdf""".split()
UNIT = """numpy.arcsin numpy.arccos numpy.arctanh scipy.special.erfinv scipy.special.ndtri scipy.special.logit
    scipy.special.log_ndtr numpy.tan""".split()
ABOVE_ONE = {"numpy.arccosh"}


def _into_domain(name, x):
    if name in POSITIVE:
        return np.abs(x) + 0.5
    if name in UNIT:
        return 0.45 * np.tanh(x) + (0.5 if name in ("scipy.special.logit", "scipy.special.erfcinv") else 0.0)
    if name in ABOVE_ONE:
        return np.abs(x) + 1.5
    return x


def _moved_into_domain(name, a):
    """A base argument's real part moved into the domain (its imaginary part kept)."""
    if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
        moved = _into_domain(name, a.real)
        return (moved + 1j * a.imag if a.dtype.kind == "c" else moved).astype(a.dtype)
    if isinstance(a, (float, complex)):
        moved = float(_into_domain(name, a.real))
        return complex(moved, a.imag) if isinstance(a, complex) else moved
    return a


def _draw(rng, shape, dtype, name):
    """A random float (complex) array of ``shape`` in ``dtype``, in the function's domain;
    ``shape`` None is a Python float."""
    if shape is None:
        return float(_into_domain(name, rng.standard_normal()))
    x = _into_domain(name, rng.standard_normal(shape))
    if np.dtype(dtype).kind == "c":
        x = x + 0.3j * rng.standard_normal(shape)
    return np.asarray(x).astype(dtype)


# ------------------------------------------------------------------ the variations
SHAPES = {"float": None, "0d": (), "1d": (4,), "2d": (2, 3), "3d": (2, 3, 4), "size-1": (2, 1, 3),
          "empty": (0,), "empty-2d": (2, 0)}
PAIRS = {"array-scalar": ((2, 3), ()), "scalar-array": ((), (2, 3)), "row-column": ((2, 1), (1, 3)),
         "leading-axis": ((4, 2, 3), (3,)), "size-1-both": ((2, 1, 3), (1, 4, 1)), "empty-pair": ((0, 3), (3,)),
         "float-array": (None, (3,))}
KEYWORD_VALUES = {
    "axis": [None, 0, 1, -1, -2, (0, 2), (-1, 0), ()],
    "keepdims": [True],
    "ddof": [1, 2],
    "ord": [None, 1, 2, -1, -2, np.inf, -np.inf, 0, 3, 0.5, "fro", "nuc"],
    "dtype": [np.float32, np.float64, np.complex128],
    "norm": ["ortho", "forward", "backward"],
    "n": [1, 2, 3, 6],
    "where": ["mask"],
    "initial": [0.5],
    "prepend": ["array"],
    "append": ["array"],
    "edge_order": [2],
    "b": ["array"],
    "return_sign": [True],
}


def _keyword_value(value, rng, shape, name):
    if value == "mask":
        return rng.random(shape[-1:]) > 0.3  # broadcast along the last axis
    if value == "array":
        return _draw(rng, shape[:-1] + (1,) if shape else (), np.float64, name)
    return value


def _positional_float_arrays(args):
    return [i for i, a in enumerate(args) if isinstance(a, (np.ndarray, float)) and np.asarray(a).dtype.kind in "fc"
            and not isinstance(a, bool)]


def _recast(args, dtype):
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            out.append((a.real if np.dtype(dtype).kind == "f" else a).astype(dtype))
        elif isinstance(a, complex) and np.dtype(dtype).kind == "f":
            out.append(a.real)
        elif isinstance(a, (list, tuple)):
            out.append(type(a)(_recast(a, dtype)))
        else:
            out.append(a)
    return out


def _kinds(name):
    return ["float64", "float32", "complex128"] if name in audit.CHECKED else ["float64", "float32"]


def _base(name):
    maker = audit.CHECKED.get(name) or (audit.REAL_ONLY.get(name) or (None, None))[1]
    if maker is None:
        return None
    made = maker(np.random.default_rng(zlib.crc32(name.encode())))
    args, kwargs = list(made[0]), dict(made[1])
    return args, kwargs


def _variants(name, rule):
    """(label, args, kwargs) for the rule's calls: its base call in each dtype, then shapes,
    broadcasting pairs and keywords varied (in float64 and the complex dtype where taken)."""
    base = _base(name)
    if base is None:
        return
    args, kwargs = base
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 1)
    args = [_moved_into_domain(name, a) for a in args]
    for kind in _kinds(name):
        recast = dict(zip(kwargs, _recast(list(kwargs.values()), kind)))
        yield f"base-{kind}", _recast(args, kind), recast
    floats = _positional_float_arrays(args)
    if not floats:
        return
    first = floats[0]
    params = list(rule.signature.parameters)
    dtypes = ["float64"] + (["complex128"] if name in audit.CHECKED else [])
    for dtype in dtypes:
        for label, shape in SHAPES.items():
            if shape is None and dtype != "float64":
                continue
            varied = list(_recast(args, dtype))
            varied[first] = _draw(rng, shape, dtype, name)
            yield f"shape-{label}-{dtype}", varied, kwargs
        if len(floats) >= 2 and floats[1] == first + 1:
            for label, (a, b) in PAIRS.items():
                varied = list(_recast(args, dtype))
                varied[first], varied[first + 1] = _draw(rng, a, dtype, name), _draw(rng, b, dtype, name)
                yield f"pair-{label}-{dtype}", varied, kwargs
        for keyword, values in KEYWORD_VALUES.items():
            if keyword not in params:
                continue
            for value in values:
                for shape in ((2, 3, 4), (3, 4), (4,)):
                    varied = list(_recast(args, dtype))
                    varied[first] = _draw(rng, shape, dtype, name)
                    extra = {keyword: _keyword_value(value, rng, shape, name)}
                    yield f"{keyword}={value!r}-{len(shape)}d-{dtype}", varied, {**kwargs, **extra}
                    if keyword != "axis" and "axis" in params:
                        for axis in (0, -1, (0, 1)):
                            yield (f"{keyword}={value!r}-axis={axis!r}-{len(shape)}d-{dtype}", varied,
                                   {**kwargs, **extra, "axis": axis})


def _computed(function, args, kwargs):
    """NumPy's value, or None when NumPy refuses the call, warns, or returns no finite float."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            warnings.simplefilter("ignore", DeprecationWarning)  # np.row_stack: still computed
            y = function(*args, **kwargs)
    except Exception:
        return None
    leaves = list(y) if isinstance(y, (tuple, list)) else [y]
    floats = [np.asarray(v) for v in leaves if isinstance(v, (float, complex, np.ndarray, np.generic))
              and np.asarray(v).dtype.kind in "fc"]
    if not floats or not all(np.all(np.isfinite(v)) for v in floats):
        return None
    return y


SWEPT_PREFIXES = ("numpy.", "scipy.")
SKIPPED = {  # rule name: why the sweep leaves it to its own tests
    "numpy.linalg.eig": "phase-blind cotangents only (test_complex_audit, test_numpy_linalg)",
    "numpy.linalg.eigh": "phase-blind cotangents only (test_complex_audit, test_numpy_linalg)",
    "numpy.linalg.svd": "phase-blind cotangents only (test_complex_audit, test_numpy_linalg)",
    "numpy.linalg.qr": "sign-fixed factors of a base matrix (test_numpy_linalg)",
    "numpy.float16": "a cast to float16: central differences move in steps of its rounding",
    "numpy.float32": "a cast to float32: central differences move in steps of its rounding",
}


def _swept_rules():
    registry.load_optional_rules()
    rules = [rule for rule in registry.all_rules() if rule.name.startswith(SWEPT_PREFIXES)
             and not rule.nondifferentiable and rule.name not in SKIPPED]
    return sorted(rules, key=lambda rule: rule.name)


def _is_refused_rule(name):
    return name in audit.REFUSED


def _cases():
    """Each rule's calls NumPy computes: all of them, or the first ``SAMPLE`` in a fixed-seed
    shuffle (NumPy is asked about no more than it takes to find them)."""
    cases = []
    for rule in _swept_rules():
        if _is_refused_rule(rule.name):
            continue
        variants = list(_variants(rule.name, rule) or ())
        order = range(len(variants)) if FULL else \
            np.random.default_rng(SEED + zlib.crc32(rule.name.encode())).permutation(len(variants))
        found = []
        for i in order:
            if _computed(rule.function, *variants[i][1:]) is not None:
                found.append(i)
                if not FULL and len(found) == SAMPLE:
                    break
        cases.extend((rule.name, *variants[i]) for i in sorted(found))
    return cases


CASES = _cases()
RULES = {rule.name: rule for rule in _swept_rules()}
CALLS = {}  # rule name: its (label, args, kwargs), checked in one test (a test each cost more to run than to check)
for _name, _label, _args, _kwargs in CASES:
    CALLS.setdefault(_name, []).append((_label, _args, _kwargs))


def _forward_agrees(rule, args, kwargs, rng):
    """The forward rule's pushforward of a random tangent of each float argument, read by a
    random cotangent, against the central difference of ``<ct, f>`` in float64."""
    forward = forward_rule(rule.function)
    if forward is None:
        return
    ans = rule.function(*args, **kwargs)
    parameters = list(forward.signature.parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return  # tangents of *args are spread by the caller (checked in the complex audit)
    several = isinstance(ans, (tuple, list))
    ct = random_like(tuple(widened(a) for a in ans) if several else widened(np.asarray(ans)), rng)
    wide = [widened(a) for a in args]
    for i, value in enumerate(args):
        tangent = random_like(value, rng)
        if tangent is None or i >= len(parameters):
            continue
        pushed = forward.pushforward(args, kwargs, {parameters[i].name: tangent}, ans)
        if not is_zero(pushed):
            pushed = tuple(unthunk(p) for p in pushed) if several else unthunk(pushed)
            for out, push in zip(ans if several else (ans,), pushed if several else (pushed,)):
                if is_zero(push) or not np.asarray(out).dtype.kind in "fc":
                    continue
                assert np.shape(push) == np.shape(out), f"forward rule of {rule.name}: tangent shape {np.shape(push)}"
                assert np.result_type(push) == np.result_type(out), (
                    f"forward rule of {rule.name}: a {np.result_type(push)} tangent for a {np.result_type(out)} output")
        analytic = 0.0 if is_zero(pushed) else inner(ct, pushed)
        wide_ans = rule.function(*wide, **kwargs)  # narrower than float64 only where the call casts (dtype=)
        outputs = [np.asarray(a) for a in (wide_ans if several else (wide_ans,))]
        least = least_precise(inexact_dtypes(outputs) + inexact_dtypes(list(args)))
        h = finite_difference_step(least_precise(inexact_dtypes(outputs)))
        up, down = list(wide), list(wide)
        up[i], down[i] = shifted_by(wide[i], h, tangent), shifted_by(wide[i], -h, tangent)
        hi, lo = rule.function(*up, **kwargs), rule.function(*down, **kwargs)
        numeric = (inner(ct, tuple(hi) if several else hi) - inner(ct, tuple(lo) if several else lo)) / (2 * h)
        rtol, atol = TOLERANCES[np.finfo(least).dtype]
        scale = max(abs(numeric), abs(analytic), 1.0)
        assert abs(numeric - analytic) <= atol + rtol * scale, (
            f"forward rule of {rule.name}, argument {i}: <ct, J v> = {analytic!r}, central differences {numeric!r}")


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_first_order(name):
    """Each of the rule's calls: its reverse and forward rules against central differences, or a
    refusal with s2sad's error (what a rule promises where it has no derivative). A wrong number,
    dtype or shape, or an error that is not s2sad's (a crash), fails; every call is run and the
    failing ones are named together."""
    rule = RULES[name]
    failures = []
    for label, args, kwargs in CALLS[name]:
        seed = zlib.crc32(f"{name}-{label}".encode())
        try:
            _quiet(check_rrule, rule.function, *args, seed=seed, **kwargs)
            _quiet(_forward_agrees, rule, args, kwargs, np.random.default_rng(seed))
        except S2SADError:
            continue
        except Exception as error:
            failures.append(f"{label}: {type(error).__name__}: {error}")
    assert not failures, f"{name}, {len(failures)} of {len(CALLS[name])} calls:\n" + "\n".join(failures)


def _reads_only_the_tangent(forward):
    """Whether each of the rule's forward terms is ``LINEAR`` (the function itself) or a template
    reading no differentiated value but ``g`` (not ``ans``, not a float parameter): its forward
    code is then other rules applied to the tangent, and its second order their reverse rules."""
    differentiated = {param for param, jvp in forward.jvps.items() if jvp is not None} | {"ans"}
    for jvp in forward.jvps.values():
        if jvp is None or isinstance(jvp, str) and jvp == LINEAR:
            continue
        if not isinstance(jvp, str):
            return False
        if {node.id for node in ast.walk(ast.parse(jvp, mode="eval")) if isinstance(node, ast.Name)} & differentiated:
            return False
    return True


def _second_order_adds(name, label):
    """Whether a call's second order adds to what CI checks anyway: tests/test_second_order_rules.py
    takes every rule to second order at its base call (real and complex), and ``test_first_order``
    checks its forward rule at each call. So, by default (``S2SAD_SWEEP=full`` runs them all), not a
    base call; not a rule whose forward code reads only the tangent (the second order of rules the
    first order checks); for an elementwise rule, whose second derivative is taken element by
    element, only a broadcasting pair (a smaller operand's tangent broadcast up)."""
    if FULL:
        return True
    if label.startswith("base-"):
        return False
    rule = RULES[name]
    forward = forward_rule(rule.function)
    if forward is not None and _reads_only_the_tangent(forward):
        return False
    if isinstance(rule.function, np.ufunc) or forward is not None and forward.elementwise:
        return label.startswith("pair-")
    return True


def _second_order_cases():
    picked, seen = [], {}
    picker = np.random.default_rng(SEED)
    for case in picker.permutation(len(CASES)):
        name, label, args, kwargs = CASES[case]
        if seen.get(name, 0) >= (4 if FULL else 1) or name in second_order.SKIPPED or "float32" in label or "empty" in label:
            continue
        if f"{name}-complex" in second_order.SKIPPED and "complex" in label or not _second_order_adds(name, label):
            continue
        seen[name] = seen.get(name, 0) + 1
        picked.append(CASES[case])
    return sorted(picked, key=lambda c: (c[0], c[1]))


SECOND_ORDER = _second_order_cases()


@pytest.mark.parametrize("name, label, args, kwargs", SECOND_ORDER, ids=[f"{c[0]}-{c[1]}" for c in SECOND_ORDER])
def test_second_order(tmp_path, name, label, args, kwargs):
    rule = RULES[name]
    try:
        second_order.check_second_order(tmp_path, name, "function", args, kwargs, rule, seed=zlib.crc32(label.encode()))
    except S2SADError:
        pass  # refused (a first derivative refused at these arguments, or a second one), with s2sad's error


def test_sweep_reaches_every_rule():
    """Every NumPy/SciPy rule with a derivative is swept, refused by design, or skipped with a reason."""
    swept = {case[0] for case in CASES}
    missing = [rule.name for rule in _swept_rules() if rule.name not in swept and not _is_refused_rule(rule.name)]
    assert not missing, f"rules with no call the sweep could make: {missing}"
