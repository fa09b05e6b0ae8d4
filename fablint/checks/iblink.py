"""InfiniBand link rules: what ibdiagnet or UFM would flag in a fabric scan, read offline from
the dumps engineers save (ibnetdiscover, iblinkinfo, opensm-subnet.lst, ibdiagnet2.lst).

The rules read the IB nodes and links of one dump at a time (``Fabric.ib_nodes`` and the links
of an IB dump parser's origin, ``IB_ORIGINS``):
two dumps of the same fabric in one folder are two views of it, not one fabric with every GUID
twice. A finding points at the dump line of the port (of the end listed first for a cable) and
its fix names both ends by description, GUID and port number, which is what a technician needs
at the rack.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from fablint.checks.base import Context, Rule, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import (
    IB_SPEEDS,
    Endpoint,
    IbNode,
    IbPort,
    Link,
    SourceRef,
    fmt_guid,
    ib_speed_rank,
)

IB_ORIGINS = frozenset({"ibnetdiscover", "ibnetdiscover-ports", "iblinkinfo", "ib-subnet-list",
                        "ibdiagnet-net-dump", "ibdiagnet-db-csv"})
"""``Link.origin`` of the links the IB dump parsers make."""
IB_VENDORS = ("ib",)
JUDGED_ORIGINS = frozenset({"iblinkinfo"})
"""Dumps that judge every link against what both its ports support: iblinkinfo prints
``Could be 4X`` / ``Could be 106.25 Gbps`` beside a link that runs below the widest width and
fastest speed both ports support (``get_max_msg``, rdma-core ``ibdiag_common.c``), so a link it
leaves silent runs as its hardware allows and no guess from other links applies to it."""
UNICAST_LID_MAX = 0xBFFF
"""LIDs above are multicast (0xC000-0xFFFE) or the permissive LID (0xFFFF)."""


@dataclass(slots=True)
class End:
    """One end of a cable: the node and its port. Never changed once made (not ``frozen``:
    a frozen dataclass's ``__init__`` cost a third of the IB rules on 100,000 ends)."""

    node: IbNode
    port: IbPort

    def fix(self) -> dict[str, object]:
        """How fixes name the end: description, GUID, port number."""
        guid = self.port.guid if self.node.type != "switch" and self.port.guid else \
            (self.node.guid or self.node.port_guid)
        return {"node": self.node.label, "guid": fmt_guid(guid), "port": self.port.number}

    def __str__(self) -> str:
        return f"{self.node.label!r} port {self.port.number}"


@dataclass(slots=True)
class Cable:
    """A link of a dump with both ends resolved; ``a`` is the end listed first. Width and
    speed are the narrower and slower of what the two ends report (they agree unless the dump
    is stale). Never changed once made (see ``End``)."""

    link: Link
    a: End
    b: End
    width: int | None
    speed: str | None
    rank: int
    """``ib_speed_rank`` of ``speed``."""

    @classmethod
    def of(cls, link: Link, a: End, b: End) -> Cable:
        a_port, b_port = a.port, b.port
        a_width, b_width = a_port.width, b_port.width
        width = (min(a_width, b_width) if b_width else a_width) if a_width else (b_width or None)
        a_speed, b_speed = a_port.speed, b_port.speed
        a_rank, b_rank = ib_speed_rank(a_speed), ib_speed_rank(b_speed)
        rank = (min(a_rank, b_rank) if b_rank else a_rank) if a_rank else b_rank
        speed = (a_speed if a_rank == rank else b_speed) if rank else None
        return cls(link, a, b, width, speed, rank)

    @property
    def ends(self) -> tuple[End, End]:
        return self.a, self.b

    def __str__(self) -> str:
        """From the ``a`` node's point of view (the finding's device): ``port 3 -> 'x' port 1``."""
        return f"port {self.a.port.number} -> {self.b}"


@dataclass
class IbView:
    """The IB nodes and cables of one dump, indexed once for all the IB rules."""

    nodes: list[IbNode]
    cables: list[Cable] = field(default_factory=list)
    by_key: dict[str, IbNode] = field(default_factory=dict)
    _best: dict[str, tuple[int, int, int, int, int, int]] = field(default_factory=dict)
    """Node key -> widest width, its port, second widest; fastest rank, its port, second."""

    def end(self, endpoint: Endpoint) -> End | None:
        node = self.by_key.get(endpoint.device)
        port = node.ports.get(int(endpoint.interface)) if node and \
            endpoint.interface.isdigit() else None
        return End(node, port) if node and port else None

    def best_other(self, end: End, attribute: str) -> int:
        """Highest width (``width``) or speed rank (``speed``) the node runs on its other
        cables; 0 when it has none."""
        best = self._best.get(end.node.key)
        if best is None:
            best = self._best[end.node.key] = _top_two(end.node)
        if attribute == "width":
            return best[2] if best[1] == end.port.number else best[0]
        return best[5] if best[4] == end.port.number else best[3]


def _top_two(node: IbNode) -> tuple[int, int, int, int, int, int]:
    """Widest width, its port and the runner-up; the same for speed rank (cabled ports)."""
    w1 = w2 = s1 = s2 = 0
    wp = sp = -1
    for number, port in node.ports.items():
        if port.peer is None:
            continue
        width, rank = port.width or 0, ib_speed_rank(port.speed)
        if width > w1:
            w1, w2, wp = width, w1, number
        elif width > w2:
            w2 = width
        if rank > s1:
            s1, s2, sp = rank, s1, number
        elif rank > s2:
            s2 = rank
    return w1, wp, w2, s1, sp, s2


_VIEW_ATTR = "_ib_link_view"


def ib_view(ctx: Context) -> IbView:
    """The view of the dump the context holds, built on first use and kept on the context."""
    view: IbView | None = getattr(ctx, _VIEW_ATTR, None)
    if view is not None:
        return view
    view = IbView(nodes=list(ctx.fabric.ib_nodes))
    view.by_key = {node.key: node for node in view.nodes}
    for link in ctx.fabric.links:
        if link.origin not in IB_ORIGINS:
            continue
        a, b = view.end(link.a), view.end(link.b)
        if a is not None and b is not None:
            view.cables.append(Cable.of(link, a, b))
    setattr(ctx, _VIEW_ATTR, view)
    return view


class IbRule(Rule):
    """Base of the IB link rules: findings name an IB node, not a configured device."""

    category = "ib-link"
    vendors = IB_VENDORS
    reads_ib_ports = True
    """The engine parses IB dumps without their ports when no selected rule says this."""

    def check(self, ctx: Context) -> Iterable[Finding]:
        if not ctx.fabric.ib_nodes:
            return ()
        return self.check_dump(ib_view(ctx), ctx)

    def check_dump(self, view: IbView, ctx: Context) -> Iterable[Finding]:
        raise NotImplementedError

    def ib_finding(
        self, node: IbNode | None, obj: str | None, where: SourceRef | None, message: str, *,
        fix: FixIntent | None = None, severity: Severity | None = None,
        related: Iterable[SourceRef | None] = (),
    ) -> Finding:
        return Finding(
            rule=self.id, name=self.name, severity=severity or self.severity,
            category=self.category, message=message,
            device=node.label if node is not None else None, vendor="ib", object=obj,
            file=where.file if where else None, line=where.line if where else None,
            intent=fix, related=[r for r in related if r is not None],
        )

    def cable_finding(self, cable: Cable, message: str, fix: FixIntent | None = None,
                      severity: Severity | None = None) -> Finding:
        return self.ib_finding(cable.a.node, f"port {cable.a.port.number}", cable.link.src,
                               message, fix=fix, severity=severity, related=[cable.b.port.src])


def _cable_fix(cable: Cable, kind: str, want: str | None, have: str | None) -> FixIntent:
    """``have`` and ``want``: the width (``1x``) or speed (``EDR``) the cable runs and should
    run, which also says what the fabric gains back (``bisectfold``)."""
    return FixIntent("ib-cable", {"a": cable.a.fix(), "b": cable.b.fix(), "kind": kind,
                                  "want": want, "have": have})


@register
class IbWidthDegraded(IbRule):
    """An InfiniBand link trains narrower than it should.

    ## What it checks
    Every cable of a dump runs at the widest width it can: not below what iblinkinfo says both
    ports support (`Could be 4X`), not below the profile's `ib_link.expected_width` (4x; half of
    it on a split switch port, which ibdiagnet labels `1/2/1/1` on Quantum-2 and `3/2` on
    Quantum, or on a switch with the port count of split mode, 81 or 129), and not below the
    width both of its nodes run on their other links. ibnetdiscover shows the
    active width in the link column (`1xSDR`, `4xNDR`), iblinkinfo and the subnet lists in
    their own columns; the two ends are compared as one cable.

    ## Why it matters
    A 4x port that trains at 1x has lost three of its four lanes, to a damaged cable, a dirty
    or half-seated connector or a failing transceiver. The link stays up, so nothing alarms,
    but it carries a quarter of its bandwidth: every collective that crosses it runs at the
    pace of the slowest link, and adaptive routing keeps sending traffic into it.

    ## How to fix
    Reseat the cable at both ends; if the link still trains narrow, replace the cable (or the
    transceivers), then check the port width again with iblinkinfo.
    """

    id = "IB001"
    name = "ib-width-degraded"
    title = "InfiniBand link width below what the ports support"
    severity = Severity.ERROR
    settings = ("ib_link.expected_width",)

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        full = ctx.policy.ib_link.expected_width
        for cable in view.cables:
            width = cable.width
            if width is None:
                continue
            expected = max(1, full // 2) if _split(cable) else full
            could = max(cable.a.port.could_be_width or 0, cable.b.port.could_be_width or 0)
            if could <= width and width >= expected and \
                    width >= view.best_other(cable.a, "width"):
                continue  # the common case, decided without looking at the far end's node
            proven = min(view.best_other(cable.a, "width"), view.best_other(cable.b, "width"))
            if could > width:
                want, why = could, f"both ports support {could}x"
            elif width < expected:
                want, why = expected, f"the fabric's links should run {expected}x"
                if expected != full:
                    why = f"a split port should run {expected}x"
            elif proven > width and cable.link.origin not in JUDGED_ORIGINS:
                want, why = proven, f"both nodes run {proven}x on their other links"
            else:
                continue
            yield self.cable_finding(
                cable, f"{cable} runs at {width}x; {why}",
                fix=_cable_fix(cable, "width", f"{want}x", f"{width}x"))


SPLIT_PORT_COUNTS = frozenset({81, 129})
"""NumPorts of a Quantum (80 + AN) and a Quantum-2 (128 + AN) switch in split mode."""


QUANTUM = 0xD2F0
"""Device id of the Quantum (HDR) switch ASIC, whose split ports are labelled ``port/split``."""


def _split(cable: Cable) -> bool:
    """Does either end sit on a split switch port (half the lanes by design)? ibdiagnet's
    label says so (``1/2/1/1`` ASIC/cage/port/split on Quantum-2; ``3/2`` port/split on a
    Quantum, known by its device id or its 81 ports); without labels, a switch whose port
    count is that of split mode."""
    for end in cable.ends:
        node, label = end.node, end.port.label or ""
        if node.type != "switch":
            continue
        if label.count("/") == 3 or node.port_count in SPLIT_PORT_COUNTS:
            return True
        if label.count("/") == 1 and (node.device_id == QUANTUM or node.port_count == 81):
            return True
    return False


@register
class IbSpeedDegraded(IbRule):
    """An InfiniBand link runs at a slower speed generation than it should.

    ## What it checks
    Every cable of a dump runs at the fastest speed it can: not below what iblinkinfo says both
    ports support (`Could be 106.25 Gbps`, `Could be FDR10`), not below `ib_sm.fabric_generation`
    when the profile names the fabric's generation, and not below the speed both of its nodes
    run on their other links. Without a named generation, a link slower than the generation of
    at least `ib_link.prevailing_share` of the dump's links of its kind (switch to switch, switch
    to channel adapter, switch to router) is a warning: a lone IB router is not judged by the
    switches' and hosts' links. A link that runs as fast as the slower end's hardware can (by
    device ID: an EDR-only ConnectX-5 on an HDR fabric) is not degraded, and neither is one that
    iblinkinfo leaves without a `Could be` (it has compared the link with what both ports
    support).

    ## Why it matters
    A link negotiates down to a slower generation when a cable or transceiver is not rated for
    the speed (an HDR cable on an NDR port), when the connector is dirty or when a port's enabled
    speeds were limited. Like a narrow link it stays up and silent, and halves (or worse) the
    bandwidth of every flow that crosses it.

    ## How to fix
    Use a cable and transceivers rated for the fabric's generation and reseat them; check that
    neither port has its enabled speeds limited (OpenSM `force_link_speed_ext`, a port set by
    hand), then check the link again.
    """

    id = "IB002"
    name = "ib-speed-degraded"
    title = "InfiniBand link speed below what the ports support"
    severity = Severity.ERROR
    settings = ("ib_sm.fabric_generation", "ib_link.prevailing_share")

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        generation = ctx.policy.ib_sm.fabric_generation
        by_kind = _prevailing(view, ctx.policy.ib_link.prevailing_share)
        fabric_floor = ib_speed_rank(generation)
        floors = {kind: max(fabric_floor, ib_speed_rank(speed))
                  for kind, (speed, _) in by_kind.items()}
        top = max(floors.values(), default=fabric_floor)  # (above every kind's floor)
        for cable in view.cables:
            speed, rank = cable.speed, cable.rank
            if not rank:
                continue
            a_could, b_could = cable.a.port.could_be_speed, cable.b.port.could_be_speed
            could = max(a_could or "", b_could or "", key=ib_speed_rank) \
                if a_could or b_could else ""  # (most ports say nothing of what they could)
            if ib_speed_rank(could) <= rank and rank >= top and \
                    rank >= view.best_other(cable.a, "speed"):
                continue  # the common case, decided without looking at the far end's node
            kind = _kind(cable)
            if ib_speed_rank(could) <= rank and rank >= floors.get(kind, fabric_floor) and \
                    rank >= view.best_other(cable.a, "speed"):
                continue
            if rank >= _capability(view, cable):
                continue  # as fast as the slower end can go (an EDR-only HCA on HDR)
            proven = min(view.best_other(cable.a, "speed"), view.best_other(cable.b, "speed"))
            severity = None
            if ib_speed_rank(could) > rank:
                want, why = could, f"both ports support {could}"
            elif generation is not None and rank < ib_speed_rank(generation):
                want, why = generation, f"the fabric runs {generation}"
            elif cable.link.origin in JUDGED_ORIGINS:
                continue  # the dump says both ports run as fast as they can: no guess
            elif proven > rank:
                want = _generation(proven)
                why = f"both nodes run {want} on their other links"
            elif kind in by_kind and rank < ib_speed_rank(by_kind[kind][0]):
                want, share = by_kind[kind]
                why = f"{share} of the dump's {_KIND_WORDS.get(kind, 'other')} links run {want}"
                severity = Severity.WARNING
            else:
                continue
            yield self.cable_finding(cable, f"{cable} runs at {speed}; {why}",
                                     fix=_cable_fix(cable, "speed", want, speed),
                                     severity=severity)


DEVICE_MAX_SPEED: dict[int, str] = {
    0x1003: "FDR", 0x1007: "FDR", 0x1011: "FDR",  # ConnectX-3 / -3 Pro, Connect-IB
    0x1013: "EDR", 0x1017: "EDR", 0x1019: "EDR",  # ConnectX-4, ConnectX-5 / -5 Ex
    0x101B: "HDR", 0x1021: "NDR", 0x1023: "XDR",  # ConnectX-6, -7, -8
    0xC738: "FDR", 0xCB20: "EDR", 0xCF08: "EDR",  # SwitchX, Switch-IB, Switch-IB 2
    0xD2F0: "HDR", 0xD2F2: "NDR", 0xD2F4: "XDR",  # Quantum, Quantum-2, Quantum-3
}
"""Fastest InfiniBand generation of each NVIDIA (Mellanox) device ID (the dumps' ``devid``)."""


def _capability(view: IbView, cable: Cable) -> int:
    """Speed rank of the fastest generation both ends' hardware supports, by device ID, or
    a large number when a device is unknown. A node seen running faster elsewhere than its
    device ID says is taken at that speed (a dump's ``devid`` is not always what the table
    expects)."""
    ranks = [max(ib_speed_rank(DEVICE_MAX_SPEED[end.node.device_id]),
                 view.best_other(end, "speed"))
             for end in cable.ends if end.node.device_id in DEVICE_MAX_SPEED]
    return min(ranks) if ranks else 1 << 30


def _generation(rank: int) -> str:
    return next(name for name, info in IB_SPEEDS.items() if info.rank == rank)


def _kind(cable: Cable) -> tuple[str, str]:
    """The node types at the two ends of a cable, in order: which links it is judged with."""
    a, b = cable.a.node.type, cable.b.node.type
    return (a, b) if a <= b else (b, a)


_KIND_WORDS = {("switch", "switch"): "switch-to-switch", ("ca", "switch"): "switch-to-CA",
               ("router", "switch"): "switch-to-router", ("ca", "ca"): "CA-to-CA",
               ("ca", "router"): "CA-to-router", ("router", "router"): "router-to-router"}


def _prevailing(view: IbView, share: float | None) -> dict[tuple[str, str], tuple[str, str]]:
    """Per kind of link (``_kind``): the generation of at least ``share`` of the dump's cables
    of that kind, and that share in words; kinds with no such generation are left out."""
    if share is None or len({c.speed for c in view.cables if c.rank}) < 2:
        return {}  # (one generation in the whole dump: none of its kinds has a slower link)
    counts: dict[tuple[str, str], Counter[str | None]] = {}
    for c in view.cables:
        if c.rank:
            kind = _kind(c)
            if kind not in counts:
                counts[kind] = Counter()
            counts[kind][c.speed] += 1
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for kind, count_of in counts.items():
        total = sum(count_of.values())
        speed, count = count_of.most_common(1)[0]
        if speed is not None and count / total >= share and count != total:
            out[kind] = (speed, f"{count} of {total}")
    return out


@register
class IbPortNotActive(IbRule):
    """A cabled InfiniBand port is not Active and LinkUp.

    ## What it checks
    Every port the dump shows with a peer (a cable whose other end answers) is in logical
    state Active and physical state LinkUp. iblinkinfo and the subnet lists show the states;
    a port that is physically up or training but has no peer listed counts too. Unused ports
    that are Down and Polling (nothing plugged) are not reported.

    ## Why it matters
    A link that is physically up but Initialize or Armed carries no traffic: the subnet manager
    has not configured it (no SM running, the SM cannot reach it, or it failed to program the
    port). A port stuck in training or error recovery has a bad cable or transceiver. Either
    way the node behind it is cut off, or its traffic detours over the remaining links.

    ## How to fix
    For Initialize or Armed: check that a subnet manager runs and sweeps (`sminfo`) and read its
    log for this port. For a port that is not LinkUp: reseat or replace the cable and enable the
    port if it was disabled.
    """

    id = "IB003"
    name = "ib-port-not-active"
    title = "Cabled InfiniBand port not Active / LinkUp"
    severity = Severity.WARNING

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        for cable in view.cables:
            bad = [end for end in cable.ends if not _active(end.port)]
            if not bad:
                continue
            if len(bad) == 2 and _state(bad[0].port) == _state(bad[1].port):
                states = f"{_state(bad[0].port)} on both ends"
            else:
                states = ", ".join(f"{_state(e.port)} on {'this' if e is cable.a else 'the far'} "
                                   "end" for e in bad)
            yield self.cable_finding(cable, f"{cable} is not active: {states}",
                                     fix=FixIntent("ib-port-activate", {
                                         "a": cable.a.fix(), "b": cable.b.fix(),
                                         "phys_up": all(e.port.phys_state in (None, "LinkUp")
                                                        for e in bad)}))
        for node in view.nodes:
            for port in node.ports.values():
                if port.peer is None and port.phys_state in (
                        "LinkUp", "PortConfigurationTraining", "LinkErrorRecovery"):
                    end = End(node, port)
                    yield self.ib_finding(
                        node, f"port {port.number}", port.src,
                        f"port {port.number} is {_state(port)} but the dump shows no peer",
                        fix=FixIntent("ib-port-activate", {"a": end.fix(), "b": None,
                                                           "phys_up": False}))


def _active(port: IbPort) -> bool:
    return port.state in (None, "Active") and port.phys_state in (None, "LinkUp")


def _state(port: IbPort) -> str:
    return "/".join(s for s in (port.state, port.phys_state) if s) or "not active"


@register
class IbMixedGenerations(IbRule):
    """The links of one InfiniBand fabric run at more than one speed generation.

    ## What it checks
    Counts the cables of a dump by the generation they run at (SDR … XDR) and reports, once
    per dump, when there is more than one, with the number of links of each.

    ## Why it matters
    A fabric that mixes generations (HDR adapters on an NDR fabric, a legacy QDR island) is
    sometimes deliberate, but the slow links bound every job that spans them, and a generation
    that appears on a handful of links is more often a degraded link (IB002) or a wrong cable
    than a design. This note is the overview; IB002 points at the links.

    ## How to fix
    Nothing to fix when the mix is by design. Otherwise look at the links of the rarer
    generations first.
    """

    id = "IB004"
    name = "ib-mixed-generations"
    title = "InfiniBand links of several speed generations in one fabric"
    severity = Severity.INFO

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        counts = Counter(c.speed for c in view.cables if c.rank)
        if len(counts) < 2:
            return
        order = sorted(counts, key=lambda s: (-counts[s], -ib_speed_rank(s)))
        slowest = min(counts, key=ib_speed_rank)
        first = next(c for c in view.cables if c.speed == slowest)
        summary = ", ".join(f"{s} ({counts[s]} link{'s' if counts[s] > 1 else ''})"
                            for s in order)
        yield self.ib_finding(
            None, "fabric", first.link.src,
            f"links run at {len(counts)} speed generations: {summary}")


@register
class IbDuplicateNodeGuid(IbRule):
    """Two InfiniBand nodes of one dump have the same node GUID.

    ## What it checks
    A node GUID identifies one node. The rule reports a dump that shows two node records with
    the same GUID (ibnetdiscover, subnet lists), or a GUID seen with two different identities
    (type, description, system GUID).

    ## Why it matters
    The subnet manager keys nodes by GUID: with two nodes on one GUID it sees one node that
    moves, routes to whichever it found last and flaps LIDs between them; discovery tools merge
    the two or stop. Duplicates come from cloned adapter firmware images and hand-set GUIDs.

    ## How to fix
    Give every node its own GUID: reflash the adapter or switch with its own GUIDs (the vendor's
    firmware tool), or correct the hand-set GUID.
    """

    id = "IB005"
    name = "ib-duplicate-node-guid"
    title = "Duplicate InfiniBand node GUID"
    severity = Severity.ERROR

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        owners: dict[int, IbNode] = {}
        for node in view.nodes:
            if node.guid is None:
                continue
            first = owners.setdefault(node.guid, node)
            if first is node:
                continue
            yield self.ib_finding(
                node, fmt_guid(node.guid), node.src,
                f"node GUID {fmt_guid(node.guid)} is also the GUID of {first.label!r} "
                f"({_where(first.src)})",
                fix=FixIntent("ib-guid-duplicate", {
                    "what": "node", "guid": fmt_guid(node.guid),
                    "nodes": [first.label, node.label]}),
                related=[first.src])


@register
class IbDuplicatePortGuid(IbRule):
    """Two InfiniBand ports of one dump have the same port GUID.

    ## What it checks
    Port GUIDs of channel adapter and router ports, and the port GUID of each switch (its port
    0, which every port of the switch reports), are unique within a dump. The ports of one
    switch sharing its GUID are not duplicates.

    ## Why it matters
    A port GUID is the port's address for the subnet manager, the SA path queries and the GID
    every RDMA connection is made to: with two ports on one GUID connections reach the wrong
    host or fail, and the subnet manager keeps reassigning the port's LID.

    ## How to fix
    Give every port its own GUID: reflash the adapter with its own GUIDs, or correct a hand-set
    (virtual function) port GUID.
    """

    id = "IB006"
    name = "ib-duplicate-port-guid"
    title = "Duplicate InfiniBand port GUID"
    severity = Severity.ERROR

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        owners: dict[int, End | IbNode] = {}
        for node in view.nodes:
            claims: list[tuple[int, End | IbNode, SourceRef | None]] = []
            if node.type == "switch":
                if node.port_guid is not None:
                    claims.append((node.port_guid, node, node.where("port_guid")))
            else:
                claims += [(p.guid, End(node, p), p.where("guid")) for p in node.ports.values()
                           if p.guid is not None]
            for guid, owner, where in claims:
                first = owners.setdefault(guid, owner)
                if first is owner:
                    continue
                first_node = first if isinstance(first, IbNode) else first.node
                first_src = first.src if isinstance(first, IbNode) else first.port.src
                yield self.ib_finding(
                    node, fmt_guid(guid), where,
                    f"port GUID {fmt_guid(guid)} of {_owner(owner)} is also the port GUID of "
                    f"{_owner(first)} ({_where(first_src)})",
                    fix=FixIntent("ib-guid-duplicate", {
                        "what": "port", "guid": fmt_guid(guid),
                        "nodes": [first_node.label, node.label]}),
                    related=[first_src])


def _owner(owner: End | IbNode) -> str:
    if isinstance(owner, IbNode):
        lid = f", LID {owner.lid}" if owner.lid is not None else ""
        return f"switch {owner.label!r}{lid}"
    lid = f", LID {owner.port.lid}" if owner.port.lid is not None else ""
    return f"{owner}{lid}"


def _where(ref: SourceRef | None) -> str:
    return f"line {ref.line}" if ref is not None and ref.line else "same dump"


@register
class IbDuplicateNodeDescription(IbRule):
    """Several InfiniBand nodes share one node description.

    ## What it checks
    Node descriptions name nodes in every IB tool, so they are unique within a dump. Nodes that
    share one are reported once per description, with their GUIDs. Descriptions that many nodes
    share by design (`ib_link.shared_descriptions`, by default the SHARP aggregation nodes'
    fixed description) are left out.

    ## Why it matters
    A shared description is almost always the factory string of an adapter whose host never set
    one (`MT4123 ConnectX6 Mellanox Technologies`, `MT23108 InfiniHost Mellanox Technologies`).
    Then no dump, log, counter or error report says which host a port belongs to, and the cable
    a finding points at cannot be found at the rack. UFM and ibdiagnet report it too.

    ## How to fix
    Set a unique description on every node, the host name and the device (`gpu01 mlx5_0`): on
    Linux hosts the `rdma-ndd` service sets it from the host name; on switches set the system
    name.
    """

    id = "IB007"
    name = "ib-duplicate-node-description"
    title = "InfiniBand nodes share one node description"
    severity = Severity.WARNING
    settings = ("ib_link.shared_descriptions",)

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        shared = [re.compile(p) for p in ctx.policy.ib_link.shared_descriptions]
        groups: dict[str, list[IbNode]] = {}
        for node in view.nodes:
            desc = (node.description or "").strip()
            if desc and not any(p.search(desc) for p in shared):
                groups.setdefault(desc, []).append(node)
        for desc, nodes in groups.items():
            identities = {n.guid or n.port_guid or n.key for n in nodes}
            if len(identities) < 2:
                continue  # one node listed twice: IB005's business
            second = nodes[1]
            guids = [fmt_guid(n.guid or n.port_guid) or n.key for n in nodes]
            shown = ", ".join(guids[:4]) + (f", … {len(guids) - 4} more" if len(guids) > 4 else "")
            yield self.ib_finding(
                second, desc, second.src,
                f"{len(nodes)} nodes share the description {desc!r} ({shown})",
                fix=FixIntent("ib-node-description", {"description": desc, "guids": guids}),
                related=[nodes[0].src])


@register
class IbLidInvalid(IbRule):
    """An active InfiniBand port has LID 0, a multicast LID, or a LID another port also has.

    ## What it checks
    Every active end port (a CA or router port, or a switch's port 0) has a unicast LID
    (1-0xBFFF) of its own: the LID ranges that LMC gives each port (2^LMC LIDs from the base LID)
    do not overlap. Ports are active when the dump says Active, or when it shows no state but a
    cable. A dump in which every LID is 0 is reported once: no subnet manager has swept it.

    ## Why it matters
    LIDs are the addresses InfiniBand switches forward by. A port with LID 0 is unreachable; two
    ports with one LID make the switches deliver one host's traffic to the other and break both,
    the symptom of two subnet managers on one fabric or a stale LID cache (guid2lid) after
    hardware was swapped.

    ## How to fix
    Make sure exactly one master subnet manager runs and sweeps the fabric; for duplicates,
    clear the stale LID assignment (the SM's guid2lid cache) and let the SM reassign.
    """

    id = "IB008"
    name = "ib-lid-invalid"
    title = "InfiniBand port with LID 0 or a duplicate LID"
    severity = Severity.ERROR

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        ports = list(_lid_owners(view))
        if not ports:
            return
        if all(lid == 0 for lid, _, _, _ in ports):
            _, _, where, node = ports[0]
            yield self.ib_finding(
                node, "LIDs", where, f"every port of the dump has LID 0 ({len(ports)} ports): "
                "no subnet manager has assigned LIDs",
                fix=FixIntent("ib-lid", {"zero": True, "lid": 0, "ends": [], "all": True}))
            return
        taken: dict[int, tuple[str, SourceRef | None]] = {}
        for lid, lmc, where, owner in ports:
            name = owner.label if isinstance(owner, IbNode) else str(owner)
            node = owner if isinstance(owner, IbNode) else owner.node
            if lid == 0 or lid > UNICAST_LID_MAX:
                what = "LID 0" if lid == 0 else f"multicast LID 0x{lid:04x}"
                yield self.ib_finding(
                    node, f"LID {lid}", where, f"{name} is active with {what}",
                    fix=FixIntent("ib-lid", {"zero": True, "lid": lid, "ends": [name],
                                             "all": False}))
                continue
            span = range(lid, lid + (1 << lmc))  # the LIDs LMC gives the port
            clash = next((taken[n] for n in span if n in taken), None)
            if clash is None:
                taken.update(dict.fromkeys(span, (name, where)))
                continue
            yield self.ib_finding(
                node, f"LID {lid}", where,
                f"LID {lid} of {name} is also used by {clash[0]} ({_where(clash[1])})",
                fix=FixIntent("ib-lid", {"zero": False, "lid": lid, "ends": [clash[0], name],
                                         "all": False}),
                related=[clash[1]])


def _lid_owners(view: IbView) -> Iterator[tuple[int, int, SourceRef | None, End | IbNode]]:
    """(LID, LMC, where, owner) of every active end port that shows a LID."""
    for node in view.nodes:
        if node.type == "switch":
            live = any(p.state == "Active" or (p.state is None and p.peer is not None)
                       for p in node.ports.values())
            if node.lid is not None and live:
                yield node.lid, node.lmc or 0, node.where("lid"), node
            continue
        for port in node.ports.values():
            live = port.state == "Active" or (port.state is None and port.peer is not None)
            if port.lid is not None and live:
                yield port.lid, port.lmc or 0, port.where("lid"), End(node, port)


@register
class IbSelfCabled(IbRule):
    """An InfiniBand switch port is cabled to another port of the same switch.

    ## What it checks
    Reports every cable whose two ends are on the same node (ibnetdiscover shows a switch port
    whose peer is the switch itself, `[1] "S-<own guid>"[2]`). The same loop (the same two
    ports) on several switches, as burn-in loopback cables left in, is one finding naming them.

    ## Why it matters
    A loopback cable carries no traffic between nodes: it wastes two ports, and routing engines
    that expect a tree (ftree, updn) see a loop on the switch, which can make them fall back or
    stop routing that switch. It is usually a cable plugged into the wrong port or a test loop
    left behind.

    ## How to fix
    Remove the loopback cable, or move one end to the port the cabling plan names.
    """

    id = "IB009"
    name = "ib-self-cabled"
    title = "InfiniBand port cabled to its own node"
    severity = Severity.WARNING

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        # The same loop on many switches (burn-in loopbacks left in) is one pattern: one
        # finding naming the switches, at the first.
        patterns: dict[tuple[str, int, int], list[Cable]] = {}
        for cable in view.cables:
            if cable.a.node.key != cable.b.node.key:
                continue
            ports = sorted((cable.a.port.number, cable.b.port.number))
            loops = patterns.setdefault((cable.a.node.type, ports[0], ports[1]), [])
            if not any(c.a.node.key == cable.a.node.key for c in loops):
                loops.append(cable)
        for (kind, low, high), loops in patterns.items():
            first = loops[0]
            fix = FixIntent("ib-loop-cable", {"a": first.a.fix(), "b": first.b.fix()})
            if len(loops) == 1:
                yield self.cable_finding(
                    first, f"port {first.a.port.number} is cabled to port "
                    f"{first.b.port.number} of the same {kind}", fix=fix)
                continue
            names = [c.a.node.label for c in loops]
            shown = ", ".join(names[:4]) + (f", ... ({len(names) - 4} more)"
                                            if len(names) > 4 else "")
            finding = self.ib_finding(
                first.a.node, f"port {low}", first.link.src,
                f"port {low} is cabled to port {high} of the same {kind} on {len(loops)} "
                f"{kind}es ({shown})", fix=fix,
                related=[c.link.src for c in loops[1:]])
            finding.objects = names
            yield finding


AGGREGATION_NODE = "Mellanox Technologies Aggregation Node"
"""The SHARP aggregation node inside every Quantum switch: a virtual CA on the switch's last
port, not a cable."""


def _physical(cable: Cable) -> bool:
    return all((end.node.description or "").strip() != AGGREGATION_NODE for end in cable.ends)


def _link_class(cable: Cable) -> str:
    kinds = {end.node.type for end in cable.ends}
    return "switch-to-switch" if kinds == {"switch"} else "host"


def _listed(cables: list[Cable], limit: int = 4) -> str:
    names = ", ".join(f"{c.a.node.label!r} {c}" for c in cables[:limit])
    return names + (f", … {len(cables) - limit} more" if len(cables) > limit else "")


@register
class IbMixedFec(IbRule):
    """Links of one InfiniBand generation and kind run different FEC modes.

    ## What it checks
    ibdiagnet's net_dump (`FEC mode`) and db_csv (`FECActv`) show the forward error correction
    each port runs. Cables are grouped by generation (HDR, NDR …) and kind (switch-to-switch,
    or to a host); where one group runs more than one FEC mode, the links of each rarer mode are
    reported together, once, against the mode most of the group runs. A cable whose two ends
    report different modes is reported on its own. SHARP aggregation node ports are left out.

    ## Why it matters
    The FEC mode is negotiated from the port's firmware, its FEC override and the cable (copper
    or optical, its length and type). Links of the same generation and kind should therefore
    run one mode; a few that differ point at a port whose FEC was overridden by hand
    (`mlxlink --fec`), at firmware that differs from the rest, or at a cable of another type
    than the plan. Low-latency and PLR modes differ in latency and in how many errors they
    correct, so such links behave differently under load and hide or show errors differently.

    ## How to fix
    Check the reported ports with `mlxlink -d <device> -p <port> --show_fec`: remove a manual
    FEC override, align the firmware with the rest of the fabric, and check the cable's part
    number against the plan.
    """

    id = "IB022"
    name = "ib-mixed-fec"
    title = "InfiniBand links of one generation run different FEC modes"
    severity = Severity.WARNING

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        groups: dict[tuple[str, str], dict[str, list[Cable]]] = {}
        for cable in view.cables:
            modes = {end.port.fec for end in cable.ends if end.port.fec}
            if not modes or not cable.speed or not _physical(cable):
                continue
            if len(modes) > 1:
                yield self.cable_finding(
                    cable, f"{cable}: the two ends report different FEC modes "
                    f"({cable.a.port.fec} and {cable.b.port.fec})")
                continue
            key = (cable.speed, _link_class(cable))
            groups.setdefault(key, {}).setdefault(modes.pop(), []).append(cable)
        for (speed, kind), by_mode in groups.items():
            if len(by_mode) < 2:
                continue
            ordered = sorted(by_mode, key=lambda m: (-len(by_mode[m]), m))
            common, total = ordered[0], sum(len(c) for c in by_mode.values())
            for mode in ordered[1:]:
                cables = by_mode[mode]
                first = cables[0]
                yield self.ib_finding(
                    first.a.node, f"port {first.a.port.number}", first.link.src,
                    f"{len(cables)} of {total} {speed} {kind} links "
                    f"{'run' if len(cables) > 1 else 'runs'} FEC {mode} where "
                    f"{len(by_mode[common])} run {common}: {_listed(cables)}",
                    related=[c.link.src for c in cables[1:]])


@register
class IbMtuBelowFabric(IbRule):
    """InfiniBand links run a smaller MTU than the rest of the fabric.

    ## What it checks
    ibdiagnet's net_dump (`MTU`) and db_csv (`NMTU`) show the MTU each link was set to: the
    smaller of what its two ports support. The MTU most cables of the dump run is the fabric's;
    cables below it are reported together per MTU, once, naming the port that limits them where
    the dump shows what each port supports (`MTUCap`). SHARP aggregation node ports are left
    out.

    ## Why it matters
    The subnet manager builds paths with the smallest MTU along them, so one host link at 2048
    bytes halves the largest message every peer can send to that host, and IPoIB or a partition
    with a 4096-byte MTU cannot reach it at all. The usual cause is an adapter whose maximum MTU
    was limited in its firmware configuration, or old firmware.

    ## How to fix
    On the limiting adapter, check and raise the port's maximum MTU (`mlxconfig -d <dev> query`,
    then `mlxconfig … set` and a reset), or update its firmware; then let the subnet manager
    sweep and check the link's MTU again.
    """

    id = "IB023"
    name = "ib-mtu-below-fabric"
    title = "InfiniBand link MTU below the fabric's"
    severity = Severity.WARNING

    def check_dump(self, view: IbView, ctx: Context) -> Iterator[Finding]:
        mtus: dict[int, list[Cable]] = {}
        for cable in view.cables:
            values = [end.port.mtu for end in cable.ends if end.port.mtu]
            if values and _physical(cable):
                mtus.setdefault(min(values), []).append(cable)
        if len(mtus) < 2:
            return
        fabric = max(mtus, key=lambda m: (len(mtus[m]), m))
        for mtu in sorted(m for m in mtus if m < fabric):
            cables = mtus[mtu]
            limits = []
            for cable in cables:
                limits += [f"{end.node.label!r} port {end.port.number} supports {end.port.mtu_cap}"
                           for end in cable.ends if end.port.mtu_cap and end.port.mtu_cap < fabric]
            cause = f" ({'; '.join(limits[:4])})" if limits else ""
            first = cables[0]
            yield self.ib_finding(
                first.a.node, f"port {first.a.port.number}", first.link.src,
                f"{len(cables)} link{'s run' if len(cables) > 1 else ' runs'} MTU {mtu} where "
                f"{len(mtus[fabric])} run {fabric}: {_listed(cables)}{cause}",
                related=[c.link.src for c in cables[1:]])
