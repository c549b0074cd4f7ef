"""``params[i] = (W - lr * gW, b - lr * gb)`` after ``W, b = params[i]``, ``params`` an argument (a
list of ``(W, b)`` tuples updated in a loop, as published training loops write it). Whether the
write changes memory ``W`` shares depends on what ``params`` is: an array's slot is memory its
views share, a list's slot is given a new object and the objects taken out are left as they were.
The analysis lets the write through when nothing but objects taken out of ``params`` is read after
it, and the generated code checks, as it runs, that ``params`` is a list or a dict (an array is
refused at the line). The function works on its own copy of the list and leaves in the caller's
what Python would; the caller's arrays are never written. This was refused ("`params[...] = ...`
changes memory that `W` shares"). Checked in grad, vjp, jvp and hvp against central differences."""
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import mixed_second_difference, numerical_gradient  # noqa: E402


def sgd_step_then_loss(params, X, y, lr):
    for i in range(len(params)):
        W, b = params[i]
        gW = W * np.sum(X)
        gb = np.tanh(b)
        params[i] = (W - lr * gW, b - lr * gb)
    h = X
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum((h - y) ** 2)


def stepped_in_a_copy(params, X, y, lr):
    ps = list(params)
    for i in range(len(ps)):
        W, b = ps[i]
        ps[i] = (W * (1.0 - lr), b - lr * W[0])
    W, b = ps[0]
    return np.sum(np.sin(X @ W + b)) + np.sum(params[1][0] * ps[1][0])


def alias_read_after(params, X, y, lr):
    same = params
    for i in range(len(params)):
        W, b = params[i]
        params[i] = (W - lr * W, b)
    W, b = same[0]
    return np.sum(X @ W + b)


SHAPES = [((2, 2), (2,)), ((2, 2), (2,))]


def _params(flat):
    out, start = [], 0
    for shapes in SHAPES:
        pair = []
        for shape in shapes:
            size = int(np.prod(shape))
            pair.append(np.array(flat[start:start + size]).reshape(shape))
            start += size
        out.append(tuple(pair))
    return out


def _flat(params):
    return np.concatenate([np.ravel(a) for pair in params for a in pair])


@pytest.mark.parametrize("f", [sgd_step_then_loss, stepped_in_a_copy])
def test_every_mode_of_a_list_argument_given_new_slots(f):
    rng = np.random.default_rng(3)
    flat = 0.5 * rng.normal(size=12)
    X, y, lr = 0.5 * rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), 0.3
    on_flat = lambda p, X: f(_params(p), X, y, lr)  # noqa: E731
    expected = [numerical_gradient(on_flat, [flat, X], argnum) for argnum in (0, 1)]
    params = _params(flat)
    arrays = [a for pair in params for a in pair]
    python_leaves = _params(flat)
    f(python_leaves, X, y, lr)
    dparams, dX = s2sad.grad(f, argnums=(0, 1))(params, X, y, lr)
    assert type(dparams) is list and all(type(pair) is tuple for pair in dparams)
    np.testing.assert_allclose(_flat(dparams), expected[0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dX, expected[1], rtol=1e-5, atol=1e-7)
    assert all(np.array_equal(a, b) for a, b in zip(arrays, [a for pair in _params(flat) for a in pair]))
    np.testing.assert_allclose(_flat(params), _flat(python_leaves))  # what Python leaves in the caller's list
    value, pullback = s2sad.vjp(f, _params(flat), X, y, lr)
    assert value == pytest.approx(on_flat(flat, X))
    np.testing.assert_allclose(_flat(pullback(2.0)[0]), 2.0 * expected[0], rtol=1e-5, atol=1e-7)
    v, u = rng.normal(size=12), rng.normal(size=12)
    vX, uX = rng.normal(size=X.shape), rng.normal(size=X.shape)
    _, slope = s2sad.jvp(f, (_params(flat), X, y, lr), (_params(v), vX, None, None))
    assert slope == pytest.approx(float(expected[0] @ v + np.sum(expected[1] * vX)), rel=1e-5, abs=1e-7)
    products = s2sad.hvp(f, (_params(flat), X, y, lr), (_params(v), vX, None, None))
    assert float(_flat(products[0]) @ u + np.sum(products[1] * uX)) == pytest.approx(
        mixed_second_difference(on_flat, [flat, X], [v, vX], [u, uX]), rel=1e-4, abs=1e-6)


def test_an_array_given_for_the_list_is_refused_at_the_line():
    params = np.arange(12.0).reshape(2, 2, 3) / 10
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="of type ndarray") as caught:
        s2sad.grad(sgd_step_then_loss)(params, np.ones((3, 2)), np.ones((3, 3)), 0.3)
    assert caught.value.location.line == sgd_step_then_loss.__code__.co_firstlineno + 5


def test_another_name_for_the_list_read_after_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="changes memory that `W` shares") as caught:
        s2sad.grad(alias_read_after)(_params(np.ones(12)), np.ones((3, 2)), None, 0.3)
    assert caught.value.location.line == alias_read_after.__code__.co_firstlineno + 4
