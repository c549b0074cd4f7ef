"""Forward rules of rules/math_module.py: Python floats in, Python floats out; numpy scalars,
0-d arrays and ints as arguments; edges; coverage of every differentiable rule."""
import math

import numpy as np
import pytest

import s2sad
from s2sad import registry
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_rule
from s2sad.runtime.tangents import ZERO
from test_forward_numpy_elementwise import registered_by

# (function, a point inside the domain)
MATH = [
    (math.sin, (0.7,)), (math.cos, (0.7,)), (math.tan, (0.7,)), (math.asin, (0.3,)), (math.acos, (-0.3,)),
    (math.atan, (0.3,)), (math.atan2, (0.3, -0.4)), (math.sinh, (0.7,)), (math.cosh, (-0.7,)),
    (math.tanh, (0.7,)), (math.asinh, (-0.7,)), (math.acosh, (1.7,)), (math.atanh, (0.3,)), (math.exp, (0.7,)),
    (math.expm1, (-0.7,)), (math.log, (2.5,)), (math.log, (2.5, 3.0)), (math.log, (0.4, 0.5)),
    (math.log2, (2.5,)), (math.log10, (2.5,)), (math.log1p, (-0.5,)), (math.sqrt, (2.5,)),
    (math.pow, (2.5, 1.5)), (math.pow, (2.5, -0.5)), (math.pow, (-2.5, 3)), (math.pow, (2.5, 2)),
    (math.fabs, (-2.5,)), (math.fabs, (2.5,)), (math.hypot, (3.0, -4.0)), (math.degrees, (0.5,)),
    (math.radians, (30.0,)), (math.erf, (0.5,)), (math.erfc, (-0.5,)), (math.copysign, (2.0, -1.0)),
    (math.copysign, (-2.0, 1.0)), (math.fmod, (7.5, 2.0)), (math.fmod, (-7.5, 2.0)), (math.ldexp, (1.5, 3)),
    (math.ldexp, (1.5, -2)),
]
if hasattr(math, "cbrt"):
    MATH += [(math.cbrt, (8.0,)), (math.cbrt, (-0.3,)), (math.exp2, (1.5,))]
IDS = [f"{f.__name__}-{i}" for i, (f, _) in enumerate(MATH)]
KINDS = {
    "float": lambda x: x,
    "float64": np.float64,
    "float32": np.float32,
    "0d": np.array,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("f, point", MATH, ids=IDS)
def test_forward(f, point, kind):
    args = tuple(KINDS[kind](a) if type(a) is float else a for a in point)
    tangents = check_frule(f, *args)
    for t, a, jvp in zip(tangents, args, forward_rule(f).jvps.values()):
        if kind == "float" and type(a) is float:
            assert type(t) is float or jvp is None and t is ZERO  # a Python float's tangent is a Python float
        if type(a) is int:
            assert t is None


def test_hand_derived_values():
    def push(f, *args, **tangents):
        return forward_rule(f).pushforward(args, {}, tangents, f(*args))

    assert push(math.sin, 0.3, x=2.0) == 2.0 * math.cos(0.3)
    assert push(math.log, 2.5, 3.0, x=1.0, base=1.0) == pytest.approx(
        1 / (2.5 * math.log(3.0)) - math.log(2.5) / (3.0 * math.log(3.0) ** 2))
    assert push(math.pow, 2.5, 1.5, x=1.0, y=1.0) == pytest.approx(1.5 * 2.5 ** 0.5 + 2.5 ** 1.5 * math.log(2.5))
    assert push(math.ldexp, 1.5, 3, x=0.25) == 2.0
    assert push(math.hypot, 3.0, 4.0, x=1.0, y=1.0) == pytest.approx(1.4)


def test_edges():
    def push(f, *args, **tangents):
        return forward_rule(f).pushforward(args, {}, tangents, f(*args))

    assert push(math.fabs, 0.0, x=1.0) == 0.0  # slope 0 at 0
    assert push(math.sqrt, 0.0, x=0.0) == 0.0  # a zero tangent at an infinite slope stays 0
    assert push(math.asin, 1.0, x=0.0) == 0.0
    assert push(math.acosh, 1.0, x=0.0) == 0.0
    assert push(math.pow, 0.0, 2.0, x=1.0, y=1.0) == 0.0  # 0 ** y is flat in y; 2 * 0 ** 1 = 0
    assert push(math.pow, 0.0, 0.5, x=1.0) == math.inf
    assert push(math.pow, 2.0, 0.0, x=1.0) == 0.0
    assert math.isnan(push(math.pow, -2.0, 2.0, y=1.0))  # (-2) ** y is real only at integer y
    assert push(math.copysign, 2.0, -1.0, y=1.0) is ZERO
    assert check_frule(math.sin, 2) == [None]  # an int has no tangent


def test_every_differentiable_rule_has_a_forward_rule():
    functions = registered_by("s2sad.rules.math_module")
    assert math.sin in functions and math.floor in functions
    rules = [rule for rule in registry.all_rules() if any(rule.function is f for f in functions)]
    assert len(rules) == len({id(f) for f in functions})
    missing = [rule.name for rule in rules if not rule.nondifferentiable and forward_rule(rule.function) is None]
    assert missing == []
    assert all(set(forward_rule(rule.function).jvps) <= set(rule.params) for rule in rules if not rule.nondifferentiable)
    assert forward_rule(math.floor) is not None and forward_rule(math.floor).jvps == {}  # nondifferentiable: ZERO


def test_fsum():
    check_frule(math.fsum, [0.1, -2.5, 3.0])
    value, tangent = s2sad.jvp(lambda x, y: math.fsum([x, 2.0 * y, 1e16, -1e16]), (0.5, 0.25), (1.0, 3.0))
    assert value == 1.0 and tangent == 7.0
