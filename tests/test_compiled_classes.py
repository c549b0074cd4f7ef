"""compile=True through the user's own classes: a dataclass or plain class given as an argument,
read by its fields and by calling its methods (``model.loss(ratings, mask)``, ``net.forward(x)``
calling ``self.hidden(x)``, ``layer(x)`` through ``__call__``). Each object is written out as its
fields (frontend/object_layouts.py); the gradient of an object is the NumPy path's (a dataclass
for a dataclass, a ``Tangent`` for a plain class), and each field's is central differences' in
float64. What cannot be written out falls back, naming the construct, with the same numbers."""
import dataclasses
import warnings

import numpy as np
import pytest

import s2sad
from finite_differences import numerical_gradient as central
from s2sad.runtime.tangents import Tangent
from test_compiled_arrays import falls_back_naming
from corpus_cases import compiled_share

numba = pytest.importorskip("numba")

rng = np.random.default_rng(12)


@dataclasses.dataclass
class Factors:
    """Its method calls another; ``l2`` is a float field (its gradient a Python float)."""
    l2: float
    users: np.ndarray
    items: np.ndarray

    def loss(self, ratings, mask):
        misfit = mask * (self.users @ self.items.T - ratings)
        return np.sum(misfit ** 2) + self.l2 * self.penalty()

    def penalty(self):
        return np.sum(self.users ** 2) + np.sum(self.items ** 2)


class Net:
    """A plain class: two layers, the second's bias broadcast over the rows, a scale that is a float."""

    def __init__(self, W1, b1, W2, b2, scale):
        self.W1, self.b1, self.W2, self.b2, self.scale = W1, b1, W2, b2, scale

    def hidden(self, x):
        return np.tanh(x @ self.W1 + self.b1)

    def forward(self, x):
        return self.scale * (self.hidden(x) @ self.W2 + self.b2)


class Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return x @ self.W + self.b


class Unread:
    """``spare`` is never read: its gradient is zeros, on both paths."""

    def __init__(self, w, spare):
        self.w, self.spare = w, spare

    def value(self, x):
        return np.sum(np.sin(self.w * x))


class Regressor:
    """A bound method differentiated (``s2sad.grad(model.loss)``), its activation a field holding
    a NumPy function; ``link``, a field holding a module-level function of the user's."""

    def __init__(self, X, y, activation=np.tanh):
        self.X, self.y, self.activation, self.link = X, y, activation, softplus

    def loss(self, w):
        return np.mean((self.activation(self.X @ w) - self.y) ** 2) + np.sum(self.link(w))


def softplus(z):
    return np.log1p(np.exp(z))


def regression_of(model, w):
    return model.loss(w) * 2.0


def factor_loss(model, ratings, mask):
    return model.loss(ratings, mask)


def net_loss(net, x, y):
    return np.mean((net.forward(x) - y) ** 2)


def affine_loss(layer, x):
    return np.sum(layer(x) ** 2) + np.sum(layer.b)


def two_layers(first, second, x):
    return np.sum(np.tanh(second(np.tanh(first(x)))))


def unread_value(model, x):
    return model.value(x)


def _net(dtype=np.float64):
    return Net(rng.normal(size=(3, 4)).astype(dtype), rng.normal(size=4).astype(dtype),
               rng.normal(size=(4, 2)).astype(dtype), rng.normal(size=2).astype(dtype), 0.7)


CASES = {
    "dataclass, method calling a method": (factor_loss, (Factors(0.05, rng.normal(size=(3, 2)), rng.normal(size=(4, 2))),
                                                         rng.normal(size=(3, 4)), np.ones((3, 4))), (0, 1)),
    "plain class, broadcast biases": (net_loss, (_net(), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))), (0, 1)),
    "__call__": (affine_loss, (Affine(rng.normal(size=(3, 2)), rng.normal(size=2)), rng.normal(size=(4, 3))), (0, 1)),
    "two objects of one class": (two_layers, (Affine(rng.normal(size=(3, 4)), rng.normal(size=4)),
                                              Affine(rng.normal(size=(4, 2)), rng.normal(size=2)),
                                              rng.normal(size=(5, 3))), (0, 1, 2)),
    "a field not read": (unread_value, (Unread(rng.normal(size=3), rng.normal(size=(2, 2))), rng.normal(size=3)),
                         (0, 1)),
    "fields holding functions": (regression_of, (Regressor(rng.normal(size=(6, 3)), rng.normal(size=6), np.sin),
                                                 rng.normal(size=3)), (0, 1)),
    "object not differentiated": (net_loss, (_net(), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))), (1,)),
}


def _field_gradient(gradient, name):
    return gradient[name] if type(gradient) is Tangent else getattr(gradient, name)


def _with_field(obj, name, value):
    made = object.__new__(type(obj))
    made.__dict__.update(vars(obj))
    made.__dict__[name] = value
    return made


def central_of_field(f, args, position, name):
    """Central differences of ``f`` in the field ``name`` of the object ``args[position]``."""
    obj = args[position]

    def of_field(value):
        return f(*args[:position], _with_field(obj, name, value), *args[position + 1:])

    return central(of_field, (vars(obj)[name],), 0)


def compiled_against_references(f, args, argnums):
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # each of these compiles
        value, gradients = s2sad.value_and_grad(f, argnums=argnums, compile=True)(*args)
    plain_value, plain_gradients = s2sad.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(value, plain_value, rtol=1e-13)
    for position, gradient, plain in zip(argnums, gradients, plain_gradients):
        assert type(gradient) is type(plain)
        if isinstance(args[position], np.ndarray):
            np.testing.assert_allclose(gradient, plain, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(gradient, central(f, args, position), rtol=1e-6, atol=1e-7)
            continue
        if type(gradient) is Tangent:
            assert gradient.primal_type is type(args[position]) and set(gradient.fields) == set(plain.fields)
        for name, field in vars(args[position]).items():
            mine, theirs = _field_gradient(gradient, name), _field_gradient(plain, name)
            if callable(field):  # a field holding a function: whatever the NumPy path gives it
                assert repr(mine) == repr(theirs), name
                continue
            assert type(mine) is type(theirs) and np.shape(mine) == np.shape(field), name
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(mine, central_of_field(f, args, position, name), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", compiled_share(sorted(CASES), 2))  # (every one with S2SAD_TESTS=full)
def test_objects_compile_and_their_gradients_are_central_differences(name):
    compiled_against_references(*CASES[name])


@pytest.mark.parametrize("activation", [np.tanh, np.sin], ids=["tanh", "sin"])
def test_a_bound_method_compiles_with_its_objects_functions(activation):
    """``grad(model.loss)``: the object is the method's first argument, written out; its
    activation is read as the NumPy function it holds (each function its own compiled code)."""
    model, w = Regressor(rng.normal(size=(6, 3)), rng.normal(size=6), activation), rng.normal(size=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradient = s2sad.value_and_grad(model.loss, compile=True)(w)
    plain_value, plain = s2sad.value_and_grad(model.loss)(w)
    np.testing.assert_allclose(value, plain_value, rtol=1e-13)
    np.testing.assert_allclose(gradient, plain, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gradient, central(model.loss, (w,), 0), rtol=1e-6, atol=1e-7)


def test_the_object_is_written_out_as_its_fields():
    """Not the NumPy path in disguise: the entry takes the fields as parameters and calls the
    methods' split forms, each with its own ``self`` written out."""
    from s2sad.transform import _memory, generated_source

    compiled_against_references(*CASES["dataclass, method calling a method"])
    entry = [f for f in _memory if getattr(f, "__s2sad_origin__", None) is factor_loss]
    text = generated_source(entry[0], ("model_l2", "model_users", "model_items", "ratings"), "compiled")
    assert "model_l2, model_users, model_items, ratings, mask" in text and "method_rrule" not in text
    assert "model_loss_forward(model_l2, model_users, model_items, ratings, mask)" in text, text
    splits = [generated_source(f, wrt, mode) for f in list(_memory.keys()) for mode, wrt in _memory[f]
              if mode == "compiled_split" and getattr(f, "__s2sad_origin__", None) is Factors.loss]
    # each line of the method keeps its own comment (the rewritten lines point at the user's)
    assert any("test_compiled_classes.py:32: misfit = mask * (self.users @ self.items.T - ratings)\n" in s
               and "def loss_forward(self_l2, self_users, self_items, ratings, mask):" in s for s in splits), splits


def test_float32_fields_compile_and_are_numpys_float32_numbers():
    layer = Affine(rng.normal(size=(3, 2)).astype(np.float32), rng.normal(size=2).astype(np.float32))
    x = rng.normal(size=(4, 3)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
        value, gradient = s2sad.value_and_grad(affine_loss, argnums=(0, 1), compile=True)(layer, x)
    plain_value, plain = s2sad.value_and_grad(affine_loss, argnums=(0, 1))(layer, x)
    assert type(value) is type(plain_value) and gradient[1].dtype == np.float32
    np.testing.assert_allclose(value, plain_value, rtol=1e-6)
    for name in ("W", "b"):
        assert gradient[0][name].dtype == plain[0][name].dtype == np.float32
        np.testing.assert_allclose(gradient[0][name], plain[0][name], rtol=2e-6, atol=2e-6)


def test_a_python_float_field_with_float32_arrays_falls_back_as_a_float_argument_does():
    """``self.scale * (float32 array)``: NumPy keeps float32 for a Python float, Numba widens it:
    compiled_float32's check sends such calls to the NumPy path, saying so."""
    net, x, y = _net(np.float32), rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(5, 2)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gradient = s2sad.grad(net_loss, compile=True)(net, x, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "for float32 arguments, a float32 value meets a float64" in messages[0], messages
    plain = s2sad.grad(net_loss)(net, x, y)
    for name in ("W1", "b1", "W2", "b2"):
        assert gradient[name].dtype == np.float32
        np.testing.assert_array_equal(gradient[name], plain[name])


def test_objects_of_another_layout_take_their_own_compiled_code():
    """A second object with other fields (or none) is not given the first one's compiled code."""
    first = Affine(rng.normal(size=(3, 2)), rng.normal(size=2))
    second = Affine(rng.normal(size=(3, 2)), rng.normal(size=2))
    second.extra = 1.5  # a third field, not read
    x = rng.normal(size=(4, 3))
    compiled = s2sad.grad(affine_loss, compile=True)
    for layer in (first, second, first):
        with warnings.catch_warnings():
            warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
            gradient = compiled(layer, x)
        plain = s2sad.grad(affine_loss)(layer, x)
        assert set(gradient.fields) == set(vars(layer))
        for name in vars(layer):
            np.testing.assert_allclose(gradient[name], plain[name], rtol=1e-12, atol=1e-13)


# ---------------------------------------------------------------- what still falls back, with the same numbers
class Heads:
    def __init__(self, W, n_heads):
        self.W, self.n_heads = W, n_heads

    def apply(self, x):
        return np.sum((x @ self.W) ** 2) / self.n_heads


class Counting:
    def __init__(self, w):
        self.w = w
        self.calls = 0.0

    def apply(self, x):
        self.calls = self.calls + 1.0
        return np.sum(self.w * x)


def heads_loss(model, x):
    return model.apply(x)


def passes_it_by_keyword(net, x, y):
    return helper(net=net, x=x, y=y)


def helper(net, x, y):
    return np.mean((net.forward(x) - y) ** 2)


def returns_a_method(net, x, y):
    forward = net.forward
    return np.mean((forward(x) - y) ** 2)


@pytest.mark.parametrize("f, args, words", [
    (heads_loss, (Heads(rng.normal(size=(3, 2)), 2), rng.normal(size=(4, 3))), "field `n_heads` holds a int"),
    (passes_it_by_keyword, (_net(), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))), "uses the Net `net`"),
    (returns_a_method, (_net(), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))), "uses the Net `net`"),
], ids=["int_field", "object_passed_by_keyword", "method_taken"])
def test_what_does_not_compile_falls_back_naming_it(f, args, words):
    falls_back_naming(f, args, 1, words)


def test_a_method_writing_a_field_is_refused_as_the_numpy_path_refuses_it():
    """Written out, ``self.calls = ...`` would change a local, not the caller's object: compiled
    code refuses it, and the NumPy path raises its own error for it."""
    args = (Counting(rng.normal(size=3)), rng.normal(size=3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(s2sad.UnsupportedSyntaxError, match="self.calls = ...` changes an object"):
            s2sad.grad(heads_loss, argnums=1, compile=True)(*args)
    messages = [str(w.message) for w in caught if issubclass(w.category, s2sad.CompiledFallbackWarning)]
    assert len(messages) == 1 and "writes `self.calls` of the object it is given" in messages[0], messages
    assert "test_compiled_classes.py:" in messages[0]


def test_a_new_process_follows_a_changed_method(tmp_path):
    """Numba's disk cache keeps the caller's machine code with the methods' linked in: a method
    whose text changed between processes must not come back as the old one."""
    from test_compiled_calls import gradient_in_a_new_process

    def write(body: str) -> None:
        (tmp_path / "model_file.py").write_text(
            "import numpy as np\n\n\nclass Model:\n    def __init__(self, w):\n        self.w = w\n\n"
            f"    def squash(self, x):\n        return {body}\n\n    def value(self, x):\n"
            "        return np.sum(self.squash(x) ** 2)\n\n\ndef loss(model, x):\n    return model.value(x)\n")

    def run():
        return gradient_in_a_new_process(tmp_path, "model_file", "w = np.array([0.3, -0.8, 1.2])",
                                         "s2sad.grad(model_file.loss, compile=True)(model_file.Model(w), 0.5)['w']")

    w, x = np.array([0.3, -0.8, 1.2]), 0.5
    write("np.sin(self.w * x)")
    np.testing.assert_allclose(run(), 2 * np.sin(w * x) * np.cos(w * x) * x, rtol=1e-12)
    np.testing.assert_allclose(run(), 2 * np.sin(w * x) * np.cos(w * x) * x, rtol=1e-12)  # from the caches
    write("np.tanh(self.w * x)")
    np.testing.assert_allclose(run(), 2 * np.tanh(w * x) * (1 - np.tanh(w * x) ** 2) * x, rtol=1e-12)
