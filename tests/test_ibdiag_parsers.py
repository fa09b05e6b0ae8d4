"""ibdiagnet's outputs (ibdiagnet2.ibnetdiscover dialect, net_dump, db_csv) and the parts of
the rdma-core formats they share: one fabric read the same from every format, complete counts,
director chassis chips, SHARP aggregation nodes, split-port labels, bad LIDs as problems, and
junk, truncated and hostile input (only ParseError may escape)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, lint
from fablint.ingest import FileOutcome, parse_file
from fablint.model import IbNode
from fablint.parsers import PARSERS, ParseError
from fablint.parsers.detect import detect
from fablint.profiles import load_policy
from tests.conftest import FIXTURES, bench_module
from tests.test_ib_parsers import check

SAME = FIXTURES / "ib" / "same-fabric"
FAULTS = FIXTURES / "ib" / "ibdiagnet2-ndr-faults"
FORMATS = {"ibnetdiscover.topo": "ibnetdiscover", "ibdiagnet2.ibnetdiscover": "ibnetdiscover",
           "ibdiagnet2.net_dump": "ibdiagnet-net-dump", "ibdiagnet2.db_csv": "ibdiagnet-db-csv"}
AN = "Mellanox Technologies Aggregation Node"


def _outcome(path: Path) -> FileOutcome:
    outcome = parse_file(str(path), True)
    assert not [p for p in outcome.problems if p.fatal], outcome.problems
    return outcome


def _nodes(outcome: FileOutcome) -> dict[str, IbNode]:
    return {n.key: n for n in outcome.ib_nodes}


def _cables(outcome: FileOutcome) -> set[frozenset[tuple[str, str]]]:
    return {frozenset([(link.a.device, link.a.interface), (link.b.device, link.b.interface)])
            for link in outcome.links}


# -- one fabric, four formats ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_is_recognised_and_read_completely(name: str) -> None:
    """2 director spine chips, a split-mode leaf and a plain leaf, 6 CX-7 HCAs, a UFM host and
    4 SHARP ANs: 15 nodes, 15 cables, nothing skipped, nothing wrong."""
    outcome = _outcome(SAME / name)
    assert outcome.input.format == FORMATS[name]
    assert (len(outcome.ib_nodes), len(outcome.links)) == (15, 15)
    assert outcome.input.unknown_lines == 0 and not outcome.problems
    kinds = sorted(n.type for n in outcome.ib_nodes)
    assert kinds == ["ca"] * 11 + ["switch"] * 4
    ans = [n for n in outcome.ib_nodes if n.description == AN]
    assert len(ans) == 4 and {n.type for n in ans} == {"ca"}


def test_the_four_formats_give_the_same_nodes_and_cables() -> None:
    shapes = {}
    for name in FORMATS:
        outcome = _outcome(SAME / name)
        nodes = {(n.key, n.type, n.description) for n in outcome.ib_nodes}
        ports = {(n.key, k, p.width, p.speed) for n in outcome.ib_nodes
                 for k, p in n.ports.items() if p.peer is not None}
        shapes[name] = (nodes, _cables(outcome), ports)
    first = shapes["ibnetdiscover.topo"]
    for name, shape in shapes.items():
        assert shape == first, name


@pytest.mark.parametrize("name", ["ibnetdiscover.topo", "ibdiagnet2.ibnetdiscover",
                                  "ibdiagnet2.db_csv"])
def test_director_chips_carry_the_chassis_system_guid(name: str) -> None:
    """ibdiagnet writes switchguid=0x<system image GUID>(<node GUID>) on the chips of a
    director: that is the chassis, never a 'node GUID differs' problem. (net_dump does not
    carry the system image GUID.)"""
    nodes = _nodes(_outcome(SAME / name))
    chips = [n for n in nodes.values() if "MCS8500" in (n.description or "")]
    assert len(chips) == 2
    assert {n.system_guid for n in chips} == {0xB8E9240300C00000}
    assert {n.guid for n in chips} == {0xB8E9240300AB0000, 0xB8E9240300AB0100}


@pytest.mark.parametrize("name", ["ibdiagnet2.ibnetdiscover", "ibdiagnet2.net_dump",
                                  "ibdiagnet2.db_csv"])
def test_split_port_labels(name: str) -> None:
    leaf = _nodes(_outcome(SAME / name))["0xb8e9240300aa0000"]
    assert (leaf.ports[1].label, leaf.ports[2].label, leaf.ports[3].label) == \
        ("1/1/1/1", "1/1/1/2", "1/1/2/1")
    assert (leaf.ports[1].width, leaf.ports[1].speed) == (2, "NDR")
    assert leaf.ports[65].label == "1/17/1/1" and leaf.ports[65].width == 4


def test_net_dump_values_and_ports_without_a_peer() -> None:
    outcome = _outcome(SAME / "ibdiagnet2.net_dump")
    nodes = _nodes(outcome)
    leaf = nodes["0xb8e9240300aa0100"]
    assert (leaf.description, leaf.lid, leaf.type) == ("MF0;leaf02:MQM9700/U1", 4, "switch")
    port = leaf.ports[1]
    assert (port.state, port.phys_state, port.mtu, port.fec, port.label) == \
        ("Active", "LinkUp", 4096, "MLNX_RS_544_514_PLR", "1/1/1")
    down = leaf.ports[4]
    assert (down.state, down.phys_state, down.peer, down.fec) == ("Down", "Polling", None, None)
    # every switch port of the file: on each leaf 3 hosts, 2 down, 2 uplinks and the AN; on
    # the spine chips 2 leaves and the AN, plus the UFM host on the first
    assert sorted(len(n.ports) for n in nodes.values() if n.type == "switch") == [3, 4, 8, 8]
    hca = nodes["0x0c42a10300bb0030"]
    assert (hca.description, hca.ports[1].lid, hca.ports[1].guid) == \
        ("gpu001 mlx5_3", 8, 0x0C42A10300BB0030)


def test_db_csv_values() -> None:
    nodes = _nodes(_outcome(SAME / "ibdiagnet2.db_csv"))
    leaf = nodes["0xb8e9240300aa0100"]
    assert (leaf.device_id, leaf.vendor_id, leaf.port_count, leaf.lid) == (0xD2F2, 0x2C9, 65, 4)
    assert leaf.port_guid == 0xB8E9240300AA0100 and 0 not in leaf.ports
    port = leaf.ports[33]
    assert (port.supported_widths, port.supported_speeds) == ([1, 2, 4],
                                                              ["SDR", "FDR", "EDR", "HDR", "NDR"])
    assert (port.mtu, port.mtu_cap, port.fec, port.state) == (4096, 4096, "MLNX_RS_544_514_PLR",
                                                              "Active")
    hca = nodes["0x0c42a10300bb0000"]
    assert (hca.device_id, hca.system_guid, hca.ports[1].lid) == (0x1021, 0x0C42A10300BB0000, 5)
    assert hca.ports[1].guid == 0x0C42A10300BB0000


def test_crlf_net_dump_and_its_db_csv_agree() -> None:
    dump = _outcome(FAULTS.with_suffix(".net_dump"))
    db = _outcome(FAULTS.with_suffix(".db_csv"))
    assert (len(dump.ib_nodes), len(dump.links)) == (23, 24)
    assert _cables(dump) == _cables(db)
    assert dump.input.unknown_lines == 0 == db.input.unknown_lines


# -- rules on ibdiagnet data ---------------------------------------------------------------


def _ib_findings(path: Path) -> list[tuple[str, int | None]]:
    result = lint(LintOptions(paths=[str(path)], config=ProjectConfig(), select=["ib-link"],
                              policy=load_policy("default"), jobs=1))
    return [(f.rule, f.line) for f in result.findings]


@pytest.mark.parametrize("suffix", [".net_dump", ".db_csv"])
def test_planted_fec_and_mtu_faults_are_found_once(suffix: str) -> None:
    found = _ib_findings(FAULTS.with_suffix(suffix))
    assert sorted(rule for rule, _ in found) == ["IB022", "IB023"]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_split_ports_at_2x_are_not_degraded(name: str) -> None:
    assert _ib_findings(SAME / name) == []


# -- bad values --------------------------------------------------------------------------


def test_empty_and_negative_lids_are_problems_not_names() -> None:
    text = "\n".join([
        'Switch 8 "S-0000000000000001" # "sw" enhanced port 0 lid  lmc 0',
        '[1] "H-00000000000000a0"[1](a0) # "h1" lid -4 4xNDR',
        "",
        'Ca 1 "H-00000000000000a0" # "h1"',
        '[1](1)(a0) "S-0000000000000001"[1] # lid  lmc 0 "sw" lid 7 4xNDR',
    ]) + "\n"
    result = PARSERS["ibnetdiscover"].parse(text, "lid.topo")
    assert [(p.line, p.message) for p in result.problems] == [
        (1, "LID is empty"), (5, "LID is empty"), (2, "peer LID -4 is out of range (0-65535)")]
    nodes = {n.key: n for n in result.ib_nodes}
    assert nodes["0x0000000000000001"].description == "sw"
    assert nodes["0x00000000000000a0"].ports[1].label == "1"
    ports = ("CA        1 0x7cfe9003003b4bde 4x EDR - SW  -9 10 0x7cfe9003009ce5b0 "
             "( o0001 HCA-1 - SwitchX -  Mellanox Technologies )\n"
             "SW     9 10 0x7cfe9003009ce5b0 4x EDR - CA   134  1 0x7cfe9003003b4bde "
             "( SwitchX -  Mellanox Technologies - o0001 HCA-1 )\n")
    result = PARSERS["ibnetdiscover-ports"].parse(ports, "p.out")
    assert [(p.line, p.message) for p in result.problems] == [
        (1, "LID is empty"), (1, "peer LID -9 is out of range (0-65535)")]
    assert {n.description for n in result.ib_nodes} == \
        {"o0001 HCA-1", "SwitchX -  Mellanox Technologies"}


def test_unknown_lines_are_counted_with_the_first() -> None:
    text = (SAME / "ibdiagnet2.net_dump").read_text().replace(
        "  #          : IB#", "garbage line\n  #          : IB#", 1)
    result = PARSERS["ibdiagnet-net-dump"].parse(text, "x")
    assert result.unknown_lines == 1
    assert result.first_unknown == text.split("\n").index("garbage line") + 1


def test_truncated_db_csv_says_so() -> None:
    text = (SAME / "ibdiagnet2.db_csv").read_text()
    cut = text[: text.index("END_PORTS")]
    result = PARSERS["ibdiagnet-db-csv"].parse(cut, "x")
    start = cut.split("\n").index("START_PORTS") + 1
    assert [(p.line, p.message) for p in result.problems] == [
        (start, "section PORTS has no END_PORTS: the file is truncated")]


def test_detection_keeps_the_formats_apart() -> None:
    for name, expected in FORMATS.items():
        text = (SAME / name).read_text()
        parser = detect(text).parser
        assert parser is not None and parser.name == expected
        others = [n for n in ("ibdiagnet-net-dump", "ibdiagnet-db-csv", "ibnetdiscover",
                              "ibnetdiscover-ports", "iblinkinfo", "ib-subnet-list")
                  if n != expected and PARSERS[n].sniff(text[:16384]) >= 30]
        assert others == []


# -- robustness ------------------------------------------------------------------------------

SETTINGS = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
NEW = {"ibdiagnet-net-dump": SAME / "ibdiagnet2.net_dump",
       "ibdiagnet-db-csv": SAME / "ibdiagnet2.db_csv",
       "ibnetdiscover": SAME / "ibdiagnet2.ibnetdiscover"}


@pytest.mark.parametrize("name", sorted(NEW))
@SETTINGS
@given(text=st.text(max_size=400))
def test_arbitrary_text(name: str, text: str) -> None:
    check(name, text)


@pytest.mark.parametrize("name", sorted(NEW))
@SETTINGS
@given(cut=st.floats(min_value=0, max_value=1), junk=st.binary(max_size=80))
def test_truncated_and_appended_junk(name: str, cut: float, junk: bytes) -> None:
    text = NEW[name].read_text()
    check(name, text[: int(len(text) * cut)])
    check(name, text[: int(len(text) * cut)] + junk.decode("latin-1"))


@pytest.mark.parametrize("name", sorted(NEW))
@SETTINGS
@given(data=st.data())
def test_mangled_fields(name: str, data: st.DataObject) -> None:
    lines = NEW[name].read_text().splitlines()
    index = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    sep = {"ibdiagnet-db-csv": ",", "ibdiagnet-net-dump": ":"}.get(name, " ")
    cells = lines[index].split(sep)
    spot = data.draw(st.integers(min_value=0, max_value=max(0, len(cells) - 1)))
    cells[spot] = data.draw(st.sampled_from([
        "", "-1", "0", "99999", "0x" + "f" * 20, "N/A", '"', "START_PORTS", "END_NODES",
        "(1/2/3/4/5)", "[300]", "LID", "0xzz", "4096", "9", "EDR20", "\x00"]))
    lines[index] = sep.join(cells)
    if data.draw(st.booleans()):
        lines.insert(index, lines[index])
    with contextlib.suppress(ParseError):  # a NUL byte: the only error a parser may raise
        check(name, "\n".join(lines) + "\n")


# -- the generator used for the speed benchmark --------------------------------------------


def test_large_generated_fabric_reads_the_same_in_every_format() -> None:
    gen = bench_module("gen_ibdiag")
    fabric = gen.build(12, 4, 16)
    texts = [gen.ibnetdiscover(fabric), gen.ibnetdiscover(fabric, dialect=True),
             gen.net_dump(fabric), gen.db_csv(fabric)]
    shapes = []
    for text in texts:
        parser = detect(text).parser
        assert parser is not None
        result = parser.parse(text, "dump")
        assert not result.problems and result.unknown_lines == 0
        shapes.append(({(n.key, n.type, n.description) for n in result.ib_nodes},
                       {frozenset([(x.a.device, x.a.interface), (x.b.device, x.b.interface)])
                        for x in result.links}))
    assert len(shapes[0][0]) == len(fabric.nodes) and len(shapes[0][1]) == len(fabric.cables)
    assert all(shape == shapes[0] for shape in shapes)


def test_db_csv_without_links_says_the_cables_are_missing() -> None:
    text = (SAME / "ibdiagnet2.db_csv").read_text()
    start, end = text.index("START_LINKS"), text.index("END_LINKS") + len("END_LINKS")
    result = PARSERS["ibdiagnet-db-csv"].parse(text[:start] + text[end:], "x")
    assert len(result.ib_nodes) == 15 and result.links == []
    ports_line = text.split("\n").index("START_PORTS") + 1
    assert [(p.line, p.message[:20]) for p in result.problems] == [
        (ports_line, "no LINKS section: th")]


def test_ports_report_with_unquoted_descriptions_only_is_recognised() -> None:
    text = ("SW  2052 37 0x506b4b03005c2740 4x ???                                    ib-i4l1s01\n"
            "SW  2052 38 0x506b4b03005c2740 4x SDR                                    ib-i4l1s01\n"
            "CA   134  1 0x7cfe9003003b4bde 4x EDR - SW  2052 10 0x506b4b03005c2740 "
            "( o0001 HCA-1 - ib-i4l1s01 )\n")
    parser = detect(text[:150]).parser
    assert parser is not None and parser.name == "ibnetdiscover-ports"
    result = parser.parse(text, "p.out")
    assert {n.description for n in result.ib_nodes} == {"ib-i4l1s01", "o0001 HCA-1"}
    assert len(result.links) == 1 and result.unknown_lines == 0
