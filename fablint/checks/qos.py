"""Classification rules: RoCE and CNP traffic reach the classes the design gives them.

The chain is DSCP -> traffic class -> PFC priority / egress queue, read from the port's own maps
or the device's (``Device.maps_for``); platform default maps are resolved by the model.
"""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import (
    Context,
    Rule,
    fmt_consequences,
    fmt_priorities,
    fmt_ranges,
    fmt_where,
    maps_values,
    policy_bindings,
    port_of_owner,
    register,
)
from fablint.findings import Consequence, Finding, FixIntent, Severity
from fablint.model import (
    ClassMaps,
    Device,
    Interface,
    PolicyBinding,
    PolicySlot,
    Queue,
    Reference,
    SourceRef,
)


def _maps_ref(maps: ClassMaps, dscp: int, iface: Interface) -> SourceRef | None:
    return maps.field_src.get(f"dscp_to_tc[{dscp}]") or maps.src or iface.src


def _dscp_classifies(iface: Interface, maps: ClassMaps) -> bool:
    """Does the port classify by DSCP at all?

    A trust setting says so where the vendor has one. Without one (NX-OS) the maps say: a
    bridged port whose maps read only CoS classifies tagged traffic by PCP, every other port's
    DSCP map (explicit or the platform default) is what RoCE meets.
    """
    trust = iface.qos.trust
    if trust is not None:
        return trust == "dscp"
    return iface.routed or bool(maps.dscp_to_tc) or not maps.cos_to_tc


def _classes_before(device: Device, maps: ClassMaps) -> str | None:
    """First class of the classification policy ``maps`` came from (where a policy's classes
    match in order, a new class must go before it to win), else None."""
    kinds = {s.kind for s in device.qos.policy_slots if s.purpose == "classification"}
    for policy in device.policies.values():
        if policy.name == maps.name and policy.kind in kinds:
            return next((c for c in policy.classes if c != "class-default"), None)
    return None


def _dscp_map_in_use(device: Device, ctx: Context, target_tc: int) -> str | None:
    """Name of a DSCP map the device already uses that sends RoCE to ``target_tc``."""
    candidates = [device.qos, *(i.qos.maps for i in ctx.fabric_ports(device) if i.qos.maps)]
    for maps in candidates:
        if maps.name and maps.dscp_to_tc and all(
                maps.tc_for_dscp(d) == target_tc for d in ctx.policy.classification.roce_dscp):
            return maps.name
    return None


def _names(ports: list[Interface], limit: int = 4) -> str:
    names = [p.name for p in ports[:limit]]
    return ", ".join(names) + (f", … {len(ports) - limit} more" if len(ports) > limit else "")


@register
class RoceDscpLossless(Rule):
    """A RoCE DSCP does not reach a lossless traffic class on a fabric port.

    ## What it checks
    On every fabric port that runs PFC, each DSCP of the profile's `classification.roce_dscp`
    is followed through the classification chain in effect on that port: DSCP to traffic class
    (the port's own map, else the device's, else the platform default; unclassified traffic is
    in the default class), then traffic class to PFC priority. The priority must be one the
    port pauses (PFC no-drop). Ports with PFC off are left to PFC001, and on platforms where a
    class is made no-drop by itself (NX-OS network-qos) whether the class paused with that
    priority is the RoCE class is QOS007's business.

    On NX-OS the chain is the `qos` input policy in effect (`class-map type qos` with `match
    dscp`, `set qos-group`): a policy that matches only CoS leaves untagged RoCE in qos-group 0,
    which this rule reports (NX-OS has no trust setting for QOS003 to check).

    A RoCE DSCP mapped to a lossy class is an error, and so is a port where no RoCE DSCP is
    lossless. Where one is and the profile's others are merely not classified (they fall to the
    default class), the finding is info: designs that carry RoCE on DSCP 26 only classify 26
    and leave 24 alone, and that is a problem only if some host marks RoCE with 24.

    ## Why it matters
    PFC protects priorities, not packets: a RoCE packet classified into a lossy class is
    dropped on congestion no matter how carefully PFC is configured for priority 3. The
    classic case is SONiC's stock AZURE map, which sends DSCP 26, the DSCP NVIDIA and Broadcom
    NICs mark RoCE with, to lossy traffic class 1. Every hop must classify the same way.

    ## How to fix
    Map the RoCE DSCPs to the lossless traffic class in the map the port uses (EOS `qos map
    dscp`, an NX-OS `class-map type qos` with `match dscp` and `set qos-group`, SONiC
    `DSCP_TO_TC_MAP`), or change the profile's `classification.roce_dscp` if the hosts mark
    RoCE differently.
    """

    id = "QOS001"
    name = "roce-dscp-lossless"
    title = "RoCE DSCP does not reach a lossless traffic class"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("eos", "nxos", "sonic")
    settings = ("classification.roce_dscp", "pfc.lossless_priorities")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        lossless = ctx.policy.pfc.lossless_priorities
        # Ports that share a map and get it wrong the same way make one finding, on the map.
        groups = self.wrong_groups(device, ctx)
        own = self.own_dscps(device, ctx)
        if own:
            yield self._other_dscps(device, ctx, groups, own)
            return
        yield from self._findings(device, ctx, groups, lossless)

    def _other_dscps(self, device: Device, ctx: Context, groups: dict[
            tuple[object, frozenset[int], tuple[tuple[int, int | None], ...]], list[Interface]],
            own: set[int]) -> Finding:
        """One warning for a switch whose lossless classes carry DSCPs of its own and none of
        the profile's RoCE DSCPs: the switch is consistent with itself, and which DSCPs the
        hosts mark is not in its configuration."""
        roce = ctx.policy.classification.roce_dscp
        lossless = ctx.policy.pfc.lossless_priorities
        order = ctx.port_order(device)
        ports = sorted((p for members in groups.values() for p in members),
                       key=lambda p: order[id(p)])
        (_, _, wrong), members = next(iter(groups.items()))
        active = {p for _, paused, _ in groups for p in paused}
        first = members[0]
        maps = device.maps_for(first)
        landing = ", ".join(
            f"DSCP {d} -> {'no class (default)' if tc is None else f'traffic class {tc}'}"
            for d, tc in wrong)
        profile = " (SONiC's Azure design: the sonic-azure profile)" if (
            device.vendor == "sonic") else ""
        target_tc = maps.lossless_class(lossless[0]) if lossless else None
        consequences = [c for (_, _, w), group in groups.items()
                        for c in _cnp_consequences(device, ctx, group[0], w)]
        message = (
            f"{device.name} runs its lossless classes for DSCP {fmt_ranges(own)} (PFC pauses "
            f"priority {fmt_priorities(active)}), not for the profile's RoCE DSCP "
            f"{fmt_ranges(roce)}: on {fmt_where(p.name for p in ports)} {landing}. If the hosts "
            f"mark RoCE with DSCP {fmt_ranges(roce)} it is dropped on congestion; if this "
            f"fabric's RoCE DSCP is {fmt_ranges(own)}, set classification.roce_dscp in the "
            f"profile{profile}"
            + (f"; {fmt_consequences(consequences)}" if consequences else ""))
        return self.finding(
            device, device.name, _maps_ref(maps, wrong[0][0], first), message,
            severity=Severity.WARNING,
            fix=FixIntent("dscp-map", {
                "interface": first.name, "dscp": [d for d, _ in wrong], "tc": target_tc,
                "map": maps.name, "port_map": first.qos.maps is not None,
                "interfaces": [p.name for p in ports],
                "before": _classes_before(device, maps),
            }) if target_tc is not None and any(tc != target_tc for _, tc in wrong) else None,
            places=[(p.name, p.src) for p in ports],
            consequences=consequences,
        )

    @classmethod
    def wrong_groups(cls, device: Device, ctx: Context) -> dict[
            tuple[object, frozenset[int], tuple[tuple[int, int | None], ...]], list[Interface]]:
        """Fabric ports where a RoCE DSCP misses PFC, grouped by map and what misses (worked
        out once a device: QOS010's summary asks again; callers must not change it)."""
        return ctx.once("QOS001 wrong_groups", device, lambda: cls._wrong_groups(device, ctx))

    @classmethod
    def _wrong_groups(cls, device: Device, ctx: Context) -> dict[
            tuple[object, frozenset[int], tuple[tuple[int, int | None], ...]], list[Interface]]:
        groups: dict[tuple[object, frozenset[int], tuple[tuple[int, int | None], ...]],
                     list[Interface]] = {}
        for iface, (active, wrong) in ctx.ports_with(
                device, lambda port: cls._wrong(device, port, ctx), alike=True):
            maps = device.maps_for(iface)
            # Ports that each carry a copy of one named map (SONiC's per-port PORT_QOS_MAP
            # entries, an NX-OS qos policy bound on each port, each binding its own line)
            # share it as much as ports that share the object: one map name is one
            # definition on a device.
            shared = maps.name if maps.name else id(maps)
            groups.setdefault((shared, active, wrong), []).append(iface)
        return groups

    @classmethod
    def own_dscps(cls, device: Device, ctx: Context) -> set[int]:
        """The DSCPs a switch runs its lossless classes for instead of the profile's RoCE
        DSCPs (SONiC's Azure 3 and 4), or empty: then QOS001 reports only a warning, and
        QOS010 compares the RoCE DSCPs with the rest of the fabric (once a device; callers
        must not change it)."""
        return ctx.once("QOS001 own_dscps", device, lambda: _own_lossless_dscps(
            device, ctx, cls.wrong_groups(device, ctx)))

    @staticmethod
    def _wrong(device: Device, iface: Interface, ctx: Context
               ) -> tuple[frozenset[int], tuple[tuple[int, int | None], ...]] | None:
        """(paused priorities, the RoCE DSCPs that miss them with their classes) of a port,
        or None: values only, the same for every port whose QoS has the same values."""
        active = iface.qos.pfc.active_priorities
        maps = device.maps_for(iface)
        if not active or not _dscp_classifies(iface, maps):
            return None
        wrong = tuple(
            dscp for dscp in ctx.policy.classification.roce_dscp
            if maps.pfc_priority_of(maps.class_of_dscp(dscp)) not in active
        )
        if not wrong:
            return None
        return frozenset(active), tuple((d, maps.tc_for_dscp(d)) for d in wrong)

    def _findings(self, device: Device, ctx: Context, groups: dict[
            tuple[object, frozenset[int], tuple[tuple[int, int | None], ...]], list[Interface]],
            lossless: list[int]) -> Iterable[Finding]:
        for (_, active, wrong), ports in groups.items():
            first = ports[0]
            maps = device.maps_for(first)
            target_tc = maps.lossless_class(lossless[0]) if lossless else None
            landing = ", ".join(
                f"DSCP {d} -> {'no class (default)' if tc is None else f'traffic class {tc}'}"
                for d, tc in wrong
            )
            where = fmt_where(p.name for p in ports)
            reached = [d for d in ctx.policy.classification.roce_dscp
                       if d not in {dscp for dscp, _ in wrong}]
            # A design that carries RoCE on one DSCP classifies that one and leaves the
            # profile's others unclassified: only a DSCP mapped to a lossy class, or no RoCE
            # DSCP reaching a paused priority at all, is an error.
            unused = bool(reached) and not any(d in maps.dscp_to_tc for d, _ in wrong)
            note = (f" (DSCP {fmt_priorities(reached)} is lossless: this matters only if "
                    f"hosts mark RoCE with DSCP {fmt_priorities(d for d, _ in wrong)})"
                    ) if unused else ""
            if not unused and _cos_only(maps, active):
                note = (" (the classification sends only CoS values to a paused class, and "
                        "untagged routed traffic carries no CoS)" if first.routed else
                        " (the classification sends only CoS values to a paused class)")
            consequences = _cnp_consequences(device, ctx, first, wrong)
            also = f"; {fmt_consequences(consequences)}" if consequences else ""
            yield self.finding(
                device, first.name if len(ports) == 1 else (maps.name or "qos map"),
                _maps_ref(maps, wrong[0][0], first),
                f"RoCE traffic on {where} is not lossless: {landing}; PFC pauses "
                f"priority {fmt_priorities(active)}{note}{also}",
                consequences=consequences,
                severity=Severity.INFO if unused else None,
                fix=FixIntent("dscp-map", {
                    "interface": first.name, "dscp": [d for d, _ in wrong], "tc": target_tc,
                    "map": maps.name, "port_map": first.qos.maps is not None,
                    "interfaces": [p.name for p in ports],
                    "before": _classes_before(device, maps),
                # DSCPs already in the lossless class miss PFC because PFC pauses another
                # priority: PFC001 fixes that; a map that already says so is no fix
                }) if target_tc is not None and any(tc != target_tc for _, tc in wrong)
                else None,
                places=[(p.name, p.src) for p in ports],
            )


def _own_lossless_dscps(device: Device, ctx: Context, groups: dict[
        tuple[object, frozenset[int], tuple[tuple[int, int | None], ...]], list[Interface]]
                        ) -> set[int]:
        """The DSCPs the switch itself classifies into its paused classes, when that is its
        design: every port group where a RoCE DSCP misses PFC reaches no RoCE DSCP at all and
        sends other DSCPs (outside the default class, the CNP and the RoCE DSCPs) to a class
        it pauses. Empty otherwise: then a RoCE DSCP that misses PFC is QOS001's error."""
        cls = ctx.policy.classification
        skip = {*cls.roce_dscp, *cls.cnp_dscp}
        own: set[int] = set()
        for (_, active, wrong), ports in groups.items():
            if len(wrong) < len(cls.roce_dscp):
                return set()  # some RoCE DSCP is lossless here: a partial map is an error
            maps = device.maps_for(ports[0])
            default = maps.class_of_dscp(0)
            # priorities a vendor design pauses for tunnelled copies (SONiC dual-ToR 2, 6)
            # carry no traffic of their own
            own_prios = active - ports[0].qos.pfc.tunnel_priorities
            # DSCPs a line of the configuration maps, not the platform's default map
            explicit, sources, to_priority = (maps.dscp_to_tc, maps.field_src,
                                              maps.tc_to_pfc_priority)
            mine = {d for d in range(64) if d not in skip
                    and _DSCP_KEYS[d] in sources
                    and (tc := explicit[d] if d in explicit else maps.class_of_dscp(d))
                    != default and to_priority.get(tc, tc) in own_prios}
            if not mine:
                return set()
            own |= mine
        return own


_DSCP_KEYS = tuple(f"dscp_to_tc[{d}]" for d in range(64))
"""``field_src`` key of each DSCP's entry of a map (made once)."""


def _cos_only(maps: ClassMaps, active: frozenset[int]) -> bool:
    """Does only CoS (802.1p), no DSCP, reach a class PFC pauses?"""
    return (not any(maps.pfc_priority_of(maps.class_of_dscp(d)) in active for d in range(64))
            and any(maps.pfc_priority_of(tc) in active for tc in maps.cos_to_tc.values()))


def _cnp_consequences(device: Device, ctx: Context, iface: Interface,
                      wrong: tuple[tuple[int, int | None], ...]) -> list[Consequence]:
    """QOS004's finding that a CNP DSCP shares a class with RoCE data, where RoCE's class is
    the lossy one QOS001 reports: moving RoCE to its lossless class ends the sharing, so QOS004
    leaves it to this finding (``CnpClassDistinctStrict._issues``)."""
    maps = device.maps_for(iface)
    landing = {maps.class_of_dscp(d) for d, _ in wrong} - {maps.class_of_dscp(0)}
    return [Consequence("QOS004", iface.name,
                        f"CNP DSCP {dscp} shares traffic class {tc} with RoCE data on "
                        f"{iface.name}")
            for dscp in ctx.policy.classification.cnp_dscp
            if (tc := maps.class_of_dscp(dscp)) in landing]


_PORT_KINDS = frozenset({"PORT", "PORTCHANNEL", "interface", "port"})


@register
class TrustDscpOnRouted(Rule):
    """A routed fabric port does not trust DSCP.

    ## What it checks
    Every routed fabric port must classify incoming traffic by DSCP: `qos trust dscp` on EOS,
    a `dscp_to_tc_map` in the port's SONiC `PORT_QOS_MAP` entry. A port that trusts only CoS
    (802.1p: EOS `qos trust cos`, a SONiC port with only a `dot1p_to_tc_map`), or nothing, is an
    error.

    Not on NX-OS: NX-OS has no trust setting. What it classifies is whatever the `qos` input
    policy's class-maps match (`match dscp`, `match cos`), so a policy that matches only CoS is
    a DSCP map that leaves RoCE in qos-group 0, and QOS001 reports it with a `match dscp` fix.

    ## Why it matters
    RoCEv2 on a routed fabric is untagged IP: there is no 802.1Q header and so no CoS to trust.
    A CoS-trusting port puts every untagged RoCE packet into the port's default class, which is
    lossy, and PFC never engages for it. NVIDIA's and Cisco's RoCE designs both classify on DSCP.

    ## How to fix
    Trust DSCP on the port, or in the QoS profile it applies; on SONiC bind a DSCP to TC map
    that sends the RoCE DSCPs to the lossless class.
    """

    id = "QOS003"
    name = "trust-dscp-on-routed"
    title = "Routed fabric port does not trust DSCP"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("eos", "sonic")
    settings = ("ports.routed", "classification.roce_dscp", "classification.cnp_dscp",
                "classification.cnp_traffic_class")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        cls = ctx.policy.classification
        lossless = ctx.policy.pfc.lossless_priorities
        if not any(ports[0].qos.trust not in (None, "dscp") and any(i.routed for i in ports)
                   for ports in ctx.all_qos_groups(device)):
            return  # every routed port trusts DSCP (or has no trust setting)
        # Ports that take their trust from one line (an EOS qos profile's `qos trust cos`)
        # make one finding naming them: one cause, one fix.
        groups: dict[tuple[object, ...], list[Interface]] = {}
        for iface in ctx.fabric_ports(device, ("layer3",)):
            trust = iface.qos.trust
            if not iface.routed or trust in (None, "dscp"):
                continue
            # A port-channel's members carry the QoS; report on the member, not the bundle.
            ports = device.members(iface.name) if iface.kind == "port-channel" else [iface]
            for port in ports or [iface]:
                if port.qos.trust in (None, "dscp"):
                    continue
                # (SONiC writes a PORT_QOS_MAP row per port: rows alike are one cause too)
                cause: object = (None if device.vendor == "sonic"
                                 else port.qos.where("trust") or port.name)
                groups.setdefault((port.qos.trust, cause, device.profile_of(port, "trust")),
                                  []).append(port)
        for (trust, _, profile), ports in groups.items():
            port = ports[0]
            what = "CoS only" if trust == "cos" else "nothing (untrusted)"
            target_tc = device.maps_for(port).lossless_class(lossless[0]) if lossless else 3
            plural = len(ports) > 1
            names = [p.name for p in ports] if plural else None
            yield self.finding(
                device, port.name, port.qos.where("trust") or port.src,
                (f"routed {fmt_where(p.name for p in ports)} trust" if plural
                 else f"routed port {port.name} trusts")
                + f" {what}; untagged RoCE lands in the default class",
                fix=FixIntent("trust-dscp", {
                    "interface": port.name, "profile": profile,
                    "map": _dscp_map_in_use(device, ctx, target_tc),
                    "dscp": cls.roce_dscp, "tc": target_tc,
                    "cnp_dscp": cls.cnp_dscp, "cnp_tc": cls.cnp_traffic_class,
                    **({"interfaces": names} if names and profile is None else {}),
                }),
                places=[(p.name, p.qos.where("trust") or p.src) for p in ports] if plural
                else (),
            )


@register
class CnpClassDistinctStrict(Rule):
    """The CNP DSCP shares the RoCE class or the default class, or its queue is not strict
    priority.

    ## What it checks
    On every fabric port, the profile's `classification.cnp_dscp` must map to a traffic class
    of its own: not the one the RoCE DSCPs map to, and not the default class that unclassified
    and best-effort (DSCP 0) traffic is in. The egress queue of that class must be scheduled
    strict priority when the configuration says how it is scheduled (EOS `priority strict`,
    NX-OS `priority level 1`, SONiC `SCHEDULER` type `STRICT`).

    ## Why it matters
    Congestion notification packets (CNPs) tell a RoCE sender to slow down. If they queue
    behind the very RoCE data whose congestion they report, or behind bulk best-effort
    traffic, the signal arrives late and DCQCN oscillates; if their queue is a weighted one, a
    busy fabric delays them further. NVIDIA, Cisco and Dell RoCE designs all put CNPs in their
    own strict-priority class (TC 6 or 7).

    ## How to fix
    Map the CNP DSCP to its own traffic class (the profile's `classification.cnp_traffic_class`
    in fixes) and schedule that class's queue strict priority.
    """

    id = "QOS004"
    name = "cnp-class-distinct-strict"
    title = "CNP not in its own strict-priority class"
    severity = Severity.WARNING
    category = "qos"
    vendors = ("eos", "nxos", "sonic")
    settings = ("classification.cnp_dscp", "classification.roce_dscp",
                "classification.cnp_traffic_class")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        cls = ctx.policy.classification
        # Ports whose map sends the CNP DSCP to a shared class (one named map or policy, each
        # NX-OS port holding its own copy) make one finding naming them.
        shared: dict[tuple[object, ...], list[Interface]] = {}
        slow: dict[tuple[object, ...], list[tuple[Interface, Queue]]] = {}
        for iface, issues in ctx.ports_with(
                device, lambda port: self._issues_of(device, port, ctx), alike=True):
            maps = device.maps_for(iface)
            for dscp, tc, shares, queue in issues:
                if shares is not None:
                    shared.setdefault((maps.name or id(maps), dscp, tc, shares),
                                      []).append(iface)
                    continue
                assert queue is not None
                queue_id = maps.tc_to_queue.get(tc, tc)
                profile = device.profile_of(iface, "queues")
                # Ports whose CNP queue is scheduled alike (one profile, or SONiC's per-port
                # QUEUE entries written alike) make one finding naming them.
                slow.setdefault((profile, queue_id, queue.scheduling, queue.name, dscp, tc),
                                []).append((iface, queue))
        for (_, dscp, tc, shares), members in shared.items():
            iface = members[0]
            maps = device.maps_for(iface)
            yield self.finding(
                device, iface.name, _maps_ref(maps, dscp, iface),
                f"CNP DSCP {dscp} shares traffic class {tc} with {shares} on "
                f"{fmt_where(p.name for p in members)}",
                fix=FixIntent("dscp-map", {
                    "interface": iface.name, "dscp": [dscp],
                    "tc": cls.cnp_traffic_class, "map": maps.name,
                    "port_map": iface.qos.maps is not None,
                    "before": _classes_before(device, maps),
                }),
                places=[(p.name, p.src) for p in members] if len(members) > 1 else (),
            )
        for (profile, queue_id, scheduling, name, dscp, tc), ports in slow.items():
            iface, queue = ports[0]
            names = list(dict.fromkeys(p.name for p, _ in ports))
            where = fmt_where(names)
            params: dict[str, object] = {"interface": iface.name, "queue": queue_id,
                                         "profile": profile, "queue_name": name}
            if len(names) > 1 and not profile:
                params["interfaces"] = names
            yield self.finding(
                device, iface.name, queue.where("scheduling"),
                f"CNP queue {queue_id} (DSCP {dscp}, traffic class {tc}) on {where} is "
                f"scheduled {scheduling}, not strict priority",
                fix=FixIntent("queue-strict", params),
                places=[(p.name, q.where("scheduling")) for p, q in ports],
            )

    @classmethod
    def _issues_of(cls, device: Device, iface: Interface, ctx: Context
                   ) -> list[tuple[int, int, str | None, Queue | None]]:
        """``_issues``, once per set of the values it reads (ports that each hold a copy of
        one map, as NX-OS ports do, share it)."""
        qos = iface.qos
        return ctx.by_value(
            "QOS004 issues", device,
            lambda: (ctx.maps_key(device.maps_for(iface)), frozenset(qos.pfc.active_priorities),
                     qos.trust, iface.routed, tuple(qos.queues),
                     tuple(map(id, qos.queues.values()))),
            lambda: cls._issues(device, iface, ctx))

    @staticmethod
    def _issues(device: Device, iface: Interface, ctx: Context
                ) -> list[tuple[int, int, str | None, Queue | None]]:
        """(CNP DSCP, its class, what it shares the class with, or its queue that is not
        strict priority) for each CNP DSCP at fault on a port: the same for every port that
        shares the port's QoS settings."""
        cls = ctx.policy.classification
        maps = device.maps_for(iface)
        if not iface.qos.pfc.active_priorities or not _dscp_classifies(iface, maps):
            return []
        roce_tcs = {maps.class_of_dscp(d) for d in cls.roce_dscp}
        # A RoCE class PFC does not pause is QOS001's finding, which lists the CNP sharing it
        # as a consequence (moving RoCE to its lossless class ends the sharing).
        lossy_roce = {tc for tc in roce_tcs
                      if maps.pfc_priority_of(tc) not in iface.qos.pfc.active_priorities}
        default_tc = maps.class_of_dscp(0)
        issues: list[tuple[int, int, str | None, Queue | None]] = []
        for dscp in cls.cnp_dscp:
            tc = maps.class_of_dscp(dscp)
            if tc in lossy_roce and tc != default_tc:
                continue
            shares = ("best-effort traffic (the default class)" if tc == default_tc
                      and tc in lossy_roce else
                      "RoCE data" if tc in roce_tcs else
                      "best-effort traffic (the default class)" if tc == default_tc else None)
            if shares is not None:
                issues.append((dscp, tc, shares, None))
                continue
            queue = iface.qos.queues.get(maps.tc_to_queue.get(tc, tc))
            if queue is not None and queue.scheduling not in (None, "strict"):
                issues.append((dscp, tc, None, queue))
        return issues


@register
class NxosPolicyBound(Rule):
    """A QoS policy that RoCE needs is not in effect on a fabric port.

    ## What it checks
    On platforms whose QoS takes effect only through bound policies (NX-OS: a `qos` input
    policy for classification, the `network-qos` policy for no-drop classes and MTU, a
    `queuing` output policy for the egress queues), every fabric port must have a policy of
    each kind in effect: bound on the port, or device-wide under `system qos` (`network-qos`
    can only be bound there). A policy that is defined but bound nowhere is named in the
    finding, and the fix binds it. What the missing policy leaves at the platform defaults on
    those ports (ECN001 and QOS004 for queuing, PFC001, QOS001, QOS007 and MTU004 for
    network-qos, QOS001 and QOS004 for classification) is folded into this finding, not
    reported apart.

    ## Why it matters
    NX-OS class-maps and policy-maps do nothing until a `service-policy` binds them. An unbound
    network-qos policy leaves every class droppable, so PFC pauses nothing; an unbound queuing
    policy leaves ECN and the strict CNP queue unconfigured; a port without a classification
    policy puts RoCE in qos-group 0. The configuration reads as lossless while the switch runs
    its defaults.

    ## How to fix
    Bind the policy: `service-policy type network-qos NAME` and `service-policy type queuing
    output NAME` under `system qos`, `service-policy type qos input NAME` under `system qos`
    or on each RoCE port.
    """

    id = "QOS006"
    name = "nxos-policy-bound"
    title = "QoS policy needed for RoCE not bound"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("nxos",)
    settings = ("ports.routed", "ports.switched", "ports.include", "ports.exclude")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        slots = device.qos.policy_slots
        ports = ctx.fabric_ports(device, ("layer3",))
        if not slots or not ports:
            return
        # the kinds of policy in effect on each port, read once (not once a slot); a chassis
        # whose every port has settings of its own is read a slot at a time (no set a port)
        bound = None if ctx.alone(device) else [
            {(b.kind, b.direction) for b in p.qos.policies} for p in ports]
        for slot in slots:
            key = (slot.kind, slot.direction)
            missing = ([p for p in ports if _binding(p, slot) is None] if bound is None else
                       [p for p, kinds in zip(ports, bound, strict=True) if key not in kinds])
            if not missing:
                continue
            defined = [p for p in device.policies.values() if p.kind == slot.kind]
            unbound = next((p for p in defined if not p.bound), None)
            used = next((b for p in ports if (b := _binding(p, slot)) is not None), None)
            what = f"{slot.kind} policy ({slot.purpose})"
            if used is None or slot.device_wide:
                # Nothing in effect anywhere: one finding for the device, bound device-wide.
                name = unbound.name if unbound is not None else None
                plural = "s" if len(missing) > 1 else ""
                message = (f"no {what} is in effect on {len(missing)} RoCE port{plural} "
                           f"({_names(missing)})")
                if unbound is not None:
                    message += f"; {unbound.name!r} is defined but not bound"
                yield self.finding(
                    device, f"{slot.kind} policy",
                    unbound.src if unbound is not None else missing[0].src, message,
                    fix=self._fix(slot, name, None, ctx, device),
                    places=[(p.name, p.src) for p in missing],
                    explains=_unbound_explains(slot, missing, device),
                )
                continue
            for port in missing:
                yield self.finding(
                    device, port.name, port.src,
                    f"no {what} is in effect on {port.name}; other RoCE ports use "
                    f"{used.name!r}",
                    fix=self._fix(slot, used.name, port.name, ctx, device),
                    explains=_unbound_explains(slot, [port], device),
                )

    @staticmethod
    def _fix(slot: PolicySlot, name: str | None, interface: str | None, ctx: Context,
             device: Device) -> FixIntent:
        lossless = ctx.policy.pfc.lossless_priorities
        cls = ctx.policy.classification
        return FixIntent("policy-bind", {
            "kind": slot.kind, "direction": slot.direction, "name": name,
            "interface": interface,
            # What a new policy of the kind holds when none is defined to bind.
            "dscp": cls.roce_dscp,
            "tc": device.qos.lossless_class(lossless[0]) if lossless else None,
            "priorities": lossless, "mtu": ctx.policy.mtu.lossless_class_min,
        })


_SLOT_CONSEQUENCES = {"qos": ("qos",), "network-qos": ("pfc", "qos", "MTU004"),
                      "queuing": ("ecn", "qos")}
"""What a missing NX-OS policy of each kind leaves at the platform's defaults, as the rules
(or categories) that then report it: no classification puts RoCE in qos-group 0 (QOS001,
QOS004); no network-qos makes no class no-drop (PFC001, QOS001, QOS007, MTU004); no queuing
policy leaves the queues without ECN or strict priority (ECN001, QOS004)."""


def _unbound_explains(slot: PolicySlot, ports: list[Interface], device: Device
                      ) -> list[tuple[str, str]]:
    """The findings a policy kind that is in effect nowhere on ``ports`` explains there."""
    names = [n for p in ports for n in (p.name, *(m.name for m in device.members(p.name)))]
    return [(what, name) for name in dict.fromkeys(names)
            for what in _SLOT_CONSEQUENCES.get(slot.kind, ())]


def _binding(iface: Interface, slot: PolicySlot) -> PolicyBinding | None:
    return next((b for b in iface.qos.policies
                 if b.kind == slot.kind and b.direction == slot.direction), None)


@register
class NxosPauseClassQosGroup(Rule):
    """The no-drop class is not the class RoCE is classified into.

    ## What it checks
    On platforms where a traffic class is made no-drop by itself and paused with a PFC
    priority of its own (NX-OS: the network-qos class with `pause pfc-cos N` or `pause
    no-drop` for qos-group G), the traffic class the RoCE DSCPs are set to (`set qos-group`)
    must be a no-drop class, and the PFC priority it is paused with (`pfc-cos`) must be one of
    the profile's `pfc.lossless_priorities`. Reported when PFC pauses the lossless priority but
    for another class, or when the RoCE class is paused with a priority the profile does not
    call lossless. A device where the lossless priority is not paused at all is PFC001's.

    ## Why it matters
    On NX-OS the qos-group decides the buffer and queue, and the network-qos class of that
    qos-group decides whether the buffer is no-drop; `pfc-cos` only names the priority in the
    pause frames. With `pause pfc-cos 3` under the class of qos-group 4 while RoCE is set to
    qos-group 3, the port honours and sends pause frames for priority 3, the configuration
    looks lossless, and RoCE is still dropped in qos-group 3. The priority must also match the
    NICs' and the neighbours' PFC priority, or the pauses address a class nobody uses.

    ## How to fix
    Put `pause pfc-cos` with the lossless priority under the network-qos class of the RoCE
    qos-group (and remove it from the other class), or set the RoCE DSCPs to the qos-group of
    the no-drop class.
    """

    id = "QOS007"
    name = "nxos-pause-class-qos-group"
    title = "No-drop class is not the RoCE class"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("nxos",)
    settings = ("classification.roce_dscp", "pfc.lossless_priorities",
                "mtu.lossless_class_min")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        lossless = ctx.policy.pfc.lossless_priorities
        seen: set[tuple[int, int]] = set()

        def judged(port: Interface) -> bool:
            return (bool(port.qos.pfc.active_priorities) and bool(lossless)
                    and device.maps_for(port).no_drop_classes is not None)

        # value keys of ports that gave no finding: a port with the same values gives none
        # either (NX-OS ports each hold a copy of one map)
        quiet: set[tuple[object, ...]] = set()
        alone = ctx.alone(device)  # (then nothing is kept a port)
        # Ports alike (``alike_groups``) find the same classes: the first of each group is
        # the first port in port order that can find them, so it alone is read.
        for ports in ctx.alike_groups(device):
            iface = ports[0]
            if not judged(iface):
                continue
            active = iface.qos.pfc.active_priorities
            maps = device.maps_for(iface)
            no_drop = maps.no_drop_classes
            if no_drop is None or not _dscp_classifies(iface, maps):
                continue
            values = (maps_values(maps) if alone else ctx.maps_key(maps), frozenset(active))
            if values in quiet:
                continue
            found = len(seen)
            by_class: dict[int, list[int]] = {}
            for dscp in ctx.policy.classification.roce_dscp:
                by_class.setdefault(maps.class_of_dscp(dscp), []).append(dscp)
            for tc, dscps in sorted(by_class.items()):
                prio = maps.pfc_priority_of(tc)
                if (tc, prio) in seen:
                    continue
                if tc in no_drop:
                    if prio in lossless:
                        continue
                    # The RoCE class is no-drop, but pauses are sent for the wrong priority.
                    want = lossless[0]
                    remove = [(tc, prio)]
                    where = maps.field_src.get(f"no_drop_classes[{tc}]")
                    message = (f"RoCE traffic class {tc} (DSCP {fmt_ranges(dscps)}) is no-drop "
                               f"but paused with priority {prio}, not the lossless priority "
                               f"{fmt_priorities(lossless)}")
                    # the ports that pause it so: their lossless priority not paused
                    # (PFC001) and the other one paused (PFC002) are this one mistake
                    explains = [(rule, port.name) for port in ctx.fabric_ports(device)
                                if _pauses_class_with(device, port, tc, prio)
                                for rule in ("PFC001", "PFC002", "PFC008")]
                    # and so are the fabric comparisons of this device's paused priorities
                    # and RoCE DSCPs with its neighbours'
                    explains += [("PFC007", "PFC priorities"), ("QOS010", "DSCP map")]
                elif prio in active:
                    # PFC pauses the priority, but for another class: RoCE's class drops.
                    owners = [c for c in sorted(no_drop) if c != tc
                              and maps.pfc_priority_of(c) == prio]
                    want = prio if prio in lossless else lossless[0]
                    remove = [(c, prio) for c in owners]
                    where = next((r for c in owners
                                  if (r := maps.field_src.get(f"no_drop_classes[{c}]"))),
                                 iface.qos.pfc.field_src.get(f"priority[{prio}]"))
                    others = (f"traffic class {', '.join(str(c) for c in owners)}" if owners
                              else "another class")
                    message = (f"RoCE traffic class {tc} (DSCP {fmt_ranges(dscps)}) is not "
                               f"a no-drop class: priority {prio} is paused for {others}")
                    explains = []
                else:
                    continue  # the chain does not reach a paused priority: QOS001, PFC001
                seen.add((tc, prio))
                yield self.finding(
                    device, iface.name, where or iface.src, message,
                    related=[maps.field_src.get(f"dscp_to_tc[{dscps[0]}]")],
                    explains=explains,
                    fix=FixIntent("no-drop-class", {
                        "tc": tc, "priority": want, "remove": remove,
                        "class_names": dict(device.qos.class_names),
                        "mtu": (ctx.policy.mtu.lossless_class_min
                                if device.qos.class_mtu.get(tc, 0)
                                < ctx.policy.mtu.lossless_class_min else None),
                        "interface": iface.name, "policies": policy_bindings(iface),
                    }),
                )
            if len(seen) == found:
                quiet.add(values)


def _pauses_class_with(device: Device, port: Interface, tc: int, prio: int) -> bool:
    """Does ``port`` run PFC with class ``tc`` no-drop and paused with priority ``prio``?"""
    if not port.qos.pfc.active_priorities:
        return False
    maps = device.maps_for(port)
    return (maps.no_drop_classes is not None and tc in maps.no_drop_classes
            and maps.pfc_priority_of(tc) == prio)


@register
class DanglingReference(Rule):
    """A configuration object names another that does not exist.

    ## What it checks
    Every reference by name between configuration objects must resolve: an EOS
    `service-profile` to a `qos profile`, an NX-OS `service-policy` to a `policy-map` and a
    policy's `class` to a `class-map`, a SONiC `QUEUE` to its `WRED_PROFILE` and `SCHEDULER`,
    `PORT_QOS_MAP` to its maps, `BUFFER_PG` and `BUFFER_QUEUE` to their `BUFFER_PROFILE`.

    One finding per missing object, naming every place that refers to it. On SONiC, where a
    whole table the references point into is absent (no reference to it resolves), the
    config_db is incomplete (a rendered fragment, or tables lost on export): that is one cause,
    and one finding names every missing object and reference.

    A missing object is the cause of what the port or queue that refers to it then lacks: the
    PFC, ECN, classification, watchdog and buffer findings on those ports and queues are
    folded into this finding (listed in its message and `consequences`), not reported apart.

    ## Why it matters
    A reference to nothing is silently ignored by some platforms and rejected by others: the
    port runs with defaults (no PFC, no ECN, lossy buffers) while the configuration reads as if
    it were lossless. It is almost always a typo or a rename that missed one place.

    ## How to fix
    Define the missing object, or correct the name where it is used.
    """

    id = "QOS009"
    name = "dangling-reference"
    title = "Reference to a configuration object that does not exist"
    severity = Severity.ERROR
    category = "qos"
    roce_only = False
    vendors = ("eos", "nxos", "sonic")

    # Reads the unresolved references and which kinds resolve, not every resolved one: no
    # ``reads_references`` (a lint may parse one resolved reference per kind).

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        # One finding per missing object, at its first reference: a template that names a
        # missing map on every port is one thing to define, not a hundred findings.
        missing: dict[tuple[str, str], list[Reference]] = {}
        for ref in device.references:
            # A table naming a port that is not there (an ACL bound to a removed port-channel)
            # configures nothing that carries RoCE; only references to settings count here.
            if ref.resolved or ref.kind in _PORT_KINDS:
                continue
            missing.setdefault((ref.kind, ref.name), []).append(ref)
        absent = _absent_tables(device, missing) if device.vendor == "sonic" else set()
        if len(absent) > 1:
            yield self._incomplete(device, {k: v for k, v in missing.items()
                                            if k[0] in absent})
            missing = {k: v for k, v in missing.items() if k[0] not in absent}
        for (kind, name), refs in missing.items():
            first, more = refs[0], len(refs) - 1
            also = f" (and {more} more reference{'s' if more > 1 else ''})" if more else ""
            yield self.finding(
                device, first.owner, first.src,
                f"{first.owner} refers to {kind} {name!r}, which is not defined{also}",
                places=[(r.owner, r.src) for r in refs],
                explains=_explains(device, refs),
            )

    def _incomplete(self, device: Device, missing: dict[tuple[str, str], list[Reference]]
                    ) -> Finding:
        """One finding for references into tables the config_db does not have at all."""
        refs = [r for group in missing.values() for r in group]
        tables = list(dict.fromkeys(kind for kind, _ in missing))
        names = ", ".join(f"{kind} {name!r}" for kind, name in missing)
        return self.finding(
            device, refs[0].owner, refs[0].src,
            f"{len(refs)} references point into {len(tables)} tables this configuration does "
            f"not contain ({', '.join(tables)}): {names} are not defined; the config_db is "
            "incomplete (a rendered fragment, or tables lost on export)",
            places=[(r.owner, r.src) for r in refs],
            explains=_explains(device, refs),
        )


def _absent_tables(device: Device, missing: dict[tuple[str, str], list[Reference]]
                   ) -> set[str]:
    """Kinds of the missing objects that no reference of the device resolves into: tables the
    input does not contain at all."""
    present = {ref.kind for ref in device.references if ref.resolved}
    return {kind for kind, _ in missing} - present


_CONSEQUENCES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("dscp_to_tc", "dot1p_to_tc"), ("qos", "PFC002")),
    (("tc_to_queue", "pfc_priority_to_queue"), ("ecn", "qos")),
    (("priority_group", "buffer"), ("buffer",)),
    (("scheduler",), ("qos",)),
    (("wred",), ("ecn",)),
    (("network-qos",), ("pfc", "qos", "MTU004")),
    (("queuing",), ("ecn", "qos")),
    (("type qos",), ("qos",)),
)
"""What the port or queue that refers to a missing object of a kind lacks, as the rules (or
categories) that report it there: a missing DSCP map leaves RoCE unclassified (QOS001,
QOS004, and PFC002's "priority carries no traffic"), a missing WRED profile leaves the queue
without ECN. A kind not listed (an EOS qos profile, which holds all of a port's QoS) explains
every lossless-design finding on the port."""
_EVERYTHING = ("pfc", "ecn", "qos", "watchdog", "buffer")


def _explains(device: Device, refs: list[Reference]) -> list[tuple[str, str]]:
    """What a missing object explains: the findings its kind accounts for on the ports and
    queues that refer to it (``port_of_owner``)."""
    out: dict[tuple[str, str], None] = {}
    for ref in refs:
        kind = ref.kind.lower()
        what = next((rules for keys, rules in _CONSEQUENCES if any(k in kind for k in keys)),
                    _EVERYTHING)
        for obj in port_of_owner(device, ref.owner):
            out.update(((w, obj), None) for w in what)
    return list(out)
