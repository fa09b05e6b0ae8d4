"""In-place fixes: a one-line edit is offered only when it is the whole fix, and it works."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.findings import Finding
from fablint.fixes.edits import line_edit
from fablint.profiles import load_policy
from fablint.report import sarif
from fablint.testing import case_files, load_cases
from tests.conftest import REPO


@pytest.mark.parametrize(
    ("fix", "old", "new"),
    [
        ("interface Ethernet1\n   mtu 9214", "   mtu 1500", "   mtu 9214"),
        ("interface Ethernet1/4\n  flowcontrol receive off", "  flowcontrol receive on",
         "  flowcontrol receive off"),
        ("qos map dscp 24 26 to traffic-class 3", "qos map dscp 24 26 to traffic-class 1",
         "qos map dscp 24 26 to traffic-class 3"),
        ("interface Ethernet1\n   priority-flow-control pause watchdog",
         "   no priority-flow-control pause watchdog", "   priority-flow-control pause watchdog"),
        ("interface Ethernet1\n   qos trust dscp", "   qos trust cos", "   qos trust dscp"),
    ],
)
def test_same_setting_with_another_value_is_a_line_edit(fix: str, old: str, new: str) -> None:
    edit = line_edit("eos", fix, 7, old)
    assert edit is not None
    assert (edit.line, edit.old, edit.new) == (7, old, new)


@pytest.mark.parametrize(
    ("vendor", "fix", "old"),
    [
        # A different DSCP list: replacing the line would drop DSCP 30 from the map.
        ("eos", "qos map dscp 24 26 to traffic-class 3",
         "qos map dscp 24 26 30 to traffic-class 1"),
        # The fix adds a second setting (a device-wide timeout): more than one line changes.
        ("eos", "priority-flow-control pause watchdog default timeout 0.2\ninterface Ethernet1\n"
                "   priority-flow-control pause watchdog",
         "   no priority-flow-control pause watchdog"),
        # The finding points at a block header, not at a setting.
        ("eos", "interface Ethernet1\n   mtu 9214", "interface Ethernet1"),
        # A comment line is never replaced.
        ("eos", "interface Ethernet1\n   mtu 9214", "! mtu 1500"),
        # Nested blocks: the edit would need two headers to be where the line is.
        ("eos", "qos profile P\n   tx-queue 3\n      priority strict", "      no priority strict"),
        # JSON patches are not line edits.
        ("sonic", '{"PORT": {"Ethernet0": {"mtu": "9100"}}}', '        "mtu": "1500",'),
        ("eos", "interface Ethernet1\n   mtu 9214", None),
    ],
)
def test_anything_else_stays_a_snippet(vendor: str, fix: str, old: str | None) -> None:
    assert line_edit(vendor, fix, 3, old) is None


def _lint(folder: Path) -> LintResult:
    return lint(LintOptions(paths=[str(folder)], config=ProjectConfig(), policy=load_policy(),
                            jobs=1))


def _apply(finding: Finding) -> None:
    assert finding.edit is not None and finding.file is not None
    path = Path(finding.file)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[finding.edit.line - 1] == finding.edit.old
    lines[finding.edit.line - 1] = finding.edit.new
    path.write_text("\n".join(lines), encoding="utf-8")


def _key(finding: Finding) -> tuple[str, str | None, str | None, str]:
    return (finding.rule, finding.device, finding.object, Path(finding.file or "").name)


def _edited_findings(root: Path) -> list[Finding]:
    return [f for f in _lint(root).findings if f.edit is not None]


def test_applying_each_edit_makes_its_finding_go_away(tmp_path: Path) -> None:
    """Every line edit fablint offers on the demo and on every rule case really fixes it."""
    folders = [REPO / "fixtures" / "demo"]
    for path in case_files(REPO / "fixtures" / "rules"):
        for n, case in enumerate(load_cases(path)):
            if case.kind != "bad" or case.policy:
                continue
            folder = tmp_path / "cases" / f"{path.stem}-{n}"
            folder.mkdir(parents=True)
            for name, text in case.files.items():
                (folder / name).write_text(text, encoding="utf-8")
            folders.append(folder)
    tried = 0
    for source in folders:
        work = tmp_path / "work" / source.name
        shutil.copytree(source, work)
        for finding in _edited_findings(work):
            _apply(finding)
            tried += 1
            after = {_key(f) for f in _lint(work).findings}
            assert _key(finding) not in after, f"edit did not fix {finding.rule} in {source.name}"
            shutil.rmtree(work)
            shutil.copytree(source, work)
    assert tried >= 3, "the demo and the rule cases should offer several one-line edits"


def test_sarif_carries_the_edit_as_a_fix(tmp_path: Path) -> None:
    shutil.copytree(REPO / "fixtures" / "demo", tmp_path / "demo")
    result = _lint(tmp_path / "demo")
    doc = sarif.document(result)
    with_fix = [r for r in doc["runs"][0]["results"] if "fixes" in r]
    edits = [f for f in result.findings if f.edit]
    assert edits and len(with_fix) == len(edits)
    change = with_fix[0]["fixes"][0]["artifactChanges"][0]
    replacement = change["replacements"][0]
    edit = edits[0].edit
    assert edit is not None
    assert replacement["deletedRegion"]["startLine"] == edit.line
    assert replacement["deletedRegion"]["endColumn"] == len(edit.old) + 1
    assert replacement["insertedContent"]["text"] == edit.new
