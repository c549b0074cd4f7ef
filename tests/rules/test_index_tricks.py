"""np.r_[...] and np.c_[...] (rules/index_tricks.py): the arrays are in the index of a getitem.

Reverse mode against central finite differences of the whole function, forward mode
against the central difference along the tangent; other objects indexed with a value that
has a gradient are refused with a located error.
"""
import numpy as np
import pytest

import s2sad
from s2sad.testing import numerical_gradient


def rows_and_a_range(x, y):
    return np.sum(np.r_["0,2", x, y] * x) + np.sum(np.r_[0:2, x, y, 1.5] * np.arange(9.0))


def columns(x, y):
    z = np.c_[x, 2 * y, x]
    return np.sum(z * np.arange(9.0).reshape(3, 3)) + np.sum(np.r_[x[0], y] ** 2)


def one_item(x, y):
    return np.sum(np.r_[x] ** 2 * y[0])


def complex_items(x, y):
    return np.sum(np.abs(np.r_[x * (1 + 2j), y]) ** 2)


X, Y = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.7, -1.1])


@pytest.mark.parametrize("f", [rows_and_a_range, columns, one_item, complex_items], ids=lambda f: f.__name__)
def test_gradient(f):
    dx, dy = s2sad.grad(f, argnums=(0, 1))(X, Y)
    np.testing.assert_allclose(dx, numerical_gradient(f, X, Y, argnums=0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dy, numerical_gradient(f, X, Y, argnums=1), rtol=1e-6, atol=1e-8)


def test_complex_arguments():
    z, w = X + 1j * Y, Y - 0.5j * X
    dz, dw = s2sad.grad(complex_items, argnums=(0, 1))(z, w)
    np.testing.assert_allclose(dz, numerical_gradient(complex_items, z, w, argnums=0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(dw, numerical_gradient(complex_items, z, w, argnums=1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [rows_and_a_range, columns, one_item], ids=lambda f: f.__name__)
def test_forward(f):
    tx, ty, h = np.array([0.2, 1.0, -0.3]), np.array([-0.5, 0.1, 0.4]), 1e-6
    _, tangent = s2sad.jvp(f, (X, Y), (tx, ty))
    numeric = (f(X + h * tx, Y + h * ty) - f(X - h * tx, Y - h * ty)) / (2 * h)
    assert tangent == pytest.approx(numeric, rel=1e-6)


class Table:
    def __getitem__(self, key):
        return key * 2.0


TABLE = Table()


def looked_up(x):
    return TABLE[x] + 0.0


def test_other_objects_indexed_with_a_gradient_are_refused():
    with pytest.raises(s2sad.S2SADError) as caught:
        s2sad.grad(looked_up)(1.5)
    message = str(caught.value)
    assert "Table" in message and "test_index_tricks.py" in message


def parameters_updated_key_by_key(x, s):
    """The fuzzer's program (tests/fuzz_regressions/fuzz_hvp_refusal_inside_a_rule_reached_from_a_dict_loop.py):
    a dict's key carries a tangent into the index rule, which hvp differentiates again."""
    t = {"w": x, "b": s}
    for key in t:
        t[key] = t[key] - 0.1 * np.cos(t[key])
    return np.sum(t["w"]) * t["b"]


@pytest.mark.parametrize("f", [rows_and_a_range, columns, one_item], ids=lambda f: f.__name__)
def test_second_order(f):
    """hvp differentiates the index rule's forward code again: it writes no array in place (a
    store into a fresh array there was refused by hvp, an over-cautious refusal)."""
    from s2sad.testing import check_hvp

    check_hvp(f, X, Y, argnums=(0, 1))


def test_second_order_through_a_dict_loop():
    from s2sad.testing import check_hvp

    check_hvp(parameters_updated_key_by_key, X, 0.4, argnums=(0, 1))
