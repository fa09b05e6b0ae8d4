"""ACL rules: nothing on a fabric port may drop RoCEv2."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import Context, Rule, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Acl, AclEntry, Device


def _free_seq(acl: Acl, before: AclEntry | None) -> int | None:
    """A sequence number that places a new entry just before ``before`` (or at the end)."""
    seqs = [e.seq for e in acl.entries if e.seq is not None]
    if before is None:
        return (max(seqs) if seqs else 0) + 10
    if before.seq is None:
        return None
    lower = max((s for s in seqs if s < before.seq), default=0)
    gap = before.seq - lower
    return lower + max(1, gap // 2) if gap > 1 else None


@register
class AclDropsRoce(Rule):
    """An ACL applied to a fabric port drops RoCEv2 (UDP 4791).

    ## What it checks
    Every IPv4 and IPv6 access list applied to a fabric port, in either direction, is walked in
    entry order the way the switch does: the first entry that matches all UDP traffic to the
    RoCE port (`acl.roce_udp_port`, 4791) decides, ranges and `any` included, and traffic that
    reaches the end meets the implicit deny (SONiC ACL tables, ordered by rule `PRIORITY`, permit
    what no rule matches). A list that denies all of it is an error. A list
    that lets it through only after an earlier, narrower deny (a specific host or subnet) is a
    warning: some RoCE flows are dropped.

    ## Why it matters
    RoCEv2 rides on UDP destination port 4791. An ACL that drops it breaks RDMA between the
    affected hosts entirely, and because RDMA connection setup often goes over a different path
    (TCP for the CM or NCCL bootstrap), the job starts and then hangs or falls back to a slow
    transport. Catch-all `deny ip any any` entries and the implicit deny are the usual culprits.

    ## How to fix
    Add an entry that permits UDP destination port 4791 ahead of the entry that drops it.
    """

    id = "ACL001"
    name = "acl-drops-roce"
    title = "ACL on a fabric port drops RoCEv2 (UDP 4791)"
    severity = Severity.ERROR
    category = "acl"
    vendors = ("eos", "nxos", "sonic")
    settings = ("acl.roce_udp_port",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        port = ctx.policy.acl.roce_udp_port
        for iface in ctx.fabric_ports(device, ("layer3",)):
            for binding in iface.acls:
                acl = device.acls.get(binding.name)
                if acl is None or binding.family == "mac":
                    continue
                verdict = acl.udp_dport_verdict(port)
                if verdict.action == "permit":
                    continue
                direction = "inbound" if binding.direction == "in" else "outbound"
                if verdict.action == "deny":
                    culprit = verdict.entry
                    how = (f"entry '{culprit.text}'" if culprit is not None
                           else "the implicit deny at its end")
                    message = (f"ACL {acl.name} ({direction} on {iface.name}) drops all RoCEv2 "
                               f"traffic (UDP {port}) at {how}")
                    severity = None
                    before = culprit
                else:
                    first = verdict.shadowing[0]
                    message = (f"ACL {acl.name} ({direction} on {iface.name}) drops part of the "
                               f"RoCEv2 traffic (UDP {port}) at entry '{first.text}' before it "
                               "is permitted")
                    severity = Severity.WARNING
                    before = first
                if before is None and verdict.shadowing:
                    before = verdict.shadowing[0]
                yield self.finding(
                    device, iface.name, binding.src, message,
                    severity=severity,
                    related=[before.src if before else acl.src],
                    fix=FixIntent("acl-permit-udp", {
                        "acl": acl.name,
                        "family": acl.family,
                        "standard": acl.standard,
                        "port": port,
                        "seq": _free_seq(acl, before),
                        "before_seq": before.seq if before is not None else None,
                    }),
                )
