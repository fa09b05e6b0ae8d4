"""The shortcuts of the topology's views and rules give what the plain computations give.

The parent's assembly of a 1,024-switch fabric is serial, so its views and the fabric rules
skip work (a roles table shared by every rule, servers grouped through their leaves, links
joined on top of the cables' components); these tests compare each with the computation it
replaced, on generated graphs.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fablint.checks.base import Context
from fablint.checks.consistency import _cabling
from fablint.checks.topology import _groups
from fablint.model import Cable, Endpoint, Fabric, Link, Topology, TopologyNode, component_roots
from fablint.profiles import load_policy

NAMES = st.sampled_from([f"n{i}" for i in range(12)])
LEAVES = st.sampled_from([f"leaf{i}" for i in range(6)])


def _groups_joining_servers_and_leaves(nics: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """``_groups`` as it was: servers and leaves as nodes of one graph."""
    find = component_roots((host, "leaf:" + leaf)
                           for host, entries in nics.items() for _, leaf, _ in entries)
    groups: dict[str, dict[str, Any]] = defaultdict(dict)
    for host, entries in nics.items():
        groups[find[host]][host] = entries
    return list(groups.values())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from([f"gpu{i}" for i in range(10)]),
                       st.lists(st.tuples(st.integers(0, 7), LEAVES, st.none()), min_size=1,
                                max_size=5), max_size=10))
def test_servers_grouped_through_their_leaves_as_through_a_graph_of_both(
        nics: dict[str, list[Any]]) -> None:
    """Same groups, in the same order, each with its servers in the same order: the order
    decides which NIC index wins a tie for a leaf's rail."""
    got = _groups(nics)
    assert [list(g.items()) for g in got] == \
        [list(g.items()) for g in _groups_joining_servers_and_leaves(nics)]


def _topology(pairs: list[tuple[str, str]]) -> Topology:
    cables = [Cable(a=Endpoint(device=a, interface="e1"), b=Endpoint(device=b, interface="e2"))
              for a, b in pairs]
    nodes = {n: TopologyNode(name=n) for pair in pairs for n in pair}
    return Topology(nodes=nodes, cables=cables)


def _partition(names: set[str], root: Any) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = defaultdict(set)
    for name in names:
        groups[root(name)].add(name)
    return {frozenset(g) for g in groups.values()}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(NAMES, NAMES), max_size=15),
       st.lists(st.tuples(NAMES | st.sampled_from(["0xguid1", "0xguid2"]),
                          NAMES | st.sampled_from(["0xguid3"])), max_size=15))
def test_links_joined_on_top_of_the_cables_components_as_in_one_graph(
        cables: list[tuple[str, str]], links: list[tuple[str, str]]) -> None:
    """``consistency._cabling``: the names cables and links reach, and who is joined to
    whom, as the components of cables and links together (names on neither: their own)."""
    fabric = Fabric(topology=_topology(cables), links=[
        Link(a=Endpoint(device=a, interface="p1"), b=Endpoint(device=b, interface="p2"))
        for a, b in links])
    cabled, root = _cabling(Context(fabric=fabric, policy=load_policy()))
    whole = component_roots([*cables, *links])
    assert cabled == set(whole)
    names = cabled | {"stranger"}
    assert _partition(names, root) == _partition(names, whole.__getitem__)


def test_roles_view_follows_role_changes() -> None:
    """``Topology.roles`` is every node's role, again after a node's role changes."""
    topo = _topology([("a", "b"), ("b", "c")])
    assert topo.roles() == {"a": "unknown", "b": "unknown", "c": "unknown"}
    topo.nodes["b"].role = "leaf"
    assert topo.roles() == {"a": "unknown", "b": "leaf", "c": "unknown"}
    topo.nodes["d"] = TopologyNode(name="d", role="host")
    assert topo.roles()["d"] == "host"
