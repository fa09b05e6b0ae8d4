"""Start-up: what a run imports, and that the shortcuts taken for speed change no output.

No timings here (bench/startup.py measures them): these tests pin the behaviour that makes
start-up fast, in fresh interpreters, so that a new import at module level shows up as a
failure rather than as a slower pre-commit hook.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import fablint

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("FABLINT_DEBUG", None)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


ENTRY = "import sys; from fablint.entry import main; sys.exit(main())"
FULL_CLI = "import sys; from fablint.cli import main; sys.exit(main())"


def test_version_from_the_entry_point_is_what_the_full_command_line_prints() -> None:
    fast = _python(ENTRY, "--version")
    full = _python(FULL_CLI, "--version")
    assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout,
                                                          full.stderr)
    assert fast.stdout == f"fablint {fablint.__version__}\n"
    assert fast.returncode == 0


def test_version_imports_no_command_line() -> None:
    probe = _python("import sys; from fablint.entry import main; main(); "
                    "print(sorted(m for m in sys.modules if m.startswith(('fablint', 'typer', "
                    "'pydantic', 'rich'))))", "--version")
    assert probe.returncode == 0, probe.stderr
    loaded = json.loads(probe.stdout.splitlines()[-1].replace("'", '"'))
    assert loaded == ["fablint", "fablint.entry"], loaded


def test_version_with_other_arguments_goes_through_the_command_line() -> None:
    run = _python(ENTRY, "--version", "lint")
    assert run.returncode == 0
    assert run.stdout == f"fablint {fablint.__version__}\n"
    helped = _python(ENTRY, "--help")
    assert helped.returncode == 0 and "--version" in helped.stdout


def test_lint_of_one_file_through_the_entry_point() -> None:
    config = ROOT / "fixtures" / "demo" / "leaf1.cfg"
    run = _python(ENTRY, "lint", str(config), "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    doc = json.loads(run.stdout)
    assert doc["summary"]["files"] == 1


def test_the_command_line_imports_no_reporter_and_no_intent() -> None:
    """A run renders one format: each reporter is imported when its format is asked for, the
    intended-cabling reader only by runs that have an intent, rich only by the text report."""
    probe = _python("import sys, fablint.cli; print(' '.join(sorted(sys.modules)))")
    assert probe.returncode == 0, probe.stderr
    loaded = set(probe.stdout.split())
    assert "fablint.report" in loaded
    assert not {m for m in loaded if m.startswith("fablint.report.")}, loaded
    assert "fablint.intent" not in loaded
    assert not {m for m in loaded if m == "rich" or m.startswith("rich.")}


def test_every_format_renders_through_the_lazy_reporters() -> None:
    from fablint.report import REPORTERS

    assert list(REPORTERS) == ["text", "json", "sarif", "junit", "github", "gitlab", "concise",
                               "markdown"]
    demo = ROOT / "fixtures" / "demo"  # planted faults: every format has something to say
    for name in REPORTERS:
        run = _python(ENTRY, "lint", str(demo), "--format", name, "--no-color")
        assert run.returncode == 1, (name, run.stderr)
        assert run.stdout.strip(), name
        assert "Traceback" not in run.stderr
