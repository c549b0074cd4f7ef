"""Objects built with keywords (``State(x=x, v=v)``, ``Params(W=W, b=b)``), as users write them, and
namedtuples under Hessian-vector products: gradients, tangents and Hessian-vector products against
central differences in float64. Both were refused (a storing constructor's pullback gave no
cotangent for a keyword; the reverse of forward code refused a namedtuple's constructor and crashed
on a namedtuple's tangent read by position)."""
from collections import namedtuple
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from finite_differences import assert_hvp_matches, numerical_gradient


class State(NamedTuple):
    x: np.ndarray
    v: np.ndarray


Pair = namedtuple("Pair", "a b")


@dataclass
class Params:
    W: np.ndarray
    b: np.ndarray
    scale: float = 1.0


def pair_by_keyword(x):
    p = Pair(b=x, a=3.0 * x)
    return np.sum(p.a * p.b ** 2)


def oscillator_by_keyword(x):
    s = State(v=np.sin(x), x=x ** 2)
    for _ in range(3):
        s = State(x=s.x + 0.1 * s.v, v=s.v - 0.1 * s.x)
    return np.sum(s.x * s.v)


def dataclass_by_keyword(x):
    p = Params(x * 2.0, b=np.cos(x), scale=np.sum(x))
    return np.sum((p.W + p.b) ** 2) * p.scale


def dataclass_keyword_default_left_out(x):
    p = Params(b=x ** 2, W=np.ones_like(x))
    return np.sum(p.W * p.b) * p.scale


def namedtuple_read_by_position(x):
    s = State(x, x ** 2)
    s = s._replace(v=s.v * s.x)
    a, b = s
    return np.sum(a * b) + np.sum(s[1] * s[0])


PROGRAMS = [pair_by_keyword, oscillator_by_keyword, dataclass_by_keyword, dataclass_keyword_default_left_out,
            namedtuple_read_by_position]
X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient_and_tangent(f):
    expected = numerical_gradient(f, [X], 0)
    np.testing.assert_allclose(s2sad.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    direction = np.array([0.3, -0.2, 0.7])
    _, tangent = s2sad.jvp(f, (X,), (direction,))
    np.testing.assert_allclose(tangent, expected @ direction, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_hessian_vector_product(f):
    v, u = np.array([0.3, 1.0, -0.4]), np.array([-0.5, 0.2, 0.6])
    assert_hvp_matches(s2sad.hvp(f, (X,), (v,)), f, (X,), (v,), (u,), rtol=1e-5, atol=1e-6)


def test_the_keywords_gradients_come_back_in_the_object():
    def loss(p):
        q = Params(W=p.W * 2.0, b=p.b, scale=p.scale)
        return np.sum(q.W * q.b) * q.scale

    p = Params(np.array([1.0, 2.0]), np.array([3.0, -1.0]), 0.5)
    gradient = s2sad.grad(loss)(p)
    np.testing.assert_allclose(gradient.W, 2.0 * p.b * p.scale)
    np.testing.assert_allclose(gradient.b, 2.0 * p.W * p.scale)
    assert gradient.scale == pytest.approx(np.sum(2.0 * p.W * p.b))
