"""The benchmark suite: s2sad against a hand-written NumPy gradient and the peers, in one run.

    python benchmarks/run.py                  # all workloads, writes benchmarks/results.md
    python benchmarks/run.py --quick          # fewer repeats
    python benchmarks/run.py --only mlp,rnn

Every figure is the median of repeated runs after warm-up, single-threaded (BLAS, OpenMP
and XLA threads pinned to 1 before NumPy is imported); the columns of a workload are timed
in interleaved rounds, and each is checked against the hand-written gradient first.
Peers are optional (the `bench` extra): autograd, JAX (`jax.grad` eager and
`jax.jit(jax.grad)`), hand-written Numba gradients (benchmarks/numba_gradients.py),
PyTorch CPU eager; one that is not installed is skipped with a note. s2sad is measured twice: through
`s2sad.grad` (what a user calls) and calling the generated rrule and pullback directly
(the generated code alone).
"""
from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS"):
    os.environ.setdefault(_variable, "1" if _variable != "XLA_FLAGS" else
                          "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import s2sad  # noqa: E402
import workloads as w  # noqa: E402


def calls_per_batch(function) -> tuple[float, int]:
    """One warm-up call, then the time of one call and how many calls make a batch of about 1 ms
    (very fast calls are timed in batches, so the timer is not what is measured)."""
    function()
    start = time.perf_counter()
    function()
    once = time.perf_counter() - start
    return once, max(1, int(1e-3 / max(once, 1e-9)))


def interleaved_medians(functions: dict, repeats: int, budgets: dict | None = None) -> dict:
    """Median seconds per call of each function, timed in interleaved rounds.

    Each round times one batch of every function in turn, so a slow drift of the machine
    (another process, the CPU's clock) affects every column alike. A slow function takes
    part in fewer rounds: about ``budgets[name]`` seconds (2 s unless given), at least 3.
    """
    budgets = budgets or {}
    plans = {}
    for name, function in functions.items():
        once, inner = calls_per_batch(function)
        rounds = max(3, min(repeats, int(budgets.get(name, 2.0) / max(once, 1e-7))))
        plans[name] = (function, inner, rounds)
    times = {name: [] for name in functions}
    for round_index in range(max((plan[2] for plan in plans.values()), default=0)):
        for name, (function, inner, rounds) in plans.items():
            if round_index >= rounds:
                continue
            start = time.perf_counter()
            for _ in range(inner):
                function()
            times[name].append((time.perf_counter() - start) / inner)
    return {name: statistics.median(values) for name, values in times.items()}


# ---------------------------------------------------------------------- peers
def peers():
    found = {}
    try:
        import autograd
        import autograd.numpy as anp

        found["autograd"] = (autograd, anp)
    except ImportError:
        pass
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        found["jax"] = (jax, jnp)
    except ImportError:
        pass
    try:
        import torch

        torch.set_num_threads(1)
        torch.set_default_dtype(torch.float64)
        found["torch"] = (torch, None)
    except ImportError:
        pass
    try:
        import numba_gradients  # hand-written gradients compiled by numba

        found["numba"] = numba_gradients
    except ImportError:
        pass
    return found


def peer_versions(found) -> str:
    notes = []
    for name in ("autograd", "jax", "numba", "torch"):
        if name in found:
            from importlib import metadata

            try:
                version = metadata.version(name)
            except metadata.PackageNotFoundError:
                version = "?"
            notes.append(f"{name} {version}")
        else:
            notes.append(f"{name}: not installed, skipped")
    return ", ".join(notes)


def rewritten(np_module, *names) -> dict:
    """Functions of workloads.py compiled again from their source, with ``np`` naming
    ``np_module`` (their calls to one another resolve in the same namespace)."""
    namespace = {"np": np_module, "math": math}
    for name in names:
        source = textwrap.dedent(inspect.getsource(getattr(w, name)))
        exec(compile(source, w.__file__, "exec"), namespace)
    return namespace


def written_in(np_module, math_module=None):
    """The workloads again, in another array module (autograd.numpy, jax.numpy, torch: their
    functions share NumPy's names)."""
    m = math_module or np_module

    def scalar(x, y):
        return m.sin(x) * y + x ** 2 / y + m.exp(-x * y)

    def small(v):
        return np_module.sum(np_module.tanh(2.0 * v + 1.0) ** 2)

    def mlp(W1, W2, X, y):
        h = np_module.tanh(X @ W1)
        return np_module.mean((h @ W2 - y) ** 2)

    def elementwise(x):
        return np_module.sum(np_module.sin(x) * np_module.cos(x) + x ** 2)

    def rnn(W, h, x):
        for step in range(100):
            h = np_module.tanh(W @ h + x)
        return np_module.sum(h)

    def mysum(x):
        total = 0.0
        for i in range(len(x)):
            total = total + x[i]
        return total

    # the ODE workloads' own source, run again with `np` bound to np_module
    again = rewritten(np_module, "lotka_volterra", "rk4_step", "rk4", "spring")
    lotka_volterra, rk4_step, rk4, spring = (again[name] for name in ("lotka_volterra", "rk4_step", "rk4", "spring"))

    return {"scalar": scalar, "small": small, "mlp": mlp, "elementwise": elementwise, "rnn": rnn, "mysum": mysum,
            "rk4": rk4, "spring": spring, "lotka_volterra": lotka_volterra, "rk4_step": rk4_step}


def rk4_for_jit(jax, jnp):
    """The RK4 workload as a JAX user writes it for `jax.jit`: the time loop in `lax.fori_loop`.
    (`jax.jit` of the Python loop unrolls 500 steps: more than 9 minutes and 17 GB to compile here.)"""
    written = written_in(jnp)
    lotka_volterra, rk4_step = written["lotka_volterra"], written["rk4_step"]

    def rk4(params, y0):
        def step(i, carry):
            y, total = carry
            y = rk4_step(lotka_volterra, y, 0.01, params)
            return y, total + jnp.sum(y ** 2)

        return jax.lax.fori_loop(0, 500, step, (y0, jnp.zeros((), y0.dtype)))[1]

    return rk4


# ---------------------------------------------------------------------- one workload
def inputs(name: str, rng, n=None):
    if name == "scalar":
        return (0.7, 1.3), (0, 1)
    if name == "small":
        return (rng.standard_normal(10),), (0,)
    if name == "mlp":
        return (0.1 * rng.standard_normal((64, 256)), 0.1 * rng.standard_normal((256, 10)),
                rng.standard_normal((256, 64)), rng.standard_normal((256, 10))), (0, 1)
    if name == "elementwise":
        return (rng.standard_normal(1_000_000),), (0,)
    if name == "rnn":
        return (0.2 * rng.standard_normal((32, 32)), rng.standard_normal(32), rng.standard_normal(32)), (0,)
    if name == "mysum":
        return (rng.standard_normal(n),), (0,)
    if name == "rk4":  # parameters, then the initial populations (prey, predator)
        return (np.array([1.1, 0.4, 0.1, 0.4]), np.array([10.0, 5.0])), (0,)
    if name == "spring":  # position, velocity, stiffness
        return (rng.standard_normal(4), rng.standard_normal(4), 2.0), (0, 1, 2)
    raise KeyError(name)


def assert_same_gradient(got, expected, who: str) -> None:
    """Every column is checked against the hand-written gradient before it is timed."""
    got = got if isinstance(got, (tuple, list)) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected), f"{who}: {len(got)} gradients, expected {len(expected)}"
    for a, b in zip(got, expected):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-8, atol=1e-10,
                                   err_msg=f"{who} disagrees with the hand-written gradient")


def measure(name, repeats, found, n=None):
    """The columns of one workload: each checked against the hand-written gradient, then timed interleaved."""
    rng = np.random.default_rng(0)
    args, argnums = inputs(name, rng, n)
    argnum = argnums if len(argnums) > 1 else argnums[0]
    function = getattr(w, name)
    by_hand = getattr(w, f"{name}_grad_by_hand")
    expected = by_hand(*args)
    columns = {"hand-written": lambda: by_hand(*args)}
    budgets = {}
    grad = s2sad.grad(function, argnums=argnum)
    assert_same_gradient(grad(*args), expected, "s2sad")
    columns["s2sad"] = lambda: grad(*args)
    if importlib.util.find_spec("numba") is not None:
        compiled = s2sad.grad(function, argnums=argnum, compile=True)
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always", s2sad.CompiledFallbackWarning)
            assert_same_gradient(compiled(*args), expected, "s2sad compile=True")  # compiled here, at the first call
        if not fallbacks:  # a gradient that runs on the NumPy path is the s2sad column again
            columns["s2sad compile=True"] = lambda: compiled(*args)
    value_and_gradient = getattr(w, f"{name}_value_and_grad_by_hand", None)
    if value_and_gradient is not None:
        columns["hand-written value and gradient"] = lambda: value_and_gradient(*args)
    from s2sad.transform import generated_rrule

    names = list(inspect.signature(function).parameters)
    rrule = generated_rrule(function, tuple(names[i] for i in argnums))

    def generated_only():
        value, pullback = rrule(*args)
        return pullback(1.0)

    columns["s2sad generated code"] = generated_only
    if "autograd" in found and (name != "mysum" or n <= 10_000):  # autograd: 14 s a call at n = 1e5
        autograd, anp = found["autograd"]
        g_autograd = autograd.grad(written_in(anp)[name], argnum=argnum)
        assert_same_gradient(g_autograd(*args), expected, "autograd")
        columns["autograd"] = lambda: g_autograd(*args)
        budgets["autograd"] = 4.0
    if "jax" in found:
        jax, jnp = found["jax"]
        f = written_in(jnp)[name]
        jargs = tuple(jnp.asarray(a) for a in args)
        g_jax = jax.grad(f, argnums=argnum)
        if name not in ("mysum", "rk4"):  # eager JAX dispatches op by op: minutes at n = 1e4, 17 s a call on rk4
            assert_same_gradient(g_jax(*jargs), expected, "jax eager")
            columns["jax eager"] = lambda: jax.block_until_ready(g_jax(*jargs))
            budgets["jax eager"] = 4.0
        if name != "mysum" or n <= 1000:  # tracing unrolls the Python loop: one op per element to compile
            jitted = jax.jit(jax.grad(rk4_for_jit(jax, jnp), argnums=argnum) if name.startswith("rk4") else g_jax)
            assert_same_gradient(jitted(*jargs), expected, "jax.jit")
            columns["jax.jit"] = lambda: jax.block_until_ready(jitted(*jargs))
    if "numba" in found:
        by_numba = getattr(found["numba"], name)
        assert_same_gradient(by_numba(*args), expected, "numba")
        columns["numba (hand-written)"] = lambda: by_numba(*args)
    if "torch" in found:
        torch = found["torch"][0]
        f = written_in(torch)[name]

        def torch_grad():
            tensors = [torch.tensor(a, requires_grad=(i in argnums)) for i, a in enumerate(args)]
            f(*tensors).backward()
            return [tensors[i].grad for i in argnums]

        try:
            torch_gradient = torch_grad()
        except (AttributeError, TypeError) as error:  # a NumPy name torch spells differently (np.array)
            print(f"torch eager skipped on {name}: {error}", file=sys.stderr)
        else:
            assert_same_gradient([np.asarray(t) for t in torch_gradient], expected, "torch")
            columns["torch eager"] = torch_grad
            budgets["torch eager"] = 4.0
    return interleaved_medians(columns, repeats, budgets)


def mysum_memory(n: int) -> dict:
    x = np.random.default_rng(0).standard_normal(n)
    grad = s2sad.grad(w.mysum)
    grad(x)
    tracemalloc.start()
    grad(x)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    value, pullback = s2sad.vjp(w.mysum, x)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    pullback(1.0)
    reverse_peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return {"peak": peak, "reverse peak": reverse_peak}


def elementwise_memory(n: int) -> dict:
    """tracemalloc peaks (beyond x itself) of the elementwise function, of its gradient (a later
    call: block by block), of the same gradient computed whole, and of compile=True's (one pass,
    s2sad/compiled_elementwise.py; None without Numba)."""
    from s2sad.runtime import blocks

    x = np.random.default_rng(0).standard_normal(n)
    grad = s2sad.grad(w.elementwise)
    grad(x[:blocks.SMALLEST])  # the first call computes whole: make the lane on a small array

    def peak(run):
        tracemalloc.start()
        run()
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    whole_from = blocks.SMALLEST
    primal = peak(lambda: w.elementwise(x))
    blocked = peak(lambda: grad(x))
    blocks.SMALLEST = 10 ** 18
    try:
        whole = peak(lambda: grad(x))
    finally:
        blocks.SMALLEST = whole_from
    compiled = None
    if importlib.util.find_spec("numba") is not None:
        compiled_grad = s2sad.grad(w.elementwise, compile=True)
        compiled_grad(x[:blocks.SMALLEST])  # compiled before it is measured
        compiled = peak(lambda: compiled_grad(x))
    return {"primal": primal, "gradient": blocked, "gradient computed whole": whole, "compile=True": compiled}


def transform_cost() -> dict:
    """First gradient of the 50-line function on an empty cache, and from a warm disk cache in a new process."""
    script = (
        "import time; t = time.perf_counter(); import numpy as np, s2sad, sys; sys.path.insert(0, {here!r}); "
        "import workloads as w; rng = np.random.default_rng(0); "
        "args = (rng.standard_normal((4, 8)), rng.standard_normal(8), rng.standard_normal((8, 3)), rng.standard_normal(3), "
        "rng.standard_normal((16, 4)), np.eye(3)[rng.integers(0, 3, 16)], 0.01); "
        "t0 = time.perf_counter(); s2sad.grad(w.fifty_lines, argnums=(0, 1, 2, 3))(*args); "
        "print(time.perf_counter() - t0, t0 - t)"
    ).format(here=HERE)
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, S2SAD_CACHE_DIR=cache)
        cold = [float(v) for v in subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                                  text=True, check=True).stdout.split()]
        warm = []
        for _ in range(5):
            warm.append([float(v) for v in subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                                           text=True, check=True).stdout.split()])
    return {"empty cache": cold[0], "warm cache, new process": statistics.median(v[0] for v in warm),
            "import s2sad": statistics.median(v[1] for v in warm)}


def compiled_first_call(name: str) -> dict:
    """compile=True's first call of a workload in a new process: with nothing cached (Numba's
    cache in an empty ``NUMBA_CACHE_DIR`` too), as a new function whose helpers an earlier
    process compiled (an empty s2sad cache, Numba's kept: compiled_helpers.py keeps them on disk),
    from Numba's disk cache (the second process, which builds the machine code kept ahead of time
    as it exits), and from the caches after that (median of 5; whether Numba was imported)."""
    script = (
        "import time, sys; sys.path.insert(0, {here!r}); import numpy as np, s2sad, json; import workloads as w; "
        "from run import inputs; args, argnums = inputs({name!r}, np.random.default_rng(0)); "
        "g = s2sad.grad(w.{name}, argnums=argnums if len(argnums) > 1 else argnums[0], compile=True); "
        "t0 = time.perf_counter(); g(*args); t1 = time.perf_counter(); "
        "print(json.dumps([t1 - t0, 'numba' in sys.modules]))"
    ).format(here=HERE, name=name)

    def first_call(env):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        seconds, numba_imported = json.loads(done.stdout.strip().splitlines()[-1])
        return seconds, numba_imported, time.perf_counter() - started

    with tempfile.TemporaryDirectory() as prepared, tempfile.TemporaryDirectory() as first:
        # `s2sad precompile` first (its programs are not this workload), then the first call
        subprocess.run([sys.executable, "-m", "s2sad", "precompile"], env=dict(os.environ, NUMBA_CACHE_DIR=prepared),
                       capture_output=True, text=True, check=True)
        after_precompile = first_call(dict(os.environ, S2SAD_CACHE_DIR=first, NUMBA_CACHE_DIR=prepared))
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as first, \
            tempfile.TemporaryDirectory() as cache:
        cold = first_call(dict(os.environ, S2SAD_CACHE_DIR=first, NUMBA_CACHE_DIR=numba_cache))
        env = dict(os.environ, S2SAD_CACHE_DIR=cache, NUMBA_CACHE_DIR=numba_cache)
        new_function = first_call(env)
        # (awaiting its build at exit, which by default goes on in a child process after it ended)
        second = first_call(dict(env, S2SAD_AHEAD_OF_TIME="wait"))
        warm = [first_call(env) for _ in range(5)]
    return {"nothing cached": cold[0], "after `s2sad precompile`": after_precompile[0],
            "a new function, its helpers cached": new_function[0],
            "Numba's cache (a second process)": second[0],
            "the second process, building as it exits": second[2],
            "from the caches (median of 5)": statistics.median(v[0] for v in warm),
            "numba imported from the caches": any(v[1] for v in warm)}


def format_time(seconds: float) -> str:
    if seconds < 1e-5:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


NOTES_MARKER = "<!-- Written by hand below this line: benchmarks/run.py keeps it when it rewrites the tables. -->"


def kept_notes(path: str) -> str:
    """The hand-written part of an existing results file (from NOTES_MARKER on), or nothing."""
    try:
        with open(path) as stream:
            text = stream.read()
    except OSError:
        return ""
    start = text.find(NOTES_MARKER)
    return "" if start < 0 else "\n" + text[start:]


def format_ratio(ratio: float) -> str:
    return f"{ratio:.2f}×" if ratio >= 0.1 else f"{ratio:.2g}×"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a rough picture in a minute)")
    parser.add_argument("--only", help="comma-separated workloads: scalar,small,mlp,elementwise,rnn,mysum,rk4,spring,"
                        "transform,first_call,tape")
    parser.add_argument("--output", default=os.path.join(HERE, "results.md"))
    parser.add_argument("--no-peers", action="store_true",
                        help="hand-written and s2sad only (before/after comparisons)")
    arguments = parser.parse_args(argv)
    repeats = 7 if arguments.quick else 31
    chosen = arguments.only.split(",") if arguments.only else ["scalar", "small", "mlp", "elementwise", "rnn",
                                                                "rk4", "spring", "mysum", "transform", "first_call",
                                                                "tape"]
    found = {} if arguments.no_peers else peers()
    columns = ["hand-written", "s2sad", "s2sad compile=True", "s2sad generated code", "autograd", "jax eager",
               "jax.jit", "numba (hand-written)", "torch eager"]
    lines = [
        "# s2sad benchmarks",
        "",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"NumPy {np.__version__}; single-threaded. Peers: {peer_versions(found)}.",
        "Medians of repeated runs after warm-up. Ratios are to the hand-written NumPy gradient (lower is better).",
        "",
        "| workload | " + " | ".join(columns) + " |",
        "| --- | " + " | ".join("---" for _ in columns) + " |",
    ]
    rows = []
    for name in chosen:
        if name in ("transform", "first_call", "tape"):
            continue
        sizes = [1000, 10000, 100000] if name == "mysum" else [None]
        for n in sizes:
            label = f"mysum n={n}" if n else name
            print(f"measuring {label} ...", file=sys.stderr)
            row = measure(name, repeats if not n or n < 100000 else 3, found, n)
            rows.append((label, row))
            base = row["hand-written"]
            cells = []
            for column in columns:
                if column not in row:
                    cells.append("—")
                elif column == "hand-written":
                    cells.append(format_time(row[column]))
                else:
                    cells.append(f"{format_time(row[column])} ({format_ratio(row[column] / base)})")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    both = [(label, row) for label, row in rows if "hand-written value and gradient" in row]
    if both:
        lines += ["", "Where the hand-written gradient skips work a pullback cannot (elementwise: `cos 2x` needs "
                  "no `sin`), against a hand-written function returning the value and the gradient:", "",
                  "| workload | hand-written value and gradient | s2sad | s2sad generated code |", "| --- | --- | --- | --- |"]
        for label, row in both:
            base = row["hand-written value and gradient"]
            lines.append(f"| {label} | {format_time(base)} | {format_time(row['s2sad'])} ({row['s2sad'] / base:.2f}×) | "
                         f"{format_time(row['s2sad generated code'])} ({row['s2sad generated code'] / base:.2f}×) |")
    if "mysum" in chosen:
        lines += ["", "`mysum` memory (tracemalloc peak of a whole `grad`, and of the reverse pass alone):", "",
                  "| n | whole grad | per element | reverse pass | x itself |", "| --- | --- | --- | --- | --- |"]
        for n in (1000, 10000, 100000):
            memory = mysum_memory(n)
            lines.append(f"| {n} | {memory['peak'] / 1e6:.2f} MB | {memory['peak'] / n:.0f} B | "
                         f"{memory['reverse peak'] / 1e6:.3f} MB | {8 * n / 1e6:.3f} MB |")
    if "elementwise" in chosen:
        print("measuring elementwise memory ...", file=sys.stderr)
        lines += ["", "Elementwise memory (tracemalloc peak beyond x; the gradient of np.sum of an elementwise "
                  "expression goes block by block on the NumPy path, `s2sad/runtime/blocks.py`; with compile=True in one pass, "
                  "`s2sad/compiled_elementwise.py`):", "",
                  "| n | primal | gradient | ratio | gradient computed whole | ratio | compile=True (one pass) | ratio |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for n in ((10 ** 7,) if arguments.quick else (10 ** 6, 10 ** 8)):
            memory = elementwise_memory(n)
            primal = memory["primal"]
            lines.append(f"| {n:.0e} | {primal / 1e6:.0f} MB | {memory['gradient'] / 1e6:.0f} MB | "
                         f"{memory['gradient'] / primal:.2f}× | {memory['gradient computed whole'] / 1e6:.0f} MB | "
                         f"{memory['gradient computed whole'] / primal:.2f}× | "
                         + (f"{memory['compile=True'] / 1e6:.0f} MB | {memory['compile=True'] / primal:.2f}× |"
                            if memory["compile=True"] is not None else "— | — |"))
    if "transform" in chosen:
        print("measuring transform cost ...", file=sys.stderr)
        cost = transform_cost()
        lines += ["", "Transform cost of a 50-line function (`benchmarks/workloads.py:fifty_lines`), each in a new process:",
                  "", "| | time |", "| --- | --- |"]
        for key, value in cost.items():
            lines.append(f"| {key} | {format_time(value)} |")
    if "first_call" in chosen and importlib.util.find_spec("numba") is not None:
        lines += ["", "compile=True's first call in a new process (`compiled_first_call`; from the caches: the "
                  "machine code kept ahead of time, `s2sad/ahead_of_time.py`):", "",
                  "| workload | nothing cached | nothing cached but `s2sad precompile` | a new function (its helpers "
                  "cached) | Numba's cache (second process) | second process in all (builds at exit) "
                  "| from the caches (median of 5) | Numba imported then |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name in ("scalar", "rnn"):
            print(f"measuring the first compiled call of {name} ...", file=sys.stderr)
            first = compiled_first_call(name)
            cells = [format_time(value) for value in list(first.values())[:6]]
            lines.append(f"| {name} | " + " | ".join(cells) + f" | {'yes' if first['numba imported from the caches'] else 'no'} |")
    if "tape" in chosen:
        print("measuring tape bytes ...", file=sys.stderr)
        import tape_size

        lines += ["", "Tape bytes per loop iteration (`benchmarks/tape_size.py`): what the pullback keeps alive, "
                  "against the data its reverse pass reads (a loop invariant counted once):", ""]
        lines += tape_size.table()
    text = "\n".join(lines) + "\n" + kept_notes(arguments.output)
    print(text)
    with open(arguments.output, "w") as stream:
        stream.write(text)
    print(f"written to {arguments.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
