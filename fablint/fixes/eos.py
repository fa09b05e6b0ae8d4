"""Fix snippets in Arista EOS syntax."""

from __future__ import annotations

from typing import Any

from fablint.findings import FixIntent

EOS_JUMBO_MTU = 9214
"""Largest IP MTU on EOS; the normal jumbo setting for fabric links."""
IND = "   "


def _size(num_bytes: int) -> str:
    if num_bytes % 1024 == 0:
        return f"{num_bytes // 1024} kbytes"
    return f"{num_bytes} bytes"


def _block(params: dict[str, Any], lines: list[str]) -> str:
    """Wrap ``lines`` in the QoS profile or interface they belong to."""
    header = (
        f"qos profile {params['profile']}" if params.get("profile")
        else f"interface {params['interface']}"
    )
    return "\n".join([header, *(IND + line for line in lines)])


def _ecn_lines(params: dict[str, Any]) -> list[str]:
    return [
        f"tx-queue {params['queue']}",
        IND + "random-detect ecn minimum-threshold {} maximum-threshold {} "
        "max-mark-probability {}".format(
            _size(params["min_bytes"]), _size(params["max_bytes"]), params["probability"]
        ),
    ]


def render(intent: FixIntent) -> str | None:
    p = intent.params
    action = intent.action
    if action == "pfc-enable":
        lines = ["priority-flow-control on"]
        lines += [f"priority-flow-control priority {prio} no-drop" for prio in p["priorities"]]
        text = _block(p, lines)
        return "no priority-flow-control all off\n" + text if p.get("global_off") else text
    if action == "apply-profile":
        return f"interface {p['interface']}\n{IND}service-profile {p['profile']}"
    if action == "pfc-disable-priority":
        lines = [f"no priority-flow-control priority {prio}" for prio in p["priorities"]]
        if p.get("profile") or not p.get("interfaces"):
            return _block(p, lines)
        return "\n".join(_block({"interface": name}, lines) for name in p["interfaces"])
    if action == "link-pause-disable":
        return _block(p, [f"flowcontrol {d} off" for d in p["directions"]])
    if action == "ecn-enable":
        if not p.get("profile") and not p.get("interface"):
            return None
        return _block(p, _ecn_lines(p))
    if action == "wred-remove":
        lines = [f"tx-queue {p['queue']}", IND + "no random-detect drop"]
        if p.get("then"):
            lines.append(_ecn_lines(p["then"])[1])
        return _block(p, lines)
    if action == "mtu-set":
        return _block(p, [f"mtu {max(EOS_JUMBO_MTU, p['min_mtu'])}"])
    if action == "acl-permit-udp":
        kind = "ipv6" if p["family"] == "ipv6" else "ip"
        seq = f"{p['seq']} " if p.get("seq") is not None else ""
        if p.get("standard"):
            return None  # a standard ACL cannot match on ports; it needs replacing
        return f"{kind} access-list {p['acl']}\n{IND}{seq}permit udp any any eq {p['port']}"
    if action == "dscp-map":
        if p.get("tc") is None:
            return None
        dscps = " ".join(str(d) for d in p["dscp"])
        return f"qos map dscp {dscps} to traffic-class {p['tc']}"
    if action == "trust-dscp":
        return _block(p, ["qos trust dscp"])
    if action == "queue-strict":
        lines = [f"tx-queue {p['queue']}", IND + "priority strict"]
        names = [None] if p.get("profile") else (p.get("interfaces") or [p["interface"]])
        return "\n".join(_block({**p, "interface": n} if n else p, lines) for n in names)
    if action == "watchdog-settings":
        return _watchdog_settings(p)
    if action == "watchdog-enable":
        names = [None] if p.get("profile") else (p.get("interfaces") or [p["interface"]])
        text = "\n".join(_block({**p, "interface": name} if name else p,
                                 ["priority-flow-control pause watchdog"]) for name in names)
        if not p.get("has_timeout"):
            seconds = p["timeout_ms"] / 1000
            text = f"priority-flow-control pause watchdog default timeout {seconds:g}\n" + text
        return text
    return None


_WATCHDOG_DEFAULTS = {"timeout_ms": "timeout", "polling_ms": "polling-interval",
                      "recovery_ms": "recovery-time"}


def _watchdog_settings(p: dict[str, Any]) -> str | None:
    """Device-wide timers and actions; a port's action. A port timer needs all three values
    on one line (``port timer timeout … polling-interval … recovery-time …``), which the
    finding does not carry, so port timers get no snippet."""
    settings = p["settings"]
    lines: list[str] = []
    if p.get("interface") is None:
        lines += [f"priority-flow-control pause watchdog default {_WATCHDOG_DEFAULTS[key]} "
                  f"{settings[key] / 1000:g}" for key in _WATCHDOG_DEFAULTS if key in settings]
        if "action" in settings:
            lines.append(f"priority-flow-control pause watchdog action {settings['action']}")
        return "\n".join(lines) or None
    if set(settings) != {"action"}:
        return None
    return (f"interface {p['interface']}\n{IND}priority-flow-control pause watchdog port action "
            f"{settings['action']}")
