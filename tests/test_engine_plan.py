"""The run plan: fabric summaries that only matter with cables or hosts are skipped when no
input brings them, and a run that guessed wrong starts again, so the findings never depend on
the guess."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fablint import engine
from fablint.config import ProjectConfig
from fablint.engine import FilePlan, LintOptions, lint
from fablint.profiles import load_policy

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
HOSTS = Path(__file__).resolve().parent.parent / "fixtures" / "hosts"


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[FilePlan]:
    """Every plan the engine hands its workers, in order."""
    seen: list[FilePlan] = []
    real = engine.analyse_unit

    def spy(task: tuple[engine.Unit, FilePlan]) -> list[engine.FileResult]:
        if not seen or seen[-1] is not task[1]:
            seen.append(task[1])
        return real(task)

    monkeypatch.setattr(engine, "analyse_unit", spy)
    return seen


def _lint(path: Path) -> list[tuple[str, str | None, str | None, int | None, str]]:
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(), policy=load_policy(),
                              jobs=1))
    return [(f.rule, f.device, Path(f.file).stem if f.file else None, f.line, f.message)
            for f in result.findings]


def _mtu005(findings: list[tuple[str, str | None, str | None, int | None, str]]) -> bool:
    """Did the cable's MTU mismatch (MTU005) come out: reported, or folded into its cause
    (leaf2's MTU001 in the demo)?"""
    return any(rule == "MTU005" or "explains MTU005" in message
               for rule, *_, message in findings)


def test_switch_configs_alone_skip_cable_and_host_summaries(
        tmp_path: Path, plans: list[FilePlan]) -> None:
    for cfg in DEMO.glob("*.cfg"):
        shutil.copy(cfg, tmp_path)
    findings = _lint(tmp_path)
    assert len(plans) == 1
    plan = plans[0]
    assert plan.available == frozenset() and not plan.topology
    assert "QOS010" in plan.summary_rule_ids and "PFC007" in plan.summary_rule_ids
    for skipped in ("TOP001", "TOP009", "MTU005", "QOS005", "PFC006", "MTU002"):
        assert skipped not in plan.summary_rule_ids
    assert {rule for rule, *_ in findings} >= {"ECN003", "MTU001", "ACL001", "PFC003"}
    assert not _mtu005(findings), "no cables, no cable findings"


def test_lldp_tables_make_the_plan_expect_cables(plans: list[FilePlan]) -> None:
    findings = _lint(DEMO)
    assert len(plans) == 1, "the .txt tables were recognised before the run"
    assert "links" in plans[0].available and plans[0].topology
    assert "TOP001" in plans[0].summary_rule_ids
    assert _mtu005(findings)


def test_a_guess_proved_wrong_runs_again_with_the_same_findings(
        tmp_path: Path, plans: list[FilePlan]) -> None:
    # The EOS and NX-OS switches with their LLDP tables (the SONiC leaf, whose JSON is read
    # while grouping, would announce cables by itself).
    plain = tmp_path / "plain"
    shutil.copytree(DEMO, plain, ignore=shutil.ignore_patterns("leaf4"))
    expected = _lint(plain)
    assert _mtu005(expected)
    plans.clear()
    # The LLDP tables under a switch configuration's name: grouping does not read '.cfg'
    # files, so only the parse finds the cables.
    renamed = tmp_path / "renamed"
    shutil.copytree(plain, renamed)
    for table in (renamed / "lldp").glob("*.txt"):
        table.rename(table.with_suffix(".cfg"))
    findings = _lint(renamed)
    assert [p.available for p in plans] == [frozenset(), frozenset({"links"})]
    assert findings == expected


def test_host_captures_make_the_plan_expect_hosts(plans: list[FilePlan]) -> None:
    _lint(HOSTS)
    assert "hosts" in plans[0].available
    assert {"QOS005", "PFC006", "MTU002"} <= set(plans[-1].summary_rule_ids)
