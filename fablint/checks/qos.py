"""Classification rules: RoCE and CNP traffic reach the classes the design gives them.

The chain is DSCP -> traffic class -> PFC priority / egress queue, read from the port's own maps
or the device's (``Device.maps_for``); platform default maps are resolved by the model.
"""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import Context, Rule, fmt_priorities, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import ClassMaps, Device, Interface


def _maps_ref(maps: ClassMaps, dscp: int, iface: Interface) -> object:
    return maps.field_src.get(f"dscp_to_tc[{dscp}]") or maps.src or iface.src


def _dscp_classifies(iface: Interface) -> bool:
    """Does the port classify by DSCP at all? Ports with no trust notion (None) do."""
    return iface.qos.trust in (None, "dscp")


@register
class RoceDscpLossless(Rule):
    """A RoCE DSCP does not reach a lossless traffic class on a fabric port.

    ## What it checks
    On every fabric port that runs PFC, each DSCP of the profile's `classification.roce_dscp`
    is followed through the classification chain in effect on that port: DSCP to traffic class
    (the port's own map, else the device's, else the platform default), then traffic class to
    PFC priority. The priority must be one the port pauses (PFC no-drop). Ports with PFC off are
    left to PFC001.

    ## Why it matters
    PFC protects priorities, not packets: a RoCE packet classified into a lossy class is
    dropped on congestion no matter how carefully PFC is configured for priority 3. The
    classic case is SONiC's stock AZURE map, which sends DSCP 26, the DSCP NVIDIA and Broadcom
    NICs mark RoCE with, to lossy traffic class 1. Every hop must classify the same way.

    ## How to fix
    Map the RoCE DSCPs to the lossless traffic class in the map the port uses, or change the
    profile's `classification.roce_dscp` if the hosts mark RoCE differently.
    """

    id = "QOS001"
    name = "roce-dscp-lossless"
    title = "RoCE DSCP does not reach a lossless traffic class"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("eos",)
    settings = ("classification.roce_dscp", "pfc.lossless_priorities")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        lossless = ctx.policy.pfc.lossless_priorities
        target_tc = lossless[0] if lossless else None
        # Ports that share a map and get it wrong the same way make one finding, on the map.
        groups: dict[tuple[int, frozenset[int], tuple[tuple[int, int | None], ...]],
                     list[Interface]] = {}
        for iface in ctx.fabric_ports(device):
            active = iface.qos.pfc.active_priorities
            if not active or not _dscp_classifies(iface):
                continue
            maps = device.maps_for(iface)
            wrong = tuple(
                (dscp, tc) for dscp in ctx.policy.classification.roce_dscp
                if (tc := maps.tc_for_dscp(dscp)) is None
                or maps.pfc_priority_of(tc) not in active
            )
            if wrong:
                groups.setdefault((id(maps), frozenset(active), wrong), []).append(iface)
        for (_, active, wrong), ports in groups.items():
            first = ports[0]
            maps = device.maps_for(first)
            landing = ", ".join(
                f"DSCP {d} -> {'no class (default)' if tc is None else f'traffic class {tc}'}"
                for d, tc in wrong
            )
            where = first.name if len(ports) == 1 else (
                f"{len(ports)} ports ({_names(ports)})")
            yield self.finding(
                device, first.name if len(ports) == 1 else (maps.name or "qos map"),
                _maps_ref(maps, wrong[0][0], first),
                f"RoCE traffic on {where} is not lossless: {landing}; PFC pauses "
                f"priority {fmt_priorities(active)}",
                fix=FixIntent("dscp-map", {
                    "interface": first.name, "dscp": [d for d, _ in wrong], "tc": target_tc,
                    "map": maps.name, "port_map": first.qos.maps is not None,
                    "interfaces": [p.name for p in ports],
                }) if target_tc is not None else None,
            )


_PORT_KINDS = frozenset({"PORT", "PORTCHANNEL", "interface", "port"})


def _names(ports: list[Interface], limit: int = 4) -> str:
    names = [p.name for p in ports[:limit]]
    return ", ".join(names) + (f", … {len(ports) - limit} more" if len(ports) > limit else "")


@register
class TrustDscpOnRouted(Rule):
    """A routed fabric port does not trust DSCP.

    ## What it checks
    Every routed fabric port must classify incoming traffic by DSCP (`qos trust dscp` on EOS).
    A port that trusts only CoS (802.1p), or nothing, is an error.

    ## Why it matters
    RoCEv2 on a routed fabric is untagged IP: there is no 802.1Q header and so no CoS to trust.
    A CoS-trusting port puts every untagged RoCE packet into the port's default class, which is
    lossy, and PFC never engages for it. NVIDIA's and Cisco's RoCE designs both classify on DSCP.

    ## How to fix
    Trust DSCP on the port, or in the QoS profile it applies.
    """

    id = "QOS003"
    name = "trust-dscp-on-routed"
    title = "Routed fabric port does not trust DSCP"
    severity = Severity.ERROR
    category = "qos"
    vendors = ("eos",)
    settings = ("ports.routed",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        for iface in ctx.fabric_ports(device, ("layer3",)):
            trust = iface.qos.trust
            if not iface.routed or trust in (None, "dscp"):
                continue
            # A port-channel's members carry the QoS; report on the member, not the bundle.
            ports = device.members(iface.name) if iface.kind == "port-channel" else [iface]
            for port in ports or [iface]:
                if port.qos.trust in (None, "dscp"):
                    continue
                what = "CoS only" if port.qos.trust == "cos" else "nothing (untrusted)"
                yield self.finding(
                    device, port.name, port.qos.where("trust") or port.src,
                    f"routed port {port.name} trusts {what}; untagged RoCE lands in the "
                    "default class",
                    fix=FixIntent("trust-dscp", {
                        "interface": port.name, "profile": device.profile_of(port, "trust"),
                    }),
                )


@register
class CnpClassDistinctStrict(Rule):
    """The CNP DSCP shares the RoCE class, or its queue is not strict priority.

    ## What it checks
    On every fabric port, the profile's `classification.cnp_dscp` must map to a traffic class
    different from the one the RoCE DSCPs map to, and the egress queue of that class must be
    scheduled strict priority when the configuration says how it is scheduled.

    ## Why it matters
    Congestion notification packets (CNPs) tell a RoCE sender to slow down. If they queue
    behind the very RoCE data whose congestion they report, the signal arrives late and DCQCN
    oscillates; if their queue is a weighted one, a busy fabric delays them further. NVIDIA,
    Cisco and Dell RoCE designs all put CNPs in their own strict-priority class (TC 6 or 7).

    ## How to fix
    Map the CNP DSCP to its own traffic class and schedule that class's queue strict priority.
    """

    id = "QOS004"
    name = "cnp-class-distinct-strict"
    title = "CNP not in its own strict-priority class"
    severity = Severity.WARNING
    category = "qos"
    vendors = ("eos",)
    settings = ("classification.cnp_dscp", "classification.roce_dscp",
                "classification.cnp_traffic_class")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        cls = ctx.policy.classification
        seen: set[tuple[object, ...]] = set()
        for iface in ctx.fabric_ports(device):
            if not iface.qos.pfc.active_priorities or not _dscp_classifies(iface):
                continue
            maps = device.maps_for(iface)
            roce_tcs = {maps.tc_for_dscp(d) for d in cls.roce_dscp} - {None}
            for dscp in cls.cnp_dscp:
                tc = maps.tc_for_dscp(dscp)
                if tc is not None and tc in roce_tcs:
                    key = ("shared", maps.name, id(maps), dscp)
                    if key in seen:
                        continue
                    seen.add(key)
                    yield self.finding(
                        device, iface.name, _maps_ref(maps, dscp, iface),
                        f"CNP DSCP {dscp} shares traffic class {tc} with RoCE data on "
                        f"{iface.name}",
                        fix=FixIntent("dscp-map", {
                            "interface": iface.name, "dscp": [dscp],
                            "tc": cls.cnp_traffic_class, "map": maps.name,
                            "port_map": iface.qos.maps is not None,
                        }),
                    )
                    continue
                if tc is None:
                    continue
                queue_id = maps.tc_to_queue.get(tc, tc)
                queue = iface.qos.queues.get(queue_id)
                if queue is None or queue.scheduling in (None, "strict"):
                    continue
                profile = device.profile_of(iface, "queues")
                key = ("sched", profile or iface.name, queue_id)
                if key in seen:
                    continue
                seen.add(key)
                yield self.finding(
                    device, iface.name, queue.where("scheduling"),
                    f"CNP queue {queue_id} (DSCP {dscp}, traffic class {tc}) on {iface.name} is "
                    f"scheduled {queue.scheduling}, not strict priority",
                    fix=FixIntent("queue-strict", {
                        "interface": iface.name, "queue": queue_id, "profile": profile,
                    }),
                )


@register
class DanglingReference(Rule):
    """A configuration object names another that does not exist.

    ## What it checks
    Every reference by name between configuration objects must resolve: an EOS
    `service-profile` to a `qos profile`, an NX-OS `service-policy` to a `policy-map` and a
    policy's `class` to a `class-map`, a SONiC `QUEUE` to its `WRED_PROFILE` and `SCHEDULER`,
    `PORT_QOS_MAP` to its maps, `BUFFER_PG` and `BUFFER_QUEUE` to their `BUFFER_PROFILE`.

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
    vendors = ("eos",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        for ref in device.references:
            # A table naming a port that is not there (an ACL bound to a removed port-channel)
            # configures nothing that carries RoCE; only references to settings count here.
            if ref.resolved or ref.kind in _PORT_KINDS:
                continue
            yield self.finding(
                device, ref.owner, ref.src,
                f"{ref.owner} refers to {ref.kind} {ref.name!r}, which is not defined",
            )
