"""``--fix`` and ``--diff``: every fix fablint applies makes its finding go away on re-lint, for
each vendor; files keep their mode and line endings; ambiguous places are left alone."""

from __future__ import annotations

import shutil
import stat
from collections import Counter
from pathlib import Path

import pytest

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.findings import Finding
from fablint.fixes import apply
from fablint.profiles import load_policy
from fablint.testing import case_files, load_cases
from tests.conftest import REPO
from tests.test_cli import DEMO, run_inprocess


def _lint(folder: Path) -> LintResult:
    return lint(LintOptions(paths=[str(folder)], config=ProjectConfig(), policy=load_policy(),
                            jobs=1))


def _key(finding: Finding) -> tuple[str, str | None, str | None]:
    return (finding.rule, finding.device, finding.object)


def _bad_cases(tmp_path: Path) -> list[Path]:
    folders = []
    for path in case_files(REPO / "fixtures" / "rules"):
        for n, case in enumerate(load_cases(path)):
            if case.kind != "bad" or case.policy:
                continue
            folder = tmp_path / f"{path.stem}-{n}"
            folder.mkdir(parents=True)
            for name, text in case.files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_text(text, encoding="utf-8")
            folders.append(folder)
    return folders


def test_each_applied_fix_removes_its_finding_for_every_vendor(tmp_path: Path) -> None:
    """Each fix alone, on a fresh copy: applied, it makes its finding go away."""
    fixed_per_vendor: Counter[str] = Counter()
    for folder in [*_bad_cases(tmp_path / "cases"), DEMO]:
        work = tmp_path / "work" / folder.name
        shutil.copytree(folder, work)
        findings = _lint(work).findings
        for finding in findings:
            changes = [c for c in apply.plan([finding]) if c.new != c.old]
            if not changes:
                continue
            for change in changes:
                apply.write(change)
            # findings of one rule on one object can be several (priority 3 missing, 4
            # extra): the one fixed must be gone, so their number drops
            before = sum(_key(f) == _key(finding) for f in findings)
            after = sum(_key(f) == _key(finding) for f in _lint(work).findings)
            if after >= before:
                # a fix that needs another's (RoCE mapped to class 3 while PFC pauses 4 only):
                # with the others applied, round by round, the finding must be gone
                _fix_rounds(work)
                after = sum(_key(f) == _key(finding) for f in _lint(work).findings)
            assert after < before, (
                f"{folder.name}: applying the fix did not fix {finding.rule} "
                f"{finding.object}:\n{changes[0].diff()}")
            fixed_per_vendor[finding.vendor or "?"] += 1
            shutil.rmtree(work)
            shutil.copytree(folder, work)
    assert fixed_per_vendor["eos"] >= 10, fixed_per_vendor
    assert fixed_per_vendor["nxos"] >= 10, fixed_per_vendor
    assert fixed_per_vendor["sonic"] >= 10, fixed_per_vendor


def _fix_rounds(folder: Path) -> None:
    for _round in range(6):
        changes = [c for c in apply.plan(_lint(folder).findings) if c.new != c.old]
        if not changes:
            return
        assert any(c.fixed for c in changes)
        for change in changes:
            apply.write(change)
    raise AssertionError(f"{folder.name}: fixes still change the files after 6 rounds")


def test_fix_rounds_converge_on_every_case(tmp_path: Path) -> None:
    """All fixes together, round after round as --fix does: the rounds end (fixes never undo
    each other forever)."""
    for folder in _bad_cases(tmp_path / "cases"):
        _fix_rounds(folder)


def test_fix_on_the_demo_leaves_it_clean_and_keeps_modes_and_line_endings(
        tmp_path: Path) -> None:
    work = tmp_path / "demo"
    shutil.copytree(DEMO, work)
    leaf3 = work / "leaf3.cfg"
    leaf3.write_bytes(leaf3.read_bytes().replace(b"\n", b"\r\n"))
    leaf3.chmod(0o640)
    run = run_inprocess("lint", str(work), "--fix")
    assert run.code == 0, run.stdout + run.stderr
    assert "fixed" in run.stderr and "no problems found" in run.stdout
    data = leaf3.read_bytes()
    assert b"35 permit udp any any eq 4791\r\n" in data and data.count(b"\n") == data.count(
        b"\r\n")
    assert stat.S_IMODE(leaf3.stat().st_mode) == 0o640
    # the ACL entry went in number order, before the catch-all deny
    text = data.decode()
    assert text.index("35 permit udp") < text.index("40 deny ip any any")


@pytest.mark.parametrize(("codec", "bom"), [
    ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-8", b"\xef\xbb\xbf"),
    ("utf-16-le", b""),  # PowerShell '>' without a mark
])
def test_fix_writes_a_file_back_in_its_own_encoding(tmp_path: Path, codec: str,
                                                     bom: bytes) -> None:
    """A Windows tool's export (UTF-16, a BOM, CRLF) is fixed like any other file and stays
    in the encoding, mark and line ends it came in."""
    work = tmp_path / "demo"
    shutil.copytree(DEMO, work)
    leaf3 = work / "leaf3.cfg"
    leaf3.write_bytes(bom + leaf3.read_text(encoding="utf-8").replace("\n", "\r\n").encode(codec))
    run = run_inprocess("lint", str(work), "--fix")
    assert run.code == 0, run.stdout + run.stderr
    data = leaf3.read_bytes()
    assert data.startswith(bom)
    text = data[len(bom):].decode(codec)
    assert "35 permit udp any any eq 4791\r\n" in text
    assert text.count("\n") == text.count("\r\n")


def test_diff_prints_the_changes_and_writes_nothing(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    shutil.copytree(DEMO, work)
    before = {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}
    run = run_inprocess("lint", str(work), "--diff")
    assert run.code == 1
    assert "+   mtu 9214" in run.stdout and '-            "24": "1",' in run.stdout
    assert run.stdout.count("\n--- a/") + run.stdout.startswith("--- a/") == 4
    assert before == {p: p.read_bytes() for p in work.rglob("*") if p.is_file()}


@pytest.mark.parametrize("fix", [
    "interface Ethernet1\n   mtu 9214",
])
def test_a_header_that_appears_twice_is_ambiguous_and_left_alone(fix: str) -> None:
    text = "interface Ethernet1\n   mtu 1500\n!\ninterface Ethernet1\n   mtu 1500\n!\nend\n"
    finding = Finding(rule="MTU001", name="x", severity="error", category="mtu",  # type: ignore[arg-type]
                      message="m", device="d", file="f", line=2, fix=fix, vendor="eos")
    new, fixed, skipped = apply._fix_cli(text, [finding], "eos")
    assert new == text and skipped == [finding] and not fixed


def test_missing_block_is_added_before_end_and_existing_value_replaced() -> None:
    text = "hostname x\n!\ninterface Ethernet1\n   mtu 1500\n   no shutdown\n!\nend\n"
    mk = lambda fix: Finding(rule="R", name="x", severity="error",  # type: ignore[arg-type]  # noqa: E731
                             category="mtu", message="m", fix=fix, vendor="eos")
    new, fixed, _ = apply._fix_cli(
        text, [mk("interface Ethernet1\n   mtu 9214"),
               mk("qos profile P\n   tx-queue 3\n      priority strict")], "eos")
    assert len(fixed) == 2
    assert new == ("hostname x\n!\ninterface Ethernet1\n   mtu 9214\n   no shutdown\n!\n"
                   "qos profile P\n   tx-queue 3\n      priority strict\nend\n")
