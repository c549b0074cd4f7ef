"""compile=True of a variable first assigned inside a loop and read after it (Sinkhorn's `v`, an
MLP's `outputs`): generated code bound it to None before the loop, which Numba typed as an optional
array no helper takes (codegen/unset_before_loops.py). It compiles now and gives central
differences' numbers, also where its shape changes from one iteration to the next; a call whose
loop runs no iteration is the NumPy path's, its error the one raised."""
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from test_compiled_ml_programs import slopes_agree
from corpus_cases import FULL

numba = pytest.importorskip("numba")


def last_state(x, w, n_steps):
    """`h` is assigned in the loop alone; the code after it reads the last one."""
    for step in range(n_steps):
        h = np.tanh(x * w + step)
        x = h * w
    return np.sum(h * h)


ARGS = (np.array([0.1, -0.3, 0.2]), 0.7)


def test_a_loop_that_runs_no_iteration_is_the_numpy_paths():
    with pytest.raises(TypeError) as plain:
        s2sad.grad(last_state, argnums=0)(*ARGS, 0)
    with warnings.catch_warnings(record=True) as caught, pytest.raises(TypeError) as compiled:
        warnings.simplefilter("always")
        s2sad.grad(last_state, argnums=0, compile=True)(*ARGS, 0)
    assert str(compiled.value) == str(plain.value)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert any("assigned no value to `h`" in m for m in messages), messages
    # and the calls whose loop runs stay compiled, with central differences' numbers
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(last_state, argnums=0, compile=True)(*ARGS, 3)
    np.testing.assert_allclose(gradient, central(last_state, ARGS + (3,), 0), rtol=1e-6, atol=1e-7)


def shrinking(x, n_steps):
    """`y` is one element shorter at each iteration: the reverse loop's zero of it is each one's."""
    for _ in range(n_steps):
        y = x[1:] * np.cos(x[:-1])
        x = y
    return np.sum(y ** 2)


def test_a_variable_whose_shape_changes_from_one_iteration_to_the_next():
    args = (np.array([0.4, -1.1, 0.8, 0.3, 1.5]), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(shrinking, argnums=0, compile=True)(*args)
    np.testing.assert_allclose(gradient, s2sad.grad(shrinking, argnums=0)(*args), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gradient, central(shrinking, args, 0), rtol=1e-6, atol=1e-7)


def mlp(params, x):
    """`outputs` changes width from layer to layer: the reverse loop's zero of it is each layer's."""
    for W, b in params:
        outputs = x @ W + b
        x = np.tanh(outputs)
    return np.sum(outputs ** 2)


@pytest.mark.skipif(not FULL, reason="an MLP's compile time (S2SAD_TESTS=full)")
def test_an_mlp_whose_outputs_change_width_from_layer_to_layer():
    rng = np.random.default_rng(19)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(mlp, argnums=(0, 1), compile=True)(params, x)
    plain = s2sad.grad(mlp, argnums=(0, 1))(params, x)
    for layer, theirs in zip(gradient[0], plain[0]):
        for mine, reference in zip(layer, theirs):
            np.testing.assert_allclose(mine, reference, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gradient[1], central(mlp, (params, x), 1), rtol=1e-6, atol=1e-7)
    slopes_agree(mlp, (params, x), 0, gradient[0])
