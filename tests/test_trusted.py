"""The fast paths of the topology: objects built without validation equal validated ones, and
the one-pass capacity table equals the per-node ``capacities``."""

from __future__ import annotations

from pathlib import Path

import pytest

from fablint.model import Cable, Endpoint, Link, SourceRef, TopologyNode
from fablint.profiles import load_policy
from fablint.topology import build_topology
from fablint.trusted import Maker, replaced
from tests.conftest import bench_module
from tests.test_ib_construct import _same


def test_maker_builds_what_validation_builds() -> None:
    a = Endpoint(device="leaf1", interface="Ethernet1/1")
    b = Endpoint(device="gpu01", interface="mlx5_0")
    for cls, values in (
        (Endpoint, {"device": "x", "interface": "1"}),
        (TopologyNode, {"name": "leaf1"}),
        (Cable, {"a": a, "b": b, "origin": "lldp", "confirmed": True, "sources": [],
                 "speed_mbps": None, "a_port": None, "b_port": None}),
        (Link, {"a": a, "b": b, "src": SourceRef("f", 3), "origin": "ibnetdiscover",
                "width": 4, "a_speed": "NDR", "b_speed": None, "speed_mbps": 400_000}),
    ):
        _same(Maker(cls)(dict(values)), cls.model_validate(dict(values)), cls.__name__)


def test_objects_given_every_field_share_one_fields_set() -> None:
    """Their set names every field already: an assignment (pydantic adds the name) changes
    nothing, for the object or for the others; objects given fewer fields keep their own."""
    make = Maker(Cable)
    endpoint = Maker(Endpoint)
    ends = [endpoint({"device": f"leaf{i}", "interface": "Ethernet1"}) for i in range(2)]
    every = {"a": ends[0], "b": ends[1], "a_port": None, "b_port": None, "speed_mbps": None,
             "confirmed": False, "sources": [], "origin": "lldp"}
    first, second = make(dict(every)), make(dict(every))
    assert first.model_fields_set is second.model_fields_set
    assert ends[0].model_fields_set is ends[1].model_fields_set
    first.confirmed = True
    assert first.confirmed and not second.confirmed
    assert second.model_fields_set == set(Cable.model_fields) == first.model_fields_set
    _same(second, Cable.model_validate(dict(every)), "cable")
    some = {"a": ends[0], "b": ends[1], "origin": "lldp"}
    third, fourth = make(dict(some)), make(dict(some))
    assert third.model_fields_set is not fourth.model_fields_set
    third.speed_mbps = 400_000
    assert fourth.model_fields_set == {"a", "b", "origin"}
    assert third.model_fields_set == {"a", "b", "origin", "speed_mbps"}


def test_maker_refuses_a_missing_required_field() -> None:
    with pytest.raises(ValueError, match="interface"):
        Maker(Endpoint)({"device": "x"})


def test_replaced_is_model_copy() -> None:
    link = Link(a=Endpoint(device="a", interface="1"), b=Endpoint(device="b", interface="2"),
                src=SourceRef("f", 1), origin="ibnetdiscover", width=4)
    update = {"a": Endpoint(device="gpu01", interface="mlx5_0"), "b": link.b}
    _same(replaced(link, update), link.model_copy(update=update), "link")


CASES = {
    "two-tier": {},
    "three-tier-pods": {"pods": 4, "leaves": 4, "spines": 4, "hosts": 8, "uplinks": 2,
                        "super_spines": 8, "spine_uplinks": 2, "aggregation_nodes": True,
                        "management_hosts": 1},
    "rail-one-spine": {"leaves": 8, "spines": 1, "hosts": 32, "uplinks": 1, "rails": 8,
                       "aggregation_nodes": True, "management_hosts": 1},
    "director": {"leaves": 4, "hosts": 16, "uplinks": 16, "director": True},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_capacity_table_is_capacities_of_every_node(case: str, tmp_path: Path) -> None:
    from fablint.ingest import parse_file
    from fablint.topology import ib_names

    gen = bench_module("gen_ib")
    text, _truth = gen.fabric(gen.FabricSpec(**CASES[case]))
    path = tmp_path / "fabric.topo"
    path.write_text(text, encoding="utf-8")
    outcome = parse_file(str(path), True)
    topo = build_topology(outcome.links, {}, load_policy(), None, ib_names(outcome.ib_nodes))
    table = topo.capacity_table()
    assert list(table) == list(topo.nodes)
    assert table == {name: topo.capacities(name) for name in topo.nodes}
    assert any(up for _, up, _ in table.values())  # (not vacuous: capacities were counted)


def test_capacity_table_on_ethernet_with_unknown_speeds(tmp_path: Path) -> None:
    """LLDP, SONiC and EOS with one leaf's and one spine's configuration missing: cables of
    unknown speed beside known ones, and a management switch."""
    eth = bench_module("gen_ethernet")
    files, _truth = eth.fabric(eth.EthSpec(4, 2, 8, 1))
    eth.write({name: text for name, text in files.items()
               if name not in ("spine01.cfg", "leaf01/config_db.json")}, tmp_path)
    from fablint.config import ProjectConfig
    from fablint.engine import LintOptions, lint

    result = lint(LintOptions(paths=[str(tmp_path)], config=ProjectConfig(),
                              policy=load_policy(), select=["topology"], topology=True))
    topo = result.fabric.topology
    assert topo is not None
    table = topo.capacity_table()
    assert table == {name: topo.capacities(name) for name in topo.nodes}
    assert any(unknown for _, _, unknown in table.values())
    assert any(down for down, _, _ in table.values())


def test_views_follow_every_change_they_depend_on(tmp_path: Path) -> None:
    """``Topology._view`` answers again after a role, tier or service flag is set (as a rule
    or a caller might), after a node is replaced or added, and after the cables change;
    other fields (``pod``) keep the views."""
    from fablint.ingest import parse_file
    from fablint.topology import ib_names

    gen = bench_module("gen_ib")
    text, _truth = gen.fabric(gen.FabricSpec(**CASES["three-tier-pods"]))
    path = tmp_path / "fabric.topo"
    path.write_text(text, encoding="utf-8")
    outcome = parse_file(str(path), True)
    topo = build_topology(outcome.links, {}, load_policy(), None, ib_names(outcome.ib_nodes))

    def fresh() -> dict[str, tuple[int, int, int]]:
        return {name: topo.capacities(name) for name in topo.nodes}

    groups = topo.tier_groups("leaf", "spine")
    assert topo.capacity_table() == fresh()
    kept = topo.adjacency()
    leaf = next(n for n in topo.nodes.values() if n.role == "leaf")
    leaf.pod = 99
    assert topo.adjacency() is kept, "a pod number is no part of any view"
    spine = next(n for n in topo.nodes.values() if n.role == "spine")
    spine.service = True
    assert topo.capacity_table() == fresh()
    leaf.role = "spine"
    assert topo.tier_groups("leaf", "spine") != groups
    leaf.role = "leaf"
    spine.service = False
    assert topo.capacity_table() == fresh()
    topo.nodes[leaf.name] = leaf.model_copy(update={"tier": 3})
    assert topo.capacity_table() == fresh()
    topo.cables = topo.cables[: len(topo.cables) // 2]
    assert topo.capacity_table() == fresh()
    assert topo.adjacency() is not kept
