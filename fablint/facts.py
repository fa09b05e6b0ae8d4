"""What a device does for RoCE, as plain comparable facts.

Two configurations of the same intent in different vendors' syntax (or the intended and the live
configuration of one switch) should give the same facts. The equivalence tests compare EOS, NX-OS
and SONiC renderings of one switch with this, and drift detection reuses it. Only the model is
read; vendor differences that do not change behaviour are normalised away (an IP MTU of 9214,
9216 or 9100 is all "jumbo").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fablint.model import Aqm, Device, Interface, LinkPause, Located, SourceRef, Threshold

JUMBO_MTU = 9000
"""IP MTU from which a port counts as jumbo for comparison (hosts run 9000)."""

Facts = dict[str, Any]


def tc_for_dscp(device: Device, dscp: int, iface: Interface | None = None) -> int | None:
    """Traffic class of ``dscp`` on ``iface`` (or device-wide), defaults resolved."""
    return device.maps_for(iface).tc_for_dscp(dscp)


def _mtu_class(mtu: int | None) -> str | int | None:
    if mtu is None:
        return None
    return "jumbo" if mtu >= JUMBO_MTU else mtu


def _aqm(aqm: Any) -> Facts | None:
    if aqm is None:
        return None
    low, high = aqm.min_threshold, aqm.max_threshold
    return {
        "min_bytes": low.bytes if low is not None else None,
        "max_bytes": high.bytes if high is not None else None,
        "probability": aqm.probability,
    }


def port_facts(
    device: Device, iface: Interface, dscps: Iterable[int], priorities: Iterable[int]
) -> Facts:
    """The RoCE-relevant behaviour of one port for the given DSCPs and priorities."""
    pfc = iface.qos.pfc
    queues: Facts = {}
    for prio in sorted(priorities):
        queue_id = device.queue_for_priority(prio, iface)
        queue = iface.qos.queues.get(queue_id)
        queues[str(prio)] = {
            "queue": queue_id,
            "ecn": _aqm(queue.ecn) if queue else None,
            "wred_drop": queue is not None and queue.wred is not None,
            "scheduling": queue.scheduling if queue else None,
        }
    return {
        "dscp_to_tc": {str(d): tc_for_dscp(device, d, iface) for d in sorted(dscps)},
        "admin_up": iface.admin_up,
        "routed": iface.routed,
        "mtu": _mtu_class(iface.mtu),
        "trust": iface.qos.trust,
        "pfc_enabled": pfc.enabled,
        "pfc_priorities": sorted(pfc.active_priorities),
        "watchdog": pfc.watchdog.enabled,
        "link_pause": iface.qos.pause.enabled,
        "priorities": queues,
    }


def device_facts(
    device: Device,
    *,
    ports: Iterable[str],
    dscps: Iterable[int],
    priorities: Iterable[int],
) -> Facts:
    """Facts of each named port of ``device``, in the order given, so that devices whose port
    names differ by vendor (``Ethernet1/1``, ``Ethernet0``) compare position by position."""
    prios, codes = sorted(priorities), sorted(dscps)
    out_ports = []
    for name in ports:
        iface = device.interfaces.get(name)
        out_ports.append(None if iface is None else port_facts(device, iface, codes, prios))
    return {"ports": out_ports}


@dataclass(frozen=True)
class Difference:
    """One place where two fact trees differ."""

    path: str
    left: Any
    right: Any

    def __str__(self) -> str:
        return f"{self.path}: {self.left!r} != {self.right!r}"


def differences(left: Any, right: Any, path: str = "") -> list[Difference]:
    """Every place where two fact trees differ; dicts and equal-length lists are walked."""
    if isinstance(left, dict) and isinstance(right, dict):
        out: list[Difference] = []
        for key in sorted(set(left) | set(right), key=str):
            out += differences(left.get(key), right.get(key),
                               f"{path}.{key}" if path else str(key))
        return out
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        out = []
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            out += differences(a, b, f"{path}[{index}]")
        return out
    return [] if left == right else [Difference(path, left, right)]


def diff(left: Any, right: Any, path: str = "") -> list[str]:
    """Every place where two fact trees differ, as ``path: left != right``."""
    return [str(d) for d in differences(left, right, path)]


# -- drift: the same device twice (intended and live), each fact with its source line ---------

Sourced = tuple[Any, SourceRef | None]
"""A fact's value and the line that set it (None: a default, or nowhere to point)."""


def _src(obj: Located | None, *fields: str) -> SourceRef | None:
    return obj.where(*fields) if obj is not None else None


def ecn_fact(aqm: Aqm | None) -> Facts | None:
    """ECN or WRED settings in comparable form: bytes where the unit converts, else the
    value and unit as written."""
    if aqm is None:
        return None

    def threshold(t: Threshold | None) -> Any:
        if t is None:
            return None
        return t.bytes if t.bytes is not None else f"{t}"

    return {"min": threshold(aqm.min_threshold), "max": threshold(aqm.max_threshold),
            "probability": aqm.probability}


def _pause(pause: LinkPause) -> str:
    return "+".join(n for n, on in (("rx", pause.rx), ("tx", pause.tx)) if on) or "off"


def acl_effect(device: Device, iface: Interface, direction: str, udp_port: int) -> Sourced:
    """What the ACLs bound to a port in one direction do to UDP traffic to ``udp_port``:
    ``permit``, ``deny``, ``partial-deny``, ``unknown-acl`` (bound but not defined) or None
    (no ACL). Which ACL does it does not matter; what it does to RoCE does."""
    verdicts: list[str] = []
    where: SourceRef | None = None
    for binding in iface.acls:
        if binding.direction != direction or binding.family == "mac":
            continue
        where = where or binding.src
        acl = device.acls.get(binding.name)
        if acl is None:
            verdicts.append("unknown-acl")
            continue
        verdict = acl.udp_dport_verdict(udp_port)
        verdicts.append(verdict.action)
        if verdict.action != "permit" and verdict.entry is not None and verdict.entry.src:
            where = verdict.entry.src
    if not verdicts:
        return None, None
    for worst in ("deny", "partial-deny", "unknown-acl"):
        if worst in verdicts:
            return worst, where
    return "permit", where


def interface_drift_facts(
    device: Device,
    iface: Interface,
    *,
    dscps: Iterable[int],
    priorities: Iterable[int],
    udp_port: int,
) -> dict[str, Sourced]:
    """The RoCE-relevant behaviour of one port as flat ``fact -> (value, source)``.

    Values are what is in effect (defaults resolved), so the same behaviour written two ways
    gives the same facts and only a change of behaviour shows up as drift.
    """
    qos, pfc = iface.qos, iface.qos.pfc
    maps = device.maps_for(iface)
    out: dict[str, Sourced] = {
        "admin_up": (iface.admin_up, _src(iface, "admin_up")),
        "routed": (iface.routed, _src(iface, "routed")),
        "mtu": (iface.mtu, _src(iface, "mtu")),
        "port_channel": (iface.port_channel, _src(iface, "port_channel")),
        "trust": (qos.trust, _src(qos, "trust") or iface.src),
        "pfc": (pfc.enabled, pfc.disabled_by or _src(pfc, "enabled", "mode") or iface.src),
        # configured no-drop priorities: whether PFC is in effect at all is the "pfc" fact
        "pfc_priorities": (sorted(pfc.no_drop), _src(pfc, "no_drop") or iface.src),
        "watchdog": (pfc.watchdog.enabled, _src(pfc.watchdog, "enabled") or iface.src),
        "link_pause": (_pause(qos.pause), _src(qos.pause, "rx", "tx") or iface.src),
        "acl_in_roce": acl_effect(device, iface, "in", udp_port),
        "acl_out_roce": acl_effect(device, iface, "out", udp_port),
    }
    for dscp in sorted(dscps):
        out[f"dscp[{dscp}].tc"] = (maps.tc_for_dscp(dscp),
                                   _src(maps, f"dscp_to_tc[{dscp}]") or maps.src)
    for prio in sorted(priorities):
        queue_id = device.queue_for_priority(prio, iface)
        queue = qos.queues.get(queue_id)
        out[f"priority[{prio}].queue"] = (queue_id, maps.src)
        out[f"priority[{prio}].ecn"] = (ecn_fact(queue.ecn) if queue else None,
                                        _src(queue.ecn if queue else None) or _src(queue))
        out[f"priority[{prio}].wred_drop"] = (queue is not None and queue.wred is not None,
                                              _src(queue.wred if queue else None) or _src(queue))
        out[f"priority[{prio}].scheduling"] = (queue.scheduling if queue else None,
                                               _src(queue, "scheduling"))
    return out


def device_drift_facts(device: Device) -> dict[str, Sourced]:
    """Device-wide facts: the DSCP -> traffic class map every port without its own uses
    (all 64 code points, defaults resolved) and the global PFC switch."""
    qos = device.qos
    out: dict[str, Sourced] = {
        "vendor": (device.vendor, device.src),
        "pfc_disabled_globally": (qos.pfc_disabled_globally,
                                  _src(qos, "pfc_disabled_globally")),
    }
    for dscp in range(64):
        out[f"dscp[{dscp}].tc"] = (qos.tc_for_dscp(dscp),
                                   _src(qos, f"dscp_to_tc[{dscp}]") or qos.src)
    return out
