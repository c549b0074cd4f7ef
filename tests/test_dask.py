"""The same generated code on Dask arrays: lazy gradients, computed chunk by chunk on a
dask.distributed cluster, equal to the NumPy result. Skipped when Dask is not installed
(it is optional: the `dask` extra)."""
import numpy as np
import pytest

import forward_programs as programs
import s2sad

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def _data(rows=2000, features=6, chunk=500):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((rows, features))
    y = (X @ rng.standard_normal(features) + 0.3 * rng.standard_normal(rows) > 0).astype(float)
    return X, y, da.from_array(X, chunks=(chunk, features)), da.from_array(y, chunks=chunk)


def test_logistic_regression_gradient_is_lazy_and_equals_numpy(client):
    X, y, Xd, yd = _data()
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    expected = s2sad.grad(programs.logistic_loss)(w, X, y)
    gradient = s2sad.grad(programs.logistic_loss)(w, Xd, yd)
    assert isinstance(gradient, da.Array)          # nothing computed yet
    assert Xd.numblocks[0] == 4                    # several chunks
    np.testing.assert_allclose(gradient.compute(), expected, rtol=1e-10)


def test_mlp_gradients_over_chunks(client):
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((1200, 5)), rng.standard_normal((1200, 2))
    Xd, Yd = da.from_array(X, chunks=(300, 5)), da.from_array(Y, chunks=(300, 2))
    W1, W2 = 0.5 * rng.standard_normal((5, 8)), 0.5 * rng.standard_normal((8, 2))
    expected = s2sad.grad(programs.mlp_loss, argnums=(0, 1))(W1, W2, X, Y)
    lazy = s2sad.grad(programs.mlp_loss, argnums=(0, 1))(W1, W2, Xd, Yd)
    assert all(isinstance(g, da.Array) for g in lazy)
    computed = da.compute(*lazy)
    for got, want in zip(computed, expected):
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_a_dask_parameter_gets_a_dask_gradient_of_its_shape_and_dtype(client):
    X, y, Xd, yd = _data(rows=400, chunk=100)
    wd = da.from_array(np.linspace(-1, 1, X.shape[1]).astype(np.float32), chunks=3)
    gradient = s2sad.grad(programs.logistic_loss)(wd, Xd, yd)
    assert isinstance(gradient, da.Array) and gradient.shape == wd.shape and gradient.dtype == np.float32
    expected = s2sad.grad(programs.logistic_loss)(np.asarray(wd), X, y)
    np.testing.assert_allclose(gradient.compute(), expected, rtol=1e-5)
