"""Rules of rules/nondifferentiable.py: declared, and their pullbacks give NO_TANGENT everywhere."""
import numpy as np
import pytest

import s2sad
from s2sad.registry import rule_for
from s2sad.testing import check_rrule

AUTOGRAD_NOGRAD = """all allclose any argmax argmin argpartition argsort argwhere around array_equal
array_equiv ceil count_nonzero empty_like equal fix flatnonzero floor floor_divide greater
greater_equal isclose iscomplex iscomplexobj isfinite isinf isnan isneginf isposinf isreal isscalar
less less_equal logical_and logical_not logical_or logical_xor ndim nonzero not_equal ones_like
result_type rint round searchsorted shape size trunc zeros_like""".split()
# not sign: NumPy 2's sign(z) is z / |z| for complex z, which moves (a rule in numpy_elementwise)
CREATORS = "zeros ones empty arange eye identity".split()


@pytest.mark.parametrize("name", AUTOGRAD_NOGRAD + CREATORS)
def test_declared(name):
    rule = rule_for(getattr(np, name))
    assert rule is not None and rule.nondifferentiable, name


CALLS = [
    (np.floor, (np.array([0.3, 1.7]),)), (np.sign, (np.array([-2.0, 3.0]),)), (np.argmax, (np.arange(4.0),)),
    (np.greater, (np.ones(2), 0.5)), (np.zeros_like, (np.ones(3),)), (np.shape, (np.ones((2, 3)),)),
    (np.zeros, ((2, 3),)), (np.round, (1.26, 1)), (np.isnan, (1.5,)),
]


@pytest.mark.parametrize("f, args", CALLS, ids=[f.__name__ for f, _ in CALLS])
def test_pullback_gives_no_tangent(f, args):
    check_rrule(f, *args)


# ------------------------------------------------------------------ draws that move with a float argument
def shifted_draw(mu):
    return np.sum(np.random.normal(mu, 1.0, size=3))


def permuted(x):
    return np.sum(np.random.permutation(x) * np.arange(3.0))


def draw_of_constant_parameters(x):
    return np.sum(x * np.random.uniform(0.0, 1.0, size=3))


@pytest.mark.parametrize("f, arg", [(shifted_draw, 0.5), (permuted, np.array([1.0, 2.0, 3.0]))],
                         ids=["normal", "permutation"])
def test_draws_refuse_a_derivative_in_their_parameters(f, arg):
    """normal(loc, scale) = loc + scale z moves with loc; a permutation of x moves with x: not a silent 0."""
    with pytest.raises(s2sad.MissingRuleError) as caught:
        s2sad.grad(f)(arg)
    assert "random draw" in str(caught.value) and "test_nondifferentiable.py" in str(caught.value)


def test_draws_with_constant_parameters_still_differentiate():
    x = np.array([1.0, 2.0, 3.0])
    np.random.seed(3)
    gradient = s2sad.grad(draw_of_constant_parameters)(x)
    np.random.seed(3)
    np.testing.assert_allclose(gradient, np.random.uniform(0.0, 1.0, size=3))
