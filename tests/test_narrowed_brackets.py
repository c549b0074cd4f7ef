"""A loop that narrows a bracket by a test on a differentiated value (bisection for the root of
``r ** 3 = a``): the ends are made of constants, so s2sad gave the derivative of each step of the
staircase, 0, where the root moves with ``a`` (slope ``1 / (3 r ** 2)``, what finite differences
see). Refused at the loop in every mode; loops whose branches change one variable only, or the
same one on both paths (an adaptive step size, counters), are differentiated as before."""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient


def cube_root_bisection(a, scale):
    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - a > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi) * scale


def tanh_inverse_bisection(a):
    lo, hi = 0.0, 3.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.tanh(mid) < a else (lo, mid)
    return lo + a


def cube_root_then_newton(a, scale):
    r = cube_root_bisection(s2sad.stop_gradient(a), 1.0)  # the hint's rewrite: one Newton step carries d r / d a
    r = r - (r ** 3 - a) / (3.0 * r ** 2)
    return r * scale


def adaptive_heun(k, y):
    t, dt = 0.0, 0.1
    while t < 1.0:
        h = min(dt, 1.0 - t)
        full = y - h * k * y
        half = y - 0.5 * h * k * y
        half = half - 0.5 * h * k * half
        if abs(full - half) < 1e-3:
            y, t, dt = half, t + h, dt * 1.5
        else:
            dt = dt * 0.5
    return y


def counted_signs(x):
    positive, negative = 0, 0
    for v in x:
        if v > 0:
            positive = positive + 1
        else:
            negative = negative + 1
    return np.sum(x ** 2) * positive / (negative + 1)


@pytest.mark.parametrize("mode, f, args, line", [
    ("grad", cube_root_bisection, (2.0, 1.5), "for _ in range(60):"),   # was 0 for a, the root's slope 0.315
    ("jvp", cube_root_bisection, (2.0, 1.5), "for _ in range(60):"),
    ("hvp", cube_root_bisection, (2.0, 1.5), "for _ in range(60):"),
    ("grad", tanh_inverse_bisection, (0.5,), "while hi - lo > 1e-12:"),  # was 1.0, NumPy's 2.333
])
def test_a_bisection_on_a_differentiated_value_is_refused_at_its_loop(mode, f, args, line):
    run = {"grad": lambda: s2sad.grad(f)(*args),
           "jvp": lambda: s2sad.jvp(f, args, tuple(1.0 for _ in args)),
           "hvp": lambda: s2sad.hvp(f, args, tuple(1.0 for _ in args))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="narrows a bracket") as caught:
        run()
    assert caught.value.location.text.strip() == line
    assert "stop_gradient" in caught.value.hint


def test_the_hinted_newton_step_gives_the_roots_derivative():
    gradients = s2sad.grad(cube_root_then_newton, argnums=(0, 1))(2.0, 1.5)
    for argnum, gradient in enumerate(gradients):
        assert gradient == pytest.approx(numerical_gradient(cube_root_then_newton, [2.0, 1.5], argnum), rel=1e-6)


@pytest.mark.parametrize("f, args", [(adaptive_heun, (1.3, 0.8)), (counted_signs, (np.array([0.5, -0.3, 1.2]),))])
def test_branches_changing_one_end_or_the_same_variable_are_differentiated(f, args):
    for argnum, gradient in enumerate(s2sad.grad(f, argnums=tuple(range(len(args))))(*args)):
        np.testing.assert_allclose(gradient, numerical_gradient(f, list(args), argnum), rtol=1e-6, atol=1e-8)


def cube_root_two_tests(a):
    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - a > 0:
            hi = mid
        if mid ** 3 - a <= 0:
            lo = mid
    return lo


def cube_root_ends_in_an_array(a):
    ends = np.array([0.0, 3.0])
    for _ in range(60):
        mid = 0.5 * (ends[0] + ends[1])
        if mid ** 3 - a > 0:
            ends[1] = mid
        else:
            ends[0] = mid
    return ends[0]


def cube_root_chosen_by_where(a):
    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = mid ** 3 - a > 0
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return lo


@pytest.mark.parametrize("mode, f", [
    ("grad", cube_root_two_tests),          # each gave 0, the root's slope 1 / (3 r ** 2) = 0.210
    ("jvp", cube_root_ends_in_an_array),
    ("grad", cube_root_chosen_by_where),
])
def test_a_bisection_moving_its_ends_by_two_tests_in_place_or_by_where_is_refused(mode, f):
    run = {"grad": lambda: s2sad.grad(f)(2.0), "jvp": lambda: s2sad.jvp(f, (2.0,), (1.0,))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="narrows a bracket") as caught:
        run()
    assert caught.value.location.text.strip() == "for _ in range(60):"


def cube_root_ends_by_arithmetic(a):
    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        above = float(mid ** 3 - a > 0)
        hi = above * mid + (1.0 - above) * hi
        lo = (1.0 - above) * mid + above * lo
    return lo


def cube_roots_ends_by_steps(a):
    lo, hi = np.zeros_like(a), np.full_like(a, 3.0)
    while np.max(hi - lo) > 1e-12:
        mid = 0.5 * (lo + hi)
        above = (mid ** 3 > a).astype(float)
        hi = hi + above * (mid - hi)
        lo = lo + (1 - above) * (mid - lo)
    return np.sum(lo)


def cube_root_from_a_moving_bracket(a):
    lo, hi = 0.0, a
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if mid ** 3 > a else (mid, hi)
    return lo


def merged_sorted(a, b):
    i, j, out = 0, 0, []
    while i < len(a) and j < len(b):
        if a[i] < b[j]:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return np.sum(np.array(out + list(a[i:]) + list(b[j:])) * np.arange(1.0, len(a) + len(b) + 1))


@pytest.mark.parametrize("mode, f, x", [
    ("grad", cube_root_ends_by_arithmetic, 2.0),                   # was 0, the root's slope 0.210
    ("jvp", cube_roots_ends_by_steps, np.array([2.0, 5.0])),        # was 0, [0.210, 0.114] along ones: 0.324
    ("grad", cube_root_from_a_moving_bracket, 2.0),                 # was r / a = 0.630, the root's slope 0.210
])
def test_a_bisection_choosing_its_ends_by_arithmetic_or_from_a_moving_bracket_is_refused(mode, f, x):
    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.ones_like(x),))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="narrows a bracket") as caught:
        run()
    assert caught.value.location.text.strip().startswith(("for _ in range(60):", "while np.max(hi - lo)", "while hi - lo"))
    assert "`hi` and `lo`" in str(caught.value)


def test_a_merge_moving_one_counter_on_each_path_is_differentiated():
    # i += 1 on one path, j += 1 on the other: no end is a point made from both (was refused as a bisection)
    a, b = np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.3, 1.2])
    for argnum, gradient in enumerate(s2sad.grad(merged_sorted, argnums=(0, 1))(a, b)):
        np.testing.assert_allclose(gradient, numerical_gradient(merged_sorted, [a, b], argnum), rtol=1e-6)


def cube_root_by_halved_steps(a):
    x, step = 0.0, 4.0
    for _ in range(60):
        step *= 0.5
        if (x + step) ** 3 <= a:
            x = x + step
    return x


def cube_root_by_signed_steps(a):
    x, step = 1.5, 1.0
    for _ in range(60):
        x = x - np.sign(x ** 3 - a) * step
        step = step / 2
    return x


@pytest.mark.parametrize("mode, f", [("grad", cube_root_by_halved_steps), ("jvp", cube_root_by_signed_steps)])
def test_a_search_moving_one_end_by_a_halved_step_is_refused(mode, f):
    # each gave 0, the root's slope 0.210
    run = {"grad": lambda: s2sad.grad(f)(2.0), "jvp": lambda: s2sad.jvp(f, (2.0,), (1.0,))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="narrows a bracket") as caught:
        run()
    assert "`x`" in str(caught.value) and caught.value.location.text.strip() == "for _ in range(60):"
