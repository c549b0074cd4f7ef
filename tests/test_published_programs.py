"""The published-style corpus (tests/published_programs.py, cases in tests/published_cases.py),
differentiated untouched in every mode: grad, value_and_grad, vjp, jvp, hvp and
grad(compile=True), each against central finite differences in float64 of the plain NumPy
function (hvp: the mixed second difference). Programs s2sad refuses in a mode stay as strict
xfails, each checked to fail with the error and message listed; and the bugs the corpus found,
reduced, each against its own finite differences."""
import numpy as np
import pytest

import published_cases as cases
import s2sad
from corpus_cases import check_or_refused, in_every_mode

_SUBTRACT_INTO_A_DICT_ITEM = (s2sad.UnsupportedSyntaxError,
                              r"published_programs\.py:\d+:13: .*augmented assignment changes the ndarray `params\[k\]` in place",
                              "params[k] -= v on a dict of fresh copies, inside `for k in params`: the aliasing analysis "
                              "links the key k (an element of iterating the dict) to the dict's arrays, so the write is "
                              "refused as if k could see it; `params[k] = params[k] - v` is differentiated")

# vjp differentiates every argument, the data too: labels and counts compared exactly with 0 and 1,
# where the function has no derivative in them (it raises off the labels; it jumps at a count of 0)
_DATA_COMPARED_EXACTLY = (s2sad.UnsupportedSyntaxError, r"`(y|counts) == [01]` finds a differentiated value exactly equal",
                          "the branch an equality with a constant chooses holds at that point alone")

REFUSED = {}
for _mode in cases.MODES:
    REFUSED[(_mode, "momentum_sgd_dict_in_place_on_a_copy")] = _SUBTRACT_INTO_A_DICT_ITEM
for _name in ("logistic_regression_with_validation", "zero_inflated_poisson_expit_gammaln"):
    REFUSED[("vjp", _name)] = _DATA_COMPARED_EXACTLY


class UnlistedFailure(Exception):
    """A listed program failed with the listed error class but another message: never an xfail."""


@pytest.mark.parametrize(("name", "mode"), in_every_mode(cases.CORPUS, cases.MODES))
def test_program_in_every_mode(name, mode):
    check_or_refused(cases.check, name, mode, REFUSED)


def test_the_corpus_is_large_and_mostly_differentiated():
    assert len(cases.CORPUS) >= 30
    assert len(REFUSED) <= 1 * len(cases.MODES) + 2
    assert {name for _, name in REFUSED} <= set(cases.CORPUS)


# ---------------------------------------------------------------- the bugs the corpus found, reduced
def squared_norm(v):
    return np.sum(v ** 2)


def _lambda_calling_a_global_twice(w, shrink_factor=0.9):
    loss = lambda v: squared_norm(v)
    first = loss(w)
    # the temporary for loss(w * shrink_factor) was named `squared_norm`, shadowing the function
    while loss(w * shrink_factor) > 0.5 * first:
        w = shrink_factor * w
    return loss(w) + first


def test_a_lambda_calling_a_global_keeps_the_global_name_free():
    # before: UnboundLocalError in the generated code (the result of the inlined lambda took the
    # name of the function it calls); d/dw of (0.9^k w)^2 + w^2 summed, k = 3 iterations here
    w = np.array([0.3, -1.2, 0.5])
    k = 3
    expected = 2 * w * (0.81 ** k + 1.0)
    np.testing.assert_allclose(s2sad.grad(_lambda_calling_a_global_twice)(w), expected, rtol=1e-12)
    np.testing.assert_allclose(s2sad.jvp(_lambda_calling_a_global_twice, (w,), (np.ones(3),))[1], np.sum(expected), rtol=1e-12)


def _quadratic_form(residuals, M):
    return np.sum(np.einsum("ni,ij,nj->n", residuals, M, residuals))


def _two_operands(a, b):
    return np.sum(np.einsum("ni,ij->n", a, b) ** 2)


@pytest.mark.parametrize("function", [_quadratic_form, _two_operands])
def test_einsum_of_differentiated_operands_in_forward_mode_and_hvp(function):
    # before: "the forward rule of `np.einsum` cannot be bound to this call" for any active operand
    rs = np.random.RandomState(5)
    args = (rs.randn(4, 3), rs.randn(3, 3))
    v, u = (rs.randn(4, 3), rs.randn(3, 3)), (rs.randn(4, 3), rs.randn(3, 3))
    h = 1e-6
    slope = (function(*[a + h * d for a, d in zip(args, v)]) - function(*[a - h * d for a, d in zip(args, v)])) / (2 * h)
    np.testing.assert_allclose(s2sad.jvp(function, args, v)[1], slope, rtol=1e-6)
    products = s2sad.hvp(function, args, v)
    from finite_differences import mixed_second_difference
    np.testing.assert_allclose(sum(np.sum(p * d) for p, d in zip(products, u)),
                               mixed_second_difference(function, args, v, u), rtol=1e-5)


def _draw(rs, *shape, scale=0.1):
    return scale * rs.randn(*shape)


def _drawn_layer(x, scale):
    W = _draw(np.random.RandomState(3), x.shape[1], 2, scale=scale)
    return np.sum(np.tanh(x @ W))


def test_hvp_through_a_helper_drawing_from_a_generator_with_star_shape():
    # before: reverse mode over the helper's forward code differentiated it with respect to the
    # RandomState and the ints of `*shape` too, and refused `rs.randn(*shape)` (no rule)
    from finite_differences import mixed_second_difference
    rs = np.random.RandomState(6)
    args, v, u = (rs.randn(4, 3), 0.7), (rs.randn(4, 3), 0.3), (rs.randn(4, 3), -1.1)
    products = s2sad.hvp(_drawn_layer, args, v)
    np.testing.assert_allclose(sum(np.sum(p * d) for p, d in zip(products, u)),
                               mixed_second_difference(_drawn_layer, args, v, u), rtol=1e-5)


@pytest.mark.parametrize("N, increasing", [(None, False), (3, False), (4, True), (1, True)])
def test_vander_rule_against_central_differences(N, increasing):
    # the polynomial-fit program needed np.vander (no rule before); x holds a 0, where the
    # constant column's slope must stay 0 (not 0 * 0 ** -1)
    from finite_differences import mixed_second_difference, numerical_gradient
    rs = np.random.RandomState(8)
    x, weights = np.array([0.0, 0.7, -1.3, 2.1]), rs.randn(4, 4 if N is None else N)

    def loss(x):
        return np.sum(weights * np.vander(x, N, increasing=increasing) ** 2)

    np.testing.assert_allclose(s2sad.grad(loss)(x), numerical_gradient(loss, (x,), 0), rtol=1e-6, atol=1e-6)
    v, u = rs.randn(4), rs.randn(4)
    np.testing.assert_allclose(s2sad.jvp(loss, (x,), (v,))[1], numerical_gradient(loss, (x,), 0) @ v, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(s2sad.hvp(loss, (x,), (v,)) @ u, mixed_second_difference(loss, (x,), (v,), (u,)),
                               rtol=1e-5, atol=1e-5)
