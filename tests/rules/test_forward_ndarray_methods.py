"""Forward rules of the methods and properties of rules/ndarray_methods.py: reshape,
transpose, T, mT, flatten, copy, astype, item (and the methods sharing a NumPy function's
rule, which share its forward rule); memory layouts, numpy scalars, float32 and complex
receivers; coverage of every method the module registers."""
import numpy as np
import pytest

import s2sad  # noqa: F401
from s2sad import registry
from s2sad.forward_check import check_frule
from s2sad.registry.forward import forward_method_rule, forward_rule
from s2sad.rules.ndarray_methods import METHODS
from s2sad.runtime.tangents import ZERO
from test_forward_numpy_elementwise import registrations

rng = np.random.default_rng(9)


def normal(*shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def push(x, name, tangent, *args, **kwargs):
    """The tangent of ``x.name(*args, **kwargs)`` (of the property ``x.name`` if ``name`` is one)."""
    forward = forward_method_rule(type(x), name)
    attribute = getattr(x, name)
    ans = attribute(*args, **kwargs) if callable(attribute) else attribute
    return forward.pushforward((x, *args), kwargs, {next(iter(forward.signature.parameters)): tangent}, ans), ans


RECEIVERS = {
    "array": lambda: normal(2, 3),
    "float32": lambda: normal(2, 3, dtype=np.float32),
    "complex": lambda: normal(2, 3) + 1j * normal(2, 3),
    "fortran": lambda: np.asfortranarray(normal(2, 3)),
    "strided": lambda: normal(4, 6)[::-2, ::2],
}
CALLS = [
    ("reshape", (3, 2), {}), ("reshape", ((6,),), {}), ("reshape", (-1,), {"order": "F"}),
    ("reshape", (3, 2), {"order": "A"}), ("transpose", (), {}), ("transpose", (1, 0), {}),
    ("transpose", ((1, 0),), {}), ("flatten", (), {}), ("flatten", ("F",), {}), ("flatten", (), {"order": "A"}),
    ("flatten", (), {"order": "K"}), ("copy", (), {}), ("copy", ("F",), {}), ("astype", (np.float64,), {}),
    ("astype", (np.complex128,), {}), ("item", (1,), {}), ("item", (1, 2), {}),
]


@pytest.mark.parametrize("receiver", RECEIVERS)
@pytest.mark.parametrize("name, args, kwargs", CALLS, ids=[f"{n}{a}{k}" for n, a, k in CALLS])
def test_methods(name, args, kwargs, receiver):
    x = RECEIVERS[receiver]()
    if receiver == "complex" and name == "astype" and args[0] is np.float64:
        return  # a complex receiver cast to a real dtype: tested in test_astype
    if receiver in ("fortran", "strided") and kwargs.get("order") in ("A", "K"):
        return  # the finite differences of check_frule change the layout: tested in test_layouts
    (t,) = check_frule(None, x, *args, method=name, **kwargs)[:1]
    if name == "item":
        assert type(t) is type(x.item(*args))


@pytest.mark.parametrize("name, args", [("reshape", (6,)), ("flatten", ()), ("copy", ())])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("layout", ["C", "F", "transposed", "reversed", "strided", "reversed fortran"])
def test_layouts(name, args, order, layout):
    """'A' and 'K' read the receiver's memory layout: the tangent is ordered by the receiver's,
    whatever layout the tangent has (here C: the values of x in another layout give x's output)."""
    if name == "reshape" and order == "K":
        return  # reshape has no 'K'
    x = normal(4, 6)
    x = {"C": x, "F": np.asfortranarray(x), "transposed": x.T, "reversed": x[::-1], "strided": x[::2, ::-3],
         "reversed fortran": np.asfortranarray(x)[:, ::-1]}[layout]
    args = (x.size,) if name == "reshape" else args
    (t, ans) = push(x, name, np.ascontiguousarray(x), *args, order=order)
    np.testing.assert_array_equal(t, ans)


def test_properties():
    for x in (normal(2, 3), normal(3, 2, 4, dtype=np.float32), normal(2, 2) + 1j * normal(2, 2)):
        g = np.ones_like(x) * rng.standard_normal(x.shape).astype(x.dtype)
        (t, ans) = push(x, "T", g)
        np.testing.assert_array_equal(t, g.T)
        assert t.dtype == ans.dtype
        (t, ans) = push(x, "mT", g)
        np.testing.assert_array_equal(t, np.swapaxes(g, -1, -2))
        assert t.dtype == ans.dtype and t.shape == ans.shape
        (t, ans) = push(x.T, "flat", g.T)  # C order of the receiver, whatever its memory order
        np.testing.assert_array_equal(t, np.ravel(g.T))
        assert t.dtype == x.dtype and t.shape == (x.size,)
    z, gz = normal(3) + 1j * normal(3), normal(3) + 1j * normal(3)
    np.testing.assert_array_equal(push(z, "real", gz)[0], gz.real)
    np.testing.assert_array_equal(push(z, "imag", gz)[0], gz.imag)
    (t, _) = push(normal(3, dtype=np.float32), "imag", normal(3, dtype=np.float32))
    assert t.dtype == np.float32 and not t.any()  # a real array's imaginary part is constant


def test_numpy_scalar_receivers():
    x = np.float64(1.5)
    check_frule(None, x, 1, 1, method="reshape")
    check_frule(None, x, method="flatten")
    (t,) = check_frule(None, x, method="item")
    assert type(t) is float
    (t, _) = push(np.float64(1.5), "astype", np.float64(2.0), np.float32)
    assert type(t) is np.float32 and t == 2.0
    (t, _) = push(np.float32(1.5), "copy", np.float32(2.0))
    assert type(t) is np.float32
    (t, _) = push(np.float64(1.5), "T", np.float64(2.0))
    assert t == 2.0


def test_astype():
    x = normal(2, 3)
    (t, ans) = push(x, "astype", np.ones((2, 3)), np.float32)
    assert t.dtype == ans.dtype == np.float32
    (t, ans) = push(x, "astype", np.ones((2, 3)), np.int64)
    assert t is ZERO  # an int has no tangent
    g = np.ones((2, 3))
    assert push(x, "astype", g, np.float64, copy=False)[0] is g  # no copy of x, no copy of its tangent
    assert push(x, "astype", g, np.float64)[0] is not g
    z = normal(3) + 1j * normal(3)
    gz = normal(3) + 1j * normal(3)
    (t, ans) = push(z, "astype", gz, np.float64)  # the real part (numpy warns)
    np.testing.assert_array_equal(t, gz.real)
    (t, ans) = push(normal(3, dtype=np.float32), "astype", normal(3, dtype=np.float32), np.complex128)
    assert t.dtype == np.complex128
    check_frule(None, normal(3, dtype=np.float32), np.float64, method="astype")


def test_copy_is_a_copy():
    x, g = normal(2, 3), normal(2, 3)
    (t, _) = push(x, "copy", g)
    assert t is not g and not np.shares_memory(t, g)
    np.testing.assert_array_equal(t, g)


def test_item():
    x = normal(2, 3)
    (t, _) = push(x, "item", np.arange(6.0).reshape(2, 3), 4)
    assert t == 4.0 and type(t) is float
    (t, _) = push(x, "item", np.arange(6.0).reshape(2, 3), 1, 0)
    assert t == 3.0
    (t, _) = push(np.array([[2.5]]), "item", np.array([[1.5]]))
    assert t == 1.5
    (t,) = check_frule(None, normal(2, 2) + 1j, 3, method="item")[:1]
    assert type(t) is complex


SHARED = {  # a call of each method that shares a NumPy function's rule
    "sum": ((), {"axis": 0}), "mean": ((), {}), "prod": ((1,), {}), "max": ((), {"axis": 1}), "min": ((), {}),
    "std": ((), {}), "var": ((0,), {}), "cumsum": ((), {"axis": 1}), "cumprod": ((), {}),
    "dot": ((np.ones((3, 2)),), {}), "clip": ((-0.5, 0.5), {}), "squeeze": ((), {}), "swapaxes": ((0, 1), {}),
    "trace": ((), {}), "diagonal": ((), {}), "repeat": ((2,), {"axis": 0}), "ravel": ((), {}),
    "conj": ((), {}), "conjugate": ((), {}),
}


@pytest.mark.parametrize("name", SHARED)
def test_methods_sharing_a_function_rule_share_its_forward_rule(name):
    function = METHODS[name]
    assert forward_method_rule(np.ndarray, name) is forward_rule(function)
    if hasattr(np.generic, name):
        assert forward_method_rule(np.float64, name) is forward_rule(function)
    if forward_rule(function) is None:
        pytest.skip(f"{function.__name__} has no forward rule yet (its module's)")
    args, kwargs = SHARED[name]
    check_frule(None, normal(2, 3) + 0.1, *args, method=name, **kwargs)
    check_frule(None, normal(2, 3) + 1j * normal(2, 3), *args, method=name, **kwargs)


def test_every_method_rule_has_a_forward_rule():
    _, methods = registrations("s2sad.rules.ndarray_methods")
    assert (np.ndarray, "reshape") in methods and (np.generic, "T") in methods
    everything = registry.all_method_rules()
    for owner, name in methods:
        rule = everything[(owner, name)]
        assert forward_method_rule(owner, name) is forward_rule(rule.function)
    own = [(owner, name) for owner, name in methods
           if getattr(everything[(owner, name)].function, "__module__", "") == "s2sad.rules.ndarray_methods"]
    assert len(own) >= 15  # reshape ... item, on ndarray and (but mT) on numpy scalars
    missing = [f"{owner.__name__}.{name}" for owner, name in own if forward_method_rule(owner, name) is None]
    assert missing == []
    shared = [f"{owner.__name__}.{name}" for owner, name in methods if forward_method_rule(owner, name) is None]
    assert shared == [], f"methods whose NumPy function has no forward rule yet: {shared}"
