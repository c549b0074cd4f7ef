import re

"""Every program of the zoo: s2sad's gradient equals central finite differences (float64)."""
import numpy as np
import pytest

import s2sad
from finite_differences import assert_gradients_match, numerical_gradient
from zoo import PROGRAMS, tuple_output


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_matches_finite_differences(name):
    function, args, argnums = PROGRAMS[name]
    copies = [np.copy(a) for a in args]
    value, gradients = s2sad.value_and_grad(function, argnums=argnums)(*args)
    assert np.allclose(value, function(*args))
    assert_gradients_match(function, args, argnums, gradients)
    for before, after in zip(copies, args):
        np.testing.assert_array_equal(before, after)  # inputs are never mutated


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradient_types_follow_the_inputs(name):
    function, args, argnums = PROGRAMS[name]
    gradients = s2sad.grad(function, argnums=argnums)(*args)
    for argnum, gradient in zip(argnums, gradients):
        primal = args[argnum]
        assert type(gradient) is type(primal)
        assert np.shape(gradient) == np.shape(primal)


def test_vjp_of_a_tuple_output():
    x, y = np.arange(1.0, 4.0), np.array([0.5, -1.0, 2.0])
    (s, t), pullback = s2sad.vjp(tuple_output, x, y)
    dx, dy = pullback((2.0, 3.0))
    np.testing.assert_allclose(dx, 2.0 * y + 3.0)
    np.testing.assert_allclose(dy, 2.0 * x + 3.0)
    dx, dy = pullback((0.0, 1.0))
    np.testing.assert_allclose(dx, np.ones(3))


def test_float32_in_gives_float32_out():
    function, args, argnums = PROGRAMS["mlp_loss"]
    args32 = tuple(a.astype(np.float32) for a in args)
    gradients = s2sad.grad(function, argnums=argnums)(*args32)
    assert all(g.dtype == np.float32 for g in gradients)
    gradients64 = s2sad.grad(function, argnums=argnums)(*args)
    for g32, g64 in zip(gradients, gradients64):
        np.testing.assert_allclose(g32, g64, rtol=1e-3, atol=1e-5)


def test_python_float_and_zero_dimensional_array():
    function = PROGRAMS["float_scalar_chain"][0]
    as_float = s2sad.grad(function)(0.8)
    as_array = s2sad.grad(function)(np.array(0.8))
    assert type(as_float) is float
    assert isinstance(as_array, np.ndarray) and as_array.shape == ()
    assert as_float == pytest.approx(float(as_array))
    assert as_float == pytest.approx(numerical_gradient(function, (0.8,), 0), rel=1e-6)


def test_global_is_read_when_the_function_runs():
    import zoo

    x = np.ones(3)
    assert np.allclose(s2sad.grad(zoo.global_constant)(x), 3.0)
    zoo.SCALE = 5.0
    try:
        assert np.allclose(s2sad.grad(zoo.global_constant)(x), 5.0)
    finally:
        zoo.SCALE = 3.0


def test_argument_not_differentiated_gets_no_work():
    function, args, _ = PROGRAMS["mlp_loss"]
    source = s2sad.differentiate(function, argnums=0).source
    assert re.search(r"\bdW1\b", source)
    assert not re.search(r"\bdW2\b|\bdX\b|\bdy\b", source)
    assert "matmul_vjp_x1(dX_matmul_W1" not in source  # no cotangent for the constant data X
