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
