"""What the datasheet and the HTML report need of each device, computed next to the parser.

Device models stay in the worker processes that parse them (``fablint/parallel.py``); a report
asks the engine for one ``DeviceDigest`` per device instead (``LintOptions.digest``): the ports,
the QoS chain per group of ports that share QoS settings, the lossless queues' PFC and ECN, and
the host NICs' DCQCN. Plain frozen dataclasses of strings and numbers: cheap to pickle.
"""

from __future__ import annotations

from dataclasses import dataclass

from fablint.checks.base import Context, fmt_ranges
from fablint.model import Device, HostNic, Interface

SWITCH_VENDORS = frozenset({"eos", "nxos", "sonic"})


@dataclass(frozen=True, slots=True)
class QueueDigest:
    """One egress queue of a QoS group: scheduling, ECN / WRED and the PFC priorities it holds."""

    id: int
    scheduling: str | None
    bandwidth_percent: int | None
    ecn: tuple[str | None, str | None, int | None] | None
    """(min, max threshold as written, probability %) of ECN marking; None: no marking."""
    wred_drops: bool
    lossless_priorities: tuple[int, ...]
    """Lossless (PFC-paused, or expected lossless by the profile) priorities queued here."""


@dataclass(frozen=True, slots=True)
class ChainStep:
    """DSCPs that travel the same way: DSCP -> traffic class -> PFC priority -> queue."""

    dscps: str
    """The DSCPs as ranges (``0-23, 27-47``)."""
    traffic_class: int
    priority: int
    queue: int
    lossless: bool


@dataclass(frozen=True, slots=True)
class QosGroupDigest:
    """Fabric ports sharing one QoS settings object, and what those settings do."""

    ports: tuple[str, ...]
    trust: str | None
    pfc_priorities: tuple[int, ...]
    """Priorities PFC is in effect for on these ports."""
    link_pause: bool
    watchdog: bool
    chain: tuple[ChainStep, ...]
    queues: tuple[QueueDigest, ...]


@dataclass(frozen=True, slots=True)
class PortDigest:
    name: str
    kind: str
    speed_mbps: int | None
    mtu: int | None
    admin_up: bool
    routed: bool
    description: str | None
    fabric: bool
    """A RoCE port by the profile's port scope (``Context.is_fabric_port``)."""
    line: int | None


@dataclass(frozen=True, slots=True)
class NicDigest:
    """A GPU host's RoCE NIC port as its inputs describe it (None: not reported)."""

    name: str
    rdma_device: str | None
    mtu: int | None
    trust: str | None
    pfc_priorities: tuple[int, ...] | None
    roce_dscp: int | None
    np_priorities: tuple[int, ...] | None
    """Priorities the DCQCN notification point is on for; None when not reported."""
    rp_priorities: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class DeviceDigest:
    name: str
    vendor: str
    platform: str | None
    files: tuple[str, ...]
    ports: tuple[PortDigest, ...]
    qos_groups: tuple[QosGroupDigest, ...]
    nics: tuple[NicDigest, ...]

    @property
    def switch(self) -> bool:
        return self.vendor in SWITCH_VENDORS


def digest(device: Device, ctx: Context) -> DeviceDigest:
    """The report's view of ``device`` (runs in the worker that parsed it)."""
    fabric = {id(i) for i in ctx.fabric_ports(device)}
    ports = tuple(
        PortDigest(i.name, i.kind, i.speed_mbps, i.mtu, i.admin_up, i.routed, i.description,
                   id(i) in fabric, i.src.line if i.src else None)
        for i in device.interfaces.values() if i.kind in ("physical", "port-channel", "mgmt"))
    groups = tuple(_group(device, members, ctx) for members in ctx.qos_groups(device))
    nics = tuple(_nic(nic) for nic in device.host.nics.values()) if device.host else ()
    return DeviceDigest(device.name, device.vendor, device.platform, tuple(device.files), ports,
                        groups, nics)


def _group(device: Device, members: list[Interface], ctx: Context) -> QosGroupDigest:
    first = members[0]
    qos = first.qos
    active = qos.pfc.active_priorities
    lossless = set(ctx.policy.pfc.lossless_priorities) | active
    maps = device.maps_for(first)
    paths: dict[tuple[int, int, int, bool], list[int]] = {}
    for dscp in range(64):
        tc = maps.class_of_dscp(dscp)
        prio = maps.pfc_priority_of(tc)
        queue = maps.tc_to_queue.get(tc, tc)
        paths.setdefault((tc, prio, queue, maps.class_is_no_drop(tc, active)), []).append(dscp)
    chain = tuple(ChainStep(fmt_ranges(dscps), tc, prio, queue, no_drop)
                  for (tc, prio, queue, no_drop), dscps in sorted(paths.items()))
    by_queue: dict[int, list[int]] = {}
    for prio in sorted(lossless):
        by_queue.setdefault(device.queue_for_priority(prio, first), []).append(prio)
    queue_ids = sorted(set(qos.queues) | set(by_queue))
    queues = []
    for qid in queue_ids:
        queue = qos.queues.get(qid)
        ecn = queue.ecn if queue is not None else None
        queues.append(QueueDigest(
            qid, queue.scheduling if queue else None, queue.bandwidth_percent if queue else None,
            (_str(ecn.min_threshold), _str(ecn.max_threshold), ecn.probability)
            if ecn is not None else None,
            bool(queue is not None and queue.wred is not None),
            tuple(by_queue.get(qid, ())),
        ))
    return QosGroupDigest(
        tuple(i.name for i in members), qos.trust, tuple(sorted(active)), qos.pause.enabled,
        qos.pfc.watchdog.enabled, chain, tuple(queues))


def _str(value: object | None) -> str | None:
    return None if value is None else str(value)


def _prios(flags: dict[int, bool]) -> tuple[int, ...] | None:
    return tuple(sorted(p for p, on in flags.items() if on)) if flags else None


def _nic(nic: HostNic) -> NicDigest:
    return NicDigest(
        nic.name, nic.rdma_device, nic.mtu, nic.trust,
        tuple(sorted(nic.pfc_priorities)) if nic.pfc_priorities is not None else None,
        nic.roce_dscp, _prios(nic.ecn_np), _prios(nic.ecn_rp))
