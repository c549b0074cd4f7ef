"""An int exponent handed to np.power through ``**kwargs`` (``def f(x, **kw): return helper(x, **kw)``,
``helper(x, x2)`` calling ``np.power(x, x2)``) in jvp and hvp against central differences, the function a
lambda written in a decorator's arguments, which s2sad failed to find (AttributeError). (``np.power(x, x2=3)``
itself is NumPy's TypeError: a ufunc takes its operands by position.)"""
import numpy as np
import pytest

import s2sad

from finite_differences import mixed_second_difference, numerical_gradient

X = np.array([0.3, -1.2, 0.7])
V = np.array([1.0, 0.5, -2.0])


def power_of(x, x2):
    return np.power(x, x2)


def passed_on(x, **kw):
    return np.sum(power_of(x, **kw))


@pytest.mark.parametrize("f", [lambda x: passed_on(x, x2=np.int64(3))], ids=["a lambda in a decorator"])
def test_jvp_and_hvp_against_central_differences(f):
    gradient = numerical_gradient(f, [X], 0)
    assert s2sad.jvp(f, (X,), (V,))[1] == pytest.approx(np.sum(gradient * V), rel=1e-6)
    np.testing.assert_allclose(np.sum(s2sad.hvp(f, (X,), (V,)) * V), mixed_second_difference(f, [X], [V], [V]),
                               rtol=1e-5)
