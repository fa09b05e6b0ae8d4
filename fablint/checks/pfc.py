"""PFC rules: lossless priorities protected, lossy ones never paused, no 802.3x beside PFC."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import (
    Context,
    Rule,
    fmt_priorities,
    fmt_ranges,
    fmt_where,
    group_ports,
    register,
)
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import ClassMaps, Device, Interface, SourceRef


def _policies(iface: Interface) -> list[tuple[str, str | None, str]]:
    """(kind, direction, name) of the QoS policies in effect on the port, for fixes that must
    edit the policy supplying a setting rather than the port (NX-OS network-qos)."""
    return [(b.kind, b.direction, b.name) for b in iface.qos.policies]


@register
class PfcLosslessPriorities(Rule):
    """PFC is not in effect for the lossless priorities on a fabric port.

    ## What it checks
    Every fabric port (by default: every routed physical port that is not shut down, except
    ports the vendor's template keeps lossy by design, such as the DPU, in-band and service
    ports of SONiC's QoS template) must have
    PFC switched on and every priority of the profile's `pfc.lossless_priorities` configured
    no-drop. A port whose own PFC configuration is overridden by a device-wide switch (EOS
    `priority-flow-control all off`) is reported too, naming the line that turns it off.
    A port whose PFC would come from a QoS profile that does not exist (QOS009) or from an
    NX-OS network-qos policy bound nowhere (QOS006) is folded into that finding, the cause.

    ## Why it matters
    RoCEv2 assumes a lossless network: a dropped RDMA packet is only recovered by a go-back-N
    retransmission from the sending NIC, and throughput of a training job collapses at loss rates
    far below what TCP shrugs off. PFC is what makes the RoCE priority lossless, and it must be
    configured end to end: one port without it drops on every congestion burst.

    ## How to fix
    Turn PFC on and make the lossless priorities no-drop on the port, or in the QoS profile the
    port applies. Remove a device-wide `priority-flow-control all off`.
    """

    id = "PFC001"
    name = "pfc-lossless-priorities"
    title = "PFC not in effect for the lossless priorities on a fabric port"
    severity = Severity.ERROR
    category = "pfc"
    vendors = ("eos", "nxos", "sonic")
    settings = (
        "pfc.lossless_priorities",
        "ports.routed",
        "ports.switched",
        "ports.include",
        "ports.exclude",
    )

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        lossless = set(ctx.policy.pfc.lossless_priorities)
        if not lossless:
            return
        found = ctx.ports_with(device, lambda port: lossless - port.qos.pfc.active_priorities,
                               alike=True)
        # Ports whose PFC is wrong the same way (one profile or policy, the platform default,
        # or SONiC's per-port entries written alike) make one finding naming them, one fix.
        for _, ports, missing in group_ports(found, lambda port, missing: (
                frozenset(missing), port.qos.pfc.mode, frozenset(port.qos.pfc.no_drop),
                port.qos.pfc.disabled_by, port.profile, device.profile_of(port, "pfc"),
                tuple(_policies(port)))):
            finding = self._finding(device, ctx, ports, missing)
            finding.explains.extend(_swapped(device, ctx, ports, lossless))
            yield finding

    def _finding(self, device: Device, ctx: Context, ports: list[Interface],
                 missing: set[int]) -> Finding:
        iface = ports[0]
        pfc = iface.qos.pfc
        prios = fmt_priorities(missing)
        on = fmt_where(p.name for p in ports)
        if pfc.disabled_by is not None:
            message = (
                f"PFC is configured on {on} but turned off device-wide; lossless "
                f"priority {prios} is not protected"
            )
        elif pfc.mode == "off":
            message = f"PFC is off on {on}; lossless priority {prios} is not protected"
        else:
            message = (
                f"PFC is on but priority {prios} is not no-drop on {on} "
                f"(no-drop: {fmt_priorities(pfc.no_drop)})"
            )
        usable = None if iface.profile else device.profile_providing(missing)
        if usable is not None and pfc.disabled_by is None:
            fix = FixIntent("apply-profile", {"interface": iface.name, "profile": usable})
        else:
            fix = FixIntent("pfc-enable", {
                "interface": iface.name,
                "priorities": sorted(missing),
                "profile": device.profile_of(iface, "pfc"),
                "global_off": pfc.disabled_by is not None,
                "mode": pfc.mode,
                "no_drop": sorted(pfc.no_drop),
                "policies": _policies(iface),
            })
        if len(ports) > 1:
            fix.params["interfaces"] = [p.name for p in ports]
        # PFC on the wrong priority: the line that makes the other priority no-drop is the
        # mistake (EOS `priority-flow-control priority 4 no-drop` in the port's profile)
        extra = sorted(pfc.active_priorities - set(ctx.policy.pfc.lossless_priorities)
                       - pfc.tunnel_priorities)
        swapped = next((ref for p in extra if (ref := pfc.field_src.get(f"priority[{p}]"))),
                       None) if pfc.disabled_by is None else None
        # PFC turned off device-wide (EOS `priority-flow-control all off`): that line is the
        # cause, whatever the ports say
        return self.finding(
            device, iface.name, pfc.disabled_by or _pfc_line(iface) or swapped or iface.src,
            message,
            related=[pfc.disabled_by, pfc.where("mode")], fix=fix,
            places=[(p.name, _pfc_line(p) or p.src) for p in ports],
            # the cable's PFC mismatch with a peer that pauses the lossless priorities
            # (PFC008, reported on this end) follows from it
            explains=[("PFC008", p.name) for p in ports],
        )


def _swapped(device: Device, ctx: Context, ports: list[Interface],
             lossless: set[int]) -> list[tuple[str, str]]:
    """What a port group's PFC on the wrong priority explains (``priority 4 no-drop`` or
    ``pfc_enable: 4`` where the profile's lossless priority is 3): the other priority paused
    in its place (PFC002), the ECN its queue is then asked for (ECN001), and RoCE missing PFC
    (QOS001) where every RoCE DSCP reaches a lossless priority, the one not paused, and a
    watchdog that misses only the wrongly paused priority (WD001). One mistake, one finding;
    empty when the port pauses nothing else."""
    iface = ports[0]
    pfc = iface.qos.pfc
    extra = pfc.active_priorities - lossless - pfc.tunnel_priorities
    if not extra:
        return []
    maps = device.maps_for(iface)
    roce_lossless = all(maps.pfc_priority_of(maps.class_of_dscp(d)) in lossless
                        for d in ctx.policy.classification.roce_dscp)
    out: list[tuple[str, str]] = []
    for port in ports:
        out.append(("PFC002", port.name))
        out.extend(("ECN001", f"{port.name} queue {q}")
                   for q in _lossy_queues(device, port, extra, ctx))
        if roce_lossless:
            out.append(("QOS001", port.name))
        watchdog = port.qos.pfc.watchdog
        if watchdog.enabled and (watchdog.priorities is None
                                 or lossless <= watchdog.priorities):
            out.append(("WD001", port.name))
    # the fabric comparisons of this device's paused priorities (PFC007) and of how it
    # treats the RoCE DSCPs (QOS010) see the same mistake from the fabric
    out += [("PFC007", "PFC priorities")]
    if roce_lossless:
        out.append(("QOS010", "DSCP map"))
    return out


def _pfc_line(iface: Interface) -> SourceRef | None:
    """A line that turns PFC on and lists its priorities (SONiC pfc_enable) is where a missing
    priority belongs; otherwise (None) the port."""
    pfc = iface.qos.pfc
    listed = pfc.field_src.get("no_drop")
    return listed if listed is not None and listed == pfc.field_src.get("mode") else None


@register
class PfcOnLossyPriority(Rule):
    """PFC pauses a priority that carries lossy traffic, or no traffic at all.

    ## What it checks
    On every fabric port, each priority PFC pauses that is not one of the profile's
    `pfc.lossless_priorities` is followed back through the classification chain in effect on
    the port (DSCP -> traffic class -> PFC priority, platform defaults resolved): which of the
    64 DSCPs would it hold back?

    - It carries lossy traffic, an **error**: unclassified traffic or the default class, the
      CNP DSCP, or any DSCP that is neither in `classification.roce_dscp` nor in
      `classification.other_lossless_dscp` (DSCP 3 and 4 of SONiC's stock design). A priority
      listed in `pfc.lossy_priorities` is always an error.
    - Priorities a vendor design pauses for tunnelled copies of the lossless traffic are
      left alone: SONiC's dual-ToR ports pause 2 and 6 besides 3 and 4 (`pfc_enable:
      2,3,4,6`, with DSCP 2 and 6 alone on them) for what the standby ToR bounces through its
      IP-in-IP tunnel, re-marked DSCP 2 and 6 (TUNNEL_QOS_REMAP).
    - No traffic maps to it (or only lossless DSCPs do), **info**: the pause does nothing
      today, but the priority is lossless outside the profile's design. SONiC's stock
      `pfc_enable: "3,4"` with a map that sends nothing else to 4 is this case.

    ECN findings on the queues of the lossy priorities it reports (ECN001 asking the default
    class's queue to mark ECN because PFC made it "lossless") are its consequences: they are
    folded into this finding, never a fix of their own; so is ECN001 on the queue of a paused
    priority that carries no traffic (nothing there to mark). The cable's PFC mismatch (PFC008)
    on a port that pauses a lossy priority is this finding seen from the link, folded too.

    ## Why it matters
    Pausing a lossy class spreads congestion backwards through the fabric: the default class
    (TCP, storage, control traffic) and the CNP class stop at every hop instead of dropping,
    head-of-line blocking builds up and a single slow receiver can trigger a PFC storm or
    deadlock. PFC should cover only the traffic that needs it. A paused priority nothing maps to
    is harmless until a map changes, which is why it is only reported for information.

    ## How to fix
    Make the priority lossy again (remove its no-drop setting) on the port, in its QoS profile
    or in the no-drop class that pauses it, or, if it really carries lossless traffic, add it
    to `pfc.lossless_priorities` in your profile (and its DSCPs to the classification).
    """

    id = "PFC002"
    name = "pfc-on-lossy-priority"
    title = "PFC pauses a priority that carries lossy traffic"
    severity = Severity.ERROR
    category = "pfc"
    vendors = ("eos", "nxos", "sonic")
    settings = ("pfc.lossless_priorities", "pfc.lossy_priorities", "classification.roce_dscp",
                "classification.cnp_dscp", "classification.other_lossless_dscp")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        policy = ctx.policy
        lossless = set(policy.pfc.lossless_priorities)
        always_lossy = set(policy.pfc.lossy_priorities)
        fine = set(policy.classification.roce_dscp) | set(
            policy.classification.other_lossless_dscp)
        cnp = set(policy.classification.cnp_dscp)
        # Ports paused the same way by the same profile or policy make one finding that names
        # them (SONiC writes pfc_enable per port: a stock "3,4" would be one finding per port).
        groups: dict[tuple[object, ...],
                     list[tuple[Interface, str, bool, list, FixIntent, set[int]]]] = {}
        # what a map chain's priorities carry, worked out once per chain and set of priorities
        # (every SONiC port has its own pfc_enable, most of them alike)
        judged: dict[tuple[int, tuple[int, ...]],
                     tuple[dict[int, str], dict[int, str], list[int], str]] = {}
        for iface, extra in ctx.ports_with(
                device, lambda port: port.qos.pfc.active_priorities - lossless
                - port.qos.pfc.tunnel_priorities, alike=True):
            pfc = iface.qos.pfc
            maps = device.maps_for(iface)
            # one map chain for most ports: 64 DSCPs resolved once, not per port (read only)
            extra_key = (id(maps), tuple(sorted(extra)))
            verdict = judged.get(extra_key)
            if verdict is None:
                errors, unused = _judge(maps, extra_key[1], ctx, fine, cnp, always_lossy)
                verdict = judged[extra_key] = (errors, unused, sorted({*errors, *unused}),
                                               _carries({**errors, **unused}))
            errors, unused, flagged, carries = verdict
            flagged = list(flagged)  # each port's fix holds its own
            refs = [pfc.field_src.get(f"priority[{p}]") for p in flagged]
            no_drop_classes = maps.no_drop_classes or set()
            profile = device.profile_of(iface, "pfc")
            key = (tuple(sorted(errors)), tuple(sorted(unused)), carries, profile,
                   tuple(sorted(pfc.no_drop)), tuple(_policies(iface)))
            empty = {p for p, text in unused.items() if text == "no traffic"}
            groups.setdefault(key, []).append((iface, carries, bool(errors), refs, FixIntent(
                "pfc-disable-priority", {
                    "interface": iface.name,
                    "priorities": flagged,
                    "no_drop": sorted(pfc.no_drop),
                    "profile": profile,
                    "policies": _policies(iface),
                    "pause_classes": {
                        p: next((c for c in sorted(no_drop_classes)
                                 if maps.pfc_priority_of(c) == p), p) for p in flagged},
                    "class_names": dict(device.qos.class_names),
                }), empty))
        for (error, unused_prios, carries, *_), members in groups.items():
            iface, _, _, refs, fix, _ = members[0]
            ports = [m[0].name for m in members]
            where = fmt_where(ports)
            if error:
                message = (f"PFC pauses lossy priority {fmt_priorities(error)} on {where}: "
                           f"{carries}")
            else:
                message = (f"PFC pauses priority {fmt_priorities(unused_prios)} on {where}, "
                           "outside the profile's lossless priorities "
                           f"({fmt_priorities(lossless)}): {carries}")
            if len(ports) > 1:
                fix.params["interfaces"] = ports
            # ECN findings on the queues of the lossy priorities it pauses are its consequences:
            # PFC made them "lossless", and asking them for ECN would push a lossy class
            # (often the default class) toward lossless treatment.
            explains = [("ecn", f"{m[0].name} queue {q}") for m in members
                        for q in _lossy_queues(device, m[0], error, ctx)] if error else []
            # the cable's PFC mismatch with a peer that does not pause the lossy priority
            # (PFC008, reported on this end) is the same mistake seen from the link
            explains += [("PFC008", m[0].name) for m in members] if error else []
            # a paused priority that carries no traffic has nothing to mark: ECN001 asking
            # its queue for ECN follows from the needless pause (SONiC's stock "3,4" where
            # nothing maps to 4)
            explains += [("ECN001", f"{m[0].name} queue {q}") for m in members
                         for q in _lossy_queues(device, m[0], m[5], ctx)]
            yield self.finding(
                device, iface.name, next((r for r in refs if r), iface.src), message,
                severity=None if error else Severity.INFO, related=refs, fix=fix,
                places=[(m[0].name, next((r for r in m[3] if r), m[0].src)) for m in members],
                explains=explains,
            )


def _judge(maps: ClassMaps, extra: tuple[int, ...], ctx: Context, fine: set[int], cnp: set[int],
           always_lossy: set[int]) -> tuple[dict[int, str], dict[int, str]]:
    """The priorities of ``extra`` (sorted) a port with ``maps`` pauses: those that carry lossy
    or unclassified traffic (errors) and the others (unused), with what each carries."""
    carried = ctx.once("dscps_by_priority", maps, maps.dscps_by_priority)
    default_prio = maps.pfc_priority_of(maps.class_of_dscp(0))
    errors: dict[int, str] = {}
    unused: dict[int, str] = {}
    for prio in extra:
        dscps = carried.get(prio, [])
        unclassified = [d for d in dscps if maps.tc_for_dscp(d) is None]
        lossy = [d for d in dscps if d not in fine and d not in unclassified]
        if unclassified or lossy:
            what = [*(["unclassified traffic"] if unclassified else []),
                    *([f"DSCP {fmt_ranges(lossy)}"] if lossy else [])]
            tags = [*(["the default class"] if prio == default_prio else []),
                    *(["CNP"] if cnp & set(lossy) else [])]
            errors[prio] = " and ".join(what) + (f" ({', '.join(tags)})" if tags else "")
        elif prio in always_lossy:
            errors[prio] = "no traffic, but the profile calls it lossy"
        else:
            unused[prio] = (f"only lossless DSCP {fmt_ranges(dscps)}" if dscps
                            else "no traffic")
    return errors, unused


def _lossy_queues(device: Device, iface: Interface, priorities: Iterable[int],
                  ctx: Context) -> set[int]:
    """Queues of ``priorities`` that carry no lossless traffic of the design: neither a queue
    of the profile's lossless priorities nor the queue the RoCE DSCPs are classified into.
    An ECN finding there exists only because PFC pauses the priority by mistake."""
    maps = device.maps_for(iface)
    keep = {device.queue_for_priority(p, iface) for p in ctx.policy.pfc.lossless_priorities}
    keep |= {maps.tc_to_queue.get(tc, tc) for d in ctx.policy.classification.roce_dscp
             if (tc := maps.class_of_dscp(d)) is not None}
    return {q for p in priorities if (q := device.queue_for_priority(p, iface)) not in keep}


def _carries(what: dict[int, str]) -> str:
    """``priority 0 carries DSCP 8-15; priority 1, 2 carry no traffic``: priorities that carry
    the same thing are named together."""
    groups: dict[str, list[int]] = {}
    for prio, text in sorted(what.items()):
        groups.setdefault(text, []).append(prio)
    return "; ".join(
        f"priority {fmt_ranges(prios)} {'carries' if len(prios) == 1 else 'carry'} {text}"
        for text, prios in groups.items())


@register
class PfcModeAuto(Rule):
    """PFC on a fabric port is left to DCBX negotiation (mode auto).

    ## What it checks
    Every fabric port that runs PFC must have it switched on outright, not in `auto` mode,
    which enables PFC only when DCBX (LLDP) negotiation with the peer succeeds. On NX-OS
    `auto` is the default: a port without `priority-flow-control mode on` runs in it.

    ## Why it matters
    In `auto` mode PFC depends on the peer speaking DCBX with compatible settings. A GPU NIC
    with DCBX off or in host mode, a neighbour with a different willing bit, or LLDP disabled
    leaves the port without PFC; it pauses nothing and RoCE is dropped on the first burst,
    while the configuration shows the no-drop class. Cisco's RoCE designs and Azure Local set
    `priority-flow-control mode on` on every RoCE port.

    ## How to fix
    Set `priority-flow-control mode on` on the port.
    """

    id = "PFC004"
    name = "pfc-mode-auto"
    title = "PFC left to DCBX negotiation (mode auto) on a fabric port"
    severity = Severity.WARNING
    category = "pfc"
    vendors = ("nxos",)
    settings = ("ports.routed", "ports.switched", "ports.include", "ports.exclude")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        found = ctx.ports_with(device, lambda port: port.qos.pfc.mode == "auto"
                               and port.qos.pfc.active_priorities, alike=True)
        # Ports left in auto alike (the platform default, or the same line on each) make one
        # finding naming them: one change, `mode on` on each.
        for _, ports, _ in group_ports(found, lambda port, _: (
                port.qos.pfc.configured("mode"), frozenset(port.qos.pfc.active_priorities))):
            iface = ports[0]
            pfc = iface.qos.pfc
            default = "" if pfc.configured("mode") else " (the platform default)"
            params: dict[str, object] = {"interface": iface.name}
            if len(ports) > 1:
                params["interfaces"] = [p.name for p in ports]
            yield self.finding(
                device, iface.name, pfc.where("mode") or iface.src,
                f"PFC on {fmt_where(p.name for p in ports)} is in mode auto{default}: it runs "
                "only if DCBX negotiation with the peer succeeds, else priority "
                f"{fmt_priorities(pfc.active_priorities)} is not paused",
                fix=FixIntent("pfc-mode-on", params),
                places=[(p.name, p.qos.pfc.where("mode") or p.src) for p in ports],
            )


@register
class PfcWithLinkPause(Rule):
    """802.3x link-level pause is configured on a port that runs PFC.

    ## What it checks
    A fabric port with PFC configured must not also send or honour IEEE 802.3x pause frames
    (`flowcontrol send|receive on`).

    ## Why it matters
    Link pause stops every priority on the link, including the lossy ones, and vendors treat
    the two as mutually exclusive: NX-OS picks link pause over PFC when both are set, Junos
    refuses the commit. With both configured the port either does not do what the PFC
    configuration says or pauses all traffic on congestion.

    ## How to fix
    Switch 802.3x flow control off in both directions on the port.
    """

    id = "PFC003"
    name = "pfc-with-link-pause"
    title = "802.3x pause together with PFC on a port"
    severity = Severity.ERROR
    category = "pfc"
    vendors = ("eos", "nxos")
    settings = ("pfc.forbid_link_pause",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not ctx.policy.pfc.forbid_link_pause:
            return
        for iface, _ in ctx.ports_with(device, lambda port: port.qos.pfc.mode != "off"
                                       and port.qos.pause.enabled, alike=True):
            pfc, pause = iface.qos.pfc, iface.qos.pause
            directions = [d for d, on in (("receive", pause.rx), ("send", pause.tx)) if on]
            yield self.finding(
                device, iface.name, pause.where("rx", "tx"),
                f"802.3x flow control ({' and '.join(directions)}) is on together with PFC on "
                f"{iface.name}",
                related=[pfc.where("mode")],
                fix=FixIntent("link-pause-disable", {
                    "interface": iface.name,
                    "directions": directions,
                    "profile": device.profile_of(iface, "pause"),
                }),
            )
