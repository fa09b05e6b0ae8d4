"""`fablint drift`: intended configs against a live snapshot, compared through the model.

fixtures/drift/intended is a config repository (leaf1 EOS, leaf2 NX-OS, leaf3 SONiC, leaf9 EOS,
the switches of fixtures/equivalence). fixtures/drift/live is a snapshot of the same fabric
with planted drift; fixtures/drift/live-noise is one with nothing but the differences a live
device makes in form (a `show running-config` header, lines and interfaces in another order,
JSON re-indented with sorted keys, an LLDP table), which must show as no drift at all.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from fablint.drift import DriftReport, compare_devices, drift, load_fabric
from fablint.facts import Difference, diff, differences
from fablint.profiles import load_policy
from fablint.report.drift import fact_value, render_json, render_markdown, render_text
from tests.conftest import FIXTURES
from tests.test_equivalence import FAULTS, FILES, PORTS, ROOT

DRIFT = FIXTURES / "drift"
INTENDED, LIVE, NOISE = DRIFT / "intended", DRIFT / "live", DRIFT / "live-noise"
POLICY = load_policy("default")


def _run(intended: Path, live: Path) -> DriftReport:
    return drift([str(intended)], [str(live)], POLICY, jobs=1)


def _table(report: DriftReport) -> set[tuple[str, str, str, Any, Any]]:
    return {(d.device, f.object, f.fact, _plain(f.intended), _plain(f.live))
            for d in report.devices for f in d.differences}


def _plain(value: Any) -> Any:
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


def _line(ref: Any) -> str:
    return Path(ref.file).read_text(encoding="utf-8").splitlines()[ref.line - 1].strip()


ECN_150 = {"min": 150 * 1024, "max": 1500 * 1024, "probability": 100}
ECN_300 = {"min": 300 * 1024, "max": 1500 * 1024, "probability": 100}


def test_planted_drift_is_found_fact_by_fact() -> None:
    report = _run(INTENDED, LIVE)
    assert report.exit_code == 1 and not report.errors
    states = {d.device: d.state for d in report.devices}
    assert states == {"leaf1": "drift", "leaf2": "drift", "leaf3": "drift",
                      "leaf9": "only-intended", "spine1": "only-live"}
    eos_ports = ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"]
    sonic_ports = ["Ethernet0", "Ethernet8", "Ethernet16", "Ethernet24"]
    expected = {
        ("leaf1", "Ethernet2", "mtu", 9214, 1500),
        *{("leaf1", p, "priority[3].ecn", _plain(ECN_150), _plain(ECN_300)) for p in eos_ports},
        ("leaf2", "Ethernet1/3", "pfc", True, False),
        ("leaf2", "Ethernet1/4", "acl_in_roce", None, "deny"),
        *{("leaf3", p, "dscp[26].tc", 3, 1) for p in sonic_ports},
        ("leaf3", "Ethernet16", "watchdog", True, False),
    }
    assert _table(report) == expected


def test_every_difference_points_at_its_lines() -> None:
    report = _run(INTENDED, LIVE)
    found = {(d.device, f.object, f.fact): f for d in report.devices for f in d.differences}
    mtu = found[("leaf1", "Ethernet2", "mtu")]
    assert _line(mtu.intended_src) == "mtu 9214"
    assert _line(mtu.live_src) == "mtu 1500"
    assert mtu.live_src.file.endswith("live/leaf1/show_running-config.txt")
    ecn = found[("leaf1", "Ethernet3", "priority[3].ecn")]
    assert "minimum-threshold 300 kbytes" in _line(ecn.live_src)
    pfc = found[("leaf2", "Ethernet1/3", "pfc")]
    assert _line(pfc.intended_src) == "priority-flow-control mode on"
    assert _line(pfc.live_src) == "priority-flow-control mode off"
    acl = found[("leaf2", "Ethernet1/4", "acl_in_roce")]
    assert acl.intended_src is None and _line(acl.live_src) == "20 deny udp any any eq 4791"
    dscp = found[("leaf3", "Ethernet8", "dscp[26].tc")]
    assert _line(dscp.intended_src) == '"26": "3",'
    assert _line(dscp.live_src) == '"26": "1",'


def test_form_without_substance_is_no_drift() -> None:
    report = _run(INTENDED, NOISE)
    assert [(d.device, d.state) for d in report.devices] == [
        ("leaf1", "same"), ("leaf2", "same"), ("leaf3", "same"), ("leaf9", "same")]
    assert report.exit_code == 0
    assert "no drift" in render_text(report)
    assert _run(INTENDED, INTENDED).exit_code == 0


def _one_file(tmp_path: Path, vendor: str, text: str, side: str) -> Path:
    folder = tmp_path / side / vendor
    folder.mkdir(parents=True)
    (folder / FILES[vendor]).write_text(text, encoding="utf-8")
    return folder


# The faults of the equivalence tests, as the drift facts each must change.
FAULT_FACTS: dict[str, dict[int, set[str]]] = {
    "mtu-1500-on-port-2": {2: {"mtu"}},
    "pfc-off-on-port-3": {3: {"pfc"}},
    "pfc-on-the-default-class": {p: {"pfc_priorities"} for p in (1, 2, 3, 4)},
    "no-ecn-on-the-lossless-queue": {p: {"priority[3].ecn"} for p in (1, 2, 3, 4)},
    "ecn-thresholds-inverted": {p: {"priority[3].ecn"} for p in (1, 2, 3, 4)},
    "link-pause-on-port-4": {4: {"link_pause"}},
}
# Facts a fault changes on some vendors only, because of how the vendor expresses it: SONiC's
# `config pfc` keeps the watchdog on the PFC priorities; SONiC's 'off' PFC leaves no no-drop
# priorities; NX-OS has one no-drop class per system.
ALSO = {"pfc_priorities", "watchdog"}


@pytest.mark.parametrize(("fault", "vendor"), [
    (fault, vendor) for fault in sorted(FAULTS) for vendor in FAULTS[fault]])
def test_the_equivalence_faults_show_as_drift_on_their_ports(
    fault: str, vendor: str, tmp_path: Path
) -> None:
    text = (ROOT / vendor / FILES[vendor]).read_text(encoding="utf-8")
    intended = _one_file(tmp_path, vendor, text, "intended")
    live = _one_file(tmp_path, vendor, FAULTS[fault][vendor](text), "live")
    report = _run(intended, live)
    assert report.exit_code == 1
    position = {name: n for n, name in enumerate(PORTS[vendor], 1)}
    found: dict[int, set[str]] = {}
    for device in report.devices:
        assert device.state == "drift"
        for f in device.differences:
            assert f.object in position, f  # nothing device-wide for these faults
            found.setdefault(position[f.object], set()).add(f.fact)
    wanted = FAULT_FACTS[fault]
    assert set(found) == set(wanted), found
    for port, facts in wanted.items():
        assert facts <= found[port] <= facts | ALSO, (port, found[port])


def test_devices_match_by_name_in_any_case(tmp_path: Path) -> None:
    shutil.copytree(INTENDED, tmp_path / "a")
    live = tmp_path / "b"
    live.mkdir()
    text = (INTENDED / "leaf1.cfg").read_text(encoding="utf-8")
    (live / "LEAF1.cfg").write_text(text.replace("hostname leaf1", "hostname LEAF1"),
                                    encoding="utf-8")
    report = _run(tmp_path / "a" / "leaf1.cfg", live)
    assert [(d.device, d.state) for d in report.devices] == [("leaf1", "same")]


def test_links_are_compared_where_both_sides_know_them(tmp_path: Path) -> None:
    # intended has no link information: the live LLDP table is not "unexpected links"
    assert not [f for d in _run(INTENDED, LIVE).devices for f in d.differences
                if f.fact == "neighbor"]
    moved = tmp_path / "moved"
    shutil.copytree(NOISE, moved)
    lldp = moved / "leaf1" / "show_lldp_neighbors_detail.txt"
    lldp.write_text(lldp.read_text(encoding="utf-8").replace(
        'Port ID     : "Ethernet1/1"', 'Port ID     : "Ethernet1/7"'), encoding="utf-8")
    report = _run(NOISE, moved)
    assert _table(report) == {
        ("leaf1", "Ethernet1", "neighbor", "spine1 Ethernet1/1", "spine1 Ethernet1/7")}


def test_unreadable_input_exits_2(tmp_path: Path) -> None:
    live = tmp_path / "live"
    shutil.copytree(NOISE, live)
    (live / "leaf3" / "show_runningconfiguration_all.txt").write_text(
        '{"DEVICE_METADATA": {"localhost": {"hostname": "leaf3"}}, "PORT": {', encoding="utf-8")
    report = _run(INTENDED, live)
    assert report.exit_code == 2
    assert [e.side for e in report.errors] == ["live"]
    assert "could not be read" in render_text(report)


def test_reports_in_three_formats() -> None:
    report = _run(INTENDED, LIVE)
    doc = json.loads(render_json(report))
    assert doc["version"] == "1"
    assert doc["summary"] == {"devices_compared": 3, "devices_with_drift": 3,
                              "devices_only_intended": 1, "devices_only_live": 1,
                              "differences": 12, "drift": True}
    leaf1 = next(d for d in doc["devices"] if d["device"] == "leaf1")
    mtu = next(f for f in leaf1["differences"] if f["fact"] == "mtu")
    assert (mtu["intended"], mtu["live"], mtu["label"]) == (9214, 1500, "IP MTU")
    assert mtu["live_src"]["file"].endswith("show_running-config.txt")
    md = render_markdown(report)
    assert "| Ethernet2 | IP MTU | 9214 | 1500 |" in md
    assert "| leaf9 | intended |" in md and "| spine1 | live |" in md
    text = render_text(report)
    assert "4 ports        priority 3 ECN" in text  # one change on four ports: one line
    assert "Ethernet1, Ethernet2, Ethernet3, Ethernet4" in text
    assert "DSCP 26 -> traffic class       3 -> 1" in text
    assert text.rstrip().endswith("1 only in intended, 1 only in live.")


@pytest.mark.parametrize(("fact", "value", "shown"), [
    ("admin_up", False, "down"), ("pfc", True, "on"), ("pfc_priorities", [], "none"),
    ("pfc_priorities", [3, 4], "3, 4"), ("present", False, "missing"),
    ("priority[3].ecn", ECN_150, "min 150 KiB, max 1500 KiB, 100 %"),
    ("acl_in_roce", None, "none"), ("mtu", 9214, "9214"),
])
def test_values_read_as_a_person_reads_them(fact: str, value: Any, shown: str) -> None:
    assert fact_value(fact, value) == shown


def test_cli_exit_codes_and_formats(tmp_path: Path) -> None:
    runner = CliRunner()
    drifted = runner.invoke(app, ["drift", str(INTENDED), str(LIVE), "--no-color"])
    assert drifted.exit_code == 1 and "leaf1 (eos)  2 changes" in drifted.stdout
    same = runner.invoke(app, ["drift", str(INTENDED), str(NOISE)])
    assert same.exit_code == 0 and "no drift" in same.stdout
    out = tmp_path / "drift.md"
    md = runner.invoke(app, ["drift", str(INTENDED), str(LIVE), "-f", "markdown", "-o",
                             str(out)])
    assert md.exit_code == 1 and out.read_text(encoding="utf-8").startswith("# fablint drift")
    assert "drift in 3 of 3" in md.stderr
    js = runner.invoke(app, ["drift", str(INTENDED), str(LIVE), "--format", "json"])
    assert json.loads(js.stdout)["summary"]["drift"] is True
    missing = runner.invoke(app, ["drift", str(INTENDED), str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "path not found" in missing.stderr


def test_a_profile_changes_what_counts(tmp_path: Path) -> None:
    # With DSCP 26 not a RoCE code point, leaf3's remapped DSCP 26 is no longer RoCE-relevant.
    profile = tmp_path / "profile.yaml"
    profile.write_text("extends: default\nclassification: {roce_dscp: [24]}\n",
                       encoding="utf-8")
    result = CliRunner().invoke(app, ["drift", str(INTENDED), str(LIVE), "-p", str(profile),
                                      "-f", "json"])
    facts = {f["fact"] for d in json.loads(result.stdout)["devices"] for f in d["differences"]}
    assert "dscp[26].tc" not in facts and "mtu" in facts


def test_compare_devices_directly() -> None:
    fabric, errors = load_fabric([str(INTENDED)])
    assert not errors
    leaf1 = fabric.devices["leaf1"]
    assert compare_devices(leaf1, leaf1, POLICY) == []


def test_fact_differences_are_structured_and_diff_keeps_its_format() -> None:
    left = {"a": 1, "b": {"c": [1, 2]}, "d": [1]}
    right = {"a": 1, "b": {"c": [1, 3]}, "d": [1, 2], "e": None}
    assert differences(left, right) == [Difference("b.c[1]", 2, 3),
                                        Difference("d", [1], [1, 2])]
    assert diff(left, right) == ["b.c[1]: 2 != 3", "d: [1] != [1, 2]"]


def test_the_example_in_docs_drift_md_is_current(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES.parent)  # the example's paths are relative to the repository
    doc = (FIXTURES.parent / "docs" / "drift.md").read_text(encoding="utf-8")
    command = "$ fablint drift fixtures/drift/intended fixtures/drift/live\n"
    shown = doc.split("```text\n" + command, 1)[1].split("```", 1)[0]
    result = CliRunner().invoke(app, ["drift", "fixtures/drift/intended", "fixtures/drift/live",
                                      "--no-color"])
    assert result.stdout == shown


def test_two_single_files_and_pairs_compare_devices_of_different_names(tmp_path: Path) -> None:
    from tests.test_cli import run_inprocess

    demo = Path(__file__).resolve().parents[1] / "fixtures" / "demo"
    text = (demo / "leaf1.cfg").read_text(encoding="utf-8")
    intended, live = tmp_path / "intended", tmp_path / "live"
    intended.mkdir()
    live.mkdir()
    (intended / "leaf1.cfg").write_text(text, encoding="utf-8")
    (live / "renamed.cfg").write_text(
        text.replace("hostname leaf1", "hostname leaf1-new").replace("mtu 9214", "mtu 1500"),
        encoding="utf-8")
    shutil.copy(demo / "spine1.cfg", intended)
    shutil.copy(demo / "spine1.cfg", live)
    single = run_inprocess("drift", str(intended / "leaf1.cfg"), str(live / "renamed.cfg"))
    assert single.code == 1 and "leaf1 = leaf1-new" in single.stdout
    assert "9214 -> 1500" in single.stdout
    unpaired = run_inprocess("drift", str(intended), str(live))
    assert "only in intended" in unpaired.stdout and "only in live" in unpaired.stdout
    paired = run_inprocess("drift", str(intended), str(live), "--pair", "leaf1=leaf1-new")
    assert paired.code == 1 and "only in" not in paired.stdout
    assert "leaf1 = leaf1-new" in paired.stdout and "9214 -> 1500" in paired.stdout
    assert run_inprocess("drift", str(intended), str(live), "--pair", "leaf1").code == 2
