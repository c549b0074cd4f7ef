"""Each rule test draws its random inputs from a stream of its own.

The test modules draw from a module-level ``rng``; shared across tests, the arrays one
test gets would depend on which tests ran before it (and a test could pass alone and fail
in its file). Reseeding ``rng`` from the test's own id before each test makes its inputs
the same however the tests are selected or ordered.
"""
import zlib

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _own_random_stream(request):
    if isinstance(getattr(request.module, "rng", None), np.random.Generator):
        request.module.rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
