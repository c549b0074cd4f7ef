"""compile=True's cold first call: the RNN workload's gradient in new processes, nothing cached.

    python benchmarks/cold_call.py                       # 5 new processes, this checkout
    python benchmarks/cold_call.py -n 7 --against /tmp/base   # taking turns with another checkout
    python benchmarks/cold_call.py --precompiled         # after `s2sad precompile` (done once, copied)

Each process gets fresh temporary ``S2SAD_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` (a copy of the
precompiled one with ``--precompiled``), ``S2SAD_AHEAD_OF_TIME=0`` and Python's bytecode cache
allowed. It times in CPU seconds (``time.process_time``; the machine is shared) the import of
Numba, then ``grad(rnn, compile=True)`` and its first call, and records Numba's ``numba:compile``
events with exclusive CPU time (a compile's own time, less the compiles it started). Printed: the
medians of each phase and of each compiled function's exclusive time, per checkout.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r'''
import json, sys, time
sys.path.insert(0, {root!r})
sys.path.insert(1, {benchmarks!r})
import numpy as np
import s2sad
from workloads import {workload} as function
rng = np.random.default_rng(0)
args = (0.2 * rng.standard_normal((32, 32)), rng.standard_normal(32), rng.standard_normal(32))

start = time.process_time()
import numba
from numba.core import event
imported = time.process_time() - start

stack, exclusive = [], {{}}

class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        began, inner = stack.pop()
        spent = time.process_time() - began
        if stack:
            stack[-1][1] += spent
        py = getattr(ev.data["dispatcher"], "py_func", None)
        name = getattr(py, "__qualname__", "?") + " (" + getattr(py, "__module__", "?").rpartition(".")[2] + ")"
        if {signatures}:
            name += " " + str(ev.data["args"])
        exclusive[name] = exclusive.get(name, 0.0) + spent - inner

event.register("numba:compile", Listener())
start = time.process_time()
gradient = s2sad.grad(function, compile=True)
made = time.process_time() - start
start = time.process_time()
gradient(*args)
called = time.process_time() - start
assert s2sad.__file__.startswith({root!r}), s2sad.__file__
print(json.dumps({{"import numba": imported, "grad()": made, "first call": called,
                  "total": imported + made + called, "events": exclusive}}))
'''


def environment(root: str, numba_cache: str, s2sad_cache: str) -> dict:
    """A child's environment: fresh caches, and ``root`` first on ``PYTHONPATH`` so that the processes
    `s2sad precompile` starts (``python -m``, run in a directory of their own) import ``root``'s s2sad."""
    env = dict(os.environ, NUMBA_CACHE_DIR=numba_cache, S2SAD_CACHE_DIR=s2sad_cache, S2SAD_AHEAD_OF_TIME="0",
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("NUMBA_OPT", None)
    return env


def precompiled(root: str) -> str:
    """A Numba cache directory holding `s2sad precompile`'s helpers, made by ``root``'s code."""
    kept = tempfile.mkdtemp(prefix="cold_call_precompiled_")
    with tempfile.TemporaryDirectory() as s2sad_cache:
        subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {root!r}); "
                        "from s2sad.command_line import main; sys.exit(main(['precompile']))"],
                       env=environment(root, kept, s2sad_cache), check=True, stdout=subprocess.DEVNULL, cwd=kept)
    return kept


def one_run(root: str, workload: str, template: str | None, signatures: bool = False) -> dict:
    with tempfile.TemporaryDirectory() as numba_cache, tempfile.TemporaryDirectory() as s2sad_cache:
        if template is not None:
            shutil.copytree(template, numba_cache, dirs_exist_ok=True)
        source = CHILD.format(root=root, benchmarks=str(HERE), workload=workload, signatures=signatures)
        done = subprocess.run([sys.executable, "-c", source], env=environment(root, numba_cache, s2sad_cache),
                              capture_output=True, text=True, cwd=numba_cache)
        if done.returncode != 0:
            raise SystemExit(f"{root}: the child failed\n{done.stderr}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def report(root: str, runs: list, top: int) -> None:
    print(f"\n== {root}: {len(runs)} runs (CPU seconds, medians; each run's value in brackets)")
    for phase in ("import numba", "grad()", "first call", "total"):
        values = [r[phase] for r in runs]
        print(f"  {phase:12} {statistics.median(values):6.3f}   [{', '.join(f'{v:.2f}' for v in values)}]")
    events = defaultdict(list)
    for r in runs:
        for name, spent in r["events"].items():
            events[name].append(spent)
    compiled = [statistics.median(v + [0.0] * (len(runs) - len(v))) for v in events.values()]
    print(f"  numba:compile events, exclusive CPU: {sum(compiled):.3f} s in all, the largest:")
    ranked = sorted(events.items(), key=lambda item: -statistics.median(item[1]))
    for name, values in ranked[:top]:
        print(f"    {statistics.median(values):6.3f}  x{len(values) / len(runs):.0f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="new processes per checkout")
    parser.add_argument("--against", help="another checkout's root, run taking turns with this one")
    parser.add_argument("--precompiled", action="store_true", help="after `s2sad precompile` (of each checkout)")
    parser.add_argument("--workload", default="rnn")
    parser.add_argument("--signatures", action="store_true", help="list each compiled signature apart")
    parser.add_argument("--top", type=int, default=25, help="how many compiled functions to list")
    arguments = parser.parse_args()
    roots = [str(HERE.parent)] + ([str(Path(arguments.against).resolve())] if arguments.against else [])
    templates = {root: precompiled(root) if arguments.precompiled else None for root in roots}
    runs = {root: [] for root in roots}
    try:
        for round_ in range(arguments.n):
            for root in roots if round_ % 2 == 0 else roots[::-1]:
                runs[root].append(one_run(root, arguments.workload, templates[root], arguments.signatures))
                print(f"  {root}: {runs[root][-1]['total']:.2f} s", file=sys.stderr)
    finally:
        for template in templates.values():
            if template is not None:
                shutil.rmtree(template, ignore_errors=True)
    for root in roots:
        report(root, runs[root], arguments.top)


if __name__ == "__main__":
    main()
