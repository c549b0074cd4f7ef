"""Rule expressions: substituting a template's free names, and each optimisation pass alone."""
import ast

import numpy as np
import pytest

from s2sad.codegen.expression_passes import ReusePrimalValues, add_at_arguments, constant_exponent, on_floats, on_types
from s2sad.codegen.expressions import callees, substitute, template


def tree(text):
    return ast.parse(text, mode="eval").body


def rewritten(rewrite, text):
    result = rewrite(tree(text))
    return None if result is None else ast.unparse(result)


# ---------------------------------------------------------------- substitution
@pytest.mark.parametrize("text, arguments, expected", [
    ("unbroadcast(g * conj(np.cos(x)), x)", {"g": "dy", "x": "a"}, "unbroadcast(dy * conj(np.cos(a)), a)"),
    # attribute names and keyword names are not free names
    ("np.cos(x)", {"cos": "c", "x": "a"}, "np.cos(a)"),
    ("np.sum(g, axis=axis)", {"g": "dy", "axis": "1"}, "np.sum(dy, axis=1)"),
    ("f(x=x)", {"x": "a + b"}, "f(x=a + b)"),
    # an argument that is not an atom is parenthesised where it is an operand, written as it is alone
    ("x ** 2", {"x": "-0.3"}, "(-0.3) ** 2"),
    ("g * x", {"g": "dy", "x": "-0.3"}, "dy * (-0.3)"),
    ("f(g, x)", {"g": "dy", "x": "-0.3"}, "f(dy, -0.3)"),
    ("np.sum(g, axis=axis)", {"g": "dy", "axis": "-1"}, "np.sum(dy, axis=-1)"),
    ("np.sum(g, axis=axis)", {"g": "dy", "axis": "(-2, -1)"}, "np.sum(dy, axis=(-2, -1))"),
    # a number before an attribute
    ("x.conjugate()", {"x": "2"}, "(2).conjugate()"),
    ("x.conjugate()", {"x": "2.0"}, "(2.0).conjugate()"),
    ("x.conjugate()", {"x": "-2"}, "(-2).conjugate()"),
    ("x.conjugate()", {"x": "a"}, "a.conjugate()"),
    # conj of a real constant is the constant; of anything else, a call
    ("g * conj(x)", {"g": "dy", "x": "2.0"}, "dy * 2.0"),
    ("g * conj(x)", {"g": "dy", "x": "-0.5"}, "dy * -0.5"),
    ("g * conj(x)", {"g": "dy", "x": "1j"}, "dy * conj(1j)"),
    ("g * conj(x)", {"g": "dy", "x": "True"}, "dy * conj(True)"),
    ("g * conj(x * 2)", {"g": "dy", "x": "2.0"}, "dy * conj(2.0 * 2)"),
    # the user's spelling of a number, the template's spacing, names swapped at once
    ("g * x", {"g": "dy", "x": "1e-3"}, "dy * 1e-3"),
    ("g * x", {"g": "x", "x": "g"}, "x * g"),
    ("f(g, args)", {"g": "dy", "args": "(a, b, )"}, "f(dy, (a, b, ))"),
    ("g if x else y", {"g": "dy"}, "dy if x else y"),
    # a template over several lines, names that are not ASCII
    ("f(\n    x,\n    g)", {"g": "dy", "x": "-1"}, "f(\n    -1,\n    dy)"),
    ("g * \u03c8 + h(\u03c8)", {"g": "dy", "\u03c8": "-2"}, "dy * (-2) + h(-2)"),
])
def test_substitute_replaces_the_free_names(text, arguments, expected):
    code = substitute(text, arguments)
    assert code == expected
    assert ast.dump(code.tree) == ast.dump(tree(expected))


def test_callees_are_the_spellings_of_called_names():
    assert callees(tree("unbroadcast(g * np.linalg.inv(x)[0], x) + (a + b).sum()")) == {"unbroadcast", "np.linalg.inv"}
    assert template("g * conj(np.cos(x))").callees == {"conj", "np.cos"}


def test_a_template_is_parsed_once():
    assert template("g * np.cos(x)") is template("g * np.cos(x)")


def test_substitution_leaves_the_template_and_the_arguments_trees_alone():
    before = ast.dump(template("unbroadcast(g * conj(x), x)").tree)
    first = substitute("unbroadcast(g * conj(x), x)", {"g": "dy", "x": "a"}, [on_floats])
    second = substitute("unbroadcast(g * conj(x), x)", {"g": "dy", "x": "a"})
    assert (first, second) == ("dy * a", "unbroadcast(dy * conj(a), a)")
    assert ast.dump(template("unbroadcast(g * conj(x), x)").tree) == before


def test_an_expression_a_pass_rewrote_is_unparsed():
    assert substitute("conj(g) * x", {"g": "dy", "x": "1e-3"}) == "conj(dy) * 1e-3"
    assert substitute("conj(g) * x", {"g": "dy", "x": "1e-3"}, [on_floats]) == "dy * 0.001"


# ---------------------------------------------------------------- constant exponent
@pytest.mark.parametrize("text, expected", [
    ("power_vjp_base(g, x, 3)", "unbroadcast(g * conj(3.0 * x ** 2), x)"),
    ("power_vjp_base(g, x, 2.5)", "unbroadcast(g * conj(2.5 * x ** 1.5), x)"),
    ("power_vjp_base(g, x, 2)", "unbroadcast(g * conj(2.0 * x), x)"),
    ("power_vjp_base(g, x, 1)", "unbroadcast(g, x)"),
    ("h(power_vjp_base(g, x, 2))", "h(unbroadcast(g * conj(2.0 * x), x))"),
])
def test_constant_exponent(text, expected):
    assert rewritten(constant_exponent, text) == expected


@pytest.mark.parametrize("text", ["power_vjp_base(g, x, 0.5)", "power_vjp_base(g, x, -2.0)",
                                  "power_vjp_base(g, x, y)", "power_vjp_base(g, x, True)",
                                  "power_vjp_base(g, x, c=2)", "power(g, x, 2)"])
def test_constant_exponent_leaves_other_exponents_to_the_helper(text):
    assert rewritten(constant_exponent, text) is None


def test_constant_exponent_applies_to_power_vjp_base_only():
    assert constant_exponent.applies(frozenset({"unbroadcast", "power_vjp_base"}))
    assert not constant_exponent.applies(frozenset({"unbroadcast", "np.power"}))


# ---------------------------------------------------------------- reuse of primal values
COS_X = {(id(np.cos), ("x",)): "cos_x", (id(np.exp), ("x", "2")): "exp_x_2"}


@pytest.mark.parametrize("text, expected", [
    ("g * conj(np.cos(x))", "g * conj(cos_x)"),
    ("g * conj(numpy.cos(x))", "g * conj(cos_x)"),  # the same object, spelt otherwise
    ("np.exp(x, 2) + np.cos(x)", "exp_x_2 + cos_x"),
])
def test_reuse_primal_values(text, expected):
    reuse = ReusePrimalValues(COS_X, {"np": np, "numpy": np})
    assert rewritten(reuse, text) == expected


@pytest.mark.parametrize("text", ["g * np.cos(y)", "g * np.sin(x)", "np.cos(x, out=o)", "np.cos(-x)",
                                  "cos(x)"])
def test_reuse_primal_values_only_where_the_call_is_the_same(text):
    assert rewritten(ReusePrimalValues(COS_X, {"np": np}), text) is None


def test_reuse_primal_values_applies_where_a_primal_function_is_called():
    reuse = ReusePrimalValues(COS_X, {"np": np, "numpy": np})
    assert reuse.applies(frozenset({"conj", "numpy.cos"}))
    assert not reuse.applies(frozenset({"conj", "np.sin", "np.nothing", "unknown.cos"}))
    assert not ReusePrimalValues({}, {"np": np}).applies(frozenset({"np.cos"}))


# ---------------------------------------------------------------- on floats
@pytest.mark.parametrize("text, expected", [
    ("unbroadcast(g * conj(np.cos(x)), x)", "g * np.cos(x)"),
    ("unbroadcast(g, x) + conj(conj(y))", "g + y"),
    ("unbroadcast(g, x, axis=0)", "unbroadcast(g, x, axis=0)"),
])
def test_on_floats(text, expected):
    assert (rewritten(on_floats, text) or text) == expected


def test_on_floats_without_helpers():
    assert rewritten(on_floats, "g * np.cos(x)") is None
    assert not on_floats.applies(frozenset({"np.cos"}))


# ---------------------------------------------------------------- on types
# z = x * b: x and z (3, 4) arrays, b a (4,) array stretched over the rows, s a float64 scalar;
# W a (4, 4) matrix, h and v (4,) vectors, M a (4, 2) matrix
TYPES = {"x": ("array", ("n0", "n1")), "z": ("array", ("n0", "n1")), "b": ("array", ("n1",)), "s": ("f64",),
         "W": ("array", ("n1", "n1")), "h": ("array", ("n1",)), "v": ("array", ("n1",)), "M": ("array", ("n1", "n2")),
         "P": ("array", ("n1", "n2"))}


@pytest.mark.parametrize("text, target, expected", [
    ("unbroadcast(g * conj(b), x)", "z", "g * b"),                       # g * b has x's shape: nothing to sum
    ("unbroadcast(-g * conj(z / b), x)", "z", "-g * (z / b)"),
    ("unbroadcast(g * np.conjugate(x), b)", "z", "unbroadcast(g * x, b)"),  # b was stretched: summed
    ("unbroadcast(g * conj(x), s)", "z", "unbroadcast(g * x, s)"),        # to a scalar: summed
    ("unbroadcast(np.sum(g), x)", "z", "unbroadcast(np.sum(g), x)"),      # a shape not read from the tree
    ("unbroadcast(g * np.tanh(b), b)", "v", "g * np.tanh(b)"),           # a ufunc keeps its operands' shape
    ("unbroadcast(g * np.isnan(b), b)", "v", "unbroadcast(g * np.isnan(b), b)"),  # (a bool ufunc: not read)
    ("unbroadcast(g, unknown)", "z", "unbroadcast(g, unknown)"),
    ("matmul_vjp_x1(g, W, h)", "v", "np.multiply.outer(g, h)"),
    ("matmul_vjp_x2(g, W, h)", "v", "W.T @ g"),
    ("matmul_vjp_x1(g, W, M)", "P", "g @ M.T"),
    ("matmul_vjp_x2(g, W, M)", "P", "W.T @ g"),
    ("matmul_vjp_x1(g, W, h)", "z", "matmul_vjp_x1(g, W, h)"),           # g not the product's shape: the helper
    ("matmul_vjp_x1(g, h, W)", "v", "matmul_vjp_x1(g, h, W)"),           # a vector times a matrix: the helper
    ("matmul_vjp_x1(g, h, v)", "s", "matmul_vjp_x1(g, h, v)"),           # a dot product: the helper
])
def test_on_types(text, target, expected):
    assert (rewritten(on_types(TYPES, target, "g"), text) or text) == expected


def test_passes_run_in_order():
    text = substitute("power_vjp_base(g, x, y)", {"g": "dz", "x": "a", "y": "2"}, [constant_exponent, on_floats])
    assert text == "dz * (2.0 * a)"


# ---------------------------------------------------------------- add_at
@pytest.mark.parametrize("text, arguments, expected", [
    ("untake(g, index, x)", {"g": "dy", "index": "i", "x": "x"}, "dy, i, x"),
    ("untake(g, index, a)", {"g": "dy", "index": "-1", "a": "x"}, "dy, -1, x"),
    ("untake(g, index, a, b)", {"g": "dy", "index": "i", "a": "x"}, None),
    ("2 * untake(g, index, a)", {"g": "dy", "index": "i", "a": "x"}, None),
    ("take(g, index, a)", {"g": "dy", "index": "i", "a": "x"}, None),
])
def test_add_at_arguments(text, arguments, expected):
    assert add_at_arguments(substitute(text, arguments)) == expected


def test_add_at_arguments_asks_the_tree_of_a_rule_expression_not_text():
    assert add_at_arguments("untake(dy, i, x)") is None
