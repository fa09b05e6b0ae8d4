"""What a device does for RoCE, as plain comparable facts.

Two configurations of the same intent in different vendors' syntax (or the intended and the live
configuration of one switch) should give the same facts. The equivalence tests compare EOS, NX-OS
and SONiC renderings of one switch with this, and drift detection reuses it. Only the model is
read; vendor differences that do not change behaviour are normalised away (an IP MTU of 9214,
9216 or 9100 is all "jumbo").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fablint.model import Device, Interface

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


def diff(left: Any, right: Any, path: str = "") -> list[str]:
    """Every place where two fact trees differ, as ``path: left != right``."""
    if isinstance(left, dict) and isinstance(right, dict):
        out: list[str] = []
        for key in sorted(set(left) | set(right), key=str):
            out += diff(left.get(key), right.get(key), f"{path}.{key}" if path else str(key))
        return out
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        out = []
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            out += diff(a, b, f"{path}[{index}]")
        return out
    return [] if left == right else [f"{path}: {left!r} != {right!r}"]
