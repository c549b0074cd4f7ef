"""Quickstart: the gradient of a small model's loss, and the code s2sad generated for it.

Run: python examples/quickstart.py
"""
import numpy as np

import s2sad


@s2sad.differentiate(argnums=(0, 1))
def loss(W, b, X, y):
    """Mean squared error of a one-layer tanh model."""
    z = X @ W + b
    p = np.tanh(z)
    return np.mean((p - y) ** 2)


def main():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 4))
    y = rng.normal(size=(32, 3))
    W = rng.normal(size=(4, 3)) * 0.5
    b = np.zeros(3)

    value, (dW, db) = loss.value_and_grad(W, b, X, y)
    print(f"loss = {value:.6f}")
    print("dL/dW =\n", np.array2string(dW, precision=4))
    print("dL/db =", np.array2string(db, precision=4))

    # A few steps of gradient descent, to show the gradient is the real thing.
    for _ in range(50):
        value, (dW, db) = loss.value_and_grad(W, b, X, y)
        W, b = W - 0.5 * dW, b - 0.5 * db
    print(f"loss after 50 steps of gradient descent = {loss(W, b, X, y):.6f}")

    print("\nThe code s2sad generated (primal plus pullback):\n")
    loss.show()


if __name__ == "__main__":
    main()
