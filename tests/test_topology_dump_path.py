"""Links that only discovery dumps gave are made cables in one pass (``topology._dump_cables``,
for speed on 50,000-link dumps). These tests build the topology of many dumps both ways, that
pass and the general one every other input takes, and require the same topology: nodes in
order, roles, tiers, cables with their ends and sources, issues, bisection."""

from __future__ import annotations

from pathlib import Path

import pytest

from fablint import topology
from fablint.ingest import parse_file
from fablint.profiles import load_policy
from fablint.topology import IbName, build_topology, ib_names
from tests.conftest import CORPUS, FIXTURES, bench_module

SPECS = {
    "two-tier": {},
    "sharp-ufm-default": {"aggregation_nodes": True, "management_hosts": 2, "names": "default"},
    "three-tier": {"aggregation_nodes": True, "names": "default", "dialect": "ibdiagnet",
                   "pods": 2, "leaves": 3, "spines": 2, "super_spines": 4, "uplinks": 1},
    "director": {"leaves": 4, "hosts": 16, "uplinks": 16, "director": True},
    "rails-plain": {"leaves": 8, "spines": 4, "hosts": 16, "uplinks": 4, "rails": 8,
                    "names": "plain"},
}


def _dumps(tmp_path: Path) -> list[Path]:
    gen = bench_module("gen_ib")
    found = [p for root in (CORPUS / "ib", FIXTURES / "ib") for p in sorted(root.rglob("*"))
             if p.is_file() and p.suffix not in (".conf", ".md")]
    for name, spec in SPECS.items():
        path = tmp_path / f"{name}.topo"
        path.write_text(gen.fabric(gen.FabricSpec(**spec))[0], encoding="utf-8")
        found.append(path)
    text = gen.generate(400, 20, 1)[0]  # planted faults: a spine cabled to itself
    (tmp_path / "faults.topo").write_text(text, encoding="utf-8")
    (tmp_path / "faults.lst").write_text(
        gen.subnet_list(gen.FabricSpec(aggregation_nodes=True, management_hosts=1)),
        encoding="utf-8")
    return [*found, tmp_path / "faults.topo", tmp_path / "faults.lst"]


@pytest.mark.parametrize("patterns", [[], ["^1$", "mlx5_0"]], ids=["default", "mgmt-ports"])
def test_dump_cables_are_what_the_general_path_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patterns: list[str]) -> None:
    policy = load_policy()
    policy = policy.model_copy(update={"topology": policy.topology.model_copy(
        update={"management_ports": patterns})})
    compared = 0
    for path in _dumps(tmp_path):
        outcome = parse_file(str(path), True)
        if not outcome.links:
            continue
        names = ib_names(outcome.ib_nodes)
        assert list(names.items()) == [(n.key, IbName(n.type == "ca", n.description,
                                                      n.system_guid, n.device_id,
                                                      n.type == "router"))
                                       for n in outcome.ib_nodes], path.name
        fast = build_topology(list(outcome.links), {}, policy, None, names)
        with monkeypatch.context() as patch:
            patch.setattr(topology, "_dump_only", lambda _links, _ports: False)
            general = build_topology(list(outcome.links), {}, policy, None, names)
        assert list(fast.nodes) == list(general.nodes), path.name
        assert fast.model_dump_json() == general.model_dump_json(), path.name
        assert fast.model_fields_set == general.model_fields_set, path.name
        for got, want in zip(fast.cables, general.cables, strict=True):
            assert got.model_fields_set == want.model_fields_set, path.name
        # the adjacency the one pass found is the one the cables give (key order too)
        found, computed = fast.adjacency(), fast._adjacency()
        assert list(found.items()) == list(computed.items()), path.name
        # so are each cable's devices, and each node's cables (``cables_of``) in order
        assert fast.device_pairs() == [(c.a.device, c.b.device) for c in fast.cables]
        index = fast._index
        assert index is not None, path.name
        fast._index = None
        assert fast.cables_of("no such node") == [], path.name  # (made again: cables_of's own)
        assert list(fast._index.items()) == list(index.items()), path.name  # type: ignore[union-attr]
        compared += 1
    assert compared >= 12
