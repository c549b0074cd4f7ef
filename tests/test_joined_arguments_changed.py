"""A list argument repeated with `*` or joined with `+`: the result holds the argument's very items,
so changing one of them in place changes the argument. s2sad's analyses take an argument's `+` and
`*` for arithmetic (an array's, whose items are new memory), and the change went unseen: below, the
gradient in `w` was 7.1 where central differences give 9.2. Such an argument is now checked on entry
(a list or tuple is refused at the function's line); arrays are differentiated as before."""
import warnings

import numpy as np
import pytest

import s2sad
from tests.finite_differences import numerical_gradient


def repeated_then_item_written(xs, w):
    ys = xs * 2
    a = ys[0]
    a[0] = w * 3.0
    return np.sum(xs[0] * w) + np.sum(a)


def array_product_then_written(x, w):
    y = x * 2.0
    y[0] = w
    return np.sum(x * y)


def _given():
    return [np.array([1.0, 2.0]), np.array([3.0, 4.0])]


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp", "compiled"])
def test_a_list_argument_repeated_then_an_item_changed_is_refused(mode):
    run = {"grad": lambda: s2sad.grad(repeated_then_item_written, argnums=1)(_given(), 0.7),
           "jvp": lambda: s2sad.jvp(repeated_then_item_written, (_given(), 0.7),
                                    ([np.zeros(2), np.zeros(2)], 1.0)),
           "hvp": lambda: s2sad.hvp(repeated_then_item_written, (_given(), 0.7),
                                    ([np.zeros(2), np.zeros(2)], 1.0)),
           "compiled": lambda: s2sad.grad(repeated_then_item_written, argnums=1, compile=True)(_given(), 0.7)}[mode]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="`xs` is a list joined with `\\+` or repeated") as caught:
            run()
    assert caught.value.location.filename == __file__


def test_the_old_number_was_not_the_functions():
    by_differences = numerical_gradient(lambda w: repeated_then_item_written(_given(), w), (0.7,), 0)
    assert abs(by_differences - 9.2) < 1e-6  # s2sad gave 7.1


def test_an_array_argument_is_differentiated_as_before():
    x = np.array([1.0, 2.0, 3.0])
    gradient = s2sad.grad(array_product_then_written, argnums=1)(x, 0.7)
    reference = numerical_gradient(lambda w: array_product_then_written(x.copy(), w), (0.7,), 0)
    np.testing.assert_allclose(gradient, reference, rtol=1e-6)
