"""scipy.special.logsumexp(a, axis, b=..., return_sign=True) in user programs: the tuple (log|sum|, sign) in
grad, vjp, jvp and hvp against central differences, the caller's arrays unchanged; a weighted sum of exactly
0 (no derivative) refused at the user's line."""
import numpy as np
import pytest

import s2sad

from finite_differences import assert_every_mode_of_arrays

special = pytest.importorskip("scipy.special")

A = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]])
B = np.array([[-1.0, 2.0, -0.5], [-0.3, 1.5, -1.0]])  # the first row's sum is negative, the second's positive


def signed_log_sum(a, b):
    magnitude, sign = special.logsumexp(a, axis=1, b=b, return_sign=True)
    return np.sum(magnitude * np.array([0.7, -1.3])) + np.sum(sign * a[:, 0] ** 2)


def test_every_mode_against_central_differences():
    assert np.array_equal(special.logsumexp(A, axis=1, b=B, return_sign=True)[1], [-1.0, 1.0])
    assert_every_mode_of_arrays(signed_log_sum, [A, B])


def test_a_sum_of_zero_is_refused_at_the_user_s_line():
    with pytest.raises(s2sad.S2SADError, match="weighted sum is not 0") as caught:
        s2sad.grad(signed_log_sum)(np.zeros((2, 2)), np.array([[1.0, -1.0], [1.0, 1.0]]))
    assert "special.logsumexp(a, axis=1, b=b, return_sign=True)" in str(caught.value)


def weighted_log_sum(a, b):
    return np.sum(special.logsumexp(a, axis=1, b=b))


def test_weights_all_zero_in_a_row_are_refused_in_b_and_flat_in_a():
    """A row of zero weights: log(sum) is -inf there whatever ``a`` is (its derivative in ``a`` is 0),
    but in ``b`` it is exp(a) / 0, infinite: refused, where the rule gave 0."""
    b = np.array([[0.0, 0.0, 0.0], [0.4, 0.7, 0.2]])
    with np.errstate(divide="ignore"):
        for derivative in (lambda: s2sad.grad(weighted_log_sum, argnums=1)(A, b),
                           lambda: s2sad.jvp(lambda b: weighted_log_sum(A, b), (b,), (np.ones_like(b),))):
            with pytest.raises(s2sad.S2SADError, match="differentiated in b only where the weighted sum is not 0"):
                derivative()
        flat_row_and_softmax = s2sad.grad(weighted_log_sum)(A, b)
    weighted = b[1] * np.exp(A[1])
    np.testing.assert_allclose(flat_row_and_softmax, [[0.0, 0.0, 0.0], weighted / weighted.sum()], rtol=1e-13)
