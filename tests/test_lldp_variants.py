"""Every LLDP output variant read whole: complete neighbour counts on fixtures in each vendor's
real syntax (fixtures/lldp), line ends and genie indentation, unknown lines counted, cut files
never losing rows silently, and the cables `fablint topo` builds from each new format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fablint.cli import app
from fablint.ingest import parse_file
from fablint.parsers import PARSERS, PROVIDES, ParseError
from fablint.parsers.detect import detect
from fablint.parsers.lldp import LldpParser, LldpTable, read_lldp
from fablint.parsers.lldp_sonic import SonicLldpParser, read_sonic_lldp
from tests.conftest import CORPUS, FIXTURES

LLDP = FIXTURES / "lldp"
DEMO = FIXTURES / "demo"

# file -> (parser, layout, owner, complete neighbour count)
VARIANTS = {
    "leaf1_show_lldp_neighbors_detail.txt": ("lldp", "eos-detail", "leaf1", 9),
    "leaf3_show_lldp_neighbors.txt": ("lldp", "nxos-table", "leaf3", 15),
    "leaf3_show_lldp_neighbors_detail_genie.txt": ("lldp", "nxos-detail", "leaf3", 7),
    "leaf4_show_lldp_table.txt": ("sonic-lldp", "sonic-table", "leaf4", 8),
    "leaf4_show_lldp_neighbors.txt": ("sonic-lldp", "lldpctl", "leaf4", 8),
    "leaf4_lldpctl_json.json": ("sonic-lldp", "lldpctl-json", "leaf4", 8),
    "leaf4_lldpcli_json0.json": ("sonic-lldp", "lldpctl-json", "leaf4", 8),
    "leaf4_lldpctl_json_one_port.json": ("sonic-lldp", "lldpctl-json", "leaf4", 1),
    "leaf4_lldpctl_keyvalue.txt": ("sonic-lldp", "lldpctl-keyvalue", "leaf4", 8),
    "leaf4_lldpctl_xml.xml": ("sonic-lldp", "lldpctl-xml", "leaf4", 8),
    "leaf3_show_lldp_neighbors_detail.json": ("lldp", "nxos-json", "leaf3", 7),
    "leaf3_show_lldp_neighbors_nxapi.json": ("lldp", "nxos-json", "leaf3", 1),
}
TEXT_VARIANTS = [name for name, v in VARIANTS.items() if not name.endswith(".json")]


def _read(text: str, name: str) -> LldpTable:
    reader = read_sonic_lldp if VARIANTS[name][0] == "sonic-lldp" else read_lldp
    return reader(text, name)


def _fixture(name: str) -> str:
    return (LLDP / name).read_text(encoding="utf-8")


def _pairs(table: LldpTable) -> list[tuple[str, str | None, str | None]]:
    return [(n.local_port, n.remote_device, n.remote_port) for n in table.neighbors]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_variant_yields_every_neighbour(name: str) -> None:
    parser, layout, owner, count = VARIANTS[name]
    text = _fixture(name)
    assert detect(text).parser is PARSERS[parser]
    table = _read(text, name)
    assert (table.layout, table.owner, len(table.neighbors), table.unknown) == (
        layout, owner, count, [])
    result = PARSERS[parser].parse(text, name)
    assert (result.unknown_lines, result.first_unknown) == (0, None)
    lines = text.split("\n")
    for nbr in table.neighbors:  # each neighbour points at a line of its own record
        assert 1 <= nbr.line <= len(lines)
        assert nbr.local_port in lines[nbr.line - 1] or nbr.chassis_id


def test_eos_detail_every_block_whatever_its_indentation() -> None:
    table = _read(_fixture("leaf1_show_lldp_neighbors_detail.txt"),
                  "leaf1_show_lldp_neighbors_detail.txt")
    pairs = _pairs(table)
    assert ("Ethernet1/1", "gpu101", "0c42.a1de.0101") in pairs
    assert ("Ethernet49/1", "spine1", "Ethernet1/1") in pairs
    # two neighbours on one port; the second sends no system name: named by its chassis ID
    assert [p for p in pairs if p[0] == "Ethernet4/1"] == [
        ("Ethernet4/1", "gpu104", "0c42.a1de.0401"),
        ("Ethernet4/1", "0c42.a1de.04ff", "0c42.a1de.04ff")]
    # the management port's neighbours are read like any other
    assert [p for p in pairs if p[0] == "Management1"] == [
        ("Management1", "oob-sw1.dc1", "Gi1/0/14"),
        ("Management1", "00aa.bbcc.0002", "00aa.bbcc.0002")]
    spine2 = next(n for n in table.neighbors if n.local_port == "Ethernet50/1")
    # no port description; the LAG TLV's "Port ID : 0" is not the neighbour's port
    assert (spine2.remote_port, spine2.remote_port_description, spine2.max_frame_bytes) == (
        "Ethernet1/1", None, 9236)
    assert next(n for n in table.neighbors if n.local_port == "Ethernet1/1").line == 4


def test_nxos_table_wrapped_ids_and_empty_capabilities() -> None:
    table = _read(_fixture("leaf3_show_lldp_neighbors.txt"), "leaf3_show_lldp_neighbors.txt")
    by_port = {n.local_port: (n.remote_device, n.remote_port, n.line) for n in table.neighbors}
    assert by_port["mgmt0"] == ("oob-sw1.dc1.example.net", "Gi1/0/23", 7)
    assert by_port["Eth1/61"] == ("fw-border-01.dc1.example.net", "ethernet1/7", 13)
    assert by_port["Eth1/57"] == ("lb-vip-a", "1.1", 16)  # no wrap, no capability
    assert by_port["Eth1/59"] == ("Office Access Point", "wlan0", 19)
    assert by_port["Eth1/60"] == ("storage-head-1.dc1", "ens3f0", 20)  # shifted columns
    assert by_port["Eth1/3"][:2] == ("0c42.a1de.0303", "0c42.a1de.0303")


@pytest.mark.parametrize("name", ["leaf3_show_lldp_neighbors_detail_genie.txt",
                                  "leaf3_show_lldp_neighbors_detail.json"])
def test_nxos_detail_as_genie_captures_it_and_as_json(name: str) -> None:
    table = _read(_fixture(name), name)
    assert [(n.local_port, n.remote_device, n.remote_port, n.remote_port_description)
            for n in table.neighbors][:4] == [
        ("mgmt0", "oob-sw1.dc1.example.net", "Gi1/0/23", "GigabitEthernet1/0/23"),
        ("Eth1/1", "gpu301", "0c42.a1de.0301", "eth0"),
        ("Eth1/2", "gpu302", "0c42.a1de.0302", "eth0"),
        ("Eth1/3", "0c42.a1de.0303", "0c42.a1de.0303", "eth0"),  # "not advertised" name
    ]
    assert table.neighbors[4].local_port == "Eth1/4"
    assert table.neighbors[-1].remote_port_description is None  # "null"


@pytest.mark.parametrize("name", [n for n in VARIANTS if n.startswith("leaf4")
                                  and n != "leaf4_lldpctl_json_one_port.json"])
def test_sonic_outputs_agree(name: str) -> None:
    table = _read(_fixture(name), name)
    pairs = _pairs(table)
    assert ("Ethernet248", "spine1", "Ethernet4/1") in pairs
    assert ("Ethernet256", "spine2", "Ethernet4/1") in pairs
    assert ("eth0", "oob-sw1.dc1.example.net", "Gi1/0/24") in pairs  # management port kept
    assert [p[2] for p in pairs if p[0] == "Ethernet0"] == [
        "0c:42:a1:de:04:01", "0c:42:a1:de:04:ff"]  # two neighbours on one port
    spine2 = next(n for n in table.neighbors if n.local_port == "Ethernet256")
    assert spine2.remote_port_description == "leaf4 uplink (etp6) to spine2"
    # lldpd's MFS, where the spine sends it
    if name in ("leaf4_show_lldp_neighbors.txt", "leaf4_lldpctl_json.json",
                "leaf4_lldpctl_keyvalue.txt", "leaf4_lldpctl_xml.xml"):
        spine1 = next(n for n in table.neighbors if n.local_port == "Ethernet248")
        assert (spine1.max_frame_bytes, spine2.max_frame_bytes) == (9236, None)


def test_sonic_table_row_without_a_name_is_read_and_reported_once() -> None:
    text = _fixture("leaf4_show_lldp_table.txt")
    table = _read(text, "leaf4_show_lldp_table.txt")
    nameless = [n for n in table.neighbors if n.remote_device is None]
    assert [(n.local_port, n.remote_port, n.line) for n in nameless] == [
        ("Ethernet0", "0c:42:a1:de:04:ff", 6)]
    result = SonicLldpParser().parse(text, "leaf4_show_lldp_table.txt")
    assert len(result.links) == 7
    assert [(p.line, p.kind) for p in result.problems] == [(6, "invalid-value")]
    assert "1 LLDP neighbour(s)" in result.problems[0].message


@pytest.mark.parametrize("name", TEXT_VARIANTS)
@pytest.mark.parametrize("ending", ["\r\n", "\r"])
def test_line_ends_change_nothing(name: str, ending: str) -> None:
    text = _fixture(name)
    plain = _read(text, name)
    other = _read(text.replace("\n", ending), name)
    assert (other.layout, other.unknown, other.neighbors) == (
        plain.layout, plain.unknown, plain.neighbors)
    with_bom = _read("\ufeff" + text.replace("\n", "\r\n"), name)
    assert with_bom.neighbors == plain.neighbors


@pytest.mark.parametrize("name", TEXT_VARIANTS)
def test_uniformly_indented_captures_read_the_same(name: str) -> None:
    """pyATS/genie test outputs and scripted captures indent every line."""
    text = _fixture(name)
    plain = _read(text, name)
    indented = "\n".join(("      " + line) if line.strip() else line
                         for line in text.split("\n"))
    assert _pairs(_read(indented, name)) == _pairs(plain)
    assert _read(indented, name).unknown == []


def test_nxos_detail_without_a_port_id_uses_the_description() -> None:
    table = _read(_fixture("leaf3_show_lldp_neighbors_detail_genie.txt"),
                  "leaf3_show_lldp_neighbors_detail_genie.txt")
    assert _pairs(table)[4] == ("Eth1/4", "gpu304", "eth0")


def test_nxapi_envelope_with_one_row_as_an_object() -> None:
    table = _read(_fixture("leaf3_show_lldp_neighbors_nxapi.json"),
                  "leaf3_show_lldp_neighbors_nxapi.json")
    # `show lldp neighbors | json`: the chassis_id column is the Device ID
    assert _pairs(table) == [("Eth1/63", "spine1.dc1.example.net", "Ethernet3/1")]


def test_total_entries_footer_that_counts_more_than_was_read() -> None:
    text = _fixture("leaf3_show_lldp_neighbors.txt").replace(
        "Total entries displayed: 15", "Total entries displayed: 16")
    result = LldpParser().parse(text, "leaf3_show_lldp_neighbors.txt")
    footer = text.split("\n").index("Total entries displayed: 16") + 1
    assert (result.unknown_lines, result.first_unknown) == (1, footer)


def test_eos_detail_announcing_more_neighbours_than_read() -> None:
    text = _fixture("leaf1_show_lldp_neighbors_detail.txt").replace(
        "Ethernet3/1 detected 1 LLDP", "Ethernet3/1 detected 2 LLDP")
    table = read_lldp(text, "x")
    assert len(table.neighbors) == 9
    assert table.unknown == [40]


def test_collected_sonic_output_is_read_by_the_sonic_lldp_parser() -> None:
    from fablint.collect.commands import commands_for

    sonic = [c for c in commands_for("sonic", ("lldp",)) if c.kind == "lldp-neighbors"]
    assert [c.formats for c in sonic] == [("sonic-lldp",)]
    assert PROVIDES["sonic-lldp"] == "links"


def test_lldpctl_show_interfaces_is_not_a_neighbour_table() -> None:
    own = ("-" * 79 + "\nLLDP interfaces:\n" + "-" * 79 + "\n"
           "Interface:    eth0, via: unknown, Time: 0 day, 00:00:00\n"
           "  Chassis:\n    ChassisID:    mac 00:00:00:00:00:01\n")
    assert SonicLldpParser().sniff(own) == 0


def test_lldpctl_json_after_a_prompt_and_one_document_per_asic(tmp_path: Path) -> None:
    one = _fixture("leaf4_lldpctl_json_one_port.json")
    two = one.replace("Ethernet248", "Ethernet256").replace("spine1", "spine2")
    text = "admin@leaf4:~$ docker exec lldp lldpcli show neighbors -f json\n" + one + two
    path = tmp_path / "capture.txt"
    path.write_text(text, encoding="utf-8")
    outcome = parse_file(str(path), True)
    assert outcome.input.format == "sonic-lldp"
    assert [(lk.a.device, lk.a.interface, lk.b.device, lk.src.line if lk.src else None)
            for lk in outcome.links] == [("leaf4", "Ethernet248", "spine1", 5),
                                        ("leaf4", "Ethernet256", "spine2", 29)]


def _xml_fixture() -> str:
    return _fixture("leaf4_lldpctl_xml.xml")


def test_lldpctl_xml_interfaces_and_statistics_are_not_neighbour_tables() -> None:
    own = ('<?xml version="1.0" encoding="UTF-8"?>\n<lldp label="LLDP interfaces">\n'
           ' <interface label="Interface" name="eth0" via="unknown" age="0 day, 00:00:01">\n')
    assert SonicLldpParser().sniff(own) == 0
    assert detect('<?xml version="1.0"?>\n<project><lldp/></project>\n').parser is None


def test_lldpctl_xml_one_document_per_asic_and_lines_outside_counted() -> None:
    text = _xml_fixture()
    body = text[text.index("<?xml"):text.index("</lldp>") + len("</lldp>")]
    second = body.replace("Ethernet248", "Ethernet512").replace(">spine1<", ">spine9<")
    both = text.replace("admin@leaf4:~$ \n", second + "\nsome stray line\nadmin@leaf4:~$\n")
    table = read_sonic_lldp(both, "leaf4_lldpctl.xml")
    assert len(table.neighbors) == 16
    assert ("Ethernet512", "spine9", "Ethernet4/1") in _pairs(table)
    again = next(n for n in table.neighbors if n.local_port == "Ethernet512")
    assert both.split("\n")[again.line - 1].lstrip().startswith('<interface label="Interface" '
                                                                 'name="Ethernet512"')
    assert table.unknown == [both.split("\n").index("some stray line") + 1]


def test_lldpctl_xml_text_beside_elements_is_counted_not_read() -> None:
    text = _xml_fixture().replace('  <port label="Port">\n',
                                  '  <port label="Port">\n   stray words\n', 1)
    table = read_sonic_lldp(text, "leaf4_lldpctl.xml")
    assert len(table.neighbors) == 8
    assert table.unknown == [text.split("\n").index("   stray words") + 1]


def test_lldpctl_xml_entry_without_a_port_id_is_counted() -> None:
    text = _xml_fixture()
    cut = text.replace('   <id label="PortID" type="mac">0c:42:a1:de:04:02</id>\n', "")
    result = SonicLldpParser().parse(cut, "leaf4_lldpctl.xml")
    assert len(result.links) == 7 and result.unknown_lines == 1
    assert 'name="Ethernet8"' in cut.split("\n")[(result.first_unknown or 0) - 1]


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE lldp [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
    '<!DOCTYPE lldp SYSTEM "file:///etc/passwd">',
])
def test_lldpctl_xml_with_a_doctype_is_refused_naming_the_line(tmp_path: Path,
                                                              doctype: str) -> None:
    text = _xml_fixture().replace('<lldp label="LLDP neighbors">',
                                  doctype + '\n<lldp label="LLDP neighbors">\n<x>&c;</x>', 1)
    path = tmp_path / "leaf4_lldpctl.xml"
    path.write_text(text, encoding="utf-8")
    outcome = parse_file(str(path), False)
    assert outcome.links == []
    [problem] = outcome.problems
    assert (problem.kind, problem.line, problem.fatal) == ("parse-error", 3, True)
    assert "DOCTYPE" in problem.message


def test_malformed_lldpctl_xml_is_a_parse_error_with_its_line() -> None:
    text = _xml_fixture().replace("</chassis>", "</chasis>", 2)
    with pytest.raises(ParseError) as caught:
        read_sonic_lldp(text, "leaf4_lldpctl.xml")
    assert caught.value.line == text.split("\n").index("  </chasis>") + 1
    assert "not well-formed XML" in caught.value.message


def test_a_folder_reads_lldpctl_xml_and_skips_other_xml_quietly(tmp_path: Path) -> None:
    (tmp_path / "leaf4").mkdir()
    (tmp_path / "leaf4" / "lldp.xml").write_text(_xml_fixture(), encoding="utf-8")
    (tmp_path / "pom.xml").write_text('<?xml version="1.0"?>\n<project><modelVersion>4.0.0'
                                      "</modelVersion></project>\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["topo", str(tmp_path), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"leaf4"' in result.output and "pom.xml" not in result.output
    named = CliRunner().invoke(app, ["lint", str(tmp_path / "pom.xml"), "--format", "json"])
    assert named.exit_code == 2 and "pom.xml" in named.output


def test_lldpctl_json_with_an_entry_that_has_no_port() -> None:
    doc = {"lldp": {"interface": [
        {"Ethernet0": {"chassis": {"gpu1": {"id": {"type": "mac", "value": "aa"}}},
                       "port": {"id": {"type": "mac", "value": "aa"}, "descr": "eth0"}}},
        {"Ethernet4": {"chassis": {"gpu2": {"id": {"type": "mac", "value": "bb"}}}}},
    ]}}
    text = json.dumps(doc, indent=2)
    result = SonicLldpParser().parse(text, "leaf4_lldpctl.json")
    assert len(result.links) == 1
    assert result.unknown_lines == 1
    assert result.first_unknown == next(
        n for n, line in enumerate(text.split("\n"), 1) if '"Ethernet4": {' in line)


@pytest.mark.skipif(not (CORPUS / "lldp").is_dir(), reason="corpus not found")
def test_corpus_lldp_files_are_read_whole() -> None:
    for path in sorted((CORPUS / "lldp").iterdir()):
        text = path.read_text(encoding="utf-8")
        result = LldpParser().parse(text, f"leaf1/show_lldp_{path.name}")
        assert (result.unknown_lines, result.problems) == (0, []), path.name
        assert result.links, path.name
    detail = read_lldp((CORPUS / "lldp" / "eos-show-lldp-neighbors-detail.raw").read_text(), "x")
    assert len(detail.neighbors) == 20 and all(n.remote_device for n in detail.neighbors)


# -- properties ------------------------------------------------------------------------------

JUNK = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80).filter(
    lambda s: "\n" not in s and "\r" not in s)


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(VARIANTS)), data=st.data())
def test_interleaved_junk_never_crashes(name: str, data: st.DataObject) -> None:
    lines = _fixture(name).split("\n")
    for _ in range(data.draw(st.integers(1, 5))):
        lines.insert(data.draw(st.integers(0, len(lines))), data.draw(JUNK))
    parser = PARSERS[VARIANTS[name][0]]
    try:
        result = parser.parse("\n".join(lines), name)
    except ParseError as exc:
        assert exc.file == name
        return
    assert result.unknown_lines >= 0
    if result.unknown_lines:
        assert result.first_unknown is not None


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(sorted(VARIANTS)), data=st.data())
def test_a_cut_file_never_drops_rows_silently(name: str, data: st.DataObject) -> None:
    text = _fixture(name)
    full = _read(text, name)
    cut = data.draw(st.integers(0, len(text)))
    head = text[:cut]
    last = head.count("\n") + 1  # the last line may be cut in the middle
    started = sum(1 for n in full.neighbors if n.line < last)
    try:
        table = _read(head, name)
    except ParseError:
        # a cut JSON or XML document is an error, never silent
        assert started == 0 or name.endswith((".json", ".xml"))
        return
    assert len(table.neighbors) >= started or table.unknown, (cut, started, table)


def test_topo_reads_each_new_format_beside_the_leaf_config(tmp_path: Path) -> None:
    """A folder of one leaf's configuration and its LLDP output, in each new format."""
    config = json.loads((DEMO / "leaf4" / "config_db.json").read_text(encoding="utf-8"))
    del config["DEVICE_NEIGHBOR"]  # the cables must come from the LLDP output
    front = {("Ethernet0", "gpu401", "eth0"), ("Ethernet8", "gpu402", "eth0"),
             ("Ethernet16", "gpu403", "eth0"), ("Ethernet24", "gpu404", "eth0"),
             ("Ethernet248", "spine1", "Ethernet4/1"), ("Ethernet256", "spine2", "Ethernet4/1")}
    nameless = {("Ethernet0", "0c:42:a1:de:04:ff", "0c:42:a1:de:04:ff")}
    cases = [
        ("leaf4", config, "leaf4_show_lldp_table.txt", "show_lldp_table.txt", front),
        ("leaf4", config, "leaf4_show_lldp_neighbors.txt", "show_lldp_neighbors.txt",
         front | nameless),
        ("leaf4", config, "leaf4_lldpctl_json.json", "lldpctl_json.json", front | nameless),
        ("leaf4", config, "leaf4_lldpcli_json0.json", "lldpcli_show_neighbors_json0.json",
         front | nameless),
        ("leaf4", config, "leaf4_lldpctl_keyvalue.txt", "lldpctl_-f_keyvalue.txt",
         front | nameless),
        ("leaf4", config, "leaf4_lldpctl_xml.xml", "lldpcli_-f_xml_show_neighbors.xml",
         front | nameless),
        ("leaf1", DEMO / "leaf1.cfg", "leaf1_show_lldp_neighbors_detail.txt",
         "show_lldp_neighbors_detail.txt",
         {("Ethernet1/1", "gpu101", "eth0"), ("Ethernet2/1", "gpu102", "eth0"),
          ("Ethernet3/1", "gpu103", "eth0"), ("Ethernet4/1", "gpu104", "eth0"),
          ("Ethernet4/1", "0c42.a1de.04ff", "0c42.a1de.04ff"),
          ("Ethernet49/1", "spine1", "Ethernet1/1"), ("Ethernet50/1", "spine2", "Ethernet1/1")}),
        ("leaf3", DEMO / "leaf3.cfg", "leaf3_show_lldp_neighbors_detail_genie.txt",
         "show_lldp_neighbors_detail.txt",
         {("Ethernet1/1", "gpu301", "eth0"), ("Ethernet1/2", "gpu302", "eth0"),
          ("Ethernet1/3", "0c42.a1de.0303", "eth0"), ("Ethernet1/4", "gpu304", "eth0"),
          ("Ethernet1/63", "spine1.dc1.example.net", "Ethernet3/1"),
          ("Ethernet1/64", "spine2.dc1.example.net", "Ethernet3/1")}),
        ("leaf3", DEMO / "leaf3.cfg", "leaf3_show_lldp_neighbors_detail.json",
         "show_lldp_neighbors_detail_json.txt",
         {("Ethernet1/1", "gpu301", "eth0"), ("Ethernet1/2", "gpu302", "eth0"),
          ("Ethernet1/3", "0c42.a1de.0303", "eth0"), ("Ethernet1/4", "gpu304", "eth0"),
          ("Ethernet1/63", "spine1.dc1.example.net", "Ethernet3/1"),
          ("Ethernet1/64", "spine2.dc1.example.net", "Ethernet3/1")}),
        ("leaf3", DEMO / "leaf3.cfg", "leaf3_show_lldp_neighbors.txt", "show_lldp_neighbors.txt",
         None),
    ]
    runner = CliRunner()
    for n, (leaf, cfg, fixture, saved_as, expected) in enumerate(cases):
        root = tmp_path / str(n)
        (root / leaf).mkdir(parents=True)
        if isinstance(cfg, Path):
            (root / cfg.name).write_text(cfg.read_text(encoding="utf-8"), encoding="utf-8")
        else:
            (root / leaf / "config_db.json").write_text(json.dumps(cfg), encoding="utf-8")
        (root / leaf / saved_as).write_text(_fixture(fixture), encoding="utf-8")
        run = runner.invoke(app, ["topo", str(root), "--format", "json"])
        assert run.exit_code in (0, 1), run.output
        cables = {(c["a"]["interface"], c["b"]["device"], c["b"]["interface"])
                  for c in json.loads(run.output)["cables"] if c["a"]["device"] == leaf}
        # management-port cables: where the topology puts them is its own business
        management = {c for c in cables if c[1].startswith("oob-sw1")
                      or c[0] in ("Management1", "mgmt0", "eth0")}
        if expected is None:  # NX-OS table: all 14 rows beside mgmt0's are cables
            assert len(cables - management) == 14, fixture
            assert ("Ethernet1/63", "spine1.dc1.example.net", "Ethernet3/1") in cables
            assert any(re.fullmatch(r"(?:Eth|Ethernet)1/61", c[0]) for c in cables)
        else:
            assert cables - management == expected, fixture
