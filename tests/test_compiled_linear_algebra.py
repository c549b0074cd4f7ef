"""compile=True through ``@`` of stacks of matrices (3-d arrays, broadcast against a matrix or a
stack of one), ``np.linalg.solve``, ``slogdet`` and ``cholesky`` and ``np.diag`` of a matrix (the
kernel a default argument, a function the code is made for), a list of arrays of
which items are read (``q, k, v = [x @ W for W in weights]``) and ``np.vstack`` and
``np.hstack`` of a list: each program compiles (no CompiledFallbackWarning) and its gradient is
the NumPy path's and central differences'. Stacks whose sizes NumPy refuses to broadcast are
NumPy's error, from the NumPy path.

Numba compiles each program for 10-20 s of CPU (its LAPACK bindings, the stacks' loops): they
run with S2SAD_TESTS=full only, as the compiled mode of the corpora does."""
import warnings

import numpy as np
import pytest

import s2sad
from corpus_cases import FULL
from test_compiled_arrays import compiled_against_references

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not FULL, reason="Numba's compiles of these take a minute: S2SAD_TESTS=full")
rng = np.random.default_rng(17)


def normal(*shape, scale=1.0):
    return rng.normal(size=shape) * scale


def stacked_products(q, k, W, P):
    """3-d @ 3-d, 3-d @ a matrix, a matrix @ 3-d, and a stack of one broadcast against a stack."""
    scores = q @ np.transpose(k, (0, 2, 1))
    mixed = np.tanh(scores) @ (k @ W)
    lifted = W.T @ np.transpose(mixed, (0, 2, 1))
    return np.sum(lifted ** 2) + np.sum(P @ mixed)


def solved_and_logdet(log_alpha, X, t, B):
    """Bayesian linear regression's evidence terms: a solve of a vector and of a matrix, and slogdet."""
    A = np.exp(log_alpha) * np.eye(X.shape[1]) + X.T @ X
    m = np.linalg.solve(A, X.T @ t)
    M = np.linalg.solve(A, B)
    sign, logdet = np.linalg.slogdet(A)
    return np.sum((t - X @ m) ** 2) + np.sum(M ** 2) - 0.5 * logdet


def rbf(log_scale, x):
    return np.exp(log_scale - 0.5 * (x[:, None] - x[None, :]) ** 2)


def gp_evidence(log_scale, x, y, kernel=rbf):
    """A Gaussian process's evidence through its Cholesky factor, its kernel a function's default."""
    L = np.linalg.cholesky(kernel(log_scale, x) + 0.1 * np.eye(len(x)))
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(L)))


def heads_from_a_list(x, Wq, Wk, Wv):
    """Items of a list comprehension unpacked, and a list joined by vstack and hstack."""
    q, k, v = [np.tanh(x @ W) for W in (Wq, Wk, Wv)]
    rows = []
    for i in range(x.shape[0]):
        rows.append(q[i] * k[i])
    columns = [v, q * v]
    return np.sum(np.vstack(rows) ** 2) + np.sum(np.hstack(columns) ** 3)


PROGRAMS = {
    "stacked_products": (stacked_products, lambda: (normal(2, 3, 4), normal(2, 5, 4), normal(4, 4),
                                                    normal(1, 2, 3)), (0, 1, 2, 3)),
    "solved_and_logdet": (solved_and_logdet, lambda: (0.3, normal(6, 3), normal(6), normal(3, 2)), (0, 1, 2, 3)),
    "gp_evidence": (gp_evidence, lambda: (0.2, normal(4), normal(4)), (0, 1, 2)),
    "heads_from_a_list": (heads_from_a_list, lambda: (normal(3, 4, scale=0.5), normal(4, 2), normal(4, 2),
                                                      normal(4, 2)), (0, 1, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_compiles_and_gives_the_references(name):
    f, make, argnums = PROGRAMS[name]
    compiled_against_references(f, make(), argnums)


def test_stacks_numpy_does_not_broadcast_are_numpys_error():
    f, make, argnums = PROGRAMS["stacked_products"]
    q, k, W, P = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", s2sad.CompiledFallbackWarning)  # (the call that raised ran on the NumPy path)
        with pytest.raises(ValueError):
            s2sad.grad(f, argnums=argnums, compile=True)(q, k, W, normal(3, 2, 3))
