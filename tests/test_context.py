"""Context: the shared views rules use, and the grouping that lets them judge each QoS settings
object once."""

from __future__ import annotations

from fablint.checks.base import Context
from fablint.model import Device, Fabric, Interface, QosSettings
from fablint.profiles import load_policy


def _context(device: Device) -> Context:
    policy = load_policy(overrides={"ports": {"switched": True}})
    return Context(fabric=Fabric(devices={device.name: device}), policy=policy)


def test_ports_sharing_qos_settings_are_judged_once_per_routed_kind() -> None:
    shared = QosSettings()
    device = Device(name="leaf1", interfaces={
        name: Interface(name=name, routed=routed, qos=shared)
        for name, routed in (("Ethernet1", False), ("Ethernet2", True), ("Ethernet3", False),
                             ("Ethernet4", True))
    })
    ctx = _context(device)
    assert [[i.name for i in group] for group in ctx.qos_groups(device)] == [
        ["Ethernet1", "Ethernet3"], ["Ethernet2", "Ethernet4"]]
    judged: list[str] = []

    def routed_only(port: Interface) -> str | None:
        judged.append(port.name)
        return "routed" if port.routed else None

    found = ctx.ports_with(device, routed_only)
    assert judged == ["Ethernet1", "Ethernet2"], "once per group, on its first port"
    assert [(i.name, v) for i, v in found] == [("Ethernet2", "routed"), ("Ethernet4", "routed")]


def test_ports_with_keeps_port_order_across_groups() -> None:
    first, second = QosSettings(), QosSettings()
    device = Device(name="leaf1", interfaces={
        name: Interface(name=name, routed=True, qos=qos)
        for name, qos in (("Ethernet1", first), ("Ethernet2", second), ("Ethernet3", first))
    })
    found = _context(device).ports_with(device, lambda port: port.name)
    assert [(i.name, v) for i, v in found] == [
        ("Ethernet1", "Ethernet1"), ("Ethernet2", "Ethernet2"), ("Ethernet3", "Ethernet1")]
