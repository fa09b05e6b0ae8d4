"""Fixes for GPU host NICs, as the shell commands that apply them.

NVIDIA/Mellanox NICs (``nic_vendor`` ``nvidia``, which every ``mlnx_qos`` or sysfs capture
is) get ``mlnx_qos``, ``cma_roce_tos`` and sysfs writes (MLNX_OFED / mlnx-tools). Other NICs
only get what is the same everywhere (``ip link``); their QoS tools differ by vendor and version,
so no command is guessed. The commands act at once and do not survive a reboot: they show what
to change, the host's provisioning should carry it.
"""

from __future__ import annotations

from typing import Any

from fablint.findings import FixIntent

ECN_SYSFS = "/sys/class/net/{interface}/ecn"
NP_PARAMETERS = frozenset({"min_time_between_cnps", "cnp_dscp", "cnp_802p_prio"})
"""DCQCN parameters of the notification point; the others belong to the reaction point."""


def _nvidia(params: dict[str, Any]) -> bool:
    return params.get("nic_vendor") == "nvidia"


def _rdma_device(params: dict[str, Any]) -> str:
    device = params.get("rdma_device")
    if device:
        return str(device)
    # ibdev2netdev prints "mlx5_0 port 1 ==> ens1f0 (Up)".
    return f"\"$(ibdev2netdev | awk '$5 == \"{params['interface']}\" {{print $1}}')\""


def _echo(value: object, path: str) -> str:
    return f"echo {value} > {path}"


def render(intent: FixIntent) -> str | None:
    p = intent.params
    action = intent.action
    interface = p.get("interface")
    if action == "nic-mtu":
        return f"ip link set dev {interface} mtu {p['mtu']}"
    if not _nvidia(p):
        return None
    ecn = ECN_SYSFS.format(interface=interface)
    if action == "nic-trust-dscp":
        return f"mlnx_qos -i {interface} --trust dscp"
    if action == "nic-pfc":
        vector = ",".join("1" if prio in p["priorities"] else "0" for prio in range(8))
        return f"mlnx_qos -i {interface} --pfc {vector}"
    if action == "nic-dscp-map":
        return f"mlnx_qos -i {interface} --dscp2prio set,{p['dscp']},{p['priority']}"
    if action == "nic-roce-tos":
        return f"cma_roce_tos -d {_rdma_device(p)} -t {p['tos']}"
    if action == "nic-cnp":
        lines = []
        if p.get("cnp_dscp") is not None:
            lines.append(_echo(p["cnp_dscp"], f"{ecn}/roce_np/cnp_dscp"))
        if p.get("cnp_priority") is not None:
            lines.append(_echo(p["cnp_priority"], f"{ecn}/roce_np/cnp_802p_prio"))
        return "\n".join(lines) or None
    if action == "nic-dcqcn-enable":
        lines = [_echo(1, f"{ecn}/roce_np/enable/{prio}") for prio in p.get("np", ())]
        lines += [_echo(1, f"{ecn}/roce_rp/enable/{prio}") for prio in p.get("rp", ())]
        return "\n".join(lines) or None
    if action == "nic-dcqcn-params":
        lines = []
        for name, value in p["params"].items():
            point = "roce_np" if name in NP_PARAMETERS else "roce_rp"
            lines.append(_echo(value, f"{ecn}/{point}/{name}"))
        return "\n".join(lines) or None
    return None
