"""A folder of whole SONiC switches is parsed one switch per unit (so in parallel), and only
when each document certainly names its own hostname; fragments still merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fablint.api import lint
from fablint.ingest import discover, group_units
from fablint.parsers.sonic import certain_hostname

REPO = Path(__file__).resolve().parents[1]
SONIC_FIXTURE = REPO / "fixtures" / "equivalence" / "sonic" / "config_db.json"


def _switch(name: str) -> dict:
    config = json.loads(SONIC_FIXTURE.read_text(encoding="utf-8"))
    config.setdefault("DEVICE_METADATA", {}).setdefault("localhost", {})["hostname"] = name
    return config


def test_certain_hostname_of_a_config_db() -> None:
    text = json.dumps(_switch("leaf7"), indent=4)
    assert certain_hostname(text) == "leaf7"
    assert certain_hostname(json.dumps(_switch("leaf7"))) == "leaf7"  # one line


@pytest.mark.parametrize("text", [
    # a second DEVICE_METADATA (the last one wins in the loader)
    '{"DEVICE_METADATA": {"localhost": {"hostname": "a"}}, "DEVICE_METADATA": {}}',
    # a second localhost row after the one read
    '{"DEVICE_METADATA": {"localhost": {"hostname": "a"}, "localhost": {"mac": "x"}}}',
    # under a wrapper key, or deeper
    '{"wrap": {"DEVICE_METADATA": {"localhost": {"hostname": "a"}}}}',
    '{"PORT": {}, "X": [{"DEVICE_METADATA": {"localhost": {"hostname": "a"}}}]}',
    # escapes, blanks, the flat redis dump, hostname written twice
    '{"DEVICE_METADATA": {"localhost": {"hostname": "le\\u0061f"}}}',
    '{"DEVICE_METADATA": {"localhost": {"hostname": " leaf "}}}',
    '{"DEVICE_METADATA|localhost": {"hostname": "a"}}',
    '{"DEVICE_METADATA": {"localhost": {"hostname": "a"}}, "X": {"hostname": "b"}}',
    # no hostname; not an object
    '{"DEVICE_METADATA": {"localhost": {"mac": "x"}}}',
    '[{"DEVICE_METADATA": {"localhost": {"hostname": "a"}}}]',
])
def test_certain_hostname_doubts(text: str) -> None:
    assert certain_hostname(text) is None


def test_a_folder_of_switches_is_one_unit_per_switch(tmp_path: Path) -> None:
    for name in ("leaf2", "leaf1", "leaf3"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_switch(name), indent=4))
    units = group_units(discover([str(tmp_path)]))
    assert [[Path(p).name for p, _ in unit] for unit in units] == [
        ["leaf1.json"], ["leaf2.json"], ["leaf3.json"]]


def test_a_nameless_fragment_keeps_the_folder_together(tmp_path: Path) -> None:
    for name in ("leaf1", "leaf2"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_switch(name), indent=4))
    (tmp_path / "qos.json").write_text(json.dumps({"WRED_PROFILE": {"P": {"ecn": "ecn_all"}}}))
    units = group_units(discover([str(tmp_path)]))
    assert len(units) == 1 and len(units[0]) == 3


def test_split_and_merged_folders_lint_the_same(tmp_path: Path) -> None:
    """Two documents of one switch (same hostname) still merge; the findings of a split folder
    are those of the same folder read as one merge group."""
    split, merged = tmp_path / "split", tmp_path / "merged"
    for folder in (split, merged):
        folder.mkdir()
        for name in ("leaf1", "leaf2"):
            (folder / f"{name}.json").write_text(json.dumps(_switch(name), indent=4))
        override = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}},
                    "PORT": {"Ethernet0": {"mtu": "1500"}}}
        (folder / "leaf1.override.json").write_text(json.dumps(override, indent=4))
    # a nameless fragment with nothing in it keeps ``merged`` one merge group
    (merged / "zz.json").write_text('{"FLEX_COUNTER_TABLE": {}}')
    assert len(group_units(discover([str(split)]))) == 2
    assert len(group_units(discover([str(merged)]))) == 1

    def findings(folder: Path) -> list[tuple[str | None, str, str, int | None]]:
        result = lint(str(folder))
        return sorted((f.device, f.rule, f.message, f.line) for f in result.findings
                      if f.device in ("leaf1", "leaf2"))

    assert findings(split) == findings(merged)
    assert any(f[1] == "MTU001" and f[0] == "leaf1" for f in findings(split))


def test_grouping_in_worker_processes_is_grouping_here(tmp_path: Path) -> None:
    """Many files are looked at in forked processes: the same units and formats as in this
    process, and the formats they detected are remembered here for the parse workers."""
    from fablint.ingest import GROUP_PARALLEL_FILES
    from fablint.parallel import PARALLEL_MIN_BYTES
    from fablint.parsers import detect

    config = _switch("x")
    config["PAD"] = {"row": {"text": "x" * (PARALLEL_MIN_BYTES // GROUP_PARALLEL_FILES)}}
    for n in range(GROUP_PARALLEL_FILES):
        config["DEVICE_METADATA"]["localhost"]["hostname"] = f"leaf{n % 40}"
        (tmp_path / f"leaf{n}.json").write_text(json.dumps(config, indent=4))
    fragment = tmp_path / "qos"
    fragment.mkdir()
    (fragment / "qos.json").write_text(json.dumps({"SCHEDULER": {"s": {"type": "DWRR"}}}))
    (fragment / "buffers.json").write_text(json.dumps({"BUFFER_POOL": {"p": {"size": "1"}}}))
    (tmp_path / "leaf.cfg").write_text("hostname leaf\ninterface Ethernet1\n   mtu 9214\n")
    files = discover([str(tmp_path)])
    serial: dict[str, str] = {}
    expected = group_units(files, None, serial, jobs=1)
    detect._SNIFFED.clear()
    forked: dict[str, str] = {}
    assert group_units(files, None, forked, jobs=2) == expected
    assert forked == serial and set(serial.values()) == {"sonic"}
    # 24 hostnames twice, 16 once, the .cfg alone, the two fragments of the qos folder
    assert sorted(len(unit) for unit in expected) == [1] * 17 + [2] * 25
    for n in range(GROUP_PARALLEL_FILES):  # the worker's too
        head = (tmp_path / f"leaf{n}.json").read_text()[:detect.SNIFF_BYTES]
        assert (hash(head), len(head), False, True) in detect._SNIFFED  # a JSON head
