"""Fix snippets in Cisco NX-OS syntax (two-space indentation).

NX-OS QoS lives in policy-maps bound under ``system qos``: ECN and scheduling in the queuing
policy (the ``profile`` of the intent, see fablint.parsers.nxos), no-drop priorities in the
network-qos policy (named by the intent's ``policies``), PFC mode, pause and MTU on the port.
When no policy of the kind is bound, the fix defines one and binds it.
"""

from __future__ import annotations

from typing import Any

from fablint.findings import FixIntent

NXOS_JUMBO_MTU = 9216
"""Largest MTU on NX-OS; the normal jumbo setting for fabric links and network-qos classes."""
IND = "  "
NEW_QUEUING_POLICY = "ROCE_QUEUING_OUT"
NEW_NETWORK_QOS_POLICY = "ROCE_NETWORK_QOS"
NEW_QOS_POLICY = "ROCE_CLASSIFICATION"


def _size(num_bytes: int) -> str:
    if num_bytes % 1024 == 0:
        return f"{num_bytes // 1024} kbytes"
    return f"{num_bytes} bytes"


def _indent(lines: list[str], depth: int = 1) -> list[str]:
    return [IND * depth + line for line in lines]


def _interface(params: dict[str, Any], lines: list[str]) -> str:
    return "\n".join([f"interface {params['interface']}", *_indent(lines)])


def _bound(params: dict[str, Any], kind: str, direction: str | None = None) -> str | None:
    """Name of the policy of ``kind`` bound on the port (``policies`` of the intent)."""
    for item in params.get("policies") or ():
        p_kind, p_direction, name = item
        if p_kind == kind and (direction is None or p_direction == direction):
            return str(name)
    return None


def _system_bind(kind: str, name: str, direction: str | None) -> list[str]:
    where = f" {direction}" if direction else ""
    return ["system qos", f"{IND}service-policy type {kind}{where} {name}"]


def _queuing_class(params: dict[str, Any]) -> str:
    return params.get("queue_name") or f"c-out-8q-q{params['queue']}"


def _queuing_block(params: dict[str, Any], lines: list[str]) -> str:
    """``lines`` under the queue's class in the queuing policy (a new one, bound, if none)."""
    policy = params.get("profile")
    out = [f"policy-map type queuing {policy or NEW_QUEUING_POLICY}",
           f"{IND}class type queuing {_queuing_class(params)}", *_indent(lines, 2)]
    if not policy:
        out += _system_bind("queuing", NEW_QUEUING_POLICY, "output")
    return "\n".join(out)


def _ecn_line(params: dict[str, Any]) -> str:
    return (f"random-detect minimum-threshold {_size(params['min_bytes'])} maximum-threshold "
            f"{_size(params['max_bytes'])} drop-probability {params['probability']} weight 0 ecn")


def _nq_class(params: dict[str, Any], tc: int) -> str:
    """The network-qos class of qos-group ``tc``: its name in the configuration (user-named
    classes on 3000 series), else the system class ``c-8q-nqN``."""
    names = params.get("class_names") or {}
    return str(names.get(tc) or f"c-8q-nq{tc}")


def _network_qos(params: dict[str, Any], lines_for: dict[int, list[str]]) -> list[str]:
    """Lines under the network-qos class of each qos-group in the bound network-qos policy (a
    new one, bound, if none is)."""
    policy = _bound(params, "network-qos")
    out = [f"policy-map type network-qos {policy or NEW_NETWORK_QOS_POLICY}"]
    for tc, lines in lines_for.items():
        out += [f"{IND}class type network-qos {_nq_class(params, tc)}", *_indent(lines, 2)]
    if not policy:
        out += _system_bind("network-qos", NEW_NETWORK_QOS_POLICY, None)
    return out


def _pfc_enable(p: dict[str, Any]) -> str:
    missing = [prio for prio in p["priorities"] if prio not in (p.get("no_drop") or ())]
    lines: list[str] = []
    if missing:
        new = not _bound(p, "network-qos")
        lines += _network_qos(p, {
            prio: ([f"mtu {NXOS_JUMBO_MTU}"] if new else []) + [f"pause pfc-cos {prio}"]
            for prio in missing
        })
    if p.get("mode") != "on":
        lines.append(_interface(p, ["priority-flow-control mode on"]))
    return "\n".join(lines)


def _dscp_map(p: dict[str, Any]) -> str | None:
    """A class-map matching the DSCPs, set to the qos-group, in the classification policy.

    Classes of a qos policy match in order, so the new class goes before the policy's first
    class (``insert-before``): a DSCP an earlier class catches would otherwise never reach it.
    Without a policy in effect a new one is bound under ``system qos`` (on the port when the
    intent says the port has its own).
    """
    tc = p.get("tc")
    if tc is None:
        return None
    name = f"QOS_GROUP_{tc}"
    policy = p.get("map") or NEW_QOS_POLICY
    dscps = ",".join(str(d) for d in p["dscp"])
    before = f" insert-before {p['before']}" if p.get("map") and p.get("before") else ""
    out = [f"class-map type qos match-any {name}", f"{IND}match dscp {dscps}",
           f"policy-map type qos {policy}", f"{IND}class {name}{before}",
           f"{IND * 2}set qos-group {tc}"]
    if not p.get("map"):
        if p.get("interface") and p.get("port_map"):
            out.append(_interface(p, [f"service-policy type qos input {NEW_QOS_POLICY}"]))
        else:
            out += _system_bind("qos", NEW_QOS_POLICY, "input")
    return "\n".join(out)


def _policy_bind(p: dict[str, Any]) -> str | None:
    """Bind a policy in its slot: on the port, else under ``system qos``; define a minimal one
    first when there is none to bind (classification, no-drop class)."""
    kind, name = p["kind"], p.get("name")
    direction = {"in": "input", "out": "output"}.get(p.get("direction") or "")
    if name is None:
        if kind == "qos":
            return _dscp_map({**p, "map": None, "port_map": bool(p.get("interface"))})
        if kind == "network-qos" and p.get("priorities"):
            return "\n".join(_network_qos({**p, "policies": []}, {
                prio: [f"mtu {p.get('mtu') or NXOS_JUMBO_MTU}", f"pause pfc-cos {prio}"]
                for prio in p["priorities"]}))
        return None  # a queuing policy holds a whole design: ECN001 and QOS004 write one
    line = f"service-policy type {kind}{f' {direction}' if direction else ''} {name}"
    if p.get("interface"):
        return _interface(p, [line])
    return "\n".join(["system qos", IND + line])


def _no_drop_class(p: dict[str, Any]) -> str:
    """Move the no-drop pause to the RoCE qos-group's class, with the lossless priority."""
    lines_for: dict[int, list[str]] = {}
    for tc, prio in p.get("remove") or ():
        lines_for.setdefault(tc, []).append(f"no pause pfc-cos {prio}")
    lines = lines_for.setdefault(p["tc"], [])
    lines.append(f"pause pfc-cos {p['priority']}")
    if p.get("mtu"):
        lines.append(f"mtu {p['mtu']}")
    return "\n".join(_network_qos(p, lines_for))


def render(intent: FixIntent) -> str | None:
    p = intent.params
    action = intent.action
    if action == "pfc-enable":
        return _pfc_enable(p) or None
    if action == "apply-profile":
        return _interface(p, [f"service-policy type queuing output {p['profile']}"])
    if action == "pfc-disable-priority":
        classes = p.get("pause_classes") or {}
        return "\n".join(_network_qos(p, {
            classes.get(prio, prio): [f"no pause pfc-cos {prio}"] for prio in p["priorities"]
        })) if _bound(p, "network-qos") else None
    if action == "pfc-mode-on":
        return _interface(p, ["priority-flow-control mode on"])
    if action == "link-pause-disable":
        return _interface(p, [f"flowcontrol {d} off" for d in p["directions"]])
    if action == "ecn-enable":
        return _queuing_block(p, [_ecn_line(p)])
    if action == "wred-remove":
        then = p.get("then")
        lines = ["no random-detect"]
        if then:
            lines.append(_ecn_line(then))
        return _queuing_block(p, lines)
    if action == "mtu-set":
        return _interface(p, [f"mtu {max(NXOS_JUMBO_MTU, p['min_mtu'])}"])
    if action == "acl-permit-udp":
        kind = "ipv6" if p["family"] == "ipv6" else "ip"
        seq = f"{p['seq']} " if p.get("seq") is not None else ""
        return f"{kind} access-list {p['acl']}\n{IND}{seq}permit udp any any eq {p['port']}"
    if action == "queue-strict":
        return _queuing_block(p, ["priority level 1"])
    if action == "watchdog-enable":
        line = ["priority-flow-control watch-dog-interval on"]
        return "\n".join(_interface({"interface": name}, line)
                         for name in p.get("interfaces") or [p["interface"]])
    if action == "dscp-map":
        return _dscp_map(p)
    if action == "policy-bind":
        return _policy_bind(p)
    if action == "no-drop-class":
        return _no_drop_class(p)
    if action == "class-mtu":
        return "\n".join(_network_qos(p, {p["tc"]: [f"mtu {p['mtu']}"]}))
    # trust-dscp: NX-OS has no trust setting; its classification is the qos policy, which
    # QOS001 fixes with dscp-map.
    return None
