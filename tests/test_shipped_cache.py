"""The cache entries that ship with fablint (fablint/shipped_cache): current, used by a run
without ``$FABLINT_CACHE_DIR``, and the reason such a run writes nothing of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fablint import policycache, yamlcache
from fablint.policy import Policy
from fablint.profiles import builtin_profiles, load_policy, resolve
from tests.shipped_cache import differences

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_entries_are_current() -> None:
    stale = differences(yamlcache.SHIPPED)
    assert not stale, f"run python -m tests.shipped_cache: {stale}"


def test_built_in_profiles_come_from_the_shipped_entries(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    monkeypatch.delenv(yamlcache.CACHE_ENV, raising=False)
    validated = []
    real = Policy.model_validate

    def counted(data: object, *args: object, **kwargs: object) -> Policy:
        validated.append(data)
        return real(data, *args, **kwargs)
    monkeypatch.setattr(Policy, "model_validate", counted)
    shipped = {name: load_policy(name) for name in builtin_profiles()}
    assert not validated
    monkeypatch.setattr(yamlcache, "SHIPPED", tmp_path / "none")  # parse and validate
    for name, policy in shipped.items():
        assert policycache.identical(policy, real(resolve(name).data)), name


def test_a_run_writes_nothing_but_the_output_it_was_asked_for(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    for folder in (home, work, work / "out"):
        folder.mkdir()
    (work / "fablint.yaml").write_text("profile: default\nfail-on: warning\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if k not in (yamlcache.CACHE_ENV, "XDG_CACHE_HOME")}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    before = sorted(tmp_path.rglob("*"))
    for args in (["lint", str(ROOT / "fixtures" / "demo"), "--format", "sarif",
                  "--output", str(work / "out" / "report.sarif")],
                 ["lint", str(ROOT / "fixtures" / "demo"), "--format", "json"],
                 ["topo", str(ROOT / "fixtures" / "demo")]):
        run = subprocess.run([sys.executable, "-m", "fablint", *args], cwd=work, env=env,
                             capture_output=True, text=True, check=False)
        assert run.returncode in (0, 1), run.stderr
    written = sorted(set(tmp_path.rglob("*")) - set(before))
    assert written == [work / "out" / "report.sarif"]
