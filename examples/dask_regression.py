"""Fitting a logistic regression on a data set larger than one chunk, with Dask.

Run: python examples/dask_regression.py

The loss is written for NumPy; called with Dask arrays, the code s2sad generated for it
builds lazy gradients that a dask.distributed cluster (local, on this machine) computes chunk
by chunk. The gradient is checked against the NumPy result, then thirty gradient steps fit
the model. Needs the `dask` extra (pip install 's2sad[dask]').
"""
import sys
import time

import numpy as np

import s2sad


def loss(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 1e-3 * np.sum(w ** 2)


def main() -> int:
    try:
        import dask
        import dask.array as da
        from distributed import Client, LocalCluster
    except ImportError:
        print("this example needs Dask: pip install 's2sad[dask]'")
        return 1
    rows, features, chunk = 100_000, 8, 25_000
    truth = np.random.default_rng(0).standard_normal(features)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster):
        # the data are made by Dask, chunk by chunk, on the workers
        random = da.random.default_rng(1)
        Xd = random.standard_normal((rows, features), chunks=(chunk, features))
        yd = ((Xd @ truth + 0.5 * random.standard_normal(rows, chunks=chunk)) > 0).astype(float)
        Xd, yd = Xd.persist(), yd.persist()
        X, y = dask.compute(Xd, yd)
        print(f"data: {rows} x {features} in {Xd.numblocks[0]} chunks of {chunk} rows")
        w = np.zeros(features)
        lazy = s2sad.grad(loss)(w, Xd, yd)
        print(f"gradient before compute: {type(lazy).__module__}.{type(lazy).__name__} (lazy)")
        if not np.allclose(lazy.compute(), s2sad.grad(loss)(w, X, y), rtol=1e-10):
            print("FAILED: the Dask gradient differs from the NumPy one")
            return 1
        start = time.perf_counter()
        for step in range(30):
            value, gradient = s2sad.value_and_grad(loss)(w, Xd, yd)
            value, gradient = dask.compute(value, gradient)
            w = w - 2.0 * gradient
        elapsed = time.perf_counter() - start
    accuracy = np.mean(((X @ w) > 0) == (y > 0.5))
    cosine = w @ truth / (np.linalg.norm(w) * np.linalg.norm(truth))
    print(f"30 gradient steps in {elapsed:.1f} s: loss {float(value):.4f}, accuracy {accuracy:.3f}, "
          f"cosine to the true weights {cosine:.3f}")
    if accuracy < 0.8:
        print("FAILED: accuracy below 0.8")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
