"""Fabric-wide consistency: every device pauses the same priorities, classifies the RoCE and
CNP DSCPs the same way and marks ECN at the same thresholds (per port speed and device role).

These rules compare devices with each other rather than with the profile, so they also catch
a fabric whose profile is wrong in one place but right in another. Each is a ``FabricRule``:
``summarize`` runs in the worker that parsed the device and keeps a few values per device
(the settings in effect and how many ports use each), ``compare`` finds the majority and names
the devices that differ from it, with what the majority does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from fablint.checks.base import (
    Context,
    DeviceSummary,
    FabricRule,
    PortsAlone,
    fmt_ports,
    fmt_priorities,
    register,
)
from fablint.checks.ecn import lossless_queues, speed_class
from fablint.checks.qos import RoceDscpLossless
from fablint.findings import Finding, Severity
from fablint.model import Device, Interface, SourceRef, Threshold, component_roots

MAX_NAMED_PORTS = 8
"""Port names a summary keeps per value (the count is kept in full)."""


@dataclass
class Usage:
    """The fabric ports of one device that share one value, and where to point at it."""

    count: int = 0
    ports: list[str] = field(default_factory=list)
    """The first few port names (up to MAX_NAMED_PORTS), for messages."""
    refs: dict[Any, SourceRef | None] = field(default_factory=dict)
    """Lines of the first port that set parts of the value (keys are the rule's own)."""


Facts = dict[Any, dict[Any, Usage]]
"""A device's summary: comparison group -> value -> the ports with that value."""


Entry = tuple[Any, Any, dict[Any, Any]]
"""(comparison group, value, refs) of one port."""


def tally(ctx: Context, device: Device, groups: Sequence[list[Interface]],
          facts: Callable[[Interface], Iterable[Entry]]) -> Facts:
    """Count the ports' facts into a summary, group by group.

    ``groups`` are sets of ports that share their facts (ports with one QoS settings object:
    ``Context.qos_groups``), each in port order, the sets in the order of their first port.
    ``facts`` is computed once per set, from its first port, and counts for every port of it:
    a leaf has tens of fabric ports but two or three such sets. The result is the same as
    counting port by port: values in the order of the first port that has them, the refs of
    that port, and the first few port names in port order.
    """
    out: Facts = {}
    named: dict[int, list[Interface]] = {}
    """id(usage) -> its first ports, or candidates for them (``merged``)."""
    merged: set[int] = set()
    """ids of the usages whose candidates come from several sets, not yet in port order."""
    order: dict[int, int] = {}
    alone = isinstance(groups, PortsAlone)  # one port a group, in port order
    for ports in groups:
        for group, value, refs in facts(ports[0]):
            values = out.get(group)
            if values is None:
                values = out[group] = {}
            usage = values.get(value)
            if usage is None:
                values[value] = usage = Usage(len(ports), [], refs)
                named[id(usage)] = ports[:MAX_NAMED_PORTS]  # a copy: extended below
                continue
            usage.count += len(ports)
            kept = named[id(usage)]
            if alone:  # this port comes after every port kept: no order to look up
                if len(kept) < MAX_NAMED_PORTS:
                    kept.append(ports[0])
                continue
            # A value that several sets share: the first ports of each set are candidates,
            # put in port order once at the end (the first few of the union of the sets
            # are among the first few of each).
            kept.extend(ports[:MAX_NAMED_PORTS])
            merged.add(id(usage))
            if len(kept) > 8 * MAX_NAMED_PORTS:  # (a chassis of many sets: keep it short)
                order = order or ctx.port_order(device)
                kept.sort(key=lambda iface: order[id(iface)])
                del kept[MAX_NAMED_PORTS:]
    for values in out.values():
        for usage in values.values():
            kept = named[id(usage)]
            if id(usage) in merged:
                order = order or ctx.port_order(device)
                kept.sort(key=lambda iface: order[id(iface)])
            usage.ports = [iface.name for iface in kept[:MAX_NAMED_PORTS]]
    return out


def by_speed(ctx: Context, device: Device, groups: Sequence[list[Interface]]
             ) -> Sequence[list[Interface]]:
    """``groups`` (as ``tally`` takes them) split further by port speed (``groups`` itself
    when every group has one speed)."""
    if all(len({iface.speed_mbps for iface in ports}) == 1 for ports in groups):
        return groups
    parts: list[list[Interface]] = []
    for ports in groups:
        if len({iface.speed_mbps for iface in ports}) == 1:
            parts.append(ports)
            continue
        speeds: dict[int | None, list[Interface]] = {}
        for iface in ports:
            speeds.setdefault(iface.speed_mbps, []).append(iface)
        parts.extend(speeds.values())
    if len(parts) > len(groups):
        order = ctx.port_order(device)
        parts.sort(key=lambda part: order[id(part[0])])
    return parts


@dataclass(frozen=True)
class Outlier:
    """One device's value that differs from what most devices of its group do."""

    summary: DeviceSummary
    group: Any
    value: Any
    usage: Usage
    reference: Any | None
    """What most devices do; None when no value has a majority."""
    votes: Counter[Any]
    """Value -> how many devices of the group mostly use it."""


def fabrics(summaries: list[DeviceSummary], ctx: Context) -> dict[str, int]:
    """Device name -> the fabric it belongs to, for the devices of ``summaries``.

    Devices are compared only within one fabric: the inputs of one run may hold unrelated
    fabrics (a folder of samples, a lab next to production). Where the inputs bring cables
    (LLDP, SONiC ``DEVICE_NEIGHBOR``, InfiniBand dumps, an intended topology), a fabric is a
    connected component of the cabling; devices no cable reaches form one more group of
    their own, since nothing says which fabric they are in. Where no cable reaches any of the
    devices, the inputs linted together are taken for one fabric: that is what giving them
    to one run says, and the comparisons stay limited to facts that mean the same on every
    platform (``fabrics`` decides only who is compared with whom).
    """
    names = [s.name for s in summaries]
    if not names:  # (an IB dump alone: no device to place, no cabling to join)
        return {}
    cabled, root = ctx.once("cabling components", ctx.fabric, lambda: _cabling(ctx))
    if not cabled.intersection(names):
        return dict.fromkeys(names, 0)
    ids: dict[str, int] = {}
    out = {}
    for name in names:
        key = root(name) if name in cabled else ""
        out[name] = ids.setdefault(key, len(ids))
    return out


def _cabling(ctx: Context) -> tuple[set[str], Callable[[str], str]]:
    """The names cables and links reach, and each one's component: the same for every rule
    that compares (a mixed fabric has 150,000 cables and links)."""
    topology = ctx.fabric.topology
    if topology is None:
        roots = component_roots((link.a.device, link.b.device) for link in ctx.fabric.links)
        return set(roots), roots.__getitem__
    roots = topology.roots()  # (the cables' components: the topology rules' too)
    if not ctx.fabric.links:
        return set(roots), roots.__getitem__
    # The links on top of the cables' components: a link joins the components of its ends
    # (a name on no cable is its own). Most join ends the cables joined already, and only
    # the others are walked: 60,000 links of a mixed fabric beside 54,000 cables.
    cabled = set(roots)
    across: list[tuple[str, str]] = []
    get = roots.get
    for link in ctx.fabric.links:
        a, b = link.a.device, link.b.device
        root_a, root_b = get(a), get(b)
        if root_a is None or root_b is None or root_a != root_b:
            across.append((a if root_a is None else root_a, b if root_b is None else root_b))
            cabled.add(a)
            cabled.add(b)
    if not across:
        return cabled, roots.__getitem__
    merged = component_roots(across)  # each component's root -> the root of their union
    return cabled, lambda name: merged[roots[name]]


def outliers(
    summaries: list[DeviceSummary], preferred: Callable[[Any], Any | None],
    ctx: Context | None = None,
) -> Iterator[Outlier]:
    """Every value a device uses that differs from its group's majority, within its fabric
    (``fabrics``; all devices together without a context).

    Each device votes with the value most of its ports use. The value with most votes is the
    reference; on a tie, the profile's ``preferred`` value wins if it is among the tied ones,
    otherwise there is no reference and every value of the tie is reported. Groups with one
    device compare nothing.
    """
    fabric = fabrics(summaries, ctx) if ctx is not None else {}
    groups: dict[Any, list[tuple[DeviceSummary, dict[Any, Usage]]]] = {}
    for summary in summaries:
        for group, values in (summary.facts or {}).items():
            if values:
                groups.setdefault((fabric.get(summary.name, 0), group), []).append(
                    (summary, values))
    for (_, group), members in groups.items():
        if len(members) < 2:
            continue
        votes: Counter[Any] = Counter(
            max(values.items(), key=lambda kv: kv[1].count)[0] for _, values in members)
        ranked = votes.most_common()
        tied = [value for value, count in ranked if count == ranked[0][1]]
        reference: Any | None = tied[0] if len(tied) == 1 else None
        if reference is None and preferred(group) in tied:
            reference = preferred(group)
        if reference is None and len(votes) == 1:
            continue
        for summary, values in members:
            for value, usage in values.items():
                if value != reference:
                    yield Outlier(summary, group, value, usage, reference, votes)


def fmt_where(usage: Usage) -> str:
    """``Ethernet1`` or ``48 ports (Ethernet1, Ethernet2, … 40 more)``."""
    if usage.count == 1:
        return usage.ports[0]
    names = fmt_ports(usage.ports, MAX_NAMED_PORTS)
    hidden = usage.count - len(usage.ports)
    if hidden > 0:
        names += f", … {hidden} more"
    return f"{usage.count} ports ({names})"


def fmt_majority(outlier: Outlier, describe: Callable[[Any], str], what: str) -> str:
    """``11 of 12 devices pause priority 3``, or the split when there is no majority."""
    total = sum(outlier.votes.values())
    if outlier.reference is not None:
        return (f"{outlier.votes[outlier.reference]} of {total} {what} "
                f"{describe(outlier.reference)}")
    split = " / ".join(f"{count} {describe(value)}" for value, count in
                      sorted(outlier.votes.items(), key=lambda kv: (-kv[1], repr(kv[0]))))
    return f"no majority among {total} {what}: {split}"


# -- PFC priorities ---------------------------------------------------------------------------


def _pauses(value: Any) -> str:
    return f"pause priority {fmt_priorities(value)}"


@register
class PfcPrioritiesConsistent(FabricRule):
    """Devices of the fabric pause different priorities.

    ## What it checks
    Across every device, the set of priorities that PFC pauses on fabric ports (no-drop with
    PFC in effect) must be the same. Each device counts with the set most of its fabric ports
    use; the set most devices use is the reference, and every device with ports that pause a
    different set is reported, with how many ports and what most devices do (for example
    "pauses priority 3, 4 on 48 ports; 11 of 12 devices pause priority 3"). On a tie the
    profile's `pfc.lossless_priorities` decides. A device that lacks a priority the others
    pause is an error; one that only pauses more is a warning. Ports with PFC off are left to
    PFC001. Priorities a port pauses for tunnelled copies of its lossless traffic (SONiC
    dual-ToR: 2 and 6 besides 3 and 4) are not compared: only the ports towards the other
    tier of such a design have them. Devices are compared within their fabric: a connected
    component of the cabling where the inputs bring cables, else all the inputs of the run.

    ## Why it matters
    PFC is hop by hop: a switch pauses its upstream neighbour only for the priorities it
    pauses itself, and the neighbour stops only the queues of those priorities. Where two
    devices disagree, RoCE traffic of a priority one of them does not pause is dropped on
    congestion there, however carefully the rest of the fabric is configured; PFC has to
    match end to end and be applied consistently on every device that carries RoCE.

    ## How to fix
    Make the odd device pause the same priorities as the rest of the fabric (its network-qos
    policy, QoS profile or `pfc_enable`), or, if the majority is what is wrong, fix the
    profile's `pfc.lossless_priorities` and the other devices.
    """

    id = "PFC007"
    name = "pfc-priorities-consistent"
    title = "Devices of the fabric pause different PFC priorities"
    severity = Severity.ERROR
    category = "pfc"
    vendors = ("eos", "nxos", "sonic")
    settings = ("pfc.lossless_priorities",)

    def summarize(self, device: Device, ctx: Context) -> Facts:
        return tally(ctx, device, ctx.alike_groups(device), self._paused)

    @staticmethod
    def _paused(iface: Interface) -> list[Entry]:
        pfc = iface.qos.pfc
        active = pfc.active_priorities - pfc.tunnel_priorities
        if not active:
            return []
        refs: dict[Any, Any] = {p: pfc.field_src.get(f"priority[{p}]") for p in active}
        refs["pfc"] = pfc.where("no_drop", "mode") or iface.src
        return [("", tuple(sorted(active)), refs)]

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        preferred = tuple(ctx.policy.pfc.lossless_priorities)
        for out in outliers(summaries, lambda _group: preferred, ctx):
            value = set(out.value)
            reference = set(out.reference or ())
            extra = sorted(value - reference)
            missing = reference - value
            where = out.usage.refs.get(extra[0]) if extra and out.reference else None
            yield self.finding(
                out.summary, "PFC priorities", where or out.usage.refs.get("pfc"),
                f"pauses priority {fmt_priorities(value)} on {fmt_where(out.usage)}; "
                + fmt_majority(out, _pauses, "devices"),
                severity=Severity.WARNING if out.reference is not None and not missing
                else None,
            )


# -- DSCP classification ----------------------------------------------------------------------

PAUSE = "pfc"
"""Fact of a DSCP: the PFC priority that pauses it (None: lossy, never paused)."""
QUEUE = "queue"
"""Fact of a lossy DSCP: how its queue is scheduled (``strict`` or ``weighted``)."""


def _treatment(kind: str, value: Any) -> str:
    if kind == PAUSE:
        return "lossy" if value is None else f"lossless on priority {value}"
    return "in a strict-priority queue" if value == "strict" else "in a weighted queue"


def _classes(value: Any) -> str:
    return ", ".join(f"DSCP {dscp} {_treatment(kind, v)}" for (dscp, kind), v in value)


@register
class DscpMapConsistent(FabricRule):
    """Devices of the fabric treat the RoCE or CNP DSCPs differently.

    ## What it checks
    Across the devices of one fabric, the RoCE and CNP DSCPs of the profile
    (`classification.roce_dscp` and `classification.cnp_dscp`) must be treated the same on
    every fabric port that classifies by DSCP: lossless on the same PFC priority, or lossy;
    and a lossy DSCP in a strict-priority queue everywhere or in a weighted queue everywhere
    (where the device says how the queue is scheduled). The traffic class numbers themselves
    are not compared: they are local to a device (an EOS traffic class, an NX-OS qos-group and
    a SONiC TC of the same number mean different things, and vendors' own designs put CNPs in
    class 6 on one platform and 7 on another); what crosses the wire is the DSCP and the
    priority of the pause frames. The map in effect on the port is followed (its own, the
    device's or the platform default). For each DSCP, each device counts with the treatment
    most of its ports give it; the treatment most devices give is the reference, and every
    device with ports that differ is reported once, naming the DSCPs treated otherwise and
    what most devices do. A RoCE DSCP that does not reach a lossless class on a port is
    QOS001's finding and is left out here, so that one wrong map is not reported twice,
    except on a switch that runs its lossless classes for DSCPs of its own (SONiC's Azure 3
    and 4): QOS001 gives that one warning, and this rule makes it an error where the rest of
    the fabric runs RoCE on the profile's DSCPs.
    Devices are compared within their fabric: a connected component of the cabling where
    the inputs bring cables, else all the inputs of the run.

    ## Why it matters
    A routed fabric classifies RoCE again at every hop, and PFC pauses by priority: when one
    switch makes DSCP 26 lossless on priority 4 and its neighbour on priority 3, the first
    switch's pause frames for priority 4 stop a queue that carries no RoCE while the RoCE
    queue keeps sending into a full buffer. CNPs lossless on one switch and lossy on the next,
    or strict on one and weighted behind bulk traffic on the next, arrive late exactly where
    congestion is. QOS001 checks each device against the profile; this rule checks the
    devices against each other.

    ## How to fix
    Map the DSCPs on the odd device so that they get the treatment the rest of the fabric
    gives them, in the map its ports use (or the scheduler of the queue).
    """

    id = "QOS010"
    name = "dscp-map-consistent"
    title = "Devices of the fabric treat the RoCE or CNP DSCPs differently"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("eos", "nxos", "sonic")
    settings = ("classification.roce_dscp", "classification.cnp_dscp")

    def summarize(self, device: Device, ctx: Context) -> Facts:
        cls = ctx.policy.classification
        dscps = sorted({*cls.roce_dscp, *cls.cnp_dscp})
        # A switch that runs its lossless classes for DSCPs of its own gets only a warning
        # from QOS001 (the hosts' marking is not in its configuration): whether the rest of
        # the fabric runs RoCE on the profile's DSCPs is judged here.
        roce = set() if RoceDscpLossless.own_dscps(device, ctx) else set(cls.roce_dscp)

        keys = [(dscp, f"dscp_to_tc[{dscp}]", (dscp, PAUSE), (dscp, QUEUE)) for dscp in dscps]

        def classes(iface: Interface) -> list[Entry]:
            qos = iface.qos
            if qos.trust not in (None, "dscp"):
                return []  # QOS003's business: the port does not classify by DSCP at all
            maps = device.maps_for(iface)
            paused = qos.pfc.active_priorities
            sources, to_queue, queues = maps.field_src, maps.tc_to_queue, qos.queues
            out: list[Entry] = []
            for dscp, key, pause, queued in keys:
                tc = maps.class_of_dscp(dscp)
                lossless = maps.class_is_no_drop(tc, paused)
                if not lossless and dscp in roce:
                    continue  # QOS001's business: RoCE that does not reach a lossless class
                ref = sources.get(key) or maps.src or iface.src
                out.append((pause, maps.pfc_priority_of(tc) if lossless else None,
                            {"map": ref}))
                queue = queues.get(to_queue.get(tc, tc))
                if not lossless and queue is not None and queue.scheduling is not None:
                    kind = "strict" if queue.scheduling == "strict" else "weighted"
                    out.append((queued, kind,
                                {"map": queue.src or ref}))
            return out

        return tally(ctx, device, ctx.alike_groups(device), classes)

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        # One finding per device and set of ports, listing every DSCP that differs there.
        merged: dict[tuple[str, tuple[str, ...], int], list[Outlier]] = {}
        # a tie (two switches, each its own way) is broken by the profile: a RoCE DSCP
        # lossless on the profile's first lossless priority is the right treatment
        roce_dscps = set(ctx.policy.classification.roce_dscp)
        lossless = ctx.policy.pfc.lossless_priorities
        first = lossless[0] if lossless else None

        def preferred(group: Any) -> Any | None:
            return first if group[1] == PAUSE and group[0] in roce_dscps else None

        for out in outliers(summaries, preferred, ctx):
            key = (out.summary.name, tuple(out.usage.ports), out.usage.count)
            merged.setdefault(key, []).append(out)
        for group in merged.values():
            group.sort(key=lambda o: o.group)
            first = group[0]
            pause = [o for o in group if o.group[1] == PAUSE]
            mine = _classes(tuple((o.group, o.value) for o in group))
            roce = set(ctx.policy.classification.roce_dscp)
            # RoCE DSCPs lossy here reach this rule only from a switch that runs its lossless
            # classes for DSCPs of its own; QOS001's warning about it is this finding's
            # consequence: the rest of the fabric shows which DSCPs the hosts mark.
            lossy_roce = any(o.group[1] == PAUSE and o.group[0] in roce and o.value is None
                             for o in group)
            yield self.finding(
                first.summary, "DSCP map", (pause or group)[0].usage.refs.get("map"),
                f"treats {mine} on {fmt_where(first.usage)}; {_dscp_majority(group)}",
                severity=None if pause else Severity.WARNING,
                explains=[("QOS001", f"device:{first.summary.name}")] if lossy_roce else (),
            )


def _dscp_majority(group: list[Outlier]) -> str:
    """What most devices do with the DSCPs of ``group`` (``2 of 3 devices treat DSCP 24
    lossless on priority 3, …``), per DSCP when the counts differ."""
    decided = [o for o in group if o.reference is not None]
    parts = []
    if decided:
        counts = {(o.votes[o.reference], sum(o.votes.values())) for o in decided}
        theirs = _classes(tuple((o.group, o.reference) for o in decided))
        if len(counts) == 1:
            (votes, total), = counts
            parts.append(f"{votes} of {total} devices treat {theirs}")
        else:
            parts.append("most devices treat " + ", ".join(
                f"{_classes(((o.group, o.reference),))} ({o.votes[o.reference]} of "
                f"{sum(o.votes.values())})" for o in decided))
    for o in group:
        if o.reference is None:
            kind = o.group[1]
            parts.append(f"DSCP {o.group[0]}: " + fmt_majority(
                o, lambda v, kind=kind: _treatment(kind, v), "devices"))
    return "; ".join(parts)


# -- ECN thresholds ---------------------------------------------------------------------------


def _size(threshold: Threshold | None) -> Any:
    if threshold is None:
        return None
    return threshold.bytes if threshold.bytes is not None else str(threshold)


def _reversed(low: Any, high: Any) -> bool:
    """Minimum above maximum in bytes: ECN003's error, not compared here as well."""
    return isinstance(low, int) and isinstance(high, int) and low > high


def _fmt_size(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, int):
        for unit, size in (("mbytes", 1 << 20), ("kbytes", 1 << 10)):
            if value and value % size == 0:
                return f"{value // size} {unit}"
        return f"{value} bytes"
    return str(value)


def _marks(value: Any) -> str:
    low, high, prob = value
    return (f"mark from {_fmt_size(low)} to {_fmt_size(high)}"
            + (f" at {prob} %" if prob is not None else ""))


@register
class EcnProfileConsistent(FabricRule):
    """Devices of the same ASIC and role mark ECN at different thresholds on ports of one speed.

    ## What it checks
    For each switch ASIC family, port speed and device role (SONiC's `DEVICE_METADATA` type
    where the input says; all devices together where it does not), the ECN marking of the
    lossless queues on fabric ports must be the same on every device of one fabric: minimum
    and maximum threshold (in bytes, or in their own unit when it cannot be converted) and
    marking probability. Thresholds are sized for a buffer: a Tomahawk's 128 KB and a
    Spectrum's 2 MB are both right for their ASIC, and a 400G port needs other values than a
    100G one. So a device whose ASIC family is not known (from the SONiC hwsku or platform,
    the EOS running-config header, RANCID's chassis type or the NX-OS boot image) is not
    compared, nor are ports whose speed the input does not give. Each device
    counts with the values most of its ports of that speed use; the values most devices use
    are the reference, and every device with ports that differ is reported, with what most
    devices do. On a tie the profile's `ecn.fix_*` values decide. Queues without ECN are left
    to ECN001, thresholds in reverse order to ECN003. Where the profile does not require ECN
    on lossless queues (`ecn.required_on_lossless: false`, PFC-only designs), whether a
    paused queue marks at all is compared too, on every ASIC and speed: a fabric that mostly
    runs without ECN, or mostly with it, should not have one switch doing otherwise.

    ## Why it matters
    DCQCN reacts to where congestion is marked: a switch that marks from 1 MB while its peers
    mark from 150 KB lets its queues grow much longer before senders slow down, so flows
    through it see more latency and more PFC pauses than the same flows elsewhere, and
    fairness between flows depends on which switch they cross. The same profile should be
    applied everywhere it carries the same traffic.

    ## How to fix
    Give the odd device the ECN profile the rest of the fabric uses for ports of that speed.
    """

    id = "ECN006"
    name = "ecn-profile-consistent"
    title = "ECN thresholds differ between devices of one ASIC family, port speed and role"
    severity = Severity.WARNING
    category = "ecn"
    vendors = ("eos", "nxos", "sonic")
    settings = ("ecn.fix_min_bytes", "ecn.fix_max_bytes", "ecn.fix_probability",
                "ecn.required_on_lossless")

    def summarize(self, device: Device, ctx: Context) -> Facts:
        family = device.asic_family
        on_off = not ctx.policy.ecn.required_on_lossless
        if family is None and not on_off:
            return {}  # thresholds mean something only for a known ASIC

        def marking(iface: Interface) -> list[Entry]:
            speed = speed_class(iface.speed_mbps)
            paused = bool(iface.qos.pfc.active_priorities)
            out: list[Entry] = []
            for queue_id, prios in lossless_queues(device, iface, ctx).items():
                queue = iface.qos.queues.get(queue_id)
                ecn = queue.ecn if queue is not None else None
                if on_off and paused:
                    where = ecn.src if ecn else (queue.src if queue else iface.src)
                    out.append(((ON_OFF, tuple(prios)), ecn is not None, {"ecn": where}))
                if family is None or speed is None or ecn is None:
                    continue  # a threshold sized for 400G is wrong at 100G: unknown, unknown
                low, high = _size(ecn.min_threshold), _size(ecn.max_threshold)
                if not _reversed(low, high):
                    value = (low, high, ecn.probability)
                    out.append(((family, speed, device.role, tuple(prios)), value,
                                {"ecn": ecn.src}))
            return out

        # The group is per port speed: ports of one QoS settings object may differ in speed.
        return tally(ctx, device, by_speed(ctx, device, ctx.alike_groups(device)), marking)

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        ecn = ctx.policy.ecn
        preferred = (ecn.fix_min_bytes, ecn.fix_max_bytes, ecn.fix_probability)
        for out in outliers(summaries, lambda group: None if group[0] == ON_OFF else preferred,
                            ctx):
            if out.group[0] == ON_OFF:
                prios = out.group[1]
                yield self.finding(
                    out.summary, f"ECN priority {fmt_priorities(prios)}",
                    out.usage.refs.get("ecn"),
                    f"{_on_off(out.value, 's')} ECN on the queue of priority "
                    f"{fmt_priorities(prios)} on {fmt_where(out.usage)}; "
                    + fmt_majority(out, _on_off, "devices"),
                )
                continue
            family, speed, role, prios = out.group
            ports = f"{speed} ports"
            who = f"{family} {role} devices" if role else f"{family} devices"
            yield self.finding(
                out.summary, f"ECN priority {fmt_priorities(prios)} {speed}",
                out.usage.refs.get("ecn"),
                f"ECN on the queue of priority {fmt_priorities(prios)} "
                f"{_marks(out.value).replace('mark', 'marks', 1)} on {fmt_where(out.usage)}; "
                + fmt_majority(out, _marks, f"{who} with {ports}"),
            )


ON_OFF = "on/off"
"""ECN006's group for whether a paused queue marks ECN at all (any ASIC, any speed)."""


def _on_off(marks: Any, s: str = "") -> str:
    return f"mark{s}" if marks else ("does not mark" if s else "do not mark")
