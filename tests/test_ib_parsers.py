"""InfiniBand discovery dumps: values read by hand from real and constructed dumps, the speed
and width tables, and junk, truncated and binary input (only ParseError may escape)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.findings import Finding
from fablint.ingest import FileOutcome, parse_file
from fablint.model import IbPort, fmt_guid, ib_rate_mbps
from fablint.parsers import PARSERS, ParseError
from fablint.parsers.detect import detect
from fablint.profiles import load_policy
from fablint.units import ib_guid, ib_speed, ib_width, ib_width_speed
from tests.conftest import CORPUS, FIXTURES, bench_module

IB = CORPUS / "ib"
NEEDS_CORPUS = pytest.mark.skipif(not IB.is_dir(), reason=f"corpus not found at {IB}")
OWN = FIXTURES / "ib"
IB_FORMATS = ("ibnetdiscover", "ibnetdiscover-ports", "iblinkinfo", "ib-subnet-list")


def _outcome(path: Path) -> FileOutcome:
    outcome = parse_file(str(path), True)
    assert not [p for p in outcome.problems if p.fatal], outcome.problems
    return outcome


def _peer(port: IbPort) -> tuple[str, int] | None:
    return (port.peer.device, int(port.peer.interface)) if port.peer else None


# -- units -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "speed"), [
    ("SDR", "SDR"), ("qdr", "QDR"), ("2.5 Gbps", "SDR"), ("5.0 Gbps", "DDR"),
    ("10.0 Gbps", "QDR"), ("10.0 Gbps (FDR10)", "FDR10"), ("FDR10", "FDR10"),
    ("14.0625 Gbps", "FDR"), ("25.78125 Gbps", "EDR"), ("53.125 Gbps", "HDR"),
    ("106.25 Gbps", "NDR"), ("212.5 Gbps", "XDR"), ("2.5", "SDR"), ("5", "DDR"), ("10", "QDR"),
    ("14", "FDR"), ("25", "EDR"), ("50", "HDR"), ("100", "NDR"), ("???", None), ("??", None),
])
def test_every_speed_spelling_reaches_one_generation(text: str, speed: str | None) -> None:
    assert ib_speed(text) == speed


@pytest.mark.parametrize("text", ["WDR", "7.5 Gbps", "nan", "1e400", "4x"])
def test_unknown_speeds_are_errors(text: str) -> None:
    with pytest.raises(ValueError, match="InfiniBand"):
        ib_speed(text)


def test_widths_and_joined_tokens() -> None:
    assert [ib_width(t) for t in ("1x", "2X", "4x", "8x", "12X", "??")] == [1, 2, 4, 8, 12, None]
    assert ib_width_speed("4xNDR") == (4, "NDR")
    assert ib_width_speed("1xSDR") == (1, "SDR")
    assert ib_width_speed("4x???") == (4, None)
    assert ib_width_speed("??SDR") == (None, "SDR")
    for bad in ("3x", "16x"):
        with pytest.raises(ValueError):
            ib_width(bad)
    with pytest.raises(ValueError):
        ib_width_speed("NDR")


def test_rates_and_guids() -> None:
    assert ib_rate_mbps("NDR", 4) == 400_000
    assert ib_rate_mbps("HDR", 2) == 100_000
    assert ib_rate_mbps("FDR", 4) == 56_000
    assert ib_rate_mbps(None, 4) is None
    assert ib_guid("0x0002C903003421B0") == 0x2C903003421B0
    assert fmt_guid(0x2C903003421B0) == "0x0002c903003421b0"
    for bad in ("", "0x", "1_0", "g1", "0x" + "f" * 17):
        with pytest.raises(ValueError):
            ib_guid(bad)


# -- ibnetdiscover topology ------------------------------------------------------------------


@NEEDS_CORPUS
def test_manpage_sdr_topology() -> None:
    """The 2007 man page example: Voltaire switches, InfiniHost HCAs with LMC 1, two 1x links."""
    outcome = _outcome(IB / "ibtopotool-1-manpage-sdr.topo")
    assert outcome.input.format == "ibnetdiscover"
    assert outcome.input.ib_nodes == 6 and len(outcome.links) == 7
    nodes = {n.key: n for n in outcome.ib_nodes}
    isr = nodes["0x005442ba00003080"]
    assert (isr.type, isr.description, isr.lid, isr.lmc, isr.port_count) == \
        ("switch", "ISR9024 Voltaire", 6, 0, 24)
    assert (isr.vendor_id, isr.device_id, isr.system_guid) == (0x8F1, 0x5A06, 0x5442BA00003000)
    assert isr.enhanced_port0 is False and isr.port_guid == 0x5442BA00003080
    # The man page's two ends of this cable disagree: 4x from the ISR9024, 1x from the SW-6IB4.
    assert (isr.ports[10].width, isr.ports[10].speed) == (4, "SDR")
    assert _peer(isr.ports[10]) == ("0x0008f10400410015", 1)
    assert nodes["0x0008f10400410015"].ports[1].width == 1
    cable = next(link for link in outcome.links if link.a.device == isr.key
                 and link.a.interface == "10")
    assert (cable.width, cable.a_speed, cable.b_speed, cable.speed_mbps) == (1, "SDR", "SDR", 2500)
    hca = nodes["0x0008f10403960558"]
    assert hca.type == "ca" and sorted(hca.ports) == [1, 2]
    assert (hca.ports[1].lid, hca.ports[1].lmc, hca.ports[1].width) == (10, 1, 1)
    assert (hca.ports[2].guid, hca.ports[2].lid) == (0x8F1040396055A, 14)
    assert hca.ports[1].src is not None and hca.ports[1].src.line == 52
    assert {link.width for link in outcome.links} == {1, 4}


@NEEDS_CORPUS
def test_whitespace_only_record_separator() -> None:
    outcome = _outcome(IB / "ibtopotool-4-oracle-sun-qdr.topo")
    nodes = {n.key: n for n in outcome.ib_nodes}
    sw = nodes["0x0021283a8389a0a0"]
    assert (sw.description, sw.lid, sw.enhanced_port0, sw.port_count) == \
        ("Sun DCS 36 QDR switch localhost", 15, True, 36)
    hca = nodes["0x0003ba000100e388"]
    assert (hca.description, hca.ports[2].lid, hca.ports[2].guid) == \
        ("nsn33-43 HCA-1", 14, 0x3BA000100E38A)
    assert (hca.ports[2].speed, _peer(hca.ports[2])) == ("QDR", ("0x0021283a8389a0a0", 23))
    assert outcome.input.unknown_lines == 0


def test_real_lab_dump_with_stderr_line_and_loopback_cables() -> None:
    """jabl/ibtopotool tests/3.topo (from an NVIDIA support article): a libibmad error above
    the topology, switch ports cabled to the same switch, EDR to SDR links."""
    outcome = _outcome(OWN / "ibtopotool-3-ufm-lab.topo")
    assert outcome.input.unknown_lines == 1  # the src/query_smp.c line
    nodes = {n.key: n for n in outcome.ib_nodes}
    switch_ib = nodes["0xe41d2d030003e470"]
    loops = [(n, _peer(p)) for n, p in switch_ib.ports.items()
             if p.peer and p.peer.device == switch_ib.key]
    assert loops == [(1, (switch_ib.key, 2)), (2, (switch_ib.key, 1)), (19, (switch_ib.key, 21)),
                     (21, (switch_ib.key, 19)), (29, (switch_ib.key, 30)),
                     (30, (switch_ib.key, 29))]
    sx = nodes["0xf4521403005764b0"]
    assert (sx.description, sx.lid, sx.device_id) == ("MF0;switch-de779e:SX6012/U1", 174, 0xC738)
    assert sx.ports[8].speed == "SDR" and nodes["0xe41d2d03005cf1f8"].ports[1].lid == 1
    # r-ufm216's node GUID is also its port GUID; ports keep theirs, nodes theirs.
    assert nodes["0xe41d2d030061f957"].ports[1].guid == 0xE41D2D030061F957
    assert len(outcome.links) == 10


def test_noisy_dump_bom_prompt_unquoted_unknown_speed() -> None:
    outcome = _outcome(OWN / "ibnetdiscover-noisy-ndr.topo")
    assert outcome.input.format == "ibnetdiscover"
    assert outcome.input.unknown_lines == 2  # the shell prompt and the ibwarn line
    nodes = {n.key: n for n in outcome.ib_nodes}
    leaf = nodes["0xb83fd20300a1b2c0"]
    assert leaf.description == "leaf01"  # unquoted in the dump
    assert (leaf.ports[2].width, leaf.ports[2].speed) == (4, None)  # 4x???
    assert (leaf.ports[3].width, leaf.ports[3].speed) == (2, "NDR")
    assert leaf.ports[64].peer is None  # a port line with no peer
    assert nodes["0xb83fd20300f0a100"].description == "gpu01 mlx5_1"
    assert nodes["0xb83fd20300a1c3d0"].description == "spine01"
    assert not outcome.problems


def test_two_records_with_one_guid_stay_two_nodes() -> None:
    text = "\n".join([
        'Switch 8 "S-0000000000000001" # "sw" enhanced port 0 lid 1 lmc 0',
        '[1] "H-00000000000000a0"[1](a1) # "h1" lid 2 4xNDR',
        '[2] "H-00000000000000a0"[1](b1) # "h2" lid 3 4xNDR',
        "",
        'Ca 1 "H-00000000000000a0" # "h1"',
        '[1](a1) "S-0000000000000001"[1] # lid 2 lmc 0 "sw" lid 1 4xNDR',
        "",
        'Ca 1 "H-00000000000000a0" # "h2"',
        '[1](b1) "S-0000000000000001"[2] # lid 3 lmc 0 "sw" lid 1 4xNDR',
    ]) + "\n"
    result = PARSERS["ibnetdiscover"].parse(text, "dup.topo")
    assert not result.problems
    nodes = {n.key: n for n in result.ib_nodes}
    assert sorted(nodes) == ["0x0000000000000001", "0x00000000000000a0", "0x00000000000000a0#2"]
    assert nodes["0x00000000000000a0"].guid == nodes["0x00000000000000a0#2"].guid == 0xA0
    assert _peer(nodes["0x00000000000000a0#2"].ports[1]) == ("0x0000000000000001", 2)
    assert _peer(nodes["0x0000000000000001"].ports[2]) == ("0x00000000000000a0#2", 1)


def test_bad_values_are_problems_with_their_line() -> None:
    text = "\n".join([
        'Switch 8 "S-0000000000000001" # "sw" enhanced port 0 lid 99999 lmc 0',
        '[300] "H-00000000000000a0"[1](a1) # "h1" lid 2 4xNDR',
        '[1] "H-00000000000000a0"[1](a1) # "h1" lid 2 3xNDR',
        '[1] "H-00000000000000a0"[1](a1) # "h1" lid 2 4xNDR',
        '[2] "H-00000000000000000000b0"[1](b1) # "h2" lid 3 4xNDR',
    ]) + "\n"
    result = PARSERS["ibnetdiscover"].parse(text, "bad.topo")
    assert [(p.line, p.message) for p in result.problems] == [
        (1, "LID 99999 is out of range (0-65535)"),
        (2, "port number 300 is out of range (0-254)"),
        (3, "unknown InfiniBand link width '3x'"),
        (4, "port 1 is listed twice"),
        (5, "not a 64-bit GUID: '00000000000000000000b0'"),
    ]


# -- ibnetdiscover -p ------------------------------------------------------------------------


@NEEDS_CORPUS
def test_ports_report_edr() -> None:
    outcome = _outcome(IB / "infiniband-exporter-ibnetdiscover-p-edr.out")
    assert outcome.input.format == "ibnetdiscover-ports"
    nodes = {n.key: n for n in outcome.ib_nodes}
    assert len(nodes) == 7 and len(outcome.links) == 4
    leaf = nodes["0x7cfe9003009ce5b0"]
    assert (leaf.type, leaf.description, leaf.lid, leaf.guid, leaf.port_guid) == \
        ("switch", "ib-i1l1s01", 1719, None, 0x7CFE9003009CE5B0)
    assert _peer(leaf.ports[1]) == ("0x7cfe900300b07320", 1)
    hca = nodes["0x7cfe9003003b4bde"]
    assert (hca.description, hca.ports[1].lid, hca.ports[1].guid) == \
        ("o0001 HCA-1", 134, 0x7CFE9003003B4BDE)
    unknown = nodes["0x506b4b03005c2740"].ports[37]
    assert (unknown.width, unknown.speed, unknown.peer) == (4, None, None)
    assert nodes["0x08c0eb0300add20e"].ports[80].speed == "SDR"


@NEEDS_CORPUS
def test_ports_report_hdr_keeps_descriptions_and_splits_a_reused_guid() -> None:
    outcome = _outcome(IB / "infiniband-exporter-ibnetdiscover-p-hdr.out")
    nodes = {n.key: n for n in outcome.ib_nodes}
    assert nodes["0x946dae0300618c83"].description == " 5FB0406-spine-IB02 "
    assert nodes["0x0002c9020040f160"].ports[22].speed == "QDR"
    # Port GUID 0x946dae0300630bfe appears with LID 78 (leaf port 81) and LID 60 (spine port
    # 81): one port cannot hold two LIDs and two peers, so these are two nodes.
    aggregation = [n for n in nodes.values()
                   if n.description == "Mellanox Technologies Aggregation Node"]
    assert sorted(n.ports[1].lid for n in aggregation) == [60, 78]
    assert {n.ports[1].guid for n in aggregation} == {0x946DAE0300630BFE}


# -- iblinkinfo ------------------------------------------------------------------------------


@NEEDS_CORPUS
def test_iblinkinfo_qdr_cluster() -> None:
    outcome = _outcome(IB / "qdr-teaker-iblinkinfo-excerpt.txt")
    assert outcome.input.format == "iblinkinfo"
    nodes = {n.key: n for n in outcome.ib_nodes}
    assert len(nodes) == 9 and len(outcome.links) == 9
    switch = nodes["0x0002c902004b2678"]
    assert (switch.description, switch.lid, switch.port_guid) == \
        ("Infiniscale-IV Mellanox Technologies", 2, 0x2C902004B2678)
    assert (switch.ports[8].state, switch.ports[8].phys_state, switch.ports[8].peer) == \
        ("Down", "Polling", None)
    # ports 8, 10-13 and 15-18 (MANIFEST.tsv says 8 ports; the file has 9)
    assert sum(p.state == "Down" for p in switch.ports.values()) == 9
    teaker9 = nodes["0xf45214030091ba51"]
    assert teaker9.description == "teaker-9 HCA-1"
    assert [(n, p.lid, _peer(p)) for n, p in sorted(teaker9.ports.items())] == [
        (1, 6, (switch.key, 3)), (2, 4, (switch.key, 14))]
    teaker10 = nodes["0xf45214030091ba11"]  # its section comes after the switch's
    assert _peer(switch.ports[2]) == (teaker10.key, 1)
    assert {(p.width, p.speed, p.state, p.phys_state) for p in teaker10.ports.values()} == \
        {(4, "QDR", "Active", "LinkUp")}


def test_iblinkinfo_could_be_and_states() -> None:
    nodes = {n.key: n for n in _outcome(OWN / "iblinkinfo-ndr.txt").ib_nodes}
    leaf = nodes["0xb83fd20300a1b2c0"]
    assert (leaf.ports[2].width, leaf.ports[2].could_be_width) == (1, 4)
    assert (leaf.ports[3].speed, leaf.ports[3].could_be_speed) == ("HDR", "NDR")
    assert (leaf.ports[5].state, leaf.ports[5].phys_state) == ("Down", "Disabled")
    assert (leaf.ports[6].state, leaf.ports[6].phys_state) == ("Initialize", "LinkUp")
    assert _peer(leaf.ports[7]) == ("0xb83fd20300a1c3d0", 1)


def test_iblinkinfo_line_mode_gives_the_same_fabric() -> None:
    def shape(path: Path) -> set[tuple[object, ...]]:
        return {(n.key, n.type, n.description, k, p.width, p.speed, p.state, p.phys_state,
                 p.could_be_width, p.could_be_speed, _peer(p))
                for n in _outcome(path).ib_nodes for k, p in n.ports.items()}

    plain = shape(OWN / "iblinkinfo-ndr.txt")
    assert shape(OWN / "iblinkinfo-ndr-line-mode.txt") == plain
    assert len(plain) == 15


# -- subnet lists ----------------------------------------------------------------------------


def test_opensm_subnet_list_hex_fields_and_states() -> None:
    outcome = _outcome(OWN / "opensm-subnet-edr.lst")
    assert outcome.input.format == "ib-subnet-list"
    nodes = {n.key: n for n in outcome.ib_nodes}
    leaf = nodes["0x7cfe9003009ce5b0"]
    assert (leaf.port_count, leaf.lid, leaf.device_id, leaf.revision) == (36, 2, 0xCB84, 0xA0)
    assert (leaf.ports[11].state, _peer(leaf.ports[11])) == \
        ("Initialize", ("0x7cfe9003003b4b96", 1))
    assert leaf.ports[2].speed == "FDR" and leaf.ports[10].speed == "EDR"
    sm = nodes["0x506b4b0300cc02a6"]
    assert sm.master_sm and sm.system_guid == 0x506B4B0300CC02A7
    assert sm.ports[1].lid == 3 and _peer(sm.ports[1]) == ("0x7cfe900300b07320", 20)
    assert len(outcome.links) == 5  # ten lines, each cable from both ends


def test_ibdiagnet_line_without_descriptions() -> None:
    """A real ibdiagnet2.lst line (2014 note): descriptions gone, SDR on a QDR-capable link."""
    nodes = {n.key: n for n in _outcome(OWN / "ibdiagnet2-onenote-2014.lst").ib_nodes}
    switch = nodes["0x0002c90300688830"]
    assert (switch.port_count, switch.description, switch.lid) == (36, None, 2)
    assert _peer(switch.ports[20]) == ("0x0002c90300165e60", 1)  # PN:14 is port 20
    assert (switch.ports[20].width, switch.ports[20].speed) == (4, "SDR")
    hca = nodes["0x0002c90300165e60"]
    assert (hca.ports[1].guid, hca.ports[1].lid, hca.vendor_id) == (0x2C90300165E61, 5, 0x2C9)


def test_subnet_list_old_devid_and_sm_suffix() -> None:
    line = ("{ SW-SM Ports:08 SystemGUID:0000000000000001 NodeGUID:0000000000000001 "
            "PortGUID:0000000000000001 VenID:000002C9 DevID:5A440000 Rev:000000A1 {sw one} "
            "LID:0001 PN:01 } { Rt Ports:02 SystemGUID:0000000000000002 NodeGUID:0000000000000002 "
            "PortGUID:0000000000000003 VenID:0002C9 DevID:1003 Rev:00000000 {router} LID:0010 "
            "PN:02 } PHY=12x LOG=DWN\n")
    result = PARSERS["ib-subnet-list"].parse(line, "subnet.lst")
    nodes = {n.key: n for n in result.ib_nodes}
    sw, rt = nodes["0x0000000000000001"], nodes["0x0000000000000002"]
    assert (sw.master_sm, sw.device_id, sw.description) == (True, 0x5A44, "sw one")
    assert (rt.type, rt.ports[2].lid, rt.ports[2].guid) == ("router", 16, 3)
    assert (sw.ports[1].width, sw.ports[1].speed, sw.ports[1].state) == (12, None, "Down")


# -- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), [
    ("ibtopotool-3-ufm-lab.topo", "ibnetdiscover"),
    ("ibnetdiscover-noisy-ndr.topo", "ibnetdiscover"),
    ("iblinkinfo-ndr.txt", "iblinkinfo"),
    ("iblinkinfo-ndr-line-mode.txt", "iblinkinfo"),
    ("opensm-subnet-edr.lst", "ib-subnet-list"),
    ("ibdiagnet2-onenote-2014.lst", "ib-subnet-list"),
])
def test_fixtures_are_recognised(name: str, expected: str) -> None:
    text = (OWN / name).read_text(encoding="utf-8-sig")
    parser = detect(text).parser
    assert parser is not None and parser.name == expected
    others = [n for n in IB_FORMATS if n != expected and PARSERS[n].sniff(text[:16384]) >= 30]
    assert others == []


def test_switch_configs_are_not_ib_dumps() -> None:
    for path in sorted((FIXTURES / "demo").rglob("*")):
        if path.is_file():
            head = path.read_text(encoding="utf-8", errors="replace")[:16384]
            assert all(PARSERS[n].sniff(head) == 0 for n in IB_FORMATS), path


# -- robustness ------------------------------------------------------------------------------

SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
SAMPLES = {
    "ibnetdiscover": OWN / "ibtopotool-3-ufm-lab.topo",
    "iblinkinfo": OWN / "iblinkinfo-ndr.txt",
    "ib-subnet-list": OWN / "opensm-subnet-edr.lst",
}
PORTS_SAMPLE = (
    "CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  1719 10 0x7cfe9003009ce5b0 "
    "( 'o0001 HCA-1' - 'ib-i1l1s01' )\n"
    "SW  1719 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde "
    "( 'ib-i1l1s01' - 'o0001 HCA-1' )\n"
    "SW  2052 37 0x506b4b03005c2740 4x ???                                    'ib-i4l1s01'\n"
)


def _sample(name: str) -> str:
    if name == "ibnetdiscover-ports":
        return PORTS_SAMPLE
    return SAMPLES[name].read_text(encoding="utf-8-sig")


def check(name: str, text: str) -> None:
    """The parser returns a sane result or raises ParseError naming the file and a line."""
    lines = text.count("\n") + 1
    try:
        result = PARSERS[name].parse(text, "dump.txt")
    except ParseError as exc:
        assert exc.file == "dump.txt" and exc.message
        assert exc.line is not None and 1 <= exc.line <= lines, exc
        return
    assert 0 <= result.unknown_lines <= result.lines <= lines
    keys = {n.key for n in result.ib_nodes}
    assert len(keys) == len(result.ib_nodes)
    for node in result.ib_nodes:
        node.model_dump_json()
        refs = [node.src, *node.field_src.values()]
        for port in node.ports.values():
            refs += [port.src, *port.field_src.values()]
            if port.peer is not None:
                assert port.peer.device in keys
        for ref in refs:
            assert ref is not None and ref.file == "dump.txt" and 1 <= (ref.line or 0) <= lines
    for link in result.links:
        assert link.a.device in keys and link.b.device in keys
    for problem in result.problems:
        assert problem.file == "dump.txt" and problem.line is not None
        assert 1 <= problem.line <= lines


@pytest.mark.parametrize("name", IB_FORMATS)
@SETTINGS
@given(text=st.text(max_size=400))
def test_arbitrary_text(name: str, text: str) -> None:
    check(name, text)


@pytest.mark.parametrize("name", IB_FORMATS)
@SETTINGS
@given(data=st.binary(max_size=300))
def test_binary_junk(name: str, data: bytes) -> None:
    check(name, data.decode("utf-8", "replace"))
    check(name, _sample(name)[:200] + data.decode("latin-1"))


@pytest.mark.parametrize("name", IB_FORMATS)
@SETTINGS
@given(cut=st.floats(min_value=0, max_value=1))
def test_truncated_dumps(name: str, cut: float) -> None:
    text = _sample(name)
    check(name, text[: int(len(text) * cut)])


@pytest.mark.parametrize("name", IB_FORMATS)
@SETTINGS
@given(data=st.data())
def test_mangled_lines(name: str, data: st.DataObject) -> None:
    """Real lines with one token replaced, deleted or duplicated: values out of range, GUIDs
    too long, ports listed twice."""
    lines = _sample(name).splitlines()
    index = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    words = lines[index].split(" ")
    spot = data.draw(st.integers(min_value=0, max_value=max(0, len(words) - 1)))
    words[spot] = data.draw(st.sampled_from([
        "", "0", "99999", "0x" + "f" * 20, "[300]", "4x???", "??", "PN:FF", "LID:FFFFF",
        '"', "#", "==(", ")==>", "{", "}", "Could be 9X", "[1]", "\x00",
    ]))
    lines[index] = " ".join(words)
    if data.draw(st.booleans()):
        lines.insert(index, lines[index])
    check(name, "\n".join(lines) + "\n")


def test_nul_byte_is_a_parse_error_with_its_line() -> None:
    text = _sample("iblinkinfo")
    broken = text.replace("\n", "\n\x00", 1)
    with pytest.raises(ParseError) as info:
        PARSERS["iblinkinfo"].parse(broken, "dump.txt")
    assert info.value.line == 2


# -- the link rules on real and generated dumps ---------------------------------------------


def _lint(path: Path) -> list[tuple[str, int | None, str]]:
    return [(f.rule, f.line, f.message) for f in _findings(path)]


def _findings(path: Path) -> list[Finding]:
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(), select=["ib-link"],
                              policy=load_policy("default"), jobs=1))
    return result.findings


@NEEDS_CORPUS
def test_rules_on_the_manpage_dump() -> None:
    """The man page's two 1x links and its four HCAs that never got a description."""
    assert _lint(IB / "ibtopotool-1-manpage-sdr.topo") == [
        ("IB001", 15, "port 10 -> 'SW-6IB4 Voltaire' port 1 runs at 1x; the fabric's links "
                      "should run 4x"),
        ("IB001", 18, "port 12 -> 'MT23108 InfiniHost Mellanox Technologies' port 1 runs at 1x; "
                      "the fabric's links should run 4x"),
        ("IB007", 38, "4 nodes share the description 'MT23108 InfiniHost Mellanox Technologies' "
                      "(0x0008f10403960984, 0x005442b100004900, 0x0008f10403961354, "
                      "0x0008f10403960558)"),
    ]


@NEEDS_CORPUS
def test_rules_on_clean_corpus_dumps() -> None:
    for name in ("ibtopotool-2-ibm-small.topo", "ibtopotool-4-oracle-sun-qdr.topo",
                 "infiniband-exporter-ibnetdiscover-p-edr.out",
                 "qdr-teaker-iblinkinfo-excerpt.txt"):
        assert _lint(IB / name) == [], name


def test_rules_find_every_fault_planted_in_a_generated_fabric(tmp_path: Path) -> None:
    gen_ib = bench_module("gen_ib")
    text, faults = gen_ib.generate(400, 20, seed=7)
    dump = tmp_path / "ibnetdiscover.topo"
    dump.write_text(text, encoding="utf-8")
    found = _findings(dump)
    for rule, node, what in faults:
        assert any(f.rule == rule and (node in f.message or node == f.device) for f in found), \
            (rule, node, what)
    assert {f.rule for f in found} == {"IB001", "IB002", "IB004", "IB007", "IB008", "IB009"}


def test_parse_command_shows_ib_nodes_and_the_summary_counts_them() -> None:
    from typer.testing import CliRunner

    from fablint.cli import app

    dump = FIXTURES / "ib" / "ibtopotool-3-ufm-lab.topo"
    parsed = json.loads(CliRunner().invoke(app, ["parse", str(dump)]).stdout)
    assert parsed["ib_nodes"] and parsed["links"]
    linted = CliRunner().invoke(app, ["lint", str(dump), "--format", "json"])
    assert json.loads(linted.stdout)["summary"]["ib_nodes"] == len(parsed["ib_nodes"])
