import os
import sys

import pytest

# The suite's compile=True gradients are compiled at LLVM's -O1, where users get s2sad's -O2 and
# Numba's default is -O3 (set here, before anything imports Numba; workers and the processes tests
# start inherit it). The numbers cannot differ: without fast-math flags LLVM may not reorder
# floating-point arithmetic at any level, and test_optimisation_levels checks gradients bit for bit
# against -O2 and -O3. -O1 takes a third less of the compiled tests' CPU than -O2 (48 -> 32 s for
# test_compiled_classes.py); -O0 would take less still, but its code keeps pointers Numba will not
# cache, which the tests of new processes need. NUMBA_OPT=2 or 3 in the environment runs the suite
# at that level.
os.environ.setdefault("NUMBA_OPT", "1")

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
