"""MTU rules."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import Context, Rule, register
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
    vendors = ("eos", "nxos", "sonic")
    settings = ("mtu.fabric_min",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        minimum = ctx.policy.mtu.fabric_min
        for iface in ctx.fabric_ports(device, ("layer3",)):
            if not iface.routed or iface.mtu is None or iface.mtu >= minimum:
                continue
            default = "" if iface.configured("mtu") else " (the platform default)"
            yield self.finding(
                device, iface.name, iface.where("mtu"),
                f"IP MTU {iface.mtu}{default} on {iface.name} is below the fabric minimum "
                f"{minimum}",
                fix=FixIntent("mtu-set", {"interface": iface.name, "min_mtu": minimum}),
            )
