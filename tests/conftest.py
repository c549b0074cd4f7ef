import os
import sys

import pytest

# The suite's compile=True gradients are compiled at LLVM's -O2, not Numba's default -O3 (set here,
# before anything imports Numba; workers and the processes tests start inherit it). The numbers
# cannot differ: without fast-math flags LLVM may not reorder floating-point arithmetic at any
# level, and test_optimisation_levels checks gradients bit for bit at both. -O3's extra passes
# were a quarter of the compiled tests' CPU, and up to five sixths for 3-d array expressions.
# NUMBA_OPT=3 in the environment runs the suite at the default.
os.environ.setdefault("NUMBA_OPT", "2")

# Every test session gets its own cache directory, so runs never see each other's entries.
@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    directory = tmp_path_factory.mktemp("s2sad-cache")
    previous = os.environ.get("S2SAD_CACHE_DIR")
    os.environ["S2SAD_CACHE_DIR"] = str(directory)
    yield directory
    if previous is None:
        os.environ.pop("S2SAD_CACHE_DIR", None)
    else:
        os.environ["S2SAD_CACHE_DIR"] = previous


sys.path.insert(0, os.path.dirname(__file__))
