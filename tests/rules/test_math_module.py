"""Rules of rules/math_module.py: Python floats in, Python floats out."""
import math

import pytest

import s2sad  # noqa: F401
from s2sad.registry import rule_for
from s2sad.runtime.tangents import NO_TANGENT
from s2sad.testing import check_rrule


def cotangents(f, *args, g=1.0):
    _, pullback = rule_for(f).rrule(*args)
    return pullback(g)[1:]


# (function, point, hand-derived partial derivatives)
MATH = [
    (math.sin,   (0.7,),      (math.cos(0.7),)),
    (math.cos,   (0.7,),      (-math.sin(0.7),)),
    (math.tan,   (0.7,),      (1 / math.cos(0.7) ** 2,)),
    (math.asin,  (0.3,),      (1 / math.sqrt(1 - 0.09),)),
    (math.acos,  (0.3,),      (-1 / math.sqrt(1 - 0.09),)),
    (math.atan,  (0.3,),      (1 / 1.09,)),
    (math.atan2, (0.3, 0.4),  (0.4 / 0.25, -0.3 / 0.25)),
    (math.sinh,  (0.7,),      (math.cosh(0.7),)),
    (math.cosh,  (0.7,),      (math.sinh(0.7),)),
    (math.tanh,  (0.7,),      (1 - math.tanh(0.7) ** 2,)),
    (math.asinh, (0.7,),      (1 / math.sqrt(1.49),)),
    (math.acosh, (1.7,),      (1 / math.sqrt(1.7 ** 2 - 1),)),
    (math.atanh, (0.3,),      (1 / 0.91,)),
    (math.exp,   (0.7,),      (math.exp(0.7),)),
    (math.expm1, (0.7,),      (math.exp(0.7),)),
    (math.log,   (2.5,),      (1 / 2.5,)),
    (math.log,   (2.5, 3.0),  (1 / (2.5 * math.log(3.0)), -math.log(2.5) / (3.0 * math.log(3.0) ** 2))),
    (math.log2,  (2.5,),      (1 / (2.5 * math.log(2)),)),
    (math.log10, (2.5,),      (1 / (2.5 * math.log(10)),)),
    (math.log1p, (2.5,),      (1 / 3.5,)),
    (math.sqrt,  (2.5,),      (0.5 / math.sqrt(2.5),)),
    (math.pow,   (2.5, 1.5),  (1.5 * 2.5 ** 0.5, 2.5 ** 1.5 * math.log(2.5))),
    (math.fabs,  (-2.5,),     (-1.0,)),
    (math.hypot, (3.0, 4.0),  (0.6, 0.8)),
    (math.degrees, (0.5,),    (180 / math.pi,)),
    (math.radians, (0.5,),    (math.pi / 180,)),
    (math.erf,   (0.5,),      (2 / math.sqrt(math.pi) * math.exp(-0.25),)),
    (math.erfc,  (0.5,),      (-2 / math.sqrt(math.pi) * math.exp(-0.25),)),
    (math.copysign, (2.0, -1.0), (-1.0, NO_TANGENT)),
    (math.fmod,  (7.5, 2.0),  (1.0, -3.0)),
    (math.ldexp, (1.5, 3),    (8.0, NO_TANGENT)),
]
if hasattr(math, "cbrt"):
    MATH += [(math.cbrt, (8.0,), (1 / 12,)), (math.exp2, (1.5,), (2 ** 1.5 * math.log(2),))]
IDS = [f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(MATH)]


@pytest.mark.parametrize("f, point, partials", MATH, ids=IDS)
def test_formula(f, point, partials):
    for got, want in zip(cotangents(f, *point), partials):
        if want is NO_TANGENT:
            assert got is NO_TANGENT
        else:
            assert got == pytest.approx(want, rel=1e-12)
            assert isinstance(got, float)


@pytest.mark.parametrize("f, point, partials", MATH, ids=IDS)
def test_finite_differences(f, point, partials):
    check_rrule(f, *point)


def test_singular_slopes_with_zero_cotangent_are_zero():
    assert cotangents(math.sqrt, 0.0, g=0.0) == (0.0,)
    assert cotangents(math.log, 0.0 + 1e-300, g=0.0)[0] == 0.0
    assert cotangents(math.asin, 1.0, g=0.0) == (0.0,)
    assert cotangents(math.fabs, 0.0) == (0.0,)


def test_python_float_fast_path():
    assert type(cotangents(math.sin, 0.3)[0]) is float


@pytest.mark.parametrize("f", [math.floor, math.ceil, math.trunc, math.isnan, math.isclose])
def test_nondifferentiable(f):
    assert rule_for(f).nondifferentiable


def test_fsum():
    """The exactly rounded sum: slope 1 in each item, as sum's."""
    check_rrule(math.fsum, [0.1, -2.5, 3.0])
    check_rrule(math.fsum, (100.0, 1.0, -99.5))
    _, pullback = rule_for(math.fsum).rrule([0.5, 2, 1.5])
    assert pullback(3.0)[1] == [3.0, NO_TANGENT, 3.0]   # an int item has no tangent


def test_fsum_in_user_code():
    import numpy as np

    from s2sad.testing import check_grad

    def f(x):
        return math.fsum([x[0] ** 2, math.sin(x[1]), 0.1]) * x[2]

    check_grad(f, np.array([0.4, 2.3, -1.7]))
