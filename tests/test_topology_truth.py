"""Topology figures on generated fabrics whose truth is known by construction (bench/gen_ib.py
``fabric``): tiers, per-leaf and per-tier ratios and bisection must come out exact, and what is
not fabric (SHARP Aggregation Nodes, management hosts, switch names) must change none of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fablint.config import ProjectConfig
from fablint.engine import LintOptions, LintResult, lint
from fablint.model import Topology
from fablint.profiles import load_policy
from tests.conftest import bench_module

GEN = bench_module("gen_ib")
FabricSpec = GEN.FabricSpec


@dataclass(frozen=True)
class Figures:
    """What a user reads off ``fablint topo``."""

    leaves: int
    spines: int
    super_spines: int
    hosts: int
    leaf_ratios: frozenset[float]
    tier_ratios: tuple[tuple[str, float], ...]
    bisection_mbps: int | None
    ideal_mbps: int | None
    exact: bool | None


def _lint(path: Path, select: list[str], topology: bool = False) -> LintResult:
    return lint(LintOptions(paths=[str(path)], config=ProjectConfig(),
                            policy=load_policy("default"), select=select, topology=topology))


def topology(text: str, root: Path, name: str = "fabric.topo") -> Topology:
    path = root / name
    path.write_text(text, encoding="utf-8")
    result = _lint(path, ["topology"], topology=True)
    assert result.fabric.topology is not None
    return result.fabric.topology


def figures(topo: Topology) -> Figures:
    def members(role: str) -> list[str]:
        return sorted(n for n, node in topo.nodes.items() if node.role == role)

    ratios = {}
    for role in ("leaf", "spine"):
        caps = [topo.capacities(n) for n in members(role)]
        up = sum(u for _, u, _ in caps)
        if up:
            ratios[role] = round(sum(d for d, _, _ in caps) / up, 6)
    leaf_ratios = frozenset(round(d / u, 6) for d, u, _ in map(topo.capacities, members("leaf"))
                            if u)
    b = topo.bisection
    return Figures(
        leaves=len(members("leaf")), spines=len(members("spine")),
        super_spines=len(members("super-spine")),
        hosts=sum(1 for n in topo.nodes.values() if n.role == "host" and not n.service),
        leaf_ratios=leaf_ratios, tier_ratios=tuple(sorted(ratios.items())),
        bisection_mbps=b.mbps if b else None, ideal_mbps=b.ideal_mbps if b else None,
        exact=b.exact if b else None)


def _expected(truth: object) -> Figures:
    return Figures(
        leaves=truth.leaves, spines=truth.spines, super_spines=truth.super_spines,
        hosts=truth.hosts, leaf_ratios=frozenset({round(truth.leaf_ratio, 6)}),
        tier_ratios=tuple(sorted((k, round(v, 6)) for k, v in truth.tier_ratios.items())),
        bisection_mbps=truth.bisection_mbps, ideal_mbps=truth.ideal_mbps, exact=True)


CASES = {
    "two-tier": FabricSpec(),
    "sharp-ufm-default-names": FabricSpec(aggregation_nodes=True, management_hosts=2,
                                          names="default"),
    "ibdiagnet-dialect": FabricSpec(aggregation_nodes=True, names="default",
                                    dialect="ibdiagnet"),
    "three-tier-pods": FabricSpec(pods=4, leaves=4, spines=4, hosts=8, uplinks=2,
                                  super_spines=8, spine_uplinks=2, aggregation_nodes=True,
                                  management_hosts=1),
    # The cluster: 8 rail leaves x 32 HCAs, one uplink each to a single spine.
    "rail-one-spine": FabricSpec(leaves=8, spines=1, hosts=32, uplinks=1, rails=8,
                                 aggregation_nodes=True, management_hosts=1),
    "rail-four-spines": FabricSpec(leaves=8, spines=4, hosts=16, uplinks=4, rails=8,
                                   names="plain"),
    "director": FabricSpec(leaves=4, hosts=16, uplinks=16, director=True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_fabric_figures_are_exact(case: str, tmp_path: Path) -> None:
    text, truth = GEN.fabric(CASES[case])
    topo = topology(text, tmp_path)
    assert figures(topo) == _expected(truth)
    assert topo.aggregation_nodes == truth.aggregation_nodes
    assert sum(n.service for n in topo.nodes.values()) == truth.management_hosts
    assert not any(n.role == "unknown" for n in topo.nodes.values())


@pytest.mark.parametrize("case", sorted(CASES))
def test_subnet_list_of_the_same_fabric_gives_the_same_figures(case: str,
                                                               tmp_path: Path) -> None:
    """opensm-subnet.lst / ibdiagnet2.lst name the same nodes and links another way."""
    _text, truth = GEN.fabric(CASES[case])
    topo = topology(GEN.subnet_list(CASES[case]), tmp_path, "opensm-subnet.lst")
    assert figures(topo) == _expected(truth)
    assert topo.aggregation_nodes == truth.aggregation_nodes


def test_rail_cluster_with_one_spine_is_32_to_1_and_3_percent(tmp_path: Path) -> None:
    text, _truth = GEN.fabric(CASES["rail-one-spine"])
    topo = topology(text, tmp_path)
    leaves = [n for n in topo.nodes.values() if n.role == "leaf"]
    assert len(leaves) == 8
    assert {topo.capacities(n.name)[:2] for n in leaves} == {(32 * 400_000, 400_000)}
    assert topo.bisection is not None
    assert topo.bisection.mbps / topo.bisection.ideal_mbps == pytest.approx(1 / 32)
    ufm = topo.nodes["ufm01"]
    assert ufm.role == "host" and ufm.service  # and the spine it hangs off stays a spine
    assert [n.name for n in topo.nodes.values() if n.role == "spine"] == ["p1-spine01"]


def test_director_is_one_chassis_with_its_internal_links_apart(tmp_path: Path) -> None:
    text, truth = GEN.fabric(CASES["director"])
    topo = topology(text, tmp_path)
    chassis = topo.nodes["dir1"]
    assert chassis.role == "spine" and chassis.chips == truth.chips
    assert len(topo.internal) == truth.internal_links
    assert not any(c.a.device == c.b.device for c in topo.cables)
    assert all(c.b.interface.startswith("L") or c.a.interface.startswith("L")
               for c in topo.cables_of("dir1"))


def test_pods_of_a_three_tier_fabric(tmp_path: Path) -> None:
    text, _truth = GEN.fabric(CASES["three-tier-pods"])
    topo = topology(text, tmp_path)
    from fablint.topology import pods

    groups = pods(topo)
    assert len(groups) == 4
    assert all(len(g) == 8 for g in groups)  # 4 leaves + 4 spines each


def test_three_tier_mesh_findings_stay_within_pods(tmp_path: Path) -> None:
    """A pod-based fat tree is complete: no leaf 'misses' the spines of other pods."""
    text, _truth = GEN.fabric(CASES["three-tier-pods"])
    path = tmp_path / "fabric.topo"
    path.write_text(text, encoding="utf-8")
    result = _lint(path, ["TOP004", "TOP008"])
    assert result.findings == []


def test_a_missing_spine_cable_is_said_once_with_its_line(tmp_path: Path) -> None:
    text, _truth = GEN.fabric(FabricSpec(leaves=6, spines=3, hosts=4, uplinks=1, names="plain"))
    # p1-spine03 cabled to p1-leaf01 only: one cause (the spine), one finding
    kept, record = [], ""
    for line in text.splitlines():
        if line.startswith("Switch"):
            record = line
        elif line.startswith("Ca"):
            record = ""
        pair = {name for name in ("p1-spine03", "p1-leaf01") if f'"{name}"' in record} | {
            name for name in ("p1-spine03", "p1-leaf01") if f'"{name}"' in line}
        if line.startswith("[") and "p1-spine03" in pair and "p1-leaf01" not in pair \
                and ('"p1-leaf' in line or '"p1-spine03"' in line):
            continue
        kept.append(line)
    topo_text = "\n".join(kept) + "\n"
    path = tmp_path / "fabric.topo"
    path.write_text(topo_text, encoding="utf-8")
    result = _lint(path, ["TOP004"])
    messages = [f.message for f in result.findings]
    assert len(messages) == 1, messages
    assert messages[0].startswith("p1-spine03 has no cable to 5 of the 6 leaves of its pod")
    finding = result.findings[0]
    assert finding.line and finding.file == str(path)
    assert finding.objects == [f"p1-leaf0{i}" for i in range(2, 7)]


SPECS = st.builds(
    lambda pods, leaves, spines, hosts, uplinks, planes: FabricSpec(
        pods=pods, leaves=leaves, spines=spines, hosts=hosts, uplinks=uplinks,
        super_spines=spines * planes if pods > 1 else 0, names="plain"),
    pods=st.integers(1, 3), leaves=st.integers(2, 4), spines=st.integers(1, 3),
    hosts=st.integers(1, 6), uplinks=st.integers(1, 3), planes=st.integers(1, 2))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=SPECS, names=st.sampled_from(["plain", "mf0", "default"]),
       management=st.integers(0, 2))
def test_what_is_not_fabric_changes_no_figure(spec: object, names: str, management: int,
                                              tmp_path: Path) -> None:
    """Adding SHARP ANs and management hosts, or renaming switches to factory defaults (GUIDs
    only), leaves tiers, ratios and bisection as they are, and as built."""
    from dataclasses import replace

    text, truth = GEN.fabric(spec)
    base = figures(topology(text, tmp_path, "base.topo"))
    assert base == _expected(truth)
    noisy_text, _ = GEN.fabric(replace(spec, aggregation_nodes=True, names=names,
                                       management_hosts=management))
    assert figures(topology(noisy_text, tmp_path, "noisy.topo")) == base


ETH = bench_module("gen_ethernet")


def eth_topology(spec: object, root: Path) -> Topology:
    files, _truth = ETH.fabric(spec)
    ETH.write(files, root)
    result = _lint(root, ["topology"], topology=True)
    assert result.fabric.topology is not None
    return result.fabric.topology


@pytest.mark.parametrize("fqdn", [False, True])
def test_ethernet_fabric_with_management_and_sonic_aliases_is_exact(fqdn: bool,
                                                                    tmp_path: Path) -> None:
    """32 x 400G down and 8 x 400G up per leaf: 4:1 is computed (the out-of-band switch is no
    spine), each SONiC uplink is one confirmed cable although the spines' LLDP names it by its
    alias, and FQDNs in the LLDP tables still name the configured leaves."""
    spec = ETH.EthSpec(leaves=4, spines=2, hosts=32, uplinks=4, fqdn=fqdn)
    _files, truth = ETH.fabric(spec)
    topo = eth_topology(spec, tmp_path)
    fig = figures(topo)
    assert fig == Figures(
        leaves=truth.leaves, spines=truth.spines, super_spines=0, hosts=truth.hosts,
        leaf_ratios=frozenset({truth.leaf_ratio}), tier_ratios=(("leaf", truth.leaf_ratio),),
        bisection_mbps=truth.bisection_mbps, ideal_mbps=truth.ideal_mbps, exact=True)
    fabric_cables = [c for c in topo.cables if topo.role(c.a.device) != "switch"]
    assert len(fabric_cables) == truth.cables
    uplinks = [c for c in fabric_cables if "spine" in (topo.role(c.a.device),
                                                       topo.role(c.b.device))]
    assert uplinks and all(c.confirmed for c in uplinks)
    assert topo.management_links > 0
    assert topo.role("oob1") == "switch"  # not a spine: only its own uplink is a cable
    assert {(c.a.device, c.b.device) for c in topo.cables_of("oob1")} == {("oob1", "core-oob1")}
    result = _lint(tmp_path, ["TOP001", "TOP004", "TOP007", "TOP008"])
    assert sorted(f.rule for f in result.findings) == ["TOP001"] * truth.leaves
    assert all(f.line for f in result.findings)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(leaves=st.integers(2, 4), spines=st.integers(1, 3), hosts=st.integers(1, 8),
       uplinks=st.integers(1, 2))
def test_management_neighbours_change_no_ethernet_figure(leaves: int, spines: int, hosts: int,
                                                         uplinks: int, tmp_path: Path) -> None:
    import tempfile

    results = []
    for management in (False, True):
        with tempfile.TemporaryDirectory(dir=tmp_path) as root:
            spec = ETH.EthSpec(leaves, spines, hosts, uplinks, management=management)
            results.append(figures(eth_topology(spec, Path(root))))
    assert results[0] == results[1]
    _files, truth = ETH.fabric(ETH.EthSpec(leaves, spines, hosts, uplinks))
    assert results[0].bisection_mbps == truth.bisection_mbps


def test_unrelated_sonic_tors_sharing_placeholder_neighbours_stay_apart(tmp_path: Path) -> None:
    """Two templated ToRs both list Servers0..3 eth0 and ARISTA01T1 Ethernet1: different
    devices with the same names, so two fabrics of one leaf each, not one of two leaves."""
    for tor in ("tor-a", "tor-b"):
        neighbours = {f"Ethernet{4 * i}": {"name": f"Servers{i}", "port": "eth0"}
                      for i in range(4)}
        neighbours["Ethernet16"] = {"name": "ARISTA01T1", "port": "Ethernet1"}
        ports = {f"Ethernet{4 * i}": {"speed": "40000", "alias": f"fortyGigE0/{4 * i}"}
                 for i in range(5)}
        doc = {"DEVICE_METADATA": {"localhost": {"hostname": tor}}, "PORT": ports,
               "DEVICE_NEIGHBOR": neighbours}
        (tmp_path / f"{tor}.json").write_text(__import__("json").dumps(doc), encoding="utf-8")
    topo = _lint(tmp_path, ["topology"], topology=True).fabric.topology
    assert topo is not None
    assert "Servers0" not in topo.nodes
    assert {"Servers0@tor-a", "Servers0@tor-b"} <= set(topo.nodes)
    assert [c.a.device for c in topo.cables_of("ARISTA01T1@tor-a")] == ["tor-a"]
    assert topo.role("ARISTA01T1@tor-b") == "spine"


def test_text_summary_of_many_leaves_is_one_row_per_kind_worst_first(tmp_path: Path) -> None:
    """A 32-leaf fabric is not 32 identical rows: leaves alike share one, an outlier (a leaf
    that lost an uplink) has its own, above; service hosts are not counted as hosts."""
    from fablint.report.topo import LEAF_ROWS, render_text

    spec = FabricSpec(pods=2, leaves=16, spines=2, hosts=4, uplinks=2, management_hosts=1)
    text, truth = GEN.fabric(spec)
    assert truth.leaves > LEAF_ROWS
    topo = topology(text, tmp_path)
    assert "(and 1 service host" in render_text(topo, [])
    leaf = next(n for n in topo.nodes if "p1-leaf01" in n)
    uplink = next(c for c in topo.cables_of(leaf) if topo.role(c.a.device) == "spine"
                  or topo.role(c.b.device) == "spine")
    topo.cables.remove(uplink)
    rows = render_text(topo, []).split("Ratio\n")[1].split("\n\n")[0].splitlines()
    assert len(rows) == 2, rows
    assert rows[0].startswith(leaf + " ") and rows[0].endswith("1.33:1")  # 3 of 4 uplinks
    assert f"+{truth.leaves - 2} alike" in rows[1] and rows[1].endswith("1.00:1")
