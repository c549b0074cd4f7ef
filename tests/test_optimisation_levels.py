"""The suite compiles at LLVM's -O1 (conftest.py) where users get s2sad's -O2 and Numba's default is
-O3: all must give the same gradients, bit for bit. A new process compiles the same programs at each
other level, with a Numba cache of its own (the shared one holds the suite's machine code), and the
bytes are compared."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import s2sad

pytest.importorskip("numba")

HERE = os.path.dirname(os.path.abspath(__file__))


def broadcast_chain(w, x):
    h = np.tanh(x * w + 0.5)
    return np.sum(np.exp(-h.T) * 0.5) + np.sum(np.sin(w) ** 2)


def damped_orbit(k, c):
    x, v = 1.0, 0.0
    for _ in range(200):
        a = -k * x - c * v + 0.1 * np.sin(x)
        v = v + 0.01 * a
        x = x + 0.01 * v
    return x * x + v * v


def inputs():
    rng = np.random.default_rng(18)
    return {"broadcast_chain": ((rng.normal(size=4), rng.normal(size=(3, 4))), (0, 1)),
            "damped_orbit": ((1.7, 0.3), (0, 1))}


def gradients_as_hex() -> dict:
    found = {}
    for name, (args, argnums) in inputs().items():
        with warnings.catch_warnings():
            warnings.simplefilter("error", s2sad.CompiledFallbackWarning)
            gradients = s2sad.grad(globals()[name], argnums=argnums, compile=True)(*args)
        found[name] = [np.asarray(g, dtype=np.float64).tobytes().hex() for g in gradients]
    return found


@pytest.mark.parametrize("level", [2, 3])
def test_gradients_compiled_at_the_suite_s_level_and_at_o2_and_o3_are_the_same_bits(tmp_path, level):
    from numba.core import config

    if int(config.OPT) == level:
        pytest.skip(f"this run compiles at -O{level} already (NUMBA_OPT={level})")
    script = ("import json, sys; sys.path.insert(0, {here!r}); import test_optimisation_levels as t; "
              "from numba.core import config; assert int(config.OPT) == {level}; "
              "print(json.dumps(t.gradients_as_hex()))").format(here=HERE, level=level)
    environment = dict(os.environ, NUMBA_OPT=str(level), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
                       S2SAD_CACHE_DIR=str(tmp_path / "s2sad"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    at_o3 = json.loads(done.stdout.strip().splitlines()[-1])
    assert gradients_as_hex() == at_o3


# ---------------------------------------------------------------------------- the level compile=True sets

def test_compiled_level_is_o2_inside_and_numba_s_own_outside(monkeypatch):
    from numba.core import config

    from s2sad.optimisation_level import COMPILED_LEVEL, compiled_level

    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.setattr(config, "OPT", type(config.OPT)(3))
    with compiled_level():
        assert int(config.OPT) == COMPILED_LEVEL == 2
        with compiled_level():  # nested (another thread's first call, or a check compiling again)
            assert int(config.OPT) == 2
        assert int(config.OPT) == 2
    assert int(config.OPT) == 3 and isinstance(config.OPT, type(config.OPT))
    with pytest.raises(ZeroDivisionError), compiled_level():
        1 / 0
    assert int(config.OPT) == 3
    monkeypatch.setenv("NUMBA_OPT", "3")  # the user's choice stands
    with compiled_level():
        assert int(config.OPT) == 3


def hill(a, b):
    return a * a / (1.0 + b * b) + 0.25 * a * b


def test_a_first_compiled_call_compiles_at_o2_unless_the_user_set_a_level(monkeypatch, tmp_path):
    from numba.core import config, event

    levels = []

    class Levels(event.Listener):
        def on_start(self, e):
            levels.append(int(config.OPT))

        def on_end(self, e):
            pass

    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.setattr(config, "OPT", type(config.OPT)(3))
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))  # nothing cached: Numba compiles
    with event.install_listener("numba:compile", Levels()):
        gradient = s2sad.grad(hill, argnums=(0, 1), compile=True)(0.5, 2.0)
    np.testing.assert_allclose(gradient, (2 * 0.5 / 5.0 + 0.5, -0.25 * 2 * 2.0 / 25.0 + 0.125), rtol=1e-14)
    assert levels and set(levels) == {2}
    assert int(config.OPT) == 3  # and Numba's own level again after
