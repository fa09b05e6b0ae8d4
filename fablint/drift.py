"""Drift: what differs, for RoCE, between two fabrics (intended configs and a live snapshot).

Both sides are read through the parsers into the normalised model and compared as facts
(``fablint.facts``), not as text: ordering, comments, formatting, counters and vendor spellings
of the same behaviour do not show; a port whose MTU, PFC, trust, DSCP classification, ECN
thresholds, watchdog, 802.3x pause or ACL verdict on RoCE differs does. Devices are matched by
name; a device on one side only is reported as such.

Which ports: physical ports and port-channels that are fabric ports (by the policy's port
scope) on at least one side. Which DSCPs and priorities: the policy's RoCE and CNP DSCPs, its
lossless priorities, and every priority either side gives PFC or the RoCE/CNP classes.
Links: per port, the neighbour each side records (LLDP, SONiC DEVICE_NEIGHBOR), compared only
for devices whose link information both sides have (a config repository rarely has any).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from fablint.checks.base import Context
from fablint.facts import Sourced, device_drift_facts, interface_drift_facts
from fablint.ingest import build_fabric, discover, parse_all
from fablint.model import Device, Fabric, Interface, ParseProblem, SourceRef
from fablint.policy import Policy

EXIT_NO_DRIFT = 0
EXIT_DRIFT = 1
EXIT_UNREADABLE = 2
PORT_KINDS = ("physical", "port-channel")

DeviceState = Literal["same", "drift", "only-intended", "only-live"]


@dataclass
class FactDrift:
    """One fact of one object (a port, or the device) that differs."""

    object: str
    """Interface name, or ``device`` for device-wide facts."""
    fact: str
    intended: Any
    live: Any
    intended_src: SourceRef | None = None
    live_src: SourceRef | None = None


@dataclass
class DeviceDrift:
    device: str
    state: DeviceState
    vendor: str | None = None
    differences: list[FactDrift] = field(default_factory=list)
    intended_files: list[str] = field(default_factory=list)
    live_files: list[str] = field(default_factory=list)


@dataclass
class SideError:
    side: Literal["intended", "live"]
    problem: ParseProblem


@dataclass
class DriftReport:
    intended: list[str]
    live: list[str]
    devices: list[DeviceDrift]
    errors: list[SideError] = field(default_factory=list)
    udp_port: int = 4791

    @property
    def drifted(self) -> list[DeviceDrift]:
        return [d for d in self.devices if d.state != "same"]

    @property
    def exit_code(self) -> int:
        if self.errors:
            return EXIT_UNREADABLE
        return EXIT_DRIFT if self.drifted else EXIT_NO_DRIFT

    def counts(self) -> dict[str, int]:
        out = {"compared": 0, "drift": 0, "same": 0, "only-intended": 0, "only-live": 0,
               "differences": 0}
        for device in self.devices:
            out[device.state] += 1
            out["differences"] += len(device.differences)
            if device.state in ("same", "drift"):
                out["compared"] += 1
        return out


# -- reading ---------------------------------------------------------------------------------


def load_fabric(paths: list[str], jobs: int | None = None) -> tuple[Fabric, list[ParseProblem]]:
    """Read configs or a snapshot into a fabric; also return the inputs that could not be
    read (as ``fablint lint`` counts them: exit code 2). Raises PathNotFound."""
    files = discover(paths)
    outcomes = parse_all(files, jobs=jobs)
    fabric, _ = build_fabric(outcomes)
    explicit = {i.path for i in fabric.inputs if i.explicit}
    errors = [
        p for p in fabric.problems
        if (p.fatal and (p.kind != "unsupported" or p.file in explicit))
        or p.kind == "parse-error"
    ]
    return fabric, errors


# -- comparing -------------------------------------------------------------------------------


def _neighbors(fabric: Fabric, device: Device) -> dict[str, Sourced]:
    """Local port -> 'device port' at the other end, from links and configured neighbours."""
    out: dict[str, Sourced] = {}
    for iface in device.interfaces.values():
        if iface.neighbor is not None:
            out[iface.name] = (f"{iface.neighbor.device} {iface.neighbor.interface}",
                               iface.where("neighbor"))
    for link in fabric.links:
        if link.a.device == device.name:
            out.setdefault(link.a.interface, (f"{link.b.device} {link.b.interface}", link.src))
    return out


def _priorities(policy: Policy, devices: Iterable[Device], dscps: list[int]) -> list[int]:
    prios = set(policy.pfc.lossless_priorities)
    for device in devices:
        for dscp in dscps:
            tc = device.qos.tc_for_dscp(dscp)
            if tc is not None and 0 <= tc <= 7:
                prios.add(tc)
        for iface in device.interfaces.values():
            prios |= iface.qos.pfc.active_priorities
            if iface.qos.maps is not None:
                for dscp in dscps:
                    tc = iface.qos.maps.tc_for_dscp(dscp)
                    if tc is not None and 0 <= tc <= 7:
                        prios.add(tc)
    return sorted(prios)


def _ports(ctx: Context, device: Device) -> dict[str, Interface]:
    return {name: iface for name, iface in device.interfaces.items()
            if iface.kind in PORT_KINDS and ctx.is_fabric_port(device, iface)}


def _compare_facts(obj: str, left: dict[str, Sourced], right: dict[str, Sourced]
                   ) -> list[FactDrift]:
    out = []
    for fact in left.keys() | right.keys():
        (a, a_src), (b, b_src) = left.get(fact, (None, None)), right.get(fact, (None, None))
        if a != b:
            out.append(FactDrift(obj, fact, a, b, a_src, b_src))
    return out


def compare_devices(
    intended: Device, live: Device, policy: Policy, *,
    intended_fabric: Fabric | None = None, live_fabric: Fabric | None = None,
) -> list[FactDrift]:
    """Every RoCE-relevant fact that differs between two views of one device."""
    left_ctx = Context(fabric=intended_fabric or Fabric(), policy=policy)
    right_ctx = Context(fabric=live_fabric or Fabric(), policy=policy)
    cls = policy.classification
    dscps = sorted(set(cls.roce_dscp) | set(cls.cnp_dscp))
    prios = _priorities(policy, (intended, live), dscps)
    udp = policy.acl.roce_udp_port
    out = _compare_facts("device", device_drift_facts(intended), device_drift_facts(live))

    left_ports, right_ports = _ports(left_ctx, intended), _ports(right_ctx, live)
    for name in sorted(left_ports.keys() | right_ports.keys(), key=_port_order):
        a, b = intended.interfaces.get(name), live.interfaces.get(name)
        if a is None or b is None:
            present = a if a is not None else b
            assert present is not None
            out.append(FactDrift(name, "present", a is not None, b is not None,
                                 a.src if a else None, b.src if b else None))
            continue
        own_maps = a.qos.maps is not None or b.qos.maps is not None
        facts_a = interface_drift_facts(intended, a, dscps=dscps if own_maps else [],
                                        priorities=prios, udp_port=udp)
        facts_b = interface_drift_facts(live, b, dscps=dscps if own_maps else [],
                                        priorities=prios, udp_port=udp)
        out += _compare_facts(name, facts_a, facts_b)

    if intended_fabric is not None and live_fabric is not None:
        left_nbr = _neighbors(intended_fabric, intended)
        right_nbr = _neighbors(live_fabric, live)
        if left_nbr and right_nbr:
            for port in sorted(left_nbr.keys() | right_nbr.keys(), key=_port_order):
                (a_val, a_src) = left_nbr.get(port, (None, None))
                (b_val, b_src) = right_nbr.get(port, (None, None))
                if a_val != b_val:
                    out.append(FactDrift(port, "neighbor", a_val, b_val, a_src, b_src))
    out.sort(key=lambda d: (d.object != "device", _port_order(d.object), _fact_order(d.fact)))
    return out


def _port_order(name: str) -> tuple[Any, ...]:
    """Ethernet2 before Ethernet10: digit runs compare as numbers."""
    import re

    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", name) if t)


_FACT_ORDER = ("present", "vendor", "admin_up", "routed", "port_channel", "mtu", "neighbor",
               "trust", "pfc_disabled_globally", "pfc", "pfc_priorities", "watchdog",
               "link_pause", "acl_in_roce", "acl_out_roce", "dscp", "priority")


def _fact_order(fact: str) -> tuple[int, tuple[Any, ...]]:
    head = fact.split("[", 1)[0]
    rank = _FACT_ORDER.index(head) if head in _FACT_ORDER else len(_FACT_ORDER)
    return rank, _port_order(fact)


def _match(names: Iterable[str], other: dict[str, Device],
           pairs: dict[str, str] | None = None) -> dict[str, str]:
    """Device names of one side -> the same device on the other side: a ``--pair`` first,
    then the exact name, else the same name in another case (host names are not
    case-sensitive); when each side holds one device, those two."""
    names = list(names)
    lower: dict[str, str] = {}
    for name in other:
        lower.setdefault(name.lower(), name)
    out: dict[str, str] = {}
    paired = pairs or {}
    for name in names:
        if name in paired and paired[name] in other:
            out[name] = paired[name]
        elif name in other and name not in paired.values():
            out[name] = name
        elif name.lower() in lower and lower[name.lower()] not in paired.values():
            out[name] = lower[name.lower()]
    if not out and len(names) == 1 and len(other) == 1:
        out[names[0]] = next(iter(other))  # two single files: one device renamed
    return out


def compare(intended: Fabric, live: Fabric, policy: Policy,
            pairs: dict[str, str] | None = None) -> list[DeviceDrift]:
    matched = _match(intended.devices, live.devices, pairs)
    out: list[DeviceDrift] = []
    for name, device in intended.devices.items():
        other_name = matched.get(name)
        if other_name is None:
            out.append(DeviceDrift(name, "only-intended", device.vendor,
                                   intended_files=list(device.files)))
            continue
        other = live.devices[other_name]
        diffs = compare_devices(device, other, policy, intended_fabric=intended,
                                live_fabric=live)
        # a device paired by --pair (or as the one device of two files) shows both names
        shown = name if other_name.lower() == name.lower() else f"{name} = {other_name}"
        out.append(DeviceDrift(shown, "drift" if diffs else "same", device.vendor, diffs,
                               intended_files=list(device.files),
                               live_files=list(other.files)))
    taken = set(matched.values())
    for name, device in live.devices.items():
        if name not in taken:
            out.append(DeviceDrift(name, "only-live", device.vendor,
                                   live_files=list(device.files)))
    out.sort(key=lambda d: _port_order(d.device))
    return out


def drift(intended: list[str], live: list[str], policy: Policy,
          jobs: int | None = None, pairs: dict[str, str] | None = None) -> DriftReport:
    """Read both sides and compare them. ``pairs`` names an intended device's live
    counterpart where the names differ. Raises PathNotFound for a path that does not exist."""
    left, left_errors = load_fabric(intended, jobs)
    right, right_errors = load_fabric(live, jobs)
    errors = [SideError("intended", p) for p in left_errors]
    errors += [SideError("live", p) for p in right_errors]
    return DriftReport(intended=intended, live=live, devices=compare(left, right, policy, pairs),
                       errors=errors, udp_port=policy.acl.roce_udp_port)
