"""Gradients come back in the user's own containers (issue 16): a dict for a dict, a list of
tuples for a list of tuples, the namedtuple or dataclass for a namedtuple or dataclass, nested,
with zeros where nothing flowed; each leaf checked against central finite differences."""
import collections
import dataclasses

import numpy as np

import s2sad
from finite_differences import numerical_gradient

rng = np.random.default_rng(160)


def r(*shape):
    return rng.standard_normal(shape)


Linear = collections.namedtuple("Linear", "W b")


@dataclasses.dataclass
class Model:
    layers: list
    scale: float
    name: str = "mlp"
    unused: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(2))


def mlp_loss(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return np.sum(x ** 2)


def model_loss(model, x):
    return mlp_loss(model.layers, x) * model.scale


def dict_loss(p, x):
    return np.sum((x @ p["W"] + p["b"]) ** 2) + p["extra"]["c"] ** 2


X = r(6, 3)


def leaf_gradients(function, container, read, write):
    """The finite-difference gradient of ``function`` in one leaf of ``container``."""
    return numerical_gradient(lambda v: function(write(container, v), X), [read(container)], 0)


def test_a_list_of_tuples_gives_a_list_of_tuples():
    params = [(r(3, 4), r(4)), (r(4, 2), r(2))]
    grads = s2sad.grad(mlp_loss)(params, X)
    assert type(grads) is list and all(type(pair) is tuple and len(pair) == 2 for pair in grads)
    for i in range(2):
        for j in range(2):
            def write(ps, v, i=i, j=j):
                ps = [list(p) for p in ps]
                ps[i][j] = v
                return [tuple(p) for p in ps]
            expected = leaf_gradients(mlp_loss, params, lambda ps, i=i, j=j: ps[i][j], write)
            np.testing.assert_allclose(grads[i][j], expected, rtol=1e-5, atol=1e-7)


def test_a_dict_gives_a_dict_with_the_same_keys_in_order():
    params = {"W": r(3, 2), "b": 0.3, "extra": {"c": 1.5, "label": "x"}, "steps": 4}
    grads = s2sad.grad(dict_loss)(params, X)
    assert type(grads) is dict and list(grads) == list(params) and type(grads["extra"]) is dict
    assert grads["steps"] is None and grads["extra"]["label"] is None
    assert isinstance(grads["b"], float)
    np.testing.assert_allclose(grads["extra"]["c"], 3.0, rtol=1e-12)

    def write_W(p, v):
        return {**p, "W": v}
    np.testing.assert_allclose(grads["W"], leaf_gradients(dict_loss, params, lambda p: p["W"], write_W),
                               rtol=1e-5, atol=1e-7)


def test_namedtuples_and_a_dataclass_holding_a_list_come_back_as_themselves():
    model = Model([Linear(r(3, 4), r(4)), Linear(r(4, 2), r(2))], 0.5)
    grads = s2sad.grad(model_loss)(model, X)
    assert type(grads) is Model and type(grads.layers) is list and type(grads.layers[0]) is Linear
    assert grads.name is None
    np.testing.assert_array_equal(grads.unused, np.zeros(2))  # a field nothing flowed to: zeros
    np.testing.assert_allclose(grads.scale, mlp_loss(model.layers, X), rtol=1e-12)

    def write(m, v):
        layers = list(m.layers)
        layers[1] = Linear(layers[1].W, v)
        return dataclasses.replace(m, layers=layers)
    expected = leaf_gradients(model_loss, model, lambda m: m.layers[1].b, write)
    np.testing.assert_allclose(grads.layers[1].b, expected, rtol=1e-5, atol=1e-7)


def test_float32_leaves_stay_float32():
    params = [(r(3, 4).astype(np.float32), r(4).astype(np.float32))]
    grads = s2sad.grad(mlp_loss)(params, X.astype(np.float32))
    assert grads[0][0].dtype == np.float32 and grads[0][1].dtype == np.float32


def test_a_jax_style_update_loop_lowers_the_loss():
    params = [(r(3, 8) * 0.5, np.zeros(8)), (r(8, 1) * 0.5, np.zeros(1))]
    first = mlp_loss(params, X)
    for _ in range(20):
        grads = s2sad.grad(mlp_loss)(params, X)
        params = [(W - 0.05 * dW, b - 0.05 * db) for (W, b), (dW, db) in zip(params, grads)]
    assert mlp_loss(params, X) < 0.5 * first


def test_vjp_and_value_and_grad_give_containers_too():
    params = {"W": r(3, 2), "b": r(2), "extra": {"c": 0.2}}
    value, grads = s2sad.value_and_grad(dict_loss)(params, X)
    assert np.isclose(value, dict_loss(params, X)) and type(grads) is dict
    _, pullback = s2sad.vjp(dict_loss, params, X)
    pulled = pullback(1.0)[0]
    assert type(pulled) is dict
    np.testing.assert_allclose(pulled["W"], grads["W"], rtol=1e-12)


def makes_a_pair(x):
    return Linear(x * 2.0, np.sum(x ** 2))


def test_a_namedtuple_output_has_a_namedtuple_tangent():
    x, t = r(3), r(3)
    _, tangent = s2sad.jvp(makes_a_pair, (x,), (t,))
    assert type(tangent) is Linear
    np.testing.assert_allclose(tangent.W, 2.0 * t, rtol=1e-12)
    np.testing.assert_allclose(tangent.b, np.sum(2.0 * x * t), rtol=1e-12)
