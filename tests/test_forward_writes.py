"""A write into an array whose tangent is another array's (a rule hands a tangent on unchanged:
`z = y + 1.0` has y's) changed that other array's tangent too: forward mode gave wrong tangents
(-7.2 where central differences give 3.8). Forward code now writes only into a tangent made for the
array written (runtime/structure.py, `_own_tangent`). References: central differences in float64."""
import numpy as np
import pytest

import forward_write_programs as programs
import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient

WRITERS = [programs.after_adding_a_constant, programs.after_subtracting_a_constant, programs.after_adding_zeros,
           programs.after_taking_the_real_part, programs.after_a_squeeze, programs.after_or,
           programs.written_before_and_after, programs.written_in_loops,
           # (under hvp, a list's items' cotangents came as a tuple from one rule and a list from another: a crash)
           programs.a_joined_list_written, programs.a_sorted_list_written]
X = np.array([0.5, -1.0, 2.0])
T = np.array([1.0, 0.3, -0.7])


@pytest.mark.parametrize("f", WRITERS, ids=lambda f: f.__name__)
def test_tangent_gradient_and_hessian_vector_product(f):
    expected = numerical_gradient(f, [X], 0)
    _, tangent = s2sad.jvp(f, (X,), (T,))
    np.testing.assert_allclose(tangent, expected @ T, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(f)(X), expected, rtol=1e-7, atol=1e-8)
    assert_hvp_matches(s2sad.hvp(f, (X,), (T,)), f, (X,), (T,), (np.array([0.2, -0.4, 0.9]),), rtol=1e-5, atol=1e-6)


def test_a_write_through_an_einsum_view_is_refused_where_the_array_is_read_after():
    for transform in (s2sad.grad, lambda f: lambda x: s2sad.jvp(f, (x,), (T,))):
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="`y` shares") as raised:
            transform(programs.an_einsum_view_written)(X.copy())
        assert raised.value.location.text.strip() == "z[0] = 10.0"


def test_the_caller_s_tangent_is_left_as_it_was():
    x, t = X.copy(), T.copy()
    _, tangent = s2sad.jvp(programs.writes_its_argument, (x,), (t,))
    np.testing.assert_array_equal(t, T)
    # x0 becomes 2 x1: d/dt sum(x^2) = 2 (2 x1)(2 t1) + 2 x1 t1 + 2 x2 t2, at the original x
    assert tangent == pytest.approx(8 * X[1] * T[1] + 2 * X[1] * T[1] + 2 * X[2] * T[2])
