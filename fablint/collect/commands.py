"""What to run on each kind of device, and how fablint reads what comes back.

A platform (``eos``, ``nxos``, ``sonic``, ``ib-host``, ``opensm``) names the command sets
collected by default and the netmiko device type used to talk to it. Each command has a file
name in the snapshot, a ``kind`` (what the output is) and the input formats that read it, so
that ``fablint lint SNAPSHOT`` parses every output with the right parser without guessing.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

PLATFORM_ALIASES: dict[str, str] = {
    # Arista EOS (fablint, netmiko, Ansible and NAPALM spellings)
    "eos": "eos", "arista_eos": "eos", "arista": "eos", "arista.eos.eos": "eos",
    "arista.eos": "eos",
    # Cisco NX-OS
    "nxos": "nxos", "nx-os": "nxos", "cisco_nxos": "nxos", "nxos_ssh": "nxos",
    "cisco.nxos.nxos": "nxos", "cisco.nxos": "nxos", "nexus": "nxos",
    # SONiC (community SONiC logs in to bash, where `show` is a command)
    "sonic": "sonic", "sonic_ssh": "sonic", "edgecore_sonic": "sonic",
    "dellemc.enterprise_sonic.sonic": "sonic", "enterprise_sonic": "sonic",
    # Linux hosts with InfiniBand or RoCE adapters
    "ib-host": "ib-host", "ib_host": "ib-host", "linux-ib": "ib-host", "infiniband": "ib-host",
    "ib": "ib-host", "linux": "ib-host", "host": "ib-host",
    # OpenSM subnet manager hosts
    "opensm": "opensm", "subnet-manager": "opensm", "sm": "opensm",
}
"""Platform names as inventories spell them -> fablint platform."""

DEVICE_TYPES: dict[str, str] = {
    "eos": "arista_eos",
    "nxos": "cisco_nxos",
    "sonic": "linux",
    "ib-host": "linux",
    "opensm": "linux",
}
"""fablint platform -> netmiko device type (SONiC's `show` commands run in its bash shell)."""

COMMAND_SETS = ("config", "lldp", "ib-discovery", "host-qos", "opensm")
DEFAULT_SETS: dict[str, tuple[str, ...]] = {
    "eos": ("config", "lldp"),
    "nxos": ("config", "lldp"),
    "sonic": ("config", "lldp"),
    "ib-host": ("ib-discovery",),
    "opensm": ("opensm",),
}
"""Command sets collected per platform unless the inventory says otherwise; ``host-qos``
(mlnx_qos and the ECN sysfs tree of every RDMA interface) is opt-in."""

DEFAULT_OPENSM_CONF = "/etc/opensm/opensm.conf"
DEFAULT_PARTITIONS_CONF = "/etc/opensm/partitions.conf"

RDMA_INTERFACES_COMMAND = (
    'for d in /sys/class/infiniband/*/device/net/*; do [ -e "$d" ] && echo "${d##*/}"; done'
)
"""Lists the network interfaces of the RDMA adapters, one per line (used for ``host-qos``)."""

_IFNAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")
_REMOTE_PATH = re.compile(r"^/[A-Za-z0-9._/+-]+$")


@dataclass(frozen=True)
class Command:
    """One command run on a device and where its output goes."""

    command: str
    name: str
    """File name in the device's snapshot folder, without ``.txt``."""
    kind: str
    """What the output is: ``running-config``, ``lldp-neighbors``, ``ibnetdiscover`` …"""
    formats: tuple[str, ...] = ()
    """fablint input formats (parser ids) that read this output, most specific first."""

    @property
    def file(self) -> str:
        return f"{self.name}.txt"


def file_name(command: str) -> str:
    """A file name for a command's output: ``show running-config`` -> ``show_running-config``.

    Only letters, digits, ``.``, ``-`` and ``_`` survive, so no command can name a path.
    """
    name = re.sub(r"[^A-Za-z0-9.-]+", "_", command.strip()).strip("._")
    return name[:100] or "output"


def canonical_platform(name: str) -> str | None:
    return PLATFORM_ALIASES.get(name.strip().lower())


def valid_ifname(name: str) -> bool:
    """A Linux interface name (what device output may claim must look like this)."""
    return bool(_IFNAME.match(name)) and name not in (".", "..")


def valid_remote_path(path: str) -> bool:
    return bool(_REMOTE_PATH.match(path)) and "/../" not in f"{path}/"


def _switch_commands(platform: str, sets: tuple[str, ...]) -> list[Command]:
    out: list[Command] = []
    if platform in ("eos", "nxos"):
        if "config" in sets:
            out.append(Command("show running-config", "show_running-config", "running-config",
                               (platform,)))
        if "lldp" in sets:
            out.append(Command("show lldp neighbors detail", "show_lldp_neighbors_detail",
                               "lldp-neighbors-detail", ("lldp",)))
    elif platform == "sonic":
        if "config" in sets:
            # `show runningconfiguration all` prints the running CONFIG_DB as JSON.
            out.append(Command("show runningconfiguration all", "show_runningconfiguration_all",
                               "running-config", ("sonic",)))
        if "lldp" in sets:
            out.append(Command("show lldp neighbors", "show_lldp_neighbors", "lldp-neighbors",
                               ("sonic-lldp",)))
    return out


def commands_for(
    platform: str,
    sets: tuple[str, ...],
    *,
    opensm_conf: str = DEFAULT_OPENSM_CONF,
    partitions_conf: str = DEFAULT_PARTITIONS_CONF,
) -> list[Command]:
    """The fixed commands of a device (``host-qos`` adds per-interface ones at run time)."""
    out = _switch_commands(platform, sets)
    if "ib-discovery" in sets:
        out.append(Command("ibnetdiscover", "ibnetdiscover", "ibnetdiscover",
                           ("ibnetdiscover",)))
        out.append(Command("iblinkinfo", "iblinkinfo", "iblinkinfo", ("iblinkinfo",)))
    if "opensm" in sets:
        out.append(Command(f"cat {shlex.quote(opensm_conf)}", "opensm.conf", "opensm-conf",
                           ("opensm",)))
        out.append(Command(f"cat {shlex.quote(partitions_conf)}", "partitions.conf",
                           "partitions-conf", ("opensm-partitions",)))
    return out


def host_qos_commands(interface: str) -> list[Command]:
    """mlnx_qos and the ECN sysfs tree of one RDMA interface (``valid_ifname`` checked)."""
    if not valid_ifname(interface):
        raise ValueError(f"not an interface name: {interface!r}")
    return [
        Command(f"mlnx_qos -i {interface}", f"mlnx_qos_{interface}", "mlnx-qos",
                ("mlnx_qos",)),
        Command(f"grep -r . /sys/class/net/{interface}/ecn/", f"ecn_sysfs_{interface}",
                "ecn-sysfs", ("sysfs_ecn",)),
    ]


def parse_interface_list(output: str) -> tuple[list[str], list[str]]:
    """Interface names from the RDMA interface listing: (valid, rejected)."""
    valid: list[str] = []
    rejected: list[str] = []
    for line in output.splitlines():
        name = line.strip()
        if not name:
            continue
        if valid_ifname(name):
            if name not in valid:
                valid.append(name)
        else:
            rejected.append(name)
    return valid, rejected
