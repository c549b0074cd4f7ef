"""An attention block's ``a = np.einsum('id,jd->ij', Q, K)`` then ``a /= a.sum(...)``: an einsum
of two or more operands (a literal subscript string, no ``out=``, no explicit path) computes a
new array, so writing it in place changes no argument, and passing it to a later einsum beside
``V`` does not make it ``V``'s memory. This was refused ("`V` shares it"). An einsum of one
operand may hand back the operand's view (``'ij->ji'``, and in NumPy 2 even ``'ij->ij'``): a
write into it that an argument read later would see stays refused."""
import os
import sys

import numpy as np
import pytest

import s2sad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from finite_differences import assert_every_mode_of_arrays  # noqa: E402


def attention(Q, K, V):
    a = np.einsum('id,jd->ij', Q, K)
    a = np.exp(a)
    a /= a.sum(axis=-1, keepdims=True)
    return np.sum(np.einsum('ij,jd->id', a, V) ** 2)


def scores_scaled_in_place(Q, K, V):
    a = np.einsum('id,jd->ij', Q, K, optimize=True)
    a *= 0.5
    return np.sum(np.einsum('ij,jd->id', a, V) * V[0])


def transposed_by_einsum(Q, K, V):
    a = np.einsum('ij->ji', Q)
    a *= 2.0
    return np.sum(a) + np.sum(Q * K)


def copied_by_einsum(Q, K, V):
    a = np.einsum('ij->ij', Q)
    a += 1.0
    return np.sum(a * K) + np.sum(Q ** 2)


@pytest.mark.parametrize("f", [attention, scores_scaled_in_place])
def test_an_einsum_of_several_operands_written_in_place(f):
    rng = np.random.default_rng(1)
    assert_every_mode_of_arrays(f, [0.5 * rng.normal(size=(3, 2)) for _ in range(3)])


@pytest.mark.parametrize("f", [transposed_by_einsum, copied_by_einsum])
def test_an_einsum_of_one_operand_written_in_place_is_refused(f):
    Q = np.arange(6.0).reshape(3, 2)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="caller.s `Q`") as caught:
        s2sad.grad(f)(Q, Q + 1.0, Q)
    assert caught.value.location.line == f.__code__.co_firstlineno + 2
    assert np.shares_memory(np.einsum('ij->ij', Q), Q)  # NumPy's own: a view, the reason to refuse
