"""The one rule on code written as users write it: the derivative NumPy's function has, or a
located refusal. Never a wrong number, never a crash from deep inside.

The reference is central finite differences in float64 of the plain function; each program's
gradient and jvp are checked, and its inputs must come back unchanged.
"""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient
from user_programs import MUST_WORK, PROGRAMS


def _right_or_refused(name, attempt, must_work=MUST_WORK):
    """Run ``attempt``; a refusal must point at the program's own source."""
    try:
        return attempt()
    except s2sad.errors.S2SADError as error:
        assert name not in must_work, f"{name} is refused, but it was differentiated before:\n{error}"
        assert "user_programs.py:" in str(error), f"the refusal does not name the file and line:\n{error}"
        return None


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_is_right_or_refused(name):
    function, args, argnums = PROGRAMS[name]
    copies = [np.copy(a) for a in args]
    result = _right_or_refused(name, lambda: s2sad.value_and_grad(function, argnums=argnums)(*args))
    for before, after in zip(copies, args):
        np.testing.assert_array_equal(before, after)   # nothing the user owns is changed
    if result is None:
        return
    value, gradients = result
    np.testing.assert_allclose(value, function(*copies), rtol=1e-12, atol=1e-12)
    for argnum, gradient in zip(argnums, gradients):
        expected = numerical_gradient(function, copies, argnum)
        np.testing.assert_allclose(gradient, expected, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: gradient with respect to argument {argnum}")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp_is_right_or_refused(name):
    function, args, argnums = PROGRAMS[name]
    directions = np.random.default_rng(7)
    tangents = [directions.normal(size=np.shape(a)) if n in argnums else np.zeros(np.shape(a))
                for n, a in enumerate(args)]
    result = _right_or_refused(name, lambda: s2sad.jvp(function, tuple(args), tuple(tangents)),
                              MUST_WORK - {"polynomial_fit_residual"})  # np.vander has no forward rule
    if result is None:
        return
    value, tangent = result
    eps = 1e-6
    ahead = function(*[a + eps * t for a, t in zip(args, tangents)])
    behind = function(*[a - eps * t for a, t in zip(args, tangents)])
    np.testing.assert_allclose(value, function(*args), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tangent, (ahead - behind) / (2 * eps), rtol=1e-5, atol=1e-6, err_msg=f"{name}: jvp")
