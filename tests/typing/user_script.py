"""A user's script calling s2sad's public API: `mypy --strict`-clean against s2sad's annotations
(s2sad ships py.typed). Run: mypy tests/typing/user_script.py (tests/test_docs.py does, if mypy
is installed). Also a working program: python tests/typing/user_script.py."""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import s2sad
from s2sad.testing import check_grad

Array = npt.NDArray[np.float64]


def loss(W: Array, b: Array, X: Array) -> float:
    return float(np.mean(np.tanh(X @ W + b) ** 2))


@s2sad.differentiate(argnums=(0, 1))
def energy(x: Array, y: Array) -> float:
    return float(np.sum(np.sin(x) * y))


@s2sad.custom_vjp
def clipped(x: Array) -> Array:
    return x


def clipped_fwd(x: Array) -> tuple[Array, None]:
    return x, None


def clipped_bwd(residuals: None, g: Array) -> tuple[Array]:
    return (np.clip(g, -1.0, 1.0),)


clipped.defvjp(clipped_fwd, clipped_bwd)


def main() -> None:
    rng = np.random.default_rng(0)
    W, b, X = rng.normal(size=(3, 2)), np.zeros(2), rng.normal(size=(5, 3))
    dW: Any = s2sad.grad(loss)(W, b, X)
    value, (gW, gb) = s2sad.value_and_grad(loss, argnums=(0, 1))(W, b, X)
    y, f_jvp = s2sad.linearize(np.sin, W)
    stopped: Array = s2sad.stop_gradient(W)
    check_grad(loss, W, b, X, argnums=(0, 1))
    s2sad.check_grads(loss, modes=("fwd", "rev"))(W, b, X)
    dx, dy = energy.grad(W[:, 0], W[:, 1])
    elementwise = s2sad.elementwise_grad(np.tanh)(W)
    assert dW.shape == W.shape and np.shape(f_jvp(W)) == W.shape and stopped.shape == W.shape
    assert np.shape(elementwise) == W.shape and np.shape(dx) == (3,) and value == loss(W, b, X)
    assert np.all(np.abs(s2sad.grad(lambda x: float(np.sum(5.0 * clipped(x))))(b)) <= 1.0)


if __name__ == "__main__":
    main()
