"""fablint in the workflows teams already run: editor-clickable lines, GitLab Code Quality,
Markdown for pull requests, per-rule statistics, pre-commit (changed files judged against the
whole fabric) and the GitHub action's lint step."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_cli import DEMO, PLANTED, REPO, run_inprocess, run_subprocess

CONCISE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<rule>[A-Z]+\d{3}) "
                     r"\[(?P<severity>error|warning|info)\] (?P<message>.+)$")


def _demo_json() -> list[dict]:
    return json.loads(run_inprocess("lint", str(DEMO), "--format", "json").stdout)["findings"]


def test_concise_is_one_parsable_line_per_finding_with_the_json_places() -> None:
    run = run_inprocess("lint", str(DEMO), "--format", "concise")
    assert run.code == 1
    *rows, summary = run.stdout.splitlines()
    parsed = [CONCISE.match(row) for row in rows]
    assert all(parsed), rows
    assert {(m["file"], int(m["line"]), m["rule"]) for m in parsed if m} == {
        (f["file"], f["line"], f["rule"]) for f in _demo_json()}
    assert {(m["rule"]) for m in parsed if m} >= {rule for _, rule in PLANTED}
    assert summary.startswith("6 problems")


def test_gitlab_code_quality_has_the_documented_fields() -> None:
    issues = json.loads(run_inprocess("lint", str(DEMO), "--format", "gitlab").stdout)
    findings = _demo_json()
    assert len(issues) == len(findings) == 6
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert isinstance(issue["location"]["path"], str)
        assert isinstance(issue["location"]["lines"]["begin"], int)
    # the fingerprint is the one baselines use, so both tools agree on what is new
    assert {i["fingerprint"] for i in issues} == {f["fingerprint"] for f in findings}
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_markdown_summary_counts_each_rule_and_lists_each_finding() -> None:
    text = run_inprocess("lint", str(DEMO), "--format", "markdown").stdout
    assert text.startswith("## fablint")
    assert "| MTU001 | 1 |" in text
    rows = [line for line in text.splitlines() if line.startswith("| 🔴")]
    assert len(rows) == 6
    assert "`fixtures/demo/leaf3.cfg:74`" in text or f"`{DEMO}/leaf3.cfg:74`" in text


def test_statistics_count_per_rule() -> None:
    run = run_inprocess("lint", str(DEMO), "--statistics")
    rows = [line.split() for line in run.stdout.splitlines()[:-1]]
    assert sorted((row[1], int(row[0])) for row in rows) == sorted(
        (rule, 1) for _, rule in PLANTED)
    assert run.code == 1


def test_select_and_ignore_take_comma_separated_lists() -> None:
    selected = run_inprocess("lint", str(DEMO), "--format", "json", "--select", "MTU,ACL001")
    assert {f["rule"] for f in json.loads(selected.stdout)["findings"]} == {
        "MTU001", "ACL001"}  # (MTU005 folded into MTU001, its cause)
    ignored = run_inprocess("lint", str(DEMO), "--format", "json", "--ignore", "MTU,ACL001",
                            "--ignore", "PFC003")
    assert {f["rule"] for f in json.loads(ignored.stdout)["findings"]} == {
        "PFC001", "QOS010", "ECN003"}


def test_quiet_prints_nothing_on_a_clean_run_and_no_summary_otherwise() -> None:
    clean = run_inprocess("lint", str(DEMO / "spine1.cfg"), "--quiet", "--no-color")
    assert clean.code == 0 and clean.stdout == ""
    noisy = run_inprocess("lint", str(DEMO), "-q", "--no-color")
    assert noisy.code == 1
    assert "problems" not in noisy.stdout and "ECN003" in noisy.stdout


def test_report_only_judges_the_whole_fabric_but_reports_the_named_files() -> None:
    # MTU005 on leaf2 exists only because spine2's side of the cable is in the fabric (folded
    # into MTU001, its cause)
    run = run_inprocess("lint", "--report-only", "--fabric", str(DEMO),
                        str(DEMO / "leaf2.cfg"), "--format", "json")
    findings = json.loads(run.stdout)["findings"]
    assert {f["rule"] for f in findings} == {"MTU001"}
    assert [c["rule"] for c in findings[0]["consequences"]] == ["MTU005"]
    clean = run_inprocess("lint", "--report-only", "--fabric", str(DEMO), str(DEMO / "spine1.cfg"))
    assert clean.code == 0
    misuse = run_inprocess("lint", str(DEMO), "--fabric", str(DEMO))
    assert misuse.code == 2


@pytest.mark.parametrize("command", ["lint", "topo", "parse", "explain", "drift", "collect",
                                     "rules"])
def test_help_has_no_internal_placeholders(command: str) -> None:
    text = run_subprocess(command, "--help").stdout
    assert not re.search(r"\{\w+|<list\[|<str>|<path>|<int", text), text


def _git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "configs"
    shutil.copytree(DEMO, repo)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "fabric"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)
    return repo


@pytest.mark.skipif(shutil.which("pre-commit") is None or shutil.which("git") is None,
                    reason="pre-commit or git is not installed (pip install '.[dev]')")
def test_pre_commit_hook_reports_findings_in_the_changed_file_only(tmp_path: Path) -> None:
    repo = _git_repo(tmp_path)
    # a change to spine1 (clean) commits; a change to leaf3 (two planted faults) is refused.
    # The first run installs fablint into pre-commit's cache (about a minute); the second
    # reuses it.
    for name, expected in (("spine1.cfg", 0), ("leaf3.cfg", 1)):
        path = repo / name
        path.write_text(path.read_text() + "!\n")
        subprocess.run(["git", "add", name], cwd=repo, check=True)
        proc = subprocess.run(
            ["pre-commit", "try-repo", str(REPO), "fablint", "--files", name, "--verbose"],
            cwd=repo, capture_output=True, text=True, timeout=900,
            env={**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")})
        assert proc.returncode == expected, proc.stdout + proc.stderr
        assert ("ACL001" in proc.stdout) == (name == "leaf3.cfg"), proc.stdout
        # findings of other devices stay out of the report
        assert "spine2" not in proc.stdout.split("fablint (findings in changed files)")[-1]


def test_github_action_lint_step_writes_sarif_summary_and_exit_code(tmp_path: Path) -> None:
    outputs, summary = tmp_path / "outputs", tmp_path / "summary.md"
    shutil.copytree(DEMO, tmp_path / "fabric")
    proc = subprocess.run(
        ["bash", str(REPO / ".github" / "fablint-action.sh")], cwd=tmp_path,
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "FABLINT_PATHS": "fabric", "FABLINT_ARGS": "--fail-on error",
             "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary),
             "PATH": os.environ["PATH"]})
    assert proc.returncode == 0, proc.stderr
    assert "exit-code=1" in outputs.read_text()
    sarif = json.loads((tmp_path / "fablint.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == 6
    assert summary.read_text().startswith("## fablint")
    annotations = [line for line in proc.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 6


def test_also_writes_the_same_lint_in_other_formats(tmp_path: Path) -> None:
    sarif, gitlab = tmp_path / "out.sarif", tmp_path / "dir:with:colons.json"
    run = run_inprocess("lint", str(DEMO), "--format", "concise", "--also", f"sarif:{sarif}",
                        "--also", f"gitlab:{gitlab}")
    assert run.code == 1
    alone = run_inprocess("lint", str(DEMO), "--format", "gitlab").stdout
    assert gitlab.read_text() == alone
    assert len(json.loads(sarif.read_text())["runs"][0]["results"]) == sum(
        bool(CONCISE.match(line)) for line in run.stdout.splitlines()) == 6
    bad = run_inprocess("lint", str(DEMO), "--also", "pdf:x.pdf")
    assert bad.code == 2 and "unknown format 'pdf'" in bad.stderr
    assert not (Path.cwd() / "x.pdf").exists()


@pytest.mark.parametrize(("env", "coloured"), [
    ({}, False), ({"FORCE_COLOR": "1"}, True), ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False)])
def test_colour_follows_the_environment(env: dict[str, str], coloured: bool) -> None:
    clean_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.run([*_entry(), "lint", str(DEMO)], capture_output=True, text=True,
                          env={**clean_env, **env}, timeout=120, check=False)
    assert ("\x1b[" in proc.stdout) == coloured


def _entry() -> list[str]:
    from tests.test_cli import _entry_point

    return _entry_point()


def _readme_python() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Library use", 1)[1]
    return re.search(r"```python\n(.+?)\n```", section, re.S).group(1)  # type: ignore[union-attr]


def test_readme_library_example_runs_and_prints_the_demo_results() -> None:
    proc = subprocess.run(["python", "-c", _readme_python()], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "6 errors; exit code 1"
    assert lines[-1].startswith("leaf1 eos ") and lines[-1].endswith(" interfaces")


def test_library_lint_matches_the_command_line_and_raises_clear_errors() -> None:
    import fablint
    from fablint.api import LintError

    result = fablint.lint(DEMO, select=["MTU"])
    assert {(f.rule, f.device) for f in result.findings} == {("MTU001", "leaf2")}
    with pytest.raises(LintError, match="path not found"):
        fablint.lint(["/nonexistent/fabric"])
    with pytest.raises(LintError, match=r"unknown rule|no rule"):
        fablint.lint(DEMO, select=["NOPE999"])
    outcome = fablint.parse(DEMO / "leaf1.cfg")
    assert outcome.devices[0].name == "leaf1" and not outcome.problems


# -- baseline lifecycle ------------------------------------------------------------------------


def _lint_json(*args: str, cwd: Path) -> dict:
    return json.loads(run_inprocess("lint", "-f", "json", *args, cwd=cwd).stdout)


def test_baseline_survives_rewording_and_v1_baselines_are_migrated(tmp_path: Path) -> None:
    shutil.copytree(DEMO, tmp_path / "fabric")
    findings = _lint_json("fabric", cwd=tmp_path)["findings"]
    # a version-1 baseline hashed the message; a reworded message must still match it
    legacy = {"version": 1, "tool": "fablint", "findings": [
        {"fingerprint": "0" * 32, "rule": f["rule"], "device": f["device"],
         "object": f["object"], "message": f["message"] + " (old wording)"} for f in findings]}
    (tmp_path / "v1-baseline.json").write_text(json.dumps(legacy), encoding="utf-8")
    doc = _lint_json("--baseline", "v1-baseline.json", "fabric", cwd=tmp_path)
    assert doc["findings"] == []
    assert doc["summary"]["baselined"] == 6 and doc["summary"]["baseline_stale"] == 0


def test_stale_entries_are_reported_and_update_baseline_prunes_without_adding(
        tmp_path: Path) -> None:
    fabric = tmp_path / "fabric"
    shutil.copytree(DEMO, fabric)
    run_inprocess("lint", "--write-baseline", "b.json", "fabric", cwd=tmp_path)
    # fix one planted fault (PFC003) and plant a new one (leaf1 MTU)
    leaf3 = fabric / "leaf3.cfg"
    leaf3.write_text(leaf3.read_text().replace("flowcontrol receive on", "flowcontrol receive off"))
    leaf1 = fabric / "leaf1.cfg"
    text = leaf1.read_text()
    marker = "   description P2P_SPINE1_Ethernet1/1\n   no shutdown\n   mtu 9214\n"
    leaf1.write_text(text.replace(marker, marker.replace("mtu 9214", "mtu 1500")))

    doc = _lint_json("--baseline", "b.json", "fabric", cwd=tmp_path)
    assert doc["summary"]["baseline_stale"] == 1
    text_run = run_inprocess("lint", "--baseline", "b.json", "fabric", "--no-color", cwd=tmp_path)
    assert "1 baseline entry fixed since" in text_run.stdout

    updated = run_inprocess("lint", "--baseline", "b.json", "--update-baseline", "fabric",
                            cwd=tmp_path)
    assert "kept 5 entries, pruned 1" in updated.stderr
    entries = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert len(entries) == 5 and "PFC003" not in {e["rule"] for e in entries}
    # the new leaf1 findings were not added: they are still reported
    after = _lint_json("--baseline", "b.json", "fabric", cwd=tmp_path)
    assert {(f["device"], f["rule"]) for f in after["findings"]} == {
        ("leaf1", "MTU001")}
    assert after["summary"]["baseline_stale"] == 0
    assert run_inprocess("lint", "--update-baseline", "fabric", cwd=tmp_path).code == 2


def test_junit_cases_name_their_file_and_the_suite_its_time() -> None:
    from xml.etree import ElementTree as ET

    root = ET.fromstring(run_inprocess("lint", str(DEMO), "-f", "junit").stdout)
    suite = root.find("testsuite")
    assert suite is not None and float(suite.get("time", "-1")) > 0
    cases = suite.findall("testcase")
    assert all(case.get("file") and case.get("time") == "0" for case in cases)
    failed = {case.get("classname"): case.get("file") for case in cases
              if case.find("failure") is not None}
    assert failed["leaf3"].endswith("leaf3.cfg")
    assert failed["leaf4"].endswith("leaf4/config_db.json")
