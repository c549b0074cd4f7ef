"""Forward mode of calls whose rule collects arguments in ``*args``: ``max(a, b)``,
``min(a, b, c)``, ``np.einsum(spec, A, B)``, ``np.broadcast_arrays(a, b)``, ``zip(xs, ys)``.

The tangents of the collected arguments go to the rule's jvp as one tuple (ZERO for an
argument without one); before, generated forward code refused these calls ("the forward
rule ... cannot be bound to this call"). Each jvp is checked against central differences of
the function, and hvp (reverse over the forward code) against mixed central differences.
"""
import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient

rng = np.random.default_rng(41)


def central_jvp(f, args, tangents, h=1e-6):
    up = f(*[a + h * t for a, t in zip(args, tangents)])
    down = f(*[a - h * t for a, t in zip(args, tangents)])
    return (np.asarray(up, dtype=float) - np.asarray(down, dtype=float)) / (2 * h)


def central_hvp(f, x, v, h=1e-4):
    """The Hessian of a scalar ``f`` at ``x`` times ``v``, by mixed central differences of values."""
    out = np.zeros(x.shape)
    for index in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[index] = h
        out[index] = (f(x + e + h * v) - f(x + e - h * v) - f(x - e + h * v) + f(x - e - h * v)) / (4 * h * h)
    return out


def larger_of_two(a, b):
    return max(a, b) * 3.0 + a * b


def smallest_of_three(a, b):
    return min(a, 2.0, b) ** 2 + max(b, a, 0.1)


def einsum_of_two(A, B):
    return np.sum(np.einsum("ij,jk->ik", A, B) ** 2)


def einsum_total(A, B):
    return np.einsum("ij->", A) * np.sum(B)


def einsum_repeated(A, B):
    return np.sum(np.sin(np.einsum("ij,jj->i", A, B))) + np.einsum("ii", B) ** 2


def broadcast_pair(A, B):
    a, b = np.broadcast_arrays(A, B)
    return np.sum(a * np.cos(b))


def zipped_products(A, B):
    return sum([x * y for x, y in zip(A, B)]) @ np.ones(3)


SCALARS = [(larger_of_two, (1.0, 2.0)), (larger_of_two, (2.5, 1.0)), (smallest_of_three, (1.0, 3.0)),
           (smallest_of_three, (3.0, 1.5)), (smallest_of_three, (1.0, 0.5))]
ARRAYS = [einsum_of_two, einsum_total, einsum_repeated, broadcast_pair, zipped_products]


@pytest.mark.parametrize("f, args", SCALARS, ids=[f"{f.__name__}-{a}" for f, a in SCALARS])
def test_max_and_min_of_several_floats(f, args):
    for tangents in [(1.0, 0.0), (0.0, 1.0), (0.3, -0.7)]:
        value, tangent = s2sad.jvp(f, args, tangents)
        assert value == f(*args) and type(tangent) is float
        assert abs(tangent - central_jvp(f, args, tangents)) < 1e-6


def test_max_at_a_tie_takes_the_mean_of_the_tied_values():
    """max(a, b) at a == b: the mean of the two tangents (the convention of the reverse rule, and np.maximum's)."""
    assert s2sad.jvp(lambda a, b: max(a, b), (1.0, 1.0), (2.0, 5.0))[1] == 3.5
    assert s2sad.grad(lambda a, b: max(a, b), argnums=(0, 1))(1.0, 1.0) == (0.5, 0.5)


@pytest.mark.parametrize("f", ARRAYS, ids=lambda f: f.__name__)
def test_arrays_collected_in_star_args(f):
    A, B = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    for tangents in [(rng.standard_normal((3, 3)), np.zeros((3, 3))), (np.zeros((3, 3)), rng.standard_normal((3, 3))),
                     (rng.standard_normal((3, 3)), rng.standard_normal((3, 3)))]:
        value, tangent = s2sad.jvp(f, (A, B), tangents)
        np.testing.assert_allclose(value, f(A, B), rtol=1e-13)
        np.testing.assert_allclose(tangent, central_jvp(f, (A, B), tangents), rtol=1e-6, atol=1e-7)


def test_a_collected_argument_without_a_tangent():
    B = rng.standard_normal((3, 3))

    def f(A):
        return np.sum(np.einsum("ij,jk,kl->il", A, B, A))   # B a constant among the operands

    A, V = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    np.testing.assert_allclose(s2sad.jvp(f, (A,), (V,))[1], central_jvp(f, (A,), (V,)), rtol=1e-6)


@pytest.mark.parametrize("f", [einsum_of_two, einsum_repeated, broadcast_pair], ids=lambda f: f.__name__)
def test_hvp_through_star_args(f):
    A, B, V = rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal((3, 3))

    def of_a(x):
        return f(x, B)

    np.testing.assert_allclose(s2sad.hvp(of_a, (A,), (V,)), central_hvp(of_a, A, V), rtol=1e-4, atol=1e-5)


def test_hvp_through_max_of_several():
    def f(x):
        return max(x[0] * x[1], x[2] ** 2, 0.5) ** 2

    x, v = np.array([1.0, 2.0, 0.5]), np.array([0.3, -0.2, 1.0])
    np.testing.assert_allclose(s2sad.hvp(f, (x,), (v,)), central_hvp(f, x, v), rtol=1e-4, atol=1e-5)


def sorted_by_a_network(x):
    a, b, c = x[0], x[1], x[2]
    a, b = min(a, b), max(a, b)
    b, c = min(b, c), max(b, c)
    a, b = min(a, b), max(a, b)
    return a + 2.0 * b + 3.0 * c


def test_a_sorting_network_at_a_tie_gives_the_mean_of_the_slopes_either_side():
    # Python's min and max of two equal values both return the first: grad sent both cotangents to x[0],
    # (5, 0, 1), outside the slopes (2, 3, 1) and (3, 2, 1) either side; central differences give (2.5, 2.5, 1)
    x = np.array([0.5, 0.5, 0.1])
    np.testing.assert_allclose(s2sad.grad(sorted_by_a_network)(x), [2.5, 2.5, 1.0])
    np.testing.assert_allclose(s2sad.grad(sorted_by_a_network)(x), numerical_gradient(sorted_by_a_network, [x], 0))
    assert s2sad.jvp(sorted_by_a_network, (x,), (np.array([1.0, 0.0, 0.0]),))[1] == 2.5
