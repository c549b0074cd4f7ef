"""A small multilayer perceptron classifying handwritten digits, with gradients from s2sad.

Shows: a model written as a dataclass with a method, differentiated from source; its
gradient comes back as the dataclass itself, holding the gradient of each field (``grads.W1``, ...).
The data is scikit-learn's bundled digits set (1797 8x8 images, nothing downloaded); the
network (64 -> 32 tanh -> 10 softmax) is trained by minibatch gradient descent with
momentum, and its train and test accuracy are reported.

Run: python examples/mlp.py [--epochs N]
(needs the `examples` extra: pip install -e '.[examples]')

Exits with status 1 if the gradient disagrees with finite differences or the test
accuracy is below 0.9.
"""
import argparse
import dataclasses
import sys

import numpy as np

import s2sad


@dataclasses.dataclass
class MLP:
    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray

    def logits(self, X):
        h = np.tanh(X @ self.W1 + self.b1)
        return h @ self.W2 + self.b2


def loss(model, X, Y):
    """Softmax cross-entropy of the model's logits against one-hot labels ``Y``."""
    z = model.logits(X)
    z = z - np.max(z, axis=1, keepdims=True)             # the same softmax, without overflow
    log_p = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_p, axis=1))


def initial_model(n_in, n_hidden, n_out, rng):
    return MLP(W1=rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in), b1=np.zeros(n_hidden),
               W2=rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden), b2=np.zeros(n_out))


def fields(model):
    return [field.name for field in dataclasses.fields(model)]


def accuracy(model, X, labels):
    return float(np.mean(np.argmax(model.logits(X), axis=1) == labels))


def directional_check(model, X, Y, grads, rng, eps=1e-6):
    """``<grad, v>`` against the central difference of the loss along a random direction ``v``."""
    direction = {name: rng.standard_normal(getattr(model, name).shape) for name in fields(model)}

    def moved(sign):
        return MLP(**{name: getattr(model, name) + sign * eps * direction[name] for name in fields(model)})

    numeric = (loss(moved(+1), X, Y) - loss(moved(-1), X, Y)) / (2 * eps)
    analytic = sum(np.sum(getattr(grads, name) * direction[name]) for name in fields(model))
    return analytic, numeric


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15, help="passes over the training data (default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    arguments = parser.parse_args(argv)

    from sklearn.datasets import load_digits

    digits = load_digits()
    rng = np.random.default_rng(0)
    order = rng.permutation(len(digits.target))
    X, labels = digits.data[order] / 16.0, digits.target[order]   # pixel values 0..16 -> 0..1
    split = int(0.75 * len(labels))
    X_train, X_test, labels_train, labels_test = X[:split], X[split:], labels[:split], labels[split:]
    Y_train = np.eye(10)[labels_train]
    print(f"digits data: {len(X_train)} training and {len(X_test)} test images of 8x8 pixels, 10 classes")

    model = initial_model(64, 32, 10, rng)
    value_and_grad = s2sad.value_and_grad(loss)    # with respect to the model (argument 0)

    value, grads = value_and_grad(model, X_train[:100], Y_train[:100])
    print(f"the gradient is a {type(grads).__name__} of {type(grads.W1).__name__}s: "
          f"dW1 {grads.W1.shape}, db1 {grads.b1.shape}, dW2 {grads.W2.shape}, db2 {grads.b2.shape}")
    analytic, numeric = directional_check(model, X_train[:100], Y_train[:100], grads, rng)
    print(f"directional derivative: s2sad {analytic:.8f}, finite differences {numeric:.8f}")
    if not np.isclose(analytic, numeric, rtol=1e-5, atol=1e-8):
        print("FAILED: the gradient disagrees with finite differences", file=sys.stderr)
        return 1

    velocity = {name: 0.0 for name in fields(model)}
    for epoch in range(arguments.epochs):
        shuffled = rng.permutation(len(X_train))
        total = 0.0
        for start in range(0, len(shuffled), arguments.batch_size):
            batch = shuffled[start:start + arguments.batch_size]
            value, grads = value_and_grad(model, X_train[batch], Y_train[batch])
            total += value * len(batch)
            for name in fields(model):
                velocity[name] = 0.9 * velocity[name] - arguments.learning_rate * getattr(grads, name)
            model = MLP(**{name: getattr(model, name) + velocity[name] for name in fields(model)})
        if epoch % 5 == 0 or epoch == arguments.epochs - 1:
            print(f"epoch {epoch:3d}  mean training loss {total / len(X_train):.4f}")

    train_accuracy = accuracy(model, X_train, labels_train)
    test_accuracy = accuracy(model, X_test, labels_test)
    print(f"train accuracy {train_accuracy:.3f}, test accuracy {test_accuracy:.3f}")
    if test_accuracy < 0.9:
        print(f"FAILED: test accuracy {test_accuracy:.3f} is below 0.9", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
