"""A helper recording a value in a list of its module (``LOG.append(z)``, a record with no gradient)
while the function differentiated, which called it, reads that list: the read sees the value recorded
during the call, which s2sad took for a constant. Below, the gradient missed the term of `LOG[-1]`
(central differences count it); now refused at the reading function's line, in every mode."""
import numpy as np
import pytest

import s2sad
from tests.finite_differences import numerical_gradient, refusal_in

LOG = []


def record(z):
    LOG.append(z)
    return z * 1.0


def reads_what_a_helper_recorded(x):
    y = record(x * x)
    return np.sum(y) + np.sum(LOG[-1])


def records_through_a_helper_only(x):
    y = record(x * x)
    return np.sum(y)


X = np.array([0.5, -1.5, 2.0])


def test_the_old_number_missed_a_term():
    expected = 4 * X  # d/dx of sum(x*x) + sum(x*x)
    np.testing.assert_allclose(numerical_gradient(reads_what_a_helper_recorded, (X,), 0), expected, rtol=1e-6)


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_reading_a_list_a_helper_records_in_is_refused(mode):
    refused = refusal_in(mode, reads_what_a_helper_recorded, X, "a list of its module that `record`")
    assert refused.location.filename == __file__


def test_a_record_the_function_does_not_read_is_differentiated():
    np.testing.assert_allclose(s2sad.grad(records_through_a_helper_only)(X), 2 * X, rtol=1e-12)
