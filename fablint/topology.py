"""The cabling as a graph: links joined from both ends, roles and tiers, bisection bandwidth.

Links arrive one-sided ("leaf1 Et1 sees spine1 Ethernet3/1"). This module matches names across
vendors and spellings, joins both ends' claims into cables, notes claims that do not add up,
places every node in a tier and computes the fabric's bisection bandwidth. The result is part of
the model (``Fabric.topology``) so that rules read it like any other model data.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from fablint.ifnames import canonical, port_key
from fablint.intent import Intent
from fablint.model import (
    Bisection,
    Cable,
    CablingIssue,
    Device,
    Endpoint,
    IbNode,
    Link,
    PortEnd,
    Role,
    SourceRef,
    Topology,
    TopologyNode,
)
from fablint.policy import Policy

TIER: dict[str, int] = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}
_HOST_PORT = re.compile(
    r"^(?:eth\d|en[ops]\w*|ib\d|mlx\d|mlx5_\d|bond\d|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$|"
    r"(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}$)", re.I,
)
"""Port names only hosts have: Linux NICs, RDMA devices, or a MAC address as the port id."""
_MAC = re.compile(r"^(?:[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}|(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2})$",
                  re.I)
_NAME_ROLE = (
    (re.compile(r"super-?spine|\bss\d|^ss[-_]?\d", re.I), "super-spine"),
    (re.compile(r"spine", re.I), "spine"),
    (re.compile(r"leaf|\btor\b|^tor[-_]?\d|rail", re.I), "leaf"),
    (re.compile(r"dgx|gpu|hgx|\bnode|\bhost|server|compute", re.I), "host"),
)


@dataclass
class _Claim:
    near: Endpoint
    far: Endpoint
    src: SourceRef | None
    origin: str
    speed_mbps: int | None


class PortRow(NamedTuple):
    """One port's cabling facts as a plain tuple: cheap to build and to send between
    processes for every port of every device; a PortEnd is made only for ports on a cable."""

    speed_mbps: int | None
    mtu: int | None
    admin_up: bool
    routed: bool
    pfc: tuple[int, ...]
    trust: str | None
    src: SourceRef | None
    neighbor: tuple[str, str] | None
    neighbor_src: SourceRef | None

    def end(self, name: str) -> PortEnd:
        return PortEnd(
            interface=name, speed_mbps=self.speed_mbps, mtu=self.mtu, admin_up=self.admin_up,
            routed=self.routed, pfc=list(self.pfc), trust=self.trust, src=self.src,
            neighbor=Endpoint(device=self.neighbor[0], interface=self.neighbor[1])
            if self.neighbor else None, neighbor_src=self.neighbor_src,
        )


PortTable = dict[str, PortRow]
"""A configured device's ports by name: what the topology needs of a device model."""


def port_table(device: Device) -> PortTable:
    """The few facts per port that cabling checks compare across a cable (small to ship)."""
    table: PortTable = {}
    interfaces = device.interfaces
    for name, iface in interfaces.items():
        if iface.kind not in ("physical", "port-channel"):
            continue
        owner = interfaces.get(iface.port_channel) if iface.port_channel else None
        mtu = iface.mtu if iface.mtu is not None or owner is None else owner.mtu
        qos = iface.qos
        peer = iface.neighbor
        table[name] = PortRow(
            iface.speed_mbps, mtu, iface.admin_up, iface.routed or bool(owner and owner.routed),
            tuple(sorted(qos.pfc.active_priorities)),
            str(qos.trust) if qos.trust is not None else None, iface.src,
            (peer.device, peer.interface) if peer else None,
            iface.field_src.get("neighbor") if peer else None,
        )
    return table


@dataclass
class _Names:
    """Resolves device and port names as other devices spell them to the names fablint uses."""

    devices: dict[str, PortTable]
    owners: set[str]
    _lower: dict[str, str] = field(default_factory=dict)
    _short: dict[str, str] = field(default_factory=dict)
    _ports: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in [*self.devices, *sorted(self.owners)]:
            self._lower.setdefault(name.lower(), name)
            self._short.setdefault(name.split(".")[0].lower(), name)

    def device(self, name: str) -> str:
        lower = name.lower()
        if lower in self._lower:
            return self._lower[lower]
        return self._short.get(lower.split(".")[0], name)

    def port(self, device: str, name: str) -> str:
        config = self.devices.get(device)
        if config is None:  # one spelling per port whichever end spoke first; NICs keep theirs
            return name if _HOST_PORT.match(name) else canonical(name)
        ports = self._ports.get(device)
        if ports is None:
            ports = self._ports[device] = {port_key(n): n for n in config}
        return ports.get(port_key(name), name)


class IbName(NamedTuple):
    """What the topology needs of an IB node: is it a host, and how people call it."""

    host: bool
    description: str | None


_IB_HCA = re.compile(r"^(?P<host>[\w.-]+)[ :/]+(?P<nic>(?:mlx\d+_|HCA-?|ib|hfi\d*_)\d+)\b", re.I)
"""A channel adapter described as ``gpu01 mlx5_3`` (the usual NodeDescription)."""


def ib_names(nodes: list[IbNode]) -> dict[str, IbName]:
    return {n.key: IbName(n.type == "ca", n.description) for n in nodes}


def _ib_ends(links: list[Link], names: dict[str, IbName]) -> list[Link]:
    """IB links name nodes by GUID: hosts become ``gpu01`` with NIC ``mlx5_3`` (rail checks
    and roles then work as for Ethernet), switches their description when it is unique."""
    counts: dict[str, int] = defaultdict(int)
    for name in names.values():
        if name.description:
            counts[name.description] += 1

    def rename(end: Endpoint) -> Endpoint:
        name = names.get(end.device)
        if name is None or not name.description:
            return end
        hca = _IB_HCA.match(name.description) if name.host else None
        if hca:
            return Endpoint(device=hca.group("host"), interface=hca.group("nic"))
        if counts[name.description] == 1 and not name.host:
            return Endpoint(device=name.description, interface=end.interface)
        return end

    return [link.model_copy(update={"a": rename(link.a), "b": rename(link.b)})
            for link in links]


def ib_link_names(links: list[Link], nodes: list[IbNode]) -> list[Link]:
    """``links`` of an IB dump with its nodes named as the topology names them."""
    return _ib_ends(links, ib_names(nodes))


def build_topology(links: list[Link], ports: dict[str, PortTable], policy: Policy,
                   intent: Intent | None = None,
                   ib: dict[str, IbName] | None = None) -> Topology:
    """Join ``links`` into cables and place every node in a tier.

    ``ports`` holds the port table of every device whose configuration was read; ``intent``,
    when given, is compared with what the links show; ``ib`` names the nodes of IB dumps.
    """
    if ib:
        links = _ib_ends(links, ib)
    links = [*links, *configured_links(ports)]
    owners = {link.a.device for link in links if link.origin == "lldp"}
    names = _Names(ports, owners)
    claims = [_claim(link, names) for link in links]
    topo = Topology()
    for name in ports:
        topo.nodes[name] = TopologyNode(name=name, configured=True)
    for claim in claims:
        for end in (claim.near, claim.far):
            topo.nodes.setdefault(end.device, TopologyNode(name=end.device))
    for owner in owners:
        topo.nodes[names.device(owner)].has_lldp = True
    topo.cables, topo.issues = _join(claims, topo, ports)
    _place(topo, claims, policy, intent.roles if intent else {})
    if intent is not None:
        topo.issues += compare_intent(topo, intent, names)
    topo.bisection = bisection(topo)
    return topo


def configured_links(ports: dict[str, PortTable]) -> list[Link]:
    """Cables a device's configuration declares (SONiC DEVICE_NEIGHBOR), as one-sided links."""
    return [
        Link(a=Endpoint(device=device, interface=name),
             b=Endpoint(device=row.neighbor[0], interface=row.neighbor[1]), origin="config",
             src=row.neighbor_src)
        for device, table in ports.items() for name, row in table.items() if row.neighbor
    ]


def _claim(link: Link, names: _Names) -> _Claim:
    near_dev = names.device(link.a.device)
    far_dev = names.device(link.b.device)
    far_port = link.b.interface
    if _MAC.match(far_port) and link.remote_description:
        far_port = link.remote_description  # hosts answer with a MAC; the NIC name is in the
        # port description (eth3, mlx5_3), which is what rail checks need
    return _Claim(
        near=Endpoint.model_construct(device=near_dev,
                                      interface=names.port(near_dev, link.a.interface)),
        far=Endpoint.model_construct(device=far_dev, interface=names.port(far_dev, far_port)),
        src=link.src, origin=link.origin, speed_mbps=link.speed_mbps,
    )


def _key(end: Endpoint) -> tuple[str, str]:
    return (end.device, port_key(end.interface))


def _port(ports: dict[str, PortTable], end: Endpoint) -> PortEnd | None:
    table = ports.get(end.device)
    row = table.get(end.interface) if table else None
    return row.end(end.interface) if row else None


def _join(claims: list[_Claim], topo: Topology,
          ports: dict[str, PortTable]) -> tuple[list[Cable], list[CablingIssue]]:
    by_port: dict[tuple[str, str], list[_Claim]] = defaultdict(list)
    for claim in claims:
        by_port[_key(claim.near)].append(claim)
    cables: dict[frozenset[tuple[str, str]], Cable] = {}
    issues: list[CablingIssue] = []
    for claim in claims:
        near, far = _key(claim.near), _key(claim.far)
        if near[0] == far[0] and claim.origin == "lldp":
            # (IB dumps: a switch cabled to itself stays a cable; IB009 reports it in IB terms)
            issues.append(CablingIssue(
                kind="self-loop", device=claim.near.device, interface=claim.near.interface,
                message=f"{claim.near.device} {claim.near.interface} is cabled to its own port "
                f"{claim.far.interface}", src=claim.src,
            ))
            continue
        key = frozenset((near, far))
        cable = cables.get(key)
        if cable is None:
            a_port, b_port = _port(ports, claim.near), _port(ports, claim.far)
            speeds = [s for s in (a_port and a_port.speed_mbps, b_port and b_port.speed_mbps,
                                  claim.speed_mbps) if s]
            cable = cables[key] = Cable(
                # a dump of the subnet (IB) sees both ends of each link at once
                confirmed=claim.origin not in ("lldp", "config"),
                a=claim.near, b=claim.far, origin=claim.origin,
                speed_mbps=min(speeds) if speeds else None, a_port=a_port, b_port=b_port)
        elif _key(cable.a) == far:
            cable.confirmed = True
        if claim.src is not None:
            cable.sources.append(claim.src)
        issue = _disagreement(claim, by_port, topo)
        if issue is not None:
            issues.append(issue)
    return list(cables.values()), issues


def _disagreement(claim: _Claim, by_port: dict[tuple[str, str], list[_Claim]],
                  topo: Topology) -> CablingIssue | None:
    """What the far end says about the same port, when it says something else or nothing."""
    if claim.origin != "lldp":
        return None
    far_node = topo.nodes.get(claim.far.device)
    if far_node is None or not far_node.has_lldp:
        return None  # the far end's own view is unknown: nothing to compare
    answers = by_port.get(_key(claim.far), [])
    if not answers:
        return CablingIssue(
            kind="one-sided", device=claim.near.device, interface=claim.near.interface,
            message=f"{claim.near.device} {claim.near.interface} sees {claim.far.device} "
            f"{claim.far.interface}, but {claim.far.device}'s LLDP table has no neighbour on "
            f"{claim.far.interface}", src=claim.src,
        )
    if any(_key(a.far) == _key(claim.near) for a in answers):
        return None
    other = answers[0].far
    return CablingIssue(
        kind="contradiction", device=claim.near.device, interface=claim.near.interface,
        message=f"{claim.near.device} {claim.near.interface} sees {claim.far.device} "
        f"{claim.far.interface}, but {claim.far.device} says {claim.far.interface} goes to "
        f"{other.device} {other.interface}", src=claim.src,
        related=[a.src for a in answers if a.src is not None],
    )


def _place(topo: Topology, claims: list[_Claim], policy: Policy,
           intended: dict[str, list[str]]) -> None:
    """Roles: the intent's and the policy's name patterns first, then the graph; names only
    break ties."""
    patterns = [(role, re.compile(p)) for roles in (intended, policy.topology.roles)
                for role, pats in roles.items() for p in pats]
    neighbours: dict[str, set[str]] = defaultdict(set)
    for cable in topo.cables:
        neighbours[cable.a.device].add(cable.b.device)
        neighbours[cable.b.device].add(cable.a.device)
    host_ports = defaultdict(int)
    for claim in claims:
        if _HOST_PORT.match(claim.far.interface):
            host_ports[claim.far.device] += 1
    for node in topo.nodes.values():
        for role, pattern in patterns:
            if pattern.search(node.name):
                node.role, node.role_from = role, "policy"  # type: ignore[assignment]
                break
        else:
            if not node.configured and not node.has_lldp and (
                host_ports[node.name] or _name_role(node.name) == "host"
            ):
                node.role = "host"
    undecided = [n for n in topo.nodes.values() if n.role == "unknown"]
    hosts = {n.name for n in topo.nodes.values() if n.role == "host"}
    for node in undecided:
        if neighbours[node.name] & hosts:
            node.role = "leaf"
    leaves = {n.name for n in topo.nodes.values() if n.role == "leaf"}
    for node in undecided:
        if node.role == "unknown" and neighbours[node.name] & leaves:
            node.role = "spine"
    spines = {n.name for n in topo.nodes.values() if n.role == "spine"}
    for node in undecided:
        if node.role == "unknown" and neighbours[node.name] & spines:
            node.role = "super-spine"
    for node in topo.nodes.values():
        if node.role == "unknown":
            guess = _name_role(node.name)
            node.role = guess or ("switch" if node.configured or node.has_lldp else "unknown")
            if guess:
                node.role_from = "name"
        node.tier = TIER.get(node.role)


def _name_role(name: str) -> Role | None:
    for pattern, role in _NAME_ROLE:
        if pattern.search(name):
            return role  # type: ignore[return-value]
    return None


def bisection(topo: Topology) -> Bisection | None:
    """Bisection bandwidth: exact for a uniform two-tier Clos, else a min-cut upper bound."""
    leaves = [n for n in topo.nodes.values() if n.role == "leaf"]
    if len(leaves) < 2:
        return None
    caps = {leaf.name: topo.capacities(leaf.name) for leaf in leaves}
    if any(unknown for _, _, unknown in caps.values()):
        return None
    host_total = sum(down for down, _, _ in caps.values())
    if host_total == 0:
        return None
    ideal = host_total // 2
    tiers = {n.role for n in topo.nodes.values() if n.role != "host"}
    uniform = len(set(caps.values())) == 1
    if tiers <= {"leaf", "spine"} and uniform and _full_mesh(topo):
        up_total = sum(up for _, up, _ in caps.values())
        return Bisection(
            mbps=min(host_total, up_total) // 2, ideal_mbps=ideal, method="clos", exact=True,
            why="two-tier Clos with identical leaves, each cabled to every spine: half the "
            "leaves send through their uplinks, so the cut is min(host, uplink capacity) / 2",
        )
    three = _three_tier(topo, caps)
    if three is not None:
        return Bisection(mbps=three, ideal_mbps=ideal, method="clos", exact=True,
                         why="three-tier Clos with identical leaves and identical spines, every "
                         "spine cabled to every super-spine: the cut is the thinnest tier, "
                         "min(host, leaf uplink, spine uplink capacity) / 2")
    return _min_cut(topo, ideal)


def _three_tier(topo: Topology, caps: dict[str, tuple[int, int, int]]) -> int | None:
    """min(host, leaf-up, spine-up capacity) / 2 for a symmetric three-tier Clos, else None.

    Symmetric: identical leaves, identical spines, cables only between adjacent tiers, every
    spine cabled to every super-spine and every leaf to the same number of spines. Any balanced
    cut then splits each tier's capacity in half, so the thinnest tier decides.
    """
    roles = {n.name: n.role for n in topo.nodes.values()}
    if set(roles.values()) - {"host"} != {"leaf", "spine", "super-spine"}:
        return None
    order = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}
    if any(abs(order[roles[c.a.device]] - order[roles[c.b.device]]) != 1 for c in topo.cables
           if roles.get(c.a.device) in order and roles.get(c.b.device) in order):
        return None
    if len(set(caps.values())) != 1:
        return None
    spines = [n for n, r in roles.items() if r == "spine"]
    supers = {n for n, r in roles.items() if r == "super-spine"}
    spine_caps = {topo.capacities(s) for s in spines}
    if len(spine_caps) != 1 or next(iter(spine_caps))[2]:
        return None
    for spine in spines:
        reached = {c.b.device if c.a.device == spine else c.a.device
                   for c in topo.cables_of(spine)}
        if not supers <= reached:
            return None
    host = sum(d for d, _, _ in caps.values())
    leaf_up = sum(u for _, u, _ in caps.values())
    spine_up = sum(topo.capacities(s)[1] for s in spines)
    return min(host, leaf_up, spine_up) // 2


def _full_mesh(topo: Topology) -> bool:
    spines = {n.name for n in topo.nodes.values() if n.role == "spine"}
    if not spines:
        return False
    for leaf in (n.name for n in topo.nodes.values() if n.role == "leaf"):
        reached = {c.b.device if c.a.device == leaf else c.a.device for c in topo.cables_of(leaf)}
        if not spines <= reached:
            return False
    return True


def _min_cut(topo: Topology, ideal: int) -> Bisection | None:
    import networkx as nx  # imported here: only topology runs pay for it
    from networkx.algorithms.community import kernighan_lin_bisection

    graph = nx.Graph()
    for cable in topo.cables:
        if cable.speed_mbps is None:
            continue
        u, v = cable.a.device, cable.b.device
        weight = graph[u][v]["weight"] + cable.speed_mbps if graph.has_edge(u, v) else \
            cable.speed_mbps
        graph.add_edge(u, v, weight=weight)
    hosts = [n.name for n in topo.nodes.values() if n.role == "host" and n.name in graph]
    if len(hosts) < 2 or not nx.is_connected(graph):
        return None
    best: int | None = None
    for seed in range(4):  # KL is a local search: a few seeds, keep the smallest cut found
        left, _right = kernighan_lin_bisection(graph, weight="weight", seed=seed)
        cut = int(nx.cut_size(graph, left, weight="weight"))
        best = cut if best is None else min(best, cut)
    assert best is not None
    return Bisection(
        mbps=best, ideal_mbps=ideal, method="min-cut", exact=False,
        why="not a uniform two-tier Clos: the smallest cut found by Kernighan-Lin bisection of "
        "the cabling graph (networkx); the true bisection can only be lower",
    )


def compare_intent(topo: Topology, intent: Intent, names: _Names) -> list[CablingIssue]:
    """Missing, extra and miswired cables against the intended cabling (like ``ibdiagnet -t``)."""
    observed: dict[tuple[str, str], Cable] = {}
    for cable in topo.cables:
        observed[_key(cable.a)] = cable
        observed[_key(cable.b)] = cable
    issues: list[CablingIssue] = []
    intended_keys: set[frozenset[tuple[str, str]]] = set()
    intended_devices: set[str] = set()
    for link in intent.links:
        claim = _claim(link, names)
        a, b = _key(claim.near), _key(claim.far)
        intended_keys.add(frozenset((a, b)))
        intended_devices |= {a[0], b[0]}
        topo.nodes.setdefault(a[0], TopologyNode(name=a[0]))
        topo.nodes.setdefault(b[0], TopologyNode(name=b[0]))
        present = observed.get(a)
        if present is not None and {_key(present.a), _key(present.b)} == {a, b}:
            continue
        wrong = [(end, observed[k]) for end, k in ((claim.near, a), (claim.far, b))
                 if k in observed]
        want = f"{claim.near.device} {claim.near.interface} - {claim.far.device} " \
            f"{claim.far.interface}"
        if wrong:
            end, cable = wrong[0]
            peer = cable.b if _key(cable.a) == _key(end) else cable.a
            issues.append(CablingIssue(
                kind="miswired", device=end.device, interface=end.interface, src=link.src,
                message=f"intended {want}, but {end.device} {end.interface} is cabled to "
                f"{peer.device} {peer.interface}", related=cable.sources,
            ))
        else:
            issues.append(CablingIssue(
                kind="missing", device=claim.near.device, interface=claim.near.interface,
                src=link.src, message=f"intended cable {want} is not in any input",
            ))
    if intent.links:
        for cable in topo.cables:
            key = frozenset((_key(cable.a), _key(cable.b)))
            if key in intended_keys or not {cable.a.device, cable.b.device} <= intended_devices:
                continue
            if any(i.kind == "miswired" and (i.device, i.interface) in
                   ((cable.a.device, cable.a.interface), (cable.b.device, cable.b.interface))
                   for i in issues):
                continue
            issues.append(CablingIssue(
                kind="extra", device=cable.a.device, interface=cable.a.interface,
                src=cable.sources[0] if cable.sources else None,
                message=f"cable {cable.a.device} {cable.a.interface} - {cable.b.device} "
                f"{cable.b.interface} is not in the intended topology",
            ))
    for rule, src in intent.mesh:
        issues += _mesh_issues(topo, rule.from_, rule.to, rule.links, rule.speed, src)
    return issues


def _mesh_issues(topo: Topology, from_: str, to: str, count: int, speed: int | None,
                 src: SourceRef) -> list[CablingIssue]:
    lower = sorted(n for n in topo.nodes if re.search(from_, n))
    upper = sorted(n for n in topo.nodes if re.search(to, n))
    issues = []
    for a in lower:
        for b in upper:
            if a == b:
                continue
            cables = [c for c in topo.cables_of(a) if b in (c.a.device, c.b.device)]
            if len(cables) != count:
                issues.append(CablingIssue(
                    kind="missing" if len(cables) < count else "extra", device=a, interface=b,
                    src=src, related=[s for c in cables for s in c.sources[:1]],
                    message=f"{a} has {len(cables)} cable(s) to {b}; the intent says {count}",
                ))
            slow = [c for c in cables if speed and c.speed_mbps and c.speed_mbps != speed]
            for cable in slow:
                end = cable.a if cable.a.device == a else cable.b
                issues.append(CablingIssue(
                    kind="wrong-speed", device=a, interface=end.interface, src=src,
                    related=cable.sources[:1],
                    message=f"{a} {end.interface} to {b} runs at {cable.speed_mbps // 1000}G; "
                    f"the intent says {speed // 1000}G",
                ))
    return issues
