"""Buffer rules: every lossless priority has a priority group with enough headroom.

PFC only works if the switch has room for what is still on the wire when it asks the sender to
stop: the priority group's headroom (xoff). These rules read the buffer configuration SONiC keeps
in CONFIG_DB (BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE, CABLE_LENGTH), normalised in
the model. They judge only what the input holds: a device whose input has no priority-group
buffers at all (a config_db without BUFFER_* tables: the dynamic buffer model or buffermgrd
computes them at run time) is left alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from fablint.checks.base import Context, Rule, fmt_priorities, merge_alike, register
from fablint.findings import Finding, FixIntent, Severity
from fablint.model import BufferAssignment, BufferProfile, Device, Interface, SourceRef

PAUSE_QUANTA = {800_000: 905, 400_000: 905, 200_000: 453, 100_000: 394, 50_000: 147,
                40_000: 118, 25_000: 80, 10_000: 67, 1_000: 2, 100: 1}
"""Port speed (Mb/s) -> pause quanta the peer may still send after a pause frame (IEEE 802.3
31B.3.7, as SONiC's headroom calculation encodes it [S17]). One quantum is 512 bit times."""
SIGNAL_SPEED_M_PER_S = 198_000_000
"""Speed of the signal in the cable, as SONiC's headroom calculation assumes [S17]."""


# -- what the input says about buffers -----------------------------------------------------


def _has_pg_buffers(device: Device) -> bool:
    """The input configures priority-group buffers on at least one port."""
    return any(iface.buffer_pgs for iface in device.interfaces.values())


def _has_queue_buffers(device: Device) -> bool:
    """The input configures queue buffers on at least one port."""
    return any(iface.buffer_queues for iface in device.interfaces.values())


def _is_lossless_pg(device: Device, assignment: BufferAssignment) -> bool:
    """A priority group with lossless headroom: computed by the switch, or a lossless profile."""
    if assignment.dynamic:
        return True
    profile = device.buffer_profiles.get(assignment.profile or "")
    return profile is not None and profile.lossless


def _lossless_pgs_in_input(device: Device) -> bool:
    """Lossless priority groups are written in the input, not left to the switch.

    SONiC's traditional buffer template writes only the lossy priority group 0 and buffermgrd
    adds the lossless ones at run time from the platform's headroom table; the dynamic model's
    template writes them (profile NULL), and a saved config_db holds what buffermgrd wrote. So
    a missing lossless priority group is a fault only where the input has them for some port,
    or the dynamic model, which never adds them itself, is in use.
    """
    if device.buffer_model == "dynamic":
        return True
    return any(_is_lossless_pg(device, a) for iface in device.interfaces.values()
               for a in iface.buffer_pgs.values())


def _protected(iface: Interface, ctx: Context) -> set[int]:
    """Priorities the port pauses that the profile says must be lossless. A paused priority
    outside ``pfc.lossless_priorities`` is PFC002's to judge: it may not belong paused at all,
    and asking for headroom for it would suggest the opposite fix."""
    return iface.qos.pfc.active_priorities & set(ctx.policy.pfc.lossless_priorities)


def _lossless_pgs(device: Device, iface: Interface, priorities: set[int]) -> dict[int, set[int]]:
    """Priority group -> the PFC priorities of the port whose traffic it buffers."""
    maps = device.maps_for(iface)
    to_priority = maps.tc_to_pfc_priority  # (ClassMaps.pfc_priority_of, for 8 classes)
    out: dict[int, set[int]] = {}
    for priority in priorities:
        classes = [tc for tc in range(8) if to_priority.get(tc, tc) == priority] or [priority]
        for tc in classes:
            pg = maps.tc_to_pg.get(tc)
            if pg is None:
                pg = maps.pfc_priority_to_pg.get(priority, tc)
            out.setdefault(pg, set()).add(priority)
    return out


def _why_not_lossless_pg(device: Device, assignment: BufferAssignment) -> str | None:
    """Why a priority group's profile gives it no lossless headroom, or None when it does
    (or when that cannot be told: a missing profile is QOS009's)."""
    if assignment.dynamic:
        return None
    profile = device.buffer_profiles.get(assignment.profile or "")
    if profile is None:
        return None
    if not profile.lossless:
        return f"buffer profile {profile.name}, which has no xoff headroom (a lossy profile)"
    pool = device.buffer_pools.get(profile.pool or "")
    if pool is not None and pool.type == "egress":
        return f"buffer profile {profile.name}, which is in egress pool {pool.name}"
    if pool is not None and pool.lossless is False:
        return f"buffer profile {profile.name}, which is in lossy pool {pool.name}"
    return None


def _why_not_lossless_queue(device: Device, assignment: BufferAssignment) -> str | None:
    """Why a queue's profile is not a lossless egress profile, or None."""
    if assignment.dynamic:
        return None
    profile = device.buffer_profiles.get(assignment.profile or "")
    if profile is None:
        return None
    if profile.xoff is not None:
        return f"buffer profile {profile.name}, an ingress headroom profile"
    pool = device.buffer_pools.get(profile.pool or "")
    if pool is not None and pool.type == "ingress":
        return f"buffer profile {profile.name}, which is in ingress pool {pool.name}"
    if pool is not None and pool.lossless is False:
        return f"buffer profile {profile.name}, which is in lossy pool {pool.name}"
    return None


def _entry_ids(assignments: dict[int, BufferAssignment], src: SourceRef | None) -> list[int]:
    """Ids (priority groups or queues) a port's one configuration entry covers."""
    return sorted(n for n, a in assignments.items() if a.src == src)


def _suggest_pg_profile(device: Device, iface: Interface) -> str | None:
    """A profile to give a port's lossless priority groups: the one other ports of the same
    speed and cable length use, else the switch's own computation where it makes one."""
    counts: dict[str, int] = {}
    for other in device.interfaces.values():
        if (other.speed_mbps, other.cable_length_m) != (iface.speed_mbps, iface.cable_length_m):
            continue
        for assignment in other.buffer_pgs.values():
            if (assignment.profile and _is_lossless_pg(device, assignment)
                    and _why_not_lossless_pg(device, assignment) is None):
                counts[assignment.profile] = counts.get(assignment.profile, 0) + 1
    if counts:
        return max(sorted(counts), key=lambda name: counts[name])
    dynamic = device.buffer_model == "dynamic" or any(
        a.dynamic for other in device.interfaces.values() for a in other.buffer_pgs.values())
    return "NULL" if dynamic else None


def _suggest_queue_profile(device: Device) -> str | None:
    """A lossless egress profile: the one lossless queues use elsewhere, else any in a lossless
    egress pool."""
    names = sorted(device.buffer_profiles)
    for name in names:
        profile = device.buffer_profiles[name]
        pool = device.buffer_pools.get(profile.pool or "")
        if (profile.xoff is None and pool is not None and pool.type == "egress"
                and pool.lossless):
            return name
    return None


# -- headroom arithmetic -------------------------------------------------------------------


def pause_quanta(speed_mbps: int) -> int:
    """Quanta of the fastest tabulated speed not above ``speed_mbps`` (a lower bound)."""
    return max((q for s, q in PAUSE_QUANTA.items() if s <= speed_mbps), default=0)


def headroom_estimate(speed_mbps: int, cable_m: float, mtu: int) -> int:
    """Bytes a priority group must absorb after it sends a pause: a packet the peer has
    started (one MTU), the round trip on the cable and what the peer sends before it reacts.

    SONiC's own formula (buffer_headroom_mellanox.lua [S17]) with the ASIC-specific terms left
    out (MAC/PHY and gearbox delay, cell occupancy, the lossless-MTU term): a lower bound of
    what the switch itself would compute, so that a profile below it is short of headroom.
    """
    on_cable = 2 * cable_m * speed_mbps * 1e9 / SIGNAL_SPEED_M_PER_S / (8 * 1024)
    peer_response = pause_quanta(speed_mbps) * 512 / 8
    return math.ceil(mtu + on_cable + peer_response)


def _speed(speed_mbps: int) -> str:
    return f"{speed_mbps // 1000}G" if speed_mbps % 1000 == 0 else f"{speed_mbps} Mb/s"


def _metres(value: float) -> str:
    return f"{int(value)} m" if float(value).is_integer() else f"{value} m"


def _shared(device: Device, profile: BufferProfile) -> bool:
    pool = device.buffer_pools.get(profile.pool or "")
    return pool is not None and pool.shared_headroom


# -- rules ---------------------------------------------------------------------------------


@register
class LosslessPgForPfc(Rule):
    """A priority that PFC pauses has no lossless priority-group buffer.

    ## What it checks
    On every fabric port with PFC, each priority the port pauses (SONiC `pfc_enable`) that the
    profile calls lossless (`pfc.lossless_priorities`) is followed through the port's maps
    (traffic class to priority group, `tc_to_pg_map`) to the priority group that buffers its
    traffic. (A paused priority outside that list is PFC002's: it may not belong paused at
    all.) That priority group must have a lossless buffer profile: one with xoff headroom in
    an ingress pool for lossless traffic (`ingress_lossless_pool`), or profile `NULL`, which
    the switch computes (dynamic buffer model). A priority group that points at a lossy
    profile is an error, and so is one that is missing where the input writes lossless
    priority groups itself (some port has one, or the dynamic model is in use). SONiC's
    traditional buffer template writes only the lossy priority group 0 and leaves the lossless
    ones to the switch, which adds them at run time; such inputs, and inputs without
    priority-group buffers at all, are not judged. The BUFFER_PG rows of several ports that
    are wrong the same way make one finding naming the ports, with one fix.

    ## Why it matters
    PFC pauses the sender when a priority group fills up to its xoff threshold, and the
    headroom above it absorbs what is still on the wire. A priority group on a lossy profile has
    no headroom and no xoff: the switch never pauses in time and drops RoCE packets under
    congestion, although `pfc_enable` says the priority is lossless. This is the classic
    "PFC is on but RoCE still drops" misconfiguration.

    ## How to fix
    Give the priority groups of the lossless priorities a lossless profile (the one other ports
    of the same speed and cable length use, or `NULL` under the dynamic buffer model).
    """

    id = "BUF001"
    name = "lossless-pg-for-pfc"
    title = "A PFC priority has no lossless priority-group buffer"
    severity = Severity.ERROR
    category = "buffer"
    vendors = ("sonic",)
    settings = ("pfc.lossless_priorities",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        # SONiC writes these rows one per port: alike ones make one finding (merge_alike)
        return merge_alike(self._port_findings(device, ctx), device)

    def _port_findings(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not _has_pg_buffers(device):
            return
        explicit = _lossless_pgs_in_input(device)
        for iface in ctx.fabric_ports(device):
            pfc = iface.qos.pfc
            protected = _protected(iface, ctx)
            if not protected:
                continue
            missing: dict[int, set[int]] = {}
            lossy: dict[SourceRef | None, tuple[BufferAssignment, set[int], str]] = {}
            wanted = _lossless_pgs(device, iface, protected)
            for pg, priorities in sorted(wanted.items()):
                assignment = iface.buffer_pgs.get(pg)
                if assignment is None:
                    if explicit:
                        missing[pg] = priorities
                    continue
                why = _why_not_lossless_pg(device, assignment)
                if why is not None:
                    entry = lossy.setdefault(assignment.src, (assignment, set(), why))
                    entry[1].update(priorities)
            suggestion = _suggest_pg_profile(device, iface) if missing or lossy else None
            if missing:
                priorities = set().union(*missing.values())
                yield self.finding(
                    device, iface.name, pfc.where("no_drop", "mode") or iface.src,
                    f"{iface.name} pauses priority {fmt_priorities(priorities)} but priority "
                    f"group {fmt_priorities(missing)} has no buffer profile: without lossless "
                    "headroom that traffic is dropped",
                    related=[iface.src],
                    fix=FixIntent("buffer-pg-set", {
                        "interface": iface.name, "pgs": sorted(missing), "profile": suggestion,
                    }),
                )
            # the priority groups the port pauses: a fix may set an entry they share
            paused = _lossless_pgs(device, iface, pfc.active_priorities) if lossy else {}
            for src, (assignment, priorities, why) in lossy.items():
                ids = _entry_ids(iface.buffer_pgs, src)
                yield self.finding(
                    device, iface.name, assignment.where("profile"),
                    f"priority group {fmt_priorities(ids)} of {iface.name} carries lossless "
                    f"priority {fmt_priorities(priorities)} but uses {why}",
                    related=[pfc.where("no_drop", "mode")],
                    fix=FixIntent("buffer-pg-set", {
                        "interface": iface.name, "pgs": ids,
                        "profile": suggestion if set(ids) <= set(paused) else None,
                    }),
                )


@register
class HeadroomSize(Rule):
    """A lossless buffer profile's size is smaller than its headroom.

    ## What it checks
    On switches where a lossless buffer profile's `size` is the priority group's headroom
    (NVIDIA Spectrum, and SONiC's dynamic buffer model), the size must cover it: at least
    `xon + xoff` when each priority group reserves its own headroom, at least `xon` when the
    ingress pool lends headroom from a shared pool (the pool has an `xoff`, or an
    over-subscribe ratio sizes it), where SONiC sets `size = xon` and the xoff comes from the
    shared pool. Broadcom platforms keep the headroom apart from `size` (their tables give
    `size` 4608 with `xoff` 160000), so the rule does not run where the platform is not known
    to be one of the former.

    ## Why it matters
    The xoff threshold tells the switch when to pause; the size is what it actually reserves.
    With less reserved than xon + xoff, the packets that arrive after the pause (a cable's worth
    plus the peer's reaction time) find no room and are dropped, so the priority is not lossless
    under exactly the bursts PFC is there for.

    ## How to fix
    Set the profile's size to xon + xoff (independent headroom) or to xon (shared headroom
    pool), or let the switch compute the profile (dynamic buffer model, profile `NULL`).
    """

    id = "BUF002"
    name = "headroom-size"
    title = "Lossless buffer profile smaller than its headroom"
    severity = Severity.ERROR
    category = "buffer"
    vendors = ("sonic",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if device.headroom_in_size is not True:
            return
        for profile in device.buffer_profiles.values():
            if profile.xoff is None or profile.size is None:
                continue
            pool = device.buffer_pools.get(profile.pool or "")
            if pool is not None and pool.type == "egress":
                continue
            xon = profile.xon or 0
            shared = _shared(device, profile)
            need = xon if shared else xon + profile.xoff
            if profile.size >= need:
                continue
            how = (f"its xon {xon} bytes (the pool shares headroom, so size = xon)" if shared
                   else f"xon + xoff = {xon} + {profile.xoff} = {need} bytes")
            yield self.finding(
                device, profile.name, profile.where("size"),
                f"buffer profile {profile.name}: size {profile.size} bytes is below {how}",
                related=[profile.where("xoff"), pool.where("xoff") if pool else None],
                fix=FixIntent("buffer-profile-set", {"profile": profile.name,
                                                     "fields": {"size": need}}),
            )


@register
class HeadroomVsCable(Rule):
    """A lossless profile's xoff headroom is below what the cable and port speed need.

    ## What it checks
    For every lossless buffer profile with an xoff, and every port (up, physical) whose
    priority groups use it, the xoff must be at least an estimate of the headroom the port
    needs, from its speed, its cable length (SONiC `CABLE_LENGTH`) and its MTU
    (`buffer.headroom_mtu` where the input has none):

    `MTU + 2 x length / 198,000,000 m/s x speed / 8 + pause quanta x 64 bytes`

    one packet the peer has started, the data in flight on a round trip of the cable, and the
    pause quanta the peer may still send at that speed (IEEE 802.3 31B.3.7: 905 at 400G, 394 at
    100G; a quantum is 512 bit times). It is SONiC's headroom formula for NVIDIA Spectrum
    (buffer_headroom_mellanox.lua), as SONiC codes it, without the ASIC's internal delays and
    cell overheads, so a real switch needs more than the estimate. Only devices known to be
    Spectrum switches (DEVICE_METADATA `hwsku` or `platform`) are checked: other ASICs count
    headroom in their own units and terms (Broadcom tables keep part of it outside `xoff`),
    and no formula for them is documented, so their profiles are not judged.
    Ports without a speed or cable length are skipped (BUF004 reports a missing cable length).
    The warning names the estimate and the port that needs the most.

    ## Why it matters
    After a priority group crosses xoff and sends a pause, data keeps arriving for a round trip
    plus the peer's reaction time. An xoff below that overflows on every pause: the "lossless"
    priority drops exactly when it is congested. Profiles copied from a short-cable design to a
    long spine link are the usual cause.

    ## How to fix
    Raise the profile's xoff to at least the estimate (the fix rounds it up to 1 KiB and grows
    `size` with it where size holds the headroom), use a profile sized for the real cable
    length, or correct the cable length if it is wrong.
    """

    id = "BUF003"
    name = "headroom-vs-cable"
    title = "Lossless xoff headroom below the estimate for cable and speed"
    severity = Severity.WARNING
    category = "buffer"
    vendors = ("sonic",)
    settings = ("buffer.headroom_mtu",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not device.buffer_profiles:
            return  # no profile to judge (every EOS and NX-OS device)
        if not (device.asic_family or "").startswith("spectrum"):
            return  # the formula is NVIDIA Spectrum's; other ASICs size headroom their own way
        users: dict[str, list[tuple[int, Interface]]] = {}
        for iface in device.interfaces.values():
            if iface.kind != "physical" or not iface.admin_up:
                continue
            if iface.speed_mbps is None or iface.cable_length_m is None:
                continue
            mtu = iface.mtu or ctx.policy.buffer.headroom_mtu
            estimate = headroom_estimate(iface.speed_mbps, iface.cable_length_m, mtu)
            for name in {a.profile for a in iface.buffer_pgs.values() if a.profile}:
                users.setdefault(name, []).append((estimate, iface))
        for name, ports in users.items():
            profile = device.buffer_profiles.get(name)
            if profile is None or profile.xoff is None:
                continue
            short = sorted((p for p in ports if p[0] > profile.xoff),
                           key=lambda p: (-p[0], p[1].name))
            if not short:
                continue
            estimate, worst = short[0]
            assert worst.speed_mbps is not None and worst.cable_length_m is not None
            mtu = worst.mtu or ctx.policy.buffer.headroom_mtu
            more = f" and {len(short) - 1} more port(s)" if len(short) > 1 else ""
            xoff = math.ceil(estimate / 1024) * 1024
            fields = {"xoff": xoff}
            if device.headroom_in_size and profile.size is not None and not _shared(
                    device, profile):
                fields["size"] = max(profile.size, (profile.xon or 0) + xoff)
            yield self.finding(
                device, profile.name, profile.where("xoff"),
                f"xoff {profile.xoff} bytes of buffer profile {profile.name} is below the PFC "
                f"headroom estimate {estimate} bytes for {worst.name} ({_speed(worst.speed_mbps)}"
                f", {_metres(worst.cable_length_m)} cable, MTU {mtu}){more}",
                related=[worst.where("cable_length_m"), worst.where("speed_mbps")],
                fix=FixIntent("buffer-profile-set", {"profile": profile.name, "fields": fields}),
            )


@register
class CableLengthSet(Rule):
    """A port with a lossless priority group has no cable length.

    ## What it checks
    Every port (up, physical) with a lossless priority group (a lossless buffer profile, or
    `NULL` for the switch to compute) must have a cable length (SONiC `CABLE_LENGTH`).

    ## Why it matters
    The headroom a lossless priority group needs grows with the cable: it must hold a round
    trip of data. SONiC computes the headroom (dynamic model) or picks the lossless profile
    (traditional model, from the platform's speed and cable table) from the cable length; without
    one the switch cannot size the priority group, and either leaves it without a lossless
    profile or falls back to a default that may be too small for a long link.

    ## How to fix
    Add the port's cable length (`buffer.fix_cable_length_m` in the fix; measure the real one,
    SONiC's templates use 5 m for servers, 40 m for leaf to ToR and 300 m for spine to leaf
    links).
    """

    id = "BUF004"
    name = "cable-length-set"
    title = "Port with a lossless priority group has no cable length"
    severity = Severity.WARNING
    category = "buffer"
    vendors = ("sonic",)
    settings = ("buffer.fix_cable_length_m",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not _has_pg_buffers(device):
            return
        for iface in device.interfaces.values():
            if iface.kind != "physical" or not iface.admin_up or iface.cable_length_m is not None:
                continue
            lossless = sorted((pg, a) for pg, a in iface.buffer_pgs.items()
                              if _is_lossless_pg(device, a))
            if not lossless:
                continue
            yield self.finding(
                device, iface.name, lossless[0][1].src,
                f"{iface.name} has lossless priority group "
                f"{fmt_priorities(pg for pg, _ in lossless)} but no cable length: the switch "
                "cannot size its PFC headroom",
                fix=FixIntent("cable-length-set", {
                    "interface": iface.name, "metres": ctx.policy.buffer.fix_cable_length_m,
                }),
            )


@register
class LosslessEgressQueue(Rule):
    """A lossless queue uses a lossy egress buffer profile.

    ## What it checks
    On every fabric port with PFC, the egress queue of each paused priority the profile calls
    lossless (`pfc.lossless_priorities`; through the port's priority or traffic-class to queue
    map) must use a lossless egress buffer profile (SONiC
    `BUFFER_QUEUE` pointing at a profile in `egress_lossless_pool`), or `NULL`. A queue on a
    profile of a lossy pool, of an ingress pool, or on an ingress headroom profile is a warning,
    and so is a lossless queue left out where the port's other queues have buffer profiles.
    Ports without queue buffers in the input are not judged. The BUFFER_QUEUE rows of several
    ports that are wrong the same way make one finding naming the ports, with one fix.

    ## Why it matters
    Lossless traffic must not be dropped on the way out either. The lossless egress pool lets a
    lossless queue grow until PFC at the ingress holds the senders back; a lossy egress profile
    caps the queue with a drop threshold, so RoCE packets are tail-dropped at egress under
    congestion even though every ingress priority group is lossless.

    ## How to fix
    Give the lossless queues the lossless egress profile (`egress_lossless_profile` in SONiC's
    templates).
    """

    id = "BUF005"
    name = "lossless-egress-queue"
    title = "Lossless queue on a lossy egress buffer profile"
    severity = Severity.WARNING
    category = "buffer"
    vendors = ("sonic",)
    settings = ("pfc.lossless_priorities",)

    def check_device(self, device: Device, ctx: Context) -> Iterable[Finding]:
        # SONiC writes these rows one per port: alike ones make one finding (merge_alike)
        return merge_alike(self._port_findings(device, ctx), device)

    def _port_findings(self, device: Device, ctx: Context) -> Iterable[Finding]:
        if not _has_queue_buffers(device):
            return
        suggestion = _suggest_queue_profile(device)
        for iface in ctx.fabric_ports(device):
            pfc = iface.qos.pfc
            protected = _protected(iface, ctx)
            if not protected or not iface.buffer_queues:
                continue
            queues: dict[int, set[int]] = {}
            for priority in protected:
                queues.setdefault(device.queue_for_priority(priority, iface), set()).add(
                    priority)
            missing = {q: p for q, p in queues.items() if q not in iface.buffer_queues}
            if missing:
                yield self.finding(
                    device, iface.name, pfc.where("no_drop", "mode") or iface.src,
                    f"lossless queue {fmt_priorities(missing)} of {iface.name} (priority "
                    f"{fmt_priorities(set().union(*missing.values()))}) has no egress buffer "
                    "profile while the port's other queues have one",
                    fix=FixIntent("buffer-queue-set", {
                        "interface": iface.name, "queues": sorted(missing),
                        "profile": suggestion,
                    }),
                )
            seen: set[SourceRef | None] = set()
            for queue in sorted(q for q in queues if q in iface.buffer_queues):
                assignment = iface.buffer_queues[queue]
                why = _why_not_lossless_queue(device, assignment)
                if why is None or assignment.src in seen:
                    continue
                seen.add(assignment.src)
                ids = _entry_ids(iface.buffer_queues, assignment.src)
                lossless = [q for q in ids if q in queues]
                paused = {device.queue_for_priority(p, iface) for p in pfc.active_priorities}
                yield self.finding(
                    device, iface.name, assignment.where("profile"),
                    f"lossless queue {fmt_priorities(lossless)} of {iface.name} uses {why}: "
                    "it tail-drops under congestion",
                    related=[pfc.where("no_drop", "mode")],
                    fix=FixIntent("buffer-queue-set", {
                        "interface": iface.name, "queues": ids,
                        "profile": suggestion if set(ids) <= paused else None,
                    }),
                )
