"""The damped spring's gradient as its state grows: time against the hand-written gradient,
and the peak memory of a whole ``grad``, where what a loop's tape keeps alive shows.

    python benchmarks/spring_sizes.py            # n = 4, 1000, 1e5

Single-threaded; each time is the median of 9 interleaved rounds (hand-written, s2sad)
after a warm-up call; the peak is tracemalloc's, of one call after the warm-up.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import s2sad  # noqa: E402
import workloads as w  # noqa: E402


def median_seconds(functions: dict, rounds: int = 9) -> dict:
    for function in functions.values():
        function()
    start = time.perf_counter()
    functions["s2sad"]()
    repeats = max(1, int(0.02 / (time.perf_counter() - start)))
    times = {name: [] for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            start = time.perf_counter()
            for _ in range(repeats):
                function()
            times[name].append((time.perf_counter() - start) / repeats)
    return {name: statistics.median(values) for name, values in times.items()}


def peak_bytes(function) -> int:
    function()
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main():
    grad = s2sad.grad(w.spring, argnums=(0, 1, 2))
    rng = np.random.default_rng(0)
    print("| n | hand-written | s2sad | peak memory of a whole grad |")
    print("| --- | --- | --- | --- |")
    for n in (4, 1000, 100_000):
        x, v = rng.standard_normal(n), rng.standard_normal(n)
        times = median_seconds({"hand-written": lambda: w.spring_grad_by_hand(x, v, 2.0),
                                "s2sad": lambda: grad(x, v, 2.0)})
        peak = peak_bytes(lambda: grad(x, v, 2.0))
        hand, ours = times["hand-written"], times["s2sad"]
        print(f"| {n} | {hand * 1e6:.0f} us | {ours * 1e6:.0f} us ({ours / hand:.2f}×) | "
              f"{peak / 1e6:.2f} MB ({peak / x.nbytes:.0f}× the state) |")


if __name__ == "__main__":
    main()
