"""Only regular files are read (issue 16): a FIFO, a socket or a symbolic link loop beside a
good file is reported by name, never blocks or crashes the run, and the good file's findings are
kept; named on the command line it is an error (exit 2)."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from tests.conftest import FIXTURES

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "fabric"
    folder.mkdir()
    (folder / "leaf3.cfg").write_text((FIXTURES / "demo" / "leaf3.cfg").read_text("utf-8"),
                                      encoding="utf-8")
    os.mkfifo(folder / "pipe.cfg")
    (folder / "loop-a.cfg").symlink_to("loop-b.cfg")
    (folder / "loop-b.cfg").symlink_to("loop-a.cfg")
    (folder / "dangling.json").symlink_to("nowhere.json")
    return folder


def _run(*args: str) -> tuple[int, dict]:
    run = CliRunner().invoke(app, ["lint", *args, "--format", "json"])
    return run.exit_code, json.loads(run.stdout)


def _good_findings(doc: dict) -> list[str]:
    return sorted(f["rule"] for f in doc["findings"] if (f["file"] or "").endswith("leaf3.cfg"))


def test_special_files_in_a_walk_are_reported_and_the_rest_is_linted(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    alone_code, alone = _run(str(folder / "leaf3.cfg"))
    code, doc = _run(str(folder))
    assert _good_findings(doc) == _good_findings(alone) != []
    assert code == alone_code == 1  # found in a folder: reported, not a failed run
    said = json.dumps(doc)
    for name, what in (("pipe.cfg", "FIFO"), ("loop-a.cfg", "symbolic link loop"),
                       ("loop-b.cfg", "symbolic link loop"), ("dangling.json", "broken")):
        assert name in said and what in said


@pytest.mark.parametrize(("name", "what"), [("pipe.cfg", "FIFO"),
                                            ("loop-a.cfg", "symbolic link loop"),
                                            ("dangling.json", "broken symbolic link")])
def test_a_special_file_named_is_an_error_and_the_others_are_linted(
        tmp_path: Path, name: str, what: str) -> None:
    folder = _folder(tmp_path)
    code, doc = _run(str(folder / name), str(folder / "leaf3.cfg"))
    assert code == 2
    about = [f for f in doc["findings"] if (f["file"] or "").endswith(name)]
    assert len(about) == 1 and about[0]["severity"] == "error" and what in about[0]["message"]
    assert _good_findings(doc)


def test_a_socket_in_a_walk_is_skipped(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(folder / "s.sock"))
        _code, doc = _run(str(folder))
    finally:
        sock.close()
    assert "a socket" in json.dumps(doc)
    assert _good_findings(doc)


def test_parse_of_a_fifo_exits_2_without_blocking(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    run = CliRunner().invoke(app, ["parse", str(folder / "pipe.cfg")])
    assert run.exit_code == 2
    assert "FIFO" in run.stdout
