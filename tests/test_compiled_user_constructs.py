"""compile=True through what users write: an odeint-style solver passing ``*args`` on to
its model, helpers with keyword-only options, a differentiated function's own keyword-only
parameter left to its default, and an array's methods given an axis (``x.mean(axis=0,
keepdims=True)``, ``x.std(axis=0)``, ``x.var(axis=0, ddof=1)``, ``x.reshape(n, -1)``),
``np.append``, Python's ``sum`` of a generator (``sum(np.sum(W ** 2) for W, b in layers)``) and
parameters given None (``if mask is not None:``). Each
program compiles (no CompiledFallbackWarning) and its gradient is central differences' in float64
and the NumPy path's; what still falls back says so, naming the construct, with the same numbers."""
import math
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import compiled_share
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references
from test_compiled_calls import gradient_in_a_new_process

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- *args, the odeint style
# the realistic corpus's solver, `rk4(f, y0, t0, t1, steps, *args)` calling `f(y, t, *args)`, and its model
from realistic_programs import lotka_volterra, rk4  # noqa: E402


def damped_oscillator(state, t, k, c):          # two extra arguments, floats
    position, velocity = state[0], state[1]
    return np.array([velocity, -k * position - c * velocity + 0.1 * math.sin(t)])


def free_decay(state, t):                       # none
    return -0.5 * state


def final_prey(theta, y0):
    return rk4(lotka_volterra, y0, 0.0, 2.0, 40, theta)[0]


def oscillator_energy(k, c, y0):
    y = rk4(damped_oscillator, y0, 0.0, 1.5, 30, k, c)
    return 0.5 * k * y[0] ** 2 + 0.5 * y[1] ** 2


def decayed(y0):
    return np.sum(rk4(free_decay, y0, 0.0, 1.0, 10) ** 2)


def penalties(x, *weights):                      # *args read by index, by len and as a whole
    total = weights[0] * np.sum(x ** 2)
    if len(weights) > 1:
        total = total + weights[-1] * np.sum(np.sin(x))
    return total + np.sum(np.array(weights) ** 2)


def with_penalties(x, a, b):
    return penalties(x, a) + penalties(x * b, a, b)


def forced(y, t, k, scale=1.0):                 # (a defaulted parameter a stray positional argument would fill)
    return -k * y * scale + np.sin(t)


def euler_solve(f, y0, *args, steps=10, dt=0.1):  # *args, then keyword-only options
    y = y0
    for i in range(steps):
        y = y + dt * f(y, i * dt, *args)
    return y


def solved_with_defaults(k, y0):
    return np.sum(euler_solve(forced, y0, k) ** 2)


def least_squares(w, *data):                     # the differentiated function's own *args
    X, y = data
    return np.sum((X @ w - y) ** 2) + np.sum(np.tanh(w))


# ---------------------------------------------------------------- keyword-only parameters
def shifted(x, *, by=0.5, scale=1.0):
    return np.sin(x + by) * scale


def uses_keyword_options(x, k):
    return np.sum(shifted(x)) + np.sum(shifted(x, by=k) ** 2) + np.sum(shifted(x, scale=k, by=0.2))


def ridge(w, X, y, *, l2=0.1):                   # differentiated with its keyword-only default
    return np.sum((X @ w - y) ** 2) + l2 * np.sum(w ** 2)


def smooth(z, *, activation=np.tanh):           # a keyword-only function default, specialised to
    return activation(z) * 2.0


def uses_a_keyword_only_function(W, x):
    return np.sum(smooth(W @ x)) + np.sum(smooth(W @ x, activation=np.sin))


# ---------------------------------------------------------------- an array's methods with an axis
def standardised(x, gamma):
    mean = x.mean(axis=0, keepdims=True)
    spread = x.std(axis=0)
    return np.sum(np.tanh((x - mean) / spread * gamma) ** 2)


def method_reductions(x):
    return (np.sum(x.sum(axis=0) ** 2) + np.sum(x.var(axis=0, ddof=1)) + np.sum(x.prod(axis=0))
            + np.sum(x.max(axis=0) ** 2) + np.sum(x.min(axis=-1)) + x.max() * x.min()
            + np.sum(x.mean(axis=1, keepdims=True) * x) + x.std() + x.var())


def reshaped(x, W):
    heads = x.reshape(x.shape[0], 2, -1)
    flat = np.tanh(heads).reshape((x.shape[0], -1))
    return np.sum(flat.dot(W) ** 2) + np.sum(x.T.reshape(-1) * np.arange(x.size))


def layer_norm(x, gamma, beta):                  # called from another function: its split form
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * gamma + beta


def normalised_network(x, W, gamma, beta):
    return np.sum(np.tanh(layer_norm(x @ W, gamma, beta)) ** 2)


# ---------------------------------------------------------------- np.append
def appended(x, y, k):
    flat = np.append(x, y)                       # flattened, one after the other
    rows = np.append(y, x.reshape(1, -1) * k, axis=0)
    ends = np.append(k * 2.0, np.append(x.T, k))  # a float appended to, and appended
    return np.sum(np.sin(flat) * np.arange(flat.size)) + np.sum(rows ** 3) + np.sum(np.cos(ends) * np.arange(ends.size))


# ---------------------------------------------------------------- Python's sum of a generator (frontend/sums_written_out.py)
def weight_decay_mlp(layers, x, l2):
    W = 2.0 * l2                                 # the generator's W, b are its own: this W stays
    penalty = l2 * sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in layers)
    for V, c in layers:
        x = np.tanh(x @ V + c)
    return np.sum(x ** 2) + penalty + W ** 2


def pair_products(w, scale):
    total = sum(w[i] * w[j] * scale for i in range(w.shape[0]) for j in range(i) if i % 2 == 0)
    return total + sum([np.sin(w[k]) for k in range(w.shape[0])])


# ---------------------------------------------------------------- parameters given None (frontend/nones_written_in.py)
def masked(x, w, mask=None, scale=None):
    h = np.tanh(x @ w)
    if mask is not None:
        h = h * mask
    elif scale is None:
        h = h * 2.0
    else:
        h = h * scale
    return np.sum(h ** 2) if mask is None else np.sum(h)


def batchnorm_like(W, x, running=None):        # a None default never read
    h = x @ W
    return np.sum(((h - h.mean(axis=0)) / (h.std(axis=0) + 1e-3)) ** 2)


# ---------------------------------------------------------------- a parameter renamed in generated code
def averaged(mean, x):                           # `mean`: generated code reads np.mean, so it is `mean_2` there
    return np.mean(mean * x) ** 2


def calls_averaged(m, x):
    return averaged(m, x) + m


rng = np.random.default_rng(21)
CASES = {
    "rk4 with *args: one extra": (final_prey, (np.array([1.0, 0.4, 0.3, 0.8]), np.array([1.0, 0.5])), (0, 1)),
    "rk4 with *args: two floats": (oscillator_energy, (1.3, 0.2, np.array([1.0, -0.3])), (0, 1, 2)),
    "rk4 with *args: none": (decayed, (rng.normal(size=3),), (0,)),
    "*args read by index and len": (with_penalties, (rng.normal(size=4), 0.7, 1.3), (0, 1, 2)),
    "*args then keyword-only defaults": (solved_with_defaults, (0.7, np.array([0.3, -0.5])), (0, 1)),
    "its own *args": (least_squares, (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)), (0, 1, 2)),
    "keyword-only options": (uses_keyword_options, (rng.normal(size=4), 0.3), (0, 1)),
    "keyword-only function default": (uses_a_keyword_only_function, (rng.normal(size=(3, 4)), rng.normal(size=4)),
                                      (0, 1)),
    "its own keyword-only default": (ridge, (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)),
                                     (0, 1, 2)),
    "standardised with methods": (standardised, (rng.normal(size=(6, 3)), rng.normal(size=3)), (0, 1)),
    "method reductions": (method_reductions, (rng.normal(size=(4, 3)),), (0,)),
    "reshape, T and dot": (reshaped, (rng.normal(size=(3, 4)), rng.normal(size=(4, 2))), (0, 1)),
    "methods in a callee": (normalised_network, (rng.normal(size=(5, 3)), rng.normal(size=(3, 4)),
                                                 rng.normal(size=4), rng.normal(size=4)), (0, 1, 2, 3)),
    "a renamed parameter": (calls_averaged, (0.3, np.array([1.0, 2.0])), (0, 1)),
    "np.append": (appended, (rng.normal(size=3), rng.normal(size=(2, 3)), 0.8), (0, 1, 2)),
    "None defaults: if, elif, conditional expression": (masked, (rng.normal(size=(5, 3)), rng.normal(size=3)), (0, 1)),
    "None given, then a float": (masked, (rng.normal(size=(5, 3)), rng.normal(size=3), None, 0.7), (0, 1, 3)),
    "an array where None was": (masked, (rng.normal(size=(5, 3)), rng.normal(size=3), rng.normal(size=5)), (0, 1, 2)),
    "a None default not read": (batchnorm_like, (rng.normal(size=(3, 4)), rng.normal(size=(8, 3))), (0, 1)),
    "sum of a generator: nested, filtered, a list": (pair_products, (rng.normal(size=5), 0.7), (0, 1)),
}


@pytest.mark.parametrize("name", compiled_share(CASES, 3))  # (every one with S2SAD_TESTS=full)
def test_what_users_write_compiles_and_is_central_differences(name):
    compiled_against_references(*CASES[name])


def test_a_renamed_parameters_gradient_is_the_hand_derived_one():
    """It was 1.0 (the cotangent through `averaged` lost: 0.0 given back for `mean_2`, which is not
    `mean`); d/dm (mean(m x) ** 2 + m) = 2 mean(m x) mean(x) + 1."""
    x = np.array([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dm = s2sad.grad(calls_averaged, compile=True)(0.3, x)
    assert dm == pytest.approx(2 * np.mean(0.3 * x) * np.mean(x) + 1.0, rel=1e-14)


def test_own_keyword_only_default_given_by_keyword_compiles():
    """``l2=0.5`` given by keyword: bound by name, passed by position; d/dw = 2 X^T (X w - y) + 2 l2 w."""
    w, X, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(ridge, compile=True)(w, X, y, l2=0.5)
    np.testing.assert_allclose(gradient, 2 * X.T @ (X @ w - y) + 2 * 0.5 * w, rtol=1e-12)
    np.testing.assert_allclose(gradient, central(lambda w: ridge(w, X, y, l2=0.5), (w,), 0), rtol=1e-6, atol=1e-7)


def test_the_solver_is_written_out_for_its_extra_arguments():
    """Not the NumPy path in disguise: rk4's split form takes the extra argument as a parameter of
    its own and passes it on to the model's halves; the caller reads its cotangent in its place."""
    from s2sad.transform import _memory, generated_source

    compiled_against_references(*CASES["rk4 with *args: one extra"])
    text = generated_source(final_prey, ("theta", "y0"), "compiled")
    assert "rk4_lotka_volterra_forward(y0, 0.0, 2.0, 40, theta)" in text
    assert "_, _, dy0, _, _, _, dtheta = rk4_lotka_volterra_reverse(" in text
    written = [generated_source(f, wrt, mode) for f in list(_memory.keys()) for mode, wrt in _memory[f]
               if mode == "compiled_split" and getattr(f, "__s2sad_star__", None) == ("args_0",)]
    assert any("def rk4_forward(y0, t0, t1, steps, args_0):" in s and "f_forward(y, t, args_0)" in s
               and "realistic_programs.py:172: k1 = f(y, t, *args)\n" in s for s in written), written


def test_methods_are_their_functions_overloads():
    from s2sad.transform import generated_source

    compiled_against_references(*CASES["standardised with methods"])
    text = generated_source(standardised, ("x", "gamma"), "compiled")
    assert "reduce_mean(x, axis=0, keepdims=True)" in text and "reduce_std(x, axis=0)" in text
    assert "std_vjp_a(" in text and "method_rrule" not in text


# ---------------------------------------------------------------- what still falls back, with the same numbers
def with_options(z, **options):
    return z * options.get("scale", 1.0)


def calls_with_options(x):
    return np.sum(with_options(x, scale=2.0) ** 2)


def reassigns_its_args(x, *args):
    args = args + (1.0,)
    return x * args[0]


def calls_reassigning(x):
    return np.sum(reassigns_its_args(x, 2.0) ** 2)


def solved_with_options(y0):
    """keyword_calls.py writes no keywords of a callee with *args as positions: they were taken for
    more of its *args (`steps` given to the model's `scale`: a wrong gradient, no error), so the
    call keeps the NumPy path."""
    return np.sum(euler_solve(forced, y0, 0.7, steps=5, dt=0.05) ** 2)


def reshaped_in_fortran_order(x):
    return np.sum(np.sin(x.reshape(-1, order="F")) * np.arange(x.size))


def std_of_a_float(x, s):
    return np.sum(x) * s.std()             # a Python float has no .std(): the NumPy path raises


@pytest.mark.parametrize("f, args, words", [
    (calls_with_options, (np.array([0.2, -0.3]),), "**options"),
    (calls_reassigning, (np.array([0.2, -0.3]),), "assigns its *args"),
    (reshaped_in_fortran_order, (rng.normal(size=(2, 3)),), "array_reshape"),
    (solved_with_options, (np.array([0.3, -0.5]),), "calls `euler_solve` with keyword arguments"),
], ids=["double_starred", "star_args_assigned", "reshape_order", "star_args_and_keywords"])
def test_what_does_not_compile_falls_back_with_the_same_numbers(f, args, words):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(f, compile=True)(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and words in messages[0], messages
    np.testing.assert_allclose(gradient, s2sad.grad(f)(*args), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(f, args, 0), rtol=1e-6, atol=1e-7)


def test_a_method_of_a_float_raises_as_python_does():
    """``s.std()`` of a Python float: compiled, it would be np.std's 0.0; the overload serves arrays
    alone, so the NumPy path runs, and raises Python's AttributeError."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(AttributeError):
            s2sad.grad(std_of_a_float, compile=True)(np.array([0.2, -0.3]), 1.5)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "reduce_std" in messages[0], messages


# ---------------------------------------------------------------- the caches of a new process
def test_a_new_process_follows_the_number_of_extra_arguments(tmp_path):
    """The solver's split form written out for one extra argument and for two are two cache
    entries (s2sad's and Numba's): a new process loads each for its own calls."""
    (tmp_path / "solver_module.py").write_text(textwrap.dedent('''
        import numpy as np


        def model(y, t, *p):
            return -p[0] * y + p[-1] * np.sin(y)


        def euler(f, y, steps, *args):
            for i in range(steps):
                y = y + 0.1 * f(y, 0.1 * i, *args)
            return y


        def one(y, a):
            return np.sum(euler(model, y, 5, a) ** 2)


        def two(y, a, b):
            return np.sum(euler(model, y, 5, a, b) ** 2)
    '''))

    def run():
        return gradient_in_a_new_process(tmp_path, "solver_module", "y = np.array([0.3, -0.8])",
                                         "s2sad.grad(solver_module.one, compile=True)(y, 0.7)"
                                         " + s2sad.grad(solver_module.two, compile=True)(y, 0.7, 0.2)")

    import importlib
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("solver_module")
        y = np.array([0.3, -0.8])
        expected = central(module.one, (y, 0.7), 0) + central(module.two, (y, 0.7, 0.2), 0)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("solver_module", None)
    np.testing.assert_allclose(run(), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(run(), expected, rtol=1e-6, atol=1e-8)  # from the caches


def test_a_sum_over_layers_compiles_and_is_central_differences():
    """``sum(np.sum(W ** 2) + np.sum(b ** 2) for W, b in layers)``: each layer's gradient is the
    NumPy path's and central differences' (a list of (W, b) tuples, as given)."""
    layers = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(5, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, (dlayers, dx, dl2) = s2sad.value_and_grad(weight_decay_mlp, argnums=(0, 1, 2), compile=True)(
            layers, x, 0.3)
    plain_value, (plain_layers, plain_x, plain_l2) = s2sad.value_and_grad(weight_decay_mlp, argnums=(0, 1, 2))(
        layers, x, 0.3)
    assert value == plain_value and type(dlayers) is list and all(type(layer) is tuple for layer in dlayers)
    np.testing.assert_allclose(dx, plain_x, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(dl2, plain_l2, rtol=1e-13)
    np.testing.assert_allclose(dl2, central(weight_decay_mlp, (layers, x, 0.3), 2), rtol=1e-6)
    np.testing.assert_allclose(dx, central(weight_decay_mlp, (layers, x, 0.3), 1), rtol=1e-6, atol=1e-7)
    for i, layer in enumerate(layers):
        for j in range(2):
            def of_leaf(value, i=i, j=j):
                moved = [list(pair) for pair in layers]
                moved[i][j] = value
                return weight_decay_mlp([tuple(pair) for pair in moved], x, 0.3)

            np.testing.assert_allclose(dlayers[i][j], plain_layers[i][j], rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(dlayers[i][j], central(of_leaf, (layer[j],), 0), rtol=1e-6, atol=1e-7)


def test_the_sum_is_the_loop_python_runs():
    """Written out as `total = 0` and `total = total + item`, left to right, as ``sum`` adds on
    this interpreter (3.11: no compensation; 3.12 and later keep the NumPy path)."""
    import sys

    from s2sad.transform import generated_source

    if sys.version_info >= (3, 12):
        pytest.skip("later interpreters sum Python floats with compensation: not written out there")
    text = generated_source(weight_decay_mlp, ("layers", "x", "l2"), "compiled")
    assert "    total = 0\n" in text and "total_2 = total + add" in text and "sum_vjp_iterable" not in text
    assert "test_compiled_user_constructs.py:" in text and "penalty = l2 * sum(np.sum(W ** 2)" in text


def after_a_call(x, W):
    return np.sum(x) + sum(np.sum(W[i] ** 2) for i in range(3))   # np.sum(x) first: not moved after


def sum_of_arrays(x, W):
    return np.sum(np.sin(sum(x[i] * W[i] for i in range(3))))     # 0 + array: Numba cannot type `total`


@pytest.mark.parametrize("f, words", [
    (after_a_call, "its gradient calls `sum`"),
    (sum_of_arrays, "Numba could not compile its generated gradient"),
], ids=["after_a_call", "arrays"])
def test_sums_not_written_out_fall_back_with_the_same_numbers(f, words):
    args = (rng.normal(size=3), rng.normal(size=(3, 4)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(f, argnums=(0, 1), compile=True)(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and words in messages[0], messages
    plain = s2sad.grad(f, argnums=(0, 1))(*args)
    for position in (0, 1):
        np.testing.assert_allclose(gradient[position], plain[position], rtol=1e-13)
        np.testing.assert_allclose(gradient[position], central(f, args, position), rtol=1e-6, atol=1e-7)


def reads_none(x, mask=None):
    return np.sum(x * (1.0 if mask is None else 2.0)) + np.sum(mask)   # np.sum(None): Python's TypeError


def test_none_read_otherwise_falls_back_naming_the_line_and_raises_as_python_does():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError):
            s2sad.grad(reads_none, compile=True)(rng.normal(size=3))
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "it was given None for `mask`, which it uses other than in `mask is None` tests" \
        in messages[0], messages
    line = reads_none.__code__.co_firstlineno + 1
    assert f"test_compiled_user_constructs.py:{line}:" in messages[0], messages


def defaulted_in_the_body(w, X, loss_fn=None, scale=None):
    if loss_fn is None:
        loss_fn = lambda r: r ** 2  # noqa: E731
    if scale is None:
        scale = 2.0
    if scale is None:  # of the float assigned above: not taken (a fold of it would return 0.0)
        return 0.0 * np.sum(w)
    return scale * np.sum(loss_fn(X @ w))


def test_a_default_made_in_the_body_compiles():
    """``if loss_fn is None: loss_fn = ...`` first: that assignment, and from there on an ordinary
    variable, whose later ``is None`` test Python reads of the value assigned."""
    compiled_against_references(defaulted_in_the_body, (rng.normal(size=3), rng.normal(size=(4, 3))), (0, 1))


def test_a_differentiated_parameter_given_none_takes_the_numpy_path():
    x, w = rng.normal(size=(5, 3)), rng.normal(size=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(Exception) as compiled_error:
            s2sad.grad(masked, argnums=(0, 2), compile=True)(x, w, None)
    with pytest.raises(Exception) as numpy_error:
        s2sad.grad(masked, argnums=(0, 2))(x, w, None)
    assert type(compiled_error.value) is type(numpy_error.value)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "given None for a parameter it differentiates (`mask`)" in messages[0], messages


# ---------------------------------------------------------------- x.transpose(...), np.transpose(x, axes), x.T of 3-d
# c: weights of shape (2, 4, 3), so that the gradient is not the same in every entry
def heads_by_arguments(x, W, c):                 # the multi-head attention's split, then a product of heads
    h = (x @ W).reshape(4, 2, -1).transpose(1, 0, 2)
    return np.sum(np.tanh(h) * c) + np.sum((h * h.transpose(0, 2, 1).transpose(0, 2, 1)) ** 2) * 0.01


def heads_by_a_tuple(x, W, c):
    h = (x @ W).reshape(4, 2, 3).transpose((1, 0, 2))
    return np.sum(np.sin(h) * c)


def heads_by_negative_axes(x, c):                # -1 is the last axis, as NumPy counts it
    return np.sum(np.cos(x.transpose(-2, 0, -1)) * c)


def reversed_axes(x, c):                         # no axes, and .T of a 3-d array: the axes reversed
    return np.sum(np.sin(x.transpose()) * c.T) + np.sum(x.T ** 2 * c.T)


def transposed_by_numpy(x, y):
    return np.sum(np.tanh(np.transpose(x, (1, 2, 0))) * y) + np.sum(np.transpose(y) * np.sin(np.transpose(x, (0, 2, 1))))


def split_heads(x, n_heads):
    return x.reshape(x.shape[0], n_heads, -1).transpose(1, 0, 2)


def attention_scores(x, Wq, Wk):                 # the split in a callee: its split form compiled with it
    q, k = split_heads(x @ Wq, 2), split_heads(x @ Wk, 2)   # (Numba's @ takes no 3-d arrays: not q @ k)
    return np.sum(np.tanh(q) * k.transpose(0, 2, 1).transpose(0, 2, 1))


def bad_permutation(x):
    return np.sum(x.transpose(0, 0, 1) ** 2)     # an axis twice: NumPy's ValueError


C = np.linspace(-1.0, 1.0, 24).reshape(2, 4, 3)
TRANSPOSES = {
    "x.transpose(1, 0, 2)": (heads_by_arguments, (rng.normal(size=(4, 5)), rng.normal(size=(5, 6)), C), (0, 1, 2)),
    "x.transpose((1, 0, 2))": (heads_by_a_tuple, (rng.normal(size=(4, 5)), rng.normal(size=(5, 6)), C), (0, 1)),
    "x.transpose(-2, 0, -1)": (heads_by_negative_axes, (rng.normal(size=(4, 2, 3)), C), (0,)),
    "x.transpose() and x.T of 3-d": (reversed_axes, (rng.normal(size=(2, 4, 3)), C), (0, 1)),
    "np.transpose(x, axes)": (transposed_by_numpy, (rng.normal(size=(3, 2, 4)), rng.normal(size=(2, 4, 3))), (0, 1)),
    "split heads in a callee": (attention_scores, (rng.normal(size=(3, 4)), rng.normal(size=(4, 6)),
                                                   rng.normal(size=(4, 6))), (0, 1, 2)),
}


@pytest.mark.parametrize("name", compiled_share(TRANSPOSES, 3))  # (every one with S2SAD_TESTS=full)
def test_transposes_compile_and_are_central_differences(name):
    compiled_against_references(*TRANSPOSES[name])


@pytest.mark.parametrize("name", ["x.transpose(1, 0, 2)", "np.transpose(x, axes)", "x.transpose() and x.T of 3-d"])
def test_float32_transposes_compile_and_give_float32(name):
    f, args, argnums = TRANSPOSES[name]
    narrow = tuple(a.astype(np.float32) for a in args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradients = s2sad.grad(f, argnums=argnums, compile=True)(*narrow)
    plain = s2sad.grad(f, argnums=argnums)(*narrow)
    for position, gradient, expected in zip(argnums, gradients, plain):
        assert gradient.dtype == np.float32 and gradient.shape == args[position].shape
        scale = float(np.max(np.abs(expected)))
        np.testing.assert_allclose(gradient, expected, rtol=0, atol=8 * np.finfo(np.float32).eps * scale)
        widened = tuple(a.astype(np.float64) for a in narrow)
        np.testing.assert_allclose(gradient, central(f, widened, position), rtol=0, atol=1e-3 * scale)


def test_a_permutation_naming_an_axis_twice_raises_as_numpy_does():
    with pytest.raises(ValueError):
        np.transpose(np.zeros((2, 3, 4)), (0, 0, 1))
    with pytest.raises(ValueError):
        s2sad.grad(bad_permutation, compile=True)(rng.normal(size=(2, 3, 4)))


# ---------------------------------------------------------------- keyword arguments of the differentiated function
def scaled_loss(x, scale=1.0, *, power=2.0, shift=None):
    y = np.sum(np.sin(x) * scale) ** power
    if shift is not None:
        y = y + np.sum(shift * x ** 2)
    return y


def weighted(w, *, weights):                     # keyword-only, no default
    return np.sum(np.tanh(w * weights))


def residuals(w, X, y, l2=0.0, power=2):
    return np.sum(np.abs(X @ w - y) ** power) + l2 * np.sum(w ** 2)


def forwarding(x, **options):
    return np.sum(x ** 2) * options.get("scale", 1.0)


def compiled_with_keywords(f, args, kwargs, argnums):
    """``f(*args, **kwargs)``'s gradient compiles (no fallback), and is the NumPy path's and central
    differences' (the keywords held)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradients = s2sad.value_and_grad(f, argnums=argnums, compile=True)(*args, **kwargs)
    plain_value, plain_gradients = s2sad.value_and_grad(f, argnums=argnums)(*args, **kwargs)
    assert value == pytest.approx(f(*args, **kwargs), rel=1e-13)
    for position, gradient, plain in zip(argnums, gradients, plain_gradients):
        np.testing.assert_allclose(gradient, plain, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(gradient, central(lambda *a: f(*a, **kwargs), args, position), rtol=1e-6, atol=1e-7)


KEYWORDS = {
    "a default given by keyword": (scaled_loss, (rng.normal(size=4),), {"scale": 1.5}, (0,)),
    "keyword-only, the one before left to its default": (scaled_loss, (rng.normal(size=4),), {"power": 3.0}, (0,)),
    "keyword-only given an array where None was": (scaled_loss, (rng.normal(size=4), 0.5),
                                                   {"power": 3.0, "shift": rng.normal(size=4)}, (0, 1)),
    "keyword-only without a default": (weighted, (rng.normal(size=5),), {"weights": rng.normal(size=5)}, (0,)),
    "all but the first by keyword": (residuals, (rng.normal(size=3),), {"y": rng.normal(size=6), "l2": 0.3,
                                                                         "X": rng.normal(size=(6, 3))}, (0,)),
}


@pytest.mark.parametrize("name", sorted(KEYWORDS))
def test_keyword_arguments_compile_and_are_central_differences(name):
    compiled_with_keywords(*KEYWORDS[name])


def test_negative_argnums_count_the_arguments_given_by_position():
    """argnums=-1 is the last argument given by position (as the NumPy path counts), not the last
    parameter: d/dscale of sum(sin(x) * scale) ** 2 is 2 s sum(sin x), s = sum(sin(x) * scale)."""
    x = rng.normal(size=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dscale = s2sad.grad(scaled_loss, argnums=-1, compile=True)(x, 0.7, power=2.0)
    assert dscale == pytest.approx(2 * np.sum(np.sin(x) * 0.7) * np.sum(np.sin(x)), rel=1e-12)
    with pytest.raises(s2sad.S2SADError, match="argnums"):   # none given by position: out of range, as before
        s2sad.grad(scaled_loss, compile=True)(x=x)


def test_float32_with_keywords_gives_float32():
    x, weights = rng.normal(size=5).astype(np.float32), rng.normal(size=5).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(weighted, compile=True)(x, weights=weights)
    expected = s2sad.grad(weighted)(x, weights=weights)
    assert gradient.dtype == np.float32
    np.testing.assert_allclose(gradient, expected, rtol=0, atol=8 * np.finfo(np.float32).eps * np.max(np.abs(expected)))
    np.testing.assert_allclose(gradient, weights * (1 - np.tanh(x.astype(np.float64) * weights) ** 2), rtol=1e-5)


def test_a_partial_with_keywords_compiles():
    """``functools.partial(residuals, X=..., y=...)``: the function's compiled gradient, the held
    keywords passed by position; argnums count from the call's own first argument."""
    import functools

    w, X, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)
    objective = functools.partial(residuals, X=X, y=y, l2=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(objective, compile=True)(w)
    np.testing.assert_allclose(gradient, 2 * X.T @ (X @ w - y) + 2 * 0.2 * w, rtol=1e-12)
    np.testing.assert_allclose(gradient, s2sad.grad(objective)(w), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("call, error", [
    (lambda g, x: g(x, bogus=1.0), TypeError),            # not a parameter
    (lambda g, x: g(x, 2.0, scale=2.0), TypeError),       # given twice
], ids=["unknown", "twice"])
def test_keywords_python_refuses_raise_as_the_numpy_path_does(call, error):
    x = rng.normal(size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(Exception) as compiled:
            call(s2sad.grad(scaled_loss, compile=True), x)
    with pytest.raises(Exception) as plain:
        call(s2sad.grad(scaled_loss), x)
    assert type(compiled.value) is type(plain.value) and str(compiled.value) == str(plain.value)


def test_double_starred_keywords_fall_back_with_the_same_numbers():
    x = rng.normal(size=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(forwarding, compile=True)(x, scale=3.0)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "keyword arguments" in messages[0], messages
    np.testing.assert_allclose(gradient, 6.0 * x, rtol=1e-13)


# ---------------------------------------------------------------- `@` through the helper kept on disk
def recurrent(W, h, x):
    for _ in range(5):
        h = np.tanh(W @ h + x)
    return np.sum(h) + h @ h + np.sum((x @ W.T) ** 2)   # matrix-vector, vector-vector, vector-matrix


def of_a_call(x, targets):                        # generated code names `x @ np.ones(...)` `matmul`
    return np.mean(np.sum((x @ np.ones((x.shape[1], targets.shape[0])) - targets) ** 2, axis=1))


def test_a_product_named_matmul_compiles():
    compiled_against_references(of_a_call, (rng.normal(size=(4, 3)), rng.normal(size=5)), (0, 1))


from s2sad.compiled_helpers import matmul_vjp_x2, numpy_matmul  # noqa: E402  (Numba is there)


@numba.njit
def products_by_the_helpers(W, h, g):
    return numpy_matmul(W, h), matmul_vjp_x2(g, W, h)


@numba.njit
def products_by_numbas_matmul(W, h, g):
    return W @ h, W.T @ g


def test_a_matrix_and_its_transpose_times_a_vector_are_numbas_products_bit_for_bit():
    """``W @ h`` and ``W.T @ g`` of a C-ordered matrix are one helper (compiled_helpers._matrix_vector)
    making the BLAS call Numba's ``@`` makes: the same bits, empty shapes included; a size that does
    not match raises. (float32 goes through it in the test below.)"""
    from s2sad.compiled_helpers import _matrix_vector  # noqa: F401  (the helper these products go through)

    for rows, columns in ((5, 3), (1, 7), (0, 3), (3, 0)):
        W, h, g = rng.normal(size=(rows, columns)), rng.normal(size=columns), rng.normal(size=rows)
        got, expected = products_by_the_helpers(W, h, g), products_by_numbas_matmul(W, h, g)
        for a, b in zip(got, expected):
            assert a.dtype == np.float64 and a.shape == b.shape and np.array_equal(a, b)
    with pytest.raises(ValueError):   # (compiled code raising: compiled.py's after_error runs the NumPy path)
        products_by_the_helpers(np.ones((2, 3)), np.ones(2), np.ones(2))


def test_matmul_is_the_helper_and_its_gradients_are_central_differences():
    """Compiled code calls ``numpy_matmul`` (compiled once, kept on disk with the other helpers) for each
    ``@``, none of Numba's own; float64 gradients are central differences' and the NumPy path's,
    float32 ones are float32."""
    import inspect

    from s2sad.transform import generated_compiled

    args = (0.3 * rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=4))
    compiled_against_references(recurrent, args, (0, 1, 2))
    source = inspect.getsource(generated_compiled(recurrent, ("W", "h", "x")))
    code = [line.split("#")[0] for line in source.splitlines()]   # (comments quote the user's `W @ h`)
    assert any("numpy_matmul(W, h)" in line for line in code) and not any("@" in line for line in code), source
    narrow = tuple(a.astype(np.float32) for a in args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradients = s2sad.grad(recurrent, argnums=(0, 1, 2), compile=True)(*narrow)
    # (five steps of tanh after BLAS products that add in another order than NumPy's: 64 float32 ulps of the
    # largest entry against the NumPy path; 1e-3 of it against float64 central differences)
    plain = s2sad.grad(recurrent, argnums=(0, 1, 2))(*narrow)
    for position, gradient, expected in zip((0, 1, 2), gradients, plain):
        scale = float(np.max(np.abs(expected)))
        assert gradient.dtype == np.float32
        np.testing.assert_allclose(gradient, expected, rtol=0, atol=64 * np.finfo(np.float32).eps * scale)
        widened = tuple(a.astype(np.float64) for a in narrow)
        np.testing.assert_allclose(gradient, central(recurrent, widened, position), rtol=0, atol=1e-3 * scale)
