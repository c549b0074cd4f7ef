"""compile=True against the NumPy path on programs of the realistic corpus (tests/realistic_programs.py).

For each program named, both gradients are made and called once (compiling, loading the
caches), then timed in CPU time (``time.process_time``) in interleaved rounds: a round of
``calls`` compiled calls, then a round of NumPy-path calls, ``rounds`` times; the median
round of each, per call, is printed. Run from the repository root:

    .venv/bin/python benchmarks/compiled_versus_numpy.py dataclass_argument mlp_list_of_W_b_tuples
"""
import copy
import os
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import s2sad  # noqa: E402
import test_realistic_programs as corpus  # noqa: E402


def per_call(gradient, args, calls: int) -> float:
    start = time.process_time()
    for _ in range(calls):
        gradient(*args)
    return (time.process_time() - start) / calls


def compare(name: str, rounds: int = 15, calls: int = 200) -> tuple[float, float]:
    """(compiled, NumPy path) median CPU seconds per call of the program ``name``."""
    function, args, argnums = corpus._function(name)
    args = copy.deepcopy(args)
    compiled = s2sad.grad(function, argnums=argnums, compile=True)
    numpy_path = s2sad.grad(function, argnums=argnums)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.CompiledFallbackWarning)  # it must compile to be compared
        compiled(*args)
    numpy_path(*args)
    times = {"compiled": [], "numpy": []}
    for _ in range(rounds):
        times["compiled"].append(per_call(compiled, args, calls))
        times["numpy"].append(per_call(numpy_path, args, calls))
    return statistics.median(times["compiled"]), statistics.median(times["numpy"])


def main(names: list[str]) -> None:
    for name in names:
        fast, slow = compare(name)
        print(f"{name:40s} compiled {fast * 1e6:8.1f} us   NumPy path {slow * 1e6:8.1f} us   x{slow / fast:.1f}")


if __name__ == "__main__":
    main(sys.argv[1:])
