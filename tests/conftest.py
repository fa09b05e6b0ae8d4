"""Shared test helpers: where the repository, its fixtures and the shared corpus are."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
CORPUS = Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))

# The cache of parsed YAML (fablint.yamlcache) of this test run is its own, not the user's:
# the command lines the tests start inherit it.
if "FABLINT_CACHE_DIR" not in os.environ:
    os.environ["FABLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="fablint-tests-cache-")
    atexit.register(shutil.rmtree, os.environ["FABLINT_CACHE_DIR"], ignore_errors=True)


@pytest.fixture
def corpus() -> Path:
    """The shared real-world corpus; tests that need it skip when it is not around."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS} (set FABLINT_CORPUS)")
    return CORPUS
