"""``s2sad precompile``: compile=True's helpers compiled into Numba's disk cache before any first call.

A compiled gradient's first call compiles, besides the function's own code, the helpers it calls
for the kinds of argument it meets: a large part of the RNN workload's cold first call (2.4-2.8 s
of CPU here; 1.6-2.2 s once its helpers are cached). The helpers are kept on disk once compiled
(compiled_helpers.py), so only the first function ever run on a machine pays for them; this
command pays that once, ahead of time (after ``pip install``, in a Docker image build, at the
start of a CI job), as installing a Julia package precompiles it.

It differentiates the programs of ``precompiled_programs`` with ``compile=True``, in a child
process whose s2sad cache is a temporary directory: the helpers' machine code goes where
Numba keeps it (beside compiled_helpers.py, or ``NUMBA_CACHE_DIR``); the programs' own code is
thrown away with the directory, and the user's s2sad cache is not touched.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

__all__ = ["precompile"]


def precompile(jobs: int = 2, only: tuple = (), report=print) -> bool:
    """Run the programs (those named in ``only``, or all) in ``jobs`` child processes, each taking
    every ``jobs``-th one (Numba's cache is locked for concurrent writers: numba_cache.py);
    ``report`` gets a line per program. Whether every one compiled."""
    with tempfile.TemporaryDirectory(prefix="s2sad-precompile-") as throwaway:
        environment = dict(os.environ, S2SAD_CACHE_DIR=throwaway, S2SAD_AHEAD_OF_TIME="0")
        children = [subprocess.Popen([sys.executable, "-m", "s2sad.precompile", str(part), str(jobs), *only],
                                     env=environment, stdout=subprocess.PIPE, text=True) for part in range(jobs)]
        every_one = True
        for child in children:
            for line in child.stdout:
                done = json.loads(line)
                every_one = every_one and done["compiled"]
                how = "compiled" if done["compiled"] else f"not compiled: {done['why']}"
                report(f"{done['program']:<14} {done['arguments']:<48} {done['seconds']:6.2f} s  {how}")
        return all(child.wait() == 0 for child in children) and every_one


def _kinds(args) -> str:
    return ", ".join(f"{a.dtype}{list(a.shape)}" if hasattr(a, "dtype") else type(a).__name__ for a in args)


def _run_programs(part: int, parts: int, only: list) -> None:
    """A child: the compiled gradient of every ``parts``-th program (of those named in ``only``, or
    all) from ``part`` on, a JSON line each."""
    import s2sad

    from .errors import CompiledFallbackWarning, S2SADError
    from .precompiled_programs import PROGRAMS

    chosen = [case for case in PROGRAMS if not only or case[0].__name__ in only]
    for program, args, argnums in chosen[part::parts]:
        started = time.perf_counter()
        with warnings.catch_warnings(record=True) as fallbacks:
            warnings.simplefilter("always", CompiledFallbackWarning)
            try:
                s2sad.grad(program, argnums=argnums, compile=True)(*args)
            except S2SADError:  # fell back (said in the warning), and the NumPy path does not take s2sad's own code
                pass
        fell_back = [str(w.message) for w in fallbacks if issubclass(w.category, CompiledFallbackWarning)]
        print(json.dumps({"program": program.__name__, "arguments": _kinds(args), "compiled": not fell_back,
                          "why": fell_back[0].splitlines()[0] if fell_back else "",
                          "seconds": time.perf_counter() - started}), flush=True)


if __name__ == "__main__":
    _run_programs(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:])
