"""The fabric datasheet: what an architect asks of a GPU fabric first, from the files alone.

Fabric kind, link generations, switches per tier, hosts and NICs, injection bandwidth, topology
class, oversubscription per leaf and per tier, bisection, non-blocking or not, and for RoCE the
lossless regime in force. Built once as a typed object (``Datasheet``) from the topology
(``fablint/topology.py``: roles, tiers, bisection) and the per-device digests
(``fablint/report/digest.py``), then rendered as Markdown, text or JSON, and at the top of the
HTML report. Every figure carries ``source``: the inputs and the computation it comes from; a
figure the inputs do not determine is None with a ``note`` saying why.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from fablint.checks.base import fmt_ranges
from fablint.checks.topology import _NIC_INDEX
from fablint.model import IB_SPEEDS, Fabric, Topology
from fablint.policy import Policy
from fablint.report.digest import DeviceDigest

SWITCH_TIERS = ("super-spine", "spine", "leaf", "switch", "unknown")
IB_ORIGINS = ("ib", "opensm")
"""``Link.origin`` prefixes of InfiniBand dumps (the format names: ibnetdiscover, iblinkinfo…)."""
WORST_LEAVES = 5
VENDOR_NAMES = {"eos": "Arista EOS", "nxos": "Cisco NX-OS", "sonic": "SONiC"}


class Fact(BaseModel):
    """A figure with where it comes from."""

    source: str
    """The inputs and the computation the figure comes from."""
    note: str | None = None
    """Why a figure is not determined, or what it assumes."""


class FabricKind(Fact):
    kind: Literal["InfiniBand", "RoCE Ethernet", "InfiniBand and RoCE Ethernet", "unknown"]


class LinkRate(BaseModel):
    """Cables between two tiers that run at one rate."""

    tiers: str
    """``host-leaf``, ``leaf-spine``, ``spine-super-spine`` …"""
    rate_mbps: int | None
    """Data rate of the slower end (None: no input gives it)."""
    generation: str | None
    """``4x NDR`` for InfiniBand, ``400GbE`` for Ethernet."""
    cables: int


class LinkWidth(BaseModel):
    """InfiniBand cables between two tiers that train at one width and speed."""

    tiers: str
    width: int
    """Active width in lanes (``1`` for a 4x port that lost three lanes)."""
    speed: str
    """Active speed generation (``NDR``)."""
    cables: int
    degraded: bool = False
    """Narrower or slower than most cables of the tier (IB001 says which and why)."""


class Links(Fact):
    rates: list[LinkRate] = Field(default_factory=list)
    widths: list[LinkWidth] = Field(default_factory=list)
    """InfiniBand cables per tier pair, active width and speed (from the dumps' link columns)."""


class Counts(Fact):
    switches: dict[str, int] = Field(default_factory=dict)
    """Switches per tier (``super-spine``, ``spine``, ``leaf``; ``switch`` / ``unknown`` for
    nodes the cabling does not place)."""
    hosts: int = 0
    """Compute hosts (GPU servers) with a cable to a leaf."""
    nics: int = 0
    """Host NIC ports cabled to leaves."""
    nics_per_host: int | None = None
    """The most common number of NIC ports per host."""
    rails: int | None = None
    """Rails of a rail-optimised fabric (distinct NIC indices on the rail leaves)."""
    service_hosts: int = 0
    """Management and service hosts (UFM, login) left out of every ratio."""
    aggregation_nodes: int = 0
    """SHARP Aggregation Nodes folded into their switches."""
    chassis: int = 0
    """Director chassis (several switch chips shown as one node)."""
    management_links: int = 0
    """LLDP neighbours on management / out-of-band ports, left out of the fabric."""


class Injection(Fact):
    """What each NIC and each host can send into the fabric."""

    per_nic_mbps: int | None = None
    per_host_mbps: int | None = None
    uniform: bool = True
    """Every host has the same injection bandwidth (else the values are the most common)."""


class TopologyClass(Fact):
    name: str
    """``2-tier fat tree``, ``3-tier fat tree``, ``single switch``, ``other`` …"""
    tiers: int
    """Switch tiers."""
    pods: int | None = None
    """Pods (leaves sharing one spine set); None: not determined."""
    rail_optimised: bool = False
    director_based: bool = False
    single_spine: bool = False


class LeafRatio(BaseModel):
    leaf: str
    host_mbps: int
    uplink_mbps: int
    ratio: float | None
    """Host-facing over uplink capacity; None when a cable's speed is unknown."""


class TierRatio(BaseModel):
    tier: str
    members: int
    down_mbps: int
    up_mbps: int
    ratio: float | None


class Oversubscription(Fact):
    leaves: int = 0
    minimum: float | None = None
    median: float | None = None
    maximum: float | None = None
    worst: list[LeafRatio] = Field(default_factory=list)
    """The most oversubscribed leaves, worst first."""
    unknown: list[str] = Field(default_factory=list)
    """Leaves whose ratio is unknown (a cable without speed, or no uplink)."""
    per_leaf: list[LeafRatio] = Field(default_factory=list)
    tiers: list[TierRatio] = Field(default_factory=list)


class BisectionFact(Fact):
    mbps: int | None = None
    ideal_mbps: int | None = None
    """Half the host-facing capacity: what a non-blocking fabric offers."""
    percent: float | None = None
    exact: bool | None = None
    """True: exact; False: an upper bound."""
    method: str | None = None
    per_host_mbps: int | None = None
    """What each host of one half can send to the other half at once: bisection / (hosts/2)."""


class NonBlocking(Fact):
    value: bool | None = None
    reasons: list[str] = Field(default_factory=list)


class Share(BaseModel):
    """A setting and how many of the devices (or ports, NICs) have it."""

    what: str
    count: int
    of: int
    unit: str = "switches"
    """What ``count`` and ``of`` count: ``switches``, ``fabric ports``, ``NICs``."""
    where: list[str] = Field(default_factory=list)
    """The devices, when a minority (at most a few names)."""

    def text(self) -> str:
        where = f" ({', '.join(self.where)})" if self.where else ""
        return f"{self.what} on {self.count} of {self.of} {self.unit}{where}"


class Lossless(Fact):
    """The RoCE lossless regime in force (Ethernet fabrics)."""

    applies: bool = False
    switches: int = 0
    """Switch configurations read."""
    pfc: list[Share] = Field(default_factory=list)
    """PFC priorities in force on fabric ports, per set of priorities (switches)."""
    roce_path: list[Share] = Field(default_factory=list)
    """DSCP -> traffic class -> PFC priority -> queue of the lossless classes and of the
    profile's RoCE DSCPs wherever they go (switches)."""
    ecn: Share | None = None
    """Switches whose every lossless queue on fabric ports marks ECN."""
    ecn_missing: Share | None = None
    """Switches with a lossless queue that does not mark ECN (names)."""
    ecn_thresholds: list[Share] = Field(default_factory=list)
    watchdog: Share | None = None
    link_pause: Share | None = None
    """Switches with 802.3x pause on a fabric port (should be none)."""
    trust: list[Share] = Field(default_factory=list)
    nics: int = 0
    dcqcn: Share | None = None
    """NICs whose DCQCN notification and reaction points are on for every lossless priority."""
    nic_pfc: list[Share] = Field(default_factory=list)


class Datasheet(BaseModel):
    """The fabric's datasheet (``fablint topo --format markdown`` / ``json``, HTML report)."""

    kind: FabricKind
    links: Links
    counts: Counts
    injection: Injection
    topology: TopologyClass
    oversubscription: Oversubscription
    bisection: BisectionFact
    non_blocking: NonBlocking
    lossless: Lossless


def gbps(mbps: int | None) -> str:
    if mbps is None:
        return "unknown"
    return f"{mbps / 1000:.4g}G" if mbps < 1_000_000 else f"{mbps / 1_000_000:.4g}T"


def ratio_text(ratio: float | None) -> str:
    return "unknown" if ratio is None else f"{ratio:.2f}:1"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def build(topo: Topology | None, fabric: Fabric, digests: dict[str, Any],
          policy: Policy) -> Datasheet:
    """The datasheet of a linted fabric: ``topo`` may be None (no cabling in the inputs)."""
    devices = [d for d in digests.values() if isinstance(d, DeviceDigest)]
    kind = _kind(topo, fabric, devices)
    if topo is None:
        none = "not determined: no cabling in the inputs (LLDP tables, SONiC DEVICE_NEIGHBOR " \
            "or IB dumps)"
        return Datasheet(
            kind=kind, links=Links(source="cables", note=none), counts=Counts(source="cables",
                                                                              note=none),
            injection=Injection(source="cables", note=none),
            topology=TopologyClass(source="cables", name="not determined", tiers=0, note=none),
            oversubscription=Oversubscription(source="cables", note=none),
            bisection=BisectionFact(source="cables", note=none),
            non_blocking=NonBlocking(source="cables", note=none),
            lossless=_lossless(devices, policy, kind.kind),
        )
    roles = {name: node.role for name, node in topo.nodes.items()}
    table = topo.capacity_table()
    caps = {name: table[name] for name, role in roles.items() if role in ("leaf", "spine")}
    counts, host_caps = _counts(topo)
    over = _oversubscription(topo, caps)
    bis = _bisection(topo, counts.hosts)
    return Datasheet(
        kind=kind, links=_links(topo, fabric, roles), counts=counts,
        injection=_injection(host_caps, topo, roles), topology=_class(topo, counts),
        oversubscription=over, bisection=bis,
        non_blocking=_non_blocking(over, bis, single=counts.switches == {"leaf": 1}),
        lossless=_lossless(devices, policy, kind.kind),
    )


def _kind(topo: Topology | None, fabric: Fabric, devices: list[DeviceDigest]) -> FabricKind:
    ib_links = sum(1 for link in fabric.links if link.origin.startswith(IB_ORIGINS))
    eth_links = sum(1 for link in fabric.links if link.origin in ("lldp", "config"))
    if topo is not None:
        eth_links += sum(1 for c in topo.cables if c.origin == "config")
    switches = Counter(d.vendor for d in devices if d.switch)
    ib = bool(ib_links or fabric.ib_nodes)
    eth = bool(eth_links or switches)
    parts = []
    if ib:
        parts.append(f"{ib_links} link records from InfiniBand dumps")
    if eth_links:
        parts.append(f"{eth_links} Ethernet neighbour claims (LLDP tables, SONiC "
                     "DEVICE_NEIGHBOR)")
    if switches:
        parts.append("switch configurations: " + ", ".join(
            f"{n} {VENDOR_NAMES.get(v, v)}" for v, n in sorted(switches.items())))
    name: Literal["InfiniBand", "RoCE Ethernet", "InfiniBand and RoCE Ethernet", "unknown"]
    name = ("InfiniBand and RoCE Ethernet" if ib and eth else "InfiniBand" if ib
            else "RoCE Ethernet" if eth else "unknown")
    return FabricKind(kind=name, source="; ".join(parts) or "no fabric input")


_ORDER = {"host": 0, "leaf": 1, "spine": 2, "super-spine": 3}


def _pair(roles: dict[str, str], a: str, b: str) -> str:
    ra, rb = roles.get(a, "unknown"), roles.get(b, "unknown")
    if _ORDER.get(ra, 9) > _ORDER.get(rb, 9) or (ra > rb and _ORDER.get(ra, 9) == _ORDER.get(
            rb, 9)):
        ra, rb = rb, ra
    return f"{ra}-{rb}"


def _links(topo: Topology, fabric: Fabric, roles: dict[str, str]) -> Links:
    ib_label: dict[int, Counter[str]] = defaultdict(Counter)
    trained: dict[tuple[str, int | None], tuple[int, str, int]] = {}
    """An IB dump's link line -> (width, speed, lane rate): the dumps name nodes by GUID, the
    cables by description, and a cable keeps the lines it was joined from."""
    labels: Counter[tuple[int, str]] = Counter()
    facts: dict[tuple[str | None, int | None], tuple[int, str, int, str] | None] = {}
    for link in fabric.links:  # (a few kinds of link for 50,000 links)
        kind = (link.a_speed or link.b_speed, link.width)
        fact = facts.get(kind, False)
        if fact is False:
            info = IB_SPEEDS.get(kind[0] or "")
            fact = facts[kind] = (link.width, info.name, info.lane_mbps,
                                  f"{link.width}x {info.name}") if info and link.width else None
        if fact is not None:
            labels[(fact[2] * fact[0], fact[3])] += 1
            if link.src is not None:  # (a SourceRef is the tuple (file, line))
                trained[link.src] = fact[:3]  # type: ignore[index]
    for (rate, label), n in labels.items():  # (in the order first seen: most_common's ties)
        ib_label[rate][label] += n
    groups: Counter[tuple[str, int | None]] = Counter()
    widths: Counter[tuple[str, int, str, int]] = Counter()
    # (the cables of each pair of roles together: what the counts' order depends on, the
    # order of each pair's groups, is that of the cables)
    for (low, high), edges in topo.role_edges().items():
        pair = _pair({"a": low, "b": high}, "a", "b")
        for _a, _b, cable in edges:
            groups[(pair, cable.speed_mbps)] += 1
            if trained:
                for ref in cable.sources:  # (a SourceRef is the tuple (file, line))
                    got = trained.get(ref)
                    if got:
                        widths[(pair, *got)] += 1
                        break
    order = {"host-leaf": 0, "leaf-spine": 1, "spine-super-spine": 2}
    rates = []
    for (tiers, rate), n in sorted(groups.items(),
                                   key=lambda kv: (order.get(kv[0][0], 9), kv[0][0],
                                                   -(kv[0][1] or 0))):
        if rate is None:
            generation = None
        elif rate in ib_label:
            generation = ib_label[rate].most_common(1)[0][0]
        else:
            generation = f"{rate / 1000:g}GbE" if rate >= 1000 else f"{rate}Mb Ethernet"
        rates.append(LinkRate(tiers=tiers, rate_mbps=rate, generation=generation, cables=n))
    return Links(rates=rates, widths=_widths(widths, order),
                 source="each cable's rate is the slower end's configured port speed, "
                 "else the speed the LLDP table or IB dump reports (IB: active width x "
                 "generation); tiers from fablint's cabling roles")


def _widths(groups: Counter[tuple[str, int, str, int]], order: dict[str, int]
            ) -> list[LinkWidth]:
    """Per tier pair, the cables of each width and speed; a group narrower or slower than the
    tier's most common one is degraded (a damaged cable trains at 1x and stays up)."""
    usual: dict[str, tuple[int, str, int]] = {}
    for (pair, *trained), _n in sorted(groups.items(), key=lambda kv: -kv[1]):
        usual.setdefault(pair, tuple(trained))  # type: ignore[arg-type]
    out = []
    for (pair, width, speed, rank), n in sorted(
            groups.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][0], -kv[0][1],
                                            -kv[0][3])):
        best_width, _, best_rank = usual[pair]
        out.append(LinkWidth(tiers=pair, width=width, speed=speed, cables=n,
                             degraded=width < best_width or rank < best_rank))
    return out


def _counts(topo: Topology) -> tuple[Counts, dict[str, int]]:
    switches: Counter[str] = Counter()
    service = 0
    for node in topo.nodes.values():
        if node.role in SWITCH_TIERS and node.role != "unknown":
            switches[node.role] += 1
        elif node.role == "unknown":
            switches["unknown"] += 1
        if node.role == "host" and node.service:
            service += 1
    host_caps: dict[str, int] = defaultdict(int)
    nics_of: dict[str, set[str]] = defaultdict(set)
    indices: set[int] = set()
    spread = multi = 0
    leaves_of: dict[str, set[str]] = defaultdict(set)
    roles = {name: node.role for name, node in topo.nodes.items()}
    hosts = {name for name, role in roles.items()
             if role == "host" and not topo.nodes[name].service}
    seen: set[str] = set()  # NIC names already read for an index (a few dozen)
    for a_device, _b, cable in topo.role_edges().get(("host", "leaf"), ()):
        host, leaf = (cable.a, cable.b) if roles[a_device] == "host" else (cable.b, cable.a)
        if host.device in hosts:
            host_caps[host.device] += cable.speed_mbps or 0
            nics_of[host.device].add(host.interface)
            leaves_of[host.device].add(leaf.device)
            if host.interface not in seen:
                seen.add(host.interface)
                index = _NIC_INDEX.search(host.interface)
                if index:
                    indices.add(int(index.group(1)))
    for host, nics in nics_of.items():
        if len(nics) > 1:
            multi += 1
            spread += len(leaves_of[host]) > 1
    per_host = Counter(len(n) for n in nics_of.values())
    rail = multi > 0 and spread * 2 > multi
    chassis = sum(1 for n in topo.nodes.values() if n.chips > 1)
    counts = Counts(
        switches={t: switches[t] for t in SWITCH_TIERS if switches[t]},
        hosts=len(nics_of), nics=sum(len(n) for n in nics_of.values()),
        nics_per_host=per_host.most_common(1)[0][0] if per_host else None,
        rails=len(indices) if rail and indices else None,
        service_hosts=service,
        aggregation_nodes=topo.aggregation_nodes,
        chassis=chassis, management_links=topo.management_links,
        source="roles from the cabling (fablint/topology.py): leaves are the switches cabled "
        "to hosts, spines and super-spines the tiers above; hosts are NIC ends cabled to "
        "leaves, NICs their ports; rails the distinct NIC indices (mlx5_N, ethN) when most "
        "multi-NIC hosts spread their NICs over several leaves",
    )
    if rail and not indices:
        counts.note = "rail-optimised, but the NIC names carry no index to count rails by"
    return counts, dict(host_caps)


def _most_common(values: Iterable[int]) -> tuple[int | None, bool]:
    counter = Counter(values)
    if not counter:
        return None, True
    return counter.most_common(1)[0][0], len(counter) == 1


def _injection(host_caps: dict[str, int], topo: Topology, roles: dict[str, str]) -> Injection:
    nic_speeds = [cable.speed_mbps for _a, _b, cable in topo.role_edges().get(("host", "leaf"), ())
                  if cable.speed_mbps]
    per_nic, nic_uniform = _most_common(nic_speeds)
    per_host, host_uniform = _most_common(v for v in host_caps.values() if v)
    note = None
    if per_nic is None:
        note = "not determined: no host cable has a known speed"
    elif not (nic_uniform and host_uniform):
        note = "hosts differ: the most common values are shown"
    return Injection(
        per_nic_mbps=per_nic, per_host_mbps=per_host, uniform=nic_uniform and host_uniform,
        note=note, source="per NIC: the rate of its cable to the leaf; per host: the sum over "
        f"its NICs (most common over {_plural(len(host_caps), 'host')})")


def _class(topo: Topology, counts: Counts) -> TopologyClass:
    tiers = [t for t in ("leaf", "spine", "super-spine") if counts.switches.get(t)]
    pods: int | None = None
    note = None
    found = {n.pod for n in topo.nodes.values() if n.role == "leaf"} - {None}
    pods = len(found) if found else None
    if pods is None and len(tiers) > 1:
        note = "pods: not determined (no leaf with uplinks to group by)"
    if len(tiers) == 3:
        name = "3-tier fat tree"
    elif tiers == ["leaf", "spine"]:
        name = "2-tier fat tree (leaf-spine)"
    elif tiers == ["leaf"]:
        name = "single switch tier"
    else:
        name = "other"
    rail = counts.rails is not None or bool(counts.note and "rail" in counts.note)
    single = counts.switches.get("spine") == 1
    qualifiers = [q for q, on in (("rail-optimised", rail), ("director-based", counts.chassis),
                                  ("single spine", single)) if on]
    if pods and pods > 1:
        qualifiers.insert(0, f"{pods} pods")
    if qualifiers:
        name += ", " + ", ".join(qualifiers)
    return TopologyClass(
        name=name, tiers=len(tiers), pods=pods, rail_optimised=rail,
        director_based=bool(counts.chassis), single_spine=single, note=note,
        source="switch tiers by distance from the hosts (fablint/topology.py); rail-optimised "
        "when most multi-NIC hosts spread their NICs over several leaves (as TOP003); pods and "
        "director chassis from the topology's grouping")


def _leaf_ratios(topo: Topology, caps: dict[str, tuple[int, int, int]]) -> list[LeafRatio]:
    rows = []
    for node in topo.nodes.values():
        if node.role != "leaf":
            continue
        down, up, unknown = caps[node.name]
        ratio = round(down / up, 4) if up and down and not unknown else None
        rows.append(LeafRatio(leaf=node.name, host_mbps=down, uplink_mbps=up, ratio=ratio))
    rows.sort(key=lambda r: _natural(r.leaf))
    return rows


def _natural(name: str) -> tuple[Any, ...]:
    import re

    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name))


def _oversubscription(topo: Topology, caps: dict[str, tuple[int, int, int]]
                      ) -> Oversubscription:
    rows = _leaf_ratios(topo, caps)
    known = [r for r in rows if r.ratio is not None]
    ratios = [r.ratio for r in known if r.ratio is not None]
    tiers = []
    for role in ("leaf", "spine"):
        members = [n.name for n in topo.nodes.values() if n.role == role]
        totals = [caps[m] for m in members]
        if not members:
            continue
        down = sum(d for d, _, _ in totals)
        up = sum(u for _, u, _ in totals)
        if not up:
            continue  # the top tier: nothing above it
        unknown = any(u for _, _, u in totals)
        tiers.append(TierRatio(tier=role, members=len(members), down_mbps=down, up_mbps=up,
                               ratio=None if unknown or not down else round(down / up, 4)))
    worst = sorted(known, key=lambda r: (-(r.ratio or 0), _natural(r.leaf)))[:WORST_LEAVES]
    return Oversubscription(
        leaves=len(rows), minimum=min(ratios) if ratios else None,
        median=round(statistics.median(ratios), 4) if ratios else None,
        maximum=max(ratios) if ratios else None, worst=worst,
        unknown=[r.leaf for r in rows if r.ratio is None], per_leaf=rows, tiers=tiers,
        note=None if ratios or not rows else "not determined: no leaf has both host and uplink "
        "cables of known speed",
        source="per leaf: capacity of its cables to hosts over that of its cables to the tier "
        "above (as TOP001); per tier: the sums over the tier (as TOP002); service hosts and "
        "cables within a tier count in neither")


def _bisection(topo: Topology, hosts: int) -> BisectionFact:
    b = topo.bisection
    if b is None:
        return BisectionFact(source="fablint/topology.py bisection()", note="not determined: "
                             "needs two or more leaves whose cables all have a known speed")
    per_host = b.mbps * 2 // hosts if hosts else None
    return BisectionFact(
        mbps=b.mbps, ideal_mbps=b.ideal_mbps,
        percent=round(100 * b.mbps / b.ideal_mbps, 1) if b.ideal_mbps else None,
        exact=b.exact, method=b.method, per_host_mbps=per_host,
        source=f"{'exact' if b.exact else 'upper bound'} ({b.method}): {b.why}; per host: "
        f"bisection / (hosts / 2) over {_plural(hosts, 'host')}")


def _non_blocking(over: Oversubscription, bis: BisectionFact, single: bool = False
                  ) -> NonBlocking:
    if single:
        return NonBlocking(value=True, reasons=["every host is on one switch, whose ASIC "
                                                "switches all its ports at line rate"],
                           source="one switch and no other tier in the cabling")
    reasons: list[str] = []
    blocking = False
    if over.maximum is not None and over.maximum > 1 + 1e-9:
        blocking = True
        worst = over.worst[0]
        reasons.append(f"leaf {worst.leaf} is oversubscribed {ratio_text(worst.ratio)}")
    for tier in over.tiers:
        if tier.ratio is not None and tier.ratio > 1 + 1e-9:
            blocking = True
            reasons.append(f"the {tier.tier} tier is oversubscribed {ratio_text(tier.ratio)}")
    if bis.mbps is not None and bis.ideal_mbps and bis.mbps < bis.ideal_mbps:
        blocking = True
        reasons.append(f"bisection {gbps(bis.mbps)} is below the ideal {gbps(bis.ideal_mbps)}")
    source = "every leaf and tier ratio at most 1:1 and bisection equal to half the host " \
        "capacity"
    if blocking:
        return NonBlocking(value=False, reasons=reasons, source=source)
    unknown = []
    if over.maximum is None or over.unknown:
        unknown.append("per-leaf ratios" if over.maximum is None else
                       f"the ratio of {_plural(len(over.unknown), 'leaf', 'leaves')}")
    if bis.mbps is None:
        unknown.append("bisection")
    if unknown:
        return NonBlocking(value=None, source=source,
                           note="not determined: unknown " + " and ".join(unknown))
    reasons.append("every leaf and tier at most 1:1, bisection "
                   f"{'equal to' if bis.exact else 'bounded at'} the ideal")
    return NonBlocking(value=True, reasons=reasons, source=source,
                       note=None if bis.exact else "bisection is an upper bound")


def _lossless(devices: list[DeviceDigest], policy: Policy, kind: str) -> Lossless:
    switches = [d for d in devices if d.switch and d.qos_groups]
    hosts = [n for d in devices for n in d.nics]
    source = "switch configurations: PFC per fabric port (as PFC001), the path of the profile's " \
        f"RoCE DSCPs {', '.join(map(str, policy.classification.roce_dscp))} (as QOS001), ECN on " \
        "the queue of every lossless priority (as ECN001), PFC watchdog; host NIC inputs: " \
        "DCQCN notification and reaction points (as DCQ001)"
    if "Ethernet" not in kind:
        return Lossless(source="the fabric kind", note="InfiniBand: credit-based flow "
                        "control, lossless by design; no RoCE settings apply")
    if not switches and not hosts:
        return Lossless(source=source, applies=True,
                        note="not determined: no switch configuration or host NIC input read")
    pfc: Counter[str] = Counter()
    pfc_where: dict[str, set[str]] = defaultdict(set)
    path: dict[str, set[str]] = defaultdict(set)
    trust: Counter[str] = Counter()
    thresholds: dict[str, set[str]] = defaultdict(set)
    unmarked: list[str] = []
    dogs: list[str] = []
    pauses: list[str] = []
    lossless = set(policy.pfc.lossless_priorities)
    roce = set(policy.classification.roce_dscp)
    for device in switches:
        marks = True
        for group in device.qos_groups:
            label = "priority " + ",".join(map(str, group.pfc_priorities)) \
                if group.pfc_priorities else "off"
            pfc[label] += len(group.ports)
            pfc_where[label].add(device.name)
            trust[group.trust or "not set (platform default)"] += len(group.ports)
            for step in group.chain:
                dscps = _expand(step.dscps)
                shown = dscps if step.lossless else dscps & roce
                if shown:
                    path[f"DSCP {fmt_ranges(shown)} -> TC {step.traffic_class} -> priority "
                         f"{step.priority} -> queue {step.queue} "
                         f"({'lossless' if step.lossless else 'lossy'})"].add(device.name)
            for queue in group.queues:
                if queue.lossless_priorities and set(queue.lossless_priorities) & (
                        lossless | set(group.pfc_priorities)):
                    if queue.ecn is None:
                        marks = False
                    else:
                        lo, hi, prob = queue.ecn
                        thresholds[f"{lo or '?'} - {hi or '?'}"
                                   f"{f', {prob} %' if prob is not None else ''}"
                                   ].add(device.name)
        if any(g.link_pause for g in device.qos_groups):
            pauses.append(device.name)
        if any(g.watchdog for g in device.qos_groups):
            dogs.append(device.name)
        if not marks:
            unmarked.append(device.name)
    n = len(switches)
    ports = sum(pfc.values())

    def few(names: Iterable[str], count: int, of: int) -> list[str]:
        names = sorted(names, key=_natural)
        return names[:4] if count * 2 <= of else []

    dcqcn = None
    nic_pfc: Counter[str] = Counter()
    reported = [nic for nic in hosts if nic.np_priorities is not None
                or nic.rp_priorities is not None]
    if reported:
        on = sum(1 for nic in reported
                 if lossless <= set(nic.np_priorities or ()) and
                 lossless <= set(nic.rp_priorities or ()))
        dcqcn = Share(what=f"NP and RP on priority {','.join(map(str, sorted(lossless)))}",
                      count=on, of=len(reported), unit="NICs reporting DCQCN")
    for nic in hosts:
        if nic.pfc_priorities is not None:
            nic_pfc["priority " + ",".join(map(str, nic.pfc_priorities))
                    if nic.pfc_priorities else "off"] += 1
    notes = []
    if not switches:
        notes.append("no switch configuration read")
    if not reported:
        notes.append("DCQCN on NICs: not known (no host NIC input reports it)")
    marking = n - len(unmarked)
    return Lossless(
        applies=True, switches=n,
        pfc=[Share(what=w, count=c, of=ports, unit="fabric ports",
                   where=few(pfc_where[w], c, ports)) for w, c in pfc.most_common()],
        roce_path=[Share(what=w, count=len(d), of=n, where=few(d, len(d), n))
                   for w, d in sorted(path.items(), key=lambda kv: -len(kv[1]))],
        ecn=Share(what="ECN marking on every lossless queue", count=marking, of=n) if n else None,
        ecn_missing=Share(what="a lossless queue without ECN marking", count=len(unmarked),
                          of=n, where=sorted(unmarked, key=_natural)[:4]) if unmarked else None,
        ecn_thresholds=[Share(what=w, count=len(d), of=n, where=few(d, len(d), n))
                        for w, d in sorted(thresholds.items(), key=lambda kv: -len(kv[1]))[:4]],
        watchdog=Share(what="PFC watchdog", count=len(dogs), of=n) if n else None,
        link_pause=Share(what="802.3x pause on a fabric port", count=len(pauses), of=n,
                         where=few(pauses, len(pauses), n)) if n else None,
        trust=[Share(what=w, count=c, of=ports, unit="fabric ports")
               for w, c in trust.most_common()],
        nics=len(hosts), dcqcn=dcqcn,
        nic_pfc=[Share(what=w, count=c, of=len(hosts), unit="NICs")
                 for w, c in nic_pfc.most_common()],
        note="; ".join(notes) or None, source=source)


def _expand(ranges: str) -> set[int]:
    out: set[int] = set()
    for part in ranges.split(", "):
        if "-" in part:
            lo, hi = part.split("-")
            out.update(range(int(lo), int(hi) + 1))
        elif part.isdigit():
            out.add(int(part))
    return out


# -- rendering --------------------------------------------------------------------------------

def _share(share: Share | None) -> str:
    return "not determined" if share is None else share.text()


def _yes(value: bool | None) -> str:
    return "not determined" if value is None else "yes" if value else "no"


def rows(ds: Datasheet) -> list[tuple[str, str, str]]:
    """(fact, value, source) rows: what every renderer shows, in order."""
    c, inj, t, o, b, nb, ll = (ds.counts, ds.injection, ds.topology, ds.oversubscription,
                               ds.bisection, ds.non_blocking, ds.lossless)
    out: list[tuple[str, str, str]] = [("Fabric kind", ds.kind.kind, ds.kind.source)]
    links = "; ".join(
        f"{r.tiers}: {r.cables} x {r.generation or gbps(r.rate_mbps)}"
        + (f" ({gbps(r.rate_mbps)})" if r.generation and r.rate_mbps
           and not r.generation.endswith("GbE") else "")
        for r in ds.links.rates) or (ds.links.note or "none")
    out.append(("Link generation and rate", links, ds.links.source))
    sw = ", ".join(f"{n} {_tier_name(t_, n)}" for t_, n in c.switches.items()) or "none"
    extra = [f"{label}: {n}" for label, n in (("director chassis", c.chassis),
                                              ("SHARP aggregation nodes", c.aggregation_nodes))
             if n]
    if not c.switches and c.note:
        sw = c.note
    out.append(("Switches per tier", sw + (f" ({'; '.join(extra)})" if extra else ""),
                "roles from the cabling (fablint/topology.py): leaves are the switches cabled "
                "to hosts, spines and super-spines the tiers above"))
    hosts = f"{_plural(c.hosts, 'host')}, {_plural(c.nics, 'NIC')}"
    if c.nics_per_host:
        hosts += f" ({c.nics_per_host} per host)"
    if c.rails:
        hosts += f", {c.rails} rails"
    if c.service_hosts:
        hosts += f"; {c.service_hosts} service hosts left out"
    if c.management_links:
        hosts += f"; {c.management_links} management-port neighbours left out"
    if not c.hosts and c.note:
        hosts = c.note
    elif c.note:
        hosts += f" ({c.note})"
    out.append(("Hosts and NICs", hosts,
                "the cabling: hosts are the NIC ends cabled to leaves, NICs their ports; rails "
                "the distinct NIC indices (mlx5_N, ethN) when most multi-NIC hosts spread their "
                "NICs over several leaves"))
    injection = (inj.note or "not determined") if inj.per_nic_mbps is None else (
        f"{gbps(inj.per_nic_mbps)} per NIC, {gbps(inj.per_host_mbps)} per host"
        + (f" ({inj.note})" if inj.note else ""))
    out.append(("Injection bandwidth", injection, inj.source))
    out.append(("Topology", t.note if t.tiers == 0 and t.note else
                t.name + (f"; {t.note}" if t.note else ""), t.source))
    if o.maximum is not None:
        leaf = (f"min {ratio_text(o.minimum)}, median {ratio_text(o.median)}, max "
                f"{ratio_text(o.maximum)} over {o.leaves} leaves")
        if o.worst and (o.maximum or 0) > (o.minimum or 0):
            leaf += "; worst: " + ", ".join(f"{w.leaf} {ratio_text(w.ratio)}" for w in o.worst)
        if o.unknown:
            leaf += f"; {len(o.unknown)} unknown"
    else:
        leaf = o.note or "not determined"
    out.append(("Oversubscription per leaf", leaf, o.source))
    out.append(("Oversubscription per tier", "; ".join(
        f"{tr.tier} tier {ratio_text(tr.ratio)} ({gbps(tr.down_mbps)} below, "
        f"{gbps(tr.up_mbps)} above)" for tr in o.tiers) or "not determined", o.source))
    if b.mbps is not None:
        bis = (f"{gbps(b.mbps)} of an ideal {gbps(b.ideal_mbps)} ({b.percent:g} %, "
               f"{'exact' if b.exact else 'upper bound'}); {gbps(b.per_host_mbps)} per host")
    else:
        bis = b.note or "not determined"
    out.append(("Bisection bandwidth", bis, b.source))
    if nb.value is None:
        blocking = nb.note or "not determined"
    else:
        blocking = _yes(nb.value) + (": " + "; ".join(nb.reasons) if nb.reasons else "") + \
            (f" ({nb.note})" if nb.note else "")
    out.append(("Non-blocking", blocking, nb.source))
    if not ll.applies or (ll.note and not ll.switches and not ll.nics):
        out.append(("Lossless regime", ll.note or "not determined", ll.source))
        return out
    out.append(("PFC", _shares(ll.pfc), "configurations: PFC priorities in force on each "
                "fabric port (after device-wide switches), as PFC001 reads them"))
    out.append(("Trust", _shares(ll.trust), "configurations: the classification trust of "
                "each fabric port"))
    out.append(("DSCP paths", _shares(ll.roce_path), "configurations: DSCP -> traffic "
                "class -> PFC priority -> queue of every lossless class, and of the profile's "
                "RoCE DSCPs (classification.roce_dscp) wherever they go; lossless when PFC "
                "pauses that priority on the port (as QOS001 follows it)"))
    ecn = _share(ll.ecn)
    if ll.ecn_missing:
        ecn += "; " + ll.ecn_missing.text()
    if ll.ecn_thresholds:
        ecn += "; thresholds " + "; ".join(s.text() for s in ll.ecn_thresholds)
    out.append(("ECN", ecn, "configurations: ECN marking on the egress queue of every "
                "lossless priority of every fabric port (as ECN001), min - max threshold and "
                "marking probability"))
    out.append(("PFC watchdog", _share(ll.watchdog), "configurations: a PFC watchdog on a "
                "fabric port"))
    out.append(("802.3x pause", _share(ll.link_pause), "configurations: link-level pause "
                "on a fabric port"))
    out.append(("DCQCN on NICs", _share(ll.dcqcn) if ll.dcqcn else
                "not known (no host NIC input reports it)", "host inputs (mlnx_qos, ECN sysfs, "
                "mlxconfig, host facts): DCQCN notification (NP) and reaction (RP) points per "
                "priority (as DCQ001)"))
    if ll.nic_pfc:
        out.append(("PFC on NICs", _shares(ll.nic_pfc), "host inputs: the NICs' PFC vector"))
    return out


def _shares(shares: list[Share]) -> str:
    return "; ".join(s.text() for s in shares) or "not determined"


def _tier_name(tier: str, n: int) -> str:
    if tier == "switch":
        return "other " + ("switch" if n == 1 else "switches") + " (tier not determined)"
    if tier == "unknown":
        return ("node" if n == 1 else "nodes") + " the cabling does not place"
    if n == 1:
        return tier
    return "leaves" if tier == "leaf" else tier + ("es" if tier.endswith("switch") else "s")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(ds: Datasheet) -> str:
    """The datasheet as a Markdown table (figure, value, where it comes from)."""
    lines = ["# Fabric datasheet", "", "| Figure | Value | Source |", "|---|---|---|"]
    lines += [f"| {_cell(a)} | {_cell(v)} | {_cell(s)} |" for a, v, s in rows(ds)]
    o = ds.oversubscription
    if o.per_leaf:
        lines += ["", "## Oversubscription per leaf", "", "| Leaf | Hosts | Uplinks | Ratio |",
                  "|---|---:|---:|---:|"]
        shown = sorted(o.per_leaf, key=lambda r: -(r.ratio or 0))[:32]
        lines += [f"| {_cell(r.leaf)} | {gbps(r.host_mbps)} | {gbps(r.uplink_mbps)} | "
                  f"{ratio_text(r.ratio)} |" for r in shown]
        if len(o.per_leaf) > len(shown):
            lines.append(f"\n{len(o.per_leaf) - len(shown)} more leaves in the JSON output.")
    return "\n".join(lines) + "\n"


def render_text(ds: Datasheet) -> str:
    width = max(len(a) for a, _, _ in rows(ds))
    return "\n".join(f"{a:<{width}}  {v}" for a, v, _ in rows(ds)) + "\n"
