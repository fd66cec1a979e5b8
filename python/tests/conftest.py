"""Shared fixtures of the weld module's tests (python/tests).

CTest runs each file with PYTHONPATH set to the build's python/ folder
(python/CMakeLists.txt); by hand:
    PYTHONPATH=build-test/python /usr/bin/python3 -m pytest python/tests
"""

import os
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("WELD_SOURCE_DIR", Path(__file__).resolve().parents[2]))
DATA_DIR = Path(os.environ.get("WELD_DATA_DIR", SOURCE_DIR.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA_DIR


@pytest.fixture(scope="session")
def source_dir() -> Path:
    return SOURCE_DIR
