"""Applicability: which switches are set up for RoCE at all.

A switch whose configuration asks for lossless traffic nowhere (an EVPN leaf, an edge router,
a lab box with no QoS) is not a broken RoCE switch: it is not a RoCE switch. Checking its ports
one by one would report every missing piece of a design it never had; instead the rules about
the lossless design (``Rule.lossless_design``) skip it and this rule says so once, as an error
only where the profile says the switch must carry RoCE (``roce_devices``).
"""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import (
    SWITCH_VENDORS,
    Context,
    Rule,
    fmt_where,
    lossless_intent,
    register,
)
from fablint.findings import Finding, Severity
from fablint.model import Device


@register
class RoceNotConfigured(Rule):
    """A switch has no lossless configuration at all.

    ## What it checks
    A switch (EOS, NX-OS, SONiC) whose configuration has no no-drop priority or class, no PFC
    switched on, no PFC watchdog, no ECN marking on any queue, no lossless buffer profile and
    no priority group whose lossless headroom the switch computes, on any port or QoS profile,
    is not set up for RoCE. Defaults are not intent: NX-OS's `priority-flow-control mode
    auto`, the default of every port, pauses nothing without a no-drop class; WRED dropping
    alone is a lossy design. Such a
    switch is reported once, naming its fabric ports (by the profile's port scope), and the
    rules about the lossless design (PFC, ECN, watchdog, buffer and QoS rules) and MTU001 do
    not check it: one finding instead of a PFC, ECN, QoS and MTU finding per port. Its MTU is
    said once in this finding. ACL rules, dangling references (QOS009), ECN/WRED curves that
    cannot work (ECN003) and the fabric-wide comparisons still cover it. In a fabric of RoCE
    switches, name the switches that must carry RoCE in `roce_devices` so that one left
    without any lossless configuration is an error, not a note.

    The finding is for information, unless the profile's `roce_devices` names the switch (by
    hostname or role pattern): then it is an error, and every per-port rule checks the switch
    as well, so that what is missing is listed.

    ## Why it matters
    RoCE needs PFC or ECN (usually both) on every hop it crosses. A switch that should carry
    RoCE but has none of it drops RDMA on the first congestion; a switch that never carries
    RoCE needs none, and per-port errors there only hide the findings that matter.

    ## How to fix
    If the switch carries RoCE, apply the fabric's lossless QoS design (PFC on the lossless
    priority, a no-drop class, ECN on its queue, PFC watchdog, jumbo MTU), and name it in the
    profile's `roce_devices` so that whatever is still missing is reported. Otherwise nothing.
    """

    id = "QOS011"
    name = "roce-not-configured"
    title = "Switch with no lossless configuration at all"
    severity = Severity.INFO
    category = "qos"
    roce_only = False
    foldable = False
    vendors = ("eos", "nxos", "sonic")
    settings = ("roce_devices.names", "roce_devices.roles", "mtu.fabric_min", "ports.routed",
                "ports.switched", "ports.include", "ports.exclude")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if device.vendor not in SWITCH_VENDORS or lossless_intent(device):
            return
        required = ctx.roce_required(device)
        ports = ctx.fabric_ports(device, ("layer3",))
        if not ports:
            return
        minimum = ctx.policy.mtu.fabric_min
        low = sorted({p.mtu for p in ports if p.routed and p.mtu is not None
                      and p.mtu < minimum})
        count = sum(1 for p in ports if p.routed and p.mtu is not None and p.mtu < minimum)
        verb = "carry" if len(ports) > 1 else "carries"
        message = (f"{device.name} is not configured for RoCE: {fmt_where(p.name for p in ports)} "
                   f"{verb} no PFC, no ECN, no no-drop class and no lossless buffer")
        if count:
            message += (f"; {count} of them {'runs' if count == 1 else 'run'} IP MTU "
                        f"{', '.join(str(m) for m in low)}, below "
                        f"the fabric minimum {minimum}" if len(ports) > 1 else
                        f"; it runs IP MTU {low[0]}, below the fabric minimum {minimum}")
        message += ("; the profile says it must carry RoCE (roce_devices)" if required else
                    "; the PFC, ECN, QoS and MTU rules do not check it (name it in "
                    "roce_devices if it must carry RoCE)")
        yield self.finding(
            device, device.name, device.where("name") or ports[0].src, message,
            severity=Severity.ERROR if required else None,
            places=[(p.name, p.src) for p in ports],
        )

