"""LLDP neighbour tables: values read by hand from real outputs, whose view each is, and junk."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.ingest import parse_file
from fablint.parsers import ParseError
from fablint.parsers.lldp import LldpParser, layout_of, owner_of, read_lldp
from tests.conftest import CORPUS

LLDP = CORPUS / "lldp"
NEEDS_CORPUS = pytest.mark.skipif(not LLDP.is_dir(), reason=f"corpus not found at {LLDP}")


def _claims(name: str) -> list[tuple[str, str | None, str | None, int]]:
    table = read_lldp((LLDP / name).read_text(encoding="utf-8"), name)
    return [(n.local_port, n.remote_device, n.remote_port, n.line) for n in table.neighbors]


@NEEDS_CORPUS
def test_eos_table_without_separator() -> None:
    assert _claims("eos-show-lldp-neighbors-1.raw") == [
        ("Et1", "localhost", "Ethernet1", 8),
        ("Et2", "localhost", "Ethernet2", 9),
        ("Et3/1", "tg104.sjc.aristanetworks.com", "Ethernet3/2", 10),
        ("Ma1/1", "dc1-rack11-tor1.sjc", "1/1", 11),
    ]


@NEEDS_CORPUS
def test_eos_table_with_parallel_links() -> None:
    claims = _claims("eos-show-lldp-neighbors-2.raw")
    assert [c[0] for c in claims] == [f"Et{n}" for n in range(2, 8)]
    assert {c[1] for c in claims} == {"arista2"}
    assert claims[0][3] == 8 and claims[-1][3] == 13


@NEEDS_CORPUS
def test_nxos_table_with_wrapped_device_ids() -> None:
    # The long Device IDs sit alone on lines 5 and 7; each row's line is its port's line.
    assert _claims("nxos-show-lldp-neighbors.raw") == [
        ("Eth1/1", "nx-osv9000-3-long-name.com", "Ethernet1/1", 6),
        ("Eth1/2", "nx-osv9000-4-extremely-long-name", "Ethernet1/1", 8),
        ("Eth1/3", "nx-osv9000-2", "Ethernet1/3", 9),
    ]


@NEEDS_CORPUS
def test_nxos_table_in_a_file_named_json() -> None:
    outcome = parse_file(str(LLDP / "napalm-nxos-show-lldp-neighbors-textin.json"), True)
    assert outcome.input.format == "lldp"
    assert [(link.a.interface, link.b.device, link.b.interface) for link in outcome.links] == [
        ("mgmt0", "PERIMETER.cisco.com", "Fa1/0/9"),
        ("Eth1/1", "n9k2.ntc.com", "Ethernet1/1"),
        ("Eth1/2", "n9k2.ntc.com", "Ethernet1/2"),
    ]


@NEEDS_CORPUS
def test_eos_detail_keeps_frame_size_and_skips_ports_without_neighbours() -> None:
    table = read_lldp((LLDP / "eos-show-lldp-neighbors-detail.raw").read_text(), "x")
    text = (LLDP / "eos-show-lldp-neighbors-detail.raw").read_text()
    assert table.layout == "eos-detail"
    assert len(table.neighbors) == sum(
        int(line.split()[3]) for line in text.splitlines() if " detected " in line
    )
    first = table.neighbors[0]
    assert (first.local_port, first.remote_device, first.remote_port) == (
        "Ethernet1", "spine2.company.com", "Ethernet1")
    assert first.max_frame_bytes == 9236
    assert first.chassis_id == "2cc2.6081.eaf9"
    line = text.split("\n")[first.line - 1].strip()
    assert line.startswith('Neighbor 2cc2.6081.eaf9/"Ethernet1"')


@NEEDS_CORPUS
def test_nxos_detail_reads_each_neighbour_block() -> None:
    table = read_lldp((LLDP / "nxos-show-lldp-neighbors-detail.raw").read_text(), "x")
    assert [(n.local_port, n.remote_device, n.remote_port, n.remote_port_description)
            for n in table.neighbors] == [
        ("mgmt0", "Switch.cisco.com", "Fa1/0/9", "FastEthernet1/0/9"),
        ("Eth1/1", "n9k2.company.com", "Ethernet1/1", "Ethernet1/1"),
        ("Eth1/2", "n9k2.company.com", "Ethernet1/2", "Ethernet1/2"),
        ("Eth2/2", "N3K.cisconxapi.com", "Ethernet1/49", "Ethernet1/49"),
    ]
    assert [n.line for n in table.neighbors] == [6, 21, 36, 51]


@NEEDS_CORPUS
def test_eos_eapi_json_hosts_identified_by_mac() -> None:
    table = read_lldp((LLDP / "napalm-eos-show-lldp-neighbors-eapi.json").read_text(), "x")
    assert [(n.local_port, n.remote_device, n.remote_port) for n in table.neighbors] == [
        ("Ethernet1", "precise64", "0800.274f.332d"),
        ("Ethernet2", "precise64", "0800.27ca.c5be"),
    ]
    detail = read_lldp(
        (LLDP / "napalm-eos-show-lldp-neighbors-detail-eapi.json").read_text(), "x")
    first = detail.neighbors[0]
    assert (first.local_port, first.remote_device, first.remote_port_description) == (
        "Ethernet8", "78m3", "eth3")


@pytest.mark.parametrize(
    ("text", "path", "owner", "how"),
    [
        ("leaf4#show lldp neighbors\nPort  Neighbor Device ID  Neighbor Port ID  TTL\n",
         "any/name.txt", "leaf4", "prompt"),
        ("spine-01.dc1# sh lldp neighbors detail\n", "x.txt", "spine-01.dc1", "prompt"),
        ("Port  Neighbor Device ID  Neighbor Port ID  TTL\n", "snap/leaf7/show_lldp_neighbors.txt",
         "leaf7", "folder"),
        ("Port  Neighbor Device ID  Neighbor Port ID  TTL\n", "out/leaf4_show_lldp.txt",
         "leaf4", "file name"),
        ("Port  Neighbor Device ID  Neighbor Port ID  TTL\n", "out/neighbors.txt", None,
         "unknown"),
    ],
)
def test_whose_view_an_output_is(text: str, path: str, owner: str | None, how: str) -> None:
    assert owner_of(text, path) == (owner, how)


def test_output_that_cannot_be_tied_to_a_device_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "neighbors.txt"
    path.write_text("Port       Neighbor Device ID   Neighbor Port ID   TTL\n"
                    "Et1        spine1               Ethernet1          120\n")
    outcome = parse_file(str(path), True)
    assert outcome.input.format == "lldp"
    assert not outcome.links
    assert "cannot tell whose LLDP table" in outcome.problems[0].message


def test_prompt_names_the_owner_and_links_point_at_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "capture.txt"
    path.write_text("leaf1#show lldp neighbors\n"
                    "Port       Neighbor Device ID   Neighbor Port ID   TTL\n"
                    "Et1        spine1               Ethernet1          120\n"
                    "Et2        spine2               Ethernet1          120\n")
    outcome = parse_file(str(path), True)
    assert [(lk.a.device, lk.a.interface, lk.b.device, lk.src.line if lk.src else None)
            for lk in outcome.links] == [("leaf1", "Et1", "spine1", 3),
                                         ("leaf1", "Et2", "spine2", 4)]
    assert {lk.owner_from for lk in outcome.links} == {"prompt"}


def test_running_configs_are_not_lldp() -> None:
    assert layout_of("hostname leaf1\ninterface Ethernet1\n   mtu 9214\n") is None
    assert layout_of('{"PORT": {"Ethernet0": {}}}') is None


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_junk_after_a_header_raises_nothing_but_parse_error(tail: str) -> None:
    for head in ("Port   Neighbor Device ID   Neighbor Port ID   TTL\n",
                 "Device ID   Local Intf   Hold-time  Capability  Port ID\n",
                 "Interface Ethernet1 detected 1 LLDP neighbors:\n",
                 '{"lldpNeighbors": '):
        try:
            LldpParser().parse(head + tail, "leaf1_show_lldp.txt")
        except ParseError as exc:
            assert exc.file == "leaf1_show_lldp.txt"


@NEEDS_CORPUS
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_truncated_real_outputs_parse(data: st.DataObject) -> None:
    files = sorted(LLDP.iterdir())
    path = data.draw(st.sampled_from(files))
    text = path.read_text(encoding="utf-8")
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    try:
        result = LldpParser().parse(text[:cut], "leaf1_show_lldp.txt")
    except ParseError:
        return
    for link in result.links:
        assert link.src is not None and (link.src.line or 1) <= text[:cut].count("\n") + 1
