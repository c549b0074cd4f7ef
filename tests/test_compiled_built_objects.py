"""compile=True through objects a function builds itself: ``layer = Dense(W, b)`` then
``layer(x)``, a dataclass of parameters made inside, a namedtuple made inside, an object built and
used in one expression, classes defined in the function's body, a dataclass built again in a loop
(frontend/built_classes.py, built_objects_written_out.py). Each program compiles (no
CompiledFallbackWarning), its value and gradient are the NumPy path's (within 1e-12) and central
differences' in float64, and float32 arrays give float32 gradients; what cannot be written out
falls back, naming the construct, with the NumPy path's numbers."""
import collections
import dataclasses
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from realistic_programs import local_dataclass_state
from test_compiled_arrays import compiled_against_references, falls_back_naming, float32_against_references
from test_compiled_calls import gradient_in_a_new_process
from corpus_cases import compiled_share

numba = pytest.importorskip("numba")

rng = np.random.default_rng(140)


class Dense:
    def __init__(self, W, b, scale=1.0):
        self.W = W
        self.b = b
        self.scale = scale

    def __call__(self, x):
        return self.scale * np.tanh(x @ self.W + self.b)

    def penalty(self):
        return np.sum(self.W ** 2)

    def regularised(self, x, strength):
        return np.sum(self(x) ** 2) + strength * self.penalty()


@dataclasses.dataclass
class Params:
    mean: np.ndarray
    log_std: np.ndarray
    floor: float = 0.25

    def log_prob(self, x):
        z = (x - self.mean) / (np.exp(self.log_std) + self.floor)
        return np.sum(-0.5 * z ** 2 - self.log_std)


Layer = collections.namedtuple("Layer", "W b")
Shifted = collections.namedtuple("Shifted", "offset scale", defaults=(2.0,))


def dense_layers(W1, b1, W2, b2, x):
    hidden = Dense(W1, b1)
    out = Dense(W2, b2, 0.5)
    return np.sum(out(hidden(x)) ** 2)


def method_calling_methods(W, b, x):
    layer = Dense(W, b, 0.3)
    return layer.regularised(x, 0.1) + np.sum(layer.b)


def dataclass_params(mean, log_std, data):
    params = Params(mean, log_std)
    return params.log_prob(data) + np.sum(params.mean ** 2)


def built_in_one_expression(mean, log_std, data):
    return Params(mean, log_std, 0.5).log_prob(data)


def namedtuple_layers(W1, b1, W2, b2, x):
    layers = 0.0
    first = Layer(W1, b1)
    second = Layer(W2, b2)
    h = np.tanh(x @ first.W + first.b)
    layers = np.sum((h @ second.W + second.b) ** 2)
    shift = Shifted(np.sum(W1))
    return layers + shift.scale * shift.offset ** 2


def local_classes(w, v, x):
    class Scaled:
        def __init__(self, weights):
            self.weights = weights

        def __call__(self, inputs):
            return inputs * self.weights

    @dataclasses.dataclass
    class Pair:
        left: np.ndarray
        right: np.ndarray

    pair = Pair(Scaled(w)(x), v)
    return np.sum(np.sin(pair.left) * pair.right)


def built_in_a_branch(W, b, x, deeper):
    layer = Dense(W, b)
    if deeper > 0.0:
        layer = Dense(W * 2.0, b)
    return np.sum(layer(x))


def _dense_args(dtype=np.float64):
    return tuple(a.astype(dtype) for a in (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2)),
                                           rng.normal(size=2), rng.normal(size=(5, 3))))


CASES = {
    "module-level class, __call__, a default": (dense_layers, _dense_args(), (0, 1, 2, 3, 4)),
    "methods calling methods and self(x)": (method_calling_methods,
                                            (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))),
                                            (0, 1, 2)),
    "dataclass with a default": (dataclass_params, (rng.normal(size=4), 0.3 * rng.normal(size=4),
                                                    rng.normal(size=(6, 4))), (0, 1, 2)),
    "built and used in one expression": (built_in_one_expression,
                                                   (rng.normal(size=4), 0.3 * rng.normal(size=4),
                                                    rng.normal(size=(6, 4))), (0, 1, 2)),
    "namedtuples, a default": (namedtuple_layers, _dense_args(), (0, 1, 2, 3, 4)),
    "classes defined in the body": (local_classes, (rng.normal(size=5), rng.normal(size=5), rng.normal(size=5)),
                                    (0, 1, 2)),
    "a dataclass built again in a loop (the corpus's)": (local_dataclass_state, (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
    "built in a branch taken": (built_in_a_branch, (rng.normal(size=(3, 2)), rng.normal(size=2),
                                                   rng.normal(size=(4, 3)), 1.0), (0, 1)),
    "built in a branch not taken": (built_in_a_branch, (rng.normal(size=(3, 2)), rng.normal(size=2),
                                                       rng.normal(size=(4, 3)), -1.0), (0, 1)),
}


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_objects_built_inside_compile_and_their_gradients_are_central_differences(name):
    f, args, argnums = CASES[name]
    compiled_against_references(f, args, argnums)


def test_float32_arrays_give_float32_gradients():
    """(A Python float field meeting float32 arrays falls back as a float argument does:
    test_compiled_classes.py; these objects hold arrays alone.)"""
    float32_against_references(local_classes, tuple(rng.normal(size=5).astype(np.float32) for _ in range(3)), (0, 1, 2))


# ---------------------------------------------------------------- what is not written out falls back, saying why
class Doubled:
    def __init__(self, w):
        self.w = w * 2.0

    def value(self, x):
        return np.sum(self.w * x)


@dataclasses.dataclass
class Checked:
    w: np.ndarray

    def __post_init__(self):
        assert self.w.ndim == 1

    def value(self, x):
        return np.sum(self.w * x)


def computing_init(w, x):
    return Doubled(w).value(x)


def post_init(w, x):
    return Checked(w).value(x)


def passed_on(W, b, x):
    layer = Dense(W, b)
    return helper_reading(layer, x)


def helper_reading(layer, x):
    return np.sum(layer(x))


def field_written(W, b, x):
    layer = Dense(W, b)
    layer.b = b * 2.0
    return np.sum(layer(x))


def bound_otherwise(W, b, x):
    layer = Dense(W, b)
    layer = np.sum(layer(x))
    return layer


def out_of_order(W, b, x):
    return Dense(b=np.sin(b), W=np.cos(W))(x).sum()


@pytest.mark.parametrize("f, args, words", [
    (computing_init, (rng.normal(size=3), rng.normal(size=3)), "does more than store each of its parameters once"),
    (passed_on, (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))), "uses the Dense `layer`"),
    (field_written, (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))),
     "writes `layer.b` of an object it builds"),
    (bound_otherwise, (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))),
     "binds `layer` to an object it builds and to another value"),
    # computed in the fields' order, `np.sin(b)` would run before `np.cos(W)`: not written out (the
    # NumPy path differentiates the keywords)
    (out_of_order, (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))),
     "keyword arguments out of its fields' order"),
], ids=["computing_init", "passed_on", "field_written", "bound_otherwise", "keywords_out_of_order"])
def test_what_is_not_written_out_falls_back_naming_it(f, args, words):
    assert "test_compiled_built_objects.py:" in falls_back_naming(f, args, 0, words)  # the user's line


@pytest.mark.parametrize("f, args, words, refusal", [
    (post_init, (rng.normal(size=3), rng.normal(size=3)), "__post_init__", "__post_init__"),
], ids=["post_init"])
def test_what_the_numpy_path_refuses_falls_back_to_its_refusal(f, args, words, refusal):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(s2sad.MissingRuleError, match=refusal):
            s2sad.grad(f, argnums=0, compile=True)(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and words in messages[0], messages


def test_a_new_process_follows_a_changed_constructor(tmp_path):
    """The written-out text reads the constructor's stores: an ``__init__`` that stores its
    parameters in other fields between processes must not come back as the old code."""
    def write(first: str, second: str) -> None:
        (tmp_path / "built_file.py").write_text(
            "import numpy as np\n\n\nclass Pair:\n    def __init__(self, a, b):\n"
            f"        self.{first} = a\n        self.{second} = b\n\n    def value(self):\n"
            "        return np.sum(np.sin(self.u) * self.v ** 2)\n\n\n"
            "def loss(x, y):\n    return Pair(x, y).value()\n")

    def run():
        return gradient_in_a_new_process(tmp_path, "built_file", "x, y = np.array([0.3, -0.8]), np.array([1.1, 0.4])",
                                         "s2sad.grad(built_file.loss, compile=True)(x, y)")

    x, y = np.array([0.3, -0.8]), np.array([1.1, 0.4])
    write("u", "v")
    np.testing.assert_allclose(run(), np.cos(x) * y ** 2, rtol=1e-12)
    np.testing.assert_allclose(run(), np.cos(x) * y ** 2, rtol=1e-12)  # from the caches
    write("v", "u")
    np.testing.assert_allclose(run(), 2 * np.sin(y) * x, rtol=1e-12)


def test_a_class_redefined_in_the_process_is_followed():
    """``Dense`` defined again (another __call__): the compiled lane made for the old class is stale."""
    global Dense
    args = (rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3)))
    compiled = s2sad.grad(helper_layers, argnums=0, compile=True)
    first = compiled(*args)
    np.testing.assert_allclose(first, central(helper_layers, args, 0), rtol=1e-6, atol=1e-7)
    old = Dense

    class Dense:  # noqa: F811 - the redefinition is the test
        def __init__(self, W, b, scale=1.0):
            self.W, self.b, self.scale = W, b, scale

        def __call__(self, x):
            return self.scale * np.sin(x @ self.W + self.b)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
            second = compiled(*args)
        np.testing.assert_allclose(second, central(helper_layers, args, 0), rtol=1e-6, atol=1e-7)
        assert not np.allclose(first, second)
    finally:
        Dense = old


def helper_layers(W, b, x):
    return np.sum(Dense(W, b)(x) ** 2)


class Squashing:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.sin(x @ self.W)


def squashed_built(W, x):
    return np.sum(Squashing(W)(x) ** 2)


def squashed_given(layer, x):
    return np.sum(layer(x) ** 2)


def tanh_call(self, x):
    return np.tanh(x @ self.W)


def test_a_method_replaced_on_its_class_is_followed():
    """``Squashing.__call__ = other`` after the first compiled call: the code made from the old
    method is stale, for an object built inside and for one given (its method made again)."""
    W, x = rng.normal(size=(3, 2)), rng.normal(size=(4, 3))
    built = s2sad.grad(squashed_built, compile=True)
    given = s2sad.grad(squashed_given, argnums=1, compile=True)
    built(W, x), given(Squashing(W), x)
    old = Squashing.__call__
    Squashing.__call__ = tanh_call
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
            np.testing.assert_allclose(built(W, x), central(squashed_built, (W, x), 0), rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(given(Squashing(W), x), central(squashed_given, (Squashing(W), x), 1),
                                       rtol=1e-6, atol=1e-7)
    finally:
        Squashing.__call__ = old
