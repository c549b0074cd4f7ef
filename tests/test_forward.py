"""Forward mode and the derivatives built from both modes.

jvp against central finite differences on every program the reverse-mode tests use (so
control flow, loops, helper calls and containers run forward too), Jacobians both ways,
Hessians against finite differences of the gradient, and derivatives of derivatives
against closed forms.
"""
import numpy as np
import pytest

import forward_programs as programs
import s2sad
from s2sad.transform import transform
from test_control_flow import CASES as CONTROL_FLOW
from test_loops import CASES as LOOPS
from zoo import PROGRAMS as ZOO

rng = np.random.default_rng(21)


def _random_tangent(x):
    if isinstance(x, float):
        return float(rng.standard_normal())
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return rng.standard_normal(x.shape).astype(x.dtype)
    if isinstance(x, list):
        return [_random_tangent(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_random_tangent(v) for v in x)
    return None


def _step(x, t, h):
    if t is None:
        return x
    if isinstance(x, list):
        return [_step(v, d, h) for v, d in zip(x, t)]
    if isinstance(x, tuple):
        return tuple(_step(v, d, h) for v, d in zip(x, t))
    return x + h * t


def _finite_jvp(f, args, tangents, h=1e-6):
    up = f(*[_step(a, t, h) for a, t in zip(args, tangents)])
    down = f(*[_step(a, t, -h) for a, t in zip(args, tangents)])
    return (np.asarray(up, dtype=float) - np.asarray(down, dtype=float)) / (2 * h)


def _cases():
    cases = []
    for name, (function, args, argnums) in sorted(ZOO.items()):
        cases.append((f"zoo-{name}", function, list(args), argnums))
    for name, (function, args, argnums) in sorted(LOOPS.items()):
        cases.append((f"loops-{name}", function, list(args), argnums))
    for name, (function, arglists, argnums) in sorted(CONTROL_FLOW.items()):
        for i, args in enumerate(arglists):
            cases.append((f"control-{name}-{i}", function, list(args), argnums))
    return cases


CASES = _cases()


@pytest.mark.parametrize("name, function, args, argnums", CASES, ids=[c[0] for c in CASES])
def test_jvp_matches_finite_differences(name, function, args, argnums):
    tangents = [_random_tangent(a) if i in argnums else None for i, a in enumerate(args)]
    value, tangent = s2sad.jvp(function, args, [t if t is not None else _zero(a) for a, t in zip(args, tangents)])
    np.testing.assert_allclose(np.asarray(value), np.asarray(function(*args)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(tangent, dtype=float), _finite_jvp(function, args, tangents),
                               rtol=1e-5, atol=1e-6, err_msg=name)


def _zero(x):
    if isinstance(x, float):
        return 0.0
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return np.zeros_like(x)
    if isinstance(x, list):
        return [_zero(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_zero(v) for v in x)
    if isinstance(x, dict):
        return {k: _zero(v) for k, v in x.items()}
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool) or isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        return 0 * x  # (an int as its own tangent would move it: refused)
    return x


@pytest.mark.parametrize("name, function, args, argnums", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_jvp_and_vjp_agree(name, function, args, argnums):
    """<u, J v> computed forwards equals <J^T u, v> computed backwards."""
    position = argnums[0]
    if not isinstance(args[position], (float, np.ndarray)):
        pytest.skip("a container argument")
    v = _random_tangent(args[position])
    tangents = [_zero(a) for a in args]
    tangents[position] = v
    value, forward = s2sad.jvp(function, args, tangents)
    u = _random_tangent(np.asarray(value, dtype=float)) if np.ndim(value) else 1.0
    _, pullback = s2sad.vjp(function, *args)
    backward = pullback(u if np.ndim(value) else type(value)(u) if isinstance(value, float) else u)[position]
    np.testing.assert_allclose(np.sum(np.asarray(u) * np.asarray(forward)), np.sum(np.asarray(backward) * np.asarray(v)),
                               rtol=1e-8, atol=1e-10)


def _finite_hessian(f, args, argnum, h=1e-5):
    x = np.asarray(args[argnum], dtype=float)
    columns = []
    for index in range(x.size):
        e = np.zeros(x.size)
        e[index] = h
        e = e.reshape(x.shape)
        up, down = list(args), list(args)
        up[argnum], down[argnum] = x + e, x - e
        g_up = s2sad.grad(f, argnums=argnum)(*up)
        g_down = s2sad.grad(f, argnums=argnum)(*down)
        columns.append((np.asarray(g_up) - np.asarray(g_down)) / (2 * h))
    return np.stack(columns, axis=-1).reshape(x.shape + x.shape)


def test_hessian_of_a_logistic_regression_loss():
    w, X, y = rng.standard_normal(3), rng.standard_normal((20, 3)), (rng.random(20) > 0.5).astype(float)
    H = s2sad.hessian(programs.logistic_loss)(w, X, y)
    np.testing.assert_allclose(H, _finite_hessian(programs.logistic_loss, [w, X, y], 0), rtol=1e-5, atol=1e-7)
    p = 1 / (1 + np.exp(-(X @ w)))
    np.testing.assert_allclose(H, X.T @ (X * (p * (1 - p))[:, None]) / 20 + 0.02 * np.eye(3), rtol=1e-10)


def test_hessian_of_an_mlp_loss_in_both_weights():
    W1, W2 = 0.5 * rng.standard_normal((3, 4)), 0.5 * rng.standard_normal((4, 2))
    X, y = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    H = s2sad.hessian(programs.mlp_loss, argnums=(0, 1))(W1, W2, X, y)
    np.testing.assert_allclose(H[0][0], _finite_hessian(programs.mlp_loss, [W1, W2, X, y], 0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H[1][1], _finite_hessian(programs.mlp_loss, [W1, W2, X, y], 1), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H[0][1], np.moveaxis(H[1][0], (0, 1), (2, 3)), rtol=1e-10, atol=1e-12)  # symmetric


def test_hessian_of_a_loop_program():
    x = rng.standard_normal(5)
    H = s2sad.hessian(programs.loop_energy)(x)
    np.testing.assert_allclose(H, _finite_hessian(programs.loop_energy, [x], 0), rtol=1e-5, atol=1e-7)


def test_third_derivative_of_a_scalar_function():
    f = programs.polynomial_and_sine
    for x in (0.3, -1.2):
        assert s2sad.grad(f)(x) == pytest.approx(4 * x ** 3 - 6 * x + 2 * np.cos(2 * x), rel=1e-12)
        assert s2sad.grad(s2sad.grad(f))(x) == pytest.approx(12 * x ** 2 - 6 - 4 * np.sin(2 * x), rel=1e-12)
        assert s2sad.grad(s2sad.grad(s2sad.grad(f)))(x) == pytest.approx(24 * x - 8 * np.cos(2 * x), rel=1e-12)


def test_jacobian_of_a_vector_function_both_ways():
    r_theta = np.array([1.5, 0.4])
    J_forward = s2sad.jacfwd(programs.polar_to_cartesian)(r_theta)
    J_reverse = s2sad.jacrev(programs.polar_to_cartesian)(r_theta)
    r, theta = r_theta
    expected = np.array([[np.cos(theta), -r * np.sin(theta)], [np.sin(theta), r * np.cos(theta)], [2 * r, 0.0]])
    np.testing.assert_allclose(J_forward, expected, rtol=1e-12)
    np.testing.assert_allclose(J_reverse, expected, rtol=1e-12)
    assert s2sad.jacobian is s2sad.jacrev


def test_hvp_of_an_mlp_loss_is_a_small_multiple_of_a_gradient():
    W1, W2 = 0.5 * rng.standard_normal((3, 4)), 0.5 * rng.standard_normal((4, 2))
    X, y = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    V1 = rng.standard_normal(W1.shape)
    hv = s2sad.hvp(programs.mlp_loss, (W1, W2, X, y), (V1, np.zeros_like(W2), np.zeros_like(X), np.zeros_like(y)))
    H = s2sad.hessian(programs.mlp_loss, argnums=(0, 1))(W1, W2, X, y)
    np.testing.assert_allclose(hv[0], np.tensordot(H[0][0], V1, axes=2), rtol=1e-9, atol=1e-12)


def test_the_generated_pushforward_reads_like_the_source():
    import sources

    source = transform(sources.affine_tanh, ("W", "b"), "forward").source
    assert """\
    W_matmul_x = W @ x
    dW_matmul_x = dW @ x
    z = W_matmul_x + b
    dz = dW_matmul_x + db
""" in source
    assert "    return result, dresult\n" in source


def test_jvp_of_a_differentiated_function_and_a_rule():
    y, t = s2sad.jvp(np.sin, (0.5,), (2.0,))
    assert t == pytest.approx(2 * np.cos(0.5))
    decorated = s2sad.differentiate(programs.polynomial_and_sine)
    assert decorated.jvp((0.3,), (1.0,))[1] == pytest.approx(4 * 0.3 ** 3 - 1.8 + 2 * np.cos(0.6))


# ---------------------------------------------------------------- tangents that are zero on some paths
# Forward code never hands a rule the symbolic ZERO: each function below has a tangent that is
# ZERO when the code runs (a constant on the path taken, an item of a tuple holding a constant,
# what a helper returns), and must still match central differences in float64.

def _constant_helper(h):
    return np.array([1.0, -0.5, 2.0])


def _constant_pair(h):
    return np.array([0.5, 1.5, -1.0]), 2.0 * h


def while_and(s):
    k = 0
    while k < 3 and s > 0.1:
        k = k + 1
        s = s * np.sin(s) + 0.05
    return s


def while_or(x):
    k = 0
    while k < 1 or np.sum(x * x) > 0.5:
        k = k + 1
        x = 0.5 * np.tanh(x)
    return np.sum(x ** 2)


def while_nested_and_or(x):
    total = 0.0
    j = 0
    while (j < 2 and np.sum(x) > -10.0) or j == 0:
        k = 0
        while k < 2 and (np.max(x) < 5.0 or k == 0):
            total = total + np.sum(np.sin(x * (k + 1)))
            k = k + 1
        x = x * 1.5
        j = j + 1
    return total * np.sum(x)


def carried_then_constant(x):
    h = x * 2.0
    total = 0.0
    for i in range(3):
        total = total + np.sum(np.tanh(h))   # from the second iteration on, h is the helper's constant
        h = _constant_helper(h)
    return total + np.sum(x * h)


def carried_overwritten_by_a_constant(x):
    h = x
    for i in range(2):
        h = np.ones(3)
    return np.sum(h * x)


def tuple_items(x):
    p = (np.array([1.0, 2.0, 3.0]), x)
    a, b = p
    total = np.sum(np.exp(p[0])) + np.sum(np.exp(p[1]))
    for t in p:
        total = total + np.sum(np.cos(t))
    return total + np.sum(a * b)


def helper_tuple_item(x):
    c, d = _constant_pair(x)
    return np.sum(np.tanh(c) * d) + np.trace(np.outer(c, d))


def constant_branch_broadcast(x):
    v = np.array([0.5, 1.0, 1.5]) if np.sum(x) > 0.0 else x
    return np.sum(((v - np.sum(x)) @ v) * x)


def list_with_a_constant(x):
    ys = [np.ones(3)]
    ys.append(x)
    ys.append(2.0)
    total = 0.0
    for y in ys:
        total = total + np.sum(np.sin(y))
    ys[0] = x * x
    return total + np.sum(np.cos(ys[0])) + np.sum(ys[2] * x)


def dict_with_a_constant(x):
    d = {"a": np.array([1.0, 2.0, 3.0]), "b": x}
    return np.sum(np.exp(d["a"] * d["b"])) + np.sum(np.exp(d["a"]))


ZERO_TANGENT_CASES = {
    "while-and": (while_and, (0.7,)),
    "while-or": (while_or, (np.array([0.9, -0.8, 0.6]),)),
    "while-nested-and-or": (while_nested_and_or, (np.array([0.3, -0.2, 0.4]),)),
    "carried-then-constant": (carried_then_constant, (np.array([0.3, -0.2, 0.4]),)),
    "carried-overwritten-by-a-constant": (carried_overwritten_by_a_constant, (np.array([0.3, -0.2, 0.4]),)),
    "tuple-items": (tuple_items, (np.array([0.3, -0.2, 0.4]),)),
    "helper-tuple-item": (helper_tuple_item, (np.array([0.3, -0.2, 0.4]),)),
    "constant-branch-broadcast": (constant_branch_broadcast, (np.array([0.3, 0.2, 0.4]),)),
    "list-with-a-constant": (list_with_a_constant, (np.array([0.3, -0.2, 0.4]),)),
    "dict-with-a-constant": (dict_with_a_constant, (np.array([0.3, -0.2, 0.4]),)),
}

# forward code that changes a list calls tangent_append, which has no reverse rule yet
WITHOUT_HVP = {"list-with-a-constant"}


@pytest.mark.parametrize("name", sorted(ZERO_TANGENT_CASES))
def test_zero_tangents_on_some_paths(name):
    function, args = ZERO_TANGENT_CASES[name]
    x = args[0]
    v = _random_tangent(x)
    value, tangent = s2sad.jvp(function, args, (v,))
    assert value == pytest.approx(function(*args), rel=1e-12)
    np.testing.assert_allclose(tangent, _finite_jvp(function, list(args), [v]), rtol=1e-6, atol=1e-8, err_msg=name)
    gradient = s2sad.grad(function)
    np.testing.assert_allclose(s2sad.jacfwd(function)(*args), gradient(*args), rtol=1e-10, atol=1e-12)
    if name in WITHOUT_HVP:
        return
    expected = (np.asarray(gradient(x + 1e-5 * v)) - np.asarray(gradient(x - 1e-5 * v))) / 2e-5
    np.testing.assert_allclose(s2sad.hvp(function, args, (v,)), expected, rtol=1e-5, atol=1e-7, err_msg=name)


def test_a_constant_item_of_a_tuple_gets_no_tangent_code():
    source = transform(tuple_items, ("x",), "forward").source
    assert "dp = (ZERO, dx)" in source
    assert "da = " not in source and "dp_0" not in source      # known to be zero where the tuple is built
    assert "dt = tangent_item(dp, t_index)" in source           # a loop over it: each item may be ZERO
    assert "(np.sum(dcos_t) if dcos_t is not ZERO else ZERO)" in source


def test_hessian_of_a_function_linear_or_constant_in_its_argument_is_zeros():
    x = np.array([0.3, -0.2, 0.4])
    for function in (linear_in_x, constant_in_x):
        H = s2sad.hessian(function)(x)
        assert isinstance(H, np.ndarray) and H.shape == (3, 3) and not H.any()
        hv = s2sad.hvp(function, (x,), (np.ones(3),))
        assert isinstance(hv, np.ndarray) and hv.shape == (3,) and not hv.any()


def linear_in_x(x):
    return 2.0 * np.sum(x)


def constant_in_x(x):
    return 3.0


@pytest.mark.parametrize("function, x", [
    (programs.sum_of_a_list_with_a_constant, 0.7),
    (programs.mean_of_rows_with_a_constant_row, np.array([0.1, -0.4, 1.3])),
    (programs.max_of_a_tuple_with_a_constant, np.array([0.1, -0.4, 1.3])),
])
def test_a_sequence_with_a_constant_item_read_by_numpy(function, x):
    """NumPy reads the list as an array: the constant's tangent (ZERO) goes in as zeros, and
    the reverse pass reads the list's dtype as NumPy would."""
    t = _random_tangent(x)
    _, tangent = s2sad.jvp(function, (x,), (t,))
    np.testing.assert_allclose(tangent, _finite_jvp(function, [x], [t]), rtol=1e-6, atol=1e-8)
    if np.ndim(function(x)) == 0:
        gradient = s2sad.grad(function)(x)
        np.testing.assert_allclose(np.sum(gradient * t), _finite_jvp(function, [x], [t]), rtol=1e-6, atol=1e-8)


HVP_OF_CONTAINERS_WITH_CONSTANTS = {   # name -> (program, why its hvp fails, for the open ones)
    "tuple": (programs.helper_given_a_tuple_with_a_constant, None),
    "list-stacked": (programs.helper_stacking_a_list_with_a_constant, None),
    "positional": (programs.helper_given_a_constant_positional, None),
    "dict": (programs.helper_given_a_dict_with_a_constant, None),
}


@pytest.mark.parametrize("name", sorted(HVP_OF_CONTAINERS_WITH_CONSTANTS))
def test_a_helper_given_a_container_with_a_constant(name):
    """jvp and grad against finite differences."""
    function, _ = HVP_OF_CONTAINERS_WITH_CONSTANTS[name]
    x, v = np.array([0.1, 0.2, 0.3]), np.array([1.0, -0.5, 0.25])
    expected = _finite_jvp(function, [x], [v])
    np.testing.assert_allclose(s2sad.jvp(function, (x,), (v,))[1], expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2sad.grad(function)(x) @ v, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [])
    for name, (_, reason) in sorted(HVP_OF_CONTAINERS_WITH_CONSTANTS.items())])
def test_hvp_of_a_helper_given_a_container_with_a_constant(name):
    """A helper's jvp is handed zeros for a container's constant items (not ZERO, which its
    own reverse pass could not read). The reference differences s2sad's gradient, which
    test_a_helper_given_a_container_with_a_constant checks against finite differences."""
    function, _ = HVP_OF_CONTAINERS_WITH_CONSTANTS[name]
    x, v = np.array([0.1, 0.2, 0.3]), np.array([1.0, -0.5, 0.25])
    gradient = s2sad.grad(function)
    expected = (gradient(x + 1e-5 * v) - gradient(x - 1e-5 * v)) / 2e-5
    np.testing.assert_allclose(s2sad.hvp(function, (x,), (v,)), expected, rtol=1e-5, atol=1e-7)


def test_jvp_of_a_rule_whose_operands_are_collected_pairs_each_tangent_with_its_operand():
    # np.einsum(subscripts, *operands): the tangents of both operands reach the rule (the second was dropped)
    x, y = np.array([0.3, 1.2, -0.5]), np.array([1.0, 2.0, 3.0])
    tx, ty = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25, -0.5])
    value, tangent = s2sad.jvp(np.einsum, ("i,i->", x, y), (None, tx, ty))
    assert value == pytest.approx(x @ y)
    assert tangent == pytest.approx(tx @ y + x @ ty)  # the product rule, by hand
