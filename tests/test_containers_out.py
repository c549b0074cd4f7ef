"""Gradients come back in the user's own containers (issue 16): a dict for a dict, a list of
tuples for a list of tuples, the namedtuple or dataclass for a namedtuple or dataclass, nested,
with zeros where nothing flowed; each leaf checked against central finite differences."""
import collections
import dataclasses

import numpy as np

import s2sad
from s2sad.containers import leaves, with_leaves
from s2sad.runtime.tangents import Tangent
from s2sad.testing import check_grad
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


# ---------------------------------------------------------------------- every kind, both ways
def leafwise_gradient(scalar, container):
    """The finite-difference gradient of ``scalar(container)`` in each float leaf, in ``container``'s own
    container (None for the other leaves)."""
    units = leaves(container)

    def along(j):
        def at(v):
            return scalar(with_leaves(container, [v if i == j else u for i, u in enumerate(units)]))
        return numerical_gradient(at, [units[j]], 0)
    return with_leaves(container, [along(j) if isinstance(u, (float, np.ndarray)) else None
                                   for j, u in enumerate(units)])


def assert_same_tree(actual, expected, rtol=1e-5, atol=1e-7):
    assert type(actual) is type(expected), (type(actual), type(expected))
    if isinstance(expected, dict):
        assert list(actual) == list(expected)
    for a, e in zip(leaves(actual), leaves(expected)):
        if e is None:
            assert a is None
        else:
            assert type(a) is type(e) or isinstance(a, np.ndarray), (type(a), type(e))
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


@dataclasses.dataclass
class Bag:
    weights: list
    gain: float


def mixed_loss(p):
    """Reads a tuple, a namedtuple, a dict of dicts, a dataclass holding a list; skips some leaves."""
    pair, layer, nested, bag = p
    total = np.sum(np.sin(pair[0]) * pair[1]) + np.sum(layer.W @ layer.b)
    total = total + nested["outer"]["inner"] ** 3 + np.sum(nested["outer"]["array"] ** 2)
    for w in bag.weights:
        total = total + bag.gain * np.sum(np.cos(w))
    return total


def mixed_params():
    return (
        (r(3), 0.7),
        Linear(r(2, 3), r(3)),
        {"outer": {"inner": 0.4, "array": r(2), "count": 3}, "unused": r(2), "tag": "t"},
        Bag([r(2), r(3)], 1.3),
    )


def test_every_container_kind_nested_matches_finite_differences():
    params = mixed_params()
    grads = s2sad.grad(mixed_loss)(params)
    expected = leafwise_gradient(mixed_loss, params)
    assert type(grads[0]) is tuple and type(grads[1]) is Linear and type(grads[3]) is Bag
    assert type(grads[3].weights) is list and type(grads[2]["outer"]) is dict
    assert grads[2]["outer"]["count"] is None and grads[2]["tag"] is None
    np.testing.assert_array_equal(grads[2]["unused"], np.zeros(2))
    assert_same_tree(grads, expected)


def test_value_and_grad_and_the_decorator_give_the_same_containers():
    params = mixed_params()
    value, grads = s2sad.value_and_grad(mixed_loss)(params)
    assert np.isclose(value, mixed_loss(params))
    decorated = s2sad.differentiate(mixed_loss)
    assert_same_tree(decorated.grad(params), grads, rtol=1e-12, atol=0)
    assert_same_tree(grads, leafwise_gradient(mixed_loss, params))


def test_missing_gradients_are_zeros_of_each_fields_dtype():
    params = {"used": r(3).astype(np.float32), "unused": r(2).astype(np.float32), "scalar": np.float32(2.0),
              "plain": 1.5}
    grads = s2sad.grad(lambda_free_loss)(params)
    assert grads["unused"].dtype == np.float32 and not grads["unused"].any()
    assert type(grads["scalar"]) is np.float32 and grads["scalar"] == 0
    assert type(grads["plain"]) is float and grads["plain"] == 0.0
    assert grads["used"].dtype == np.float32
    np.testing.assert_allclose(grads["used"], np.cos(params["used"]), rtol=1e-6)


def lambda_free_loss(p):
    return np.sum(np.sin(p["used"]))


def test_a_dict_subclass_comes_back_as_itself():
    params = collections.OrderedDict([("b", r(2)), ("W", r(3, 2))])
    grads = s2sad.grad(dict_loss_without_extra)(params, X)
    assert type(grads) is collections.OrderedDict and list(grads) == ["b", "W"]
    assert_same_tree(grads, leafwise_gradient(lambda p: dict_loss_without_extra(p, X), params))


def dict_loss_without_extra(p, x):
    return np.sum((x @ p["W"] + p["b"]) ** 2)


class Plain:
    def __init__(self, w):
        self.w = w


def plain_loss(obj):
    return np.sum(obj.w ** 2)


def test_a_plain_object_keeps_its_tangent():
    obj = Plain(r(3))
    grads = s2sad.grad(plain_loss)(obj)
    assert type(grads) is Tangent
    np.testing.assert_allclose(grads.w, 2 * obj.w, rtol=1e-12)


# ---------------------------------------------------------------------- cotangents and tangents given in containers
def dict_out(p):
    return {"scaled": p["W"] * p["c"], "total": np.sum(np.exp(p["W"]))}


def record_out(bag):
    return Bag([w * bag.gain for w in bag.weights], np.sum(bag.weights[0]) * bag.gain)


def test_vjp_takes_a_dict_cotangent_for_a_dict_output():
    p = {"W": r(3), "c": 0.8}
    ct = {"scaled": r(3), "total": 0.6}
    _, pullback = s2sad.vjp(dict_out, p)
    (grads,) = pullback(ct)
    expected = leafwise_gradient(lambda q: np.sum(ct["scaled"] * dict_out(q)["scaled"]) + ct["total"] * dict_out(q)["total"], p)
    assert_same_tree(grads, expected)
    (grads,) = pullback({"scaled": None, "total": 0.6})  # None: no cotangent for that output
    expected = leafwise_gradient(lambda q: 0.6 * dict_out(q)["total"], p)
    assert_same_tree(grads, expected)


def test_vjp_takes_a_dataclass_cotangent_for_a_dataclass_output():
    bag = Bag([r(2), r(3)], 1.1)
    ct = Bag([r(2), r(3)], 0.5)
    _, pullback = s2sad.vjp(record_out, bag)
    (grads,) = pullback(ct)

    def projected(b):
        out = record_out(b)
        return sum(np.sum(c * o) for c, o in zip(ct.weights, out.weights)) + ct.gain * out.gain
    assert_same_tree(grads, leafwise_gradient(projected, bag))


def test_vjp_takes_a_namedtuple_cotangent():
    q = Linear(r(2), 0.3)
    _, pullback = s2sad.vjp(makes_a_pair_of, q)
    (grads,) = pullback(Linear(np.ones(2), None))
    assert type(grads) is Linear
    assert_same_tree(grads, leafwise_gradient(lambda v: np.sum(makes_a_pair_of(v).W), q))


def makes_a_pair_of(q):
    return Linear(np.sin(q.W) * q.b, np.sum(q.W) * q.b)


def test_jvp_takes_container_tangents_none_for_zero():
    p = {"W": r(3), "c": 0.8}
    t = {"W": r(3), "c": None}
    _, tangent = s2sad.jvp(dict_out, (p,), (t,))
    assert type(tangent) is dict and list(tangent) == ["scaled", "total"]
    eps = 1e-6
    ahead = dict_out({"W": p["W"] + eps * t["W"], "c": p["c"]})
    behind = dict_out({"W": p["W"] - eps * t["W"], "c": p["c"]})
    for key in ("scaled", "total"):
        np.testing.assert_allclose(tangent[key], (ahead[key] - behind[key]) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_jvp_of_a_dataclass_gives_a_dataclass():
    bag, t = Bag([r(2), r(3)], 1.1), Bag([r(2), r(3)], 0.4)
    _, tangent = s2sad.jvp(record_out, (bag,), (t,))
    assert type(tangent) is Bag and type(tangent.weights) is list
    eps = 1e-6
    ahead = record_out(Bag([w + eps * d for w, d in zip(bag.weights, t.weights)], bag.gain + eps * t.gain))
    behind = record_out(Bag([w - eps * d for w, d in zip(bag.weights, t.weights)], bag.gain - eps * t.gain))
    for got, a, b in zip(leaves(tangent), leaves(ahead), leaves(behind)):
        np.testing.assert_allclose(got, (a - b) / (2 * eps), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------- Jacobians
def vector_of(p):
    return np.array([np.sum(p["W"] ** 2) * p["c"], np.sum(np.sin(p["W"]))])


def test_jacobians_of_a_dict_argument_are_dicts_of_jacobians():
    p = {"W": r(3), "c": 0.8, "n": 2}
    expected = {"W": np.stack([2 * p["W"] * p["c"], np.cos(p["W"])]),
                "c": np.array([np.sum(p["W"] ** 2), 0.0]), "n": None}
    for transform in (s2sad.jacrev, s2sad.jacfwd):
        jacobian = transform(vector_of)(p)
        assert type(jacobian) is dict and list(jacobian) == ["W", "c", "n"] and jacobian["n"] is None
        assert jacobian["W"].shape == (2, 3) and jacobian["c"].shape == (2,)
        np.testing.assert_allclose(jacobian["W"], expected["W"], rtol=1e-12)
        np.testing.assert_allclose(jacobian["c"], expected["c"], rtol=1e-12)


def test_jacobian_of_a_container_output_and_hessian_of_a_container_nest_as_jax():
    """The output's container outermost, each leaf holding the input's (tests/test_compositions.py
    checks every composition so); the derivatives here by hand."""
    W, c = r(3), 0.8
    for transform in (s2sad.jacrev, s2sad.jacfwd):
        jacobian = transform(dict_out)({"W": W, "c": c})
        np.testing.assert_allclose(jacobian["scaled"]["W"], c * np.eye(3), rtol=1e-12)
        np.testing.assert_allclose(jacobian["scaled"]["c"], W, rtol=1e-12)
        np.testing.assert_allclose(jacobian["total"]["W"], np.exp(W), rtol=1e-12)
        np.testing.assert_allclose(jacobian["total"]["c"], 0.0)
    used = r(3)
    hessian = s2sad.hessian(lambda_free_loss)({"used": used})
    np.testing.assert_allclose(hessian["used"]["used"], np.diag(-np.sin(used)), rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------- the helpers and the rule-author API
def test_check_grad_accepts_namedtuples_and_dataclasses():
    grads = check_grad(mixed_loss, mixed_params())
    assert type(grads[3]) is Bag
    bag = Bag([r(2), r(3)], 1.1)
    grads = check_grad(record_out_vector, bag)  # a non-scalar output: through s2sad.rrule
    assert type(grads) is Bag


def record_out_vector(bag):
    return np.concatenate(record_out(bag).weights)


def test_rrule_keeps_structural_tangents_for_rule_authors():
    p = {"W": r(3), "c": 0.8}
    _, pullback = s2sad.rrule(lambda_free_loss, {"used": p["W"]})
    _, grads = pullback(1.0)
    assert type(grads) is Tangent and grads.primal_type is dict
    np.testing.assert_allclose(grads["used"], np.cos(p["W"]), rtol=1e-12)
