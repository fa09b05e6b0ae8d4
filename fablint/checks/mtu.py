"""MTU rules."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import (
    Context,
    DeviceSummary,
    FabricRule,
    Rule,
    fmt_where,
    group_ports,
    register,
)
from fablint.checks.dcqcn import Cabling, HostSide, SwitchSide, nic_params, sides
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Device


@register
class FabricMtuMinimum(Rule):
    """A fabric port's IP MTU is below the profile minimum.

    ## What it checks
    Every routed fabric port (physical ports that are not port-channel members, and
    port-channels) must have an IP MTU of at least the profile's `mtu.fabric_min` (9000 bytes
    by default). MTUs are compared as IP MTU, so EOS 9214, NX-OS 9216 and SONiC 9100 are all
    jumbo. A port that has no `mtu` line is judged by its vendor default (1500 on EOS).

    ## Why it matters
    RoCE NICs pick the RDMA path MTU (up to 4096 bytes of payload) from the interface MTU; GPU
    hosts run 9000. A 1500-byte link in the path either drops the large frames outright or
    forces every queue pair down to a 1024-byte RDMA MTU, multiplying packet rates and header
    overhead. One forgotten uplink is enough.

    ## How to fix
    Set a jumbo MTU on the port (EOS 9214, NX-OS 9216, SONiC 9100), the same on both ends of
    the link.
    """

    id = "MTU001"
    name = "fabric-mtu-minimum"
    title = "Fabric port MTU below the profile minimum"
    severity = Severity.ERROR
    category = "mtu"
    roce_only = True
    vendors = ("eos", "nxos", "sonic")
    settings = ("mtu.fabric_min",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        minimum = ctx.policy.mtu.fabric_min
        low = [(iface, iface.mtu) for iface in ctx.fabric_ports(device, ("layer3",))
               if iface.routed and iface.mtu is not None and iface.mtu < minimum]
        # Ports without an mtu line of their own run one device-wide value (the platform
        # default, NX-OS `system jumbomtu`): one cause, one finding naming them all. A port's
        # own mtu line is a cause of its own.
        for _, ports, mtu in group_ports(low, lambda port, mtu: (
                mtu, port.name if port.configured("mtu") else None)):
            iface = ports[0]
            default = "" if iface.configured("mtu") else " (the platform default)"
            params: dict[str, object] = {"interface": iface.name, "min_mtu": minimum}
            if len(ports) > 1:
                params["interfaces"] = [p.name for p in ports]
            yield self.finding(
                device, iface.name, iface.where("mtu"),
                f"IP MTU {mtu}{default} on {fmt_where(p.name for p in ports)} is below the "
                f"fabric minimum {minimum}",
                fix=FixIntent("mtu-set", params),
                places=[(p.name, p.where("mtu")) for p in ports],
                # a cable whose other end is jumbo differs in MTU because of this one
                # (MTU005 reports the smaller end, this port): one cause, one finding
                explains=[("MTU005", p.name) for p in ports],
            )


@register
class LosslessClassMtu(Rule):
    """The lossless traffic class has a class MTU below the profile minimum.

    ## What it checks
    On platforms that set an MTU per traffic class (NX-OS: `mtu` under the network-qos class),
    every no-drop class that is paused with one of the profile's `pfc.lossless_priorities`, or
    that the RoCE DSCPs are classified into, must have a class MTU of at least the profile's
    `mtu.lossless_class_min` (9216 by default). A class without an `mtu` line runs the platform
    default of 1500.

    ## Why it matters
    The class MTU applies on top of the port MTU: a RoCE frame larger than it is dropped (or
    truncated) in the no-drop class even though every port runs 9216, so RDMA with a 4096-byte
    MTU fails while small messages work. On Nexus 9000 setting the class MTU to 9216 also
    carves the no-drop buffers for jumbo frames; Azure Local's and Cisco's RoCE designs set it
    on the lossless class.

    ## How to fix
    Set `mtu 9216` under the network-qos class of the lossless qos-group.
    """

    id = "MTU004"
    name = "lossless-class-mtu"
    title = "Lossless class MTU below the profile minimum"
    severity = Severity.WARNING
    category = "mtu"
    vendors = ("nxos",)
    settings = ("mtu.lossless_class_min", "pfc.lossless_priorities", "classification.roce_dscp")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        qos = device.qos
        if not qos.class_mtu:
            return
        # ports alike (``alike_groups``) have the same classes: the first of each is read
        ports = [p for p, *_ in ctx.alike_groups(device) if p.qos.pfc.active_priorities]
        if not ports:
            return
        minimum = ctx.policy.mtu.lossless_class_min
        lossless = set(ctx.policy.pfc.lossless_priorities)
        classes: set[int] = set()
        # what decides a port's classes, as values: NX-OS ports each hold a copy of one map
        seen: set[tuple[object, ...]] = set()
        for port in ports:
            maps = device.maps_for(port)
            active = port.qos.pfc.active_priorities
            no_drop = maps.no_drop_classes
            key = (frozenset(active), None if no_drop is None else frozenset(no_drop),
                   tuple(maps.tc_to_pfc_priority.items()), tuple(maps.dscp_to_tc.items()),
                   maps.dscp_to_tc_default)
            if key in seen:
                continue  # the same classes again
            seen.add(key)
            classes.update(tc for tc in maps.no_drop_classes or ()
                           if maps.pfc_priority_of(tc) in lossless & active)
            classes.update(tc for d in ctx.policy.classification.roce_dscp
                           if maps.class_is_no_drop(tc := maps.class_of_dscp(d), active))
        for tc in sorted(classes):
            mtu = qos.class_mtu.get(tc)
            if mtu is None or mtu >= minimum:
                continue
            default = "" if f"class_mtu[{tc}]" in qos.field_src else " (the platform default)"
            name = qos.class_names.get(tc)
            yield self.finding(
                device, name or f"traffic class {tc}",
                qos.field_src.get(f"class_mtu[{tc}]")
                or qos.field_src.get(f"no_drop_classes[{tc}]") or device.src,
                f"class MTU {mtu}{default} of lossless traffic class {tc}"
                f"{f' ({name})' if name else ''} is below {minimum}: larger RoCE frames are "
                "dropped in the no-drop class whatever the port MTU",
                fix=FixIntent("class-mtu", {
                    "tc": tc, "mtu": minimum, "class_names": dict(qos.class_names),
                    "interface": ports[0].name,
                    "policies": [(b.kind, b.direction, b.name) for b in ports[0].qos.policies],
                }),
            )


# -- host NICs (fablint/checks/dcqcn.py has the other host rules) ---------------------------

ROCE_HEADER_BYTES = 96
"""What the kernel takes off the netdev MTU before picking the RoCE (IB) MTU: GRH 40 + UDP 8 +
BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 (``iboe_get_mtu``, include/rdma/ib_addr.h)."""
IB_MTUS = (4096, 2048, 1024, 512, 256)


def roce_mtu_of(netdev_mtu: int) -> int | None:
    """The RDMA path MTU a RoCE port with this netdev MTU uses (None: below 256)."""
    room = netdev_mtu - ROCE_HEADER_BYTES
    return next((m for m in IB_MTUS if m <= room), None)


@register
class HostPortMtu(FabricRule):
    """The switch port a host NIC is cabled to has a smaller MTU than the NIC.

    ## What it checks
    When a host's inputs say which switch port a NIC is cabled to (`cabled_to` in a
    host-facts file, a topology link, or a switch port whose configured neighbour is the NIC),
    the port's IP MTU must be at least the NIC's netdev MTU. Both are IP MTUs, so EOS 9214,
    NX-OS 9216 and SONiC 9100 all carry a 9000-byte host MTU. A routed fabric port already
    below `mtu.fabric_min` is MTU001's finding and is not repeated.

    ## Why it matters
    The NIC sizes RDMA messages from its own MTU. Frames larger than the switch port's MTU are
    dropped at the port (routed ports do not fragment RoCE), so large transfers fail or stall
    while small ones work, which makes the fault look intermittent.

    ## How to fix
    Raise the switch port's MTU to the jumbo MTU of the platform (at least the NIC's), or lower
    the NIC's MTU to what the fabric carries end to end.
    """

    id = "MTU002"
    needs_topology = True
    """NICs are paired with switch ports through the cabling (LLDP, DEVICE_NEIGHBOR)."""
    requires = frozenset({"hosts"})
    name = "host-port-mtu"
    title = "Switch port MTU below the MTU of the host NIC cabled to it"
    severity = Severity.ERROR
    category = "mtu"
    vendors = ("host",)
    settings = ("mtu.fabric_min",)

    def summarize(self, device: Device, ctx: Context) -> HostSide | SwitchSide | None:
        return sides(device, ctx)

    def compare(self, summaries: list[DeviceSummary], ctx: Context) -> Iterable[Finding]:
        cabling = Cabling(summaries, ctx.fabric)
        minimum = ctx.policy.mtu.fabric_min
        for host, nic in cabling.hosts:
            if nic.mtu is None:
                continue
            cabled = cabling.port_of(host, nic)
            if cabled is None:
                continue
            switch, port = cabled
            if port.mtu is None or port.mtu >= nic.mtu:
                continue
            if port.fabric and port.routed and port.mtu < minimum and nic.mtu <= minimum:
                continue  # MTU001's finding, whose fix raises the port to the jumbo MTU
            default = "" if port.mtu_configured else " (the platform default)"
            yield self.finding(
                switch, port.name, port.mtu_ref,
                f"IP MTU {port.mtu}{default} on {port.name} is below the MTU {nic.mtu} of "
                f"{host.name} {nic.name} cabled to it",
                related=[nic.where("mtu")],
                fix=FixIntent("mtu-set", {"interface": port.name, "min_mtu": nic.mtu}),
            )


@register
class RoceMtu4096(Rule):
    """A host NIC's MTU is too small for RoCE to use 4096-byte RDMA messages.

    ## What it checks
    Every host NIC whose netdev MTU is known must leave room for the profile's
    `hosts.roce_mtu` (4096) after the RoCE headers. The kernel picks the RoCE path MTU as the
    largest IB MTU (256, 512, 1024, 2048, 4096) that fits in the netdev MTU minus 96 bytes
    (GRH, UDP, BTH and the largest extension headers), so 4096 needs a netdev MTU of at least
    4192: the Linux default 1500 gives 1024.

    ## Why it matters
    RDMA throughput per queue pair depends on the message size on the wire: at 1024 bytes a
    NIC sends four times the packets, and pays four times the per-packet header and processing
    overhead, of 4096. Collective operations in training jobs then run well below line rate
    although every switch is configured for jumbo frames.

    ## How to fix
    Set the NIC's MTU to the host jumbo MTU (`ip link set dev IF mtu 9000`, and persistently
    in the network configuration), matching the switch port.
    """

    id = "MTU003"
    name = "roce-mtu-4096"
    title = "Host NIC MTU too small for a 4096-byte RoCE MTU"
    severity = Severity.WARNING
    category = "mtu"
    vendors = ("host",)
    settings = ("hosts.roce_mtu", "hosts.fix_mtu")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if device.host is None:
            return
        wanted = ctx.policy.hosts.roce_mtu
        for nic in device.host.nics.values():
            if nic.mtu is None:
                continue
            got = roce_mtu_of(nic.mtu)
            if got is not None and got >= wanted:
                continue
            yield self.finding(
                device, nic.name, nic.where("mtu"),
                f"MTU {nic.mtu} on {nic.name} limits RoCE to an RDMA MTU of {got or 'none'}; "
                f"{wanted} needs a netdev MTU of at least {wanted + ROCE_HEADER_BYTES}",
                fix=FixIntent("nic-mtu", nic_params(
                    nic, mtu=max(ctx.policy.hosts.fix_mtu, wanted + ROCE_HEADER_BYTES))),
            )
