"""The cabling graph: joining both ends, naming across vendors, roles, bisection, `fablint topo`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fablint.cli import app
from fablint.ifnames import port_key
from fablint.model import Endpoint, Link, SourceRef
from fablint.policy import Policy
from fablint.profiles import load_policy
from fablint.topology import PortRow, build_topology

HEADER = "Port       Neighbor Device ID    Neighbor Port ID    TTL\n"


def _link(a: str, ai: str, b: str, bi: str, line: int = 1) -> Link:
    return Link(a=Endpoint(device=a, interface=ai), b=Endpoint(device=b, interface=bi),
                origin="lldp", src=SourceRef(f"{a}_show_lldp.txt", line))


def _policy(**topology: object) -> Policy:
    return load_policy("default", {"topology": topology} if topology else None)


def _row(speed: int) -> PortRow:
    return PortRow(speed, 9214, True, True, (3,), "dscp", None, None, None)


def _ports(*names: str, speed: int = 400_000) -> dict[str, PortRow]:
    return {n: _row(speed) for n in names}


@pytest.mark.parametrize(("a", "b"), [("Et1/1", "Ethernet1/1"), ("Eth1/1", "ethernet1/1"),
                                      ("Po10", "Port-Channel10"), ("mgmt0", "Management0")])
def test_interface_spellings_meet(a: str, b: str) -> None:
    assert port_key(a) == port_key(b)


def test_both_ends_join_into_one_confirmed_cable_across_spellings() -> None:
    links = [_link("leaf1", "Et31/1", "spine1.example.net", "Ethernet1/1"),
             _link("spine1", "Eth1/1", "leaf1", "Ethernet31/1")]
    topo = build_topology(links, {"leaf1": _ports("Ethernet31/1")}, _policy())
    assert len(topo.cables) == 1
    cable = topo.cables[0]
    assert cable.confirmed
    # The configured device's own spelling wins, others are spelt out in full; the FQDN
    # becomes the device name fablint knows.
    assert {(cable.a.device, cable.a.interface), (cable.b.device, cable.b.interface)} == {
        ("leaf1", "Ethernet31/1"), ("spine1", "Ethernet1/1")}
    assert cable.speed_mbps == 400_000
    assert not topo.issues


def test_roles_from_the_graph_and_from_policy_patterns() -> None:
    links = [_link("sw-a", "Et1", "gpu01", "mlx5_0"), _link("sw-a", "Et2", "sw-b", "Ethernet1"),
             _link("sw-b", "Et9", "sw-c", "Ethernet1")]
    topo = build_topology(links, {}, _policy())
    assert {n: topo.role(n) for n in ("gpu01", "sw-a", "sw-b", "sw-c")} == {
        "gpu01": "host", "sw-a": "leaf", "sw-b": "spine", "sw-c": "super-spine"}
    pinned = build_topology(links, {}, _policy(roles={"spine": ["^sw-c$"]}))
    assert pinned.role("sw-c") == "spine"
    assert pinned.nodes["sw-c"].role_from == "policy"


def test_host_answering_with_a_mac_is_named_by_its_port_description() -> None:
    link = _link("leaf1", "Ethernet8", "78m3", "000f.532e.ced1")
    link.remote_description = "eth3"
    topo = build_topology([link], {}, _policy())
    assert topo.cables[0].b.interface == "eth3"
    assert topo.role("78m3") == "host"


def _clos(leaves: int, spines: int, host_speed: int, up_speed: int,
          skip: tuple[int, int] | None = None) -> tuple[list[Link], dict[str, dict[str, PortRow]]]:
    links, ports = [], {}
    for i in range(1, leaves + 1):
        leaf = f"leaf{i}"
        table = {}
        for h in (1, 2):
            links.append(_link(leaf, f"Ethernet{h}", f"gpu{i}{h}", "mlx5_0"))
            table[f"Ethernet{h}"] = _row(host_speed)
        for s in range(1, spines + 1):
            if skip == (i, s):
                continue
            links.append(_link(leaf, f"Ethernet{30 + s}", f"spine{s}", f"Ethernet{i}"))
            table[f"Ethernet{30 + s}"] = _row(up_speed)
        ports[leaf] = table
    return links, ports


def test_bisection_of_a_uniform_clos_is_exact() -> None:
    links, ports = _clos(4, 2, 400_000, 400_000)
    bisection = build_topology(links, ports, _policy()).bisection
    assert bisection is not None
    assert (bisection.mbps, bisection.ideal_mbps, bisection.exact) == (1_600_000, 1_600_000, True)
    links, ports = _clos(4, 2, 400_000, 100_000)
    half = build_topology(links, ports, _policy()).bisection
    assert half is not None and half.mbps == 400_000 and half.method == "clos"


def test_bisection_of_an_irregular_fabric_is_a_min_cut_upper_bound() -> None:
    links, ports = _clos(4, 2, 400_000, 400_000, skip=(4, 2))
    bisection = build_topology(links, ports, _policy()).bisection
    assert bisection is not None
    assert bisection.method == "min-cut" and not bisection.exact
    # Any balanced cut of this graph crosses at least the uplinks of two leaves minus one.
    assert 0 < bisection.mbps <= 1_600_000


def _write_fabric(root: Path, swap: bool = False) -> None:
    for leaf, nic in (("leaf1", 0), ("leaf2", 1)):
        rows = [f"Et{h}/1      gpu{h:02d}                 mlx5_{nic}              120\n"
                for h in (1, 2, 3)]
        if swap and leaf == "leaf1":
            rows[2] = "Et3/1      gpu03                 mlx5_1              120\n"
        if swap and leaf == "leaf2":
            rows[2] = "Et3/1      gpu03                 mlx5_0              120\n"
        rows.append("Et31/1     spine1                Ethernet1/1         120\n")
        (root / f"{leaf}_show_lldp_neighbors.txt").write_text(HEADER + "".join(rows))


def test_topo_command_formats(tmp_path: Path) -> None:
    _write_fabric(tmp_path)
    runner = CliRunner()
    text = runner.invoke(app, ["topo", str(tmp_path)])
    assert text.exit_code == 0, text.output
    assert "1 spine, 2 leaves, 3 hosts" in text.output
    data = runner.invoke(app, ["topo", str(tmp_path), "--format", "json"])
    doc = json.loads(data.output)
    assert doc["tiers"] == {"leaf": 2, "spine": 1, "host": 3}
    assert len(doc["cables"]) == 8
    mermaid = runner.invoke(app, ["topo", str(tmp_path), "--format", "mermaid"])
    assert mermaid.output.startswith("flowchart TB")
    out = tmp_path / "fabric.svg"
    svg = runner.invoke(app, ["topo", str(tmp_path), "--format", "svg", "--output", str(out)])
    assert svg.exit_code == 0
    root = ET.fromstring(out.read_text())
    labels = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"spine1", "leaf1", "leaf2", "gpu01"} <= labels


def test_topo_command_shows_a_swapped_rail_and_fails(tmp_path: Path) -> None:
    _write_fabric(tmp_path, swap=True)
    result = CliRunner().invoke(app, ["topo", str(tmp_path)])
    assert result.exit_code == 1
    assert "2 NIC(s) off their rail" in result.output
    assert "gpu03 NIC 1 (mlx5_1) is cabled to leaf1" in result.output


def test_topo_command_without_cabling_says_what_it_needs(tmp_path: Path) -> None:
    (tmp_path / "leaf1.cfg").write_text("hostname leaf1\ninterface Ethernet1\n   mtu 9214\n")
    result = CliRunner().invoke(app, ["topo", str(tmp_path)])
    assert result.exit_code == 2
    assert "no cabling found" in result.output


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("fablint-topology: 1\nlinkz: []\n", ":2: unknown key 'linkz' (did you mean 'links'?)"),
        ("fablint-topology: 1\nlinks:\n  - [leaf1-Ethernet1, spine1:Ethernet1]\n",
         "is not DEVICE:PORT"),
        ("fablint-topology: 1\nmesh:\n  - {from: '^leaf(', to: spine}\n",
         "bad regular expression"),
        ("fablint-topology: 1\nmesh:\n  - {from: leaf, to: spine, speed: fast}\n",
         "is not a speed"),
        ("fablint-topology: 2\n", "fablint-topology"),
    ],
)
def test_bad_intent_files_name_file_and_problem(tmp_path: Path, body: str, error: str) -> None:
    from fablint.intent import load_intent
    from fablint.yamlio import ConfigError

    path = tmp_path / "intent.yaml"
    path.write_text(body)
    with pytest.raises(ConfigError) as info:
        load_intent(path)
    assert str(path) in str(info.value)
    assert error in str(info.value)


def test_intent_from_fablint_yaml_reaches_lint(tmp_path: Path) -> None:
    _write_fabric(tmp_path)
    (tmp_path / "intended.yaml").write_text(
        "fablint-topology: 1\nmesh:\n  - {from: '^leaf', to: '^spine', links: 2}\n")
    (tmp_path / "fablint.yaml").write_text("intent: intended.yaml\nexclude: [intended.yaml]\n")
    result = CliRunner().invoke(app, ["lint", str(tmp_path), "--select", "TOP009"])
    assert result.exit_code == 1, result.output
    assert "leaf1 has 1 cable(s) to spine1; the intent says 2" in result.output


def test_an_ibnetdiscover_file_is_an_intent_like_ibdiagnet_t(tmp_path: Path) -> None:
    """The same dump as intent is clean; two CA cables swapped on the switch are miswired."""
    import re

    from tests.conftest import FIXTURES

    dump = FIXTURES / "ib" / "ibtopotool-3-ufm-lab.topo"
    same = CliRunner().invoke(app, ["lint", str(dump), "--intent", str(dump),
                                    "--select", "TOP009"])
    assert same.exit_code == 0, same.output
    lines = dump.read_text(encoding="utf-8").split("\n")
    first, second = [i for i, line in enumerate(lines) if re.match(r'^\[\d+\]\s+"H-', line)][:2]
    port_a = re.match(r"^\[(\d+)\]", lines[first]).group(1)  # type: ignore[union-attr]
    port_b = re.match(r"^\[(\d+)\]", lines[second]).group(1)  # type: ignore[union-attr]
    lines[first] = re.sub(r"^\[\d+\]", f"[{port_b}]", lines[first])
    lines[second] = re.sub(r"^\[\d+\]", f"[{port_a}]", lines[second])
    intent = tmp_path / "intended.topo"
    intent.write_text("\n".join(lines), encoding="utf-8")
    swapped = CliRunner().invoke(app, ["lint", str(dump), "--intent", str(intent),
                                       "--select", "TOP009", "--format", "json"])
    assert swapped.exit_code == 1
    found = json.loads(swapped.stdout)["findings"]
    assert len(found) == 2
    assert all("intended" in f["message"] and "is cabled to" in f["message"] for f in found)
    assert {f["line"] for f in found} == {first + 1, second + 1}


def test_bisection_of_a_symmetric_three_tier_clos_is_exact() -> None:
    """2 pods x (2 leaves, 2 spines), 2 super-spines; spine uplinks are the thinnest tier."""
    links, ports = [], {}
    for pod in (1, 2):
        for leaf_n in (1, 2):
            leaf = f"leaf{pod}{leaf_n}"
            table = {}
            for h in (1, 2):
                links.append(_link(leaf, f"Ethernet{h}", f"gpu{pod}{leaf_n}{h}", "mlx5_0"))
                table[f"Ethernet{h}"] = _row(400_000)
            for s in (1, 2):
                links.append(_link(leaf, f"Ethernet{30 + s}", f"spine{pod}{s}",
                                   f"Ethernet{leaf_n}"))
                table[f"Ethernet{30 + s}"] = _row(400_000)
            ports[leaf] = table
        for s in (1, 2):
            spine = f"spine{pod}{s}"
            table = {f"Ethernet{n}": _row(400_000) for n in (1, 2)}
            for ss in (1, 2):
                links.append(_link(spine, f"Ethernet{40 + ss}", f"superspine{ss}",
                                   f"Ethernet{pod}{s}"))
                table[f"Ethernet{40 + ss}"] = _row(100_000)
            ports[spine] = table
    topo = build_topology(links, ports, _policy())
    assert topo.role("superspine1") == "super-spine"
    bisection = topo.bisection
    assert bisection is not None and bisection.exact and bisection.method == "clos"
    # hosts 8 x 400G = 3.2T; leaf uplinks 3.2T; spine uplinks 4 spines x 2 x 100G = 800G
    assert (bisection.mbps, bisection.ideal_mbps) == (400_000, 1_600_000)


def test_ib_rails_from_node_descriptions() -> None:
    """IB links name nodes by GUID; CA descriptions 'gpuNN mlx5_K' make hosts and NICs."""
    from fablint.topology import IbName

    names = {"0xs1": IbName(False, "rail0-leaf"), "0xs2": IbName(False, "rail1-leaf")}
    links = []
    for n in (1, 2, 3):
        for k, switch in ((0, "0xs1"), (1, "0xs2")):
            if n == 3:  # gpu03's two cables are swapped between the rail switches
                switch = "0xs2" if k == 0 else "0xs1"
            ca = f"0xca{n}{k}"
            names[ca] = IbName(True, f"gpu{n:02d} mlx5_{k}")
            links.append(Link(a=Endpoint(device=switch, interface=str(n)),
                              b=Endpoint(device=ca, interface="1"), origin="ibnetdiscover",
                              src=SourceRef("fabric.topo", n), speed_mbps=400_000))
    topo = build_topology(links, {}, _policy(), ib=names)
    assert topo.role("gpu03") == "host" and topo.role("rail0-leaf") == "leaf"
    assert all(c.confirmed for c in topo.cables)
    from fablint.checks.base import Context
    from fablint.checks.topology import RailAlignment
    from fablint.model import Fabric

    ctx = Context(fabric=Fabric(topology=topo), policy=_policy())
    found = list(RailAlignment().compare([], ctx))
    assert sorted(f.message.split(",")[0] for f in found) == [
        "gpu03 NIC 0 (mlx5_0) is cabled to rail1-leaf",
        "gpu03 NIC 1 (mlx5_1) is cabled to rail0-leaf"]


def test_service_names_are_a_hint_only_when_few_hosts_carry_them() -> None:
    """A lab whose every host is called r-ufmNNN keeps its leaves; one UFM beside compute
    hosts is a service host and leaves its spine a spine."""
    lab = [_link("sw1", f"Et{i}/1", f"r-ufm{i:03d}", "eth0") for i in range(1, 5)]
    topo = build_topology(lab, {}, _policy())
    assert topo.role("sw1") == "leaf"
    assert not any(n.service for n in topo.nodes.values())
    fabric = [_link(leaf, f"Et{h}/1", f"gpu{leaf[-1]}{h}", "eth0") for leaf in ("leaf1", "leaf2")
              for h in (1, 2)]
    fabric += [_link(leaf, "Et31/1", "spine1", f"Ethernet{n}/1")
               for n, leaf in enumerate(("leaf1", "leaf2"), 1)]
    fabric += [_link("spine1", f"Ethernet{n}/1", leaf, "Et31/1")
               for n, leaf in enumerate(("leaf1", "leaf2"), 1)]
    fabric.append(_link("spine1", "Ethernet9/1", "ufm01", "eth0"))
    topo = build_topology(fabric, {}, _policy())
    assert topo.role("spine1") == "spine" and topo.nodes["ufm01"].service
    assert topo.capacities("spine1")[0] == 0  # (speeds unknown here; the UFM adds nothing)


def test_profile_management_ports_are_left_out() -> None:
    links = [_link("leaf1", "Et1/1", "gpu01", "eth0"), _link("leaf1", "Et48/1", "oob1", "Gi1/0/1"),
             _link("leaf1", "Et31/1", "spine1", "Ethernet1/1")]
    assert build_topology(links, {}, _policy()).role("oob1") == "spine"
    topo = build_topology(links, {}, _policy(management_ports=["^Et48/1$"]))
    assert "oob1" not in topo.nodes and topo.management_links == 1
    assert topo.role("spine1") == "spine"


def test_hca_numbering_from_one_meets_mlx5_numbering_from_zero() -> None:
    """'gpu01 HCA-1' and 'gpu04 mlx5_0' are both a server's first NIC: on one rail leaf they
    agree, and no rail finding mixes the two conventions."""
    from fablint.checks.base import Context
    from fablint.checks.topology import RailAlignment
    from fablint.model import Fabric
    from fablint.topology import IbName

    names = {"0xs1": IbName(False, "rail0-leaf"), "0xs2": IbName(False, "rail1-leaf")}
    links = []
    for n in range(1, 7):
        for k, switch in ((0, "0xs1"), (1, "0xs2")):
            ca = f"0xca{n}{k}"
            nic = f"HCA-{k + 1}" if n <= 3 else f"mlx5_{k}"
            names[ca] = IbName(True, f"gpu{n:02d} {nic}")
            links.append(Link(a=Endpoint(device=switch, interface=str(n)),
                              b=Endpoint(device=ca, interface="1"), origin="ibnetdiscover",
                              src=SourceRef("fabric.topo", n), speed_mbps=400_000))
    topo = build_topology(links, {}, _policy(), ib=names)
    ctx = Context(fabric=Fabric(topology=topo), policy=_policy())
    assert list(RailAlignment().compare([], ctx)) == []


def _made_as_validated(obj: object) -> None:
    """``obj`` (a model the topology built without validation) is what validation makes of
    its values: same class, fields in the same order, same fields set; and so are the models
    it holds."""
    from pydantic import BaseModel

    assert isinstance(obj, BaseModel)
    again = type(obj).model_validate(obj.model_dump())
    assert list(obj.__dict__) == list(type(obj).model_fields)
    assert obj == again and obj.model_fields_set == again.model_fields_set
    for value in obj.__dict__.values():
        if isinstance(value, BaseModel):
            _made_as_validated(value)


def test_cables_ends_and_port_ends_are_what_validation_makes() -> None:
    """The Ethernet path builds its end points, port ends and cables from dict literals in
    the fields' order (topology._filled); a configured neighbour (SONiC DEVICE_NEIGHBOR), an
    LLDP claim from both ends, a renamed port and a placeholder neighbour shared by two
    templated ToRs (``Servers0@tor1``) are all covered."""
    def sonic(neighbour_of: dict[str, tuple[str, str]]) -> dict[str, PortRow]:
        return {name: PortRow(100_000, 9100, True, False, (3, 4), "dscp",
                              SourceRef("tor.json", 10 + i), neighbour_of.get(name),
                              SourceRef("tor.json", 40 + i) if name in neighbour_of else None,
                              f"etp{i}")
                for i, name in enumerate(("Ethernet0", "Ethernet4", "Ethernet8"))}

    template = {"Ethernet0": ("Servers0", "eth0"), "Ethernet4": ("Servers1", "eth0"),
                "Ethernet8": ("ARISTA01T1", "Ethernet1")}
    ports = {"tor1": sonic(template), "tor2": sonic(template),
             "leaf1": _ports("Ethernet31/1")}
    links = [_link("leaf1", "Et31/1", "spine1", "Ethernet1/1"),
             _link("spine1", "Eth1/1", "leaf1", "Ethernet31/1", line=2),
             _link("tor1", "etp1", "Servers1", "eth0", line=3)]
    topo = build_topology(links, ports, _policy())
    assert {c.b.device for c in topo.cables if c.a.device == "tor1"} >= {
        "Servers0@tor1", "ARISTA01T1@tor1"}
    assert any(c.a_port is not None and c.a_port.neighbor is not None for c in topo.cables)
    for cable in topo.cables:
        _made_as_validated(cable)
