"""Shared test helpers: where the repository, its fixtures and the shared corpus are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
CORPUS = Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))


@pytest.fixture
def corpus() -> Path:
    """The shared real-world corpus; tests that need it skip when it is not around."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS} (set FABLINT_CORPUS)")
    return CORPUS
