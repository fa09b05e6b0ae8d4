"""PFC rules: lossless priorities protected, lossy ones never paused, no 802.3x beside PFC."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import Context, Rule, fmt_priorities, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Device, Interface


def _policies(iface: Interface) -> list[tuple[str, str | None, str]]:
    """(kind, direction, name) of the QoS policies in effect on the port, for fixes that must
    edit the policy supplying a setting rather than the port (NX-OS network-qos)."""
    return [(b.kind, b.direction, b.name) for b in iface.qos.policies]


@register
class PfcLosslessPriorities(Rule):
    """PFC is not in effect for the lossless priorities on a fabric port.

    ## What it checks
    Every fabric port (by default: every routed physical port that is not shut down) must have
    PFC switched on and every priority of the profile's `pfc.lossless_priorities` configured
    no-drop. A port whose own PFC configuration is overridden by a device-wide switch (EOS
    `priority-flow-control all off`) is reported too, naming the line that turns it off.

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
        for iface in ctx.fabric_ports(device):
            pfc = iface.qos.pfc
            missing = lossless - pfc.active_priorities
            if not missing:
                continue
            prios = fmt_priorities(missing)
            if pfc.disabled_by is not None:
                message = (
                    f"PFC is configured on {iface.name} but turned off device-wide; lossless "
                    f"priority {prios} is not protected"
                )
            elif pfc.mode == "off":
                message = f"PFC is off on {iface.name}; lossless priority {prios} is not protected"
            else:
                message = (
                    f"PFC is on but priority {prios} is not no-drop on {iface.name} "
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
            yield self.finding(
                device, iface.name, iface.src, message,
                related=[pfc.disabled_by, pfc.where("mode")], fix=fix,
            )


@register
class PfcOnLossyPriority(Rule):
    """PFC pauses a priority that the profile calls lossy.

    ## What it checks
    On every fabric port, no priority listed in the profile's `pfc.lossy_priorities` may be
    no-drop while PFC is on. By default those are every priority except the RoCE priority 3
    and priority 4 (which some designs, such as SONiC's stock `3,4`, also make lossless).

    ## Why it matters
    Pausing a lossy class spreads congestion backwards through the fabric: the default class
    (TCP, storage, control traffic) and the CNP class stop at every hop instead of dropping,
    head-of-line blocking builds up and a single slow receiver can trigger a PFC storm or
    deadlock. PFC should cover only the traffic that needs it.

    ## How to fix
    Make the priority lossy again (remove its no-drop setting) on the port or in its QoS
    profile, or, if it really carries lossless traffic, move it to `pfc.lossless_priorities`
    in your profile.
    """

    id = "PFC002"
    name = "pfc-on-lossy-priority"
    title = "PFC enabled on a priority the profile calls lossy"
    severity = Severity.ERROR
    category = "pfc"
    vendors = ("eos", "nxos", "sonic")
    settings = ("pfc.lossy_priorities",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        lossy = set(ctx.policy.pfc.lossy_priorities)
        for iface in ctx.fabric_ports(device):
            pfc = iface.qos.pfc
            bad = pfc.active_priorities & lossy
            if not bad:
                continue
            refs = [pfc.field_src.get(f"priority[{p}]") for p in sorted(bad)]
            yield self.finding(
                device, iface.name, next((r for r in refs if r), iface.src),
                f"PFC pauses lossy priority {fmt_priorities(bad)} on {iface.name}",
                related=refs,
                fix=FixIntent("pfc-disable-priority", {
                    "interface": iface.name,
                    "priorities": sorted(bad),
                    "no_drop": sorted(pfc.no_drop),
                    "profile": device.profile_of(iface, "pfc"),
                    "policies": _policies(iface),
                }),
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
        for iface in ctx.fabric_ports(device):
            pfc, pause = iface.qos.pfc, iface.qos.pause
            if pfc.mode == "off" or not pause.enabled:
                continue
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
