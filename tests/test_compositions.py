"""Every transform composes with every other: each pair outer(inner), and the triples
jacfwd(jacrev(grad)) and grad(grad(grad)), on six functions, against central finite
differences in float64 of the plain NumPy function (nested, one level per derivative),
never against s2sad itself.

JAX's conventions, which the shapes are checked against (JAX need not be installed):
* ``grad(f)(x)`` is shaped like ``x`` (a dict for a dict); ``value_and_grad`` gives ``(f(x), grad)``.
* ``jacfwd(g)(x)`` and ``jacrev(g)(x)`` have shape ``out.shape + in.shape``; for containers the
  output's container is outermost, each of its leaves holding the input's container:
  ``jacrev(g)(p)[k_out][k_in].shape == g(p)[k_out].shape + p[k_in].shape``. So
  ``jacfwd(jacrev(f))(x)`` has shape ``out + in + in``.
* ``hessian(f)`` is ``jacfwd(jacrev(f))``: a dict of dicts for a dict argument.
* ``jvp(g, (x,), (v,))`` gives ``(g(x), tangent shaped like g(x))``; ``vjp(g, x)[1](c)`` gives a
  tuple with one cotangent per primal, shaped like it; ``hvp(f, (x,), (v,))`` is shaped like ``x``.
"""
import numpy as np
import pytest

import s2sad
from s2sad.containers import fields, leaves, with_leaves
from s2sad.registry import rule_for
from s2sad.runtime.methods import attribute_jvp
from s2sad.runtime.structure import tangent_append

# Nested central differences: truncation ~STEP**4, rounding ~1e-16 / STEP**depth; the step and
# the tolerance grow with the number of derivatives taken (the depth).
STEPS = {1: 1e-4, 2: 1e-3, 3: 2e-3, 4: 3e-3}
TOLERANCES = {1: (1e-5, 1e-7), 2: (2e-4, 2e-5), 3: (1e-3, 2e-4), 4: (5e-3, 2e-3)}
STEP = STEPS[2]


# ---------------------------------------------------------------- the functions
def scalar_f(x):
    return x ** 3 * np.sin(x)


def vector_f(x):
    return np.sum(np.cos(x) * x ** 2) + x[0] * x[1] ** 2


def matrix_f(A):
    return np.sum(np.tanh(A @ A)) + A[0, 1] ** 3


def loop_f(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(x * (i + 1)) * x)
    return s


def branch_f(x):
    if np.sum(x) > 0:
        return np.sum(x ** 3) * x[0]
    return np.sum(np.exp(x))


def container_f(p):
    return np.sum(p["w"] ** 2 * np.sin(p["b"])) + np.sum(p["b"] ** 3) * p["w"][0]


RNG = np.random.default_rng(17)
FUNCTIONS = {
    "scalar": (scalar_f, 0.7),
    "vector": (vector_f, np.array([0.3, -0.6, 0.9])),
    "matrix": (matrix_f, np.array([[0.2, -0.4], [0.5, 0.3]])),
    "loop": (loop_f, np.array([0.4, -0.2])),
    "branch": (branch_f, np.array([0.5, 0.8])),
    "container": (container_f, {"w": np.array([0.6, -0.3]), "b": np.array([0.2, 0.9])}),
}


# ---------------------------------------------------------------- references: finite differences only
def fd_jacobian(g, x):
    """The Jacobian of ``g`` at ``x`` by central differences, nested as JAX nests it: ``g(x)``'s
    container outermost, each leaf holding ``x``'s container of ``out.shape + in.shape`` arrays."""
    units = leaves(x)
    out = g(x)
    columns = []  # per input leaf: per element: the difference quotient, as leaves of g's output
    for j, unit in enumerate(units):
        per_element = []
        base = np.array(unit, dtype=float)
        for index in np.ndindex(base.shape):
            values = []
            for step in ((STEP, -STEP) if DEPTH > 3 else (STEP, STEP / 2, -STEP / 2, -STEP)):
                moved = base.copy()
                moved[index] += step
                value = float(moved) if np.ndim(unit) == 0 and not isinstance(unit, np.ndarray) else moved
                values.append([np.asarray(leaf, float) for leaf in
                               leaves(g(with_leaves(x, [value if i == j else u for i, u in enumerate(units)])))])
            if len(values) == 2:  # four derivatives deep: the cheaper three-point stencil, truncation ~STEP**2
                per_element.append([(a - b) / (2 * STEP) for a, b in zip(*values)])
            else:  # the five-point stencil: truncation ~STEP**4
                per_element.append([(8 * (b - c) - (a - d)) / (6 * STEP) for a, b, c, d in zip(*values)])
        columns.append(per_element)
    blocks = []
    for k, y in enumerate(leaves(out)):
        per_input = [np.stack([element[k] for element in columns[j]], axis=-1).reshape(np.shape(y) + np.shape(unit))
                     if np.size(unit) else np.zeros(np.shape(y) + np.shape(unit)) for j, unit in enumerate(units)]
        blocks.append(with_leaves(x, per_input))
    return with_leaves(out, blocks)


def fd_grad(f):
    return lambda x: _squeeze(fd_jacobian(f, x))


def _squeeze(tree):
    """A scalar output's Jacobian is the gradient: shaped like the input (floats stay floats)."""
    return with_leaves(tree, [float(leaf) if np.ndim(leaf) == 0 else leaf for leaf in leaves(tree)])


REFERENCES = {
    "grad": fd_grad,
    "value_and_grad": lambda f: (lambda x: (f(x), fd_grad(f)(x))),
    "jacfwd": lambda f: (lambda x: fd_jacobian(f, x)),
    "jacrev": lambda f: (lambda x: fd_jacobian(f, x)),
    "hessian": lambda f: (lambda x: fd_jacobian(fd_grad(f), x)),
}
INNER = {
    "grad": s2sad.grad,
    "value_and_grad": s2sad.value_and_grad,
    "jacfwd": s2sad.jacfwd,
    "jacrev": s2sad.jacrev,
    "hessian": s2sad.hessian,
}


def weights_like(tree, seed=0):
    rng = np.random.default_rng(seed)
    return with_leaves(tree, [rng.normal(size=np.shape(leaf)) if np.ndim(leaf) else float(rng.normal())
                              for leaf in leaves(tree)])


def dot(c, tree) -> float:
    return float(sum(np.sum(np.asarray(a) * np.asarray(b)) for a, b in zip(leaves(c), leaves(tree))))


def assert_tree_close(actual, expected, what, rtol=None, atol=None):
    """Same containers, same shapes and (up to the differences' error) the same numbers."""
    if rtol is None:
        rtol, atol = TOLERANCES[DEPTH]
    assert type(actual) is type(expected) or (np.ndim(expected) == 0 and np.ndim(actual) == 0 and fields(actual) is None), \
        f"{what}: {type(actual).__name__} where JAX gives {type(expected).__name__}"
    pairs = fields(expected)
    if pairs is None:
        assert np.shape(actual) == np.shape(expected), f"{what}: shape {np.shape(actual)}, JAX's is {np.shape(expected)}"
        np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float), rtol=rtol, atol=atol, err_msg=what)
        return
    actual_pairs = fields(actual)
    assert [k for k, _ in actual_pairs] == [k for k, _ in pairs], f"{what}: keys {actual_pairs} vs {pairs}"
    for (key, a), (_, e) in zip(actual_pairs, pairs):
        assert_tree_close(a, e, f"{what}[{key!r}]", rtol, atol)


# ---------------------------------------------------------------- the scalar a scalar-output transform differentiates
def weighed(g, c):
    """``x -> <c, g(x)>``, written out for each output structure the inner transforms give,
    so that s2sad differentiates it from its source."""
    if fields(c) is None:
        return lambda x: np.sum(c * g(x))
    if isinstance(c, tuple) and fields(c[1]) is None:  # value_and_grad of an array function
        def weighed_pair(x):
            value, gradient = g(x)
            return c[0] * value + np.sum(c[1] * gradient)
        return weighed_pair
    if isinstance(c, tuple):  # value_and_grad of the dict function
        def weighed_dict_pair(p):
            value, gradient = g(p)
            return c[0] * value + np.sum(c[1]["w"] * gradient["w"]) + np.sum(c[1]["b"] * gradient["b"])
        return weighed_dict_pair
    if fields(c["w"]) is None:  # a gradient or Jacobian of the dict function
        def weighed_dict(p):
            gradient = g(p)
            return np.sum(c["w"] * gradient["w"]) + np.sum(c["b"] * gradient["b"])
        return weighed_dict

    def weighed_dict_of_dicts(p):  # a Hessian of the dict function
        h = g(p)
        return (np.sum(c["w"]["w"] * h["w"]["w"]) + np.sum(c["w"]["b"] * h["w"]["b"])
                + np.sum(c["b"]["w"] * h["b"]["w"]) + np.sum(c["b"]["b"] * h["b"]["b"]))
    return weighed_dict_of_dicts


OUTER = ["grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "hvp"]
ORDER = {"hessian": 2, "hvp": 2}  # the others take one derivative
DEPTH = 2


def at_depth(depth: int) -> None:
    global STEP, DEPTH
    STEP, DEPTH = STEPS[depth], depth


@pytest.fixture(autouse=True)
def second_order_by_default():
    """Every test starts at depth 2 (a test that sets another must not set the next one's tolerance)."""
    at_depth(2)


def calling(transform: str, f, v):
    """``x -> s2sad.jvp(f, (x,), (v,))`` (or ``hvp``): a transform that gives values, called in a
    function s2sad differentiates."""
    if transform == "jvp":
        def calls_jvp(x):
            return s2sad.jvp(f, (x,), (v,))
        return calls_jvp

    def calls_hvp(x):
        return s2sad.hvp(f, (x,), (v,))
    return calls_hvp


def called_reference(transform: str, f, v):
    if transform == "jvp":
        return lambda x: (f(x), fd_jacobian(lambda s: f(_moved(x, v, s)), 0.0))
    return lambda x: fd_jacobian(lambda s: fd_grad(f)(_moved(x, v, s)), 0.0)


def check_pair(outer: str, inner: str, name: str):
    at_depth(ORDER.get(outer, 1) + ORDER.get(inner, 1))
    f, x = FUNCTIONS[name]
    if inner in ("jvp", "hvp"):
        direction = weights_like(x, seed=5)
        g, g_reference = calling(inner, f, direction), called_reference(inner, f, direction)
    else:
        g, g_reference = INNER[inner](f), REFERENCES[inner](f)
    c = weights_like(g_reference(x), seed=1)
    v = weights_like(x, seed=2)
    what = f"{outer}({inner}({name}_f))"
    if outer in ("jacfwd", "jacrev"):
        assert_tree_close(getattr(s2sad, outer)(g)(x), fd_jacobian(g_reference, x), what)
    elif outer == "jvp":
        y, tangent = s2sad.jvp(g, (x,), (v,))
        assert_tree_close(y, g_reference(x), what + " value")
        directional = fd_jacobian(lambda s: g_reference(_moved(x, v, s)), 0.0)
        assert_tree_close(tangent, directional, what)
    elif outer == "vjp":
        y, pullback = s2sad.vjp(g, x)
        (cotangent,) = pullback(c)
        assert_tree_close(cotangent, fd_grad(lambda z: dot(c, g_reference(z)))(x), what)
    else:
        s, s_reference = weighed(g, c), (lambda z: dot(c, g_reference(z)))
        if outer == "grad":
            assert_tree_close(s2sad.grad(s)(x), fd_grad(s_reference)(x), what)
        elif outer == "value_and_grad":
            value, gradient = s2sad.value_and_grad(s)(x)
            assert_tree_close(value, s_reference(x), what + " value")
            assert_tree_close(gradient, fd_grad(s_reference)(x), what)
        elif outer == "hessian":
            assert_tree_close(s2sad.hessian(s)(x), fd_jacobian(fd_grad(s_reference), x), what)
        else:
            product = s2sad.hvp(s, (x,), (v,))
            directional = fd_jacobian(lambda t: fd_grad(s_reference)(_moved(x, v, t)), 0.0)
            assert_tree_close(product, directional, what)


def _moved(x, v, s):
    return with_leaves(x, [a + s * b for a, b in zip(leaves(x), leaves(v))])


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("inner", list(INNER))
@pytest.mark.parametrize("outer", OUTER)
def test_pair(outer, inner, name):
    check_pair(outer, inner, name)


# s2sad.jvp and s2sad.hvp called in a differentiated function have a reverse and a forward rule, whose
# own derivatives are not made: a transform that differentiates forward code calling them in
# reverse (hessian, hvp) is refused, naming the call.
REFUSED_AROUND_CALLS = {"hessian", "hvp"}


@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("inner", ["jvp", "hvp"])
@pytest.mark.parametrize("outer", OUTER)
def test_pair_with_a_value_transform_inside(outer, inner, name):
    if outer in REFUSED_AROUND_CALLS:
        with pytest.raises(s2sad.S2SADError, match="third derivative through it|not supported yet"):
            check_pair(outer, inner, name)
        return
    check_pair(outer, inner, name)


def calls_vjp(x):
    y, pullback = s2sad.vjp(vector_f, x)
    return pullback(1.0)[0]


def test_vjp_called_in_a_differentiated_function_is_refused():
    """Its pullback is a function computed from the differentiated argument."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="s2sad.vjp inside a differentiated function"):
        s2sad.jacrev(calls_vjp)(np.array([0.3, -0.6, 0.9]))


# ---------------------------------------------------------------- triples
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_jacfwd_of_jacrev_of_grad(name):
    """Shape ``in + in + in`` (for a dict: a dict of dicts of dicts), the third derivatives."""
    at_depth(3)
    f, x = FUNCTIONS[name]
    actual = s2sad.jacfwd(s2sad.jacrev(s2sad.grad(f)))(x)
    assert_tree_close(actual, fd_jacobian(lambda z: fd_jacobian(fd_grad(f), z), x), f"jacfwd(jacrev(grad({name}_f)))")


def test_grad_of_grad_of_grad_of_a_scalar():
    at_depth(3)
    f, x = FUNCTIONS["scalar"]
    third = s2sad.grad(s2sad.grad(s2sad.grad(f)))
    assert_tree_close(third(x), fd_grad(fd_grad(fd_grad(f)))(x), "grad(grad(grad(scalar_f)))")


@pytest.mark.parametrize("name", [name for name in FUNCTIONS if name != "scalar"])
def test_grad_of_grad_of_grad_reduced_to_scalars(name):
    """JAX's spelling for arrays: each gradient reduced to a scalar before the next grad."""
    at_depth(3)
    f, x = FUNCTIONS[name]
    c1, c2 = weights_like(x, seed=3), weights_like(x, seed=4)
    g1 = s2sad.grad(f)
    g2 = s2sad.grad(weighed(g1, c1))
    g3 = s2sad.grad(weighed(g2, c2))
    r1 = fd_grad(f)
    r2 = fd_grad(lambda z: dot(c1, r1(z)))
    r3 = fd_grad(lambda z: dot(c2, r2(z)))
    assert_tree_close(g3(x), r3(x), f"grad(grad(grad({name}_f)))")


# ---------------------------------------------------------------- the crashes of issue 17, each a test
def test_jacfwd_of_jacrev_has_shape_out_in_in():
    def f(x):
        return np.sin(x) * x ** 2

    x = np.array([0.1, 0.5, 1.0])
    at_depth(2)
    actual = s2sad.jacfwd(s2sad.jacrev(f))(x)
    assert actual.shape == (3, 3, 3)
    assert_tree_close(actual, fd_jacobian(lambda z: fd_jacobian(f, z), x), "jacfwd(jacrev(f))")


def test_grad_of_a_function_summing_a_gradient():
    f, x = FUNCTIONS["vector"]
    at_depth(2)
    actual = s2sad.grad(lambda z: np.sum(s2sad.grad(f)(z)))(x)
    assert_tree_close(actual, fd_grad(lambda z: np.sum(fd_grad(f)(z)))(x), "grad(sum(grad(f)))")


def test_grad_of_grad_on_arrays_asks_for_a_scalar():
    """As in JAX: the inner gradient of an array is not a scalar to differentiate."""
    f, x = FUNCTIONS["vector"]
    with pytest.raises(s2sad.ArgumentError, match="scalar"):
        s2sad.grad(s2sad.grad(f))(x)


@pytest.mark.parametrize("kind", ["dict", "dataclass", "namedtuple"])
def test_hessian_of_a_container_nests_as_jax(kind):
    """``hessian(f)(p)[a][b]`` has shape ``p[a].shape + p[b].shape``."""
    import collections
    import dataclasses

    w, b = np.array([0.6, -0.3]), 0.4
    if kind == "dict":
        p, f = {"w": w, "b": b}, (lambda p: np.sum(p["w"] ** 3) * p["b"] + p["b"] ** 2)
        plain = lambda w, b: f({"w": w, "b": b})  # noqa: E731
    elif kind == "dataclass":
        Params = dataclasses.make_dataclass("Params", [("w", np.ndarray), ("b", float)])
        p, f = Params(w, b), (lambda p: np.sum(p.w ** 3) * p.b + p.b ** 2)
        plain = lambda w, b: f(Params(w, b))  # noqa: E731
    else:
        Params = collections.namedtuple("Params", "w b")
        p, f = Params(w, b), (lambda p: np.sum(p[0] ** 3) * p[1] + p[1] ** 2)
        plain = lambda w, b: f(Params(w, b))  # noqa: E731
    if kind == "dataclass" and rule_for(attribute_jvp) is None:
        pytest.skip("needs a reverse rule for attribute_jvp, what forward code reads p.w with (issue 17, first part)")
    at_depth(2)
    hessian = s2sad.hessian(f)(p)
    assert type(hessian) is type(p) and all(type(row) is type(p) for row in leaves_of(hessian))
    expected = {("w", "w"): fd_jacobian(fd_grad(lambda w_: plain(w_, b)), w),
                ("b", "b"): fd_grad(fd_grad(lambda b_: plain(w, b_)))(b),
                ("w", "b"): fd_jacobian(lambda b_: fd_grad(lambda w_: plain(w_, b_))(w), b),
                ("b", "w"): fd_jacobian(lambda w_: fd_grad(lambda b_: plain(w_, b_))(b), w)}
    for (row, column), block in expected.items():
        actual = field(field(hessian, row), column)
        assert np.shape(actual) == np.shape(locals()[row]) + np.shape(locals()[column])
        assert_tree_close(actual, block, f"hessian[{row}][{column}]")


def leaves_of(container):
    return [item for _, item in fields(container)]


def field(container, key):
    return dict(fields(container))[key]


def test_jacobians_of_a_dict_output_nest_as_jax():
    """``jacrev(f)(x)[k].shape == f(x)[k].shape + x.shape``: the output's container outermost."""
    def f(x):
        return {"a": np.sin(x) * x[0], "b": np.sum(x ** 2)}

    x = np.array([0.1, 0.5, 1.0])
    at_depth(1)
    for transform in (s2sad.jacrev, s2sad.jacfwd):
        actual = transform(f)(x)
        assert list(actual) == ["a", "b"] and actual["a"].shape == (3, 3) and actual["b"].shape == (3,)
        assert_tree_close(actual, fd_jacobian(f, x), transform.__name__)
    at_depth(2)
    assert_tree_close(s2sad.jacfwd(s2sad.jacrev(f))(x), fd_jacobian(lambda z: fd_jacobian(f, z), x), "jacfwd(jacrev(dict))")


def test_jacobians_of_a_dict_to_dict_function_nest_output_then_input():
    def f(p):
        return {"u": p["w"] * p["b"], "v": np.sum(p["w"] ** 2)}

    p = {"w": np.array([0.6, -0.3]), "b": np.array(0.4)}
    at_depth(1)
    for transform in (s2sad.jacrev, s2sad.jacfwd):
        actual = transform(f)(p)
        assert actual["u"]["w"].shape == (2, 2) and actual["u"]["b"].shape == (2,) and actual["v"]["w"].shape == (2,)
        assert_tree_close(actual, fd_jacobian(f, p), transform.__name__)


def test_vjp_and_jvp_of_grad():
    f, x = FUNCTIONS["loop"]
    v = np.array([0.3, -0.7])
    at_depth(2)
    hessian = fd_jacobian(fd_grad(f), x)
    y, pullback = s2sad.vjp(s2sad.grad(f), x)
    assert_tree_close(pullback(v)[0], hessian.T @ v, "vjp(grad(f))")
    y, tangent = s2sad.jvp(s2sad.grad(f), (x,), (v,))
    assert_tree_close(tangent, hessian @ v, "jvp(grad(f))")


def test_jacobian_of_jacobian_is_the_second_derivative():
    def f(x):
        return np.tanh(x) * np.sum(x)

    x = np.array([0.2, -0.5, 0.9])
    at_depth(2)
    assert_tree_close(s2sad.jacobian(s2sad.jacobian(f))(x), fd_jacobian(lambda z: fd_jacobian(f, z), x), "jacobian(jacobian)")


def test_hvp_through_list_append():
    def f(x):
        ys = []
        for i in range(3):
            ys.append(x[i] ** 2)
        return ys[0] * ys[1] + ys[2] * x[0]

    if rule_for(tangent_append) is None:
        pytest.skip("needs a reverse rule for tangent_append, what forward code appends a tangent with (issue 17, first part)")
    x, v = np.array([0.1, 0.5, 1.0]), np.array([1.0, -2.0, 0.5])
    at_depth(2)
    assert_tree_close(s2sad.hvp(f, (x,), (v,)), fd_jacobian(fd_grad(f), x) @ v, "hvp through list.append")


# ---------------------------------------------------------------- a user's reverse rule gives forward mode
def cube(x):
    return x ** 3


def triple_product(x, y):
    return x * y * y


def _triple_product_rrule(x, y):
    def triple_product_pullback(g):
        return s2sad.NO_TANGENT, g * y * y, 2 * g * x * y

    return x * y * y, triple_product_pullback


@pytest.fixture
def user_rules():
    """Reverse rules only, registered for one test (the complex audit lists every rule left registered)."""
    s2sad.defvjp(cube, "x", lambda g, ans, x: g * 3 * x ** 2)
    s2sad.defrrule(triple_product, _triple_product_rrule, signature="x, y")
    yield
    s2sad.unregister(cube)
    s2sad.unregister(triple_product)


def uses_user_rules(x):
    return np.sum(cube(x) * triple_product(x, np.sin(x)))


def test_a_users_reverse_rule_gives_forward_mode(user_rules):
    x, v = np.array([0.5, -1.0, 2.0]), np.array([0.2, 0.1, -0.4])
    at_depth(1)
    y, tangent = s2sad.jvp(cube, (x,), (v,))
    assert_tree_close(tangent, 3 * x ** 2 * v, "jvp of a defvjp rule")
    y, tangent = s2sad.jvp(uses_user_rules, (x,), (v,))
    assert_tree_close(tangent, fd_grad(uses_user_rules)(x) @ v, "jvp through defvjp and defrrule rules")
    assert_tree_close(s2sad.jacfwd(uses_user_rules)(x), fd_grad(uses_user_rules)(x), "jacfwd through user rules")


def uses_cube(x):
    return np.sum(cube(x) * 2.0)


def test_second_order_through_a_reverse_only_rule_is_refused(user_rules):
    x = np.array([0.5, -1.0, 2.0])
    with pytest.raises(s2sad.S2SADError, match="reverse rule only"):
        s2sad.hessian(uses_cube)(x)


# ---------------------------------------------------------------- what is refused, with s2sad errors
def test_a_transform_with_aux_is_not_differentiated_again():
    g = s2sad.grad(lambda x: (np.sum(x ** 2), 1.0), has_aux=True)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="has_aux"):
        s2sad.jacfwd(g)(np.ones(2))


def test_a_transform_of_a_function_of_star_args_with_a_rule_is_refused_when_differentiated_again():
    """np.einsum(*operands) has no fixed arity to differentiate again through: refused, saying so."""
    x = np.array([0.5, -1.0])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="cannot be differentiated again"):
        s2sad.jacfwd(s2sad.grad(np.einsum, argnums=1), argnums=1)("i,i->", x, x)


class Scaled:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(np.sin(self.w * x) * x)


def powered(x, p):
    return np.sum(np.exp(p * x) * x)


def fd_hessian(f, x, h=1e-4):
    """Central differences of central differences, one entry at a time."""
    x = np.asarray(x, dtype=float)
    H = np.zeros((x.size, x.size))
    for i in range(x.size):
        for j in range(x.size):
            def moved(a, b):
                y = x.copy().ravel()
                y[i] += a
                y[j] += b
                return f(y.reshape(x.shape))
            H[i, j] = (moved(h, h) - moved(h, -h) - moved(-h, h) + moved(-h, -h)) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


@pytest.mark.parametrize("name", ["np.prod", "np.linalg.det", "logsumexp", "np.linalg.norm", "np.sin-sum",
                                  "bound method", "partial"])
def test_hessian_of_a_function_without_source_of_its_own(name):
    """``hessian(np.prod)``, of a rule, a bound method or a partial, passed as they are (JAX users
    write ``hessian(jnp.linalg.det)``): differentiated again through a function s2sad writes
    that calls them."""
    from scipy.special import logsumexp
    import functools

    f = {"np.prod": np.prod, "np.linalg.det": np.linalg.det, "logsumexp": logsumexp,
         "np.linalg.norm": np.linalg.norm, "np.sin-sum": None,
         "bound method": Scaled(np.array([[1.0, 2.0], [0.5, 3.0]])).loss,
         "partial": functools.partial(powered, p=0.3)}[name]
    x = np.array([[1.5, 2.2], [2.9, 1.7]])
    if f is None:  # an elementwise rule: the Hessian of sum(sin) through grad(np.sin)'s Jacobian
        scalar = 0.7
        assert_tree_close(s2sad.jacfwd(s2sad.grad(np.sin))(scalar), -np.sin(scalar), "jacfwd(grad(np.sin))",
                          rtol=1e-12, atol=1e-14)
        assert_tree_close(s2sad.hessian(np.sin)(scalar), -np.sin(scalar), "hessian(np.sin)", rtol=1e-12, atol=1e-14)
        return
    expected = fd_hessian(f, x)  # truncation ~1e-8, rounding ~1e-16 / 1e-8: absolute ~1e-6 at most
    assert_tree_close(s2sad.hessian(f)(x), expected, f"hessian({name})", rtol=1e-5, atol=1e-6)
    v = np.array([[0.3, -1.1], [0.8, 0.2]])
    assert_tree_close(s2sad.hvp(f, (x,), (v,)), np.tensordot(expected, v, 2), f"hvp({name})", rtol=1e-5, atol=1e-6)


def test_a_transform_of_a_differentiated_transform_is_its_own():
    """``functools.wraps`` copies ``grad(f)``'s attributes onto ``jacrev(grad(f))``: what s2sad
    keeps on the first must not be taken for the second's (it was: a wrong third derivative)."""
    f, x = FUNCTIONS["scalar"]
    g = s2sad.grad(f)
    at_depth(3)
    expected = fd_grad(fd_grad(fd_grad(f)))(x)
    assert_tree_close(s2sad.hessian(g)(x), expected, "hessian(grad(f))")
    assert_tree_close(s2sad.jacfwd(s2sad.jacrev(g))(x), expected, "jacfwd(jacrev(grad(f))) after hessian(grad(f))")


def test_grad_of_grad_of_a_jacobian_goes_through_its_rule():
    """``grad(grad(jacrev(grad(h))))``: the fourth derivative, by the rules of each transform
    (not by the source of the function jacrev returned)."""
    def h(x):
        return x ** 4 * np.cos(x)

    x = 0.9
    second = s2sad.jacrev(s2sad.grad(h))
    at_depth(4)
    expected = fd_grad(fd_grad(fd_grad(fd_grad(h))))(x)
    assert_tree_close(s2sad.grad(s2sad.grad(second))(x), expected, "grad(grad(jacrev(grad(h))))")
    assert_tree_close(s2sad.grad(lambda t: s2sad.grad(second, argnums=(0,))(t)[0])(x), expected, "argnums=(0,)")


def complex_loss(z):
    return np.sum(np.abs(z) ** 2 * np.real(z) + np.sin(np.real(z * z)))


def fd_complex_grad(f, z, h=1e-5):
    """``dL/dRe z + i dL/dIm z`` of a real ``L`` by central differences: s2sad's convention."""
    g = np.zeros_like(z)
    for i in range(z.size):
        for unit in (1.0, 1j):
            e = np.zeros_like(z)
            e[i] = unit * h
            g[i] += unit * (f(z + e) - f(z - e)) / (2 * h)
    return g


def test_gradients_of_a_real_function_of_complex_arguments_compose():
    """grad of a real function of complex z, pushed forward (jvp, hvp), pulled back (vjp) and
    differentiated again (grad of a real function of it), against central differences."""
    rng = np.random.default_rng(17)
    z, t, c = (rng.standard_normal(3) + 1j * rng.standard_normal(3) for _ in range(3))
    gradient = s2sad.grad(complex_loss)
    reference = lambda w: fd_complex_grad(complex_loss, w, 1e-6)  # noqa: E731
    np.testing.assert_allclose(gradient(z), reference(z), rtol=1e-7, atol=1e-8)
    h = 1e-5
    along_t = (reference(z + h * t) - reference(z - h * t)) / (2 * h)
    np.testing.assert_allclose(s2sad.jvp(gradient, (z,), (t,))[1], along_t, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s2sad.hvp(complex_loss, (z,), (t,)), along_t, rtol=1e-4, atol=1e-5)
    paired = lambda w: np.real(np.sum(np.conj(c) * gradient(w)))  # noqa: E731  (what c pulls back)
    np.testing.assert_allclose(s2sad.vjp(gradient, z)[1](c)[0], fd_complex_grad(paired, z), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(s2sad.grad(paired)(z), fd_complex_grad(paired, z), rtol=1e-4, atol=1e-5)


def test_a_jacobian_of_a_composition_at_complex_arguments_as_jax():
    def f(z):
        return np.sum(np.abs(z) ** 2)

    z = np.array([1.0 + 2.0j, -0.5j])
    with pytest.raises(s2sad.ComplexDtypeError, match="jacrev of .* needs a real output"):
        s2sad.jacrev(s2sad.grad(f))(z)
    with pytest.raises(s2sad.ComplexDtypeError, match="jacfwd of .* needs real inputs"):  # without the flag, as JAX
        s2sad.jacfwd(s2sad.grad(f))(z)
    # with it: grad f = 2z (dL/dRe z + i dL/dIm z) is holomorphic, and its derivative is 2
    np.testing.assert_allclose(s2sad.jacfwd(s2sad.grad(f), holomorphic=True)(z), 2 * np.eye(2), rtol=1e-12)


def doubles_its_first_entry(x):
    x[0] = x[0] * 2.0
    return np.sum(x ** 3)


def test_a_composition_leaves_an_argument_changed_in_place_as_one_call_does():
    """The derivatives run generated code once per basis vector, on copies: the caller's array is
    changed as one call of the transform's function changes it, not once per run."""
    from s2sad.runtime.structure import tangent_setitem

    if rule_for(tangent_setitem) is None:
        pytest.skip("needs a reverse rule for tangent_setitem, what forward code writes an element's tangent with "
                    "(issue 17, first part)")
    x = np.array([0.5, 1.0, -0.3])
    x0 = x.copy()
    hessian = s2sad.jacfwd(s2sad.grad(doubles_its_first_entry))(x)
    np.testing.assert_allclose(hessian, np.diag([48 * x0[0], 6 * x0[1], 6 * x0[2]]), rtol=1e-12)
    changed = x0.copy()
    s2sad.grad(doubles_its_first_entry)(changed)
    np.testing.assert_array_equal(x, changed)


def doubles_its_first_entry_elementwise(x):
    x[0] = x[0] * 2.0
    return x ** 3


def test_jacfwd_leaves_an_argument_changed_in_place_once():
    """One jvp per element ran the function's write on the caller's array each time (x[0] went
    0.5 -> 4.0); now once, as jacrev and one call leave it."""
    for transform in (s2sad.jacfwd, s2sad.jacrev):
        x = np.array([0.5, 1.0, -0.3])
        jacobian = transform(doubles_its_first_entry_elementwise)(x)
        np.testing.assert_allclose(jacobian, np.diag([24 * 0.25, 3 * 1.0, 3 * 0.09]), rtol=1e-12)
        np.testing.assert_array_equal(x, [1.0, 1.0, -0.3])


def test_hvp_leaves_an_argument_changed_in_place_as_one_call_does():
    """hvp runs the forward code under vjp, on vjp's copies; the forward code's own write-back
    went to those copies and the caller's array was left as it was (the fuzzer's `np.multiply(x,
    0.5, out=x)`, session 14). Python's one call doubles x[0]; the Hessian is diag(48 x0, 6 x1, 6 x2)."""
    x = np.array([0.5, 1.0, -0.3])
    v = np.array([1.0, -2.0, 0.5])
    product = s2sad.hvp(doubles_its_first_entry, (x,), (v,))
    np.testing.assert_allclose(product, [48 * 0.5 * 1.0, 6 * 1.0 * -2.0, 6 * -0.3 * 0.5], rtol=1e-12)
    np.testing.assert_array_equal(x, [1.0, 1.0, -0.3])


def two_arguments(x, y, k=2.0):
    return np.sum(np.sin(x) * y ** 3) * k


def test_compositions_over_several_arguments():
    """Mixed derivatives: each transform's argnums picks its own argument; keywords pass through."""
    x, y = np.array([0.3, -0.4]), np.array([0.7, 1.1])
    at_depth(2)
    mixed = s2sad.jacfwd(s2sad.grad(two_arguments, argnums=0), argnums=1)(x, y)
    assert_tree_close(mixed, fd_jacobian(lambda b: fd_grad(lambda a: two_arguments(a, b))(x), y), "d/dy grad_x")
    blocks = s2sad.jacrev(s2sad.grad(two_arguments, argnums=1), argnums=(0, 1))(x, y)
    assert isinstance(blocks, tuple) and len(blocks) == 2
    assert_tree_close(blocks[0], fd_jacobian(lambda a: fd_grad(lambda b: two_arguments(a, b))(y), x), "d/dx grad_y")
    assert_tree_close(blocks[1], fd_jacobian(lambda b: fd_grad(lambda c: two_arguments(x, c))(b), y), "d/dy grad_y")
    both = s2sad.grad(two_arguments, argnums=(0, 1))
    actual = s2sad.jacfwd(lambda a, b: 2 * both(a, b, k=3.0)[0] + both(a, b, k=3.0)[1])(x, y)
    expected = fd_jacobian(lambda a: 2 * fd_grad(lambda c: two_arguments(c, y, 3.0))(a)
                           + fd_grad(lambda c: two_arguments(a, c, 3.0))(y), x)
    assert_tree_close(actual, expected, "jacfwd of a sum of gradients called with a keyword")


def test_a_negative_argnums_with_defaults_is_refused_when_differentiated_again():
    """``-1`` names ``k`` when every parameter is passed, ``y`` in a call that leaves ``k`` out."""
    x, y = np.array([0.3, -0.4]), np.array([0.7, 1.1])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="negative argnums"):
        s2sad.jacfwd(s2sad.grad(two_arguments, argnums=-1))(x, y)


def squared_through_a_helper(x):
    return sine_times(x) ** 2


def sine_times(x):
    return np.sin(x) * x


def test_second_derivatives_through_a_helper_by_reverse_over_forward():
    """Reverse mode over forward code that calls the helper's generated jvp: ``grad(grad(f))`` of
    a scalar goes that way too, as nested forward mode has no rule for that call yet; a third
    derivative needs it (README, Limitations)."""
    at_depth(2)
    expected = fd_grad(fd_grad(squared_through_a_helper))(0.7)
    assert_tree_close(s2sad.grad(lambda x: s2sad.grad(squared_through_a_helper)(x))(0.7), expected, "grad(lambda: grad)")
    assert_tree_close(s2sad.hessian(squared_through_a_helper)(0.7), expected, "hessian")
    assert_tree_close(s2sad.grad(s2sad.grad(squared_through_a_helper))(0.7), expected, "grad(grad)")
    with pytest.raises(s2sad.S2SADError, match="forward rule"):
        s2sad.grad(s2sad.grad(s2sad.grad(squared_through_a_helper)))(0.7)


def custom_square(x):
    return x * x


def custom_cube(x):
    return x ** 3


@pytest.fixture
def custom_rules():
    """custom_square and custom_cube as custom_vjp and custom_jvp functions while a test runs
    (made here, not at import: the complex audit lists every rule registered when it runs)."""
    plain = {"custom_square": custom_square, "custom_cube": custom_cube}
    square, cube = s2sad.custom_vjp(custom_square), s2sad.custom_jvp(custom_cube)
    square.defvjp(lambda x: (square(x), x), lambda x, g: (2 * x * g,))
    cube.defjvp(lambda p, t: (cube(p[0]), 3 * p[0] ** 2 * t[0]))
    globals().update(custom_square=square, custom_cube=cube)
    yield
    globals().update(plain)
    s2sad.unregister(square)
    s2sad.unregister(cube)


def sums_custom_square(x):
    return np.sum(custom_square(x))


def sums_custom_cube(x):
    return np.sum(custom_cube(x))


@pytest.mark.parametrize("loss, kind, gradient", [(sums_custom_square, "custom_vjp", lambda x: 2 * x),
                                                  (sums_custom_cube, "custom_jvp", lambda x: 3 * x ** 2)])
def test_second_order_through_a_custom_rule_is_refused_saying_why(custom_rules, loss, kind, gradient):
    """docs/rule-authors.md's table: first order through the user's rule, second order refused
    with an s2sad error naming the function and its kind (it said "no rule ... register one")."""
    x = np.array([0.5, 2.0])
    np.testing.assert_allclose(s2sad.grad(loss)(x), gradient(x))
    with pytest.raises(s2sad.S2SADError, match=f"second derivative .* a {kind} function"):
        s2sad.hessian(loss)(x)


# ---------------------------------------------------------------- second order through calls made through values
def four_way(a, b, c, d):
    return a * b + c * d


def cubed_plus_sine(z):
    return z ** 3 + np.sin(z)


def predicts(x, activation=np.tanh):
    return activation(x * 2.0)


def through_a_default_function(x):
    return np.sum(predicts(x, cubed_plus_sine))


def through_star_arguments(x, extra):
    args = (x, 2.0) + (x,)          # a join written by the user, then `*` at the call
    middle = (2.0, x)
    return np.sum(np.sin(four_way(*args, extra))) + np.sum(four_way(x, *middle, extra) ** 2)


def mixed_hvp_by_differences(f, primals, directions, h=1e-3):
    """Central differences (step h along the direction) of the gradient by central differences."""
    def gradient(point):
        out = []
        for k, leaf in enumerate(point):
            leaf = np.asarray(leaf, dtype=float)
            g = np.zeros_like(leaf)
            for i in range(leaf.size):
                e = np.zeros_like(leaf)
                e.flat[i] = 1e-4
                up, down = list(point), list(point)
                up[k], down[k] = leaf + e, leaf - e
                g.flat[i] = (f(*up) - f(*down)) / 2e-4
            out.append(g if np.ndim(point[k]) else float(g))
        return out
    ahead = gradient([p + h * d for p, d in zip(primals, directions)])
    behind = gradient([p - h * d for p, d in zip(primals, directions)])
    return [(a - b) / (2 * h) for a, b in zip(ahead, behind)]


@pytest.mark.parametrize("f, primals, directions", [
    (through_a_default_function, (np.array([0.3, 0.9]),), (np.array([1.0, -0.5]),)),
    (through_star_arguments, (np.array([0.3, 0.9]), 1.7), (np.array([1.0, -0.5]), 0.3)),
], ids=["default function argument", "star arguments"])
def test_hvp_through_a_function_called_through_a_value(f, primals, directions):
    """Forward code calls these through ``packed_jvp``/``method_jvp`` (the callee is a value): its
    reverse is the reverse of the callee's own forward code (it was refused), and a join of two
    tuple variables in forward code is ``concat`` (it was read again as numbers added)."""
    got = s2sad.hvp(f, primals, directions)
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, mixed_hvp_by_differences(f, primals, directions)):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


def variable_power(u):
    return np.sum((1.5 + u) ** u)


def variable_power_of_floats(u):
    return (1.5 + u) ** u


@pytest.mark.parametrize("f, u, v", [(variable_power, np.array([0.0, 1.1]), np.array([1.0, 0.5])),
                                     (variable_power_of_floats, 0.0, 1.0)], ids=["array", "float"])
def test_second_derivative_of_a_power_at_a_zero_exponent(f, u, v):
    """d2/du2 (1.5 + u) ** u at u = 0 is log(1.5)**2 + 2/1.5 (found by the fuzzer's second-order
    check: the jvp's guard at a zero exponent made its derivative in the exponent 0, giving
    log(1.5)**2 + 1/1.5)."""
    b = 1.5 + np.asarray(u)
    first = b ** u * (np.log(b) + u / b)
    second = first * (np.log(b) + u / b) + b ** u * (2 / b - u / b ** 2)  # by hand
    np.testing.assert_allclose(s2sad.hvp(f, (u,), (v,)), second * v, rtol=1e-12)


# ---------------------------------------------------------------- found by the fuzzer's second-order check
def pops_items(x):
    xs = [x, np.sin(x), x ** 2]
    last = xs.pop()
    first = xs.pop(0)
    return np.sum(last * first * xs[0])


def extends_a_list(x):
    xs = [x * 2.0]
    xs.extend([np.cos(x), x ** 3])
    xs.extend((x, 1.0))
    return np.sum(xs[0] * xs[1] + xs[2] * xs[3] * xs[4])


def calls_a_lambda_holding_a_variable(x):
    scale = np.sin(np.sum(x))
    functions = [np.tanh, lambda v: v * scale]
    total = 0.0
    for function in functions:
        total = total + np.sum(function(x) ** 2)
    return total


def reads_with_an_ellipsis(x):
    picked = np.array([[1.0, 0.5, 0.5], [0.25, 1.0, 2.0]])[..., 0]
    return np.sum(picked) * np.sum(x ** 3)


def loops_over_pairs_with_a_constant(x):
    pairs = [(np.ones((2, 3)), x[:, None]), (2, np.zeros(2))]
    total = np.array([1.0, 0.5])
    for _, b in pairs:
        total = total + b * x
    return np.sum(np.sin(total))


@pytest.mark.parametrize("f", [pops_items, extends_a_list, calls_a_lambda_holding_a_variable, reads_with_an_ellipsis,
                               loops_over_pairs_with_a_constant])
def test_hvp_through_what_forward_code_writes(f):
    """Forward code pops and extends lists of tangents, holds a lambda's variables, writes ``...``
    as ``Ellipsis`` and keeps ZERO as a constant item's tangent: read again for a Hessian, each
    was refused or crashed; now against nested central differences."""
    x, v = np.array([0.3, -0.7]), np.array([1.0, 0.4])
    got = s2sad.hvp(f, (x,), (v,))
    (expected,) = mixed_hvp_by_differences(f, (x,), (v,))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def identity(x):
    return x


def forwards_everything(*args, **kwargs):
    return identity(*args, **kwargs)


def picks_the_second(h0, h1):
    return h0[1]


def through_a_star_forwarder(x):
    return np.sum(forwards_everything(x[[0, 2, 2]]) ** 2) + np.sum(forwards_everything(x * 1.5) ** 3)


def through_a_helper_given_a_reduction(x):
    picked = picks_the_second(np.sum(x[:, None] * np.array([0.5, 1.0, 1.5]), axis=0), x)
    return picked * picked


@pytest.mark.parametrize("f", [through_a_star_forwarder, through_a_helper_given_a_reduction])
def test_hvp_through_calls_forward_code_makes(f):
    """A helper called in forward code, differentiated again: its tangents' cotangents came back in
    the parameters' order, a ``*args`` tuple's whole (a wrong structure, then a crash), and as
    thunks the caller's code read as plain values (a crash in expand_reduced). Fuzzer, seed 1803."""
    x, v = np.array([0.3, -0.7, 0.4]), np.array([1.0, 0.4, -0.2])
    got = s2sad.hvp(f, (x,), (v,))
    (expected,) = mixed_hvp_by_differences(f, (x,), (v,))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def shifted(x, by=1.0, scale=2.0):
    return np.sin(x * scale) + by * x


def passes_differentiated_keywords(x):
    s = np.sum(x ** 2)
    return np.sum(shifted(x, by=s) ** 2) + np.sum(shifted(x, scale=s) * x)


def test_hvp_through_a_helper_given_differentiated_values_by_keyword():
    """``helper(x, by=s)`` with ``s`` differentiated: forward code calls the helper's forward code
    with ``by=s``, whose reverse now gives the keyword's cotangent (it was refused: "is given a
    differentiated value by keyword", 36 of 2,000 fuzz programs)."""
    x, v = np.array([0.3, -0.7]), np.array([1.0, 0.4])
    got = s2sad.hvp(passes_differentiated_keywords, (x,), (v,))
    (expected,) = mixed_hvp_by_differences(passes_differentiated_keywords, (x,), (v,))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def entropy_of_a_shifted_square(x):
    from scipy import special
    return np.sum(special.entr(1.5 + np.sin(x) ** 2))


def test_second_derivative_through_a_guarded_slope_where_the_tangent_passes_through_zero():
    """entr's forward rule is ``times(t, slope)`` (0 where the tangent is 0, even at an infinite
    slope). Its reverse gave 0 in ``t`` wherever ``t`` was 0, so at x = 0, where the tangent of
    1.5 + sin(x)**2 is 0 but its derivative is not, the Hessian was 0 (by hand: -2(log 1.5 + 1))."""
    x, v = np.array([0.0, 0.4]), np.array([1.0, 1.0])
    u, du, ddu = 1.5 + np.sin(x) ** 2, np.sin(2 * x), 2 * np.cos(2 * x)
    expected = (-du ** 2 / u - (np.log(u) + 1) * ddu) * v  # entr'' = -1/u, entr' = -(log u + 1)
    np.testing.assert_allclose(s2sad.hvp(entropy_of_a_shifted_square, (x,), (v,)), expected, rtol=1e-12)


class Box:
    pass


def assigns_attributes(x):
    b = Box()
    b.a = np.sin(x)
    b.c = x ** 2
    b.a = b.a * b.c
    return np.sum(b.a + b.c)


def test_hvp_through_attribute_assignment():
    """``b.a = v`` on an object the function made: forward code moves tangents into and out of
    the object's tangent (with_attribute's jvps); read again for a Hessian their source (a dict
    keyed by a variable) was refused inside rules/python_objects.py (fuzzer, seed 1903)."""
    x, v = np.array([0.3, -0.7]), np.array([1.0, 0.4])
    got = s2sad.hvp(assigns_attributes, (x,), (v,))
    (expected,) = mixed_hvp_by_differences(assigns_attributes, (x,), (v,))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
