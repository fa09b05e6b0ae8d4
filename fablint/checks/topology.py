"""Topology rules: the cabling of the fabric (``Fabric.topology``), not one device's settings.

The topology is joined from LLDP tables, SONiC DEVICE_NEIGHBOR and IB dumps before these rules
run; each rule reads it from the model. They are fabric rules that need no device models of
their own: the configured facts of each cable's ends travel with the cable.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from fablint.checks.base import Context, DeviceSummary, FabricRule, register
from fablint.findings import Finding, FixIntent, Severity, fmt_gbps
from fablint.model import Cable, Device, SourceRef, Topology, components

_NIC_INDEX = re.compile(r"^(?:mlx\d+_|eth|ib|ens\d+f|enp\d+s\d+f(?:\d+np)?|rdma|nic|hca-?)(\d+)$",
                        re.I)
"""A NIC's index from its name: mlx5_3, eth3, ib3, ens1f3, HCA-3 (not a switch port number)."""


def _nic_index(port: str) -> int | None:
    """A NIC's 0-based index: ``mlx5_N``, ``ethN``, ``ibN`` count from 0, ``HCA-N`` from 1
    (``HCA-1`` is the first NIC, like ``mlx5_0``), so that both conventions compare."""
    match = _NIC_INDEX.search(port)
    if not match:
        return None
    number = int(match.group(1))
    return number - 1 if port.lower().startswith("hca") and number > 0 else number


class TopologyRule(FabricRule):
    """Reads ``Fabric.topology``; keeps nothing of the devices but their names and files."""

    vendors = ("eos", "nxos", "sonic", "lldp")
    needs_topology: bool = True
    requires = frozenset({"links"})

    def summarize(self, device: Device, ctx: Context) -> Any:
        return None

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        topo = ctx.fabric.topology
        if topo is None:
            return
        self._devices = {s.name: s for s in summaries}
        yield from self.check_topology(topo, ctx)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        raise NotImplementedError

    def at(self, topo: Topology, name: str, obj: str | None, where: SourceRef | None,
           message: str, **kwargs: Any) -> Finding:
        """A finding about node ``name``: in its configuration when fablint read it, else at
        the cable claim that shows it."""
        device = getattr(self, "_devices", {}).get(name)
        if where is None:
            where = _place_of(topo, name)
        objects = kwargs.pop("objects", None)
        finding = self.finding(device, obj, where, message, **kwargs)
        finding.device = name
        if objects:
            finding.objects = list(objects)
        return finding


def _place_of(topo: Topology, name: str, cables: Iterable[Cable] | None = None) -> SourceRef | None:
    """Where a finding about node ``name`` points: the configured line of one of its cabled
    ports, else the dump / LLDP line of one of its cables (so that SARIF and GitHub
    annotations can place it)."""
    chosen = list(cables) if cables is not None else topo.cables_of(name)
    for cable in chosen:
        port = cable.a_port if cable.a.device == name else cable.b_port
        if port is not None and port.src is not None and port.src.line:
            return port.src
    return next((s for c in chosen for s in c.sources), None)


def _few(names: list[str], limit: int = 4) -> str:
    """A bounded list for a message: the first few names and how many more."""
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown}, ... ({len(names) - limit} more)"


def _other(cable: Cable, name: str) -> str:
    return cable.b.device if cable.a.device == name else cable.a.device


def _fabrics(topo: Topology, ctx: Context) -> list[set[str]]:
    """Nodes joined by cables: one set per separate fabric in the inputs (a run may mix
    several, such as a front-end and a back-end network, which are judged apart)."""

    def compute() -> list[set[str]]:
        find = topo.roots().__getitem__
        groups: dict[str, set[str]] = defaultdict(set)
        for name in topo.nodes:
            groups[find(name)].add(name)
        return list(groups.values())

    return ctx.once("fabrics", topo, compute)


def _fabric_roles(topo: Topology, ctx: Context) -> list[tuple[set[str], dict[str, list[str]]]]:
    """Each separate fabric with its members by role, in the nodes' order: a rule that wants
    one role's members of a fabric reads them here. Filtering every node of a role per fabric
    instead was quadratic in the fabrics: 1,024 separate SONiC ToRs with 28,000 neighbours
    spent 4.5 s in TOP008 alone."""

    def compute() -> list[tuple[set[str], dict[str, list[str]]]]:
        fabrics = _fabrics(topo, ctx)
        roles: list[dict[str, list[str]]] = [{} for _ in fabrics]
        where = {name: roles[i] for i, fabric in enumerate(fabrics) for name in fabric}
        for name, node in topo.nodes.items():
            out = where[name]
            role = node.role
            if role in out:
                out[role].append(name)
            else:
                out[role] = [name]
        return list(zip(fabrics, roles, strict=True))

    return ctx.once("fabrics by role", topo, compute)


def _groups(nics: dict[str, list[tuple[int, str, Cable]]]
            ) -> list[dict[str, list[tuple[int, str, Cable]]]]:
    """Servers grouped by the leaves they share (connected through common leaves), each
    group in the servers' order. Leaves are joined through each server's (its first leaf to
    each other one, each pair once), and a server goes to the group of its first leaf: the
    same groups as joining servers and leaves, without a node per server."""
    find = components({(entries[0][1], leaf) for entries in nics.values()
                       for _, leaf, _ in entries[1:]})
    groups: dict[str, dict[str, list[tuple[int, str, Cable]]]] = defaultdict(dict)
    for host, entries in nics.items():
        groups[find(entries[0][1])][host] = entries
    return list(groups.values())


def _first_source(cables: Iterable[Cable]) -> SourceRef | None:
    return next((s for c in cables for s in c.sources), None)


@register
class LeafOversubscription(TopologyRule):
    """A leaf has more host-facing than uplink capacity.

    ## What it checks
    For every leaf, the sum of the speeds of its cables to hosts divided by the sum of the
    speeds of its cables to spines, using the configured port speeds (breakouts count as the
    ports they are; port-channel members count one by one). Above
    `topology.max_leaf_oversubscription` (1.0, non-blocking, for GPU back-end fabrics) is a
    finding. Cables whose speed no input gives are named instead of guessed.

    ## Why it matters
    Collective operations (all-reduce, all-to-all) run every GPU at line rate at once. A leaf
    with 2:1 oversubscription halves the bandwidth of every job step that crosses it, and the
    congestion it creates triggers PFC and ECN far more often, slowing unrelated jobs too.

    ## How to fix
    Add uplinks (or faster optics) until uplink capacity matches host capacity, or move hosts
    to a leaf with spare uplink capacity. If the fabric is oversubscribed by design (a
    front-end network), raise `topology.max_leaf_oversubscription` in the profile.
    """

    id = "TOP001"
    name = "leaf-oversubscription"
    title = "Leaf oversubscribed (host capacity above uplink capacity)"
    severity = Severity.WARNING
    category = "topology"
    settings = ("topology.max_leaf_oversubscription",)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        limit = ctx.policy.topology.max_leaf_oversubscription
        caps = topo.capacity_table()
        for node in topo.nodes.values():
            if node.role != "leaf":
                continue
            down, up, unknown = caps[node.name]
            if unknown or not down or not up:
                continue
            ratio = down / up
            if ratio > limit + 1e-9 and not self._slow_uplinks_only(topo, node.name, down, limit):
                yield self.at(
                    topo, node.name, node.name, None,
                    f"{node.name} is oversubscribed {ratio:.2f}:1: {fmt_gbps(down)} towards hosts, "
                    f"{fmt_gbps(up)} of uplinks (profile allows {limit:g}:1)",
                )


    @staticmethod
    def _slow_uplinks_only(topo: Topology, name: str, down: int, limit: float) -> bool:
        """The leaf would be within the limit if its IB uplinks all ran at the rate its fastest
        one trained at: a link trained below its rate is the cause (IB002 reports it)."""
        cables = topo.cables_of(name)
        if all(c.origin in ("lldp", "config") for c in cables):
            return False  # (so are its uplinks: the test below, without finding them)
        tier = topo.nodes[name].tier or 0
        ups = [c for c in cables if c.speed_mbps
               and (topo.nodes[_other(c, name)].tier or 0) > tier]
        if not ups or all(c.origin in ("lldp", "config") for c in ups):
            return False
        fastest = max(c.speed_mbps or 0 for c in ups)
        design = sum(fastest if c.origin not in ("lldp", "config") else c.speed_mbps or 0
                     for c in ups)
        return down / design <= limit + 1e-9


@register
class TierOversubscription(TopologyRule):
    """A whole tier has more capacity below it than above it.

    ## What it checks
    Per tier (leaves, spines): the sum of capacity towards the tier below divided by the sum
    towards the tier above, for tiers that have a tier above them. Above
    `topology.max_tier_oversubscription` is a finding. The per-leaf rule (TOP001) names single
    leaves; this one shows a fabric built short of spines or super-spines as a whole.

    ## Why it matters
    A fabric whose leaves are each balanced can still be oversubscribed at the spine layer (for
    example spines with 64 leaf-facing ports and 16 super-spine uplinks): every job spanning
    pods then shares the thinner layer.

    ## How to fix
    Add spines / super-spines or uplinks between the tiers, or accept the ratio in the profile.
    """

    id = "TOP002"
    name = "tier-oversubscription"
    title = "Tier oversubscribed"
    severity = Severity.WARNING
    category = "topology"
    settings = ("topology.max_tier_oversubscription",)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        caps = topo.capacity_table()
        for _fabric, by_role in _fabric_roles(topo, ctx):
            yield from self._tiers(topo, ctx.policy.topology.max_tier_oversubscription,
                                   ctx.policy.topology.max_leaf_oversubscription, caps, by_role)

    def _tiers(self, topo: Topology, limit: float, leaf_limit: float,
               caps: dict[str, tuple[int, int, int]],
               by_role: dict[str, list[str]]) -> Iterable[Finding]:
        """``by_role``: one fabric's members by role."""
        for role in ("leaf", "spine"):
            members = sorted(by_role.get(role, ()))
            totals = [caps[name] for name in members]
            if not members or any(unknown for _, _, unknown in totals):
                continue
            if role == "leaf" and len(members) < 2:
                continue  # one leaf's ratio is TOP001's
            if role == "leaf" and any(u and d / u > leaf_limit + 1e-9 for d, u, _ in totals):
                continue  # the oversubscribed leaves are TOP001's: the cause, named one by one
            down = sum(d for d, _, _ in totals)
            up = sum(u for _, u, _ in totals)
            if down and up and down / up > limit + 1e-9:
                yield self.at(
                    topo, members[0], f"{role} tier", None,
                    f"the {role} tier is oversubscribed {down / up:.2f}:1: {fmt_gbps(down)} below, "
                    f"{fmt_gbps(up)} above, over {len(members)} "
                    f"{'leaves' if role == 'leaf' else 'spines'} (profile allows {limit:g}:1)",
                )


@register
class RailAlignment(TopologyRule):
    """A server's NIC is not on its rail leaf.

    ## What it checks
    In a rail-optimised fabric NIC *i* of every server lands on rail leaf *i*, and a server's
    NICs land on distinct leaves. The rail of a leaf is the NIC index most of its servers use
    on it (from the host port name or LLDP port description: `mlx5_3`, `eth3`, `ens1f3`); a
    NIC on a leaf of another rail, or two NICs of one server on the same leaf, is a finding.
    `topology.rail_optimised: auto` runs the check when most servers spread their NICs over
    several leaves.

    ## Why it matters
    NCCL's rail-aware rings send the traffic of GPU *i* over NIC *i*; with rail alignment that
    traffic stays on one leaf (one hop) between servers of a scalable unit. A swapped cable
    sends one rail's traffic through the spines, doubling its hops and adding congestion that
    shows up as one slow rank in every collective.

    ## How to fix
    Swap the cables so that the NIC goes to the leaf of its rail (the message names both). If
    the fabric is not rail-optimised by design, set `topology.rail_optimised: "no"`.
    """

    id = "TOP003"
    name = "rail-alignment"
    title = "NIC not on its rail leaf"
    severity = Severity.ERROR
    category = "topology"
    settings = ("topology.rail_optimised",)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        nics: dict[str, list[tuple[int, str, Cable]]] = defaultdict(list)
        indexes: dict[str, int | None] = {}  # (50,000 host cables name a few NICs)
        edges = topo.role_edges().get(("host", "leaf"), ())
        role = topo.roles().get
        # Only a server with two cables or more to leaves can be judged (``multi`` below):
        # its cables alone are read (24,000 one-cable servers of 1,024 SONiC ToRs are not).
        hosts = [a if role(a) == "host" else b for a, b, _ in edges]  # each cable's server
        cabled = Counter(hosts)
        nodes = topo.nodes
        service: dict[str, bool] = {}  # (a server's flag read once, not once a cable)
        for (a_device, b_device, cable), host in zip(edges, hosts, strict=True):
            if cabled[host] < 2:
                continue
            # (the ends' names from the view: an Endpoint's field read costs more)
            if host is a_device:
                port, leaf = cable.a.interface, b_device
            else:
                port, leaf = cable.b.interface, a_device
            index = indexes[port] if port in indexes else \
                indexes.setdefault(port, _nic_index(port))
            if index is None:
                continue
            aside = service.get(host)
            if aside is None:
                aside = service[host] = nodes[host].service
            if not aside:
                nics[host].append((index, leaf, cable))
        multi = {h: v for h, v in nics.items() if len(v) > 1}
        mode = ctx.policy.topology.rail_optimised
        # Each group of servers that shares leaves (a fabric, or a scalable unit with its own
        # leaves) decides for itself whether it is rail-optimised.
        multi = {h: v for group in _groups(multi) if self._applies(group, mode)
                 for h, v in group.items()}
        if not multi:
            return
        rails: dict[str, Counter[int]] = defaultdict(Counter)
        for entries in multi.values():
            for index, leaf, _ in entries:
                rails[leaf][index] += 1
        rail_of = {leaf: counts.most_common(1)[0] for leaf, counts in rails.items()}
        for host, entries in sorted(multi.items()):
            by_leaf: dict[str, list[int]] = defaultdict(list)
            for index, leaf, cable in entries:
                by_leaf[leaf].append(index)
                rail, count = rail_of[leaf]
                if index != rail and count > 1:
                    port = cable.a.interface if cable.a.device == host else cable.b.interface
                    yield self.at(
                        topo, host, port, _first_source([cable]),
                        f"{host} NIC {index} ({port}) is cabled to {leaf}, the leaf of rail "
                        f"{rail} ({count} servers put NIC {rail} there): move it to its own rail "
                        "leaf",
                    )
            for leaf, indices in sorted(by_leaf.items()):
                if len(indices) > 1:
                    yield self.at(
                        topo, host, host, None,
                        f"{host} has NICs {', '.join(map(str, sorted(indices)))} on one leaf "
                        f"({leaf}): a rail-optimised server puts each NIC on a different leaf",
                    )

    @staticmethod
    def _applies(multi: dict[str, list[tuple[int, str, Cable]]], mode: str) -> bool:
        if mode != "auto":
            return mode == "yes"
        spread = sum(1 for entries in multi.values() if len({leaf for _, leaf, _ in entries}) > 1)
        return spread * 2 > len(multi)


@register
class ClosMesh(TopologyRule):
    """A leaf is not cabled to every spine with the same number and speed of links.

    ## What it checks
    Within a pod (the leaves and spines joined by leaf-spine cables; a two-tier fabric is one
    pod) every leaf connects to every spine, and within a plane of a three-tier fabric every
    spine to every super-spine, with the same number of cables and the same speed to each (ECMP
    balance). A spine that several leaves miss is one finding on the spine; a leaf missing a
    spine, an extra or missing parallel cable, or a slower cable is a finding on the leaf,
    naming what the majority of pairs have. Messages name a few switches; the JSON report's
    `objects` lists them all. For InfiniBand cables the number of cables is compared, not
    their speed: a link that trained narrow or slow is IB001's or IB002's finding, said once
    there with its fix.

    ## Why it matters
    ECMP spreads flows evenly over the uplinks regardless of their capacity: a leaf with one
    fewer cable to one spine, or one slower optic, turns that path into the bottleneck of every
    flow hashed onto it; a leaf that misses a spine loses that share of its bisection.

    ## How to fix
    Add or repair the cable (the message names leaf and spine), or fix the port speed.
    """

    id = "TOP004"
    name = "clos-mesh"
    title = "Leaf-to-spine mesh incomplete or unbalanced"
    severity = Severity.WARNING
    category = "topology"

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        roles = topo.roles()
        for lower, upper in (("leaf", "spine"), ("spine", "super-spine")):
            reach = _reach(topo, lower, upper)
            for group in topo.tier_groups(lower, upper):
                yield from self._mesh(topo, group, lower, upper, roles, reach)

    def _mesh(self, topo: Topology, group: set[str], lower: str, upper: str,
              roles: Mapping[str, str], reach: dict[str, dict[str, list[Cable]]],
              ) -> Iterable[Finding]:
        uppers = sorted(n for n in group if roles.get(n) == upper)
        lowers = sorted(n for n in group if roles.get(n) == lower)
        if not uppers or len(lowers) < 2:
            return
        where = "pod" if lower == "leaf" else "plane"
        shape: dict[str, dict[str, tuple[int, tuple[int | None, ...]]]] = {}
        cables_to: dict[str, dict[str, list[Cable]]] = {}
        for name in lowers:
            # (its cables to the upper tier: those of its group, the group being joined by them)
            per_upper = cables_to[name] = reach.get(name, {})
            # an IB cable's speed is what it trained at: IB001/IB002 judge that per link
            # (a 1x cable is their finding, this one's would repeat it); here its count only
            shape[name] = {s: (len(c), tuple(sorted(
                0 if x.infiniband else x.speed_mbps or 0 for x in c)) if len(c) > 1 else
                (0 if c[0].infiniband else c[0].speed_mbps or 0,))
                for s, c in per_upper.items()}
        typical = Counter(v for s in shape.values() for v in s.values()).most_common(1)[0][0]
        missing = {name: [u for u in uppers if u not in per] for name, per in shape.items()}
        # An upper switch that several lower ones miss is the cause: one finding on it.
        missed_by: dict[str, list[str]] = defaultdict(list)
        for name, gone in missing.items():
            for u in gone:
                missed_by[u].append(name)
        for u, names in sorted(missed_by.items()):
            if len(names) > 1:
                yield self.at(
                    topo, u, u, None,
                    f"{u} has no cable to {len(names)} of the {len(lowers)} "
                    f"{_plural(lower)} of its {where} ({_few(names)}); the others reach it",
                    objects=names)
        for name, gone in sorted(missing.items()):
            alone = [u for u in gone if len(missed_by[u]) == 1]
            if alone:
                yield self.at(
                    topo, name, name, None,
                    f"{name} has no cable to {len(alone)} of the {len(uppers)} "
                    f"{_plural(upper)} of its {where} ({_few(alone)}); every other {lower} "
                    f"reaches them", objects=alone)
        for name, per_upper in sorted(shape.items()):
            if all(value == typical for value in per_upper.values()):
                continue
            odd = [(u, count, speeds) for u, (count, speeds) in sorted(per_upper.items())
                   if (count, speeds) != typical]
            u, count, speeds = odd[0]
            more = f" and to {len(odd) - 1} more {_plural(upper)}" if len(odd) > 1 else ""
            yield self.at(
                topo, name, f"{name}-{u}",
                _place_of(topo, name, cables_to[name][u]),
                f"{name} has {count} cable(s) to {u}{_at(speeds)}{more}; most "
                f"{lower}-{upper} pairs have {typical[0]}{_at(typical[1])}",
                objects=[o[0] for o in odd])


def _reach(topo: Topology, lower: str, upper: str) -> dict[str, dict[str, list[Cable]]]:
    """Each ``lower`` switch -> the ``upper`` ones its cables reach -> those cables, in the
    cables' order (one pass over the cables between the two tiers)."""
    reach: dict[str, dict[str, list[Cable]]] = {}
    key = (lower, upper) if lower <= upper else (upper, lower)
    role = topo.roles().get
    for a, b, cable in topo.role_edges().get(key, ()):
        low, high = (a, b) if role(a) == lower else (b, a)
        per_upper = reach.get(low)
        if per_upper is None:
            per_upper = reach[low] = {}
        if high in per_upper:
            per_upper[high].append(cable)
        else:
            per_upper[high] = [cable]
    return reach


def _at(speeds: tuple[int, ...]) -> str:
    """`` at 400G/100G``; nothing where no speed is compared (InfiniBand cables)."""
    if not any(speeds):
        return ""
    return " at " + "/".join(fmt_gbps(s) if s else "?" for s in speeds)


def _plural(role: str) -> str:
    return {"leaf": "leaves"}.get(role, role + "s")


@register
class LinkSpeedMismatch(TopologyRule):
    """The two ends of a cable are configured for different speeds.

    ## What it checks
    For every cable whose both ends fablint read the configuration of, the configured port
    speeds must be equal.

    ## Why it matters
    Mismatched speeds either keep the link down or, with auto-negotiation, train it at the
    lower speed: a silent capacity loss on one path that ECMP keeps loading as if it were full.

    ## How to fix
    Set the same speed (and breakout mode) on both ends.
    """

    id = "TOP005"
    name = "link-speed-mismatch"
    title = "Ends of a cable configured for different speeds"
    severity = Severity.ERROR
    category = "topology"

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        for cable in topo.cables:
            a, b = cable.a_port, cable.b_port
            if a and b and a.speed_mbps and b.speed_mbps and a.speed_mbps != b.speed_mbps:
                yield self.at(
                    topo, cable.a.device, cable.a.interface, a.src,
                    f"{cable.a.device} {cable.a.interface} runs at {fmt_gbps(a.speed_mbps)} "
                    f"but its peer {cable.b.device} {cable.b.interface} at "
                    f"{fmt_gbps(b.speed_mbps)}",
                    related=[b.src],
                )


def _leaf_uplinks_explain(topo: Topology, ctx: Context) -> bool:
    """Is an exact Clos bisection set by the leaves' uplinks, on leaves TOP001 reports? Then
    the bisection's shortfall is a consequence of their oversubscription (a 2:1 leaf tier is a
    50 % bisection), said once by TOP001."""
    b = topo.bisection
    if b is None or not b.exact or b.method != "clos":
        return False
    caps = topo.capacity_table()
    leaves = [caps[n] for n, r in topo.roles().items() if r == "leaf"]
    host = sum(d for d, _, _ in leaves)
    up = sum(u for _, u, _ in leaves)
    limit = ctx.policy.topology.max_leaf_oversubscription
    return up < host and b.mbps == up // 2 and \
        any(u and d / u > limit + 1e-9 for d, u, _ in leaves)


@register
class BisectionBandwidth(TopologyRule):
    """The fabric's bisection bandwidth is below the ideal.

    ## What it checks
    The bisection bandwidth of the cabling (exact for a uniform two-tier Clos, otherwise the
    smallest cut found by Kernighan-Lin bisection, an upper bound) compared with the ideal,
    half the host-facing capacity (when the host ports run at different rates, the capacity
    of the slower half of them: no fabric does better). Below
    `topology.min_bisection_ratio` of the ideal is a finding. `fablint topo` shows the figure
    and how it was obtained. When the leaves' uplinks are the narrowest part of a uniform Clos
    and TOP001 reports those leaves as oversubscribed, the shortfall is theirs: it is not
    reported again here. Likewise when InfiniBand cables that IB001 or IB002 report (trained
    narrower or slower than they should) explain it: with each at the rate its finding says it
    should run, the fabric would meet the ratio, so the shortfall is folded into the first of
    those findings ("this explains TOP006"). When even the repaired fabric falls short, the
    cabling is its own cause: the finding stays and says what repairing those links leaves.

    ## Why it matters
    All-to-all traffic (expert-parallel MoE training, shuffles) moves half the data across the
    fabric's narrowest cut: a fabric at 50 % of full bisection runs those phases at half speed.

    ## How to fix
    Add spine capacity (spines, uplinks or faster optics), or lower the expectation in the
    profile for a deliberately oversubscribed fabric.
    """

    id = "TOP006"
    name = "bisection-bandwidth"
    title = "Bisection bandwidth below the ideal"
    severity = Severity.WARNING
    category = "topology"
    settings = ("topology.min_bisection_ratio",)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        b = topo.bisection
        if b is None or not b.ideal_mbps:
            return
        ratio = b.mbps / b.ideal_mbps
        if ratio + 1e-9 < ctx.policy.topology.min_bisection_ratio and \
                not _leaf_uplinks_explain(topo, ctx):
            spine = next((n.name for n in topo.nodes.values() if n.role == "spine"),
                         next(iter(topo.nodes)))
            how = "exact" if b.exact else "upper bound"
            table = topo.capacity_table()
            half = sum(table[n][0] for n, r in topo.roles().items() if r == "leaf") // 2
            ideal = "half the host-facing capacity" if half == b.ideal_mbps else \
                "the slower half of the host ports"
            yield self.at(
                topo, spine, "fabric", None,
                f"bisection bandwidth {fmt_gbps(b.mbps)} ({how}, {b.method}) is {ratio:.0%} of the "
                f"ideal {fmt_gbps(b.ideal_mbps)} ({ideal})",
            )


@register
class CablingClaims(TopologyRule):
    """The two ends of a cable disagree about it.

    ## What it checks
    LLDP tables are joined from both ends. A claim the other end does not repeat (its LLDP
    table has no neighbour on that port: one-sided), a claim the other end contradicts (it
    sees someone else on that port), or a port cabled to its own device is a finding.

    ## Why it matters
    One-sided claims mean LLDP is off or stale on one end, or the table is old; contradictions
    mean a cable was moved since one of the tables was captured, or a patch panel is mislabelled.
    Either way the topology every other check relies on is uncertain there, and a loop back into
    the same switch wastes two ports and confuses ECMP.

    ## How to fix
    Capture both LLDP tables again; if they still disagree, trace the cable. Enable LLDP on
    both ends (`lldp transmit` / `lldp receive`).
    """

    id = "TOP007"
    name = "cabling-claims-disagree"
    title = "Ends of a cable disagree (LLDP one-sided or contradictory)"
    severity = Severity.WARNING
    category = "topology"

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        for issue in topo.issues:
            if issue.kind not in ("one-sided", "contradiction", "self-loop"):
                continue  # disagreements with the intent are TOP009's
            yield self.at(
                topo, issue.device, issue.interface, issue.src, issue.message,
                severity=Severity.ERROR if issue.kind == "self-loop" else None,
                related=issue.related,
            )


@register
class SingleHomed(TopologyRule):
    """A leaf or a server hangs off a single uplink device.

    ## What it checks
    A leaf with uplinks to only one spine while the fabric has several, and a server whose
    cables all land on one leaf while most servers reach two or more leaves.

    ## Why it matters
    A single spine or leaf failure then cuts the device off; for a GPU server it stops every
    job that runs on it, and a whole training job with it.

    ## How to fix
    Cable the leaf to every spine (see TOP004) and spread each server's NICs over their leaves.
    """

    id = "TOP008"
    name = "single-homed"
    title = "Leaf or server attached to a single uplink device"
    severity = Severity.WARNING
    category = "topology"

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        # Who each node is cabled to, built once: per fabric it made the rule quadratic in
        # the number of fabrics (1,024 separate SONiC ToRs: 80 s).
        # So are the roles: a look-up table per fabric made it quadratic again (9.6 s).
        uplinks = topo.adjacency()
        role = topo.roles().get
        for _fabric, by_role in _fabric_roles(topo, ctx):
            yield from self._homing(topo, uplinks, role, by_role)

    def _homing(self, topo: Topology, uplinks: dict[str, set[str]],
                role: Callable[[str], str | None],
                by_role: dict[str, list[str]]) -> Iterable[Finding]:
        """``by_role``: one fabric's members by role."""
        nodes = topo.nodes
        pod_spines: dict[int | None, set[str]] = defaultdict(set)
        for name in by_role.get("spine", ()):
            pod_spines[nodes[name].pod].add(name)
        for name in sorted(by_role.get("leaf", ())):
            node = nodes[name]
            spines = pod_spines[node.pod]  # the spines of its own pod
            up = uplinks.get(name, set()) & spines
            if len(spines) > 1 and len(up) == 1:
                yield self.at(topo, name, name, None,
                              f"{name} reaches only {next(iter(up))} of the {len(spines)} "
                              f"spines of its pod")
        # Service hosts (UFM, login: one HCA by design) are not servers to spread.
        nodes = topo.nodes
        hosts = sorted(n for n in by_role.get("host", ()) if not nodes[n].service)
        # (a server reaches several leaves only if it reaches several nodes: when too few do,
        # no server is reported, and its leaves are not looked up)
        if sum(1 for h in hosts if len(uplinks.get(h, ())) > 1) * 2 <= len(hosts):
            return
        leaves_of = {h: {x for x in uplinks.get(h, ()) if role(x) == "leaf"} for h in hosts}
        multi = sum(1 for v in leaves_of.values() if len(v) > 1)
        if multi * 2 > len(hosts):
            for host, leaves in sorted(leaves_of.items()):
                if len(leaves) == 1:
                    yield self.at(topo, host, host, None,
                                  f"{host} is cabled to one leaf only ({next(iter(leaves))}); "
                                  f"{multi} of {len(hosts)} servers reach several leaves")


@register
class LinkMtuMismatch(TopologyRule):
    """The two ends of a cable have different MTUs.

    ## What it checks
    For every cable whose both ends fablint read the configuration of, the IP MTUs must agree.
    Vendors count differently (EOS 9214, NX-OS 9216, SONiC 9100 are all jumbo), so two ends
    at or above `mtu.fabric_min` agree; one end below it and the other above does not, nor do
    two different sub-jumbo values.

    ## Why it matters
    A jumbo frame sent towards a smaller-MTU end is dropped (routed ports do not fragment
    RoCE, which sets DF). RoCE's path MTU is then the smaller one or, worse, large messages
    stall on that one link while small ones pass; routing protocols may refuse the adjacency.

    ## How to fix
    Set the same (jumbo) MTU on both ends.
    """

    id = "MTU005"
    name = "link-mtu-mismatch"
    title = "Ends of a cable have different MTUs"
    severity = Severity.ERROR
    category = "mtu"
    settings = ("mtu.fabric_min",)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        jumbo = ctx.policy.mtu.fabric_min
        for cable in topo.cables:
            a, b = cable.a_port, cable.b_port
            if not (a and b and a.mtu and b.mtu) or a.mtu == b.mtu:
                continue
            if a.mtu >= jumbo and b.mtu >= jumbo:
                continue
            # Reported on the smaller end: that is the one to change.
            (small, s_end), (big, b_end) = sorted(
                ((a, cable.a), (b, cable.b)), key=lambda pair: pair[0].mtu or 0)
            yield self.at(
                topo, s_end.device, s_end.interface, small.src,
                f"{s_end.device} {s_end.interface} has MTU {small.mtu} but its peer "
                f"{b_end.device} {b_end.interface} has MTU {big.mtu}",
                related=[big.src],
                fix=FixIntent("mtu-set", {"interface": s_end.interface,
                                          "min_mtu": max(jumbo, big.mtu or 0)}),
            )


@register
class LinkPfcMismatch(TopologyRule):
    """The two ends of a cable pause different priorities or trust different markings.

    ## What it checks
    For every cable between two devices whose configuration fablint read, the priorities PFC
    is in effect for and the QoS trust mode must be the same on both ends. A PFC difference
    is reported on the end further from the profile's `pfc.lossless_priorities`; where that
    end's PFC001 finding already names the cause, this one is folded into it.

    ## Why it matters
    PFC is hop by hop: a priority one end pauses but the other does not honour is dropped at
    the first congestion (the sender keeps sending into a full buffer), and a priority honoured
    but never paused can be stopped by a peer that misclassifies traffic. Different trust modes
    put the same packet in different classes on each side of the cable.

    ## How to fix
    Apply the same QoS profile / PFC priorities and trust mode on both ends.
    """

    id = "PFC008"
    name = "link-pfc-mismatch"
    title = "Ends of a cable differ in PFC priorities or trust"
    severity = Severity.ERROR
    category = "pfc"
    settings = ("pfc.lossless_priorities",)

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        lossless = set(ctx.policy.pfc.lossless_priorities)
        for cable in topo.cables:
            a, b = cable.a_port, cable.b_port
            if not (a and b) or not (a.admin_up and b.admin_up):
                continue
            if a.pfc != b.pfc:
                near, far = cable.a, cable.b
                # Reported on the end further from the profile's lossless priorities: that
                # is the one to change, and where PFC001 already names the cause.
                if len(set(b.pfc) ^ lossless) > len(set(a.pfc) ^ lossless):
                    (a, near), (b, far) = (b, far), (a, near)
                yield self.at(
                    topo, near.device, near.interface, a.src,
                    f"{near.device} {near.interface} pauses "
                    f"{f'priority {_prios(a.pfc)}' if a.pfc else 'no priority'} but its peer "
                    f"{far.device} {far.interface} pauses {_prios(b.pfc)}",
                    related=[b.src],
                )
            elif a.trust and b.trust and a.trust != b.trust:
                yield self.at(
                    topo, cable.a.device, cable.a.interface, a.src,
                    f"{cable.a.device} {cable.a.interface} trusts {a.trust} but its peer "
                    f"{cable.b.device} {cable.b.interface} trusts {b.trust}",
                    related=[b.src],
                )


def _prios(values: list[int]) -> str:
    return ", ".join(map(str, values)) if values else "none"


@register
class CablingIntent(TopologyRule):
    """A cable is missing, extra or miswired against the intended topology.

    ## What it checks
    With an intended topology (`fablint lint --intent FILE`, or `intent:` in fablint.yaml): a
    fablint topology YAML (explicit cables and "every leaf to every spine, N x SPEED" mesh
    rules) or an ibnetdiscover topology file, as `ibdiagnet -t` takes. Every intended cable
    must appear in the inputs (LLDP, IB dumps), no other cable may join two intended devices,
    and mesh rules must hold in count and speed. A port cabled elsewhere than intended is
    reported once, as miswired, naming both the intended and the actual peer.

    ## Why it matters
    Cabling errors are the most common fault of a new GPU pod: a swapped pair of cables turns
    a rail-optimised fabric into one where some rings cross the spines, a missing uplink
    removes bandwidth silently, and nothing in the switch configuration shows it.

    ## How to fix
    Re-cable to the intent (the finding names the port and the peer it should have), or update
    the intent file when the change was deliberate.
    """

    id = "TOP009"
    name = "cabling-vs-intent"
    title = "Cabling differs from the intended topology"
    severity = Severity.ERROR
    category = "topology"

    def check_topology(self, topo: Topology, ctx: Context) -> Iterable[Finding]:
        for issue in topo.issues:
            if issue.kind in ("one-sided", "contradiction", "self-loop"):
                continue
            yield self.at(
                topo, issue.device, issue.interface, issue.src, issue.message,
                severity=Severity.WARNING if issue.kind == "extra" else None,
                related=issue.related,
            )
