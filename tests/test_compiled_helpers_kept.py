"""The compiled helpers kept in Numba's disk cache (s2sad/compiled_helpers.py, "kept on disk"):
a new function's gradient, compiled in a new process, loads the helpers an earlier process
compiled instead of compiling them again, and gives the same numbers bit for bit, which are
central differences. Neither process imports ``scipy.linalg`` (Numba's check for BLAS imports it:
0.2 s of CPU of a cold first call; compiled.py finds BLAS by ``ahead_of_time.blas_nearby``).

Each run is a new Python process on one Numba cache (``NUMBA_CACHE_DIR``, so nothing from
elsewhere is found) and its own empty s2sad cache (so the generated function is compiled anew)."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from finite_differences import numerical_gradient as central

numba = pytest.importorskip("numba")

PROGRAM = '''\
import json
import sys

import numpy as np
from numba.core import typed_passes

import s2sad

lowered = []  # the module of each function Numba compiles to machine code in this process
qualnames = []  # and its name
lower = typed_passes.NativeLowering.run_pass


def counted(self, state):
    lowered.append(state.func_id.modname)
    qualnames.append(state.func_id.func_qualname)
    return lower(self, state)


typed_passes.NativeLowering.run_pass = counted


def recurrent(W, h, b):
    for step in range(4):
        h = np.tanh(W @ h + b)   # b of shape (1,): its cotangent is summed to one element
    return np.sum(h * h)


rng = np.random.default_rng(11)
W, h, b = 0.5 * rng.standard_normal((4, 4)), rng.standard_normal(4), rng.standard_normal(1)
dW, dh, db = s2sad.grad(recurrent, argnums=(0, 1, 2), compile=True)(W, h, b)
print(json.dumps({"W": W.tolist(), "h": h.tolist(), "b": b.tolist(),
                  "gradients": [dW.tolist(), dh.tolist(), db.tolist()],
                  "helpers": lowered.count("s2sad.compiled_helpers"),
                  "generated": sum(m.startswith("s2sad_generated") for m in lowered),
                  "lambdas": [name for name in qualnames if name.endswith("<lambda>")],
                  "scipy.linalg imported": "scipy.linalg" in sys.modules,
                  "libcst.matchers imported": "libcst.matchers" in sys.modules}))
'''


def recurrent(W, h, b):
    for step in range(4):
        h = np.tanh(W @ h + b)
    return np.sum(h * h)


def test_a_new_function_loads_the_helpers_an_earlier_process_compiled(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)

    def run(s2sad_cache: str) -> dict:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), S2SAD_CACHE_DIR=str(tmp_path / s2sad_cache))
        done = subprocess.run([sys.executable, str(tmp_path / "program.py")], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])

    first, second = run("first"), run("second")
    assert first["helpers"] > 0 and first["generated"] > 0
    assert second["helpers"] == 0, "the helpers were compiled again"
    assert second["generated"] > 0, "the generated function itself was not compiled anew"
    assert not first["scipy.linalg imported"] and not second["scipy.linalg imported"]
    # (0.2 s of a cold first call to import, for one search the generator makes with a plain visitor)
    assert not first["libcst.matchers imported"]
    # an identity (conj, weak) or a call passed on (x @ W's, its cotangent's to _matrix_vector) is written into
    # its caller, not compiled as a function of its own (0.013-0.04 s each of the RNN's cold first call)
    forwarders = ("_conj.", "_weak.", "_numpy_matmul.", "_matmul_vjp_x2.")
    assert not [name for name in first["lambdas"] if name.startswith(forwarders)], first["lambdas"]
    assert second["gradients"] == first["gradients"]   # bit for bit (JSON keeps a float's every digit)
    args = tuple(np.array(first[name]) for name in ("W", "h", "b"))
    for position, gradient in enumerate(first["gradients"]):
        np.testing.assert_allclose(gradient, central(recurrent, args, position), rtol=1e-6, atol=1e-8)
