"""The pass leaving out products with the seed 1.0 in the gradient for floats
(s2sad/codegen/unit_seed.py): its before/after text, then whole gradients of floats against
hand-derived ones, each a Python float."""
import math
import sys
import textwrap

import pytest

import s2sad
from s2sad.codegen.unit_seed import unit_seed

sys.path.insert(0, __file__.rsplit("/tests/", 1)[0] + "/benchmarks")

BEFORE = textwrap.dedent("""\
    def f_grad_floats(x, y, n):
        s = math.sin(x)
        k = math.floor(x)
        q = n + s
        dresult = 1.0
        da = dresult
        dx = da * s
        dy = y * da
        dn = da * n
        dk = da * k
        dz = -da * (s / y)
        dv = -da * q
        dw = (da * x)
        dm = da * dq
        dj = da * (2 * y)
        return result, (NO_TANGENT, dx, dy)
""")


def test_products_of_the_seed_with_floats_are_left_out():
    after = unit_seed(BEFORE, "dresult", ["x", "y"], ["n"]).splitlines()
    assert after[6:15] == [
        "    dx = s",                # a math function's float
        "    dy = y",                # a differentiated parameter: a float
        "    dn = da * n",           # an int or a float
        "    dk = da * k",           # floor's int
        "    dz = -(s / y)",
        "    dv = -q",               # an int plus a float: a float
        "    dw = (x)",
        "    dm = da * dq",          # nothing known of it
        "    dj = (2 * y)",
    ]


def test_a_seed_assigned_twice_is_not_known():
    text = BEFORE.replace("    da = dresult\n", "    da = dresult\n    dresult = 2.0\n")
    assert text != BEFORE
    assert unit_seed(text, "dresult", ["x", "y"], ["n"]) == text


def test_a_parameter_assigned_again_is_not_known():
    text = BEFORE.replace("    s = math.sin(x)\n", "    s = math.sin(x)\n    y = n\n")
    assert text != BEFORE
    assert "    dy = y * da" in unit_seed(text, "dresult", ["x", "y"], ["n"]).splitlines()


# ---------------------------------------------------------------------- whole gradients of floats
def with_an_int(x, n):
    return x ** n * math.floor(3.7) + n * x


def sum_of_two(x, y):
    return x + y + 2


def seeds_reach_products(x, y):
    return math.exp(x) * y - x / y + math.sin(x * y)


@pytest.mark.parametrize("function, args, argnums, expected", [
    (with_an_int, (1.5, 3), 0, 3 * 1.5 ** 2 * 3 + 3),
    (sum_of_two, (0.5, -2.0), (0, 1), (1.0, 1.0)),
    (seeds_reach_products, (0.3, 1.7), (0, 1),
     (math.exp(0.3) * 1.7 - 1 / 1.7 + 1.7 * math.cos(0.3 * 1.7),
      math.exp(0.3) + 0.3 / 1.7 ** 2 + 0.3 * math.cos(0.3 * 1.7))),
])
def test_float_gradients_are_the_hand_derived_ones(function, args, argnums, expected):
    gradient = s2sad.grad(function, argnums=argnums)
    for _ in range(3):  # the first call, then the lane
        got = gradient(*args)
        got, want = (got, expected) if isinstance(argnums, tuple) else ((got,), (expected,))
        for a, b in zip(got, want):
            assert a.__class__ is float
            assert a == pytest.approx(b, rel=1e-13, abs=1e-15)


def test_the_scalar_workload_matches_its_hand_written_gradient():
    import workloads

    gradient = s2sad.grad(workloads.scalar, argnums=(0, 1))
    for x, y in [(0.7, 1.3), (-2.0, 0.4), (3.0, -1.1)]:
        got = gradient(x, y)
        assert all(g.__class__ is float for g in got)
        assert got == pytest.approx(workloads.scalar_grad_by_hand(x, y), rel=1e-13)
