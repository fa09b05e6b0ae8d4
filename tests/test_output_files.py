"""--output and --write-baseline write exactly the file asked for, safely."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

from typer.testing import CliRunner

from fablint.cli import app
from tests.conftest import FIXTURES

DEMO = str(FIXTURES / "demo")


def test_output_to_a_fifo_writes_through_it_and_keeps_it(tmp_path: Path) -> None:
    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = CliRunner().invoke(app, ["lint", DEMO, "-f", "json", "-o", str(fifo)])
    reader.join(timeout=30)
    assert result.exit_code == 1
    assert stat.S_ISFIFO(fifo.stat().st_mode), "the pipe was replaced by a regular file"
    assert b'"findings"' in received[0]


def test_output_replaces_a_regular_file_atomically(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    result = CliRunner().invoke(app, ["lint", DEMO, "-f", "json", "-o", str(target)])
    assert result.exit_code == 1
    assert target.read_text().startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"], "temp files left"


def test_output_into_a_missing_folder_or_onto_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    for target in (tmp_path / "missing" / "r.json", tmp_path):
        result = CliRunner().invoke(app, ["lint", DEMO, "-o", str(target)])
        assert result.exit_code == 2
        assert "cannot write" in result.output


def test_a_new_output_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        for option, target in (("-o", tmp_path / "r.json"), ("--write-baseline",
                                                              tmp_path / "b.json")):
            args = ["lint", DEMO, "-f", "json", option, str(target)]
            CliRunner().invoke(app, args)
            assert stat.S_IMODE(target.stat().st_mode) == 0o644, option
        os.umask(0o027)
        target = tmp_path / "r2.json"
        CliRunner().invoke(app, ["lint", DEMO, "-f", "json", "-o", str(target)])
        assert stat.S_IMODE(target.stat().st_mode) == 0o640
    finally:
        os.umask(old)


def test_a_rewritten_report_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")
    for mode in (0o644, 0o600, 0o664):
        target.chmod(mode)
        CliRunner().invoke(app, ["lint", DEMO, "-f", "json", "-o", str(target)])
        assert target.read_text().startswith("{")
        assert stat.S_IMODE(target.stat().st_mode) == mode
