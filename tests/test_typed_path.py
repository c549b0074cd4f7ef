"""The rrule typed for one call's argument types (issue 19, item 2; analysis/array_types.py,
codegen/reverse.generate_typed): its gradients against central differences and hand-derived
formulas, the helpers it leaves out, and the dispatch: a call of any other type (float32,
complex, ints, 0-d, other shapes, broadcasting, subclasses) gets the general rrule's answer."""
import math

import numpy as np
import pytest

import s2sad
from s2sad.analysis.array_types import signature_of
from s2sad.transform import generated_source, generated_typed, typed_mode

from finite_differences import numerical_gradient


# ---------------------------------------------------------------------- the programs
def squashed(w):
    return np.sum(np.tanh(2.0 * w + 1.0) ** 2)


def squashed_by_hand(w):
    t = np.tanh(2.0 * w + 1.0)
    return 4.0 * t * (1.0 - t ** 2)


def recurrent(W, h, x):
    for step in range(6):
        z = W @ h             # (the pre-activation named: its cotangent is read once)
        h = np.tanh(z + x)
    return 0.5 * np.sum(h)


def recurrent_by_hand(W, h, x):
    states = [h]
    for _ in range(6):
        states.append(np.tanh(W @ states[-1] + x))
    grad_W, back = np.zeros_like(W), np.full_like(h, 0.5)
    for before, after in reversed(list(zip(states[:-1], states[1:]))):
        local = back * (1.0 - after * after)      # through tanh
        grad_W = grad_W + local[:, None] * before[None, :]
        back = local @ W                          # to the state before
    return grad_W


def layer(W, b, X, scale):
    z = X @ W + b            # b (n,) broadcast over the rows: its cotangent is summed
    return scale * np.mean(np.sin(z) ** 2) + np.sum(W * W) / 2.0


def layer_by_hand(W, b, X, scale):
    z = X @ W + b
    dz = scale * 2.0 * np.sin(z) * np.cos(z) / z.size
    return X.T @ dz + W, np.sum(dz, axis=0), np.mean(np.sin(z) ** 2)


def ratio(x, y):
    # y (1, n) stretched over x's rows, and a quotient's second cotangent: -g * ans / y
    return np.sum(x / y + np.exp(-x * y))


def ratio_by_hand(x, y):
    e = np.exp(-x * y)
    return 1.0 / y - y * e, np.sum(-x / y ** 2 - x * e, axis=0, keepdims=True)


def scaled_loop(x, k, n):
    total = 0.0
    for i in range(n):
        x = x * k + 1.0
        total = total + np.sum(x ** 2)
    return total


def _rng():
    return np.random.default_rng(19)


def _typed_source(f, wrt, args):
    signature = signature_of(args)
    assert generated_typed(f, wrt, signature) is not None, "no typed version was made"
    return generated_source(f, wrt, typed_mode(signature))


# ---------------------------------------------------------------------- the typed code
def test_small_typed_code_calls_no_helper_and_matches_the_hand_written_gradient():
    w = _rng().standard_normal(10)
    source = _typed_source(squashed, ("w",), (w,))
    pullback_code = source.split("def squashed_pullback")[1]
    for helper in ("unbroadcast(", "conj(", "accumulate("):
        assert helper not in pullback_code
    grad = s2sad.grad(squashed)
    for _ in range(3):  # the first call runs the typed rrule from _run, the later ones from grad's lane
        np.testing.assert_allclose(grad(w), squashed_by_hand(w), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(s2sad.grad(squashed)(w), numerical_gradient(squashed, (w,), 0), rtol=1e-6, atol=1e-8)


def test_rnn_typed_code_writes_the_products_and_matches_the_hand_written_gradient():
    rng = _rng()
    args = (0.3 * rng.standard_normal((5, 5)), rng.standard_normal(5), rng.standard_normal(5))
    source = _typed_source(recurrent, ("W",), args)
    assert "np.multiply.outer(" in source and "W.T @ " in source
    for helper in ("matmul_vjp_x1", "matmul_vjp_x2", "unbroadcast(", "accumulate(", "conj("):
        assert helper not in source.split("in reversed(")[1]  # the reverse loop: the helpers of 100 steps
    grad = s2sad.grad(recurrent)
    for _ in range(3):
        got = grad(*args)
        np.testing.assert_allclose(got, recurrent_by_hand(*args), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got, numerical_gradient(recurrent, args, 0), rtol=1e-6, atol=1e-8)


def test_broadcast_operands_keep_their_sums():
    """``X @ W + b``: b's cotangent is summed over the rows (its unbroadcast stays); W's is not."""
    rng = _rng()
    args = (rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((6, 3)), 1.5)
    source = _typed_source(layer, ("W", "b"), args)
    assert "unbroadcast(" in source and "conj(" not in source
    value_and_grad = s2sad.value_and_grad(layer, argnums=(0, 1))
    for _ in range(3):
        value, (dW, db) = value_and_grad(*args)
        hand_dW, hand_db, _ = layer_by_hand(*args)
        np.testing.assert_allclose(dW, hand_dW, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(db, hand_db, rtol=1e-12, atol=1e-14)
        assert db.shape == (4,) and db.dtype == np.float64
    assert math.isclose(value, layer(*args), rel_tol=1e-15)
    for argnum, got in ((0, dW), (1, db)):
        np.testing.assert_allclose(got, numerical_gradient(layer, args, argnum), rtol=1e-6, atol=1e-8)


def test_stretched_axis_and_quotient():
    rng = _rng()
    args = (rng.standard_normal((4, 3)), rng.uniform(0.5, 2.0, (1, 3)))
    _typed_source(ratio, ("x", "y"), args)
    grad = s2sad.grad(ratio, argnums=(0, 1))
    for _ in range(3):
        dx, dy = grad(*args)
    hand_dx, hand_dy = ratio_by_hand(*args)
    np.testing.assert_allclose(dx, hand_dx, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dy, hand_dy, rtol=1e-12, atol=1e-14)
    assert dy.shape == (1, 3)
    for argnum, got in ((0, dx), (1, dy)):
        np.testing.assert_allclose(got, numerical_gradient(ratio, args, argnum), rtol=1e-6, atol=1e-8)


def test_a_loop_with_a_float_and_an_int_argument():
    x = _rng().standard_normal(4)
    args = (x, 0.9, 5)
    _typed_source(scaled_loop, ("x", "k"), args)
    grad = s2sad.grad(scaled_loop, argnums=(0, 1))
    for _ in range(3):
        dx, dk = grad(*args)
    assert dk.__class__ is float
    np.testing.assert_allclose(dx, numerical_gradient(scaled_loop, args, 0), rtol=1e-6, atol=1e-8)
    assert math.isclose(dk, numerical_gradient(scaled_loop, args, 1), rel_tol=1e-6)
    # the same function with another trip count: the types do not depend on it
    dx, dk = grad(x, 0.9, 2)
    np.testing.assert_allclose(dx, numerical_gradient(scaled_loop, (x, 0.9, 2), 0), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------- no typed version
def test_no_typed_version_where_a_type_does_not_follow():
    def indexed(x):
        return np.sum(x[1:] * x[0])

    def reshaped(x):  # a carried value whose shape changes from one iteration to the next
        for i in range(2):
            x = np.outer(x, x).ravel()
        return np.sum(x)

    x = np.arange(1.0, 4.0)
    assert generated_typed(indexed, ("x",), signature_of((x,))) is None
    assert generated_typed(reshaped, ("x",), signature_of((x,))) is None
    np.testing.assert_allclose(s2sad.grad(indexed)(x), numerical_gradient(indexed, (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(s2sad.grad(reshaped)(x), numerical_gradient(reshaped, (x,), 0), rtol=1e-6)


@pytest.mark.parametrize("value", [np.ones(3, np.float32), np.ones(3) + 1j, np.arange(3), np.array(1.5),
                                   np.ones(3).view(np.recarray), np.ones(3).astype(">f8"), np.float64(1.5), True, None])
def test_arguments_of_other_types_have_no_signature(value):
    assert signature_of((np.ones(2), value)) is None


def test_a_signature_names_lengths_not_values():
    """Lengths of 1 are kept, equal lengths share a name: one typed version serves every size."""
    assert signature_of((np.ones((32, 32)), np.ones(32), np.ones((1, 32)), 2.0, 3)) == (
        ("array", ("n0", "n0")), ("array", ("n0",)), ("array", (1, "n0")), ("float",), ("int",))
    assert signature_of((np.ones((5, 5)), np.ones(5), np.ones((1, 5)), 2.0, 3)) == \
        signature_of((np.ones((32, 32)), np.ones(32), np.ones((1, 32)), 2.0, 3))
    assert signature_of((np.ones((5, 4)), np.ones(4))) != signature_of((np.ones((5, 5)), np.ones(5)))


# ---------------------------------------------------------------------- dispatch
def _general(f, argnums, args):
    """The general rrule's answer: a fresh grad whose first call takes these arguments
    (so its typed version, if any, is typed for them) compared below with central differences."""
    return s2sad.grad(f, argnums=argnums)(*args)


def test_dispatch_after_a_float64_call():
    """One grad, first called with float64 arrays (it makes the typed version), then with every
    other kind of argument: each call's gradient is its own, of its own dtype and shape."""
    grad = s2sad.grad(ratio, argnums=(0, 1))
    rng = _rng()
    x, y = rng.standard_normal((4, 3)), rng.uniform(0.5, 2.0, (1, 3))
    grad(x, y)
    assert generated_typed(ratio, ("x", "y"), signature_of((x, y))) is not None
    others = [
        (x.astype(np.float32), y.astype(np.float32)),          # float32: float32 gradients
        (x[:2], y),                                            # another shape of x
        (x, y[0]),                                             # y (3,): the same broadcast, another shape
        (x, np.full((4, 1), 1.5)),                             # y (4, 1): stretched over the other axis
        (x[0, 0], y),                                          # a NumPy float64 scalar x
        (np.array(x[0, 0]), y),                                # a 0-d x
        (float(x[0, 0]), float(y[0, 0])),                      # Python floats
        (np.asfortranarray(x), y),                             # another memory order: the typed one again
        (x.astype(np.float32), y),                             # mixed dtypes
        (x, y),                                                # and float64 again
    ]
    for args in others:
        got = grad(*args)
        for argnum, gradient in enumerate(got):
            expected = numerical_gradient(ratio, [np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a
                                                  for a in args], argnum)
            tolerance = 2e-3 if any(getattr(a, "dtype", None) == np.float32 for a in args) else 1e-6
            np.testing.assert_allclose(np.asarray(gradient, np.float64), expected, rtol=tolerance, atol=tolerance)
            assert np.shape(gradient) == np.shape(args[argnum])
            assert type(gradient) is type(_general(ratio, (0, 1), args)[argnum])
            if isinstance(args[argnum], np.ndarray):
                assert gradient.dtype == args[argnum].dtype


def test_dispatch_complex_and_int_arguments():
    def f(z, n):
        return np.sum(np.abs(z * 2.0 + 1.0) ** 2) * n

    grad = s2sad.grad(f)
    z = _rng().standard_normal(3)
    np.testing.assert_allclose(grad(z, 2), 2 * 2.0 * 2.0 * (2.0 * z + 1.0), rtol=1e-12)
    zc = z + 0.5j
    # s2sad's convention for a real f of z = x + iy: df/dx + 1j df/dy
    expected = 2 * 2.0 * 2.0 * (2.0 * zc + 1.0)
    np.testing.assert_allclose(grad(zc, 2), expected, rtol=1e-12)
    assert grad(zc, 2).dtype == np.complex128
    np.testing.assert_allclose(grad(z, 3), 3 * 2.0 * 2.0 * (2.0 * z + 1.0), rtol=1e-12)
    np.testing.assert_allclose(grad(z, 2.5), 2.5 * 2.0 * 2.0 * (2.0 * z + 1.0), rtol=1e-12)


def test_typed_rrule_refuses_other_calls():
    rng = _rng()
    args = (0.3 * rng.standard_normal((5, 5)), rng.standard_normal(5), rng.standard_normal(5))
    typed = generated_typed(recurrent, ("W",), signature_of(args))
    assert typed(*args) is not None
    W, h, x = args
    for other in [(W.astype(np.float32), h, x), (W[:4, :4], h, x), (W, h, x[:1]), (W + 0j, h, x),
                  (W.view(np.matrix), h, x), (W, h.reshape(5, 1), x), (W, 1.0, x), (W, h, np.array(1.0))]:
        assert typed(*other) is None
    # other lengths, equal where the signature's are: the same typed version, the right gradient
    smaller = (W[:4, :4], h[:4], x[:4])
    value, pullback = typed(*smaller)
    assert value == recurrent(*smaller)
    np.testing.assert_allclose(pullback(1.0)[1], recurrent_by_hand(*smaller), rtol=1e-12, atol=1e-14)


def test_a_redefined_function_gets_a_new_typed_version(tmp_path):
    path = tmp_path / "typed_redefined.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * 3.0)\n")
    namespace = {"__name__": "typed_redefined"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    f = namespace["f"]
    grad = s2sad.grad(f)
    x = np.linspace(0.0, 1.0, 5)
    for _ in range(2):
        np.testing.assert_allclose(grad(x), 3.0 * np.cos(x), rtol=1e-12)
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(np.sin(x) * 5.0)\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    f.__code__ = namespace["f"].__code__
    for _ in range(2):
        np.testing.assert_allclose(grad(x), 5.0 * np.cos(x), rtol=1e-12)


def test_typed_versions_are_cached_on_disk_and_load_without_the_front_end(tmp_path):
    """A typed version is an entry of its own in the disk cache: a new process finds it there and
    runs it without importing the front end (libcst), as it does the general rrule."""
    import os
    import subprocess
    import sys

    (tmp_path / "typedmodel.py").write_text("import numpy as np\n\n\ndef loss(W, h):\n"
                                            "    return np.sum(np.tanh(W @ h) ** 2)\n")
    script = ("import sys, numpy as np, s2sad, typedmodel\n"
              "W, h = np.arange(6.0).reshape(2, 3) / 10, np.array([1.0, -2.0, 0.5])\n"
              "t = np.tanh(W @ h)\n"
              "np.testing.assert_allclose(s2sad.grad(typedmodel.loss)(W, h), np.outer(2 * t * (1 - t ** 2), h), rtol=1e-12)\n"
              "print('libcst' in sys.modules)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    environment = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"),
                       PYTHONPATH=os.pathsep.join([str(tmp_path), root]))
    environment.pop("S2SAD_TYPED_VERSIONS", None)
    runs = [subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, timeout=300)
            for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert runs[0].stdout.strip() == "True" and runs[1].stdout.strip() == "False"
    names = sorted(p.name for p in (tmp_path / "cache").glob("s2sad_*.py"))
    assert len(names) == 2 and any(name.startswith("s2sad_loss_typed_") for name in names)


def test_the_switch_turns_typed_versions_off(monkeypatch):
    monkeypatch.setenv("S2SAD_TYPED_VERSIONS", "0")
    from s2sad.api import _typed

    assert _typed(squashed, (np.ones(3),), ("w",)) is None
    monkeypatch.setenv("S2SAD_TYPED_VERSIONS", "1")
    assert _typed(squashed, (np.ones(3),), ("w",)) is not None


# ---------------------------------------------------------------------- the analysis alone
def _types(f, args):
    from s2sad.analysis.array_types import variable_types
    from s2sad.frontend.normalize import normalize
    from s2sad.frontend.source import read_function

    return variable_types(normalize(read_function(f)), signature_of(args))


def test_types_follow_broadcasting_and_products():
    types = _types(layer, (np.ones((3, 4)), np.ones(4), np.ones((6, 3)), 1.5))
    assert types["X_matmul_W"] == ("array", ("n2", "n1"))     # X (6, 3) @ W (3, 4); n0 = 3
    assert types["z"] == ("array", ("n2", "n1"))              # + b (4,): broadcast over the rows
    assert types["scale"] == ("float",)
    assert [t for name, t in types.items() if name.startswith("mean")] == [("f64",)]


def test_a_variable_of_two_types_has_none_but_numbers_stay_real():
    types = _types(scaled_loop, (np.ones(4), 0.9, 5))
    assert types["total"] == ("scalar",)       # 0.0, then a float64
    assert types["x"] == ("array", ("n0",))    # the same shape at every iteration

    def grows(x):
        for i in range(2):
            x = np.outer(x, x)   # not a typed operation: no type, whatever the shapes
        return np.sum(x)

    def mismatched(a, b):
        return np.sum(a + b)     # (3,) + (4,) raises when it runs: no type

    assert _types(grows, (np.ones(3),))["x"] is None
    assert _types(mismatched, (np.ones(3), np.ones(4)))[
        [name for name in _types(mismatched, (np.ones(3), np.ones(4))) if name.startswith("a_add")][0]] is None


# ---------------------------------------------------------------------- random programs
UNARY = ["np.sin({})", "np.tanh({})", "np.cos({})", "({}) ** 2", "-({})", "np.exp(0.3 * np.tanh({}))",
         "np.log(1.5 + ({}) ** 2)", "2.5 * ({})", "({}) / 3.0", "np.sqrt(1.0 + ({}) ** 2)"]
BINARY = ["({}) + ({})", "({}) - ({})", "({}) * ({})", "({}) / (1.5 + ({}) ** 2)"]


def _random_program(rng, name):
    """A function of A (3, 4), b (4,), c (1, 4), M (4, 4) and a float s, built from the operations
    typed versions know (broadcasting among them, matrix products, whole sums and means, a loop)."""
    values, scalars = ["A", "b", "c", "s"], {"s"}
    lines = [f"def {name}(A, b, c, M, s):"]
    for k in range(int(rng.integers(3, 7))):
        choice = rng.random()
        if choice < 0.4:
            operands = [rng.choice(values)]
            expression = rng.choice(UNARY).format(*operands)
        elif choice < 0.8:
            operands = [rng.choice(values), rng.choice(values)]
            expression = rng.choice(BINARY).format(*operands)
        else:
            operands = [rng.choice([v for v in values if v not in scalars])]
            expression = f"{operands[0]} @ M"
        lines.append(f"    v{k} = {expression}")
        values.append(f"v{k}")
        if all(operand in scalars for operand in operands):
            scalars.add(f"v{k}")
    if rng.random() < 0.5:
        lines += ["    h = b", "    for step in range(3):", "        h = np.tanh(h @ M + 0.5 * b)", "        s = s * 0.9"]
        values.append("h")
    terms = [f"np.{rng.choice(['sum', 'mean'])}({v})" for v in rng.choice(values[4:], size=2)]
    lines.append(f"    return {terms[0]} + 0.5 * {terms[1]} + s * np.sum(b)")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(8))
def test_random_programs_against_central_differences_and_the_general_rrule(seed, tmp_path, monkeypatch):
    rng = np.random.default_rng(1000 + seed)
    names = [f"program_{seed}_{k}" for k in range(6)]
    path = tmp_path / f"typed_random_{seed}.py"
    path.write_text("import numpy as np\n\n\n" + "\n\n".join(_random_program(rng, name) for name in names))
    namespace = {"__name__": path.stem}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    args = (rng.standard_normal((3, 4)), rng.standard_normal(4), rng.standard_normal((1, 4)),
            0.3 * rng.standard_normal((4, 4)), float(rng.standard_normal()))
    typed = 0
    for name in names:
        f = namespace[name]
        typed += generated_typed(f, ("A", "b", "c", "M", "s"), signature_of(args)) is not None
        value, gradients = s2sad.value_and_grad(f, argnums=(0, 1, 2, 3, 4))(*args)
        monkeypatch.setenv("S2SAD_TYPED_VERSIONS", "0")
        general_value, general = s2sad.value_and_grad(f, argnums=(0, 1, 2, 3, 4))(*args)
        monkeypatch.delenv("S2SAD_TYPED_VERSIONS")
        assert value == general_value
        for position, (got, other) in enumerate(zip(gradients, general)):
            assert type(got) is type(other) and np.shape(got) == np.shape(args[position])
            np.testing.assert_allclose(got, other, rtol=1e-12, atol=1e-13, err_msg=f"{name}, argument {position}")
            np.testing.assert_allclose(got, numerical_gradient(f, args, position), rtol=1e-5, atol=1e-6,
                                       err_msg=f"{name}, argument {position}:\n{path.read_text()}")
    assert typed == len(names)  # every program here has a typed version
