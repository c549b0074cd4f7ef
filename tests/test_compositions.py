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


def check_pair(outer: str, inner: str, name: str):
    at_depth(ORDER.get(outer, 1) + ORDER.get(inner, 1))
    f, x = FUNCTIONS[name]
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
