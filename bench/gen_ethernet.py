"""A synthetic RoCE leaf-spine fabric as real exports show it, with its truth known by construction.

Leaves run SONiC (``config_db.json``: ``PORT`` with ``alias`` such as ``Ethernet5/1`` and
``DEVICE_NEIGHBOR`` naming the port ``Ethernet32``, as sonic-cfggen renders them); spines run EOS
(a running-config and ``show lldp neighbors``). As on real switches, SONiC advertises the port's
alias over LLDP, so the spines see the leaves' ``Ethernet5/1`` while the leaves' own
DEVICE_NEIGHBOR says ``Ethernet32``: one cable. Every switch's management port is cabled to an
out-of-band switch (EOS ``Management1``, SONiC ``eth0``), which the spines' LLDP tables show and
whose own LLDP table is included: none of it is fabric.

    python bench/gen_ethernet.py --leaves 8 --spines 4 --hosts 32 --uplinks 2 --out bench/out/eth
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

LLDP_HEADER = "Port       Neighbor Device ID    Neighbor Port ID    TTL\n"
SPEED_MBPS = 400_000


@dataclass
class EthSpec:
    leaves: int = 4
    spines: int = 2
    hosts: int = 8
    """Hosts (one 400G NIC each) per leaf."""
    uplinks: int = 2
    """Cables from each leaf to each spine."""
    management: bool = True
    """Management ports cabled to an out-of-band switch, in the LLDP tables."""
    fqdn: bool = False
    """Spines' LLDP tables name the leaves by FQDN (``leaf01.dc1.example.net``)."""


@dataclass
class EthTruth:
    leaves: int
    spines: int
    hosts: int
    cables: int
    leaf_ratio: float
    bisection_mbps: int
    ideal_mbps: int


def _sonic_leaf(name: str, index: int, spec: EthSpec) -> tuple[str, dict[tuple[str, int], str]]:
    """The leaf's config_db.json and the alias of its uplink to (spine, n)."""
    ports: dict[str, dict[str, str]] = {}
    neighbours: dict[str, dict[str, str]] = {}
    aliases: dict[tuple[str, int], str] = {}
    slot = 0

    def port(description: str) -> tuple[str, str]:
        nonlocal slot
        name_, alias = f"Ethernet{slot * 8}", f"Ethernet{slot + 1}/1"
        ports[name_] = {"alias": alias, "lanes": ",".join(str(slot * 8 + k) for k in range(8)),
                        "speed": str(SPEED_MBPS), "mtu": "9100", "admin_status": "up",
                        "description": description, "index": str(slot)}
        slot += 1
        return name_, alias

    for h in range(spec.hosts):
        host = f"srv{index + 1:02d}-{h + 1:02d}"
        local, _ = port(f"{host}:eth0")
        neighbours[local] = {"name": host, "port": "eth0"}
    for s in range(spec.spines):
        for n in range(spec.uplinks):
            spine = f"spine{s + 1:02d}"
            local, alias = port(f"{spine}:Ethernet{index * spec.uplinks + n + 1}/1")
            neighbours[local] = {"name": spine,
                                 "port": f"Ethernet{index * spec.uplinks + n + 1}/1"}
            aliases[(spine, n)] = alias
    doc = {
        "DEVICE_METADATA": {"localhost": {"hostname": name, "hwsku": "Mellanox-SN5600-C256S1",
                                          "platform": "x86_64-nvidia_sn5600-r0",
                                          "type": "ToRRouter"}},
        "MGMT_PORT": {"eth0": {"alias": "eth0", "admin_status": "up"}},
        "PORT": ports,
        "DEVICE_NEIGHBOR": neighbours,
    }
    return json.dumps(doc, indent=4, sort_keys=True) + "\n", aliases


def _eos_port(name: str, description: str) -> str:
    return (f"interface {name}\n   description {description}\n   mtu 9214\n   speed 400g-8\n"
            "   no switchport\n!\n")


def fabric(spec: EthSpec) -> tuple[dict[str, str], EthTruth]:
    """File name -> text of every input, and what fablint must find."""
    files: dict[str, str] = {}
    leaves = [f"leaf{i + 1:02d}" for i in range(spec.leaves)]
    spines = [f"spine{s + 1:02d}" for s in range(spec.spines)]
    spine_rows: dict[str, list[str]] = {s: [] for s in spines}
    spine_cfg: dict[str, list[str]] = {s: [] for s in spines}
    for i, leaf in enumerate(leaves):
        config, aliases = _sonic_leaf(leaf, i, spec)
        files[f"{leaf}/config_db.json"] = config
        seen_as = f"{leaf}.dc1.example.net" if spec.fqdn else leaf
        for spine in spines:
            for n in range(spec.uplinks):
                port = f"Ethernet{i * spec.uplinks + n + 1}/1"
                spine_cfg[spine].append(_eos_port(port, f"P2P_{leaf}"))
                spine_rows[spine].append(
                    f"Et{i * spec.uplinks + n + 1}/1{'':<6}{seen_as:<21} "
                    f"{aliases[(spine, n)]:<19} 120\n")
    oob_rows = []
    for s, spine in enumerate(spines):
        rows = spine_rows[spine]
        if spec.management:
            rows = [f"Ma1        oob1                  Gi1/0/{s + 1:<14} 120\n", *rows]
            oob_rows.append(f"Gi1/0/{s + 1:<5}{spine:<21} Management1         120\n")
        files[f"{spine}.cfg"] = (f"hostname {spine}\n!\ninterface Management1\n   vrf MGMT\n!\n"
                                 + "".join(spine_cfg[spine]))
        files[f"{spine}_show_lldp_neighbors.txt"] = \
            f"{spine}#show lldp neighbors\n{LLDP_HEADER}{''.join(rows)}"
    if spec.management:
        for i, leaf in enumerate(leaves):
            oob_rows.append(f"Gi1/0/{spec.spines + i + 1:<5}{leaf:<21} eth0                120\n")
        oob_rows.append("Gi1/0/48    core-oob1             Gi0/1               120\n")
        files["oob1_show_lldp_neighbors.txt"] = \
            f"oob1#show lldp neighbors\n{LLDP_HEADER}{''.join(oob_rows)}"
    host_cap = spec.leaves * spec.hosts * SPEED_MBPS
    up_cap = spec.leaves * spec.spines * spec.uplinks * SPEED_MBPS
    truth = EthTruth(
        leaves=spec.leaves, spines=spec.spines, hosts=spec.leaves * spec.hosts,
        cables=spec.leaves * (spec.hosts + spec.spines * spec.uplinks),
        leaf_ratio=spec.hosts / (spec.spines * spec.uplinks),
        bisection_mbps=min(host_cap, up_cap) // 2, ideal_mbps=host_cap // 2)
    return files, truth


def write(files: dict[str, str], out: Path) -> None:
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leaves", type=int, default=8)
    parser.add_argument("--spines", type=int, default=4)
    parser.add_argument("--hosts", type=int, default=32)
    parser.add_argument("--uplinks", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "eth")
    args = parser.parse_args()
    files, truth = fabric(EthSpec(args.leaves, args.spines, args.hosts, args.uplinks))
    write(files, args.out)
    print(f"{args.out}: {len(files)} files; {truth}")


if __name__ == "__main__":
    main()
