"""The user's arrays and s2sad's stay apart (issue 15, item 5).

Nothing the user does to arrays they hold (the value returned, the inputs they passed, the
cotangent they passed) may change a later pullback's answer, and no gradient handed out
may be an array the caller passed in or another gradient handed out. Expected values are
hand-derived (exp' = exp, (x*x)' = 2x, an identity's pullback is the cotangent).
"""
import numpy as np
import pytest

import s2sad


def exponential(x):
    return np.exp(x)


def square(x):
    return x * x


def identity(x):
    return x


def reshaped(x):
    return x.reshape(3)


def plus_zero(x):
    return x + 0.0


def everything(x):
    return x[...]


def weighted(x, w):
    return np.sum(np.sin(x) * w)


def exponential_with_aux(x):
    e = np.exp(x)
    return np.sum(e), e


def sum_of_both(x, y):
    return np.sum(x) + np.sum(y)


IDENTITY_LIKE = [identity, reshaped, plus_zero, everything]
X = np.array([0.5, -1.0, 2.0])


def test_changing_the_returned_value_does_not_change_the_pullback():
    y, pullback = s2sad.vjp(exponential, X.copy())
    y *= 0
    np.testing.assert_allclose(pullback(np.ones(3))[0], np.exp(X))


def test_changing_the_input_after_vjp_does_not_change_the_pullback():
    x = X.copy()
    y, pullback = s2sad.vjp(square, x)
    x *= 0
    np.testing.assert_allclose(pullback(np.ones(3))[0], 2 * X)


def test_changing_a_constant_argument_after_vjp_does_not_change_the_pullback():
    x, w = X.copy(), np.array([1.0, 2.0, 3.0])
    y, pullback = s2sad.vjp(weighted, x, w)
    w[:] = 0.0
    dx, dw = pullback(1.0)
    np.testing.assert_allclose(dx, np.cos(X) * [1.0, 2.0, 3.0])
    np.testing.assert_allclose(dw, np.sin(X))


def test_changing_aux_does_not_change_the_pullback():
    y, pullback, aux = s2sad.vjp(exponential_with_aux, X.copy(), has_aux=True)
    aux *= 0
    np.testing.assert_allclose(pullback(1.0)[0], np.exp(X))


def test_changing_rrule_output_and_input_does_not_change_the_pullback():
    x = X.copy()
    y, pullback = s2sad.rrule(exponential, x)
    y *= 0
    x *= 0
    np.testing.assert_allclose(pullback(np.ones(3))[1], np.exp(X))


def test_changing_a_registered_rules_output_does_not_change_its_pullback():
    x = X.copy()
    y, pullback = s2sad.rrule(np.exp, x)  # np.exp's rule reads its own output
    y *= 0
    np.testing.assert_allclose(pullback(np.ones(3))[1], np.exp(X))


@pytest.mark.parametrize("function", IDENTITY_LIKE, ids=[f.__name__ for f in IDENTITY_LIKE])
def test_an_identity_like_gradient_is_not_the_callers_cotangent(function):
    x, cotangent = X.copy(), np.array([1.0, 2.0, 3.0])
    y, pullback = s2sad.vjp(function, x)
    (gradient,) = pullback(cotangent)
    np.testing.assert_allclose(gradient, [1.0, 2.0, 3.0])
    for held in (cotangent, x, y):
        assert not np.shares_memory(gradient, held)
    gradient *= 0  # the user changes what they got, then pulls back again
    cotangent *= 10
    np.testing.assert_allclose(pullback(np.ones(3))[0], np.ones(3))
    np.testing.assert_allclose(x, X)

    y, pullback = s2sad.rrule(function, x)
    gradient = pullback(cotangent)[1]
    assert not np.shares_memory(gradient, cotangent) and not np.shares_memory(gradient, x)


@pytest.mark.parametrize("function", IDENTITY_LIKE, ids=[f.__name__ for f in IDENTITY_LIKE])
def test_a_jvp_tangent_is_not_the_callers_tangent(function):
    x, tangent = X.copy(), np.array([1.0, 2.0, 3.0])
    y, output_tangent = s2sad.jvp(function, (x,), (tangent,))
    np.testing.assert_allclose(output_tangent, [1.0, 2.0, 3.0])
    assert not np.shares_memory(output_tangent, tangent) and not np.shares_memory(output_tangent, x)


def test_gradients_of_several_arguments_share_no_memory():
    x, y = X.copy(), X.copy() + 1.0
    for gradients in (s2sad.grad(sum_of_both, argnums=(0, 1))(x, y),
                      s2sad.value_and_grad(sum_of_both, argnums=(0, 1))(x, y)[1],
                      s2sad.vjp(sum_of_both, x, y)[1](1.0)):
        dx, dy = gradients
        np.testing.assert_allclose(dx, np.ones(3))
        np.testing.assert_allclose(dy, np.ones(3))
        for a, b in ((dx, dy), (dx, x), (dx, y), (dy, x), (dy, y)):
            assert not np.shares_memory(a, b)


def test_the_decorators_vjp_and_rrule_are_isolated_too():
    marked = s2sad.differentiate(exponential)
    x = X.copy()
    y, pullback = marked.vjp(x)
    y *= 0
    x *= 0
    np.testing.assert_allclose(pullback(np.ones(3))[0], np.exp(X))
    x = X.copy()
    y, pullback = marked.rrule(x)
    y *= 0
    np.testing.assert_allclose(pullback(np.ones(3))[1], np.exp(X))
    identity_marked = s2sad.differentiate(identity)
    cotangent = np.ones(3)
    assert not np.shares_memory(identity_marked.vjp(X.copy())[1](cotangent)[0], cotangent)


def test_the_callers_arrays_are_left_as_they_were():
    x, cotangent = X.copy(), np.array([1.0, 2.0, 3.0])
    s2sad.grad(lambda_free_sum)(x)
    s2sad.vjp(exponential, x)[1](cotangent)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(cotangent, [1.0, 2.0, 3.0])


def lambda_free_sum(x):
    return np.sum(x ** 2)


def test_floats_are_passed_over_by_the_isolation_helpers():
    from s2sad.runtime.isolation import arrays_in, unshared

    x, y = np.ones(2), np.zeros(3)
    assert arrays_in((1.0, x, [2.0, y], {"k": 3.0})) == [x, y]
    held = [x]
    assert unshared(2.5, held) == 2.5 and held == [x]
    copied = unshared(x, held)
    assert copied is not x and np.array_equal(copied, x)
    pair = unshared((1.5, y[1:]), [y])
    assert pair[0] == 1.5 and not np.shares_memory(pair[1], y)
