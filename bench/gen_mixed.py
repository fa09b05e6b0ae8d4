"""A mixed-vendor AI fabric in one folder: EOS, NX-OS and SONiC switches, their LLDP tables and an
InfiniBand back-end as one ibnetdiscover dump (issue 17, item 2).

The Ethernet fabric is bench/gen_eos.py's: pods of up to 64 switches, one spine per eight, a leaf
with 48 GPU ports, two storage port-channels and one uplink per spine of its pod. Switch i runs
EOS, NX-OS or SONiC by ``i % 3``; spines, whose 56 downlinks a 32-port SONiC box does not have,
run EOS instead of SONiC, so SONiC is a little under a third. EOS configs are gen_eos's full
ones; NX-OS configs carry the same ports in NX-OS syntax with a Nexus RoCE QoS policy; SONiC
leaves are copies of the corpus's real s6000 config_db.json (32 ports: 24 to GPUs, 8 uplinks)
with their own hostname, MAC, DEVICE_NEIGHBOR and port descriptions. Every switch has the LLDP
table its NOS prints (EOS and NX-OS ``show lldp neighbors``, SONiC ``show lldp table``); SONiC
advertises a port's alias (``fortyGigE0/96``), so that is what its peers see. The InfiniBand
fabric (bench/gen_ib.py) is a two-tier fat tree with ``hcas`` HCAs, 32 per leaf, 16 spines.

    python bench/gen_mixed.py --switches 1024 --out bench/out/mixed-1024 [--hcas 4096]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
from pathlib import Path

import gen_eos  # bench/ is on sys.path when this file is run as a script
import gen_ib
from gen_eos import GPU_PORTS, PORTS, SPARE_PORTS, STORAGE_LAGS, UPLINK_BASE, Switch
from mem_big_config import NXOS_QOS

SONIC_TEMPLATE = Path("/work/shared/corpus/sonic/s6000-real-config_db.json")
SONIC_PORTS = 32
SONIC_UPLINK_BASE = 24
"""s6000 port k (``Ethernet{4k}``, alias ``fortyGigE0/{4k}``): GPUs below 24, spines from 24."""
VENDORS = ("eos", "nxos", "sonic")


def vendor_of(index: int, sw: Switch) -> str:
    """The NOS of the ``index``-th switch of gen_eos.topology()."""
    vendor = VENDORS[index % 3]
    return "eos" if vendor == "sonic" and sw.role == "spine" else vendor


def port_name(vendor: str, port: int) -> str:
    """The switch's own name of front-panel port ``port`` (1-based)."""
    if vendor == "eos":
        return f"Ethernet{port}/1"
    if vendor == "nxos":
        return f"Ethernet1/{port}"
    return f"Ethernet{4 * (port - 1)}"


def advertised(vendor: str, port: int) -> str:
    """The port ID the switch sends over LLDP (SONiC: the alias)."""
    return f"fortyGigE0/{4 * (port - 1)}" if vendor == "sonic" else port_name(vendor, port)


def gpu_host(sw: Switch, port: int) -> tuple[str, str]:
    """The GPU server and NIC on leaf GPU port ``port``, as gen_eos describes it."""
    gpu = (sw.number - 1) * GPU_PORTS // 8 + (port - 1) // 8 + 1
    return f"dgx-h100-pod{sw.pod}-{gpu:05d}", f"mlx5_{(port - 1) % 8}"


def uplink_port(vendor: str, spine_local: int) -> int:
    """The leaf's port towards the pod's ``spine_local``-th spine."""
    return (SONIC_UPLINK_BASE + 1 if vendor == "sonic" else UPLINK_BASE) + spine_local


def neighbours(switches: list[Switch], vendors: dict[str, str]
               ) -> dict[str, list[tuple[int, str, str]]]:
    """Each switch's cabled ports: (own port number, peer device, peer's advertised port)."""
    by_name = {sw.name: sw for sw in switches}
    spines_of_pod: dict[int, list[Switch]] = {}
    for sw in switches:
        if sw.role == "spine":
            spines_of_pod.setdefault(sw.pod, []).append(sw)
    cabled: dict[str, list[tuple[int, str, str]]] = {sw.name: [] for sw in switches}
    for sw in switches:
        if sw.role != "leaf":
            continue
        vendor = vendors[sw.name]
        gpu_ports = SONIC_UPLINK_BASE if vendor == "sonic" else GPU_PORTS
        for port in range(1, gpu_ports + 1):
            cabled[sw.name].append((port, *gpu_host(sw, port)))
        if vendor != "sonic":
            for lag, members in STORAGE_LAGS:
                for port in members:
                    cabled[sw.name].append((port, f"stor{sw.number:04d}-{lag}", f"eth{port - lag}"))
        for spine in spines_of_pod[sw.pod]:
            up = uplink_port(vendor, spine.local)
            down = sw.local + 1
            spine_vendor = vendors[spine.name]
            cabled[sw.name].append((up, spine.name, advertised(spine_vendor, down)))
            cabled[spine.name].append((down, sw.name, advertised(vendor, up)))
    assert all(by_name[name] for name in cabled)
    return cabled


def nxos_config(sw: Switch, cabled: list[tuple[int, str, str]], seed: int) -> str:
    """A Nexus 9000 running-config of ``sw`` with the same ports as gen_eos's EOS one."""
    rng = random.Random(f"{seed}/{sw.name}")
    peer = {port: (device, far) for port, device, far in cabled}
    lines = ["!Command: show running-config", "!Time: Tue Nov 24 01:00:00 2026", "",
             "version 10.3(4a) Bios:version 05.47", f"hostname {sw.name}", ""]
    lines += [f"feature {f}" for f in ("bgp", "interface-vlan", "lacp", "lldp", "bfd", "nxapi")]
    lines += ["", "no password strength-check"]
    for user, role in gen_eos.USERS:
        lines.append(f"username {user} password 5 {gen_eos.secret(rng)}  role {role}")
    lines += ["ip domain-lookup", "copp profile strict",
              "snmp-server user admin network-admin auth md5 0x"
              f"{rng.getrandbits(128):032x} priv 0x{rng.getrandbits(128):032x} localizedkey",
              "ntp server 10.0.0.1 use-vrf management", "",
              "priority-flow-control watch-dog-interval on", "", NXOS_QOS]
    lines += ["vrf context management", "  ip route 0.0.0.0/0 192.168.0.1", ""]
    for port in range(1, PORTS + 1):
        name = f"Ethernet1/{port}"
        device, far = peer.get(port, (None, None))
        lag = next((lag for lag, members in STORAGE_LAGS if port in members), None)
        if device is None or (sw.role == "leaf" and port in SPARE_PORTS):
            lines += [f"interface {name}", "  description UNUSED", "  shutdown", ""]
            continue
        lines += [f"interface {name}", f"  description {device}:{far}"]
        if lag is not None and sw.role == "leaf":
            lines += [f"  channel-group {lag} mode active", "  no shutdown", ""]
            continue
        address = gen_eos.host_link(sw.number, port) if sw.role == "leaf" else (
            f"10.{sw.pod}.{sw.local}.{2 * port}/31")
        lines += ["  no switchport", "  mtu 9216", "  priority-flow-control mode on",
                  "  service-policy type qos input QOS_CLASSIFICATION",
                  f"  ip address {address}", "  no shutdown", ""]
    if sw.role == "leaf":
        for lag, _members in STORAGE_LAGS:
            lines += [f"interface port-channel{lag}", f"  description STORAGE_stor{sw.number:04d}",
                      "  no switchport", "  mtu 9216", "  priority-flow-control mode on",
                      "  service-policy type qos input QOS_CLASSIFICATION",
                      f"  ip address {gen_eos.host_link(sw.number, lag)}", "  no shutdown", ""]
    lines += ["interface mgmt0", "  vrf member management",
              f"  ip address 192.168.{sw.pod}.{sw.number % 250 + 2}/24", "",
              "interface loopback0", f"  ip address {sw.router_id}/32", "",
              f"router bgp {sw.asn}", f"  router-id {sw.router_id}",
              "  address-family ipv4 unicast", "    maximum-paths 64"]
    for port, device, _far in cabled:
        if device.startswith(("spine", "leaf")):
            lines += [f"  neighbor 10.{sw.pod}.{port}.1", f"    description {device}",
                      "    remote-as external", "    address-family ipv4 unicast"]
    return "\n".join(lines) + "\n"


def sonic_config(template: dict, sw: Switch, cabled: list[tuple[int, str, str]]) -> str:
    """The s6000 config_db of ``sw``: the real export with this leaf's name and neighbours."""
    config = copy.deepcopy(template)
    meta = config.setdefault("DEVICE_METADATA", {}).setdefault("localhost", {})
    meta["hostname"] = sw.name
    meta["mac"] = f"02:01:00:00:{sw.number >> 8 & 0xFF:02x}:{sw.number & 0xFF:02x}"
    config["DEVICE_NEIGHBOR"] = {}
    config["DEVICE_NEIGHBOR_METADATA"] = {}
    for port, device, far in cabled:
        name = port_name("sonic", port)
        config["DEVICE_NEIGHBOR"][name] = {"name": device, "port": far}
        kind = "SpineRouter" if device.startswith("spine") else "Server"
        config["DEVICE_NEIGHBOR_METADATA"][device] = {"hwsku": "Generic", "type": kind}
        if name in config.get("PORT", {}):
            config["PORT"][name]["description"] = f"{device}:{far}"
    return json.dumps(config, indent=4) + "\n"


def lldp_table(vendor: str, name: str, cabled: list[tuple[int, str, str]]) -> str:
    """The switch's own LLDP neighbour table, as its NOS prints it."""
    if vendor == "sonic":
        rows = [f"admin@{name}:~$ show lldp table",
                "Capability codes: (R) Router, (B) Bridge, (O) Other",
                "LocalPort    RemoteDevice              RemotePortID       Capability    "
                "RemotePortDescr",
                "-----------  ------------------------  -----------------  ------------  "
                "------------------------------"]
        for port, device, far in cabled:
            rows.append(f"{port_name('sonic', port):<13}{device:<26}{far:<19}"
                        f"{'BR' if device.startswith('spine') else 'O':<14}{far}")
        rows += ["-" * 50, f"Total entries displayed:  {len(cabled)}"]
    elif vendor == "nxos":
        rows = [f"{name}# show lldp neighbors", "Capability codes:",
                "  (R) Router, (B) Bridge, (T) Telephone, (C) DOCSIS Cable Device",
                "  (W) WLAN Access Point, (P) Repeater, (S) Station, (O) Other",
                "Device ID            Local Intf      Hold-time  Capability  Port ID  "]
        for port, device, far in cabled:
            rows.append(f"{device:<20} {'Eth1/' + str(port):<15} 120        "
                        f"{'BR' if device.startswith(('spine', 'leaf')) else 'S':<11} {far}")
        rows.append(f"Total entries displayed: {len(cabled)}")
    else:
        rows = [f"{name}#show lldp neighbors", "Last table change time   : 0:42:17 ago",
                "Number of table inserts  : 58", "Number of table deletes  : 0",
                "Number of table drops    : 0", "Number of table age-outs : 0", "",
                "Port          Neighbor Device ID       Neighbor Port ID    TTL",
                "------------- ------------------------ ------------------- ---"]
        for port, device, far in cabled:
            rows.append(f"Et{port}/1{'':<{10 - len(str(port))}} {device:<24} {far:<19} 120")
    return "\n".join(rows) + "\n"


def ib_spec(hcas: int) -> gen_ib.FabricSpec:
    """A two-tier NDR fat tree of ``hcas`` HCAs: 32 per leaf, two cables to each of 16 spines
    (not oversubscribed)."""
    return gen_ib.FabricSpec(pods=1, leaves=max(1, hcas // 32), spines=16, hosts=32, uplinks=2,
                             names="plain")


def generate(switches: int, out: Path, hcas: int | None = None, seed: int = 1) -> list[Path]:
    """Write the fabric of ``switches`` switches and ``hcas`` (default 4 x switches) HCAs."""
    out.mkdir(parents=True, exist_ok=True)
    topology = gen_eos.topology(switches)
    vendors = {sw.name: vendor_of(i, sw) for i, sw in enumerate(topology)}
    cabled = neighbours(topology, vendors)
    template = json.loads(SONIC_TEMPLATE.read_text(encoding="utf-8"))
    paths = []
    for sw in topology:
        vendor = vendors[sw.name]
        if vendor == "eos":
            path, text = out / f"{sw.name}.cfg", "\n".join(gen_eos.render(sw, seed).lines) + "\n"
        elif vendor == "nxos":
            path, text = out / f"{sw.name}.nxos.cfg", nxos_config(sw, cabled[sw.name], seed)
        else:
            path, text = out / f"{sw.name}.config_db.json", sonic_config(template, sw,
                                                                         cabled[sw.name])
        path.write_text(text, encoding="utf-8")
        lldp = out / f"{sw.name}_show_lldp_neighbors.txt"
        lldp.write_text(lldp_table(vendor, sw.name, cabled[sw.name]), encoding="utf-8")
        paths += [path, lldp]
    text, _truth = gen_ib.fabric(ib_spec(4 * switches if hcas is None else hcas))
    ib = out / "ib-fabric.ibnetdiscover"
    ib.write_text(text, encoding="utf-8")
    return [*paths, ib]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--hcas", type=int, default=None, help="default: 4 x switches")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    paths = generate(args.switches, args.out, args.hcas, args.seed)
    print(f"wrote {len(paths)} files to {args.out}")


if __name__ == "__main__":
    main()
