"""Lists and tuples given to NumPy's elementwise functions, in every mode. NumPy reads them as
arrays; the rules' templates computed with them as written, so `2.0 * x`, `x + 1` and `-g` of a
list raised TypeError in jvp, hvp and jacfwd (and in grad for np.log1p and np.sinc). Each
derivative is checked against central differences in float64 (mixed second differences for
hvp). A list joined with `+` or repeated with `*` and then read as one array is refused in
reverse mode, where the operands' rules took its array cotangent for a sum's or a product's
(`xs + ys` of one-item lists gave `xs` the whole cotangent summed)."""
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import mixed_second_difference  # noqa: E402


def squares(xs):
    return np.sum(np.square(xs))


def cubes(xs):
    return np.sum(np.power(xs, 3))


def roots(xs):
    return np.sum(np.sqrt(xs))


def above(xs):
    return np.sum(np.maximum(xs, 1.5) * np.sinc(xs))


def thirds(xs):
    return np.sum(np.divide(xs, 3.0))


def negated_logs(xs):
    return np.sum(np.negative(xs) * np.log1p(xs))


def product_of_all(xs):
    return np.prod(xs)


POINTS = {  # primal, tangent, a second direction (hvp)
    "list": ([1.1, 2.3], [0.3, -0.2], [0.5, 1.0]),
    "tuple": ((1.1, 2.3), (0.3, -0.2), (0.5, 1.0)),
    "one item": ([1.3], [0.3], [0.7]),
    "nested": ([[1.1, 2.3], [3.1, 0.7]], [[0.3, -0.2], [0.1, 0.4]], [[0.5, 1.0], [-1.0, 0.2]]),
    "list of arrays": ([np.array([1.1, 2.3]), np.array([3.1, 0.7])], [np.array([0.3, -0.2]), np.array([0.1, 0.4])],
                       [np.array([0.5, 1.0]), np.array([-1.0, 0.2])]),
}


def _array(structure):
    return np.array(structure, dtype=np.float64)


def _slope(f, x, v, step=1e-6):
    return (f(x + step * v) - f(x - step * v)) / (2 * step)


@pytest.mark.parametrize("f", [squares, cubes, roots, above, thirds, negated_logs, product_of_all])
def test_each_mode_gives_numpy_s_derivative_of_a_list(f):
    for name, (xs, v, u) in POINTS.items():
        x, dv, du = _array(xs), _array(v), _array(u)
        slope = _slope(f, x, dv)
        gradient = s2sad.grad(f)(xs)
        assert type(gradient) is type(xs), name  # a list's gradient a list, a tuple's a tuple
        assert np.sum(_array(gradient) * dv) == pytest.approx(slope, rel=1e-6), name
        _, pullback = s2sad.vjp(f, xs)
        assert np.sum(_array(pullback(2.0)[0]) * dv) == pytest.approx(2.0 * slope, rel=1e-6), name
        assert s2sad.jvp(f, (xs,), (v,))[1] == pytest.approx(slope, rel=1e-6), name
        for jacobian in (s2sad.jacfwd, s2sad.jacrev):
            assert np.sum(_array(jacobian(f)(xs)) * dv) == pytest.approx(slope, rel=1e-6), name
        product = s2sad.hvp(f, (xs,), (v,))
        assert np.sum(_array(product) * du) == pytest.approx(
            mixed_second_difference(f, [x], [dv], [du]), rel=1e-4, abs=1e-6), name


def test_a_list_keeps_its_own_meaning_elsewhere_in_the_function():
    def read_as_a_list_too(xs):
        return np.sum(np.log1p(xs)) + len(xs) * xs[0] ** 2

    # by hand: d/dx0 = 1/(1 + x0) + 2 * 2 * x0, d/dx1 = 1/(1 + x1)
    assert s2sad.grad(read_as_a_list_too)([1.0, 3.0]) == pytest.approx([0.5 + 4.0, 0.25])
    assert s2sad.jvp(read_as_a_list_too, ([1.0, 3.0],), ([1.0, 1.0],))[1] == pytest.approx(4.75)


def joined(xs, ys):
    zs = xs + ys
    return np.sum(np.square(zs) * np.array([1.0, 3.0]))


def repeated(xs):
    zs = xs * 2
    return np.sum(np.square(zs) * np.array([[1.0, 3.0], [5.0, 7.0]]))


def test_a_joined_or_repeated_list_read_as_one_array_is_refused_in_reverse_mode():
    # s2sad gave 14.0 for joined (the whole cotangent, summed) and [[24.0, 80.0]] for repeated (twice)
    for call, line in ((lambda: s2sad.grad(joined)([1.0], [2.0]), "zs = xs + ys"),
                       (lambda: s2sad.grad(repeated)([[1.0, 2.0]]), "zs = xs * 2")):
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="joined with `\\+` or repeated with `\\*`") as caught:
            call()
        assert caught.value.location.text.strip() == line
        assert "np.concatenate" in str(caught.value)
    # forward mode joins the tangents as the values: by hand, 2 * 1.0 * 1.0 and 2 * (1 + 5) * 1.0 * 1.0
    # + 2 * (3 + 7) * 2.0 * 0.5
    assert s2sad.jvp(joined, ([1.0], [2.0]), ([1.0], [0.0]))[1] == pytest.approx(2.0)
    assert s2sad.jvp(repeated, ([[1.0, 2.0]],), ([[1.0, 0.5]],))[1] == pytest.approx(12.0 + 20.0)


def test_a_list_s_tangent_given_as_numpy_reads_the_list_or_refused_when_shaped_otherwise():
    # an array for a list (raised "attribute name must be string, not 'int'"): its rows are the items';
    # by hand, 2 * (1.0 * 1.0 + 4.0 * 0.5)
    assert s2sad.jvp(squares, ([[1.0, 2.0], [3.0, 4.0]],), (np.array([[1.0, 0.0], [0.0, 0.5]]),))[1] == 6.0
    assert s2sad.jvp(repeated, ([[1.0, 2.0]],), (np.array([[1.0, 0.5]]),))[1] == pytest.approx(32.0)
    with pytest.raises(s2sad.ArgumentError, match="has 1 items, but the list it moves has 2"):
        s2sad.jvp(squares, ([1.0, 2.0],), ([1.0],))  # (raised IndexError)
    with pytest.raises(s2sad.ArgumentError, match="shape \\(3,\\), but the list it moves reads as an array of shape"):
        s2sad.jvp(squares, ([1.0, 2.0],), (np.ones(3),))
