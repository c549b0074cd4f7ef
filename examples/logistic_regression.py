"""Logistic regression trained by gradient descent, with gradients from s2sad.

Shows: ``s2sad.value_and_grad`` with two differentiated arguments on a real data set
(scikit-learn's bundled breast-cancer data: 569 tumours, 30 features, nothing downloaded),
a gradient check with ``s2sad.testing.check_grad`` before training, the train and test
accuracy, and with ``--plot PATH`` the loss curve saved as a PNG.

Run: python examples/logistic_regression.py [--plot PATH] [--steps N]
(needs the `examples` extra: pip install -e '.[examples]')

Exits with status 1 if the gradient check fails or the test accuracy is below 0.9.
"""
import argparse
import sys

import numpy as np

import s2sad
from s2sad.testing import check_grad


def loss(w, b, X, y, l2):
    """Mean logistic loss of the linear model ``X @ w + b`` plus an L2 penalty on ``w``.

    ``log(1 + exp(z)) - y * z`` is the negative log-likelihood of label ``y`` (0 or 1) for
    the logit ``z``; ``np.logaddexp(0, z)`` computes ``log(1 + exp(z))`` without overflow.
    """
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z) + l2 * np.sum(w ** 2)


def accuracy(w, b, X, y):
    return float(np.mean(((X @ w + b) > 0) == (y == 1)))


def load_data(seed=0):
    """The breast-cancer data split 75/25 (stratified), features standardised with the training statistics."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    data = load_breast_cancer()
    X_train, X_test, y_train, y_test = train_test_split(
        data.data, data.target.astype(float), test_size=0.25, random_state=seed, stratify=data.target)
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    return (X_train - mean) / std, (X_test - mean) / std, y_train, y_test


def save_plot(losses, path):
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    axes.plot(np.arange(len(losses)), losses)
    axes.set_xlabel("gradient descent step")
    axes.set_ylabel("training loss")
    axes.set_yscale("log")
    axes.set_title("Logistic regression on breast-cancer data (s2sad gradients)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", metavar="PATH", help="save the loss curve as a PNG there (default: no plot)")
    parser.add_argument("--steps", type=int, default=300, help="gradient descent steps (default: %(default)s)")
    parser.add_argument("--learning-rate", type=float, default=0.5, help="step size (default: %(default)s)")
    arguments = parser.parse_args(argv)

    X_train, X_test, y_train, y_test = load_data()
    print(f"breast-cancer data: {len(X_train)} training and {len(X_test)} test examples, {X_train.shape[1]} features")
    l2 = 1e-3
    rng = np.random.default_rng(0)
    w, b = 0.01 * rng.standard_normal(X_train.shape[1]), 0.0

    # The gradient against central finite differences, before relying on it.
    check_grad(loss, w, b, X_train, y_train, l2, argnums=(0, 1))
    print("check_grad: s2sad's gradient matches finite differences")

    value_and_grad = s2sad.value_and_grad(loss, argnums=(0, 1))
    losses = []
    for step in range(arguments.steps):
        value, (dw, db) = value_and_grad(w, b, X_train, y_train, l2)
        losses.append(value)
        w, b = w - arguments.learning_rate * dw, b - arguments.learning_rate * db
        if step % 50 == 0:
            print(f"step {step:4d}  loss {value:.4f}")
    losses.append(loss(w, b, X_train, y_train, l2))
    print(f"step {arguments.steps:4d}  loss {losses[-1]:.4f}")

    train_accuracy, test_accuracy = accuracy(w, b, X_train, y_train), accuracy(w, b, X_test, y_test)
    print(f"train accuracy {train_accuracy:.3f}, test accuracy {test_accuracy:.3f}")

    if arguments.plot:
        save_plot(losses, arguments.plot)
        print(f"loss curve saved to {arguments.plot}")

    if not losses[-1] < losses[0]:
        print("FAILED: the loss did not decrease", file=sys.stderr)
        return 1
    if test_accuracy < 0.9:
        print(f"FAILED: test accuracy {test_accuracy:.3f} is below 0.9", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
