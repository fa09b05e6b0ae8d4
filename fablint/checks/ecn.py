"""ECN / WRED rules on the lossless queues: marking present, not dropping, a curve that makes
sense, starting before PFC pauses, and close to the profile's baseline."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter

from fablint.checks.base import Context, Rule, fmt_ports, fmt_where, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import Aqm, BufferProfile, Device, Interface, QosSettings, Queue, SourceRef
from fablint.policy import EcnBounds, EcnPolicy


def lossless_queues(device: Device, iface: Interface, ctx: Context) -> dict[int, list[int]]:
    """Queue id -> lossless priorities it carries, for one port (shared by ports that share
    their QoS settings; callers must not change it)."""
    return ctx.per_qos("lossless_queues", device, iface,
                       lambda: _lossless_queues(device, iface, ctx))


def _lossless_queues(device: Device, iface: Interface, ctx: Context) -> dict[int, list[int]]:
    active = iface.qos.pfc.active_priorities
    priorities = set(ctx.policy.pfc.lossless_priorities) | active if active else (
        ctx.policy.pfc.lossless_priorities)
    queues: dict[int, list[int]] = {}
    for prio in sorted(priorities):
        queues.setdefault(device.queue_for_priority(prio, iface), []).append(prio)
    return ctx.shared(("lossless_queues", *((q, *p) for q, p in queues.items())), queues)


def _unmarked(device: Device, iface: Interface, ctx: Context
              ) -> list[tuple[int, list[int], Queue | None]]:
    """(queue id, priorities, queue) of the port's lossless queues that do not mark ECN,
    except those that drop with WRED instead: ECN002 reports them as an error, and its fix
    replaces the drop curve with marking (one cause, one finding)."""
    queues = iface.qos.queues
    return [(queue_id, prios, queue)
            for queue_id, prios in lossless_queues(device, iface, ctx).items()
            if not _marks(queue := queues.get(queue_id))
            and (queue is None or queue.wred is None)]


def _queue_src(iface: Interface, queue_id: int) -> SourceRef | None:
    """Where a port's queue is configured, else the port."""
    queue = iface.qos.queues.get(queue_id)
    return (queue.src if queue is not None else None) or iface.src


def _marks(queue: Queue | None) -> bool:
    return queue is not None and queue.ecn is not None


def _dropping(device: Device, iface: Interface, ctx: Context) -> list[tuple[int, Queue, Aqm]]:
    """(queue id, queue, its WRED) of the port's lossless queues that drop with WRED."""
    queues = iface.qos.queues
    return [(queue_id, queue, queue.wred) for queue_id in lossless_queues(device, iface, ctx)
            if (queue := queues.get(queue_id)) is not None and queue.wred is not None]


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
    On every fabric port that runs PFC, the egress queue of each lossless priority must have
    ECN marking
    configured (EOS `random-detect ecn` under the `tx-queue`, an NX-OS queuing class with
    `random-detect … ecn`, a SONiC `WRED_PROFILE` whose `ecn` mode marks green packets). The
    check follows the device's traffic-class to queue map. Ports that share one QoS profile
    (an EOS `qos profile`, an NX-OS queuing policy) or one configuration line make one
    finding, on the profile or line, naming how many ports it affects, and so do the SONiC
    `QUEUE` rows of several ports that all leave the queue without marking (one template wrote
    them); a port's own EOS or NX-OS configuration makes one finding per port. Designs that
    deliberately run PFC without DCQCN can turn the rule off with
    `ecn.required_on_lossless: false` in their profile. A port whose PFC pauses nothing
    has no lossless queue: PFC001 reports it, and ECN001 says nothing there. A queue left
    without ECN by a cause another rule reports is folded into that finding, not reported
    apart: a WRED profile that does not exist (QOS009), an NX-OS queuing policy bound nowhere
    (QOS006), or a lossy priority paused by mistake (PFC002: asking the default class's queue
    to mark ECN would push a lossy class toward lossless treatment). A queue that drops with
    WRED instead of marking (an NX-OS `random-detect` line without `ecn`, a SONiC
    `WRED_PROFILE` with `ecn: ecn_none`) is ECN002's error, whose fix turns the drop curve into
    marking: ECN001 does not report it again.

    ## Why it matters
    DCQCN, the congestion control of RoCEv2 NICs, slows a sender down only when the switch
    marks congestion with ECN. Without marking, the only brake left is PFC: queues fill to the
    pause threshold, pause frames spread congestion upstream and victim flows stall. ECN must
    fire early so that PFC stays a last resort.

    ## How to fix
    Configure ECN marking on the lossless queue with thresholds below the PFC pause point, in
    the profile the ports share when they share one.
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
        # Ports whose queue comes from the same profile or line share one finding.
        groups: dict[tuple[str, object, int], list[tuple[Interface, list[int]]]] = {}
        # A port whose PFC pauses nothing has no lossless queue: PFC001 reports the cause,
        # and asking it for ECN would push a lossy queue toward lossless treatment.
        for iface, queues in ctx.ports_with(
                device, lambda port: port.qos.pfc.active_priorities
                and _unmarked(device, port, ctx), alike=True):
            for queue_id, prios, queue in queues:
                profile = device.profile_of(iface, "queues")
                key: tuple[str, object, int] = (
                    ("profile", profile, queue_id) if profile is not None
                    # SONiC writes a QUEUE row per port from one template: rows that all
                    # lack a WRED profile are one omission, one finding naming the ports
                    else ("rows", None, queue_id) if device.vendor == "sonic"
                    and queue is not None and queue.src
                    else ("line", queue.src, queue_id) if queue is not None and queue.src
                    else ("port", iface.name, queue_id))
                groups.setdefault(key, []).append((iface, prios))
        for (kind, ident, queue_id), members in groups.items():
            first = members[0][0]
            places = [(f"{i.name} queue {queue_id}", _queue_src(i, queue_id)) for i, _ in members]
            prios = ", ".join(map(str, sorted({p for _, ps in members for p in ps})))
            queue = first.qos.queues.get(queue_id)
            profile = str(ident) if kind == "profile" else None
            where = queue.src if queue is not None else (
                device.qos_profiles[profile].src if profile else first.src)
            fix = _ecn_fix(device, first, queue_id, ctx)
            if len(members) == 1:
                yield self.finding(
                    device, f"{first.name} queue {queue_id}", where,
                    f"lossless queue {queue_id} (priority {prios}) on {first.name} does not "
                    "mark ECN", fix=fix,
                )
                continue
            ports = fmt_ports(i.name for i, _ in members)
            if profile:
                obj = f"qos profile {profile} queue {queue_id}"
                label = "queuing policy" if device.vendor == "nxos" else "qos profile"
                message = (f"lossless queue {queue_id} (priority {prios}) of {label} "
                           f"{profile} does not mark ECN; {len(members)} ports use it: {ports}")
            else:
                obj = f"{first.name} queue {queue_id}"
                message = (f"lossless queue {queue_id} (priority {prios}) does not mark ECN on "
                           f"{len(members)} ports configured together: {ports}")
                if kind == "rows" and len({_queue_src(i, queue_id) for i, _ in members}) > 1:
                    message = (f"lossless queue {queue_id} (priority {prios}) does not mark "
                               f"ECN on {len(members)} ports whose QUEUE rows give it no "
                               f"ECN-marking WRED profile: {ports}")
                    fix.params["interfaces"] = [i.name for i, _ in members]
            yield self.finding(device, obj, where, message, fix=fix, places=places)


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
        # Ports whose queue drops by the same WRED line (a SONiC WRED_PROFILE, a profile's
        # random-detect line) share one finding and one fix.
        groups: dict[tuple[object, int, bool], list[tuple[Interface, Queue, Aqm]]] = {}
        for iface, queues in ctx.ports_with(device, lambda port: _dropping(device, port, ctx),
                                            alike=True):
            for queue_id, queue, wred in queues:
                key = (wred.src or queue.src or iface.name, queue_id, queue.ecn is not None)
                groups.setdefault(key, []).append((iface, queue, wred))
        for (_, queue_id, marks), members in groups.items():
            iface, queue, wred = members[0]
            names = [i.name for i, _, _ in members]
            obj = (f"WRED profile {wred.profile} queue {queue_id}"
                   if len(members) > 1 and wred.profile else f"{iface.name} queue {queue_id}")
            yield self.finding(
                device, obj, wred.src or queue.src,
                f"WRED drops packets on lossless queue {queue_id} of {fmt_where(names, 8)}"
                + (" (ECN marking is also on: non-ECN packets are dropped)" if marks
                   else " instead of marking ECN"),
                severity=Severity.WARNING if marks else None,
                fix=FixIntent("wred-remove", {
                    "interface": iface.name,
                    "interfaces": names,
                    "queue": queue_id,
                    "queue_name": queue.name,
                    "aqm_profile": wred.profile,
                    "profile": device.profile_of(iface, "queues"),
                    "then": None if marks else _ecn_fix(device, iface, queue_id, ctx).params,
                }),
                places=[(f"{i.name} queue {queue_id}", w.src or q.src or i.src)
                        for i, q, w in members],
            )


def _all_queues(device: Device, ctx: Context, met: set[int] | None = None) -> Iterator[
        tuple[Queue, QosSettings | None, Interface | None]]:
    """Every queue with the QoS profile it is in, else the port it is on: in QoS profiles
    first, then on ports.

    Ports that share one QoS object (the same profile, nothing of their own) are visited once.
    ``met``: ids of the ECN and WRED curves the caller has seen (and ``id(None)``); a port
    whose queues hold no other is skipped (the ports of a SONiC switch share one or two
    WRED profiles over some 200 queues).
    """
    for profile in device.qos_profiles.values():
        for queue in profile.queues.values():
            yield queue, profile, None
    for ports in ctx.all_qos_groups(device):
        first = ports[0]
        queues = first.qos.queues.values()
        if met is not None and met.issuperset(map(id, chain.from_iterable(map(_CURVES,
                                                                              queues)))):
            continue
        yield from zip(queues, repeat(None), repeat(first))


_CURVES = attrgetter("ecn", "wred")


def _queue_owner(queue: Queue, profile: QosSettings | None, iface: Interface | None
                 ) -> tuple[str, dict[str, str | None]]:
    """How findings name a queue of ``_all_queues``, and where a fix would go (only worked
    out for the queues that have a finding)."""
    if profile is not None:
        return (f"qos profile {profile.name} queue {queue.id}",
                {"profile": profile.name, "interface": None})
    assert iface is not None
    return f"{iface.name} queue {queue.id}", {"profile": None, "interface": iface.name}


def _compare(aqm: Aqm) -> tuple[float, float, str] | None:
    lo, hi = aqm.min_threshold, aqm.max_threshold
    if lo is None or hi is None:
        return None
    if lo.bytes is not None and hi.bytes is not None:
        return float(lo.bytes), float(hi.bytes), "bytes"
    if lo.unit == hi.unit:
        return lo.value, hi.value, lo.unit
    return None


def _severity_rank(issues: list[tuple[Severity, str, bool]]) -> Severity:
    return max((s for s, _, _ in issues), key=lambda s: s.rank)


def _curve_issues(kind: str, aqm: Aqm, allow_step: bool) -> list[tuple[Severity, str, bool]]:
    """(severity, text, thresholds need replacing) for each problem of one marking curve."""
    issues: list[tuple[Severity, str, bool]] = []
    order = _compare(aqm)
    if order is not None and order[0] > order[1]:
        issues.append((Severity.ERROR, f"{kind} minimum threshold {aqm.min_threshold} is above "
                       f"the maximum {aqm.max_threshold}", True))
    elif order is not None and order[0] == order[1] and not allow_step:
        issues.append((Severity.WARNING, f"{kind} minimum threshold {aqm.min_threshold} is "
                       f"equal to the maximum {aqm.max_threshold}", True))
    if aqm.min_threshold is not None and aqm.min_threshold.value == 0:
        verb = "marks" if kind == "ECN" else "drops"
        issues.append((Severity.WARNING, f"{kind} minimum threshold is 0: the queue {verb} "
                       "from empty", True))
    prob = aqm.probability
    if prob is not None and not 0 <= prob <= 100:
        issues.append((Severity.ERROR, f"{kind} probability {prob} % is outside 1-100", False))
    elif prob == 0 and kind == "ECN":
        issues.append((Severity.WARNING, "ECN marking probability is 0: the queue never marks",
                       False))
    if aqm.weight is not None and not 0 <= aqm.weight <= 15:
        issues.append((Severity.ERROR, f"{kind} weight {aqm.weight} is outside 0-15", False))
    return issues


def _curve_fix(
    queue: Queue, aqm: Aqm, target: dict[str, str | None], ctx: Context, reshape: bool
) -> FixIntent | None:
    """The marking curve written again: the profile's thresholds when the configured ones are
    wrong, else the configured ones (only if they are in bytes), with a valid probability."""
    ecn = ctx.policy.ecn
    lo, hi = aqm.min_threshold, aqm.max_threshold
    if reshape:
        low, high = ecn.fix_min_bytes, ecn.fix_max_bytes
    elif lo is not None and hi is not None and lo.bytes is not None and hi.bytes is not None:
        low, high = lo.bytes, hi.bytes
    else:
        return None
    prob = aqm.probability
    return FixIntent("ecn-enable", {
        **target,
        "queue": queue.id,
        "queue_name": queue.name,
        "min_bytes": low,
        "max_bytes": high,
        "probability": prob if prob is not None and 1 <= prob <= 100 else ecn.fix_probability,
        "aqm_profile": aqm.profile,
    })


@register
class EcnThresholdOrder(Rule):
    """ECN or WRED parameters that cannot work as written.

    ## What it checks
    For every queue with ECN marking or WRED (on ports and in QoS profiles), the values that
    shape the marking curve must make sense together:

    - the minimum threshold must not be above the maximum, compared in bytes (or in the common
      unit when it cannot be converted to bytes, such as EOS segments): an error;
    - a minimum equal to the maximum (step marking: every packet is marked past one point) is
      accepted by default, because some designs use it on purpose (Azure Local's Nexus RoCE
      policy marks at 300 KB / 300 KB); `ecn.allow_step_marking: false` makes it a warning;
    - a minimum threshold of 0 marks (or drops) from an empty queue: a warning;
    - an ECN marking probability of 0 (SONiC accepts 0-100, and 0 marks nothing) is a
      warning; a probability outside 0-100 or a weight outside 0-15 (the EOS and NX-OS range)
      is an error.

    These checks form one rule rather than several because they describe one object, the
    marking curve, and share one fix: the `random-detect` line (or SONiC `WRED_PROFILE`)
    written again with all its values right. A queue with several problems gets one finding
    that lists them all; a profile's queue is reported once, not once per port.
    Unlike the other ECN rules it checks every switch, configured for RoCE or not: a curve
    that cannot work is wrong whatever the queue carries.

    ## Why it matters
    Between the two thresholds the marking probability ramps up; that ramp is what lets DCQCN
    slow senders gradually. A minimum above the maximum is a configuration slip that platforms
    reject or clamp unpredictably. A zero minimum marks even a nearly empty queue, so senders
    are throttled without congestion; a zero probability never marks, which silently turns
    DCQCN off; values outside the platform's range are rejected when the configuration is
    applied.

    ## How to fix
    Set the minimum threshold below the maximum, for example 150 KB and 1500 KB, with a
    marking probability between 1 and 100 % and a weight between 0 and 15 (0 is usual).
    """

    id = "ECN003"
    name = "ecn-threshold-order"
    title = "ECN/WRED thresholds out of order, or probability or weight out of range"
    severity = Severity.ERROR
    category = "ecn"
    roce_only = False
    vendors = ("eos", "nxos", "sonic")
    settings = ("ecn.allow_step_marking", "ecn.fix_min_bytes", "ecn.fix_max_bytes",
                "ecn.fix_probability")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        allow_step = ctx.policy.ecn.allow_step_marking
        seen: set[SourceRef | None] = set()
        met: set[int] = {id(None)}  # ids of the curves seen (queues may share one object)
        for queue, profile, iface in _all_queues(device, ctx, met):
            ecn, wred = queue.ecn, queue.wred
            for kind, aqm in (("ECN", ecn), ("WRED", wred)):
                if aqm is None or id(aqm) in met:
                    continue
                met.add(id(aqm))
                if aqm.src in seen:
                    continue
                seen.add(aqm.src)  # a profile's queue, met again on each port that applies it
                issues = _curve_issues(kind, aqm, allow_step)
                if not issues:
                    continue
                obj, target = _queue_owner(queue, profile, iface)
                severity = _severity_rank(issues)
                # (an NX-OS queuing policy is named as such in the text; the object, which
                # baselines key on, stays the same on every vendor)
                named = (obj.replace("qos profile ", "queuing policy ", 1)
                         if device.vendor == "nxos" else obj)
                yield self.finding(
                    device, obj, aqm.src,
                    "; ".join(text for _, text, _ in issues) + f" on {named}",
                    severity=None if severity == self.severity else severity,
                    fix=_curve_fix(queue, aqm, target, ctx, any(r for _, _, r in issues))
                    if kind == "ECN" else None,
                )


# -- ECN and the PFC pause point --------------------------------------------------------------

MAX_DYNAMIC_TH = 16
"""A dynamic threshold exponent beyond this is not a buffer setting (alpha = 2^th)."""


@dataclass(frozen=True)
class PausePoint:
    """Buffer occupancy at which a priority group sends PFC pause frames, from its profile."""

    bytes: int
    upper_bound: bool
    """True for a dynamic threshold: the most it can be (one congested group, empty pool)."""
    pg: int
    profile: BufferProfile
    how: str


def pause_point(device: Device, iface: Interface, priority: int) -> PausePoint | None:
    """Where PFC pauses ``priority`` on ``iface``, when the configuration gives its buffer.

    The pause comes when the priority group has used its guaranteed buffer and its share of
    the shared pool. Guaranteed: the profile's size, less the xoff headroom when the size
    includes it (size >= xon + xoff, the independent-headroom model). Shared: the static
    threshold, or for a dynamic threshold (alpha = 2^dynamic_th, a limit of alpha times the
    free pool) alpha / (1 + alpha) of the pool, where one congested group settles.
    """
    pg = device.pg_for_priority(priority, iface)
    assignment = iface.buffer_pgs.get(pg)
    profile = device.buffer_profiles.get(assignment.profile or "") if assignment else None
    if profile is None or not profile.lossless:
        return None
    guaranteed = profile.size or 0
    if profile.size is not None and profile.xoff is not None and (
            profile.size >= profile.xoff + (profile.xon or 0)):
        guaranteed = profile.size - profile.xoff
    name = f"buffer profile {profile.name}: {guaranteed} bytes guaranteed"
    if profile.static_th is not None:
        return PausePoint(guaranteed + profile.static_th, False, pg, profile,
                          f"{name} + static threshold {profile.static_th} bytes")
    pool = device.buffer_pools.get(profile.pool or "")
    if profile.dynamic_th is None or pool is None or pool.size is None:
        return None
    if profile.dynamic_th > MAX_DYNAMIC_TH:
        return None
    alpha = 0.0 if profile.dynamic_th <= -8 else 2.0 ** profile.dynamic_th  # -8 means alpha 0
    shared = int(pool.size * alpha / (1 + alpha))
    return PausePoint(guaranteed + shared, True, pg, profile,
                      f"{name} + dynamic threshold alpha {alpha:g} of pool {pool.name} "
                      f"({pool.size} bytes)")


@register
class EcnBeforePfc(Rule):
    """ECN starts marking only at or after the point where PFC pauses.

    ## What it checks
    Where the configuration gives the ingress buffer of a lossless priority (its priority
    group's buffer profile, with a static threshold, or a dynamic threshold and the pool's
    size), ECN marking on the priority's egress queue must start (the minimum threshold,
    Kmin) below the buffer occupancy at which the priority group sends PFC pause frames.

    That pause point is the group's guaranteed buffer (the profile's size, less its xoff
    headroom when the size includes it) plus the most it may take from the shared pool: the
    static threshold, or, for a dynamic threshold alpha = 2^dynamic_th (a limit of alpha
    times the free pool), alpha / (1 + alpha) of the pool, where one congested group settles.
    With a dynamic threshold that is an upper bound, so a finding means that ECN cannot mark
    before the pause under any load. Priority groups whose buffers the switch computes
    (SONiC's dynamic buffer model) or that have no buffer profile are skipped; today only
    SONiC configurations describe buffers.

    ## Why it matters
    DCQCN works only when the switch marks congestion before it pauses: "ensure the PFC does
    not trigger early, precluding the ECN" (Intel's RoCE flow-control guide), and the DCQCN
    paper derives its buffer settings from the same requirement. With one sender the egress
    queue and the ingress priority group fill together, so a Kmin at or above the pause point
    means the sender is paused before it is ever told to slow down: PFC becomes the congestion
    control and pause frames spread head-of-line blocking through the fabric.

    ## How to fix
    Lower the ECN minimum threshold of the lossless queue below the pause point (the fix
    suggests the profile's `ecn.fix_min_bytes` when it is below), or give the lossless priority
    group more of the shared buffer (a larger dynamic or static threshold).
    """

    id = "ECN004"
    name = "ecn-before-pfc"
    title = "ECN marking starts at or above the PFC pause point"
    severity = Severity.WARNING
    category = "ecn"
    vendors = ("sonic",)
    settings = ("ecn.fix_min_bytes", "ecn.fix_max_bytes", "ecn.fix_probability")

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not device.buffer_profiles:
            return
        groups: dict[tuple[object, ...], list[tuple[Interface, int, int, Aqm, PausePoint]]] = {}
        # a priority group's pause point, by its id and buffer profile (the ports of a switch
        # mostly share their profiles)
        points: dict[tuple[int, str | None], PausePoint | None] = {}
        for iface in ctx.fabric_ports(device):
            for prio in sorted(iface.qos.pfc.active_priorities):
                queue_id = device.queue_for_priority(prio, iface)
                queue = iface.qos.queues.get(queue_id)
                ecn = queue.ecn if queue is not None else None
                kmin = ecn.min_threshold if ecn is not None else None
                if ecn is None or kmin is None or kmin.bytes is None:
                    continue
                pg = device.pg_for_priority(prio, iface)
                assignment = iface.buffer_pgs.get(pg)
                at = (pg, assignment.profile if assignment is not None else None)
                if at in points:
                    point = points[at]
                else:
                    point = points[at] = pause_point(device, iface, prio)
                if point is None or kmin.bytes < point.bytes:
                    continue
                key = (ecn.src, point.profile.name, point.bytes, queue_id, prio)
                groups.setdefault(key, []).append((iface, prio, queue_id, ecn, point))
        for members in groups.values():
            first, prio, queue_id, ecn, point = members[0]
            kmin_bytes = ecn.min_threshold.bytes if ecn.min_threshold else None
            ports = first.name if len(members) == 1 else (
                f"{len(members)} ports ({fmt_ports(m[0].name for m in members)})")
            when = "by the time" if point.upper_bound else "when"
            yield self.finding(
                device, f"{first.name} queue {queue_id}", ecn.where("min_threshold"),
                f"ECN on lossless queue {queue_id} of {ports} starts marking at {kmin_bytes} "
                f"bytes, but PFC pauses priority {prio} {when} priority group {point.pg} holds "
                f"{point.bytes} bytes ({point.how})",
                related=[point.profile.src],
                fix=self._fix(device, first, queue_id, ecn, point, ctx),
                places=[(f"{m[0].name} queue {queue_id}", m[3].where("min_threshold"))
                        for m in members],
            )

    @staticmethod
    def _fix(
        device: Device, iface: Interface, queue_id: int, ecn: Aqm, point: PausePoint,
        ctx: Context,
    ) -> FixIntent | None:
        policy = ctx.policy.ecn
        if policy.fix_min_bytes >= point.bytes:
            return None  # the profile's own threshold would not help: the buffer must grow
        queue = iface.qos.queues.get(queue_id)
        return FixIntent("ecn-enable", {
            "interface": iface.name,
            "queue": queue_id,
            "queue_name": queue.name if queue is not None else None,
            "min_bytes": policy.fix_min_bytes,
            "max_bytes": policy.fix_max_bytes,
            "probability": ecn.probability or policy.fix_probability,
            "aqm_profile": ecn.profile,
            "profile": device.profile_of(iface, "queues"),
        })


# -- ECN baseline -----------------------------------------------------------------------------


def speed_class(speed_mbps: int | None) -> str | None:
    """``400g`` for a 400 Gb/s port; None when the speed is not known."""
    if not speed_mbps or speed_mbps % 1000:
        return None
    return f"{speed_mbps // 1000}g"


def _span(bounds: tuple[int, int]) -> str:
    return str(bounds[0]) if bounds[0] == bounds[1] else f"{bounds[0]}-{bounds[1]}"


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])


@register
class EcnThresholdBaseline(Rule):
    """ECN marking outside the profile's baseline for the port speed.

    ## What it checks
    When the profile sets `ecn.bounds`, the ECN marking of every lossless queue on a fabric
    port must fall in the ranges given for the port's speed class (`400g`, `100g`, …, or
    `any` for ports of other or unknown speed): minimum threshold and maximum threshold in
    bytes, and the marking probability in percent. Thresholds in units that cannot be
    converted to bytes (EOS segments, time) are not compared. The default profile sets no
    bounds, so the rule reports nothing until a profile does; the built-in vendor profiles
    (`nvidia-spectrum-x`, `sonic-azure`, `cisco-nexus-ai`) set their vendor's published
    values.

    ## Why it matters
    There is no single right ECN threshold: NVIDIA's RoCE default marks from 150 KB to 1.5 MB
    at 100 %, SONiC's AZURE_LOSSLESS profile from 1 MB to 2 MB at 5 %, Cisco's AI/ML blueprint
    from 150 KB to 3000 KB at 7 %. A fabric built to one design should use it everywhere; a
    value far from it is usually a leftover from another template and changes how early
    DCQCN reacts. This is information, not a fault: the baseline is a design choice.

    ## How to fix
    Set the thresholds and probability to the profile's values, or widen `ecn.bounds` in your
    own profile if the design differs on purpose.
    """

    id = "ECN005"
    name = "ecn-threshold-baseline"
    title = "ECN thresholds outside the profile's baseline for the port speed"
    severity = Severity.INFO
    category = "ecn"
    vendors = ("eos", "nxos", "sonic")
    settings = ("ecn.bounds",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        all_bounds = ctx.policy.ecn.bounds
        if not all_bounds:
            return
        groups: dict[tuple[object, ...], list[Interface]] = {}
        found: dict[tuple[object, ...], tuple[int, Aqm, str, EcnBounds]] = {}
        for iface in ctx.fabric_ports(device):
            speed = speed_class(iface.speed_mbps)
            key_class = speed if speed in all_bounds else "any"
            bounds = all_bounds.get(key_class)
            if bounds is None:
                continue
            for queue_id in lossless_queues(device, iface, ctx):
                queue = iface.qos.queues.get(queue_id)
                if queue is None or queue.ecn is None:
                    continue
                key = (queue.ecn.src, key_class, queue_id)
                groups.setdefault(key, []).append(iface)
                found.setdefault(key, (queue_id, queue.ecn, key_class, bounds))
        for key, ports in groups.items():
            queue_id, ecn, key_class, bounds = found[key]
            issues, fix_values = _outside(ecn, bounds, ctx.policy.ecn)
            if not issues:
                continue
            first = ports[0]
            where = fmt_where((p.name for p in ports), 8)
            speed = "any speed" if key_class == "any" else key_class
            queue = first.qos.queues.get(queue_id)
            yield self.finding(
                device, f"{first.name} queue {queue_id}", ecn.src,
                f"ECN on lossless queue {queue_id} of {where} is outside the profile's "
                f"baseline for {speed}: {', '.join(issues)}",
                fix=FixIntent("ecn-enable", {
                    "interface": first.name,
                    "queue": queue_id,
                    "queue_name": queue.name if queue is not None else None,
                    "min_bytes": fix_values[0],
                    "max_bytes": fix_values[1],
                    "probability": fix_values[2],
                    "aqm_profile": ecn.profile,
                    "profile": device.profile_of(first, "queues"),
                }) if fix_values is not None else None,
                places=[(f"{p.name} queue {queue_id}", _queue_src(p, queue_id)) for p in ports],
            )


def _outside(
    ecn: Aqm, bounds: EcnBounds, policy: EcnPolicy
) -> tuple[list[str], tuple[int, int, int] | None]:
    """What falls outside ``bounds``, and (min, max, probability) with each value outside
    replaced by the profile's fix value (or the nearest bound when that is outside too). No
    values when a threshold is not in bytes, so that no fix changes its unit."""
    issues: list[str] = []
    values: list[int | None] = []
    for label, value, span, suggested in (
        ("minimum threshold", ecn.min_threshold.bytes if ecn.min_threshold else None,
         bounds.min_bytes, policy.fix_min_bytes),
        ("maximum threshold", ecn.max_threshold.bytes if ecn.max_threshold else None,
         bounds.max_bytes, policy.fix_max_bytes),
        ("probability", ecn.probability, bounds.probability, policy.fix_probability),
    ):
        if value is not None and span is not None and not span[0] <= value <= span[1]:
            unit = " %" if label == "probability" else " bytes"
            issues.append(f"{label} {value}{unit} (expected {_span(span)})")
            value = _clamp(suggested, span)
        values.append(value)
    low, high, prob = values
    if low is None or high is None or low > high:
        return issues, None
    return issues, (low, high, prob if prob is not None and 1 <= prob <= 100
                    else policy.fix_probability)
