"""pytest set-up for the fdx package: the CPU backend, a private kernel cache,
numpy seeded per test."""
import os

import pytest

os.environ.setdefault("FDX_BACKEND", "cpu")

import numpy as np  # noqa: E402
import fdx  # noqa: E402


@pytest.fixture
def ctx():
    return fdx.context()


@pytest.fixture
def rng():
    return np.random.default_rng(20261123)
