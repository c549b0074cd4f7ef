"""The Hessian of a function that compares data it is not differentiated in: an int label array or a
float data array beside the differentiated weights (``np.where(y > 0, ...)``). (``jacfwd(grad(f))`` and
``jacrev(grad(f))`` gave the right numbers already.)

``hessian`` used to hand each argument outside its float positions to ``hvp`` as its own tangent,
so an int label array became a nonzero tangent of an int input, which ``hvp`` refuses. The
reference is the mixed central second difference in float64."""
import numpy as np
import pytest

import s2sad

from finite_differences import mixed_second_difference

W = np.array([0.3, -1.2, 0.7])
LABELS = np.array([1, -1, 1])
DATA = np.array([0.5, -0.2, 0.1])


def branch_on_data(w, y):
    z = w * 2.0
    return np.sum(np.where(y > 0, z ** 3, np.sin(z)))


def second_differences(f, w, y):
    """The Hessian in ``w``, one entry a mixed second difference of ``f(., y)``."""
    basis = np.eye(w.size)
    return np.array([[mixed_second_difference(lambda v: f(v, y), [w], [e], [d]) for e in basis] for d in basis])


@pytest.mark.parametrize("y", [LABELS, DATA], ids=["int labels", "float data"])
def test_hessian_beside_a_data_argument(y):
    given = y.copy()
    got = s2sad.hessian(branch_on_data)(W, y)
    np.testing.assert_allclose(got, second_differences(branch_on_data, W, y), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(y, given)
