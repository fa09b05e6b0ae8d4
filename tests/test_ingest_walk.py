"""Folder walks, detection by content and fragment grouping on the fixtures of issue 13
(fixtures/ingest): exact counts, before which the fixture's README says what went wrong."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.ingest import discover, parse_file
from fablint.parsers.detect import detect
from fablint.profiles import load_policy
from fablint.report import sarif
from fablint.walk import GitIgnore, obviously_not_input
from tests.conftest import FIXTURES

INGEST = FIXTURES / "ingest"


def _lint(*paths: Path) -> LintResult:
    return lint(LintOptions(paths=[str(p) for p in paths], config=ProjectConfig(),
                            policy=load_policy(), jobs=1))


def _counts(result: LintResult) -> Counter[tuple[str, str | None]]:
    return Counter((f.rule, f.device) for f in result.findings)


def test_a_crlf_eos_config_is_linted_like_the_lf_one(tmp_path: Path) -> None:
    crlf = INGEST / "crlf-eos" / "crlf-leaf1.cfg"
    assert b"\r\n" in crlf.read_bytes()
    lf = tmp_path / "crlf-leaf1.cfg"
    lf.write_bytes(crlf.read_bytes().replace(b"\r\n", b"\n"))
    result = _lint(crlf.parent)
    errors = [f for f in result.findings if f.severity == "error"]
    assert len(errors) == 30  # 15 ports at MTU 1500, 15 with 802.3x pause beside PFC
    assert _counts(result) == {("MTU001", "crlf-leaf1"): 15, ("PFC003", "crlf-leaf1"): 15,
                               ("ECN001", "crlf-leaf1"): 30, ("WD001", "crlf-leaf1"): 1}
    expected = [(f.rule, f.line, f.message) for f in _lint(lf).findings]
    assert [(f.rule, f.line, f.message) for f in result.findings] == expected
    assert result.exit_code == 1


def test_config_db_whose_first_tables_are_system_port_is_sonic() -> None:
    path = INGEST / "sonic-voq-first" / "config_db.json"
    text = path.read_text(encoding="utf-8")
    assert text.index('"SYSTEM_PORT"') < text.index('"PORT"') and text.index('"PORT"') > 16384
    outcome = parse_file(str(path), False)
    assert outcome.input.format == "sonic"
    [device] = outcome.devices
    assert device.name == "lc1"
    # only this linecard's system ports (lc1|asic0) are its ports' queues: 18 ports x 2
    marked = [(name, q) for name, i in device.interfaces.items() for q, queue in
              i.qos.queues.items() if queue.ecn is not None]
    assert len(marked) == 36


def test_a_voq_linecard_has_no_false_unmarked_queue() -> None:
    result = _lint(INGEST / "sonic-voq-first")
    assert not [f for f in result.findings if f.rule in ("ECN001", "FAB002")]
    assert _counts(result) == {("QOS001", "lc1"): 1, ("QOS004", "lc1"): 1, ("PFC002", "lc1"): 1}


@pytest.mark.parametrize("hostname", [None, "renamed-lc"])
def test_voq_keys_of_a_fragment_or_another_hostname_are_read(hostname: str | None,
                                                             tmp_path: Path) -> None:
    doc = json.loads((INGEST / "sonic-voq-first" / "config_db.json").read_text("utf-8"))
    if hostname is None:
        del doc["DEVICE_METADATA"]
    else:
        doc["DEVICE_METADATA"]["localhost"]["hostname"] = hostname
    (tmp_path / "config_db.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert not [f for f in _lint(tmp_path).findings if f.rule == "ECN001"]


def test_json_tables_anywhere_and_not_only_in_the_head() -> None:
    text = (INGEST / "sonic-voq-first" / "config_db.json").read_text(encoding="utf-8")
    # an unknown table first, as large as the head detection reads
    padded = '{\n    "CHASSIS_MODULE_X": {' + ", ".join(
        f'"LINE-CARD{i}": {{"admin_status": "up"}}' for i in range(800)) + "},\n" + text[2:]
    assert detect(padded).parser is not None and detect(padded).parser.name == "sonic"
    assert detect(padded[:16384]).parser is None


def test_ansible_cfg_is_an_ini_file_not_json() -> None:
    detection = detect((INGEST / "config-repo" / "ansible.cfg").read_text(encoding="utf-8"))
    assert detection.parser is None
    assert "INI" in (detection.hint or "") and "JSON" not in (detection.hint or "")
    assert detect('[\n  {"a": 1}\n]').hint == "a JSON document in no format fablint reads"


def test_a_config_repository_walk_skips_what_is_not_an_input() -> None:
    repo = INGEST / "config-repo"
    walked = sorted(str(Path(f).relative_to(repo)) for f, _ in discover([str(repo)]))
    assert walked == ["configs/crlf-leaf1.cfg", "configs/dell-tor1.cfg", "inventory.csv",
                      "inventory/hosts.yml", "playbooks/deploy.yml", "playbooks/render.yml",
                      "site.yml"]


def test_a_config_repository_gives_one_summary_of_unsupported_files() -> None:
    repo = INGEST / "config-repo"
    result = _lint(repo)
    [summary] = [f for f in result.findings if f.rule == "FAB002"]
    assert summary.severity == "warning"
    assert sorted(summary.objects) == [str(repo / "configs" / "dell-tor1.cfg"),
                                       str(repo / "inventory.csv")]
    assert "2 files" in summary.message and "Dell OS9" in summary.message
    # placed at the first such file, so SARIF (GitHub code scanning) and annotations anchor it
    assert (summary.file, summary.line) == (summary.objects[0], None)
    results = sarif.document(result)["runs"][0]["results"]
    assert all(r["locations"][0]["physicalLocation"] for r in results)
    assert _counts(result)[("MTU001", "crlf-leaf1")] == 15
    assert len([f for f in result.findings if f.severity == "error"]) == 30
    assert not result.errors  # stray files found in a folder do not fail the run


def test_a_named_unsupported_file_stays_an_error() -> None:
    run = CliRunner().invoke(app, ["lint", str(INGEST / "config-repo" / "ansible.cfg"),
                                   "--format", "json"])
    assert run.exit_code == 2
    [finding] = json.loads(run.stdout)["findings"]
    assert (finding["rule"], finding["severity"]) == ("FAB002", "error")
    run = CliRunner().invoke(app, ["lint", str(INGEST / "config-repo" / "site.yml")])
    assert run.exit_code == 2 and "Ansible playbook" in run.stdout


def test_qos_fragments_of_two_devices_stay_two_devices() -> None:
    result = _lint(INGEST / "qos-two-devices")
    # leafA: its config_db and the fragment its file name gives it; leafB's fragment apart
    # (qos-leafB's lossless queue drops with WRED instead of marking: ECN002, not ECN001 too)
    assert _counts(result) == {("QOS004", "leafA"): 1, ("QOS004", "qos-leafB"): 1,
                               ("ECN002", "qos-leafB"): 1}
    devices = {d for f in result.fabric.inputs for d in f.devices}
    assert devices == {"leafA", "qos-leafB"}


def test_contradicting_nameless_fragments_are_not_merged() -> None:
    result = _lint(INGEST / "qos-fragments-of-two-devices")
    assert _counts(result) == {("QOS004", "qos-rack1"): 1, ("QOS004", "qos-rack2"): 1,
                               ("ECN002", "qos-rack2"): 1}


def test_one_devices_fragments_in_a_folder_are_one_device(tmp_path: Path) -> None:
    folder = tmp_path / "leaf9"
    shutil.copytree(INGEST / "qos-two-devices", folder)
    (folder / "qos-leafB.json").unlink()
    (folder / "qos-leafA.json").rename(folder / "qos.json")
    result = _lint(folder)
    assert {d for f in result.fabric.inputs for d in f.devices} == {"leafA"}


@pytest.mark.parametrize(("name", "skipped"), [
    ("ansible.cfg", True), ("requirements.txt", True), ("dev-requirements.txt", True),
    ("leaf.j2", True), ("tox.ini", True), ("render.py", True), ("NOTES.md", True),
    ("leaf1.cfg", False), ("config_db.json", False), ("show_lldp.txt", False),
    ("ibdiagnet2.db_csv", False)])
def test_obviously_not_input(name: str, skipped: bool) -> None:
    assert obviously_not_input(name) is skipped


@pytest.mark.parametrize(("pattern", "path", "is_dir", "ignored"), [
    ("build/", "build", True, True), ("build/", "build", False, None),
    ("*.bak", "configs/a.cfg.bak", False, True), ("/top.cfg", "sub/top.cfg", False, None),
    ("/top.cfg", "top.cfg", False, True), ("a/**/b.cfg", "a/x/y/b.cfg", False, True),
    ("*.cfg\n!keep.cfg", "keep.cfg", False, False), ("docs/*.txt", "docs/x.txt", False, True),
])
def test_gitignore_patterns(pattern: str, path: str, is_dir: bool, ignored: bool | None,
                            tmp_path: Path) -> None:
    assert GitIgnore(tmp_path, pattern).ignored(tmp_path / path, is_dir) is ignored
