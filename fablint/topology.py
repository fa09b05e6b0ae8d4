"""The cabling as a graph: links joined from both ends, roles and tiers, bisection bandwidth.

Links arrive one-sided ("leaf1 Et1 sees spine1 Ethernet3/1"). This module matches names across
vendors and spellings, joins both ends' claims into cables, notes claims that do not add up,
places every node in a tier and computes the fabric's bisection bandwidth. The result is part of
the model (``Fabric.topology``) so that rules read it like any other model data.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

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
    components,
    node_edited,
)
from fablint.policy import Policy
from fablint.trusted import Maker, bare, replaced

M = TypeVar("M")

TIER: dict[str, int] = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}
_endpoint = Maker(Endpoint)
_cable = Maker(Cable)
_node = Maker(TopologyNode)
_link = Maker(Link)
_port_end = Maker(PortEnd)


def _filled(maker: Maker[M]) -> Callable[[dict[str, Any]], M]:
    """``maker(values)`` for ``values`` that give every field, in the fields' order (the
    callers' dict literals; tests/test_topology.py compares both): the object without
    Maker's checks and merge, for the 200,000 end points, port ends and cables of a
    1,024-switch mixed fabric."""
    cls, every = maker.cls, maker.every

    def make(values: dict[str, Any]) -> M:
        return bare(cls, values, every)

    return make


_end = _filled(_endpoint)
_whole_port_end = _filled(_port_end)
_whole_cable = _filled(_cable)
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


_Claim = list[Any]
"""One end's word about a cable, as a list of plain values: ``[near device, near port, far
device, far port, near Endpoint or None, far Endpoint or None, src, origin, speed_mbps]``.
The names are the resolved ones (``_Names``); an Endpoint is the link's own when it names the
same end (a dump's 100,000 ends are right already), else None until a cable needs one
(``_end_of``). Plain values, because the claims go through five passes (strangers, nodes,
host ports, the join, its comparisons) and each read of a pydantic field costs ~700
instructions (no specialised attribute read on a class with ``__getattr__``)."""


def _near_end(claim: _Claim) -> Endpoint:
    """The claim's near end as an Endpoint (the link's own when it has one)."""
    end = claim[4]
    return end if end is not None else _end({"device": claim[0], "interface": claim[1]})


def _far_end(claim: _Claim) -> Endpoint:
    """The claim's far end as an Endpoint (the link's own when it has one)."""
    end = claim[5]
    return end if end is not None else _end({"device": claim[2], "interface": claim[3]})


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
    alias: str | None = None
    """Another name the device gives the port (SONiC ``PORT.alias``, what its LLDP sends)."""

    def end(self, name: str, neighbors: dict[tuple[str, str], Endpoint] | None = None,
            ) -> PortEnd:
        """The PortEnd validation would make (the row's values have their fields' types
        already): a fabric of 1,024 SONiC switches makes 57,000 of them. ``neighbors``: the
        Endpoints made already by the neighbour they name, shared (an Endpoint is frozen:
        1,024 templated ToRs name the same 28 neighbours)."""
        neighbor = self.neighbor
        if not neighbor:
            peer = None
        elif neighbors is None:
            peer = _end({"device": neighbor[0], "interface": neighbor[1]})
        else:
            peer = neighbors.get(neighbor)
            if peer is None:
                peer = neighbors[neighbor] = _end({"device": neighbor[0],
                                                   "interface": neighbor[1]})
        return _whole_port_end({
            "interface": name, "speed_mbps": self.speed_mbps, "mtu": self.mtu,
            "admin_up": self.admin_up, "routed": self.routed, "pfc": list(self.pfc),
            "trust": self.trust, "src": self.src, "neighbor": peer,
            "neighbor_src": self.neighbor_src,
        })


PortTable = dict[str, PortRow]
"""A configured device's ports by name: what the topology needs of a device model."""


def port_table(device: Device) -> PortTable:
    """The few facts per port that cabling checks compare across a cable (small to ship)."""
    table: PortTable = {}
    interfaces = device.interfaces
    new = tuple.__new__  # a row without PortRow's Python __new__ (every port of every device)
    for name, iface in interfaces.items():
        # The fields from each object's __dict__: a model's attribute read goes through
        # pydantic's __getattr__ hook (no specialised read, ~800 instructions each).
        port = iface.__dict__
        if port["kind"] not in ("physical", "port-channel"):
            continue
        owner = interfaces.get(port["port_channel"]) if port["port_channel"] else None
        mtu = port["mtu"]
        if mtu is None and owner is not None:
            mtu = owner.mtu
        qos = port["qos"].__dict__
        pfc = qos["pfc"].__dict__
        trust = qos["trust"]
        peer = port["neighbor"]
        table[name] = new(PortRow, (
            port["speed_mbps"], mtu, port["admin_up"],
            port["routed"] or bool(owner and owner.routed),
            tuple(sorted(pfc["no_drop"])) if pfc["enabled"] else (),  # Pfc.active_priorities
            str(trust) if trust is not None else None, port["src"],
            (peer.device, peer.interface) if peer else None,
            port["field_src"].get("neighbor") if peer else None, port["alias"],
        ))
    return table


@dataclass
class _Names:
    """Resolves device and port names as other devices spell them to the names fablint uses."""

    devices: dict[str, PortTable]
    owners: set[str]
    _lower: dict[str, str] = field(default_factory=dict)
    _short: dict[str, str] = field(default_factory=dict)
    _ports: dict[str, dict[str, str]] = field(default_factory=dict)
    _seen: dict[str, str] = field(default_factory=dict)
    """Answers of ``device`` and of ``port`` for unconfigured devices (``\0`` + port),
    given again: a dump names 20,000 nodes 100,000 times, with a few dozen port names."""
    _keys: dict[str, str] = field(default_factory=dict)
    """``port_key`` of each port name asked about (the same few dozen on every device)."""

    def __post_init__(self) -> None:
        for name in [*self.devices, *sorted(self.owners)]:
            self._lower.setdefault(name.lower(), name)
            self._short.setdefault(name.split(".")[0].lower(), name)

    def device(self, name: str) -> str:
        known = self._seen.get(name)
        if known is None:
            lower = name.lower()
            known = self._seen[name] = self._lower[lower] if lower in self._lower else \
                self._short.get(lower.split(".")[0], name)
        return known

    def port(self, device: str, name: str) -> str:
        config = self.devices.get(device)
        if config is None:  # one spelling per port whichever end spoke first; NICs keep theirs
            known = self._seen.get("\0" + name)
            if known is None:
                known = self._seen["\0" + name] = name if _HOST_PORT.match(name) else \
                    canonical(name)
            return known
        ports = self._ports.get(device)
        if ports is None:
            ports = self.port_map(device)
        key = self._keys.get(name)
        if key is None:
            key = self._keys[name] = port_key(name)
        return ports.get(key, name)

    def port_map(self, device: str) -> dict[str, str]:
        """``port_key`` of each name and alias of a configured device's ports -> the port's
        name (empty for a device whose configuration was not read)."""
        ports = self._ports.get(device)
        if ports is None:
            config = self.devices.get(device)
            if config is None:
                return {}
            keys = self._keys
            key = keys.get
            # a SONiC port's alias (what its LLDP sends) names the same port
            ports = {key(r.alias) or keys.setdefault(r.alias, port_key(r.alias)): n
                     for n, r in config.items() if r.alias}
            for n in config:  # a real name wins over an alias
                ports[key(n) or keys.setdefault(n, port_key(n))] = n
            self._ports[device] = ports
        return ports


class IbName(NamedTuple):
    """What the topology needs of an IB node: is it a host, how people call it, and what
    groups it with other chips (a director's chips share one system image GUID)."""

    host: bool
    description: str | None
    system_guid: int | None = None
    device_id: int | None = None
    router: bool = False
    """An IB router (``Rt``): the gateway to another subnet, an end of this fabric like a
    service host, neither a compute host nor a switch of its tiers."""


AGGREGATION_NODE = "mellanox technologies aggregation node"
"""The NodeDescription of a SHARP Aggregation Node (a virtual CA inside a Quantum switch),
compared in lower case with spaces squeezed: only this exact string, not every factory
description that says "Mellanox"."""

_IB_HCA = re.compile(
    r"^(?P<host>[\w.-]+)[ :/]+(?P<nic>(?:mlx\d+_|HCA-?|ib|hfi\d*_)\d+|ibp\w+|ibo\d+)\b", re.I)
"""A channel adapter described as ``gpu01 mlx5_3`` (the usual NodeDescription, ``%h %d``),
``node002 HCA-1`` or ``gpu-n01 ibp11s0f0``."""
_MF0 = re.compile(r"^MF0;(?P<name>[^:;]+):(?P<model>[^/]+)(?:/(?P<chip>\S+))?$")
"""A managed switch's description: ``MF0;leaf07:MQM9700/U1``, a director chip
``MF0;dir1:MCS8500/L05/U1`` (line chip) or ``.../S03/U1`` (internal spine chip)."""
_DIRECTOR_CHIP = re.compile(r"^[LS]\d+/U\d+$", re.I)
_FACTORY = re.compile(r"(?:Mellanox|NVIDIA) +Technologies *$|^MT\d{4} ", re.I)
"""Descriptions nobody set (``Quantum-2 Mellanox Technologies``, ``MT4129 ConnectX7 ...``):
many nodes share them, so such a node is named by its GUID."""


def ib_names(nodes: list[IbNode]) -> dict[str, IbName]:
    # (``IbName(...)`` of each node's values, without NamedTuple's Python ``__new__`` or five
    # attribute reads a node: 38,000 nodes of a 2,000-switch dump)
    make = tuple.__new__
    return {d["key"]: make(IbName, (d["type"] == "ca", d["description"], d["system_guid"],
                                     d["device_id"], d["type"] == "router"))
            for d in (n.__dict__ for n in nodes)}


def _squeeze(text: str | None) -> str:
    return " ".join((text or "").split()).lower()


@dataclass
class IbView:
    """An IB dump's links as the topology sees them: nodes named, SHARP Aggregation Nodes and
    the chip-to-chip links inside director chassis set apart."""

    links: list[Link]
    hosts: set[str] = field(default_factory=set)
    """Names of channel adapters (hosts), whatever their description says."""
    switches: set[str] = field(default_factory=set)
    routers: set[str] = field(default_factory=set)
    """Names of IB routers: placed as service hosts (in ``hosts`` too), so that a router
    cabled to a leaf is neither a spine nor an uplink of that leaf."""
    aggregation: dict[str, set[str]] = field(default_factory=dict)
    """Switch name -> the Aggregation Nodes cabled to it (by IB key)."""
    internal: list[Link] = field(default_factory=list)
    chassis: dict[str, int] = field(default_factory=dict)
    """Director chassis name -> number of chips folded into it."""


def _chassis(names: dict[str, IbName]) -> dict[str, tuple[str, str]]:
    """IB key -> (chassis name, chip label) for the chips of director chassis: switches that
    share a system image GUID, or whose ``MF0;name:MCS8500/L05/U1`` descriptions name one
    chassis with several chips."""
    by_system: dict[int, list[str]] = defaultdict(list)
    by_mf0: dict[str, list[str]] = defaultdict(list)
    for key, name in names.items():
        if name.host:
            continue
        if name.system_guid is not None:
            by_system[name.system_guid].append(key)
        mf0 = _MF0.match((name.description or "").strip())
        if mf0 and mf0.group("chip") and _DIRECTOR_CHIP.match(mf0.group("chip")):
            by_mf0[mf0.group("name")].append(key)
    groups = [keys for keys in by_system.values() if len(keys) > 1]
    grouped = {k for keys in groups for k in keys}
    groups += [[k for k in keys if k not in grouped] for keys in by_mf0.values()
               if len([k for k in keys if k not in grouped]) > 1]
    out: dict[str, tuple[str, str]] = {}
    for keys in groups:
        mf0s = [_MF0.match((names[k].description or "").strip()) for k in keys]
        titles = {m.group("name") for m in mf0s if m}
        system = names[keys[0]].system_guid
        title = next(iter(titles)) if len(titles) == 1 else (
            f"chassis 0x{system:016x}" if system is not None else f"chassis {min(keys)}")
        for key, mf0 in zip(keys, mf0s, strict=True):
            out[key] = (title, mf0.group("chip") if mf0 and mf0.group("chip") else key)
    return out


def ib_view(links: list[Link], names: dict[str, IbName]) -> IbView:
    """IB links name nodes by GUID: hosts become ``gpu01`` with NIC ``mlx5_3`` (rail checks
    and roles then work as for Ethernet), switches their host name (``MF0;leaf07:...`` ->
    ``leaf07``) or description when it is unique and not a factory default, else their GUID;
    the chips of a director become one chassis node whose ports are ``L05/U1/12``."""
    view = IbView(links=[])
    view.links = [replaced(link, {"a": a, "b": b}) for link, a, b in _ib_ends(links, names, view)]
    return view


_Ends = Iterable[tuple[Link, Endpoint, Endpoint]]


def _ib_ends(links: list[Link], names: dict[str, IbName], view: IbView) -> _Ends:
    """``ib_view`` one link at a time: each fabric link with its ends renamed (``a``, ``b``),
    while the Aggregation Nodes, the chassis and their internal links go into ``view``."""
    ends = _IbNamer(names, view).ends
    for link in links:
        renamed = ends(link)
        if renamed is not None:
            yield link, renamed[0], renamed[1]


_Plan = tuple[str, str | None, str | None]
"""How the ends of an IB node are named: (device, NIC, chip)."""


class _IbNamer:
    """Names the ends of IB links (``ib_view``), each node's plan made once."""

    def __init__(self, names: dict[str, IbName], view: IbView) -> None:
        self.names = names
        self.view = view
        self.counts: dict[str, int] = defaultdict(int)
        for name in names.values():
            if name.description:
                self.counts[name.description] += 1
        self.chassis = _chassis(names)
        for title, _chip in self.chassis.values():
            view.chassis[title] = view.chassis.get(title, 0) + 1
        self.aggregation = {key for key, name in names.items()
                            if name.host and _squeeze(name.description) == AGGREGATION_NODE}
        self.plans: dict[str, _Plan | None] = {}

    def plan(self, key: str) -> _Plan | None:
        """How the ends of node ``key`` are named; None: as they are."""
        name = self.names[key]
        view = self.view
        if key in self.chassis:
            title, chip = self.chassis[key]
            out: _Plan | None = (title, None, chip)
        else:
            desc = (name.description or "").strip()
            mf0 = _MF0.match(desc) if not name.host else None
            hca = _IB_HCA.match(desc) if name.host else None
            if hca:
                out = (hca.group("host"), hca.group("nic"), None)
            elif mf0:
                out = (mf0.group("name"), None, None)
            elif desc and self.counts[name.description or ""] == 1 and not _FACTORY.search(desc):
                out = (desc, None, None)
            else:
                out = None
        (view.hosts if name.host or name.router else view.switches).add(out[0] if out else key)
        if name.router:
            view.routers.add(out[0] if out else key)
        return out

    def rename(self, end: Endpoint) -> Endpoint:
        key = end.device
        plans = self.plans
        if key in plans:
            how = plans[key]
        elif key in self.names:
            how = plans[key] = self.plan(key)
        else:
            return end
        if how is None:
            return end
        device, nic, chip = how
        return _end({"device": device, "interface": nic if nic is not None else
                     f"{chip}/{end.interface}" if chip is not None else end.interface})

    def ends(self, link: Link) -> tuple[Endpoint, Endpoint] | None:
        """``link``'s ends renamed; None for a link to an Aggregation Node or inside a
        chassis, which go into the view instead."""
        a, b = link.a, link.b
        names = self.names
        if a.device not in names and b.device not in names:  # (a mixed fabric's LLDP links)
            return a, b
        aggregation = self.aggregation
        a_an, b_an = a.device in aggregation, b.device in aggregation
        if a_an or b_an:
            if not (a_an and b_an):
                switch = self.rename(b if a_an else a)
                self.view.aggregation.setdefault(switch.device, set()).add(
                    a.device if a_an else b.device)
            return None
        plans = self.plans
        how = plans.get(a.device, _UNPLANNED)
        if how is not None:  # (most switches of a dump keep their GUID names: no call)
            a = self.rename(a)
        how = plans.get(b.device, _UNPLANNED)
        if how is not None:
            b = self.rename(b)
        chassis = self.chassis
        if chassis and link.a.device in chassis and link.b.device in chassis and \
                a.device == b.device:
            self.view.internal.append(replaced(link, {"a": a, "b": b}))
            return None
        return a, b


_UNPLANNED: _Plan = ("", None, None)
"""``_IbNamer.plans.get`` default: a node not planned yet."""


def ib_link_names(links: list[Link], nodes: list[IbNode]) -> list[Link]:
    """``links`` of an IB dump with its nodes named as the topology names them."""
    return ib_view(links, ib_names(nodes)).links


def build_topology(links: list[Link], ports: dict[str, PortTable], policy: Policy,
                   intent: Intent | None = None,
                   ib: dict[str, IbName] | None = None) -> Topology:
    """Join ``links`` into cables and place every node in a tier.

    ``ports`` holds the port table of every device whose configuration was read; ``intent``,
    when given, is compared with what the links show; ``ib`` names the nodes of IB dumps.
    Management ports' neighbours, SHARP Aggregation Nodes and the links inside director
    chassis are set apart first: they are not the fabric.
    """
    view = IbView(links=[])
    dump_only = _dump_only(links, ports)
    if dump_only:
        # IB dumps alone: every name is the dump's own, and no claim is one-sided
        owners: set[str] = set()
        names = _Names(ports, owners)
        found: dict[str, TopologyNode] = {}
        cables, host_ports, dropped, adjacent, index, pairs = _dump_cables(
            links, _IbNamer(ib, view) if ib else None, found, policy)
        topo = Topology(management_links=dropped)
        topo.nodes.update(found)
        topo.cables, topo.issues = cables, []
        topo.found_adjacency(adjacent)
        topo.found_index(index)
        topo.found_pairs(pairs)
    else:
        # (the IB ends are named on the claims' one read of each link)
        claims, dropped, owners, names = _claims(links, ports, policy,
                                                 _IbNamer(ib, view) if ib else None)
        topo = Topology(management_links=dropped)
        for name in ports:
            topo.nodes[name] = TopologyNode(name=name, configured=True)
        nodes = topo.nodes
        new_node = _new_node
        for claim in claims:
            device = claim[0]
            if device not in nodes:
                nodes[device] = new_node(device)
            device = claim[2]
            if device not in nodes:
                nodes[device] = new_node(device)
        host_ports = _host_ports(claims)
    for owner in owners:
        topo.nodes[names.device(owner)].has_lldp = True
    for switch, nodes in view.aggregation.items():
        node = topo.nodes.setdefault(switch, TopologyNode(name=switch))
        node.aggregation_nodes = len(nodes)
        topo.aggregation_nodes += len(nodes)
    for title, chips in view.chassis.items():
        topo.nodes.setdefault(title, TopologyNode(name=title)).chips = chips
    topo.internal = _internal(view.internal)
    if not dump_only:
        topo.cables, topo.issues, (adjacent, index, pairs) = _join(claims, topo, ports)
        topo.found_adjacency(adjacent)
        topo.found_index(index)
        topo.found_pairs(pairs)
    _place(topo, host_ports, policy, intent.roles if intent else {}, view)
    if intent is not None:
        topo.issues += compare_intent(topo, intent, names)
    topo.bisection = bisection(topo)
    return topo


_MANAGEMENT = re.compile(
    r"^(?:ma(?:nagement)?\d+(?:/\d+)*|mgmt\d*(?:/\d+)*|me0|fxp0|em0)$", re.I)
"""Out-of-band ports by vendor: EOS ``Management1`` / ``Ma1`` (``Management1/1`` on modular
systems), NX-OS ``mgmt0``, Junos ``fxp0`` / ``em0`` / ``me0``. A switch's ``eth0`` (SONiC,
Cumulus) is one too, but a host's ``eth0`` is a data port: see ``_without_management``."""
_SWITCH_PORT = re.compile(r"^(?:Ethernet|Eth|Et|swp|[FTH]\w*GigE)\d", re.I)


def _claims(links: list[Link], ports: dict[str, PortTable], policy: Policy,
            namer: _IbNamer | None = None) -> tuple[list[_Claim], int, set[str], _Names]:
    """The claims of ``links`` and of the cables the configurations declare (SONiC
    DEVICE_NEIGHBOR, taken from the port tables directly: no Link is made for them), without
    those on management ports (``_without_management``), with every name resolved
    (``_Names``) and the placeholder names of cloned devices made distinct
    (``_distinct_strangers``). Returns the claims, how many were left out as management, the
    LLDP owners and the names. ``namer`` names the ends of IB links (``_IbNamer``)."""
    values, out_of_band = _without_management(links, ports, policy, namer)
    verdicts, verdict, switches = out_of_band.ports, out_of_band.port, out_of_band.switches
    kept: list[_LinkValues] = []
    owners: set[str] = set()
    for value in values:  # (``out_of_band``, inline: 60,000 links of a mixed fabric)
        near_management, near_eth0 = verdicts.get(value[3]) or verdict(value[3])
        far_management, far_eth0 = verdicts.get(value[5]) or verdict(value[5])
        if near_management or far_management or (near_eth0 and value[2] in switches) \
                or (far_eth0 and value[4] in switches):
            continue
        kept.append(value)
        if value[6] == "lldp":
            owners.add(value[2])
    dropped = len(values) - len(kept)
    names = _Names(ports, owners)
    claims = _link_claims(kept, names)
    made, declared = _row_claims(ports, names, out_of_band)
    dropped += declared - len(made)
    claims += made
    return _distinct_strangers(claims, ports, owners), dropped, owners, names


def _row_claims(ports: dict[str, PortTable], names: _Names,
                out_of_band: _OutOfBand) -> tuple[list[_Claim], int]:
    """The claims of the port rows that name a neighbour, as ``_claim`` makes those of
    links, without the out-of-band ones, and how many rows name one. Each device's names are
    resolved once (28,000 rows of 1,024 templated SONiC ToRs)."""
    device, port, port_map = names.device, names.port, names.port_map
    keys, seen, configured = names._keys, names._seen, names.devices
    verdicts, verdict, switches = out_of_band.ports, out_of_band.port, out_of_band.switches
    strangers: dict[str, str] = {}  # ``port`` of a device not configured, by port name
    out: list[_Claim] = []
    declared = 0
    for config_device, table in ports.items():
        near = ""
        local: dict[str, str] = {}
        for near_port, row in table.items():
            neighbor = row[7]  # (PortRow.neighbor)
            if not neighbor:
                continue
            declared += 1
            far, far_port = neighbor
            # (``out_of_band``, inline: the configured device is a switch)
            near_management, near_eth0 = verdicts.get(near_port) or verdict(near_port)
            far_management, far_eth0 = verdicts.get(far_port) or verdict(far_port)
            if near_management or far_management or near_eth0 or (far_eth0 and far in switches):
                continue
            if not near:
                near = device(config_device)  # a configured device: ``port`` reads its map
                local = port_map(near)
            key = keys.get(near_port)
            if key is None:
                key = keys[near_port] = port_key(near_port)
            far = seen.get(far) or device(far)
            if far in configured:
                far_port = port(far, far_port)
            else:
                known = strangers.get(far_port)
                if known is None:
                    known = strangers[far_port] = port(far, far_port)
                far_port = known
            out.append([near, local.get(key, near_port), far, far_port, None, None, row[8],
                        "config", None])  # (row[8]: PortRow.neighbor_src)
    return out, declared


_LinkValues = tuple[Endpoint, Endpoint, str, str, str, str, str, "SourceRef | None",
                    "int | None", "str | None"]
"""What the claims read of a link: its ends, their device and port names, its origin, src,
speed and remote description (each read once: ``_without_management``)."""


def _without_management(links: list[Link], ports: dict[str, PortTable], policy: Policy,
                        namer: _IbNamer | None = None,
                        ) -> tuple[list[_LinkValues], _OutOfBand]:
    """What the claims read of each link (``_LinkValues``; with ``namer``, the ends of IB
    links named by ``namer.ends``, without a renamed copy of each link; a link that names no
    IB node is not asked about, and those it sets apart are left out), and whether a cable
    (near device and port, far device and port) is out-of-band: left out.

    A cable is out-of-band when either end's port is a management port by its vendor's name or
    by the profile's ``topology.management_ports``; ``eth0`` only on the near end, and only
    when that device is a switch (its configuration was read, or its own LLDP table shows
    switch ports), since ``eth0`` of a server is a data port."""
    switch_port: dict[str, bool] = {}  # (a few dozen port names on 60,000 LLDP links)
    switches = set(ports)
    values: list[_LinkValues] = []
    append = values.append
    ib_keys: Container[str] = namer.names if namer is not None else ()
    for link in links:
        # (the fields from each object's __dict__: a model's attribute read costs ~700
        # instructions, a dict's item a few dozen)
        fields = link.__dict__
        a, b = fields["a"], fields["b"]
        a_fields, b_fields = a.__dict__, b.__dict__
        if ib_keys and (a_fields["device"] in ib_keys or b_fields["device"] in ib_keys):
            assert namer is not None
            renamed = namer.ends(link)
            if renamed is None:
                continue  # (to an Aggregation Node or inside a chassis: in the view)
            a, b = renamed
            a_fields, b_fields = a.__dict__, b.__dict__
        origin, a_device, port = fields["origin"], a_fields["device"], a_fields["interface"]
        if origin == "lldp":
            known = switch_port.get(port)
            if known is None:
                known = switch_port[port] = bool(_SWITCH_PORT.match(port))
            if known:
                switches.add(a_device)
        append((a, b, a_device, port, b_fields["device"], b_fields["interface"], origin,
                fields["src"], fields["speed_mbps"], fields["remote_description"]))
    return values, _OutOfBand([re.compile(p, re.I) for p in policy.topology.management_ports],
                              switches)


class _OutOfBand:
    """``_without_management``'s answer: called with a cable's near device and port, far
    device and port."""

    def __init__(self, extra: list[re.Pattern[str]], switches: set[str]) -> None:
        self.extra = extra
        self.switches = switches
        self.ports: dict[str, tuple[bool, bool]] = {}
        """Port name -> (a management port, ``eth0``): a dump's 100,000 ends have a few
        dozen port names."""

    def port(self, name: str) -> tuple[bool, bool]:
        verdict = self.ports.get(name)
        if verdict is None:
            verdict = self.ports[name] = (
                bool(_MANAGEMENT.match(name)) or any(p.search(name) for p in self.extra),
                name.lower() == "eth0")
        return verdict

    def __call__(self, near: str, near_port: str, far: str, far_port: str) -> bool:
        known = self.ports
        near_management, near_eth0 = known.get(near_port) or self.port(near_port)
        far_management, far_eth0 = known.get(far_port) or self.port(far_port)
        return (near_management or far_management or (near_eth0 and near in self.switches)
                or (far_eth0 and far in self.switches))


def _distinct_strangers(claims: list[_Claim], ports: dict[str, PortTable],
                        owners: set[str]) -> list[_Claim]:
    """Claims with one name for several devices made distinct.

    A device seen only as a neighbour (no configuration, no LLDP table of its own) is one
    device per name. But when two devices claim mostly the same ports of the same neighbour
    names (every templated SONiC ToR has ``Servers0 eth0`` ... and ``ARISTA01T1 Ethernet1``),
    these are different devices that share placeholder names, not one fabric: one port holds
    one cable. Each name they share is then qualified by who sees it (``Servers0@tor1``), so
    that unrelated devices are not merged through a neighbour's name. A single port claimed
    twice is a cabling disagreement, not a reason to split."""
    # (the device seeing each stranger's port: one name, a set only once a second one sees it)
    first: dict[tuple[str, str], str | set[str]] = {}
    folded: dict[str, str] = {}  # port_key of each port name (a few dozen)
    several = False
    for claim in claims:
        far = claim[2]
        if claim[7] in ("lldp", "config") and far not in ports and far not in owners:
            far_port = claim[3]
            key = folded.get(far_port)
            if key is None:
                key = folded[far_port] = port_key(far_port)
            near = claim[0]
            seeing = first.setdefault((far, key), near)
            if seeing is near:
                continue
            if isinstance(seeing, set):
                seeing.add(near)
            elif seeing != near:
                first[far, key] = {seeing, near}
                several = True
    if not several:
        return claims  # each port of each stranger seen by one device: nothing to split
    seen = {far: nears if isinstance(nears, set) else {nears} for far, nears in first.items()}
    keys: dict[str, int] = defaultdict(int)
    for nears in seen.values():
        for near in nears:
            keys[near] += 1
    overlap: dict[tuple[str, str], int] = defaultdict(int)
    for nears in seen.values():
        if 1 < len(nears) <= 8:
            ordered = sorted(nears)
            for i, a in enumerate(ordered):
                for b in ordered[i + 1:]:
                    overlap[a, b] += 1
    clones = {pair for pair, count in overlap.items()
              if count > 1 and count * 2 > min(keys[pair[0]], keys[pair[1]])}
    if not clones:
        return claims
    cloned = {d for pair in clones for d in pair}
    shared = {far[0] for far, nears in seen.items() if len(nears & cloned) > 1}
    for c in claims:  # (the claims are this run's own: renamed in place)
        if c[2] in shared and c[7] in ("lldp", "config"):
            c[2] = f"{c[2]}@{c[0]}"
            c[5] = None  # (the far end is no longer the link's)
    return claims


def _internal(links: list[Link]) -> list[Cable]:
    """The chip-to-chip links inside director chassis, one per pair of ports."""
    cables: dict[frozenset[tuple[str, str]], Cable] = {}
    for link in links:
        key = frozenset((_key(link.a), _key(link.b)))
        cable = cables.setdefault(key, Cable(a=link.a, b=link.b, origin=link.origin,
                                             speed_mbps=link.speed_mbps, confirmed=True))
        if link.src is not None:
            cable.sources.append(link.src)
    return list(cables.values())


def declares_cables(ports: dict[str, PortTable]) -> bool:
    """Whether any device's configuration names a neighbour (a cable ``_claims`` takes)."""
    return any(row.neighbor for table in ports.values() for row in table.values())


def _claim(link: Link, names: _Names) -> _Claim:
    near_dev = names.device(link.a.device)
    far_dev = names.device(link.b.device)
    far_port = link.b.interface
    if link.remote_description and _MAC.match(far_port):
        far_port = link.remote_description  # hosts answer with a MAC; the NIC name is in the
        # port description (eth3, mlx5_3), which is what rail checks need
    near_port, far_port = names.port(near_dev, link.a.interface), names.port(far_dev, far_port)
    a, b = link.a, link.b  # unchanged ends are kept (a dump's 100,000 ends are already right)
    return [near_dev, near_port, far_dev, far_port,
            a if a.device == near_dev and a.interface == near_port else None,
            b if b.device == far_dev and b.interface == far_port else None,
            link.src, link.origin, link.speed_mbps]


def _link_claims(links: list[_LinkValues], names: _Names) -> list[_Claim]:
    """``_claim`` of each link (its values, ``_LinkValues``) with the names' look-ups inline:
    each device's port names resolved once (60,000 LLDP and IB links of a mixed fabric)."""
    seen = names._seen
    device = names.device
    port = names.port
    configured = names.devices
    port_map = names.port_map
    keys = names._keys
    maps = names._ports
    mac = _MAC.match
    out: list[_Claim] = []
    append = out.append
    for a, b, a_dev, a_port, b_dev, b_port, origin, src, speed, remote in links:
        near_dev = seen.get(a_dev) or device(a_dev)
        far_dev = seen.get(b_dev) or device(b_dev)
        near_port, far_port = a_port, b_port
        if remote and mac(far_port):
            far_port = remote  # (as ``_claim``)
        if near_dev in configured:  # (``names.port``)
            key = keys.get(near_port)
            if key is None:
                key = keys[near_port] = port_key(near_port)
            near_port = (maps.get(near_dev) or port_map(near_dev)).get(key, near_port)
        else:
            near_port = port(near_dev, near_port)
        if far_dev in configured:
            key = keys.get(far_port)
            if key is None:
                key = keys[far_port] = port_key(far_port)
            far_port = (maps.get(far_dev) or port_map(far_dev)).get(key, far_port)
        else:
            far_port = port(far_dev, far_port)
        append([near_dev, near_port, far_dev, far_port,
                a if a_dev == near_dev and a_port == near_port else None,
                b if b_dev == far_dev and b_port == far_port else None,
                src, origin, speed])
    return out


def _key(end: Endpoint) -> tuple[str, str]:
    return (end.device, port_key(end.interface))


_Views = tuple[dict[str, set[str]], dict[str, list[Cable]], list[tuple[str, str]]]
"""The cables' adjacency, index by node and device pairs, made while joining them
(``Topology.found_adjacency``, ``found_index``, ``found_pairs``)."""


def _join(claims: list[_Claim], topo: Topology, ports: dict[str, PortTable],
          ) -> tuple[list[Cable], list[CablingIssue], _Views]:
    keys: dict[str, str] = {}  # port_key of each port name (a dump has a few dozen)
    # every claim by its near end, when there are LLDP claims to compare with them
    by_port: dict[tuple[str, str], list[tuple[_Claim, tuple[str, str]]]] = defaultdict(list)
    compared = any(claim[7] == "lldp" for claim in claims)
    # each claim's (near, far) key, all before the first comparison
    ends: list[tuple[tuple[str, str], tuple[str, str]]] = []
    for claim in claims:
        near_port, far_port = claim[1], claim[3]  # (each end as ``_key`` gives it)
        near_key = keys.get(near_port)
        if near_key is None:
            near_key = keys[near_port] = port_key(near_port)
        far_key = keys.get(far_port)
        if far_key is None:
            far_key = keys[far_port] = port_key(far_port)
        near_end = (claim[0], near_key)
        far_end = (claim[2], far_key)
        ends.append((near_end, far_end))
        if compared:
            by_port[near_end].append((claim, far_end))
    speaking = {name for name, node in topo.nodes.items() if node.has_lldp}
    """Devices whose own LLDP table was read: only their silence means something."""
    # A cable is keyed by its two ends' keys in sorted order (as a frozenset of them would
    # be, for less); each cable's first claim gives its ``a`` end.
    cables: dict[tuple[tuple[str, str], tuple[str, str]], Cable] = {}
    first: dict[tuple[tuple[str, str], tuple[str, str]], tuple[str, str]] = {}
    issues: list[CablingIssue] = []
    table_of = ports.get
    adjacent: dict[str, set[str]] = {}
    index: dict[str, list[Cable]] = {}
    pairs: list[tuple[str, str]] = []
    make_cable = _whole_cable
    # The Endpoints made here by their names, shared (an Endpoint is frozen): a port's
    # configured neighbour (``PortRow.end``) is most often the cable's far end itself.
    neighbors: dict[tuple[str, str], Endpoint] = {}
    for number, claim in enumerate(claims):
        a_dev, a_name, b_dev, b_name, a, b, src, origin, claimed = claim
        near, far = ends[number]
        if near[0] == far[0] and origin == "lldp":
            # (IB dumps: a switch cabled to itself stays a cable; IB009 reports it in IB terms)
            issues.append(CablingIssue(
                kind="self-loop", device=a_dev, interface=a_name,
                message=f"{a_dev} {a_name} is cabled to its own port {b_name}", src=src,
            ))
            continue
        pair = (near, far) if near <= far else (far, near)
        cable = cables.get(pair)
        if cable is None:
            if a is None:
                a = neighbors.get((a_dev, a_name))
                if a is None:
                    a = neighbors[a_dev, a_name] = _end({"device": a_dev, "interface": a_name})
            if b is None:
                b = neighbors.get((b_dev, b_name))
                if b is None:
                    b = neighbors[b_dev, b_name] = _end({"device": b_dev, "interface": b_name})
            table = table_of(a_dev)
            a_row = table.get(a_name) if table else None
            a_port = a_row.end(a_name, neighbors) if a_row else None
            table = table_of(b_dev)
            b_row = table.get(b_name) if table else None
            b_port = b_row.end(b_name, neighbors) if b_row else None
            speed = None  # the slowest speed any of them gives (None: none does)
            # (the ports' speeds from their rows: PortRow.speed_mbps)
            for given in (a_row and a_row[0], b_row and b_row[0], claimed):
                if given and (speed is None or given < speed):
                    speed = given
            cable = cables[pair] = make_cable({  # (its parts are models already)
                "a": a, "b": b, "a_port": a_port, "b_port": b_port, "speed_mbps": speed,
                # a dump of the subnet (IB) sees both ends of each link at once
                "confirmed": origin not in ("lldp", "config"), "sources": [],
                "origin": origin})
            first[pair] = near
            _record(cable, a_dev, b_dev, adjacent, pairs, index)
        elif first[pair] == far:
            # (as ``cable.confirmed = True`` does: Cable validates no assignment, and the
            # cable's fields set names every field already)
            cable.__dict__["confirmed"] = True
        if src is not None:
            cable.sources.append(src)
        if origin == "lldp" and far[0] in speaking:
            answers = by_port.get(far)  # (``_disagreement``'s test, inline for the usual yes)
            if answers:
                for answer in answers:
                    if answer[1] == near:
                        break
                else:
                    answers = None
            if not answers:
                issue = _disagreement(claim, near, far, by_port)
                if issue is not None:
                    issues.append(issue)
    return list(cables.values()), issues, (adjacent, index, pairs)


def _dump_only(links: list[Link], ports: dict[str, PortTable]) -> bool:
    """Only discovery dumps gave cables: ``_dump_cables`` makes them in one pass."""
    return not ports and not any(link.origin in ("lldp", "config") for link in links)


def _record(cable: Cable, a: str, b: str, adjacent: dict[str, set[str]],
            pairs: list[tuple[str, str]], index: dict[str, list[Cable]]) -> None:
    """Note a new cable between devices ``a`` and ``b`` in the views its builder hands the
    topology: the adjacency (as ``Topology._adjacency`` makes it), the device pairs and the
    cables of each device (as ``Topology.cables_of`` indexes them)."""
    if a in adjacent:
        adjacent[a].add(b)
    else:
        adjacent[a] = {b}
    if b in adjacent:
        adjacent[b].add(a)
    else:
        adjacent[b] = {a}
    pairs.append((a, b))
    if a in index:
        index[a].append(cable)
    else:
        index[a] = [cable]
    if b != a:
        if b in index:
            index[b].append(cable)
        else:
            index[b] = [cable]


def _dump_cables(links: list[Link], namer: _IbNamer | None, nodes: dict[str, TopologyNode],
                 policy: Policy) -> tuple[list[Cable], dict[str, int], int, dict[str, set[str]]]:
    """What ``_without_management``, ``_claim``, the nodes' loop, ``_join`` and ``_host_ports``
    make of links that only discovery dumps gave (no configuration, no LLDP table), in one
    pass: each of a 2,000-switch dump's 50,000 links went through five. With no configured
    device or LLDP owner every device keeps its name, no claim is compared with another and
    a cable has no configured ends. IB ends are named on the way (``namer``: ``_ib_ends``).
    Returns the cables, host port counts, links dropped, the cables' adjacency
    (``Topology.adjacency``), each node's cables (``Topology.cables_of``) and each cable's
    devices (``Topology.device_pairs``)."""
    extra = [re.compile(p, re.I) for p in policy.topology.management_ports]
    # port name -> (out of band, ``_Names.port`` of an unconfigured device, its
    # ``port_key``, a port only hosts have): a dump's 100,000 ends name a few dozen ports
    known: dict[str, tuple[bool, str, str, bool]] = {}
    host_ports: dict[str, int] = defaultdict(int)
    cables: dict[frozenset[tuple[str, str]], Cable] = {}
    adjacent: dict[str, set[str]] = {}
    index: dict[str, list[Cable]] = {}
    pairs: list[tuple[str, str]] = []
    dropped = 0
    ends = namer.ends if namer is not None else None
    # ``namer.ends`` inline for the usual link: between named nodes, no Aggregation Node,
    # no director chassis (the rest asks ``ends`` itself)
    names: Container[str] = namer.names if namer is not None else ()
    aggregation: Container[str] = namer.aggregation if namer is not None else ()
    plans = namer.plans if namer is not None else {}
    rename = namer.rename if namer is not None else None
    general = namer is not None and bool(namer.chassis)
    make_cable = _whole_cable
    new_node = _new_node

    def port(name: str) -> tuple[bool, str, str, bool]:
        spelled = name if _HOST_PORT.match(name) else canonical(name)
        info = known[name] = (bool(_MANAGEMENT.match(name)) or any(
            p.search(name) for p in extra), spelled, port_key(spelled),
            bool(_HOST_PORT.match(spelled)))
        return info

    for link in links:
        a, b = link.a, link.b
        if ends is not None:
            a_dev, b_dev = a.device, b.device
            if general or a_dev in aggregation or b_dev in aggregation:
                renamed = ends(link)
                if renamed is None:
                    continue
                a, b = renamed
            elif a_dev in names or b_dev in names:
                assert rename is not None
                if plans.get(a_dev, _UNPLANNED) is not None:
                    a = rename(a)
                if plans.get(b_dev, _UNPLANNED) is not None:
                    b = rename(b)
        near_port, far_port = a.interface, b.interface
        near_info = known.get(near_port) or port(near_port)
        far_info = known.get(far_port) or port(far_port)
        if near_info[0] or far_info[0]:
            dropped += 1
            continue
        if link.remote_description and _MAC.match(far_port):
            far_port = link.remote_description
            far_info = known.get(far_port) or port(far_port)
        _oob, near_name, near_key, _host = near_info
        _oob, far_name, far_key, far_host = far_info
        near = a if near_name == a.interface else \
            _end({"device": a.device, "interface": near_name})
        far = b if far_name == b.interface else \
            _end({"device": b.device, "interface": far_name})
        near_dev, far_dev = near.device, far.device
        if near_dev not in nodes:
            nodes[near_dev] = new_node(near_dev)
        if far_dev not in nodes:
            nodes[far_dev] = new_node(far_dev)
        if far_host:
            host_ports[far_dev] += 1
        pair = frozenset(((near_dev, near_key), (far_dev, far_key)))
        cable = cables.get(pair)
        if cable is None:
            speed = link.speed_mbps
            src = link.src
            cable = cables[pair] = make_cable({  # (every field, in their order)
                "a": near, "b": far, "a_port": None, "b_port": None,
                "speed_mbps": speed if speed else None, "confirmed": True,
                "sources": [] if src is None else [src], "origin": link.origin})
            _record(cable, near_dev, far_dev, adjacent, pairs, index)
        elif link.src is not None:
            cable.sources.append(link.src)
    return list(cables.values()), host_ports, dropped, adjacent, index, pairs


def _new_node(name: str, _defaults: dict[str, Any] = _node.template) -> TopologyNode:
    """``_node({"name": name})`` without Maker's checks and merge (the 38,000 nodes of a
    2,000-switch dump): every field's default, the name, and a fields set of its own (placing
    the node adds to it)."""
    return bare(TopologyNode, {**_defaults, "name": name}, {"name"})


def _host_ports(claims: list[_Claim]) -> dict[str, int]:
    """Device -> how many claims reach it on a port name only hosts have."""
    host_ports: dict[str, int] = defaultdict(int)
    host_port: dict[str, bool] = {}  # (a dump's 50,000 claims name a few dozen ports)
    for claim in claims:
        port = claim[3]
        hit = host_port.get(port)
        if hit is None:
            hit = host_port[port] = bool(_HOST_PORT.match(port))
        if hit:
            host_ports[claim[2]] += 1
    return host_ports


def _disagreement(claim: _Claim, near: tuple[str, str], far: tuple[str, str],
                  by_port: dict[tuple[str, str], list[tuple[_Claim, tuple[str, str]]]],
                  ) -> CablingIssue | None:
    """What the far end says about the same port, when it says something else or nothing
    (``near`` and ``far``: the claim's ends as ``_key`` gives them; ``by_port``: the LLDP
    claims by their near end, each with its far end's key). Asked only of an LLDP claim whose
    far end's own LLDP table was read: otherwise its view is unknown, nothing to compare."""
    near_dev, near_port, far_dev, far_port = claim[:4]
    answers = by_port.get(far, [])
    if not answers:
        return CablingIssue(
            kind="one-sided", device=near_dev, interface=near_port,
            message=f"{near_dev} {near_port} sees {far_dev} {far_port}, but {far_dev}'s LLDP "
            f"table has no neighbour on {far_port}", src=claim[6],
        )
    if any(answer_far == near for _, answer_far in answers):
        return None
    other = answers[0][0]
    return CablingIssue(
        kind="contradiction", device=near_dev, interface=near_port,
        message=f"{near_dev} {near_port} sees {far_dev} {far_port}, but {far_dev} says "
        f"{far_port} goes to {other[2]} {other[3]}", src=claim[6],
        related=[a[6] for a, _ in answers if a[6] is not None],
    )


_SERVICE = re.compile(r"ufm|login|mgmt|manage|provision|head|admin|bastion|jump|opensm|"
                      r"(?:^|[^a-z])sm\d*(?:$|[^a-z])|monitor|telemetry", re.I)
"""Host names of management and service hosts (a hint: wiring decides first)."""


def _place(topo: Topology, host_ports: dict[str, int], policy: Policy,
           intended: dict[str, list[str]], view: IbView | None = None) -> None:
    """Roles from wiring and node type first; the intent's and the profile's name patterns
    fix a role; names (``spine``, ``leaf``) only decide what the wiring leaves open.

    Hosts are channel adapters (IB) or neighbours with host port names; a leaf is a switch
    cabled to a compute host; the tier of any other switch is its distance from the leaves
    (spines 1, super-spines 2 and more). A switch whose only hosts are one-link service hosts
    (UFM, login) and whose other links all go to leaves is a spine, not a leaf."""
    view = view or IbView(links=[])
    patterns = [(role, re.compile(p)) for roles in (intended, policy.topology.roles)
                for role, pats in roles.items() for p in pats]
    # the nodes each one is cabled to, besides itself (the adjacency, which the bisection and
    # the rules read later too: a node's set is copied only when it has a cable to itself)
    neighbours: dict[str, set[str]] = defaultdict(set)
    for name, reach in topo.adjacency().items():
        neighbours[name] = reach - {name} if name in reach else reach

    def count(name: str) -> int:
        """How many cables join ``name`` to another node."""
        return sum(1 for c in topo.cables_of(name) if c.a.device != c.b.device)
    fixed: dict[str, str] = {}
    hosts: set[str] = set()
    view_switches, view_hosts = view.switches, view.hosts
    for node in topo.nodes.values():
        values = node.__dict__  # (its fields from its dict: one attribute read, not four)
        name = values["name"]
        for role, pattern in patterns:
            if pattern.search(name):
                node.role, node.role_from = role, "policy"  # type: ignore[assignment]
                fixed[name] = role
                break
        if fixed.get(name, "host") != "host" or name in view_switches or values["chips"]:
            continue
        if fixed.get(name) == "host" or name in view_hosts or (
                not values["configured"] and not values["has_lldp"]
                and (host_ports[name] or _name_role(name) == "host")):
            hosts.add(name)
    switches = {n for n in topo.nodes if n not in hosts}
    candidates = {n for n in switches
                  if not neighbours[n].isdisjoint(hosts) and fixed.get(n, "leaf") == "leaf"}
    service: set[str] = set()
    spines: set[str] = set()
    # Two passes: switches whose only hosts have service names (ufm01) first, then those whose
    # few one-link hosts hang beside links that all go to leaves.
    named = {h for h in hosts if len(neighbours[h]) == 1 and _service_name(h)}
    named |= view.routers & hosts  # (an IB router is a service end whatever its name)
    if len(named) * 2 > len(hosts):
        named = set()  # most hosts carry such a name (a lab of 'r-ufm101'): not a hint
    for by_name in (True, False):
        if by_name and not named:
            continue  # (no service-named host: the first pass finds nothing)
        for name in sorted(candidates - spines):
            if name in fixed:
                continue
            reach = neighbours[name]
            uplinks = reach - hosts
            if not uplinks:
                continue
            attached = reach & hosts
            # (the tests in the order of their cost, the cheap ones first: 1,024 SONiC ToRs
            # with 24 hosts each fail the cheap ones)
            if not (attached <= named if by_name
                    else uplinks <= candidates and not uplinks & spines):
                continue
            alone = {name}
            if any(neighbours[h] != alone for h in attached):
                continue
            # (its hosts' cables are few: counted last)
            if by_name or sum(count(h) for h in attached) * 2 < count(name):
                spines.add(name)  # a spine that carries the fabric's UFM or login node
                service |= attached
    service |= named
    leaves = candidates - spines
    leaves |= {n for n, role in fixed.items() if role == "leaf"}
    if not leaves:  # no hosts in the inputs: names are all there is
        leaves = {n for n in switches if n not in fixed and _name_role(n) == "leaf"}
    distance = _distances(leaves, neighbours, hosts)
    by_distance = ("leaf", "spine")
    node_edited()  # (the loop below writes nodes' fields directly: _assign)
    for node in topo.nodes.values():
        values = node.__dict__
        name = values["name"]
        if name in fixed:
            _assign(node, {"service": name in service, "tier": TIER.get(node.role)})
            continue
        if name in hosts:  # (``_assign``, inline for the many)
            values["service"] = name in service
            values["role"] = "host"
            values["tier"] = 0
            node.__pydantic_fields_set__.update(_HOST_FIELDS)
            continue
        d = distance.get(name)
        if d is not None:
            _assign(node, {"service": name in service,
                           "role": by_distance[d] if d < 2 else "super-spine", "tier": d + 1})
            continue
        guess = _name_role(name)
        if guess and guess != "host":
            _assign(node, {"service": name in service, "role": guess, "role_from": "name",
                           "tier": TIER[guess]})
        else:
            _assign(node, {"service": name in service, "role": "switch" if (
                node.configured or node.has_lldp or name in view.switches or node.chips
                or neighbours[name]) else "unknown", "tier": None})
    _pods(topo)


_HOST_FIELDS = ("service", "role", "tier")
"""The fields ``_place`` sets on a host."""


def _assign(node: TopologyNode, values: dict[str, object]) -> None:
    """``node.<field> = value`` for each item, as pydantic's assignment does it (TopologyNode
    validates no assignment; the values have their fields' types): placing 30,000 nodes
    assigns 90,000 fields, a third of ``_place`` through ``BaseModel.__setattr__``."""
    node.__dict__.update(values)
    node.__pydantic_fields_set__.update(values)


def _distances(leaves: set[str], neighbours: dict[str, set[str]],
               hosts: set[str]) -> dict[str, int]:
    """Hops from the nearest leaf over switch-to-switch cables (never through a host)."""
    distance = dict.fromkeys(leaves, 0)
    frontier = sorted(leaves)
    while frontier:
        nxt = []
        for name in frontier:
            for other in neighbours[name]:
                if other not in distance and other not in hosts:
                    distance[other] = distance[name] + 1
                    nxt.append(other)
        frontier = nxt
    return distance


def _pods(topo: Topology) -> None:
    """Pods: the leaves and spines joined by leaf-spine cables, numbered by their first leaf."""
    groups = topo.tier_groups("leaf", "spine")
    ordered = sorted(groups, key=lambda g: min(n for n in g if topo.nodes[n].role == "leaf"))
    nodes = topo.nodes
    for number, members in enumerate(ordered):
        for name in members:  # (``node.pod = number``: TopologyNode validates no assignment)
            node = nodes[name]
            node.__dict__["pod"] = number
            node.__pydantic_fields_set__.add("pod")


def pods(topo: Topology) -> list[list[str]]:
    """The pods of ``topo``: sorted names of the leaves and spines of each, pod 0 first."""
    groups: dict[int, list[str]] = defaultdict(list)
    for name, node in topo.nodes.items():
        if node.pod is not None:
            groups[node.pod].append(name)
    return [sorted(groups[k]) for k in sorted(groups)]


_SERVICE_WORDS = ("ufm", "login", "mgmt", "manage", "provision", "head", "admin", "bastion",
                  "jump", "opensm", "monitor", "telemetry")
"""The words of ``_SERVICE`` that are plain text (all but ``sm``, which has its bounds)."""


def _service_name(name: str) -> bool:
    """``_SERVICE.search(name)``: for an ASCII name (what ``re.I`` then matches is its lower
    case) by looking for the plain words first: the 28,000 one-link hosts of 1,024 SONiC ToRs
    each cost a scan of the whole alternation otherwise."""
    if not name.isascii():
        return bool(_SERVICE.search(name))
    low = name.lower()
    for word in _SERVICE_WORDS:
        if word in low:
            return True
    return "sm" in low and bool(_SERVICE.search(name))


_ROLE_WORDS = ("spine", "ss", "leaf", "tor", "rail", "dgx", "gpu", "hgx", "node", "host",
               "server", "compute")
"""Text one of the ``_NAME_ROLE`` patterns needs (in lower case) to match at all."""


def _name_role(name: str) -> Role | None:
    if name.isascii():  # (``re.I`` matches an ASCII name's lower case: a quick no first)
        low = name.lower()
        for word in _ROLE_WORDS:
            if word in low:
                break
        else:
            return None
    for pattern, role in _NAME_ROLE:
        if pattern.search(name):
            return role  # type: ignore[return-value]
    return None


def bisection(topo: Topology) -> Bisection | None:
    """Bisection bandwidth: exact for a uniform two-tier Clos, else a min-cut upper bound."""
    roles = topo.roles()  # (the view the placement made: not a read of every node)
    leaves = [name for name, role in roles.items() if role == "leaf"]
    if len(leaves) < 2:
        return None
    table = topo.capacity_table()
    caps = {name: table[name] for name in leaves}
    if any(unknown for _, _, unknown in caps.values()):
        return None
    host_total = sum(down for down, _, _ in caps.values())
    if host_total == 0:
        return None
    ideal = min(host_total // 2, _host_limited(topo))
    tiers = {n.role for n in topo.nodes.values() if n.tier}  # ("switch": not in the fabric)
    uniform = len(set(caps.values())) == 1
    adjacent = topo.adjacency()
    if tiers <= {"leaf", "spine"} and uniform and _full_mesh(roles, adjacent):
        up_total = sum(up for _, up, _ in caps.values())
        return Bisection(
            mbps=min(min(host_total, up_total) // 2, ideal), ideal_mbps=ideal, method="clos",
            exact=True,
            why="two-tier Clos with identical leaves, each cabled to every spine: half the "
            "leaves send through their uplinks, so the cut is min(host, uplink capacity) / 2",
        )
    # (a three-tier fat tree has super-spines, which always have a tier: none, no pass)
    three = _three_tier(topo, caps, table, adjacent) if "super-spine" in tiers else None
    if three is not None:
        return Bisection(mbps=min(three, ideal), ideal_mbps=ideal, method="clos", exact=True,
                         why="three-tier fat tree with identical leaves and identical spines, "
                         "pods of one size each cabled leaf to every spine, every spine cabled to "
                         "every super-spine of its plane: the cut is the thinnest tier, "
                         "min(host, leaf uplink, spine uplink capacity) / 2")
    return _min_cut(topo, ideal)


def _host_limited(topo: Topology) -> int:
    """The bisection a non-blocking fabric offers: the hosts' own links limit it, and the
    thinnest balanced split of the compute hosts' leaf ports puts the slowest half on one
    side (half the host-facing capacity when every port runs one speed; less when slower
    ports make the halves unequal). A cut isolating that half is a balanced cut, so no
    bisection, exact or bound, is above it."""
    nodes = topo.nodes
    # (the role edges are a view the report and TOP003 read too: no pass of its own; a
    # leaf is never a service host, so either end's flag is the host's)
    edges = topo.role_edges().get(("host", "leaf"), ())
    speeds = [cable.speed_mbps for a, b, cable in edges
              if not (nodes[a].service or nodes[b].service)]
    if None in speeds:
        speeds = [s for s in speeds if s is not None]
    speeds.sort()
    half = len(speeds) // 2
    # (an odd count splits its middle port, as ``hosts / 2 x rate`` does for equal ports)
    return sum(speeds[:half]) + (speeds[half] // 2 if len(speeds) % 2 else 0)


def _three_tier(topo: Topology, caps: dict[str, tuple[int, int, int]],
                table: dict[str, tuple[int, int, int]],
                adjacent: dict[str, set[str]]) -> int | None:
    """min(host, leaf-up, spine-up capacity) / 2 for a symmetric three-tier fat tree, else None.

    Symmetric: identical leaves, identical spines, cables only between adjacent tiers; pods of
    the same size, each leaf cabled to every spine of its pod; planes (spines and the
    super-spines they reach) each spine cabled to every super-spine of its plane and every plane
    taking as many spines from each pod (every spine to every super-spine is one plane). Any
    balanced cut then splits each tier's capacity in half, so the thinnest tier decides.
    """
    roles = {n.name: n.role for n in topo.nodes.values() if not n.service and n.tier is not None}
    if set(roles.values()) - {"host"} != {"leaf", "spine", "super-spine"}:
        return None
    order = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}
    level = {name: order[role] for name, role in roles.items() if role in order}
    for (low, high), edges in topo.role_edges().items():  # only cables across adjacent tiers
        if low in order and high in order and abs(order[low] - order[high]) != 1 and any(
                a in level and b in level for a, b, _ in edges):
            return None
    if len(set(caps.values())) != 1:
        return None
    spines = [n for n, r in roles.items() if r == "spine"]
    spine_caps = {table[s] for s in spines}
    if len(spine_caps) != 1 or next(iter(spine_caps))[2]:
        return None
    planes = topo.tier_groups("spine", "super-spine")
    if not (_complete(topo, topo.tier_groups("leaf", "spine"), "leaf", "spine", adjacent)
            and _complete(topo, planes, "spine", "super-spine", adjacent)):
        return None
    pod_of = {n: topo.nodes[n].pod for n in spines}
    shapes = {(sum(1 for n in g if roles.get(n) == "leaf"), sum(1 for n in g if roles.get(n)
               == "spine")) for g in pods(topo)}
    if len(shapes) != 1:
        return None
    for plane in planes:
        per_pod: dict[int | None, int] = defaultdict(int)
        for name in plane:
            if roles.get(name) == "spine":
                per_pod[pod_of[name]] += 1
        if len(set(per_pod.values())) != 1 or set(per_pod) != set(pod_of.values()):
            return None
    host = sum(d for d, _, _ in caps.values())
    leaf_up = sum(u for _, u, _ in caps.values())
    spine_up = sum(table[s][1] for s in spines)
    return min(host, leaf_up, spine_up) // 2


def _complete(topo: Topology, groups: list[set[str]], lower: str, upper: str,
              adjacent: dict[str, set[str]]) -> bool:
    """Every ``lower`` switch of each group is cabled to every ``upper`` one of its group."""
    for group in groups:
        uppers = {n for n in group if topo.role(n) == upper}
        for name in group:
            if topo.role(name) != lower:
                continue
            if not uppers <= adjacent.get(name, set()):
                return False
    return True


def _full_mesh(roles: dict[str, Role], adjacent: dict[str, set[str]]) -> bool:
    spines = {name for name, role in roles.items() if role == "spine"}
    if not spines:
        return False
    for leaf in (name for name, role in roles.items() if role == "leaf"):
        if not spines <= adjacent.get(leaf, set()):
            return False
    return True


def _min_cut(topo: Topology, ideal: int) -> Bisection | None:
    role = topo.roles().get  # (``topo.role``)
    if not _one_fabric(topo, role):
        return None
    edges = []
    for cable in topo.cables:
        if cable.speed_mbps is None:
            continue
        u, v = cable.a.device, cable.b.device
        # A host is an end point, never a path: each of its cables gets its own copy of it.
        if role(u) == "host":
            u = f"{u}\x00{v}"
        elif role(v) == "host":
            v = f"{v}\x00{u}"
        edges.append((u, v, cable.speed_mbps))
    import networkx as nx  # imported here: only the runs that cut a fabric pay for it
    from networkx.algorithms.community import kernighan_lin_bisection

    graph = nx.Graph()
    for u, v, speed in edges:
        weight = graph[u][v]["weight"] + speed if graph.has_edge(u, v) else speed
        graph.add_edge(u, v, weight=weight)
    leaves = {n for n in graph if topo.role(n) == "leaf"}
    parts = [c for c in nx.connected_components(graph) if c & leaves]
    if len(parts) != 1:
        return None  # separate fabrics: no one cut to speak of
    graph = graph.subgraph(parts[0]).copy()  # without out-of-band gear cabled elsewhere
    hosts = [n for n in graph if "\x00" in n]
    if len(hosts) < 2:
        return None
    best: int | None = None
    for seed in range(4):  # KL is a local search: a few seeds, keep the smallest cut found
        left, _right = kernighan_lin_bisection(graph, weight="weight", seed=seed)
        cut = int(nx.cut_size(graph, left, weight="weight"))
        best = cut if best is None else min(best, cut)
    assert best is not None
    if ideal < best:  # (KL balances every node, switches too: not always a split of the hosts)
        return Bisection(
            mbps=ideal, ideal_mbps=ideal, method="min-cut", exact=False,
            why="not a uniform two-tier Clos: the cut that isolates the slower half of the host "
            "ports (Kernighan-Lin bisection of the cabling graph found none smaller); the true "
            "bisection can only be lower",
        )
    return Bisection(
        mbps=best, ideal_mbps=ideal, method="min-cut", exact=False,
        why="not a uniform two-tier Clos: the smallest cut found by Kernighan-Lin bisection of "
        "the cabling graph (networkx); the true bisection can only be lower",
    )


def _one_fabric(topo: Topology, role: Callable[[str], str | None]) -> bool:
    """Whether the leaves on cables of known speed are joined in one fabric, as ``_min_cut``'s
    graph joins them (a host is copied per cable there, so it joins nothing): separate
    fabrics (1,024 unrelated SONiC ToRs) have no one cut, which is said before networkx is
    imported and the graph built, without the copies."""
    core: list[tuple[str, str]] = []
    leaves: set[str] = set()
    for (u, v), cable in zip(topo.device_pairs(), topo.cables, strict=True):
        if cable.speed_mbps is None:
            continue
        role_u, role_v = role(u), role(v)
        if role_u == "leaf":
            leaves.add(u)
        if role_v == "leaf":
            leaves.add(v)
        if role_u != "host" and role_v != "host":
            core.append((u, v))
    find = components(core)
    return len({find(n) for n in leaves}) == 1


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
        near, far = _near_end(claim), _far_end(claim)
        a, b = _key(near), _key(far)
        intended_keys.add(frozenset((a, b)))
        intended_devices |= {a[0], b[0]}
        topo.nodes.setdefault(a[0], TopologyNode(name=a[0]))
        topo.nodes.setdefault(b[0], TopologyNode(name=b[0]))
        present = observed.get(a)
        if present is not None and {_key(present.a), _key(present.b)} == {a, b}:
            continue
        wrong = [(end, observed[k]) for end, k in ((near, a), (far, b))
                 if k in observed]
        want = f"{near.device} {near.interface} - {far.device} {far.interface}"
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
                kind="missing", device=near.device, interface=near.interface,
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
