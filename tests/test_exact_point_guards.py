"""A branch chosen by ``==`` or ``!=`` between a differentiated float and a constant, at a point where
they are equal: ``np.where(x == 0, 1.0, np.expm1(x) / x)`` guards a removable singularity, NumPy's
function is smooth there (slope 1/2 at 0), and the branch taken, the constant, has slope 0. s2sad
gave that 0 in every mode; it refuses at the user's line, and differentiates as before where no
element is equal, and where both sides move together (``x == x.max()``)."""
import math

import numpy as np
import pytest

import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient, refusal_in


def expm1_over_x(x):
    safe = np.where(x == 0, 1.0, x)
    return np.sum(np.where(x == 0, 1.0, np.expm1(safe) / safe))


def expm1_over_x_scalar(x):
    if x == 0.0:
        return 1.0
    return np.expm1(x) / x


def sinc_not_equal(x):
    safe = np.where(x != 0, x, 1.0)
    return np.sum(np.where(x != 0, np.sin(safe) / safe, 1.0) * x)


def largest_kept(x):
    return np.sum(np.where(x == np.max(x), x ** 2, np.sin(x)))


AT_ZERO = np.array([0.0, 0.3])


@pytest.mark.parametrize("mode, f, x, line", [
    ("grad", expm1_over_x, AT_ZERO, "safe = np.where(x == 0, 1.0, x)"),   # was [0, 0.612], NumPy's [0.5, 0.612]
    ("jvp", expm1_over_x_scalar, 0.0, "if x == 0.0:"),                     # was 0, NumPy's 0.5
    ("hvp", sinc_not_equal, AT_ZERO, "safe = np.where(x != 0, x, 1.0)"),  # was 0 at 0, NumPy's 2
])
def test_refused_at_the_equal_point(mode, f, x, line):
    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.ones_like(x),)),
           "hvp": lambda: s2sad.hvp(f, (x,), (np.ones_like(x),))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as caught:
        run()
    assert caught.value.location.text.strip() == line and caught.value.hint


@pytest.mark.parametrize("f, x", [(expm1_over_x, np.array([0.2, -0.4])), (expm1_over_x_scalar, 0.3),
                                  (sinc_not_equal, np.array([0.7, -0.2])), (largest_kept, np.array([0.4, 1.1, -0.3]))])
def test_differentiated_where_nothing_is_equal(f, x):
    np.testing.assert_allclose(s2sad.grad(f)(x), numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-8)


def relu_then_leaky_where_dead(z):
    h = np.maximum(z, 0.0)
    return np.sum(np.where(h == 0, 0.01 * z, h ** 2))


@pytest.mark.parametrize("f, x, v", [(relu_then_leaky_where_dead, np.array([-1.0, 0.5]), np.array([1.0, -2.0])),
                                     (expm1_over_x, AT_ZERO, np.array([0.0, 1.0]))])
def test_forward_code_refuses_only_where_the_value_moves(f, x, v):
    # a relu's 0 stays put around a negative input, and x[0] does not move along v: each outcome
    # holds around the point, and jvp is NumPy's directional derivative
    _, tangent = s2sad.jvp(f, (x,), (v,))
    assert tangent == pytest.approx((f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6, rel=1e-6)



def guard_on_an_item(x):
    # the guard reads x[0], whose tangent nothing else reads: forward code wrote none and skipped the check
    if x[0] == 1.0:
        return np.sum(x) * 0.0
    return np.sum(x ** 2)


def where_two_inputs_equal(x, y):
    return np.sum(np.where(x == y, x * 2.0, y * 3.0))


def test_forward_code_checks_a_value_whose_tangent_nothing_reads():
    # was jvp 0 along [1, 0]; NumPy's function has slope 2 from either side of x[0] = 1
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as caught:
        s2sad.jvp(guard_on_an_item, (np.array([1.0, 0.5]),), (np.array([1.0, 0.0]),))
    assert caught.value.location.text.strip() == "if x[0] == 1.0:"


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_two_sides_moving_with_different_inputs_refused_where_equal(mode):
    # at x[0] == y[0] grad gave [2, 0], [0, 3] (the branch taken); either side's move leaves it: [0, 0], [0, 3]
    x, y = np.array([1.0, 2.0]), np.array([1.0, 0.5])
    run = {"grad": lambda: s2sad.grad(where_two_inputs_equal, argnums=(0, 1))(x, y),
           "jvp": lambda: s2sad.jvp(where_two_inputs_equal, (x, y), (np.zeros(2), np.ones(2))),
           "hvp": lambda: s2sad.hvp(where_two_inputs_equal, (x, y), (np.ones(2), np.ones(2)))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="moving with other inputs") as caught:
        run()
    assert caught.value.location.text.strip() == "return np.sum(np.where(x == y, x * 2.0, y * 3.0))"


def squared_maximum(x, y):
    return np.sum(np.maximum(x, y) ** 2)


def test_a_rule_s_own_test_of_sides_with_an_input_in_common_is_not_refused():
    # np.maximum's derivative, differentiated again, tests `y != np.maximum(x, y)`: equal wherever y
    # is the larger, and moving together there
    x, y = np.array([0.3, -1.2, 0.8]), np.array([-0.4, 0.5, 1.1])
    ones = (np.ones(3), np.ones(3))
    assert_hvp_matches(s2sad.hvp(squared_maximum, (x, y), ones), squared_maximum, [x, y], list(ones),
                       [np.array([1.0, -2.0, 0.5]), np.array([0.3, 1.0, -1.0])])


def test_two_sides_differentiated_where_nothing_is_equal():
    x, y = np.array([1.0, 2.0]), np.array([1.5, 0.5])
    got = s2sad.grad(where_two_inputs_equal, argnums=(0, 1))(x, y)
    for argnum, gradient in enumerate(got):
        np.testing.assert_allclose(gradient, numerical_gradient(where_two_inputs_equal, [x, y], argnum), atol=1e-8)


def expm1_over_x_not(x):
    s = 0.0
    for v in x:
        if not v:
            s += 1.0
        else:
            s += np.expm1(v) / v
    return s


def expm1_over_x_in(x):
    s = 0.0
    for v in x:
        s += 1.0 if v in (0.0, 1.0) else np.expm1(v) / v
    return s


def expm1_over_x_truthy(x):
    return np.sum(np.where(x, np.expm1(x) / np.where(x, x, 1.0), 1.0))


def zero_input_guarded_by_any(x):
    if np.any(x):
        return np.sum(np.sin(x) ** 2) + np.sum(x)
    return 0.0


def expm1_over_x_astype_bool(x):
    nonzero = x.astype(bool)
    return np.sum(np.where(nonzero, np.expm1(x) / np.where(nonzero, x, 1.0), 1.0))


def guarded_by_truth(x):
    if x[0]:
        return np.expm1(x[0]) / x[0] + x[1]
    return 1.0 + x[1]


@pytest.mark.parametrize("f, x, line", [
    (expm1_over_x_not, AT_ZERO, "if not v:"),                       # was [0, 0.612], NumPy's [0.5, 0.612]
    (expm1_over_x_in, AT_ZERO, "s += 1.0 if v in (0.0, 1.0) else np.expm1(v) / v"),  # the same
    (expm1_over_x_truthy, AT_ZERO, "return np.sum(np.where(x, np.expm1(x) / np.where(x, x, 1.0), 1.0))"),  # the same
    (zero_input_guarded_by_any, np.zeros(2), "if np.any(x):"),       # was [0, 0], NumPy's [1, 1]
    (guarded_by_truth, AT_ZERO, "if x[0]:"),                         # was [0, 1], NumPy's [0.5, 1]
    (expm1_over_x_astype_bool, AT_ZERO, "nonzero = x.astype(bool)"),  # was [0, 0.612], NumPy's [0.5, 0.612]
])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_float_s_truth_tested_at_zero_is_refused(mode, f, x, line):
    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.ones_like(x),))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as caught:
        run()
    assert caught.value.location.text.strip() == line


@pytest.mark.parametrize("f", [expm1_over_x_not, expm1_over_x_in, expm1_over_x_truthy, zero_input_guarded_by_any,
                               guarded_by_truth, expm1_over_x_astype_bool])
def test_truth_tests_differentiated_where_nothing_is_0(f):
    x = np.array([0.7, -0.2])
    np.testing.assert_allclose(s2sad.grad(f)(x), numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-8)
    _, tangent = s2sad.jvp(f, (x,), (np.array([1.0, -2.0]),))
    assert tangent == pytest.approx(float(numerical_gradient(f, [x], 0) @ np.array([1.0, -2.0])), rel=1e-6)


def sinc_of_norm(x):
    r = np.linalg.norm(x)
    safe = np.where(r == 0, 1.0, r)
    return np.where(r == 0, 1.0, np.sin(safe) / safe)


def sinc_of_abs(x):
    a = np.abs(x)
    return np.sum(np.where(a == 0, 1.0, np.sin(a) / np.where(a == 0, 1.0, a)))


def sinc_of_norm_greater(x):
    r = np.linalg.norm(x)   # `r > 0` is `r != 0` for a value never negative
    return np.where(r > 0, np.sin(r) / np.where(0 < r, r, 1.0), 1.0)


def test_an_ordering_of_a_norm_with_0_is_refused_at_0_for_hvp_only():
    # hvp was 0 at 0, NumPy's -v / 3; the first derivative through the norm's kink is its subgradient, 0
    # (refused at the norm itself: a norm at 0 is checked in a second derivative whatever reads it)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"`np.linalg.norm\(...\) == 0` finds a differentiated value"):
        s2sad.hvp(sinc_of_norm_greater, (np.zeros(2),), (np.array([1.0, 0.5]),))
    np.testing.assert_array_equal(s2sad.grad(sinc_of_norm_greater)(np.zeros(2)), [0.0, 0.0])
    x, v, u = np.array([0.3, 0.4]), np.array([1.0, 0.5]), np.array([-0.2, 0.7])
    assert_hvp_matches(s2sad.hvp(sinc_of_norm_greater, (x,), (v,)), sinc_of_norm_greater, [x], [v], [u])


@pytest.mark.parametrize("f, x, line", [
    (sinc_of_norm, np.zeros(2), "r = np.linalg.norm(x)"),   # was 0 at 0, NumPy's -v / 3
    (sinc_of_abs, np.zeros(2), "a = np.abs(x)"),            # was 0, -1/3 (each refused at the kink, before its guard)
])
def test_hvp_refuses_where_the_operands_tangent_is_0_but_it_moves(f, x, line):
    # a norm's and |x|'s tangent at 0 is 0 along every direction, yet the value moves: jvp is right
    # there (f's slope is 0), its derivative, the Hessian, is not the constant branch's 0
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal to a constant") as caught:
        s2sad.hvp(f, (x,), (np.array([1.0, 0.5]),))
    assert caught.value.location.text.strip() == line
    assert s2sad.jvp(f, (x,), (np.array([1.0, 0.5]),))[1] == 0.0


def tie_of_two_elements(x):
    if x[0] == x[1]:
        return np.sin(x[0]) + x[1]
    return x[0] ** 2 + x[1]


def test_two_elements_of_one_array_at_a_tie_are_refused():
    """``x[0] == x[1]``: both move with ``x``, but apart (each is its own coordinate), so at a tie the
    branch holds at that point alone: grad gave cos(0.5) = 0.878 where NumPy's function has slope 1.0
    (any move of x[0] breaks the tie). Refused there in every mode; differentiated elsewhere."""
    tie, apart = np.array([0.5, 0.5]), np.array([0.5, 0.7])
    for run in (lambda x: s2sad.grad(tie_of_two_elements)(x),
                lambda x: s2sad.jvp(tie_of_two_elements, (x,), (np.array([1.0, 0.0]),)),
                lambda x: s2sad.hvp(tie_of_two_elements, (x,), (np.array([1.0, 0.0]),))):
        with pytest.raises(s2sad.S2SADError, match="exactly equal"):
            run(tie)
    np.testing.assert_allclose(s2sad.grad(tie_of_two_elements)(apart),
                               numerical_gradient(tie_of_two_elements, [apart], 0), rtol=1e-7)


def pairwise_ties(x):
    total = 0.0
    for i in range(len(x)):
        for j in range(len(x)):
            if i != j and x[i] == x[j]:
                total += np.sin(x[i])
            elif i != j:
                total += x[i] * x[j]
    return total


def neighbours_tied(x):
    total, i = 0.0, 0
    while i < len(x) - 1:   # i is a counter the loop carries: the same in both reads of one iteration
        total += np.sin(x[i]) if x[i] == x[i + 1] else x[i] * x[i + 1]
        i += 1
    return total


def ends_equal(x):
    if np.array_equal(x[:2], x[2:]):
        return np.sum(np.sin(x[:2]))
    return np.sum(x[:2] * x[2:])


def all_zero(x):
    if np.allclose(x, 0.0, atol=0, rtol=0):
        return 0.0
    return np.sum(x ** 2) + np.sum(x)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f, tie, line", [
    (pairwise_ties, [0.5, 0.5, 0.2], "if i != j and x[i] == x[j]:"),  # was [1.278, 1.278, 2], NumPy's [1.4, 1.4, 2]
    (neighbours_tied, [0.5, 0.5, 0.2], "total += np.sin(x[i]) if x[i] == x[i + 1] else x[i] * x[i + 1]"),  # was [0.878, 0.2, 0.5], NumPy's [0.5, 0.7, 0.5]
    (ends_equal, [0.5, 0.3, 0.5, 0.3], "if np.array_equal(x[:2], x[2:]):"),  # was [0.878, 0.955, 0, 0], NumPy's [0.5, 0.3, 0.5, 0.3]
    (all_zero, [0.0, 0.0], "if np.allclose(x, 0.0, atol=0, rtol=0):"),       # was [0, 0], NumPy's [1, 1]
])
def test_ties_of_elements_read_by_variables_and_exact_array_comparisons_are_refused(mode, f, tie, line):
    x = np.array(tie)
    run = {"grad": lambda: s2sad.grad(f)(x), "jvp": lambda: s2sad.jvp(f, (x,), (np.linspace(1.0, -0.5, len(x)),))}[mode]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal") as caught:
        run()
    assert caught.value.location.text.strip() == line
    apart = x + np.linspace(0.1, 0.4, len(x))
    np.testing.assert_allclose(s2sad.grad(f)(apart), numerical_gradient(f, [apart], 0), rtol=1e-6, atol=1e-8)


def kept_truthy(x):
    return sum(filter(None, [x[0] * 2.0, 0.0, np.sin(x[1])]))


def test_filter_none_refuses_only_a_moving_item_at_0():
    # the constant 0.0 item was refused, as if it moved with x
    x = np.array([0.5, 0.3])
    np.testing.assert_allclose(s2sad.grad(kept_truthy)(x), numerical_gradient(kept_truthy, [x], 0), rtol=1e-7)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal"):
        s2sad.grad(kept_truthy)(np.array([0.0, 0.3]))


def ties_counted(x):
    return np.sum(x[:, None] == x[None, :]) * np.sum(x ** 2)


def test_an_array_compared_with_itself_broadcast_is_not_refused_for_its_diagonal():
    # x[:, None] and x[None, :] read the same elements: equal on the diagonal wherever x is
    x = np.array([0.5, -0.3, 0.2])
    np.testing.assert_allclose(s2sad.grad(ties_counted)(x), numerical_gradient(ties_counted, [x], 0), rtol=1e-7)


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def rotated(w):
    theta = np.linalg.norm(w)
    if theta > 0:   # the branch reads w itself, not only its norm
        K = _skew(w / theta)
        R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
    else:
        R = np.eye(3)
    return np.sum(R * np.arange(9.0).reshape(3, 3))


def radial(w):
    r = np.linalg.norm(w)
    if r > 0:       # a function of the norm alone: its kink at 0, differentiated through the branch taken
        return np.sin(r) / r
    return 1.0


def test_a_norm_s_test_at_0_choosing_by_more_than_the_norm_is_refused():
    # Rodrigues' rotation at w = 0: grad gave [0, 0, 0], NumPy's function has slope [2, -4, 2]; jvp along
    # e0 gave 0 (the norm's tangent at 0 is 0 though it moves), NumPy's 2
    zero = np.zeros(3)
    for run in (lambda: s2sad.grad(rotated)(zero), lambda: s2sad.jvp(rotated, (zero,), (np.array([1.0, 0.0, 0.0]),))):
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal") as caught:
            run()
        assert caught.value.location.text.strip() == "if theta > 0:   # the branch reads w itself, not only its norm"
    w = np.array([0.1, 0.2, -0.1])
    np.testing.assert_allclose(s2sad.grad(rotated)(w), numerical_gradient(rotated, [w], 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(s2sad.grad(radial)(zero), zero)


def isclose_to_0(x):
    if math.isclose(x[0], 0.0):     # abs_tol is 0 unless given: x[0] == 0.0
        return 1.0 + x[1]
    return np.expm1(x[0]) / x[0] + x[1]


def tuple_matched(x):
    if tuple(x) == (0.0, 0.3):
        return 1.0 + x[1]
    return np.sum(np.sin(x)) * 2


def sign_is_0(x):
    if np.sign(x[0]) == 0:
        return 1.0 + x[1]
    return np.expm1(x[0]) / x[0] + x[1]


@pytest.mark.parametrize("f, line", [
    (isclose_to_0, "if math.isclose(x[0], 0.0):     # abs_tol is 0 unless given: x[0] == 0.0"),  # was [0, 1], NumPy's [0.5, 1]
    (tuple_matched, "if tuple(x) == (0.0, 0.3):"),   # was [0, 1], NumPy's [2, 1.911]
    (sign_is_0, "if np.sign(x[0]) == 0:"),           # was [0, 1], NumPy's [0.5, 1]
])
def test_equalities_in_disguise_are_refused_at_the_equal_point(f, line):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="exactly equal") as caught:
        s2sad.grad(f)(np.array([0.0, 0.3]))
    assert caught.value.location.text.strip() == line
    x = np.array([0.2, 0.5])
    np.testing.assert_allclose(s2sad.grad(f)(x), numerical_gradient(f, [x], 0), rtol=1e-6, atol=1e-8)


def rate_looked_up(x):
    table = {0.5: 2.0, 1.0: 3.0}
    return table.get(float(x[0]), 1.0) * np.sum(x ** 2)


def rate_indexed(t):
    return {0.0: 1.0, 1.0: 2.0}[t] * t ** 2


def test_a_dict_looked_up_by_a_moving_key_is_refused_where_the_key_is_one_of_its_own():
    # at x[0] = 0.5 the entry 2.0 holds there alone (1.0 all around): grad gave [2.0, 1.2], NumPy's [1.0, 1.2]
    error = refusal_in("grad", rate_looked_up, np.array([0.5, 0.3]), "a key it looks up")
    assert error.location.text.strip() == "return table.get(float(x[0]), 1.0) * np.sum(x ** 2)"
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a key it looks up"):
        s2sad.jvp(rate_indexed, (1.0,), (1.0,))  # found only at its keys: refused wherever it runs
    x = np.array([0.7, 0.3])
    np.testing.assert_allclose(s2sad.grad(rate_looked_up)(x), numerical_gradient(rate_looked_up, [x], 0), rtol=1e-6)


def squared_distance_and_product(x, y):
    return np.linalg.norm(x - y) ** 2 + np.sum(x * y)


def squared_magnitudes(x):
    return np.sum(np.abs(x) ** 2)


@pytest.mark.parametrize("f, args, v", [
    (squared_distance_and_product, (np.array([1.0, 2.0]), np.array([1.0, 2.0])), (np.array([1.0, -1.0]), np.zeros(2))),
    (squared_magnitudes, (np.array([0.0, 0.5]),), (np.array([1.0, -1.0]),)),
])
def test_a_norm_or_absolute_value_at_0_is_refused_in_a_second_derivative(f, args, v):
    # smooth functions whose first derivative's convention at 0 (sign(0) = 0, x / 0 taken as 0) a second one
    # multiplied in: hvp gave [0, 0], [1, -1] for the first, whose Hessian [[2I, -I], [-I, 2I]] gives [2, -2], [-1, 1],
    # and [0, -2] for the second, NumPy's [2, -2]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=r"\(\.\.\.\) == 0"):
        s2sad.hvp(f, args, v)
    moved = tuple(a + np.array([0.3, -0.2]) * (n + 1) for n, a in enumerate(args))
    assert_hvp_matches(s2sad.hvp(f, moved, v), f, list(moved), list(v), [np.array([0.5, 2.0]) for _ in args])


def softplus_kept_finite(x):
    return np.sum(np.where(x > 20.0, x, np.log1p(np.exp(np.minimum(x, 20.0)))))


def larger_or_squared_smaller(x, y):
    return np.sum(np.where(x > y, x, np.minimum(x, y) ** 2))


def test_an_ordering_at_the_tie_of_an_extreme_of_the_same_two_is_refused():
    # at x = 20 the branch taken is the one where np.minimum(x, 20.0) is x, whose tie gave it half the
    # slope: grad 0.5, where NumPy's function has slope 1 on either side
    error = refusal_in("grad", softplus_kept_finite, np.array([-1.0, 20.0]), "exactly equal to a constant")
    assert error.location.text.strip().startswith("return np.sum(np.where(x > 20.0")
    # two variables: at x = y = 0.5 grad gave (0.5, 0.5), where the slopes are (1, 0) on either side
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="`x > y` finds"):
        s2sad.grad(larger_or_squared_smaller, argnums=(0, 1))(np.array([0.5]), np.array([0.5]))
    x = np.array([-1.0, 19.0, 25.0])
    np.testing.assert_allclose(s2sad.grad(softplus_kept_finite)(x), numerical_gradient(softplus_kept_finite, [x], 0), rtol=1e-6)
