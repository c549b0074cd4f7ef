"""compile=True through calls of the user's own functions (issue 19): a module-level function the
differentiated function calls is compiled split, a forward half returning its value and what
its reverse half reads, and the caller's compiled code calls the two halves. Each gradient
against central differences of the plain function and against the NumPy path; the calls that
cannot compile (**kwargs, recursion, a function passed in) fall back with a warning; a
callee redefined or rebound is followed."""
import importlib
import math
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import compiled_share
from finite_differences import numerical_gradient as central
from test_compiled_arrays import compiled_against_references, falls_back_naming

numba = pytest.importorskip("numba")


# ---------------------------------------------------------------- helpers and their callers
def sigmoid(z):
    return 0.5 * (np.tanh(z / 2.0) + 1.0)


def sigmoid_in_a_loop(W, x):
    h = sigmoid(W @ x)
    for i in range(3):
        h = sigmoid(W @ h) + h
    return np.sum(h ** 2)


def float_helper(a, b):
    return a * a + math.sin(b) * a


def of_floats(x, y):
    total = 0.0
    for i in range(4):
        total = total + float_helper(x, y) * (i + 1.0)
    return total


def mixed_helper(v, s):
    return np.sum(np.cos(v) * s)


def floats_and_arrays(x, s):
    return mixed_helper(x, s) ** 2 + mixed_helper(x * s, 0.5)


def inner(z):
    return np.tanh(z) * z


def middle(z, w):
    return inner(z * w) + z


def two_levels(x, w):
    return np.sum(middle(x, w) ** 2)


def scaled(z, s=2.0):
    return np.sin(z) * s


def with_a_default(x):
    return np.sum(scaled(x)) + np.sum(scaled(x, 0.5) ** 2)


def with_constants(x, y):
    c = sigmoid(np.ones(3))                       # a call of constants: nothing differentiated through it
    return np.sum(x * c) + float_helper(y, 1.5) + np.sum(sigmoid(x) * 3.0)


def saves_a_tape(x):
    h = x
    for i in range(4):
        h = np.sin(h) * 0.9 + 0.1 * h
    return h


def callee_with_a_loop(x, w):
    return np.sum(saves_a_tape(x * w) ** 2) + np.sum(saves_a_tape(x))


rng = np.random.default_rng(19)
CASES = {
    "sigmoid_in_a_loop": (sigmoid_in_a_loop, (0.5 * rng.normal(size=(4, 4)), rng.normal(size=4)), (0, 1)),
    "of_floats": (of_floats, (0.7, -0.4), (0, 1)),
    "floats_and_arrays": (floats_and_arrays, (rng.normal(size=5), 1.3), (0, 1)),
    "two_levels": (two_levels, (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    "with_a_default": (with_a_default, (rng.normal(size=3),), (0,)),
    "with_constants": (with_constants, (rng.normal(size=3), 0.6), (0, 1)),
    "with_constants_first_only": (with_constants, (rng.normal(size=3), 0.6), (0,)),
    "callee_with_a_loop": (callee_with_a_loop, (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
}


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_a_gradient_through_calls_compiles_and_is_central_differences(name):
    compiled_against_references(*CASES[name])


def test_the_caller_calls_the_split_halves():
    """Not the NumPy path in disguise: the compiled module binds the callee's two halves."""
    from s2sad.transform import generated_source

    text = generated_source(sigmoid_in_a_loop, ("W",), "compiled")
    assert "'compiled_forward', ('env', 'sigmoid')" in text and "sigmoid_rrule" not in text
    assert "sigmoid_reverse(h_pullback, dh)" in text


# ---------------------------------------------------------------- calls that keep the NumPy path
def keyword_call(x):
    return np.sum(sigmoid(z=x))


def keyword_default_not_literal(x):
    return np.sum(with_an_array_default(x, scale=2.0))


def with_an_array_default(z, offset=np.zeros(2), scale=1.0):
    return (z + offset) * scale


def with_options(z, **options):
    return z * options.get("scale", 1.0)


def calls_with_options(x):
    return np.sum(with_options(x, scale=2.0) ** 2)


def recursive(z, n):
    if n == 0:
        return z
    return recursive(np.sin(z), n - 1)


def calls_recursive(x):
    return np.sum(recursive(x, 2))


def powered(z, n):
    return z * (n * n * n * n) * 1e-20          # n ** 4 past 2**63: Numba's integers wrap


def calls_powered(x, n):
    return np.sum(powered(x, n))


def apply(f, x):
    return np.sum(f(x))


class Scaler:
    def __init__(self, s):
        self.s = s

    def scale(self, x):
        return x * self.s


SCALER = Scaler(1.5)


def calls_a_method(x):
    return np.sum(SCALER.scale(x) ** 2)


@pytest.mark.parametrize("f, args, argnum, words", [
    (calls_with_options, (np.array([0.2, -0.3]),), 0, "**options"),
    (keyword_default_not_literal, (np.array([0.2, -0.3]),), 0, "keyword"),
    (calls_recursive, (np.array([0.2, -0.3]),), 0, "recursive"),
    (apply, (sigmoid, np.array([0.2, -0.3])), 1, "method_rrule"),
    (calls_a_method, (np.array([0.2, -0.3]),), 0, "function_globals"),  # the object read from the module
    (calls_powered, (np.array([0.2, -0.3]), 2 ** 20), 0, "powered_forward"),
], ids=["double_starred", "keyword_past_an_array_default", "recursive", "a_value", "a_method", "integer_products_in_a_callee"])
def test_calls_it_does_not_compile_fall_back_with_the_same_numbers(f, args, argnum, words):
    falls_back_naming(f, args, argnum, words)


# ---------------------------------------------------------------- keyword calls, written positionally
def dense(x, W, b, activation=np.tanh):
    return activation(W @ x + b)


def leaky(z):
    return np.maximum(z, 0.1 * z)


def step(y, p, dt=0.1, rate=leaky):
    return y + dt * rate(y * p)


def keyword_calls(W1, b1, W2, k):
    h = dense(np.ones(3), W=W1, b=b1)                           # keywords, the default activation
    h = dense(h, W2, b=b1, activation=np.sin) + dense(x=h, W=W2, b=b1, activation=leaky)
    h = scaled(h, s=k) + scaled(z=h)                             # a differentiated keyword
    return np.sum(step(h, k, rate=np.tanh) ** 2) + np.sum(step(h, 0.5, dt=0.05))


def test_keyword_calls_are_written_positionally_and_compile():
    W1, b1, W2 = rng.normal(size=(4, 3)), rng.normal(size=4), 0.5 * rng.normal(size=(4, 4))
    compiled_against_references(keyword_calls, (W1, b1, W2, 0.7), (0, 1, 2, 3))
    compiled_against_references(keyword_call, (np.array([0.2, -0.3]),), (0,))
    from s2sad.transform import generated_source

    text = generated_source(keyword_calls, ("W1", "b1", "W2", "k"), "compiled")
    # bound as Python binds them: the keywords in their parameters' places, dt's default written in
    assert "dense_forward(ones_3, W1, b1)" in text and "dense_leaky_forward(h, W2, b1)" in text
    assert "step_tanh_forward(" in text and ", k, 0.1)" in text and ".keywords[" not in text


# ---------------------------------------------------------------- a callee that changes
CALLER = '''
import numpy as np
from {helpers} import inner


def helper(z):
    return {body}


def middle_of(z):
    return inner(z) * 2.0


def loss(x):
    return np.sum(helper(x) ** 2) + np.sum(middle_of(x))
'''


def _write(directory, name: str, text: str) -> None:
    (directory / f"{name}.py").write_text(textwrap.dedent(text))


def test_a_redefined_or_rebound_callee_is_followed(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _write(tmp_path, "callees_one", "import numpy as np\n\n\ndef inner(z):\n    return np.sin(z)\n")
    _write(tmp_path, "callees_two", "import numpy as np\n\n\ndef inner(z):\n    return np.cos(z) * z\n")
    _write(tmp_path, "caller_module", CALLER.format(helpers="callees_one", body="np.tanh(z)"))
    module = importlib.import_module("caller_module")
    x = np.array([0.3, -0.8, 1.2])
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(module.loss, compile=True)
        old_loss = module.loss
        np.testing.assert_allclose(gradient(x), central(module.loss, (x,), 0), rtol=1e-6, atol=1e-7)

        # the module's text changed and reloaded: the old `loss` reads the new `helper`
        _write(tmp_path, "caller_module", CALLER.format(helpers="callees_one", body="z * np.exp(-z)"))
        importlib.reload(module)
        assert old_loss.__globals__["helper"] is module.helper
        np.testing.assert_allclose(gradient(x), central(old_loss, (x,), 0), rtol=1e-6, atol=1e-7)

        # two levels down: `middle_of` is the same function, the `inner` it calls another
        monkeypatch.setattr(module, "inner", importlib.import_module("callees_two").inner)
        np.testing.assert_allclose(gradient(x), central(old_loss, (x,), 0), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(gradient(x), s2sad.grad(old_loss)(x), rtol=1e-12)


def gradient_in_a_new_process(directory, module: str, inputs: str, gradient: str) -> np.ndarray:
    """``gradient`` (an expression of ``module``, imported from ``directory``, and of the names
    ``inputs`` binds), computed by a new Python process with its caches in ``directory``;
    no compile=True fallback allowed."""
    program = textwrap.dedent(f'''
        import sys, warnings
        sys.path.insert(0, {str(directory)!r})
        import numpy as np, s2sad, {module}
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        {inputs}
        print(repr(list({gradient})))
    ''')
    environment = {"S2SAD_CACHE_DIR": str(directory / "cache"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=environment,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return np.array(eval(done.stdout.strip().splitlines()[-1]))


def test_a_new_process_loads_the_caller_and_its_callees_from_the_caches(tmp_path):
    """Numba's disk cache keeps a caller's machine code with its callees' linked in: a callee
    whose text changed between processes must not come back as the old one."""
    _write(tmp_path, "callee_file", "import numpy as np\n\n\ndef helper(z):\n    return np.sin(z)\n")
    _write(tmp_path, "caller_file", "import numpy as np\nfrom callee_file import helper\n\n\n"
                                    "def loss(x):\n    return np.sum(helper(x) ** 2)\n")
    def run():
        return gradient_in_a_new_process(tmp_path, "caller_file", "x = np.array([0.3, -0.8, 1.2])",
                                         "s2sad.grad(caller_file.loss, compile=True)(x)")

    x = np.array([0.3, -0.8, 1.2])
    np.testing.assert_allclose(run(), 2 * np.sin(x) * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(run(), 2 * np.sin(x) * np.cos(x), rtol=1e-12)  # from the caches
    _write(tmp_path, "callee_file", "import numpy as np\n\n\ndef helper(z):\n    return np.tanh(z)\n")
    np.testing.assert_allclose(run(), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2), rtol=1e-12)


def test_emit_compile_refuses_a_caller_of_helpers(tmp_path):
    from s2sad.emit import emitted_text

    with pytest.raises(s2sad.S2SADError, match="sigmoid") as refused:
        emitted_text(sigmoid_in_a_loop, ("W",), "compiled", str(tmp_path / "out.py"), "x")
    location = refused.value.location  # the user's line calling it
    assert location.filename == __file__ and "sigmoid(" in location.text
    assert location.text[location.column - 1:].startswith("sigmoid(")


def test_a_function_of_another_module_called_as_its_attribute_compiles(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    _write(tmp_path, "attribute_callees", "import numpy as np\n\n\ndef helper(z, w):\n    return np.sin(z) * w\n")
    _write(tmp_path, "attribute_caller", "import numpy as np\nimport attribute_callees as ac\n\n\n"
                                         "def loss(x, w):\n    return np.sum(ac.helper(x, w) ** 2)\n")
    module = importlib.import_module("attribute_caller")
    args = (np.array([0.3, -0.8, 1.2]), 1.7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        dx, dw = s2sad.grad(module.loss, argnums=(0, 1), compile=True)(*args)
    np.testing.assert_allclose(dx, central(module.loss, args, 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dw, central(module.loss, args, 1), rtol=1e-6, atol=1e-7)


def of_a_float_and_a_constant_call(x):
    return x * float_helper(2.0, 1.0) + math.cos(x)


def test_a_function_of_floats_calling_a_helper_of_constants_compiles():
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        gradient = s2sad.grad(of_a_float_and_a_constant_call, compile=True)(0.4)
    np.testing.assert_allclose(gradient, 4.0 + math.sin(1.0) * 2.0 - math.sin(0.4), rtol=1e-13)
