"""ECN / WRED rules on the lossless queues."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from fablint.checks.base import Context, Rule, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Aqm, Device, Interface, Queue, SourceRef


def lossless_queues(device: Device, iface: Interface, ctx: Context) -> dict[int, list[int]]:
    """Queue id -> lossless priorities it carries, for one port."""
    active = iface.qos.pfc.active_priorities
    priorities = set(ctx.policy.pfc.lossless_priorities) | active if active else (
        ctx.policy.pfc.lossless_priorities)
    queues: dict[int, list[int]] = {}
    for prio in sorted(priorities):
        queues.setdefault(device.queue_for_priority(prio, iface), []).append(prio)
    return queues


def _ecn_fix(device: Device, iface: Interface, queue_id: int, ctx: Context) -> FixIntent:
    if not iface.profile:
        usable = device.profile_providing(set(ctx.policy.pfc.lossless_priorities))
        queue = device.qos_profiles[usable].queues.get(queue_id) if usable else None
        if queue is not None and queue.ecn is not None:
            return FixIntent("apply-profile", {"interface": iface.name, "profile": usable})
    ecn = ctx.policy.ecn
    queue = iface.qos.queues.get(queue_id)
    return FixIntent("ecn-enable", {
        "interface": iface.name,
        "queue": queue_id,
        "queue_name": queue.name if queue is not None else None,
        "min_bytes": ecn.fix_min_bytes,
        "max_bytes": ecn.fix_max_bytes,
        "probability": ecn.fix_probability,
        "profile": device.profile_of(iface, "queues"),
    })


@register
class EcnOnLosslessQueue(Rule):
    """A lossless queue does not mark ECN.

    ## What it checks
    On every fabric port, the egress queue of each lossless priority must have ECN marking
    configured (EOS `random-detect ecn` under the `tx-queue`). The check follows the
    device's traffic-class to queue map. Designs that deliberately run PFC without DCQCN can
    turn it off with `ecn.required_on_lossless: false` in their profile.

    ## Why it matters
    DCQCN, the congestion control of RoCEv2 NICs, slows a sender down only when the switch
    marks congestion with ECN. Without marking, the only brake left is PFC: queues fill to the
    pause threshold, pause frames spread congestion upstream and victim flows stall. ECN must
    fire early so that PFC stays a last resort.

    ## How to fix
    Configure ECN marking on the lossless queue with thresholds below the PFC pause point.
    """

    id = "ECN001"
    name = "ecn-on-lossless-queue"
    title = "Lossless queue without ECN marking"
    severity = Severity.WARNING
    category = "ecn"
    vendors = ("eos", "nxos", "sonic")
    settings = (
        "ecn.required_on_lossless",
        "pfc.lossless_priorities",
        "ecn.fix_min_bytes",
        "ecn.fix_max_bytes",
        "ecn.fix_probability",
    )

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not ctx.policy.ecn.required_on_lossless:
            return
        for iface in ctx.fabric_ports(device):
            for queue_id, prios in lossless_queues(device, iface, ctx).items():
                queue = iface.qos.queues.get(queue_id)
                if queue is not None and queue.ecn is not None:
                    continue
                where = queue.src if queue is not None else iface.src
                yield self.finding(
                    device, f"{iface.name} queue {queue_id}", where,
                    f"lossless queue {queue_id} (priority {', '.join(map(str, prios))}) on "
                    f"{iface.name} does not mark ECN",
                    fix=_ecn_fix(device, iface, queue_id, ctx),
                )


@register
class WredDropsLossless(Rule):
    """WRED is set to drop packets on a lossless queue.

    ## What it checks
    On every fabric port, the egress queue of each lossless priority must not have WRED
    dropping configured (EOS `random-detect drop`). With ECN marking also present the finding
    is a warning (only non-ECN-capable packets are dropped); without it, an error.

    ## Why it matters
    A lossless queue exists so that RoCE packets are never dropped. WRED drops packets early on
    purpose, before the queue is full, which is the opposite: every early drop costs the RDMA
    sender a go-back-N retransmission. Congestion on the lossless queue should be signalled with
    ECN marks, not drops.

    ## How to fix
    Remove the WRED drop profile from the lossless queue and configure ECN marking instead.
    """

    id = "ECN002"
    name = "wred-drops-lossless"
    title = "WRED dropping on a lossless queue"
    severity = Severity.ERROR
    category = "ecn"
    vendors = ("eos", "nxos", "sonic")
    settings = ("pfc.lossless_priorities",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        for iface in ctx.fabric_ports(device):
            for queue_id in lossless_queues(device, iface, ctx):
                queue = iface.qos.queues.get(queue_id)
                if queue is None or queue.wred is None:
                    continue
                marks = queue.ecn is not None
                yield self.finding(
                    device, f"{iface.name} queue {queue_id}", queue.wred.src or queue.src,
                    f"WRED drops packets on lossless queue {queue_id} of {iface.name}"
                    + (" (ECN marking is also on: non-ECN packets are dropped)" if marks else ""),
                    severity=Severity.WARNING if marks else None,
                    fix=FixIntent("wred-remove", {
                        "interface": iface.name,
                        "queue": queue_id,
                        "queue_name": queue.name,
                        "aqm_profile": queue.wred.profile,
                        "profile": device.profile_of(iface, "queues"),
                        "then": None if marks else _ecn_fix(device, iface, queue_id, ctx).params,
                    }),
                )


def _all_queues(device: Device) -> Iterator[tuple[str, Queue, dict[str, str | None]]]:
    """Every queue: in QoS profiles first, then on ports, with where a fix would go.

    Ports that share one QoS object (the same profile, nothing of their own) are visited once.
    """
    for profile in device.qos_profiles.values():
        for queue in profile.queues.values():
            yield (f"qos profile {profile.name} queue {queue.id}", queue,
                   {"profile": profile.name, "interface": None})
    seen: set[int] = set()
    for iface in device.interfaces.values():
        if not iface.qos.queues or id(iface.qos) in seen:
            continue
        seen.add(id(iface.qos))
        for queue in iface.qos.queues.values():
            target = {"profile": None, "interface": iface.name}
            yield f"{iface.name} queue {queue.id}", queue, target


def _compare(aqm: Aqm) -> tuple[float, float, str] | None:
    lo, hi = aqm.min_threshold, aqm.max_threshold
    if lo is None or hi is None:
        return None
    if lo.bytes is not None and hi.bytes is not None:
        return float(lo.bytes), float(hi.bytes), "bytes"
    if lo.unit == hi.unit:
        return lo.value, hi.value, lo.unit
    return None


@register
class EcnThresholdOrder(Rule):
    """ECN or WRED minimum threshold is not below the maximum.

    ## What it checks
    For every queue with ECN marking or WRED (on ports and in QoS profiles), the minimum
    threshold must be below the maximum threshold, compared in bytes (or in the common unit
    when the unit cannot be converted to bytes, such as EOS segments). A minimum above the
    maximum is an error; a minimum equal to the maximum is a warning.

    ## Why it matters
    Between the two thresholds the marking probability ramps up; that ramp is what lets DCQCN
    slow senders gradually. A minimum above the maximum is a configuration slip that platforms
    reject or clamp unpredictably. Equal thresholds turn the ramp into a step: every packet is
    marked as soon as the queue passes one point. Some designs do this on purpose
    (DCTCP-style step marking), most by accident.

    ## How to fix
    Set the minimum threshold below the maximum, for example 150 KB and 1500 KB.
    """

    id = "ECN003"
    name = "ecn-threshold-order"
    title = "ECN minimum threshold not below the maximum"
    severity = Severity.ERROR
    category = "ecn"
    vendors = ("eos", "nxos", "sonic")
    settings = ("ecn.fix_min_bytes", "ecn.fix_max_bytes")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        seen: set[SourceRef | None] = set()
        for obj, queue, target in _all_queues(device):
            for kind, aqm in (("ECN", queue.ecn), ("WRED", queue.wred)):
                if aqm is None or aqm.src in seen:
                    continue
                seen.add(aqm.src)  # a profile's queue, met again on each port that applies it
                order = _compare(aqm)
                if order is None or order[0] < order[1]:
                    continue
                equal = order[0] == order[1]
                yield self.finding(
                    device, obj, aqm.src,
                    f"{kind} minimum threshold {aqm.min_threshold} is "
                    f"{'equal to' if equal else 'above'} the maximum {aqm.max_threshold} on {obj}",
                    severity=Severity.WARNING if equal else None,
                    fix=FixIntent("ecn-enable", {
                        **target,
                        "queue": queue.id,
                        "queue_name": queue.name,
                        "min_bytes": ctx.policy.ecn.fix_min_bytes,
                        "max_bytes": ctx.policy.ecn.fix_max_bytes,
                        "probability": aqm.probability or ctx.policy.ecn.fix_probability,
                        "aqm_profile": aqm.profile,
                    }) if kind == "ECN" else None,
                )
