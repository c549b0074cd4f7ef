import os
import sys

import pytest

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


# Under pytest-xdist (pyproject's addopts, --dist loadgroup) these files' tests run on one worker,
# because they share a costly module fixture that each worker running any of them would build:
# ahead-of-time machine code compiled in three new processes, a Dask cluster.
ONE_WORKER_FILES = ("test_compiled_ahead_of_time.py", "test_dask.py")


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.name in ONE_WORKER_FILES:
            item.add_marker(pytest.mark.xdist_group(item.path.stem))
