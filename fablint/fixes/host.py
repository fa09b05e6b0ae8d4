"""Fixes for GPU host NICs, as the shell commands that apply them.

NVIDIA/Mellanox NICs (``nic_vendor`` ``nvidia``, which every ``mlnx_qos``, sysfs or mlxconfig
capture is) get ``mlnx_qos``, ``cma_roce_tos`` and sysfs writes (MLNX_OFED / mlnx-tools). Other
NICs only get what is the same everywhere (``ip link``); their QoS tools differ by vendor and
version, so no command is guessed. Those commands act at once and do not survive a reboot: they
show what to change, the host's provisioning should carry it.

When the value being fixed came from the adapter's persistent firmware configuration (an
``mlxconfig`` query: the fix parameters carry ``firmware``, ``HostNic.firmware`` as a dict),
an ``mlxconfig -d DEVICE set KEY_P1=VALUE`` line follows, which makes the change survive a
reboot (it takes effect at the next boot or firmware reset). A NIC known only from mlxconfig
has no netdev name: its runtime commands find the netdev from the RDMA device
(``ibdev2netdev``) or the PCI address, and none are printed when neither is known.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from fablint.findings import FixIntent

ECN_SYSFS = "/sys/class/net/{interface}/ecn"
NP_PARAMETERS = frozenset({"min_time_between_cnps", "cnp_dscp", "cnp_802p_prio"})
"""DCQCN parameters of the notification point; the others belong to the reaction point."""
PERSISTENT = "  # persistent: from the next boot or firmware reset (mlxfwreset)"
_RDMA_DEVICE = re.compile(r"^(?:mlx\d+_(?:bond_)?\d+|roce[a-z]\w*|bnxt_re(?:_bond)?\d+)$")
_BDF = re.compile(r"^(?:(?P<domain>[0-9a-fA-F]{4,}):)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")


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


def _netdev(params: dict[str, Any]) -> tuple[list[str], str | None]:
    """The NIC's netdev for runtime commands: its name, or (for a NIC that only an mlxconfig
    query names, by RDMA device or PCI address) a shell line that looks it up and ``$IF``;
    None when it cannot be found from what the fix knows."""
    interface = str(params.get("interface") or "")
    rdma = params.get("rdma_device")
    firmware = params.get("firmware") or {}
    named_by_device = (interface in (rdma, firmware.get("device")) or "/" in interface
                       or bool(_RDMA_DEVICE.match(interface) or _BDF.match(interface)))
    if not named_by_device:
        return [], interface
    if rdma:
        return [f"IF=$(ibdev2netdev | awk '$1 == \"{rdma}\" {{print $5}}')"], "$IF"
    bdf = _BDF.match(interface)
    if bdf is not None:
        address = interface if bdf.group("domain") else f"0000:{interface}"
        return [f"IF=$(ls /sys/bus/pci/devices/{address}/net)"], "$IF"
    return [], None


def _firmware(params: dict[str, Any], settings: dict[str, object], fields: list[str]) -> str | None:
    """``mlxconfig -d DEV set KEY_Pn=VALUE …`` for the NVConfig ``settings`` (name without the
    port suffix -> value), when one of ``fields`` (``field_src`` keys) came from the firmware."""
    firmware = params.get("firmware")
    if not firmware or not settings or not set(fields) & set(firmware.get("fields") or ()):
        return None
    ports = firmware.get("ports") or [1]
    assignments = [f"{name}_P{port}={value}" for name, value in settings.items() for port in ports]
    return f"mlxconfig -d {shlex.quote(str(firmware['device']))} set {' '.join(assignments)}" \
        f"{PERSISTENT}"


def _persistent(action: str, p: dict[str, Any]) -> str | None:
    """The firmware (NVConfig) form of a fix, where the firmware holds the setting."""
    if action == "nic-trust-dscp":
        return _firmware(p, {"QOS_TRUST_STATE": "TRUST_DSCP"}, ["trust"])
    if action == "nic-cnp":
        settings: dict[str, object] = {}
        fields = []
        if p.get("cnp_dscp") is not None:
            settings["CNP_DSCP"], fields = p["cnp_dscp"], [*fields, "cnp_dscp"]
        if p.get("cnp_priority") is not None:
            settings["CNP_802P_PRIO"], fields = p["cnp_priority"], [*fields, "cnp_priority"]
        return _firmware(p, settings, fields)
    if action == "nic-dcqcn-enable":
        mask = (p.get("firmware") or {}).get("prio_mask")
        prios = sorted({*p.get("np", ()), *p.get("rp", ())})
        if mask is None or not prios:
            return None
        # One mask drives both DCQCN roles: setting a priority's bit enables both.
        for prio in prios:
            mask |= 1 << prio
        fields = [f"{point}[{prio}]" for prio in prios for point in ("ecn_np", "ecn_rp")]
        return _firmware(p, {"ROCE_CC_PRIO_MASK": mask}, fields)
    if action == "nic-dcqcn-params":
        firmware = set((p.get("firmware") or {}).get("fields") or ())
        chosen = {name.upper(): value for name, value in p["params"].items()
                  if f"dcqcn[{name}]" in firmware}
        return _firmware(p, chosen, [f"dcqcn[{name.lower()}]" for name in chosen])
    return None


def _runtime(action: str, p: dict[str, Any], interface: str) -> list[str]:
    ecn = ECN_SYSFS.format(interface=interface)
    if action == "nic-trust-dscp":
        return [f"mlnx_qos -i {interface} --trust dscp"]
    if action == "nic-pfc":
        vector = ",".join("1" if prio in p["priorities"] else "0" for prio in range(8))
        return [f"mlnx_qos -i {interface} --pfc {vector}"]
    if action == "nic-dscp-map":
        return [f"mlnx_qos -i {interface} --dscp2prio set,{p['dscp']},{p['priority']}"]
    if action == "nic-cnp":
        lines = []
        if p.get("cnp_dscp") is not None:
            lines.append(_echo(p["cnp_dscp"], f"{ecn}/roce_np/cnp_dscp"))
        if p.get("cnp_priority") is not None:
            lines.append(_echo(p["cnp_priority"], f"{ecn}/roce_np/cnp_802p_prio"))
        return lines
    if action == "nic-dcqcn-enable":
        lines = [_echo(1, f"{ecn}/roce_np/enable/{prio}") for prio in p.get("np", ())]
        lines += [_echo(1, f"{ecn}/roce_rp/enable/{prio}") for prio in p.get("rp", ())]
        return lines
    if action == "nic-dcqcn-params":
        lines = []
        for name, value in p["params"].items():
            point = "roce_np" if name in NP_PARAMETERS else "roce_rp"
            lines.append(_echo(value, f"{ecn}/{point}/{name}"))
        return lines
    return []


def render(intent: FixIntent) -> str | None:
    p = intent.params
    action = intent.action
    if action == "nic-mtu":
        return f"ip link set dev {p.get('interface')} mtu {p['mtu']}"
    if not _nvidia(p):
        return None
    if action == "nic-roce-tos":
        return f"cma_roce_tos -d {_rdma_device(p)} -t {p['tos']}"
    lookup, interface = _netdev(p)
    runtime = _runtime(action, p, interface) if interface is not None else []
    lines = [*lookup, *runtime] if runtime else []
    persistent = _persistent(action, p)
    if persistent is not None:
        lines.append(persistent)
    return "\n".join(lines) or None
