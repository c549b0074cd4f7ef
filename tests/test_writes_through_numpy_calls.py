"""Writes through NumPy calls that s2sad missed (session 17).

A NumPy function handed its ``out`` array by position (``np.negative(y, y)``, ``np.clip(y, lo,
hi, y)``, ``y.cumsum(0, None, z)``), in the differentiated function or in a helper called for its
effect, is refused at the user's line: the rules name ``out`` in their signatures and read the
result only, so the write was missed and every mode gave a wrong number (np.negative(y, y) then
sum(y * x ** 2): grad -4.03 where central differences give 4.03, each along one direction).

A helper called for its effect that changes, in place, what a NumPy call gave back for its
parameter (``q = np.reshape(a, -1); q *= 2.0``: a view of ``a``, or ``a`` itself from
``np.asarray``) was judged to only read, and the change was missed (grad 11.57 where central
differences give 23.15 along one direction): it is refused at the call.

A ufunc's own methods (``np.maximum.reduce(A, 0, None, out)``, ``np.add.accumulate(x, 0, None,
out)``) were not read as NumPy's, so their ``out`` by position went unnoticed as above (session 18:
grad 0 everywhere where central differences give 0.67, 2.99, ...): refused the same way."""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient


def negated_in_place(x):
    y = x * 1.0
    np.negative(y, y)
    return np.sum(y * x ** 2)


def clipped_in_place(x):
    y = x * 3.0
    np.clip(y, -0.5, 0.5, y)
    return np.sum(y * x)


def summed_into_another(x):
    y = x * 1.0
    z = np.zeros(4)
    y.cumsum(0, None, z)
    return np.sum(z * x)


def cumsum_in_place(a):
    np.cumsum(a, 0, None, a)


def helper_writes_by_position(x):
    y = x * 1.0
    cumsum_in_place(y)
    return np.sum(y ** 2)


def product_into(A, B, C):
    np.matmul(A, B, C)


def helper_matmul_into(x):
    C = np.zeros((2, 2))
    product_into(np.outer(x[:2], x[2:]), np.eye(2), C)
    return np.sum(C * x[:2])


def einsum_reads(a):
    return np.einsum("i,i->", a, a)


def helper_reading_with_einsum(x):
    # einsum's out is keyword-only: its operands, given by position, are read
    if einsum_reads(x) > 0:
        return np.sum(x ** 3)
    return np.sum(x)


def doubled_through_a_reshape(a):
    q = np.reshape(a, -1)
    q *= 2.0


def helper_writes_through_a_view_it_got(x):
    y = x * 1.0
    doubled_through_a_reshape(y)
    return np.sum(y ** 2)


def centred_through_asarray(a):
    q = np.asarray(a)
    q -= np.mean(q)


def helper_writes_through_the_same_array(x):
    y = x * 1.0
    centred_through_asarray(y)
    return np.sum(y * x)


def halves_scaled(a):
    first, _ = np.split(a, 2)
    first *= 2.0


def helper_writes_through_views_it_unpacked(x):
    y = np.sin(x)
    halves_scaled(y)
    return np.sum(np.cos(y) * x)


def counted_down(a):
    n = len(a)
    n -= 1
    return n


def helper_counting_down_only_reads(x):
    # n = len(a) holds no part of a: changing n changes nothing the caller passed
    if counted_down(x) > 2:
        return np.sum(x ** 3)
    return np.sum(x)


def largest_into_by_position(x):
    out = np.zeros(2)
    np.maximum.reduce(x.reshape(2, 2), 0, None, out)
    return np.sum(out ** 2)


def accumulated_into(a, out):
    np.add.accumulate(a, 0, None, out)


def helper_accumulates_by_position(x):
    out = np.zeros(4)
    accumulated_into(x * 2.0, out)
    return np.sum(out * x)


X = np.array([0.613, -1.263, 1.587, 0.341])


@pytest.mark.parametrize("function, line", [(negated_in_place, "np.negative(y, y)"), (clipped_in_place, "np.clip(y, -0.5, 0.5, y)"),
                                            (summed_into_another, "y.cumsum(0, None, z)"),
                                            (helper_writes_by_position, "cumsum_in_place(y)"),
                                            (helper_matmul_into, "product_into(np.outer"),
                                            (helper_writes_through_a_view_it_got, "doubled_through_a_reshape(y)"),
                                            (helper_writes_through_the_same_array, "centred_through_asarray(y)"),
                                            (helper_writes_through_views_it_unpacked, "halves_scaled(y)"),
                                            (largest_into_by_position, "np.maximum.reduce(x.reshape"),
                                            (helper_accumulates_by_position, "accumulated_into(x * 2.0, out)")])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_write_through_a_numpy_call_is_refused_at_the_users_line(function, line, mode):
    run = s2sad.grad(function) if mode == "grad" else (lambda x: s2sad.jvp(function, (x,), (np.ones(4),)))
    with pytest.raises(s2sad.UnsupportedSyntaxError) as caught:
        run(X)
    assert caught.value.location.filename == __file__ and line in caught.value.location.text


@pytest.mark.parametrize("function", [helper_reading_with_einsum, helper_counting_down_only_reads])
def test_helpers_that_only_read_are_still_differentiated_through(function):
    np.testing.assert_allclose(s2sad.grad(function)(X), numerical_gradient(function, (X,), 0), rtol=1e-6)
