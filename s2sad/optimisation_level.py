"""The LLVM optimisation level compile=True's code is compiled at: -O2, where Numba's default is -O3.

What -O3 adds over -O2 costs compile time on array code and buys nothing measurable in run time
here (benchmarks/results.md, issue 19, sessions 18-19):
- the first call of a gradient of 2-d elementwise code: 11-15 s of CPU at -O3, 6-7.5 s at -O2;
  a 3-d transpose's gradient 28.9 s against 4.8 s;
- run time of seven compiled workloads at -O2 against -O3: 0.995-1.026 (medians);
- the same bits: LLVM reorders no floating-point arithmetic without fast-math flags, which s2sad
  never asks for (tests/test_optimisation_levels.py compares the two levels' gradients byte for byte).

Numba reads its level (``numba.core.config.OPT``) each time it optimises a function's code, so the
level is set around the calls that compile and set back after: a user's own ``@njit`` functions
compiled at other times keep Numba's default. A user who sets ``NUMBA_OPT`` gets that level.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["COMPILED_LEVEL", "compiled_level"]

COMPILED_LEVEL = 2

_lock = threading.Lock()
_inside = 0        # threads inside ``compiled_level`` now
_before = None     # the level they found, set back when the last one leaves


@contextlib.contextmanager
def compiled_level():
    """Numba compiles at ``COMPILED_LEVEL`` inside (unless the user chose a level with ``NUMBA_OPT``)."""
    global _inside, _before
    config = sys.modules.get("numba.core.config")
    if config is None or "NUMBA_OPT" in os.environ:
        # (without Numba imported nothing is compiled but what loads it: the machine code kept ahead
        # of time runs without it, and importing it costs 0.2 s)
        yield
        return

    with _lock:
        if _inside == 0:
            _before = config.OPT
            config.OPT = type(_before)(COMPILED_LEVEL)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                config.OPT = _before
