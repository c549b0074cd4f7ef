"""rules/refusals.py: functions whose derivative s2sad does not have refuse it where a
gradient reaches them, with the program's line and a spelling s2sad differentiates."""
import functools

import numpy as np
import pytest

import s2sad
from s2sad.testing import check_grad


def doubled_from_an_iterator(x):
    return np.sum(np.fromiter((2.0 * v for v in x), dtype=float))


def constant_from_an_iterator(x):
    return np.sum(x * np.fromiter(range(3), dtype=float))  # no gradient reaches fromiter: computed


def cumulative_written_out(a):
    return np.sum(np.stack([np.cumsum(row) for row in a]) ** 2)


def test_refused_with_the_line_and_a_hint():
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(doubled_from_an_iterator)(np.array([0.5, -1.0, 2.0]))
    message = str(caught.value)
    assert "test_refusals.py" in message and "np.array" in message


def test_constant_uses_and_the_written_out_loop_are_differentiated():
    x = np.array([0.5, -1.0, 2.0])
    check_grad(constant_from_an_iterator, x)
    check_grad(cumulative_written_out, np.array([[0.5, -1.0, 2.0], [1.0, 0.3, -0.2]]))


# ------------------------------------------------------------------ a helper under functools.lru_cache
# Refused, not followed: the cache may answer with a value computed before a global it reads
# changed (the derivative would be another computation's), and a cached function of arrays
# fails in Python already (arrays are unhashable). The hint's spelling, `.__wrapped__`, works.
OFFSET = [0.0]


@functools.lru_cache(maxsize=None)
def cached_scale(a):
    return np.exp(a) + OFFSET[0]


def through_the_cache(a):
    return cached_scale(a) * 3.0


def under_the_cache(a):
    return cached_scale.__wrapped__(a) * 3.0


def test_a_cached_helper_is_refused_with_the_spelling_that_works():
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(through_the_cache)(1.5)
    message = str(caught.value)
    assert "test_refusals.py" in message and "lru_cache" in message and "cached_scale.__wrapped__" in message
    check_grad(under_the_cache, 1.5)
