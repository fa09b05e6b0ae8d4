"""ACL rules: nothing on a fabric port may drop RoCEv2."""

from __future__ import annotations

from collections.abc import Iterable

from fablint.checks.base import Context, Rule, fmt_where, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import (
    Acl,
    AclBinding,
    AclEntry,
    AclVerdict,
    Device,
    Interface,
    MaskedMatch,
)


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
    warning: some RoCE flows are dropped. A list applied to several fabric ports is one
    finding naming them all: its entries are the one cause, and one permit entry fixes them.

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
        verdicts: dict[str, AclVerdict] = {}  # one walk per list, however many ports apply it
        # One finding per list and direction, naming every fabric port that applies it: the
        # entries of the list are the one cause, and one permit entry fixes them all.
        users: dict[tuple[str, str], list[tuple[Interface, AclBinding]]] = {}
        for iface in ctx.fabric_ports(device, ("layer3",)):
            for binding in iface.acls:
                acl = device.acls.get(binding.name)
                if acl is None or binding.family == "mac":
                    continue
                verdict = verdicts.get(binding.name)
                if verdict is None:
                    verdict = verdicts[binding.name] = acl.udp_dport_verdict(port)
                if verdict.action == "permit":
                    continue
                if verdict.action != "deny" and all(
                        e.bth_opcode is not None or e.aeth_syndrome is not None
                        for e in verdict.shadowing):
                    continue  # drops chosen by RoCE header fields are ACL002's to report
                users.setdefault((acl.name, binding.direction), []).append((iface, binding))
        for (name, direction_code), bound in users.items():
            acl, verdict = device.acls[name], verdicts[name]
            iface, binding = bound[0]
            direction = "inbound" if direction_code == "in" else "outbound"
            where = fmt_where([i.name for i, _ in bound])
            if verdict.action == "deny":
                culprit = verdict.entry
                how = (f"entry '{culprit.text}'" if culprit is not None
                       else "the implicit deny at its end")
                message = (f"ACL {acl.name} ({direction} on {where}) drops all RoCEv2 "
                           f"traffic (UDP {port}) at {how}")
                severity = None
                before = culprit
            else:
                first = verdict.shadowing[0]
                message = (f"ACL {acl.name} ({direction} on {where}) drops part of the "
                           f"RoCEv2 traffic (UDP {port}) at entry '{first.text}' before it "
                           "is permitted")
                severity = Severity.WARNING
                before = first
            if before is None and verdict.shadowing:
                before = verdict.shadowing[0]
            yield self.finding(
                device, iface.name, binding.src, message,
                severity=severity,
                related=[before.src if before else acl.src,
                         *(b.src for _, b in bound[1:] if b.src != binding.src)],
                fix=FixIntent("acl-permit-udp", {
                    "acl": acl.name,
                    "family": acl.family,
                    "standard": acl.standard,
                    "port": port,
                    "seq": _free_seq(acl, before),
                    "before_seq": before.seq if before is not None else None,
                }),
            )


BTH_OPCODES = {0x81: "CNPs", 0x11: "RC acknowledgements",
               0x12: "RC atomic acknowledgements", 0x0A: "RC RDMA WRITE Only",
               0x04: "RC SEND Only", 0x0C: "RC RDMA READ Request",
               0x10: "RC RDMA READ Response Only"}
"""RoCEv2 BTH opcodes worth naming when a rule drops them (InfiniBand Architecture
Specification, base transport header opcodes; CNP is 0x81 in the RoCEv2 annex)."""
AETH_SYNDROMES = (("ACKs", 0x00, 0x1F), ("RNR NAKs", 0x20, 0x3F), ("NAKs", 0x60, 0x7F))
"""AETH syndrome classes by their top bits: ACK, receiver-not-ready NAK, NAK (sequence error,
invalid request, remote access or operation error)."""


def _what(entry: AclEntry) -> str:
    """What a BTH / AETH match catches, in words."""
    parts = []
    if entry.bth_opcode is not None:
        named = [name for code, name in BTH_OPCODES.items() if entry.bth_opcode.matches(code)]
        parts.append(f"BTH opcode {entry.bth_opcode}"
                     + (f" ({', '.join(named)})" if named else ""))
    if entry.aeth_syndrome is not None:
        syndrome: MaskedMatch = entry.aeth_syndrome
        named = [name for name, lo, hi in AETH_SYNDROMES
                 if any(syndrome.matches(v) for v in range(lo, hi + 1))]
        parts.append(f"AETH syndrome {syndrome}" + (f" ({', '.join(named)})" if named else ""))
    return " and ".join(parts)


def _ports(names: list[str], limit: int = 4) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f", … {len(names) - limit} more" if len(names) > limit else "")


@register
class AclDropsRoceByHeader(Rule):
    """An ACL on a fabric port drops RoCEv2 packets by their transport header.

    ## What it checks
    ACL entries that drop on a RoCEv2 transport header field (SONiC ACL rules with
    `PACKET_ACTION: DROP` and `BTH_OPCODE` or `AETH_SYNDROME`) in ACLs applied to fabric ports.
    An entry is reported when RoCEv2 traffic (UDP `acl.roce_udp_port`) can reach it, that is
    when no earlier entry already permits all of it; the message names what the match catches
    (CNPs, acknowledgements, NAKs …). One finding per ACL entry, listing the ports.

    ## Why it matters
    These matches exist to drop or count individual RDMA packets, mostly for fault injection in
    tests. Left on a production port they break RDMA in ways that look like a bad network:
    dropped acknowledgements and NAKs make senders retransmit and time out, dropped CNPs switch
    off DCQCN congestion control so queues build until PFC storms, dropped data opcodes hang
    queue pairs. The effect is partial, so jobs slow down rather than fail.

    ## How to fix
    Remove the rule, or make it forward (the fix shown) if it is there only to count.
    """

    id = "ACL002"
    name = "roce-bth-acl"
    title = "ACL on a fabric port drops RoCEv2 by BTH opcode or AETH syndrome"
    severity = Severity.WARNING
    category = "acl"
    vendors = ("sonic",)
    settings = ("acl.roce_udp_port",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        port = ctx.policy.acl.roce_udp_port
        bound: dict[str, list[tuple[Interface, str]]] = {}
        for iface in ctx.fabric_ports(device, ("layer3",)):
            for binding in iface.acls:
                direction = "inbound" if binding.direction == "in" else "outbound"
                bound.setdefault(binding.name, []).append((iface, direction))
        for name, ports in bound.items():
            acl = device.acls.get(name)
            if acl is None or acl.family == "mac":
                continue
            for n, entry in enumerate(acl.entries):
                if entry.action != "deny" or (entry.bth_opcode is None
                                              and entry.aeth_syndrome is None):
                    continue
                if entry.udp_dport_match(port) == "none":
                    continue
                if any(e.action == "permit" and e.udp_dport_match(port) == "all"
                       for e in acl.entries[:n]):
                    continue  # RoCE is let through before this entry
                directions = sorted({d for _, d in ports})
                where = entry.where("bth_opcode", "aeth_syndrome")
                yield self.finding(
                    device, acl.name, where,
                    f"ACL {acl.name} ({'/'.join(directions)} on "
                    f"{_ports([i.name for i, _ in ports])}) drops RoCEv2 packets by "
                    f"{_what(entry)} at entry '{entry.text}'",
                    related=[entry.src],
                    fix=FixIntent("acl-entry-permit", {
                        "acl": acl.name, "entry": entry.name, "seq": entry.seq,
                    }),
                )
