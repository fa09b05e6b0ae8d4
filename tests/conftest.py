"""Shared test helpers: where the repository, its fixtures and the shared corpus are."""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
CORPUS = Path(os.environ.get("FABLINT_CORPUS", REPO.parent / "shared" / "corpus"))


def nxos_inputs() -> list[Path]:
    """Every NX-OS file of the shared corpus and of the fixtures (those that say "nxos" in
    their first 4,000 characters): for tests that compare two ways of reading each."""
    found = sorted(p for p in (CORPUS / "nxos").glob("*") if p.is_file())
    found += sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.suffix in (
        ".cfg", ".txt", ".conf") and "nxos" in p.read_text(encoding="utf-8",
                                                           errors="replace")[:4000].lower())
    return found


def bench_module(name: str) -> ModuleType:
    """``bench/NAME.py`` imported once (the generators and harnesses are scripts, not a
    package). It is registered in ``sys.modules`` before it runs: its dataclasses look their
    module up while they are made."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

# The cache of parsed YAML (fablint.yamlcache) of this test run is its own, not the user's:
# the command lines the tests start inherit it.
if "FABLINT_CACHE_DIR" not in os.environ:
    os.environ["FABLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="fablint-tests-cache-")
    atexit.register(shutil.rmtree, os.environ["FABLINT_CACHE_DIR"], ignore_errors=True)


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable cache of fablint's own in a fresh folder (``$FABLINT_CACHE_DIR``), with the
    entries fablint ships set aside: for the tests of the caches themselves."""
    from fablint import yamlcache

    monkeypatch.setattr(yamlcache, "SHIPPED", tmp_path / "no-shipped-entries")
    folder = tmp_path / "cache"
    monkeypatch.setenv(yamlcache.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def corpus() -> Path:
    """The shared real-world corpus; tests that need it skip when it is not around."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS} (set FABLINT_CORPUS)")
    return CORPUS
