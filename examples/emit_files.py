"""Emitting derivative source files with the `s2sad emit` command, and importing them.

Shows: a model file is written to a temporary directory; ``s2sad emit model.py:loss
--wrt W,b -o loss_derivatives.py`` (run here as ``python -m s2sad emit ...``) writes a
standalone Python module defining ``loss_rrule`` (value and pullback) and ``loss_grad``
(the gradient with respect to W and b); ``--mode forward`` writes one defining
``predict_jvp`` (value and directional derivative of the model's prediction). The example imports the files with
importlib, compares them with ``s2sad.grad``, and shows that emitting again refuses to
overwrite a file unless ``--force`` is given.

Run: python examples/emit_files.py [--keep DIR]   (--keep: write into DIR and leave the files there)

Exits with status 1 if a command fails or the emitted gradient differs from s2sad.grad.
If the installed s2sad has no `emit` command, prints "SKIPPED: s2sad emit not available"
and exits with status 0.
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

import s2sad

MODEL = '''\
import numpy as np


def predict(W, b, X):
    return np.tanh(X @ W + b)


def loss(W, b, X, y):
    """Mean squared error of a one-layer tanh model, plus a penalty on large weights."""
    error = predict(W, b, X) - y
    penalty = 0.0
    for row in W:
        penalty = penalty + np.sum(row ** 2)
    return np.mean(error ** 2) + 1e-3 * penalty
'''


def s2sad_command(*arguments, cwd):
    """Run ``python -m s2sad ARGUMENTS`` and return the completed process (output captured)."""
    return subprocess.run([sys.executable, "-m", "s2sad", *arguments], cwd=cwd, capture_output=True, text=True)


def import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run(directory):
    model_path = os.path.join(directory, "model.py")
    with open(model_path, "w") as handle:
        handle.write(MODEL)
    print(f"wrote {model_path}")

    command = ["emit", "model.py:loss", "--wrt", "W,b", "-o", "loss_derivatives.py"]
    print("$ s2sad " + " ".join(command))
    emitted = s2sad_command(*command, cwd=directory)
    if emitted.returncode != 0 and "invalid choice: 'emit'" in emitted.stderr:
        print("SKIPPED: s2sad emit not available (this s2sad has no `emit` command)")
        return 0
    if emitted.returncode != 0:
        print(f"FAILED: s2sad emit exited with status {emitted.returncode}:\n{emitted.stderr}", file=sys.stderr)
        return 1
    print(emitted.stdout, end="")
    output_path = os.path.join(directory, "loss_derivatives.py")
    with open(output_path) as handle:
        text = handle.read()
    print(f"{output_path}: {len(text.splitlines())} lines; it begins:")
    print(textwrap.indent("\n".join(text.splitlines()[:6]), "    "))

    # Import both files as any Python module is imported: the derivative file is not parsed by s2sad.
    model = import_file(model_path, "model")
    derivatives = import_file(output_path, "loss_derivatives")

    rng = np.random.default_rng(0)
    W, b = 0.5 * rng.standard_normal((4, 3)), np.zeros(3)
    X, y = rng.standard_normal((16, 4)), rng.standard_normal((16, 3))

    dW, db = derivatives.loss_grad(W, b, X, y)
    expected_dW, expected_db = s2sad.grad(model.loss, argnums=(0, 1))(W, b, X, y)
    value, pullback = derivatives.loss_rrule(W, b, X, y)
    _, dW_pulled, db_pulled, _, _ = pullback(1.0)
    print(f"loss = {value:.6f} (the model's own: {model.loss(W, b, X, y):.6f})")
    difference = max(np.max(np.abs(dW - expected_dW)), np.max(np.abs(db - expected_db)),
                     np.max(np.abs(dW_pulled - expected_dW)), np.max(np.abs(db_pulled - expected_db)))
    print(f"loss_grad and loss_rrule's pullback against s2sad.grad: largest difference {difference:.1e}")
    if not (difference < 1e-12 and np.isclose(value, model.loss(W, b, X, y))):
        print("FAILED: the emitted derivative differs from s2sad.grad", file=sys.stderr)
        return 1

    # Forward mode, for the model's prediction: predict_jvp(W, b, X, tangent of W, tangent of b)
    # -> (prediction, its directional derivative), checked against central finite differences.
    command_forward = ["emit", "model.py:predict", "--wrt", "W,b", "--mode", "forward", "-o", "predict_jvp.py"]
    print("$ s2sad " + " ".join(command_forward))
    emitted = s2sad_command(*command_forward, cwd=directory)
    if emitted.returncode != 0:
        print(f"FAILED: s2sad emit --mode forward exited with status {emitted.returncode}:\n{emitted.stderr}",
              file=sys.stderr)
        return 1
    print(emitted.stdout, end="")
    forward = import_file(os.path.join(directory, "predict_jvp.py"), "predict_jvp")
    tW, tb, h = rng.standard_normal(W.shape), rng.standard_normal(b.shape), 1e-6
    prediction, tangent = forward.predict_jvp(W, b, X, tW, tb)
    expected = (model.predict(W + h * tW, b + h * tb, X) - model.predict(W - h * tW, b - h * tb, X)) / (2 * h)
    error = np.max(np.abs(tangent - expected))
    print(f"predict_jvp's tangent {tangent.shape} against finite differences: largest difference {error:.1e}")
    if not (error < 1e-7 and np.allclose(prediction, model.predict(W, b, X))):
        print("FAILED: the emitted forward derivative disagrees with finite differences", file=sys.stderr)
        return 1

    # The file exists now: emitting again is refused (exit status 1, compiler-style message) ...
    again = s2sad_command(*command, cwd=directory)
    print(f"emitting again without --force: exit status {again.returncode}, stderr:")
    print(textwrap.indent(again.stderr.rstrip(), "    "))
    if again.returncode == 0:
        print("FAILED: s2sad emit replaced an existing file without --force", file=sys.stderr)
        return 1
    # ... unless --force says to replace it.
    forced = s2sad_command(*command, "--force", cwd=directory)
    print(f"with --force: exit status {forced.returncode}")
    if forced.returncode != 0:
        print(f"FAILED: s2sad emit --force exited with status {forced.returncode}:\n{forced.stderr}", file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="write the files into DIR (created if needed) and keep them")
    arguments = parser.parse_args(argv)
    if arguments.keep:
        os.makedirs(arguments.keep, exist_ok=True)
        for name in ("model.py", "loss_derivatives.py", "predict_jvp.py"):   # start afresh, so the refusal below is the only one
            if os.path.exists(os.path.join(arguments.keep, name)):
                os.remove(os.path.join(arguments.keep, name))
        return run(os.path.abspath(arguments.keep))
    with tempfile.TemporaryDirectory(prefix="s2sad_emit_example_") as directory:
        return run(directory)


if __name__ == "__main__":
    sys.exit(main())
