"""PFC watchdog rules: every port that can be paused can also break out of a PFC storm."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import Context, Rule, fmt_priorities, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Device


@register
class PfcWatchdogEnabled(Rule):
    """A port runs PFC without a PFC watchdog.

    ## What it checks
    Every fabric port with PFC in effect must have the PFC watchdog enabled for its lossless
    priorities: on EOS `priority-flow-control pause watchdog` with a non-zero timeout (on the
    port, in its QoS profile, or device-wide defaults), on NX-OS `priority-flow-control
    watch-dog-interval on`, on SONiC a `PFC_WD` entry for the port and `pfcwd_sw_enable`
    covering every `pfc_enable` priority. Turn the rule off with `watchdog.required: false`.

    ## Why it matters
    A NIC or switch that stops draining its receive queue keeps sending PFC pause frames; the
    pause spreads hop by hop until whole branches of the fabric stand still (a PFC storm), and
    with cyclic buffer dependencies it becomes a deadlock that outlives its cause. The watchdog
    notices a queue that has been paused too long and drops or forwards its traffic instead,
    confining the damage to the one faulty port.

    ## How to fix
    Enable the PFC watchdog on the port (or in its QoS profile) with a timeout of a few hundred
    milliseconds at most, and drop as its action.
    """

    id = "WD001"
    name = "pfc-watchdog-enabled"
    title = "PFC without a PFC watchdog"
    severity = Severity.WARNING
    category = "watchdog"
    vendors = ("eos",)
    settings = ("watchdog.required",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not ctx.policy.watchdog.required:
            return
        for iface in ctx.fabric_ports(device):
            pfc = iface.qos.pfc
            active = pfc.active_priorities
            if not active:
                continue
            wd = pfc.watchdog
            uncovered = set() if wd.priorities is None else active - wd.priorities
            if wd.enabled and not uncovered:
                continue
            message = (
                f"no PFC watchdog on {iface.name}, which pauses priority {fmt_priorities(active)}"
                if not wd.enabled else
                f"PFC watchdog on {iface.name} does not watch priority "
                f"{fmt_priorities(uncovered)}"
            )
            yield self.finding(
                device, iface.name, wd.where("enabled", "priorities") or iface.src, message,
                fix=FixIntent("watchdog-enable", {
                    "interface": iface.name, "priorities": sorted(active),
                    "profile": device.profile_of(iface, "pfc"),
                    "timeout_ms": 200, "has_timeout": wd.timeout_ms is not None,
                }),
            )
