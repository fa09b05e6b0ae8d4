"""The cache of parsed YAML (fablint.yamlcache): same data as parsing, safe when damaged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fablint import yamlcache
from fablint.profiles import builtin_profiles, load_policy, show_json
from fablint.yamlio import ConfigError, load_yaml, load_yaml_text

ROOT = Path(__file__).resolve().parents[1]


pytestmark = pytest.mark.usefixtures("own_cache")


@pytest.fixture
def cache(own_cache: Path) -> Path:
    return own_cache / yamlcache.FOLDER


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize("name", sorted(builtin_profiles()))
def test_a_cached_profile_is_what_parsing_gives(name: str, cache: Path) -> None:
    path = builtin_profiles()[name]
    parsed = load_yaml_text(path.read_text(encoding="utf-8"), str(path))
    first = load_yaml(path, cached=True)  # parsed, then stored
    assert _entries(cache)
    second = load_yaml(path, cached=True)  # read back
    assert first == parsed and second == parsed
    assert json.dumps(second[0]) == json.dumps(parsed[0])  # 1.0 stays 1.0, 0 stays 0
    assert second[1] == parsed[1]


def test_policies_from_the_cache_are_the_same(cache: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    monkeypatch.setenv(yamlcache.CACHE_ENV, "")
    plain = {name: (load_policy(name), show_json(name)) for name in builtin_profiles()}
    monkeypatch.setenv(yamlcache.CACHE_ENV, str(cache.parent))
    for _ in range(2):  # filled, then read
        cached = {name: (load_policy(name), show_json(name)) for name in builtin_profiles()}
        assert cached == plain
    assert len(_entries(cache)) == len(builtin_profiles())


def test_an_edited_file_is_parsed_again(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "fablint.yaml"
    path.write_text("profile: default\nfail-on: warning\n", encoding="utf-8")
    assert load_yaml(path, cached=True)[0] == {"profile": "default", "fail-on": "warning"}
    path.write_text("profile: default\nfail-on: info\n", encoding="utf-8")
    assert load_yaml(path, cached=True)[0] == {"profile": "default", "fail-on": "info"}
    assert len(_entries(cache)) == 2


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[1, 2]", b'{"format": 1}',
                                    b'{"format": 1, "data": {}, "lines": [[["a"], "x"]]}',
                                    b'{"format": 99, "data": {"a": 1}, "lines": []}'])
def test_a_damaged_entry_is_parsed_again_and_replaced(cache: Path, tmp_path: Path,
                                                       damage: bytes) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("a: 1\nb: [x, 2.5]\n", encoding="utf-8")
    expected = load_yaml(path)
    load_yaml(path, cached=True)
    (entry,) = _entries(cache)
    entry.write_bytes(damage)
    assert load_yaml(path, cached=True) == expected
    assert load_yaml(path, cached=True) == expected
    assert json.loads(entry.read_bytes())["data"] == {"a": 1, "b": ["x", 2.5]}


def test_errors_are_the_same_and_nothing_is_cached(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("a: 1\n  b: [\n", encoding="utf-8")
    with pytest.raises(ConfigError) as plain:
        load_yaml(path)
    with pytest.raises(ConfigError) as cached:
        load_yaml(path, cached=True)
    assert str(cached.value) == str(plain.value)
    assert not _entries(cache)


def test_what_json_cannot_hold_exactly_is_not_cached(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "anchors.yaml"  # an anchored boolean is an int to ruamel: 1 in JSON
    path.write_text("a: &flag true\nb: *flag\nc: .nan\n", encoding="utf-8")
    expected = load_yaml(path)
    assert load_yaml(path, cached=True) == expected
    assert not _entries(cache)


def test_a_folder_that_cannot_be_written_is_not_used(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(yamlcache.CACHE_ENV, str(blocker))
    path = builtin_profiles()["default"]
    assert load_yaml(path, cached=True) == load_yaml(path)


def test_only_a_named_folder_is_written(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """fablint writes nothing the user did not ask for: no ~/.cache, no XDG cache."""
    monkeypatch.setenv(yamlcache.CACHE_ENV, "")
    assert yamlcache.cache_dir() is None
    monkeypatch.delenv(yamlcache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert yamlcache.cache_dir() is None
    monkeypatch.setenv(yamlcache.CACHE_ENV, str(tmp_path / "mine"))
    assert yamlcache.cache_dir() == tmp_path / "mine" / yamlcache.FOLDER


def test_old_entries_are_pruned(cache: Path, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlcache, "MAX_ENTRIES", 3)
    seen: set[Path] = set()
    for n in range(5):
        path = tmp_path / f"{n}.yaml"
        path.write_text(f"n: {n}\n", encoding="utf-8")
        load_yaml(path, cached=True)
        (new,) = set(_entries(cache)) - seen
        os.utime(new, (1_000_000 + n, 1_000_000 + n))  # written in this order
        seen.add(new)
    assert len(_entries(cache)) == 3
    assert json.loads(new.read_bytes())["data"] == {"n": 4}


def test_a_run_with_a_cached_profile_does_not_import_ruamel(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), yamlcache.CACHE_ENV: str(tmp_path)}
    probe = ("import sys; from fablint.config import load_config; "
             "from fablint.profiles import load_policy; load_config(sys.argv[1]); "
             "load_policy('default'); "
             "print(sorted({m.split('.')[0] for m in sys.modules} & {'ruamel'}))")
    config = tmp_path / "fablint.yaml"
    config.write_text("profile: default\n", encoding="utf-8")
    code = probe.replace("load_config(sys.argv[1])", "load_config(__import__('pathlib')"
                         ".Path(sys.argv[1]))")
    runs = [subprocess.run([sys.executable, "-c", code, str(config)], capture_output=True,
                           text=True, env=env, timeout=120, check=True).stdout.strip()
            for _ in range(2)]
    assert runs == ["['ruamel']", "[]"]  # the first run parses and fills the cache
