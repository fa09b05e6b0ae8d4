"""Broken inputs next to good ones: a clear error with file and line, exit code 2, and every
other file still linted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from tests.conftest import FIXTURES

GOOD_EOS = (FIXTURES / "equivalence" / "eos" / "leaf1.cfg").read_text(encoding="utf-8")
GOOD_SONIC = (FIXTURES / "equivalence" / "sonic" / "config_db.json").read_text(encoding="utf-8")


def _lint(folder: Path) -> tuple[int, dict]:
    run = CliRunner().invoke(app, ["lint", str(folder), "--format", "json"])
    return run.exit_code, json.loads(run.stdout)


def _fabric_with(tmp_path: Path, name: str, data: str | bytes) -> Path:
    """A fabric of one good EOS switch, and the bad file in a folder of its own."""
    (tmp_path / "eos").mkdir()
    (tmp_path / "eos" / "leaf1.cfg").write_text(GOOD_EOS, encoding="utf-8")
    bad = tmp_path / "bad"
    bad.mkdir()
    target = bad / name
    if isinstance(data, bytes):
        target.write_bytes(data)
    else:
        target.write_text(data, encoding="utf-8")
    return target


def _truncated() -> str:
    return GOOD_SONIC[: len(GOOD_SONIC) // 2]


def _wrong_type() -> str:
    data = json.loads(GOOD_SONIC)
    data["PORT"]["Ethernet0"]["mtu"] = "jumbo"
    return json.dumps(data, indent=4)


def _duplicate_key() -> str:
    return GOOD_SONIC.replace('"PORT": {', '"PORT": {\n        "Ethernet0": {"mtu": "1500"},', 1)


@pytest.mark.parametrize(
    ("make", "fatal", "words"),
    [
        (_truncated, True, "JSON"),
        (_wrong_type, False, "jumbo"),
        (_duplicate_key, False, "duplicate"),
    ],
    ids=["truncated", "wrong-type", "duplicate-key"],
)
def test_broken_config_db(tmp_path: Path, make, fatal: bool, words: str) -> None:  # type: ignore[no-untyped-def]
    target = _fabric_with(tmp_path, "config_db.json", make())
    code, report = _lint(tmp_path)
    assert code == 2
    errors = [e for e in report["errors"] if e["file"] == str(target)]
    assert errors, report["errors"]
    assert all(e["line"] for e in errors), errors
    assert any(words.lower() in e["message"].lower() for e in errors), errors
    # The good switch next to it was still linted.
    assert report["summary"]["devices"] >= 1
    if fatal:  # nothing but the parse error itself is reported on an unusable file
        assert {f["rule"] for f in report["findings"] if f["file"] == str(target)} == {"FAB001"}


def test_wrong_type_names_the_line_of_the_key(tmp_path: Path) -> None:
    text = _wrong_type()
    target = _fabric_with(tmp_path, "config_db.json", text)
    _, report = _lint(tmp_path)
    [error] = [e for e in report["errors"] if e["file"] == str(target)]
    line = text.splitlines()[error["line"] - 1]
    assert '"mtu"' in line and "jumbo" in line


def test_binary_junk_is_reported_not_raised(tmp_path: Path) -> None:
    target = _fabric_with(tmp_path, "config_db.json", b"\x00\x01\xff{\"PORT\"" * 1000)
    code, report = _lint(tmp_path)
    assert code == 2
    assert [e["file"] for e in report["errors"]] == [str(target)]


def test_a_50_mb_config_db_is_read(tmp_path: Path) -> None:
    """Large, but a real shape: many ports. It parses (no limit below 256 MB) or fails cleanly."""
    data = json.loads(GOOD_SONIC)
    port = data["PORT"]["Ethernet0"]
    for n in range(1, 12_000):
        data["PORT"][f"Ethernet{1000 + n}"] = dict(port, description="x" * 4200)
    text = json.dumps(data)
    assert len(text) > 50_000_000
    _fabric_with(tmp_path, "config_db.json", text)
    code, report = _lint(tmp_path)
    assert code in (0, 1), report["errors"]
    assert report["summary"]["devices"] == 2
