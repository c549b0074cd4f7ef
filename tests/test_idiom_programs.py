"""The idiom corpus (tests/idiom_programs.py), differentiated untouched four ways.

Every result is compared with central finite differences of the plain NumPy function in
float64, along random directions ``v`` (and ``u``) over the differentiated arguments:

* grad and vjp: ``<g, v>`` equals ``(f(x + hv) - f(x - hv)) / 2h``;
* jvp along ``v``: the same difference;
* hvp along ``v``: ``<Hv, u>`` equals the mixed second difference
  ``(f(x + hv + hu) - f(x + hv - hu) - f(x - hv + hu) + f(x - hv - hu)) / 4h^2``.

Programs s2sad refuses stay listed in REFUSED, per mode, with the error class and a fragment
of the message; each is a strict xfail that also checks the refusal names this corpus's file
and line, so a refusal cannot pass for a crash from deep inside, nor an xfail for another error.
"""
import contextlib
import copy

import numpy as np
import pytest

import idiom_programs as p
import s2sad
from corpus_cases import corpus_cases
from s2sad.runtime.projection import is_float_like
from s2sad.errors import MissingRuleError, UnsupportedSyntaxError
from trees import combine, direction, inner, same_type, scaled

rs = np.random.RandomState(1127)


def randn(*shape):
    return rs.randn(*shape)


def _params(*sizes):
    return p.Params(randn(sizes[0], sizes[1]) * 0.5, randn(sizes[1]) * 0.3, 0.2)


def _layers():
    return [(randn(3, 4) * 0.5, randn(4) * 0.3), (randn(4, 2) * 0.5, randn(2) * 0.3)]


CORPUS = {
    # name: (program, arguments, argnums)
    "namedtuple_replace_one_field": (p.shrink_bias_then_predict, (_params(3, 2), randn(5, 3)), (0, 1)),
    "namedtuple_replace_in_a_loop": (p.replace_two_fields_in_a_loop, (_params(3, 2), randn(4, 3) * 0.5), (0, 1)),
    "namedtuple_replace_posterior": (p.posterior_update, (p.Gaussian(randn(3), randn(3) * 0.2), randn(3)), (0, 1)),
    "keyword_only_method": (p.keyword_only_method, (randn(3, 2) * 0.5, randn(4, 3), 1.3), (0, 1, 2)),
    "property_on_a_prior": (p.property_prior, (randn(4), 0.3), (0, 1)),
    "optimizer_method_keyword_lr": (p.unrolled_optimizer_method, (randn(3), randn(6, 3) * 0.5, randn(6), 0.2),
                                    (0, 1, 2, 3)),
    "dict_get_with_defaults": (p.dict_get_with_defaults, ({"W": randn(3, 4) * 0.5, "b": randn(4)}, randn(5, 3)), (0, 1)),
    "np_split_unpacked": (p.split_flat_vector, (randn(8) * 0.5, randn(5, 3)), (0, 1)),
    "partial_made_inside": (p.partial_activation_made_inside, (_layers(), randn(5, 3)), (0, 1)),
    "user_decorator_with_wraps": (p.decorated_helper, (randn(3), randn(5, 3)), (0, 1)),
    "star_shape_reshape": (p.star_shape_reshape, (randn(6), randn(4, 2)), (0, 1)),
    "zip_star_layers": (p.zip_star_layers, (_layers(), randn(5, 3)), (0, 1)),
    "default_function_arguments": (p.cauchy_loss_through_defaults, (randn(3), randn(6, 3), randn(6)), (0, 1, 2)),
    "validation_with_raise": (p.validated_gaussian_nll, (randn(4), randn(4) * 0.3, randn(4)), (0, 1, 2)),
    "classmethod_and_staticmethod": (p.classmethod_from_flat, (randn(8) * 0.5, randn(5, 3)), (0, 1)),
    "dataclasses_replace": (p.dataclasses_replace_integrator, (randn(3), randn(3)), (0, 1)),
    "enumerate_layers": (p.enumerate_layers_last_linear, (_layers(), randn(5, 3)), (0, 1)),
    "config_dict_keyword": (p.config_splat, (randn(3), randn(6, 3), randn(6)), (0, 1, 2)),
    "method_chain": (p.method_chain, (randn(3), randn(5, 3)), (0, 1)),
}

# (mode, name) -> (error class, a fragment of its message, why it is refused)
_SECOND_ORDER = (MissingRuleError, "no second derivative through",
                 "hvp through a functools.partial holding a float keyword (slope=0.2): forward code cannot tell "
                 "it from a differentiated one, whose cotangent would be lost, so it is refused")
REFUSED = {
    ("hvp", "partial_made_inside"): _SECOND_ORDER,
}

MODES = ("grad", "vjp", "jvp", "hvp")


def _cases(mode):
    return corpus_cases(CORPUS, REFUSED, mode)


class UnlistedFailure(Exception):
    """A listed program failed with the listed error class but another message, or without
    naming this corpus's file and line: never an xfail."""


@contextlib.contextmanager
def _refused_as_listed(mode, name):
    refusal = REFUSED.get((mode, name))
    try:
        yield
    except Exception as error:
        if refusal is not None and isinstance(error, refusal[0]):
            if refusal[1] not in str(error) or "idiom_programs.py:" not in str(error):
                raise UnlistedFailure(f"{name} ({mode}) failed, but not as listed: {error}") from error
        raise


def _step(args, argnums, directions, h):
    """The arguments moved by ``h`` times ``directions`` (a copy of the others: a program may change them)."""
    return [combine(a, directions[i], h) if i in argnums else copy.deepcopy(a) for i, a in enumerate(args)]


def _along(function, args, argnums, v, h=1e-6):
    return (function(*_step(args, argnums, v, h)) - function(*_step(args, argnums, v, -h))) / (2 * h)


def _second_along(function, args, argnums, v, u, h=1e-4):
    def at(s, t):
        moved = _step(args, argnums, v, s * h)
        return function(*_step(moved, argnums, u, t * h))
    return (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)


def _directions(args, argnums):
    return {i: direction(args[i], randn) for i in argnums}


def _check_gradients(name, function, args, argnums, gradients):
    for position, gradient in zip(argnums, gradients):
        same_type(gradient, args[position])
    for _ in range(2):
        v = _directions(args, argnums)
        slopes = [inner(g, v[i], args[i]) for i, g in zip(argnums, gradients)]
        assert all(slope != 0.0 for slope in slopes), f"a gradient of {name} is zero along a random direction: {slopes}"
        np.testing.assert_allclose(sum(slopes), _along(function, args, argnums, v), rtol=1e-5, atol=1e-6)


def _tangents(args, argnums, v):
    """Tangents for every argument: ``v`` on the differentiated ones, zeros on the other floats."""
    return [v[i] if i in argnums else scaled(direction(a, randn), 0.0) if is_float_like(a) else a
            for i, a in enumerate(args)]


@pytest.mark.parametrize("name", _cases("grad"))
def test_grad(name):
    function, args, argnums = CORPUS[name]
    with _refused_as_listed("grad", name):
        value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*copy.deepcopy(args))
    np.testing.assert_allclose(value, function(*copy.deepcopy(args)), rtol=1e-10)
    _check_gradients(name, function, args, argnums, gradients)


@pytest.mark.parametrize("name", _cases("vjp"))
def test_vjp(name):
    function, args, argnums = CORPUS[name]
    with _refused_as_listed("vjp", name):
        value, pullback = s2sad.vjp(function, *copy.deepcopy(args))
        cotangents = pullback(1.0)
    np.testing.assert_allclose(value, function(*copy.deepcopy(args)), rtol=1e-10)
    _check_gradients(name, function, args, argnums, [cotangents[i] for i in argnums])


@pytest.mark.parametrize("name", _cases("jvp"))
def test_jvp(name):
    function, args, argnums = CORPUS[name]
    v = _directions(args, argnums)
    with _refused_as_listed("jvp", name):
        value, tangent = s2sad.jvp(function, copy.deepcopy(args), _tangents(args, argnums, v))
    np.testing.assert_allclose(value, function(*copy.deepcopy(args)), rtol=1e-10)
    assert np.all(np.asarray(tangent) != 0.0), f"the tangent of {name} is zero along a random direction"
    np.testing.assert_allclose(tangent, _along(function, args, argnums, v), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", _cases("hvp"))
def test_hvp(name):
    function, args, argnums = CORPUS[name]
    v, u = _directions(args, argnums), _directions(args, argnums)
    with _refused_as_listed("hvp", name):
        products = s2sad.hvp(function, copy.deepcopy(args), _tangents(args, argnums, v))
    floats = [i for i, a in enumerate(args) if is_float_like(a)]
    products = products if len(floats) > 1 else (products,)
    by_position = dict(zip(floats, products))
    slopes = [inner(by_position[i], u[i], args[i]) for i in argnums]
    assert any(slope != 0.0 for slope in slopes), f"the hvp of {name} is zero along random directions: {slopes}"
    np.testing.assert_allclose(sum(slopes), _second_along(function, args, argnums, v, u), rtol=1e-4, atol=1e-5)


def test_the_corpus_is_as_counted():
    """The count in the report: programs, and per mode how many s2sad differentiates."""
    assert len(CORPUS) >= 15
    assert {mode for mode, _ in REFUSED} <= set(MODES)
    assert {name for _, name in REFUSED} <= set(CORPUS)


def test_refusals_are_errors_s2sad_raises():
    assert all(refusal[0] in (MissingRuleError, UnsupportedSyntaxError) for refusal in REFUSED.values())
