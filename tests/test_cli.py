"""The command line, as users and CI run it: the installed entry point and the Typer app.

Every invocation goes through ``_check``: no traceback may reach the user, whatever happens.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

import fablint
from fablint.checks import REGISTRY
from fablint.cli import app

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "fixtures" / "demo"
FORMATS = ("text", "json", "sarif", "junit", "github")
FINDING_KEYS = {"rule", "name", "severity", "category", "device", "object", "file", "line",
                "message", "fix", "edit", "fingerprint", "objects", "places", "consequences"}

# fixtures/demo/README.md: (device, rule) -> (file, text of the line the finding must point at,
# and, where that text recurs in the file, a line of the section it must be found in: the
# first line containing the text after that one is the line the finding must cite).
PLANTED = {
    ("spine2", "ECN003"): ("spine2.cfg", "random-detect ecn minimum-threshold 1500 kbytes", None),
    # the same fault seen across the cable (LLDP: leaf2 Ethernet50/1 - spine2 Ethernet2/1),
    # MTU005, is its consequence: folded into it, not reported apart
    ("leaf2", "MTU001"): ("leaf2.cfg", "interface Ethernet50/1", None),
    ("leaf3", "ACL001"): ("leaf3.cfg", "ip access-group HOST-PROTECT in", None),
    ("leaf3", "PFC003"): ("leaf3.cfg", "flowcontrol receive on", None),
    # SONiC: the port's own entry in the PORT table, as EOS and NX-OS cite the interface line
    ("leaf4", "PFC001"): ("leaf4/config_db.json", '"Ethernet16": {', '    "PORT": {'),
    # one finding for the shared map, at the entry that sends RoCE DSCP 24 to lossy TC 1: the
    # rest of the fabric carries RoCE on DSCP 24/26 (QOS010), so QOS001's warning that the
    # switch's own lossless DSCPs (3) differ from the profile's is folded into it
    ("leaf4", "QOS010"): ("leaf4/config_db.json", '"24": "1"', '    "DSCP_TO_TC_MAP": {'),
}

EOS_HEADER = """\
! device: {name} (DCS-7060DX5-64S, EOS-4.32.2F)
!
service routing protocols model multi-agent
!
hostname {name}
!
spanning-tree mode none
!
"""


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def all(self) -> str:
        return self.stdout + self.stderr


def _check(run: Run) -> Run:
    assert "Traceback" not in run.stderr, run.stderr
    assert "Traceback" not in run.stdout, run.stdout
    assert run.code in (0, 1, 2), f"exit {run.code}: {run.stderr}"
    return run


def _entry_point() -> list[str]:
    script = Path(sys.executable).parent / "fablint"
    return [str(script)] if script.exists() else [sys.executable, "-m", "fablint"]


def run_subprocess(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> Run:
    proc = subprocess.run(
        [*_entry_point(), *args], cwd=cwd, capture_output=True, text=True, timeout=60,
        check=False, env={**os.environ, **env} if env else None,
        encoding="utf-8", errors="replace",
    )
    return _check(Run(proc.returncode, proc.stdout, proc.stderr))


def run_inprocess(*args: str, cwd: Path = REPO) -> Run:
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(app, list(args))
    finally:
        os.chdir(old)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"fablint {' '.join(args)} raised") from result.exception
    return _check(Run(result.exit_code, result.stdout, result.stderr))


Runner = Callable[..., Run]
BOTH = pytest.mark.parametrize("cli", [run_subprocess, run_inprocess],
                               ids=["entry-point", "in-process"])


def _json(run: Run) -> dict:
    return json.loads(run.stdout)


def _pairs(doc: dict) -> set[tuple[str, str]]:
    return {(f["device"], f["rule"]) for f in doc["findings"]}


def _eos(name: str, body: str) -> str:
    return EOS_HEADER.format(name=name) + body


# -- lint on the demo fabric -----------------------------------------------------------------

_ROW = re.compile(r"^\s+(\d+)\s+(error|warning|info)\s+([A-Z]+\d+)\s+(\S+)\s")


def _text_findings(text: str) -> set[tuple[str, int, str, str]]:
    """(file, line, rule, device) of every finding row of a text report."""
    out = set()
    current = None
    for line in text.splitlines():
        if line and not line[0].isspace():
            current = line.strip()
            continue
        match = _ROW.match(line)
        if match:
            out.add((current, int(match[1]), match[3], match[4]))
    return out


def _planted_at(device: str, rule: str) -> tuple[str, int]:
    """(file as reported for 'fixtures/demo', line) where the planted fault must be cited."""
    file, text, section = PLANTED[(device, rule)]
    lines = (DEMO / file).read_text(encoding="utf-8").splitlines()
    start = 0 if section is None else lines.index(section)
    line = next(n for n, content in enumerate(lines[start:], start + 1) if text in content)
    return f"fixtures/demo/{file}", line


@BOTH
def test_lint_demo_text_reports_every_planted_fault_with_file_and_line(cli: Runner) -> None:
    run = cli("lint", "fixtures/demo")
    assert run.code == 1
    rows = _text_findings(run.stdout)
    assert len(rows) == len(PLANTED)
    assert {(device, rule) for _, _, rule, device in rows} == set(PLANTED)
    for file, line, rule, device in rows:
        assert (file, line) == _planted_at(device, rule), (rule, device)
    assert run.stdout.rstrip().splitlines()[-1] == (
        "6 problems (6 errors) in 6 devices in 11 files; 6 with a fix shown.")


def test_lint_demo_github_format_has_file_and_line() -> None:
    run = run_inprocess("lint", "--format", "github", "fixtures/demo")
    assert run.code == 1
    found = []
    for line in run.stdout.splitlines():
        match = re.match(r"^::(error|warning) file=([^,]+),line=(\d+),title=(\w+) ", line)
        assert match, line
        found.append((match[1], match[2], int(match[3]), match[4]))
    assert sorted(found) == sorted(
        ("error", *_planted_at(device, rule), rule) for device, rule in PLANTED)


@BOTH
def test_lint_demo_json(cli: Runner) -> None:
    run = cli("lint", "--format", "json", "fixtures/demo")
    assert run.code == 1
    doc = _json(run)
    assert {"version", "findings", "summary", "errors"} <= set(doc)
    assert doc["errors"] == []
    assert len(doc["findings"]) == len(PLANTED)
    for finding in doc["findings"]:
        assert set(finding) == FINDING_KEYS
        assert finding["file"].startswith("fixtures/demo/")
        assert isinstance(finding["line"], int) and finding["line"] > 0
        assert re.fullmatch(r"[0-9a-f]{32}", finding["fingerprint"])
        assert finding["name"] == REGISTRY[finding["rule"]].name
        assert finding["severity"] == "error"
        assert (finding["file"], finding["line"]) == _planted_at(finding["device"],
                                                                 finding["rule"])
    assert _pairs(doc) == set(PLANTED)
    summary = doc["summary"]
    assert summary["total"] == 6 and summary["errors"] == 6 and summary["warnings"] == 0
    assert summary["by_rule"] == {rule: 1 for _, rule in PLANTED}
    assert summary["devices"] == 6 and summary["files"] == 11
    assert summary["exit_code"] == 1


def test_fail_on_never_exits_zero_but_still_reports() -> None:
    run = run_inprocess("lint", "--fail-on", "never", "--format", "json", "fixtures/demo")
    assert run.code == 0
    assert _pairs(_json(run)) == set(PLANTED)


ECN_LINE = ("      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes "
            "max-mark-probability 100\n")


def test_fail_on_levels(tmp_path: Path) -> None:
    # The demo has errors only: a leaf1 whose RoCE queue lost its ECN marking has warnings only.
    text = (DEMO / "leaf1.cfg").read_text(encoding="utf-8")
    assert text.count(ECN_LINE) == 1
    leaf = tmp_path / "leaf1.cfg"
    leaf.write_text(text.replace(ECN_LINE, ""), encoding="utf-8")
    only_warning = ["--format", "json", str(leaf)]
    run = run_inprocess("lint", *only_warning)
    assert run.code == 0  # default: error
    findings = _json(run)["findings"]
    assert findings
    assert {(f["device"], f["rule"], f["severity"]) for f in findings} == {
        ("leaf1", "ECN001", "warning")}
    assert run_inprocess("lint", "--fail-on", "error", *only_warning).code == 0
    assert run_inprocess("lint", "--fail-on", "warning", *only_warning).code == 1
    assert run_inprocess("lint", "--fail-on", "info", *only_warning).code == 1
    assert run_inprocess("lint", "--fail-on", "never", *only_warning).code == 0


def test_select_family_only_runs_that_family() -> None:
    doc = _json(run_inprocess("lint", "--select", "PFC", "--format", "json", "fixtures/demo"))
    assert {f["rule"] for f in doc["findings"]} == {"PFC001", "PFC003"}
    assert all(f["rule"].startswith("PFC") for f in doc["findings"])


def test_select_by_category_and_name() -> None:
    by_category = _json(run_inprocess("lint", "--select", "ecn", "-f", "json", "fixtures/demo"))
    assert _pairs(by_category) == {("spine2", "ECN003")}
    by_category = _json(run_inprocess("lint", "--select", "pfc", "-f", "json", "fixtures/demo"))
    assert _pairs(by_category) == {("leaf3", "PFC003"), ("leaf4", "PFC001")}
    by_name = _json(run_inprocess("lint", "--select", "acl-drops-roce", "-f", "json",
                                  "fixtures/demo"))
    assert _pairs(by_name) == {("leaf3", "ACL001")}


def test_ignore_removes_a_rule() -> None:
    # leaf3 has two faults: ignoring one rule keeps the other.
    doc = _json(run_inprocess("lint", "--ignore", "PFC003", "--format", "json", "fixtures/demo"))
    assert _pairs(doc) == set(PLANTED) - {("leaf3", "PFC003")}


@BOTH
def test_unknown_select_is_a_usage_error(cli: Runner) -> None:
    run = cli("lint", "--select", "XYZ", "fixtures/demo")
    assert run.code == 2
    assert "XYZ" in run.stderr and "unknown" in run.stderr
    assert run.stdout == ""


@BOTH
def test_nonexistent_path_is_a_usage_error(cli: Runner, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    run = cli("lint", str(missing))
    assert run.code == 2
    assert "not found" in run.stderr and str(missing) in run.stderr
    assert run.stdout == ""


@BOTH
def test_binary_file_on_command_line_exits_2_and_others_are_still_linted(
    cli: Runner, tmp_path: Path
) -> None:
    blob = tmp_path / "dump.bin"
    blob.write_bytes(b"\x00\x01\x02\xffbinary\x00junk" * 10)
    run = cli("lint", "--format", "json", "fixtures/demo/leaf2.cfg",
              "fixtures/demo/leaf4/config_db.json", str(blob))
    assert run.code == 2
    doc = _json(run)
    others = [f for f in doc["findings"] if f["file"] != str(blob)]
    # with two switches there is no fabric majority for QOS010: leaf4's own lossless DSCPs are
    # QOS001's warning, at the map entry QOS010 cites in the whole demo
    assert sorted((f["device"], f["rule"], f["file"], f["line"]) for f in others) == sorted(
        (device, rule, *_planted_at(device, at))
        for device, rule, at in (("leaf2", "MTU001", "MTU001"), ("leaf4", "PFC001", "PFC001"),
                                 ("leaf4", "QOS001", "QOS010")))
    assert [e["file"] for e in doc["errors"]] == [str(blob)]
    assert doc["summary"]["unparsed_files"] == 1
    about_blob = [f for f in doc["findings"] if f["file"] == str(blob)]
    assert about_blob and all(f["severity"] == "error" for f in about_blob)


def test_binary_file_text_report_says_it_could_not_be_linted(tmp_path: Path) -> None:
    blob = tmp_path / "dump.bin"
    blob.write_bytes(b"\x00" * 64)
    run = run_inprocess("lint", "fixtures/demo/leaf2.cfg", str(blob))
    assert run.code == 2
    assert "MTU001" in run.stdout
    assert "could not be linted" in run.stdout


def test_unsupported_text_file_in_folder_is_only_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "fabric"
    folder.mkdir()
    shutil.copy(DEMO / "leaf1.cfg", folder / "leaf1.cfg")
    (folder / "notes.txt").write_text("Rack 12 notes: replace optic on port 50\n",
                                      encoding="utf-8")
    run = run_inprocess("lint", "--format", "json", str(folder))
    assert run.code == 0
    doc = _json(run)
    assert [(f["rule"], f["severity"], f["file"]) for f in doc["findings"]] == [
        ("FAB002", "warning", str(folder / "notes.txt"))
    ]
    assert doc["errors"] == []
    assert run_inprocess("lint", "--fail-on", "warning", str(folder)).code == 1
    # Named explicitly, the same file is an error: the user asked for it to be linted.
    assert run_inprocess("lint", str(folder / "notes.txt")).code == 2


def test_unsupported_text_in_demo_copy_keeps_exit_code_1(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    (folder / "inventory.csv").write_text("name,rack\nleaf1,12\n", encoding="utf-8")
    run = run_inprocess("lint", "--format", "json", str(folder))
    assert run.code == 1
    assert ("FAB002" in {f["rule"] for f in _json(run)["findings"]})


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_output_file_is_written_and_nothing_else(tmp_path: Path, fmt: str) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / f"report.{fmt}"
    run = run_inprocess("lint", "--format", fmt, "--output", str(target), "fixtures/demo")
    assert run.code == 1
    assert sorted(p.name for p in out_dir.iterdir()) == [target.name]
    assert run.stdout == ""
    content = target.read_text(encoding="utf-8")
    if fmt == "json":
        assert _pairs(json.loads(content)) == set(PLANTED)
        assert "6 problems" in run.stderr  # the summary line goes to stderr
    else:
        assert "MTU001" in content and "6 problems" in content


def test_output_into_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    run = run_inprocess("lint", "-f", "json", "-o", str(tmp_path / "nope" / "r.json"),
                        "fixtures/demo")
    assert run.code == 2
    assert "does not exist" in run.stderr
    assert not (tmp_path / "nope").exists()


# -- baselines -------------------------------------------------------------------------------


SHIFT = "\n! re-exported by the config archive\n!\n\n"


def _shift(path: Path) -> None:
    """Move every line of a config down by the same amount: comments in CLI configs, blank
    lines before the document in a SONiC config_db.json."""
    prefix = "\n" * SHIFT.count("\n") if path.suffix == ".json" else SHIFT
    path.write_text(prefix + path.read_text(encoding="utf-8"), encoding="utf-8")


def test_baseline_round_trip_and_new_finding_survives_line_shifts(tmp_path: Path) -> None:
    fabric = tmp_path / "fabric"
    shutil.copytree(DEMO, fabric)

    def cli(*args: str) -> Run:
        return run_inprocess(*args, cwd=tmp_path)  # relative paths, as a user types them

    wrote = cli("lint", "--write-baseline", "b.json", "fabric")
    assert wrote.code == 0
    assert "6 finding" in wrote.stderr
    assert wrote.stdout == ""
    recorded = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    assert len(recorded["findings"]) == 6

    clean = cli("lint", "--baseline", "b.json", "-f", "json", "fabric")
    assert clean.code == 0
    doc = _json(clean)
    assert doc["findings"] == []
    assert doc["summary"]["baselined"] == 6

    # Every file moves down (comments and blank lines at the top), and leaf1 gets a new fault.
    shifted = sorted(p for p in fabric.rglob("*") if p.is_file() and p.name != "README.md"
                     and p.parent.name != "lldp")
    assert [p.relative_to(fabric).as_posix() for p in shifted] == [
        "leaf1.cfg", "leaf2.cfg", "leaf3.cfg", "leaf4/config_db.json", "spine1.cfg", "spine2.cfg"]
    for path in shifted:
        _shift(path)
    leaf1 = fabric / "leaf1.cfg"
    text = leaf1.read_text(encoding="utf-8")
    marker = "   description P2P_SPINE1_Ethernet1/1\n   no shutdown\n   mtu 9214\n"
    assert marker in text
    leaf1.write_text(text.replace(marker, marker.replace("mtu 9214", "mtu 1500")),
                     encoding="utf-8")

    after = cli("lint", "--baseline", "b.json", "-f", "json", "fabric")
    assert after.code == 1
    doc = _json(after)
    assert [(f["device"], f["rule"], f["object"], f["file"]) for f in doc["findings"]] == [
        # (the same fault seen across the cable to spine1, MTU005, is folded into it)
        ("leaf1", "MTU001", "Ethernet49/1", "fabric/leaf1.cfg"),
    ]
    assert [c["rule"] for c in doc["findings"][0]["consequences"]] == ["MTU005"]
    cited = leaf1.read_text(encoding="utf-8").splitlines()[doc["findings"][0]["line"] - 1]
    assert cited == "   mtu 1500"
    assert doc["summary"]["baselined"] == 6

    # Without the baseline all six are back, at their shifted lines, with the new one.
    full = _json(cli("lint", "-f", "json", "fabric"))
    assert len(full["findings"]) == 7
    original = _json(run_inprocess("lint", "-f", "json", "fixtures/demo"))
    shift = SHIFT.count("\n")
    lines = {(f["device"], f["rule"]): f["line"] for f in original["findings"]}
    assert set(lines) == set(PLANTED)
    assert {(f["device"], f["rule"]) for f in full["findings"]} == set(PLANTED) | {
        ("leaf1", "MTU001")}
    for f in full["findings"]:
        if (f["device"], f["rule"]) in lines:
            assert f["line"] == lines[(f["device"], f["rule"])] + shift, f


def test_baseline_that_is_not_json_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text("not json", encoding="utf-8")
    run = run_inprocess("lint", "--baseline", str(bad), "fixtures/demo")
    assert run.code == 2
    assert "baseline" in run.stderr


# -- other commands --------------------------------------------------------------------------


@BOTH
def test_rules_lists_every_rule(cli: Runner) -> None:
    run = cli("rules")
    assert run.code == 0
    assert "PFC001" in run.stdout and "pfc-lossless-priorities" in run.stdout
    for rule_id in REGISTRY:
        assert rule_id in run.stdout


def test_rules_json() -> None:
    run = run_inprocess("rules", "--format", "json")
    assert run.code == 0
    assert {r["id"] for r in json.loads(run.stdout)} == set(REGISTRY)


@pytest.mark.parametrize("query", ["PFC001", "pfc001", "pfc-lossless-priorities"])
def test_explain(query: str) -> None:
    run = run_inprocess("explain", query)
    assert run.code == 0
    assert "PFC001" in run.stdout
    assert "priority" in run.stdout.lower()


@BOTH
def test_explain_unknown_rule(cli: Runner) -> None:
    run = cli("explain", "NOPE")
    assert run.code == 2
    assert "NOPE" in run.stderr
    assert run.stdout == ""


def test_parse_prints_the_model() -> None:
    run = run_inprocess("parse", "fixtures/demo/leaf1.cfg")
    assert run.code == 0
    doc = json.loads(run.stdout)
    assert doc["format"] == "eos"
    assert doc["devices"][0]["name"] == "leaf1"
    assert doc["devices"][0]["interfaces"]["Ethernet1/1"]["mtu"] == 9214
    assert doc["problems"] == []


def test_parse_of_a_binary_file_exits_2(tmp_path: Path) -> None:
    blob = tmp_path / "x.bin"
    blob.write_bytes(b"\x00\x00\x00")
    run = run_inprocess("parse", str(blob))
    assert run.code == 2
    assert json.loads(run.stdout)["problems"][0]["fatal"] is True


@BOTH
def test_version(cli: Runner) -> None:
    run = cli("--version")
    assert run.code == 0
    assert run.stdout.strip() == f"fablint {fablint.__version__}"


# -- secrets never leak ----------------------------------------------------------------------

SECRETS = ("$6$SECRETHASH", "SECRETHASH", "S3CR3TCOMM")


@pytest.fixture
def secret_config(tmp_path: Path) -> Path:
    path = tmp_path / "secret-leaf.cfg"
    path.write_text(_eos("secret-leaf", """\
username admin privilege 15 role network-admin secret sha512 $6$SECRETHASH
snmp-server community S3CR3TCOMM ro
!
interface Ethernet1/1
   mtu 1500
   no switchport
   ip address 10.0.0.0/31
   priority-flow-control on
   priority-flow-control priority 3 no-drop
!
end
"""), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", FORMATS)
def test_secrets_never_appear_in_any_format(secret_config: Path, fmt: str) -> None:
    run = run_inprocess("lint", "--format", fmt, str(secret_config))
    assert run.code == 1
    assert "MTU001" in run.stdout  # the report is not empty: the planted fault is there
    for secret in SECRETS:
        assert secret not in run.all, f"{secret} leaked in --format {fmt}"
    if fmt == "junit":
        ET.fromstring(run.stdout)


def test_secrets_never_appear_in_the_installed_cli(secret_config: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.sarif"
    run = run_subprocess("lint", "--format", "sarif", "--output", str(out), str(secret_config))
    assert run.code == 1
    content = out.read_text(encoding="utf-8")
    assert "MTU001" in content
    for secret in SECRETS:
        assert secret not in run.all + content


def test_secrets_never_appear_in_parse_output(secret_config: Path) -> None:
    run = run_inprocess("parse", str(secret_config))
    assert run.code == 0
    for secret in SECRETS:
        assert secret not in run.all


def test_secret_in_a_baseline_file_is_not_written(secret_config: Path, tmp_path: Path) -> None:
    baseline = tmp_path / "b.json"
    run = run_inprocess("lint", "--write-baseline", str(baseline), str(secret_config))
    assert run.code == 0
    for secret in SECRETS:
        assert secret not in baseline.read_text(encoding="utf-8") + run.all


# -- regression: non-finite numbers --------------------------------------------------------


def test_infinite_ecn_threshold_is_a_finding_not_an_internal_error(tmp_path: Path) -> None:
    # int(float("inf")) in units.threshold() used to end the run with exit 3, internal error.
    path = tmp_path / "leaf.cfg"
    path.write_text(_eos("leaf", """\
qos profile P
   tx-queue 3
      random-detect ecn minimum-threshold inf kbytes maximum-threshold 1500 kbytes
"""), encoding="utf-8")
    run = run_subprocess("lint", "--format", "json", str(path))
    assert run.code == 0
    doc = _json(run)
    lines = path.read_text(encoding="utf-8").splitlines()
    bad_line = next(n for n, text in enumerate(lines, 1) if "inf kbytes" in text)
    assert [(f["rule"], f["line"]) for f in doc["findings"]] == [("FAB003", bad_line)]


def test_clean_run_on_a_non_utf8_stdout() -> None:
    run = run_subprocess("lint", "fixtures/demo/leaf1.cfg", env={"PYTHONIOENCODING": "cp1252"})
    assert run.code == 0
    assert "no problems found" in run.stdout
