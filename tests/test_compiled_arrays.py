"""compile=True on functions of float64 arrays (issue 19): the general generated code, its helpers
Numba overloads (s2sad/compiled_helpers.py). Each gradient against central differences of the
plain NumPy function and against the NumPy path; what is not served falls back with the same
numbers."""
import math
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import compiled_share
from finite_differences import numerical_gradient as central

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- programs as users write them
def rnn(W, h, x):
    for step in range(12):
        h = np.tanh(W @ h + x)
    return np.sum(h)


def spring(x, v, k):
    for step in range(30):
        a = -k * x - 0.1 * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return np.sum(x ** 2)


def sin_cos(x):
    return np.sum(np.sin(x) * np.cos(x) + x ** 2)


def mlp(W1, W2, X, y):
    h = np.tanh(X @ W1)
    out = h @ W2
    return np.mean((out - y) ** 2)


def broadcast_grid(a, b, c):
    return np.sum(np.tanh(a + b) * c)   # (3, 1) + (1, 4), times (4,)


def stretched_vector(a, b):
    return np.sum(np.tanh(a + b) * a)   # (5,) + (1,): b's cotangent is summed to one element


def row_norms(x):
    return np.sum(np.sum(x ** 2, axis=1) ** 1.5) + np.sum(np.sum(np.cos(x), axis=-2) ** 2)


def vector_times_matrix(x, W):
    return np.sum(np.tanh(x @ W) ** 2)


def neighbours(x, w):
    return np.sum(np.tanh(w * x[1:] - x[:-1]) ** 2)


def over_rows(x):
    total = 0.0
    for i, row in enumerate(x):
        total = total + (i + 1.0) * np.sum(np.sin(row))
    return total


def by_element(x):
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            total = total + x[i, j] * x[j, i] * (i - j + 0.5)
    return total


def with_a_branch(w, x, steps):
    h = x
    for step in range(steps):
        if np.sum(h) > 0.0:
            h = np.tanh(w * h)
        else:
            h = h * 0.5 + w
    return np.sum(h ** 2)


def softmax_loss(z):
    e = np.exp(z - 1.0)
    return -np.log(e[0] / np.sum(e))


def relu_mlp(W1, W2, X):
    h = np.maximum(X @ W1, 0.0)
    return np.sum((h @ W2) ** 2)


def smaller_squared(x, y):
    return np.sum(np.minimum(x, y) ** 2)   # at a tie each side gets half


def methods(W, x):
    h = np.tanh(W.T @ x)
    s = (W * W).sum(axis=0)
    return h.sum() + np.sum(s * s) + W.mean(axis=1).sum() + x.dot(x) + (W ** 2).mean() + np.sum(W.dot(np.sin(h)))


def methods_in_a_loop(W, x):
    total = 0.0
    for i in range(3):
        x = np.tanh(W.dot(x))
        total = total + (x * x).sum() + W.T.mean(axis=0).sum()
    return total


def powers_in_place(x, p):
    y = np.abs(x) + 0.5
    y += x * x
    return np.sum(y ** p) + np.sum(2.0 ** x) + np.sum(x) ** 2.5 / 10.0


def lotka_volterra(y, params):
    alpha, beta, delta, gamma = params[0], params[1], params[2], params[3]
    prey, predator = y[0], y[1]
    return np.array([alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator])


def rk4_by_name(params, y0):
    """RK4 written with its model called by name (a model passed as a value does not compile yet)."""
    y, dt, total = y0, 0.01, 0.0
    for step in range(20):
        k1 = lotka_volterra(y, params)
        k2 = lotka_volterra(y + 0.5 * dt * k1, params)
        k3 = lotka_volterra(y + 0.5 * dt * k2, params)
        k4 = lotka_volterra(y + dt * k3, params)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        total = total + np.sum(y ** 2)
    return total


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))   # smooth even where two elements tie for the max


def smallest_times_total(x):
    return np.min(x) * np.sum(x)


def validated(w, X, y):
    if X.shape[0] != y.shape[0]:
        raise ValueError("X and y disagree")
    p = np.tanh(X @ w)
    return np.sum((p - y) ** 2)


def unused(x, y):
    return np.sum(x ** 2)


rng = np.random.default_rng(7)
CASES = {
    "rnn": (rnn, (0.4 * rng.normal(size=(5, 5)), rng.normal(size=5), rng.normal(size=5)), (0, 1, 2)),
    "spring": (spring, (rng.normal(size=4), rng.normal(size=4), 2.0), (0, 1, 2)),
    "sin_cos": (sin_cos, (rng.normal(size=50),), (0,)),
    "mlp": (mlp, (rng.normal(size=(3, 6)), rng.normal(size=(6, 2)), rng.normal(size=(8, 3)), rng.normal(size=(8, 2))),
            (0, 1)),
    "broadcast_grid": (broadcast_grid, (rng.normal(size=(3, 1)), rng.normal(size=(1, 4)), rng.normal(size=4)),
                       (0, 1, 2)),
    "row_norms": (row_norms, (rng.normal(size=(3, 4)),), (0,)),
    "vector_times_matrix": (vector_times_matrix, (rng.normal(size=3), rng.normal(size=(3, 4))), (0, 1)),
    "neighbours": (neighbours, (rng.normal(size=6), 1.3), (0, 1)),
    "over_rows": (over_rows, (rng.normal(size=(3, 4)),), (0,)),
    "by_element": (by_element, (rng.normal(size=(3, 3)),), (0,)),
    "branch_taken": (with_a_branch, (0.8, np.array([0.5, 0.2, 0.1]), 4), (0, 1)),
    "branch_not_taken": (with_a_branch, (0.8, np.array([-0.5, -0.2, -0.1]), 1), (0, 1)),
    "softmax_loss": (softmax_loss, (rng.normal(size=5),), (0,)),
    "relu_mlp": (relu_mlp, (rng.normal(size=(3, 5)), rng.normal(size=(5, 2)), rng.normal(size=(4, 3))), (0, 1)),
    "methods": (methods, (rng.normal(size=(3, 3)), rng.normal(size=3)), (0, 1)),
    "methods_in_a_loop": (methods_in_a_loop, (rng.normal(size=(3, 3)), rng.normal(size=3)), (0, 1)),
    "powers_in_place": (powers_in_place, (np.abs(rng.normal(size=5)), 1.7), (0, 1)),
    "rk4_by_name": (rk4_by_name, (np.array([1.0, 0.1, 0.075, 1.5]), np.array([10.0, 5.0])), (0, 1)),
    "logsumexp_with_a_tie": (logsumexp, (np.array([0.3, 2.0, -1.0, 2.0]),), (0,)),
    "logsumexp_2d": (logsumexp, (rng.normal(size=(3, 4)),), (0,)),
    "validated": (validated, (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)), (0,)),
    "ties": (smaller_squared, (np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 1.0])), (0, 1)),
    "stretched_vector": (stretched_vector, (rng.normal(size=5), rng.normal(size=1)), (0, 1)),
}


@pytest.mark.parametrize("name", compiled_share(CASES, 3))  # (every one with S2SAD_TESTS=full)
def test_a_compiled_array_gradient_is_central_differences_and_the_numpy_paths(name):
    compiled_against_references(*CASES[name])


def compiled_against_references(f, args, argnums):
    """``f``'s gradient compiles (no fallback), and is the NumPy path's and central differences'
    (test_compiled_calls.py checks its programs with it too)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # each of these compiles
        value, gradients = s2sad.value_and_grad(f, argnums=argnums, compile=True)(*args)
    plain_value, plain_gradients = s2sad.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13)
    for position, gradient, plain in zip(argnums, gradients, plain_gradients):
        assert np.shape(gradient) == np.shape(args[position]) and type(gradient) is type(plain) or \
            isinstance(args[position], float) and isinstance(gradient, float)
        np.testing.assert_allclose(gradient, plain, rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(gradient, central(f, args, position), rtol=1e-6, atol=1e-7)


def falls_back_naming(f, args, argnum: int, words: str) -> str:
    """``f``'s compiled gradient falls back with one warning saying ``words``, and gives the NumPy
    path's numbers, which are central differences'; the warning's text is returned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(f, argnums=argnum, compile=True)(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and words in messages[0], messages
    np.testing.assert_allclose(gradient, s2sad.grad(f, argnums=argnum)(*args), rtol=1e-13)
    np.testing.assert_allclose(gradient, central(f, args, argnum), rtol=1e-6, atol=1e-7)
    return messages[0]


def float32_against_references(f, args, argnums):
    """``f``'s gradient at the float32 arrays ``args`` compiles (no fallback), is float32, and is
    the NumPy path's within float32's precision and central differences' at the same points in float64."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradients = s2sad.grad(f, argnums=argnums, compile=True)(*args)
    plain = s2sad.grad(f, argnums=argnums)(*args)
    wide = tuple(a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args)
    for position, gradient, theirs in zip(argnums, gradients, plain):
        assert gradient.dtype == theirs.dtype == np.float32
        np.testing.assert_allclose(gradient, theirs, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gradient, central(f, wide, position), rtol=1e-3, atol=1e-4)


def test_a_gradient_nothing_reaches_is_zeros_of_its_argument():
    x, y = np.array([1.0, 2.0]), np.ones((2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dx, dy = s2sad.grad(unused, argnums=(0, 1), compile=True)(x, y)
    np.testing.assert_array_equal(dx, [2.0, 4.0])
    assert dy.shape == (2, 3) and dy.dtype == np.float64 and not dy.any()


def summed(x, y):
    return np.sum(x + y)   # both cotangents are the one array of ones


def test_no_gradient_is_an_arguments_memory_or_another_gradients():
    """The caller may change a gradient in place: none is an argument (or a view of one), and no
    two gradients are one array (the cotangent of ``x + y`` is both operands')."""
    x = rng.normal(size=6)
    for f, args in [(sin_cos, (x,)), (neighbours, (x, 0.5))]:
        gradient = s2sad.grad(f, compile=True)(*args)
        assert not any(np.may_share_memory(gradient, a) for a in args if isinstance(a, np.ndarray))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dx, dy = s2sad.grad(summed, argnums=(0, 1), compile=True)(x, x + 1.0)
    assert not np.shares_memory(dx, dy)
    dx += 1.0
    np.testing.assert_array_equal(dy, np.ones(6))


@pytest.mark.parametrize("args", [  # (float32 arrays compile: test_compiled_float32.py)
    (np.linspace(-1.0, 1.0, 6) + 0.5j,),
    (np.arange(6),),
], ids=["complex", "int"])
def test_arguments_it_does_not_serve_run_the_numpy_path(args):
    def squares(x):
        return np.sum(np.abs(x) ** 2)

    compiled = s2sad.grad(squares, compile=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            expected = s2sad.grad(squares)(*args)
        except s2sad.S2SADError as error:  # an int array has no gradient: the same refusal either way
            with pytest.raises(type(error)):
                compiled(*args)
            return
        gradient = compiled(*args)
    assert any("does not serve" in str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning))
    assert gradient.dtype == expected.dtype
    np.testing.assert_array_equal(gradient, expected)


def square_roots(x):
    return np.sum(np.sqrt(x))


def test_a_call_with_a_non_finite_answer_is_the_numpy_paths():
    """sqrt's slope at 0 is infinite: such a call is computed again on the NumPy path, whose
    answer is the one given (Numba and Python part ways on non-finite numbers)."""
    x = np.array([0.0, 1.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        compiled = s2sad.grad(square_roots, compile=True)
        np.testing.assert_allclose(compiled(np.array([1.0, 4.0])), [0.5, 0.25])   # compiled
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal(compiled(x), s2sad.grad(square_roots)(x))  # [inf, 0.5, 0.25]


def test_an_int_argument_it_does_not_differentiate_is_served():
    args = (0.8, np.array([0.5, 0.2, 0.1]), 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dw = s2sad.grad(with_a_branch, compile=True)(*args)
    np.testing.assert_allclose(dw, central(with_a_branch, args, 0), rtol=1e-6)


def test_the_compiled_code_is_readable():
    """The generated module names the user's variables, points at their lines, and calls the
    overloads gathered in s2sad.compiled_overloads (no symbolic zeros, no closure)."""
    from s2sad.transform import generated_source

    text = generated_source(spring, ("x", "v", "k"), "compiled")
    assert "from s2sad.compiled_overloads import" in text and "ZERO" not in text and "def spring_pullback" not in text
    line = spring.__code__.co_firstlineno + 2
    assert f"# test_compiled_arrays.py:{line}: a = -k * x - 0.1 * v" in text
    assert "dk = zero_like(k)" in text


def every_other(x):
    total = 0.0
    for i in range(6):
        if i % 2 == 0:
            continue
        total = total + np.sum(np.cos(x * i))
    return total


def test_a_loop_with_continue_compiles_and_its_integer_check_runs():
    """Numba types ``total`` as optional along the ``continue``: the integer check reads the types
    of the compiled version (running type inference alone failed on them)."""
    x = rng.normal(size=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(every_other, compile=True)(x)
    np.testing.assert_allclose(gradient, central(every_other, (x,), 0), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- the realistic corpus, both modes
def _corpus():
    import test_realistic_programs as corpus

    return compiled_share(name for name in corpus.CORPUS if ("reverse", name) not in corpus.REFUSED)


@pytest.mark.parametrize("name", _corpus())
def test_every_realistic_program_gives_the_same_gradient_with_compile(name):
    """tests/realistic_programs.py's programs (defaults such as ``steps=50``, branches, loops,
    slices) with compile=True: compiled where they compile, the NumPy path's numbers either way."""
    import copy

    import test_realistic_programs as corpus

    function, args, argnums = corpus._function(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = s2sad.grad(function, argnums=argnums, compile=True)(*copy.deepcopy(args))
        plain = s2sad.grad(function, argnums=argnums)(*copy.deepcopy(args))
    np.testing.assert_allclose(_flat(compiled), _flat(plain), rtol=1e-10, atol=1e-12)


def _flat(gradient):
    """Every number of a gradient (arrays, floats, and tuples, lists and dicts of them), in order."""
    if isinstance(gradient, dict):
        return np.concatenate([_flat(gradient[k]) for k in sorted(gradient, key=repr)] or [np.zeros(0)])
    if isinstance(gradient, (tuple, list)):
        return np.concatenate([_flat(g) for g in gradient] or [np.zeros(0)])
    if hasattr(gradient, "__dict__") and not isinstance(gradient, np.ndarray):
        return _flat(vars(gradient))
    return np.ravel(np.asarray(gradient, dtype=complex if np.iscomplexobj(gradient) else float))


def euler(k, y0, dt=0.01, steps=100):
    y = y0
    for _ in range(steps):
        y = y + dt * (-k * y + np.sin(y))
    return np.sum(y ** 2)


def test_parameters_left_to_their_defaults_are_bound_and_compiled():
    """``dt=0.01, steps=100``: the compiled gradient is called with the defaults Python binds."""
    y0 = rng.normal(size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dk, dy0 = s2sad.grad(euler, argnums=(0, 1), compile=True)(0.7, y0)
        shorter = s2sad.grad(euler, compile=True)(0.7, y0, 0.02, 10)
    np.testing.assert_allclose(dk, central(euler, (0.7, y0), 0), rtol=1e-6)
    np.testing.assert_allclose(dy0, central(euler, (0.7, y0), 1), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(shorter, central(euler, (0.7, y0, 0.02, 10), 0), rtol=1e-6)


def test_a_tie_for_the_minimum_shares_the_cotangent_as_the_numpy_path_does():
    x = np.array([0.3, -2.0, 1.0, -2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(smallest_times_total, compile=True)(x)
    np.testing.assert_array_equal(gradient, s2sad.grad(smallest_times_total)(x))
    # d/dx_i = min(x) + share_i * sum(x): min -2, sum -2.7, each of the two minima a half share
    np.testing.assert_allclose(gradient, [-2.0, -2.0 - 2.7 / 2, -2.0, -2.0 - 2.7 / 2], rtol=1e-12)


def test_the_users_own_error_comes_from_the_numpy_path_with_its_location():
    """``raise ValueError(...)`` compiles; a call that raises is run again on the NumPy path, so
    the user sees their error as the NumPy path raises it (its message and the notes that point
    at their line)."""
    grad = s2sad.grad(validated, compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        grad(rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5))  # compiled
    mismatched = (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)
        with pytest.raises(ValueError, match="X and y disagree") as compiled:
            grad(*mismatched)
    with pytest.raises(ValueError, match="X and y disagree") as plain:
        s2sad.grad(validated)(*mismatched)
    assert str(compiled.value) == str(plain.value)
    assert getattr(compiled.value, "__notes__", None) == getattr(plain.value, "__notes__", None)


def test_the_helpers_generated_code_may_call_are_the_overloads_there_are():
    """for_numba names the helpers (generating code imports no Numba); compiled_overloads gathers
    the modules that define them: the two lists are one, but for what the modules share among themselves."""
    from s2sad import compiled_basics, compiled_overloads
    from s2sad.codegen.for_numba import ARRAY_HELPERS

    assert ARRAY_HELPERS == set(compiled_overloads.__all__) - set(compiled_basics.__all__)


def early_return_in_a_loop(u, s, n):
    """The fuzzer's program (seed 2111, reduced) on which Numba's lowering raises AttributeError
    after typing it: a failure to compile, not an exception of the function's own."""
    v1 = np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]])[-1, -2]
    acc5 = np.subtract(np.sum(u), np.linspace(0.1, 0.9, 3))
    for e6 in u:
        s = s + acc5[-1] / (1.0 + s ** 2)
        acc5 = 0.5 * acc5 + (u @ np.array([[1.0, 0.5, -0.5], [0.25, -1.0, 2.0]]))
        if np.negative(s) > -0.5:
            return 0.5 * v1 + 0.5 * acc5.sum() + 2.0 * e6 + 2.0 * (e6 * e6)

    def g7(z, k=2.0):
        return np.tanh(z * k) + s * z
    v8 = g7(np.power(1.5 + np.sin(s), acc5))
    if np.sqrt(1.0 + v1 ** 2) > 0.5:
        return np.mean(v8) + np.sum(u)
    return np.sum(v8) + (s + s)


def test_numba_failing_inside_its_own_compiler_is_a_failure_to_compile():
    """Said as Numba's failure to compile (then not tried again), not as the function raising where
    the NumPy path does not (which tried to compile again at every call); the NumPy path's numbers."""
    u, s = np.array([1.1, 0.0]), 0.3
    compiled = s2sad.grad(early_return_in_a_loop, argnums=(0, 1), compile=True)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", s2sad.CompiledFallbackWarning)
        first, second = compiled(u, s, 2), compiled(u, s, 2)
    messages = [str(w.message) for w in said if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    if messages:  # (a Numba that compiles it gives no warning: the numbers are checked either way)
        assert len(messages) == 1 and "Numba could not compile" in messages[0], messages
    for du, ds in (first, second):
        np.testing.assert_allclose(du, central(early_return_in_a_loop, (u, s, 2), 0), rtol=1e-6, atol=1e-8)
        assert math.isclose(ds, central(early_return_in_a_loop, (u, s, 2), 1), rel_tol=1e-6, abs_tol=1e-8)


def last_of_a_constant_by_flat(x):
    last = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]]).flat[-1]
    return last * np.sum(x)


def test_a_negative_index_into_flat_is_left_to_the_numpy_path():
    # Numba's flat iterator does not wrap -1: the compiled code read past the array, and gave the value 5.6e-322
    # (or 0.0) and the gradient that times ones where NumPy gives 2.0 and [2, 2, 2] (found by the fuzzer, seed 1903)
    x = np.array([0.3, -0.7, 1.1])
    with pytest.warns(s2sad.CompiledFallbackWarning, match=r"\.flat\[\(?-1\)?\]"):
        value, gradient = s2sad.value_and_grad(last_of_a_constant_by_flat, compile=True)(x)
    assert value == last_of_a_constant_by_flat(x)
    np.testing.assert_allclose(gradient, central(last_of_a_constant_by_flat, [x], 0), rtol=1e-6)
