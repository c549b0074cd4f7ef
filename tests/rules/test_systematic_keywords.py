"""The sweep's second half: keywords the transformer handles before a rule sees them.

``out=`` (written as ``out[...] = f(...)``, cast to ``out``'s dtype), ``where=`` with ``out=``
(the unselected elements keep ``out``'s values, and their gradient), ``dtype=``, ``axis`` and
``keepdims`` on reductions, broadcasting operands of binary ufuncs: each written into a small
program::

    def loss(x, y):
        out = 2.0 * x
        np.sin(x, out=out, where=MASK)
        r = out
        s = np.real(r * C)
        return np.sum(s * s) + np.sum(np.sin(s))

and checked by ``check_grad`` (reverse), ``check_jvp`` (forward) and ``check_hvp`` (second
order) against central differences of the plain program, in float64. A program NumPy cannot
run is dropped (at collection); an s2sad error (a located refusal) is allowed. By default each body runs once,
with a function drawn with a fixed seed (``S2SAD_SWEEP=full``: every function with every body).
"""
import importlib.util
import os
import zlib

import numpy as np
import pytest

from s2sad.errors import S2SADError
from s2sad.testing import check_grad, check_hvp, check_jvp

FULL = os.environ.get("S2SAD_SWEEP") == "full"

UNARY = "sin cos tanh exp log sqrt square negative absolute reciprocal arctan cbrt expm1 log1p".split()
COMPLEX_TAKEN = set("sin cos tanh exp log sqrt square negative reciprocal arctan expm1 log1p".split())
BINARY = "add subtract multiply divide power maximum minimum fmax arctan2 hypot logaddexp".split()
REDUCTIONS = "sum mean prod max min var std nansum nanmean ptp".split()
CUMULATIVE = "cumsum cumprod".split()

UNARY_BODIES = {
    "plain": "r = np.{f}(x)",
    "out": "out = np.zeros((2, 3))\n    np.{f}(x, out=out)\n    r = out",
    "out-returned": "out = np.zeros((2, 3))\n    r = np.{f}(x, out=out)",
    "out-where": "out = 2.0 * x\n    np.{f}(x, out=out, where=MASK)\n    r = out",
    "out-where-constant": "out = np.ones((2, 3))\n    np.{f}(x, out=out, where=MASK)\n    r = out * y",
    "dtype-complex": "r = np.{f}(x, dtype=np.complex128)",
    "out-complex": "out = np.zeros((2, 3), dtype=complex)\n    np.{f}(x, out=out)\n    r = out",
}
BINARY_BODIES = {
    "broadcast": "r = np.{f}(x, y)",
    "broadcast-swapped": "r = np.{f}(y, x)",
    "out": "out = np.zeros((2, 3))\n    np.{f}(x, y, out=out)\n    r = out",
    "out-where": "out = 1.0 * x\n    np.{f}(x, y, out=out, where=MASK)\n    r = out",
    "row-column": "r = np.{f}(x[:, :1], y[None, :])",
}
REDUCTION_BODIES = {
    "axis0": "r = np.{f}(x, axis=0)",
    "axis-1-keepdims": "r = np.{f}(x, axis=-1, keepdims=True) * x",
    "axis-tuple": "r = np.{f}(x, axis=(0, 1))",
    "out": "out = np.zeros(3)\n    np.{f}(x, axis=0, out=out)\n    r = out",
    "out-returned": "out = np.zeros(2)\n    r = np.{f}(x, axis=1, out=out) * y[0]",
    "where": "r = np.{f}(x, axis=1, where=MASK)",
    "dtype-complex": "r = np.{f}(x, axis=0, dtype=np.complex128)",
    "method": "r = x.{f}(axis=0)",
    "ufunc-reduce-out": "out = np.zeros(3)\n    np.add.reduce(x * y, axis=0, out=out)\n    r = out",
}
CUMULATIVE_BODIES = {
    "axis1": "r = np.{f}(x, axis=1)",
    "flat": "r = np.{f}(x)",
    "out": "out = np.zeros((2, 3))\n    np.{f}(x, axis=0, out=out)\n    r = out",
    "dtype-complex": "r = np.{f}(x, axis=1, dtype=np.complex128)",
}

SOURCE = """import numpy as np

MASK = np.array([True, False, True])
C = 0.7 - 0.3j


def loss(x, y):
    {body}
    s = np.real(r * C)
    return np.sum(s * s) + np.sum(np.sin(s))
"""


def _arguments(label):
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    return np.abs(rng.standard_normal((2, 3))) + 0.5, np.abs(rng.standard_normal(3)) + 0.5  # in every domain


def _numpy_runs(label, body):
    """Whether plain NumPy runs the program (np.max with where= needs initial=, ...): those it
    does not are dropped, not checked."""
    namespace = {}
    exec(compile(SOURCE.format(body=body), "<keywords>", "exec"), namespace)
    try:
        with np.errstate(all="raise"):
            namespace["loss"](*_arguments(label))
    except Exception:
        return False
    return True


def _programs():
    """Every program NumPy runs (``S2SAD_SWEEP=full``), or one of each body: the function drawn
    with a fixed seed from those NumPy runs it with."""
    programs = []
    picker = np.random.default_rng(16)
    for table, names in ((UNARY_BODIES, UNARY), (BINARY_BODIES, BINARY), (REDUCTION_BODIES, REDUCTIONS),
                         (CUMULATIVE_BODIES, CUMULATIVE)):
        for label, body in table.items():
            runs = [(f"{f}-{label}", body.format(f=f)) for f in names
                    if not ("complex" in label and table is UNARY_BODIES and f not in COMPLEX_TAKEN)
                    and _numpy_runs(f"{f}-{label}", body.format(f=f))]
            programs.extend(runs if FULL else [runs[picker.integers(len(runs))]])
    return programs


PROGRAMS = _programs()
KEPT = []  # modules stay alive: s2sad's caches are found by function identity


def _loss(tmp_path, label, body):
    path = tmp_path / f"keywords_{zlib.crc32(label.encode())}.py"
    path.write_text(SOURCE.format(body=body))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    KEPT.append(module)
    return module.loss


@pytest.mark.parametrize("label, body", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_keyword_program(tmp_path, label, body):
    loss = _loss(tmp_path, label, body)
    x, y = _arguments(label)
    for check in (check_grad, check_jvp, check_hvp):
        try:
            check(loss, x, y, argnums=(0, 1))
        except S2SADError:
            pass  # refused with s2sad's located error: allowed
