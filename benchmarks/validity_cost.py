"""The cost of a warm call, where s2sad checks that the generated code is still current.

    python benchmarks/validity_cost.py

Every call of a derivative first checks that what its generated code was made from (the
function's code and defaults, the helpers and library functions it names, transitively)
is still what the names resolve to. This measures warm calls that do that check: a scalar
``grad`` (the fast path), ``value_and_grad`` of a function calling two levels of helpers,
``vjp`` and ``jvp``; then the check alone for each generated rrule those calls run. Best of 31
runs, in microseconds per call, single-threaded.

Measured when the check was added (2 shared cores, loaded; before -> after, best of three
interleaved runs): the scalar fast path 0.85 -> 1.02 us; the check alone 0.06-0.2 us for a
function with no dependencies, 0.3-0.7 us with a few (`np`, `np.exp`, a helper); the calls
through helpers (100-150 us) within noise.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import tempfile  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import s2sad  # noqa: E402

SOURCE = textwrap.dedent("""
    import numpy as np

    def scalar(x):
        return x * x + 3.0 * x

    def inner(x):
        return np.sin(x) * x

    def middle(x):
        return inner(x) + np.exp(x)

    def nested(x, scale=2.0):
        return middle(x) * scale + np.cos(x)

    def array(x):
        return np.sum(np.tanh(x) * x)
""")


def load():
    """The workload functions, from a real file (s2sad reads their source)."""
    directory = tempfile.mkdtemp(prefix="s2sad-validity-")
    path = os.path.join(directory, "validity_workload.py")
    with open(path, "w") as stream:
        stream.write(SOURCE)
    module = types.ModuleType("validity_workload")
    module.__file__ = path
    exec(compile(SOURCE, path, "exec"), module.__dict__)
    sys.modules["validity_workload"] = module
    return module


def microseconds(call, repeats: int = 31, inner: int = 2000) -> float:
    for _ in range(200):
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            call()
        times.append((time.perf_counter() - start) / inner)
    return min(times) * 1e6  # the least disturbed run: other processes only ever add time


def main() -> None:
    m = load()
    vector = np.linspace(0.1, 1.0, 8)
    grad_scalar = s2sad.grad(m.scalar)
    value_and_grad_nested = s2sad.value_and_grad(m.nested)
    grad_array = s2sad.grad(m.array)
    cases = {
        "grad, scalar x*x + 3x (fast path)": lambda: grad_scalar(1.5),
        "value_and_grad, two levels of helpers": lambda: value_and_grad_nested(0.7),
        "grad, array np.sum(np.tanh(x) * x)": lambda: grad_array(vector),
        "vjp, two levels of helpers": lambda: s2sad.vjp(m.nested, 0.7)[1](1.0),
        "jvp, two levels of helpers": lambda: s2sad.jvp(m.nested, (0.7,), (1.0,)),
    }
    print(f"{'workload':45s} {'us/call':>8s}")
    for name, call in cases.items():
        print(f"{name:45s} {microseconds(call):8.2f}")
    # The check alone, for each generated rrule a call runs (a helper's runs when it is called):
    # steadier than the difference of two noisy call timings.
    from s2sad.transform import generated_rrule

    print(f"\n{'the check before a call of the rrule of':45s} {'us/check':>8s}")
    for function, wrt in ((m.scalar, ("x",)), (m.nested, ("x",)), (m.middle, ("x",)), (m.inner, ("x",)),
                          (m.array, ("x",))):
        check = generated_rrule(function, wrt).__s2sad_current__
        print(f"{function.__name__:45s} {microseconds(lambda: check(function), inner=20000):8.3f}")


if __name__ == "__main__":
    main()
