"""The pass leaving copies and unread names out of the gradient for floats (s2sad/codegen/copies.py):
its before/after text, then whole gradients of floats against hand-derived ones and central
differences, each bit for bit what the code with its copies gave."""
import math
import textwrap

import pytest

import s2sad
from s2sad.codegen.copies import copies_left_out
from finite_differences import numerical_gradient as central


def test_copies_and_literals_are_read_where_they_come_from():
    before = textwrap.dedent("""\
        def f_grad_floats(x, y):
            if not (x.__class__ is float and y.__class__ is float):
                return None
            # f.py:2: return x * y + math.sin(x)
            s = math.sin(x)
            result = x * y + s
            dresult = 1.0
            # f.py:2: return x * y + math.sin(x)
            da = dresult
            db = dresult
            dx = db * y
            dy = da.real + x
            dz = y
            dx = dx + math.cos(x)
            return result, (NO_TANGENT, dx, dy)
    """)
    assert copies_left_out(before) == textwrap.dedent("""\
        def f_grad_floats(x, y):
            if not (x.__class__ is float and y.__class__ is float):
                return None
            # f.py:2: return x * y + math.sin(x)
            s = math.sin(x)
            result = x * y + s
            # f.py:2: return x * y + math.sin(x)
            dx = 1.0 * y
            dy = 1.0.real + x
            dx = dx + math.cos(x)
            return result, (NO_TANGENT, dx, dy)
    """)


def test_what_may_hold_another_value_is_left_as_it_is():
    before = textwrap.dedent("""\
        def f_grad_floats(x, y, n):
            one = 1
            d = x
            x = x + 1.0
            e = d
            if y > 0.0:
                g = y
            h = g
            k = y
            k = k + one.real
            return d, (NO_TANGENT, e, h, k)
    """)
    after = copies_left_out(before)
    # `x` is assigned twice: `d` is a copy of a value `x` no longer holds; `g` is bound in a branch
    assert "    d = x\n" in after and "    e = d\n" not in after and "return d, (NO_TANGENT, d, h, k)" in after
    assert "    h = g\n" in after and "    k = y\n" in after and "(1).real" in after


def test_an_unread_name_in_a_branch_is_left_out_unless_the_branch_would_be_empty():
    before = textwrap.dedent("""\
        def f_grad_floats(x):
            if x > 1.0:
                unread = x
                dx = 2.0
            else:
                also_unread = x
            return x, (NO_TANGENT, dx)
    """)
    after = copies_left_out(before)
    assert "unread = x\n" not in after.replace("also_unread", "") and "also_unread = x" in after


def test_a_function_with_a_comprehension_or_a_lambda_is_left_be():
    before = textwrap.dedent("""\
        def f_grad_floats(x):
            a = x
            b = [a for a in (1.0, 2.0)]
            return a, (NO_TANGENT, b)
    """)
    assert copies_left_out(before) == before


def seeded(x, y):
    return math.sin(x) * y + x ** 2 / y + math.exp(-x * y)


def seeded_gradient(x, y):
    e = math.exp(-x * y)
    return math.cos(x) * y + 2 * x / y - y * e, math.sin(x) - x ** 2 / y ** 2 - x * e


def branchy(x, y):
    z = x * y
    if z > 1.0:
        w = z + x
    else:
        w = z * z
    return w + y


def branchy_gradient(x, y):
    if x * y > 1.0:
        return y + 1.0, x + 1.0
    return 2 * x * y * y, 2 * x * x * y + 1.0


@pytest.mark.parametrize("function, gradient, points", [
    (seeded, seeded_gradient, [(0.7, 1.3), (-1.1, 0.4), (2.0, -3.0)]),
    (branchy, branchy_gradient, [(0.7, 1.3), (2.0, 1.0), (-0.5, 0.5)]),
])
def test_gradients_of_floats_are_the_hand_derived_ones(function, gradient, points):
    grad = s2sad.grad(function, argnums=(0, 1))
    for point in points:
        for _ in range(3):  # the long way, then the lane with the body written in
            got = grad(*point)
            assert got == pytest.approx(gradient(*point), rel=1e-14, abs=1e-15)
            assert all(type(g) is float for g in got)
        for position in (0, 1):
            assert got[position] == pytest.approx(central(function, point, position), rel=1e-6, abs=1e-8)
