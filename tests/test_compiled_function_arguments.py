"""compile=True through a function passed as a value (issue 19): `rk4_step(lotka_volterra, y, dt, p)`
compiles with the callee specialised to the module-level function its caller names
(s2sad/specialisation.py). Each gradient against central differences and the NumPy path; what
cannot be specialised (a lambda, a closure, a parameter the callee reassigns, different functions
at one call) falls back with a warning and the same numbers; a passed function redefined or
rebound is followed."""
import importlib
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import s2sad
from corpus_cases import compiled_share
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references
from test_compiled_calls import gradient_in_a_new_process

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- written as scientists write them
# the benchmark's model and integrator: `rk4_step(f, y, dt, params)` calls the model it is given
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from workloads import lotka_volterra, rk4, rk4_grad_by_hand, rk4_step  # noqa: E402

sys.path.pop(0)


def euler_step(f, y, dt, params):
    return y + dt * f(y, params)


def integrate(step, f, y, params, n):        # two functions passed down, one through the other
    for i in range(n):
        y = step(f, y, 0.05, params)
    return y


def decay(y, params):
    return -params[0] * y + params[1] * np.sin(y)


def nested_passing(params, y0):
    return np.sum(integrate(euler_step, decay, y0, params, 6) ** 2) + \
        np.sum(integrate(rk4_step, decay, y0, params, 3))


def relu_like(z):
    return np.maximum(z, 0.1 * z)


def layer(activation, W, b, x):
    return activation(W @ x + b)


def two_layers(W1, b1, W2, x):
    h = layer(relu_like, W1, b1, x)
    return np.sum(layer(relu_like, W2, 0.0, h) ** 2)


def logistic(y, r):
    return r * y * (1.0 - y)


def of_floats(r, y0):
    y = y0
    for i in range(5):
        y = rk4_step(logistic, y, 0.1, r)
    return y


def dense(x, W, b, activation=np.tanh):      # a helper with a default function argument
    return activation(W @ x + b)


def damped(y, p):
    return -p * y + 0.1 * np.sin(y)


def euler(y, p, f=damped, dt=0.1):
    return y + dt * f(y, p)


def with_defaults(W1, b1, W2, x):
    h = dense(x, W1, b1)                      # np.tanh, its default
    h = dense(h, W2, 0.5, np.sin) + dense(h, W2, 0.0, relu_like)
    y = euler(h, 0.3) + euler(h, 0.2, decay_of_one, 0.05)
    return np.sum(y ** 2)


def decay_of_one(y, p):
    return -p * y * y


def packed_from_floats(k, y):                  # the model's parameters packed from a differentiated float
    return np.sum(rk4_step(decay, y, 0.1, np.array([k, 0.5])) ** 2)


rng = np.random.default_rng(20)
CASES = {
    "rk4 lotka-volterra": (rk4, (np.array([1.1, 0.4, 0.1, 0.4]), np.array([10.0, 5.0])), (0, 1)),
    "nested passing": (nested_passing, (np.array([0.7, 0.3]), rng.normal(size=3)), (0, 1)),
    "activation passed": (two_layers, (rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=(2, 4)),
                                       rng.normal(size=3)), (0, 1, 2)),
    "a float model": (of_floats, (0.6, 0.8), (0, 1)),
    "parameters packed from floats": (packed_from_floats, (0.7, rng.normal(size=3)), (0, 1)),
    "defaults and numpy functions": (with_defaults, (rng.normal(size=(4, 3)), rng.normal(size=4),
                                                     rng.normal(size=(4, 4)), rng.normal(size=3)), (0, 1, 2, 3)),
}


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_a_function_passed_as_a_value_compiles_and_is_central_differences(name):
    compiled_against_references(*CASES[name])


def test_the_rk4_gradient_is_the_hand_derived_one():
    """Against the benchmark's hand-written adjoint of the same integrator (500 steps)."""
    params, y0 = np.array([1.1, 0.4, 0.1, 0.4]), np.array([10.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(rk4, compile=True)(params, y0)
    np.testing.assert_allclose(gradient, rk4_grad_by_hand(params, y0), rtol=1e-12)


def test_the_callee_is_specialised_and_not_given_the_function():
    """Not the NumPy path in disguise: the caller's compiled code calls the specialised halves,
    without the function; the callee's halves call the passed function's halves by its parameter's name."""
    from s2sad.transform import generated_source, _memory

    s2sad.grad(rk4, compile=True)(*CASES["rk4 lotka-volterra"][1])
    text = generated_source(rk4, ("params",), "compiled")
    assert "rk4_step_lotka_volterra_forward(y, 0.01, params)" in text and "((0, 'lotka_volterra'),)" in text
    specialised = [generated_source(f, wrt, mode) for f in list(_memory.keys()) for mode, wrt in _memory[f]
                   if mode == "compiled_split" and getattr(f, "__s2sad_statics__", None)]
    assert any("def rk4_step_forward(y, dt, params):" in s and "f_forward(y, params)" in s and
               "Specialised to the functions and flags its caller passes (f = lotka_volterra)" in s for s in specialised)


# ---------------------------------------------------------------- what falls back, with the same numbers
def calls_with_a_lambda(x):
    return np.sum(euler_step(lambda y, p: -p * y, x, 0.1, 2.0) ** 2)


SCALE = 3.0


def make_closure():
    def model(y, p):
        return -p * y * SCALE
    return model


CLOSURE = make_closure()


def calls_with_a_closure(x):
    return np.sum(euler_step(CLOSURE, x, 0.1, 2.0) ** 2)


def reassigns(f, y):
    if y[0] > 100.0:
        f = np.cos
    return f(y)


def calls_reassigning(x):
    return np.sum(reassigns(np.sin, x) ** 2) + np.sum(reassigns(relu_like, x))


def apply(f, x):
    return f(x) * 2.0


def one_call_two_functions(x):
    total = 0.0
    for g in (np.sin, relu_like):
        total = total + np.sum(apply(g, x))
    return total


@pytest.mark.parametrize("f, words", [
    (calls_with_a_lambda, "euler_step"),
    (calls_with_a_closure, "CLOSURE"),
    (calls_reassigning, "reassigns"),
    (one_call_two_functions, "apply"),
], ids=["a_lambda", "a_closure", "a_reassigned_parameter", "one_call_two_functions"])
def test_what_cannot_be_specialised_falls_back_with_the_same_numbers(f, words):
    x = np.array([0.4, -0.7, 1.3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(f, compile=True)(x)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and words in messages[0], messages
    np.testing.assert_allclose(gradient, s2sad.grad(f)(x), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(f, (x,), 0), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- the passed function changes
MODULE = '''
import numpy as np


def model(y, p):
    return {body}


def other(y, p):
    return np.cos(y) * p


def step(f, y, p):
    return y + 0.1 * f(y, p)


def loss(y, p):
    return np.sum(step(model, y, p) ** 2)
'''


def test_a_passed_function_redefined_or_rebound_is_followed(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "passing_module.py").write_text(textwrap.dedent(MODULE.format(body="-p * y")))
    module = importlib.import_module("passing_module")
    y, p = np.array([0.3, -0.8, 1.2]), 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(module.loss, argnums=(0, 1), compile=True)
        old_loss = module.loss

        def check():
            for position, g in enumerate(gradient(y, p)):
                np.testing.assert_allclose(g, central(old_loss, (y, p), position), rtol=1e-6, atol=1e-7)

        check()
        # the module's text changed and reloaded: the old `loss` passes the new `model`
        (tmp_path / "passing_module.py").write_text(textwrap.dedent(MODULE.format(body="np.tanh(y) * p * p")))
        importlib.reload(module)
        assert old_loss.__globals__["model"] is module.model
        check()
        # the name the caller passes is rebound to another function
        monkeypatch.setattr(module, "model", module.other)
        check()
        dy, dp = gradient(y, p)
        np.testing.assert_allclose(dy, 2 * (y + 0.1 * np.cos(y) * p) * (1 - 0.1 * np.sin(y) * p), rtol=1e-12)


def test_a_new_process_follows_a_passed_function_whose_text_changed(tmp_path):
    """The specialised callee's cache entries (s2sad's and Numba's) are keyed by the passed
    function's text: changed between processes, it must not come back as the old one."""
    (tmp_path / "model_file.py").write_text("import numpy as np\n\n\ndef model(y, p):\n    return np.sin(y) * p\n")
    (tmp_path / "solver_file.py").write_text(textwrap.dedent('''
        import numpy as np
        from model_file import model


        def step(f, y, p):
            return y + 0.1 * f(y, p)


        def loss(y, p):
            return np.sum(step(model, y, p) ** 2)
    '''))
    def run():
        return gradient_in_a_new_process(tmp_path, "solver_file", "y = np.array([0.3, -0.8, 1.2])",
                                         "s2sad.grad(solver_file.loss, compile=True)(y, 0.7)")

    y, p = np.array([0.3, -0.8, 1.2]), 0.7
    sine = 2 * (y + 0.1 * np.sin(y) * p) * (1 + 0.1 * np.cos(y) * p)
    np.testing.assert_allclose(run(), sine, rtol=1e-12)
    np.testing.assert_allclose(run(), sine, rtol=1e-12)  # from the caches
    (tmp_path / "model_file.py").write_text("import numpy as np\n\n\ndef model(y, p):\n    return np.tanh(y) * p\n")
    tanh = 2 * (y + 0.1 * np.tanh(y) * p) * (1 + 0.1 * (1 - np.tanh(y) ** 2) * p)
    np.testing.assert_allclose(run(), tanh, rtol=1e-12)
