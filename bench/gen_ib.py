"""A synthetic InfiniBand fabric as ``ibnetdiscover`` prints it, for the IB benchmark.

Two-tier NDR fat tree: ``switches`` Quantum-2 switches, a fifth of them spines (director-class:
one port per leaf) and the rest leaves (hosts on the low ports, one uplink to every spine on
the high ones), and ``nodes - switches`` single-port ConnectX-7 HCAs named as a GPU server's
eight rails (``gpu0001 mlx5_3``). The output follows rdma-core ``ibnetdiscover.c``
(``out_switch``, ``out_switch_port``, ``out_ca``, ``out_ca_port``): tabs, quoting, ``4xNDR``.

Faults are planted with a seeded RNG so the same seed gives the same dump and findings; the
MANIFEST.tsv next to the dump lists each with the rule that should report it:

- IB001: a few host links trained at 1x, one leaf uplink at 2x;
- IB002: a few host links at HDR (a warning: 99 % of the links run NDR), one uplink at HDR (an
  error: both switches run NDR elsewhere);
- IB007: two HCAs with the factory description;
- IB008: two HCAs with the same LID;
- IB009: one spine port cabled to another port of the same spine.

    python bench/gen_ib.py --nodes 4000 --switches 200 --out bench/out/ib-4000
"""

from __future__ import annotations

import argparse
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

SWITCH_DEVID = 0xD2F2  # Quantum-2 (QM9700): NDR
SWITCH_DEVIDS = {"EDR": 0xCF08, "HDR": 0xD2F0, "NDR": 0xD2F2, "XDR": 0xD2F4}
"""The switch ASIC of each generation (Switch-IB 2, Quantum, Quantum-2, Quantum-3)."""
HCA_DEVID = 0x1021  # ConnectX-7
VENDOR = 0x2C9
FACTORY_DESC = "MT4129 ConnectX7 Mellanox Technologies"


def switch_guid(n: int) -> int:
    return 0xB83FD20300A00000 + n


def hca_guid(n: int) -> int:
    return 0x946DAE0300000000 + (n << 4)


def generate(nodes: int, switches: int, seed: int) -> tuple[str, list[tuple[str, str, str]]]:
    """The dump text and the planted faults (rule, where, what)."""
    rng = random.Random(seed)
    spines = max(1, switches // 5)
    leaves = switches - spines
    hosts = nodes - switches
    per_leaf = math.ceil(hosts / leaves)
    faults: list[tuple[str, str, str]] = []

    # Cables: (switch index, port) <-> peer, with the link width/speed of that cable.
    leaf_ports: dict[int, dict[int, tuple[str, int, int, str]]] = {i: {} for i in range(leaves)}
    spine_ports: dict[int, dict[int, tuple[str, int, int, str]]] = {i: {} for i in range(spines)}
    host_link: dict[int, tuple[int, int, str]] = {}
    descs = {h: f"gpu{h // 8 + 1:04d} mlx5_{h % 8}" for h in range(hosts)}
    lids = {h: 1 + switches + h for h in range(hosts)}

    chosen = rng.sample(range(hosts), 12)  # distinct hosts for distinct faults
    narrow, slow, same_desc, same_lid = chosen[:4], chosen[4:8], chosen[8:10], chosen[10:]
    for h in range(hosts):
        leaf, port = divmod(h, per_leaf)
        width, speed = 4, "NDR"
        if h in narrow:
            width = 1
            faults.append(("IB001", descs[h], "host link trained at 1x"))
        elif h in slow:
            speed = "HDR"
            faults.append(("IB002", descs[h], "host link at HDR (warning)"))
        leaf_ports[leaf][port + 1] = ("H", h, width, speed)
        host_link[h] = (leaf, port + 1, f"{width}x{speed}")
    for h in same_desc:
        descs[h] = FACTORY_DESC
    faults.append(("IB007", FACTORY_DESC,
                   " and ".join(f"0x{hca_guid(h):016x}" for h in same_desc)))
    dup_a, dup_b = same_lid
    lids[dup_b] = lids[dup_a]
    faults.append(("IB008", descs[dup_b], f"LID {lids[dup_a]} also on {descs[dup_a]}"))

    narrow_up = (rng.randrange(leaves), rng.randrange(spines))
    slow_up = (rng.randrange(leaves), rng.randrange(spines))
    while slow_up == narrow_up:
        slow_up = (rng.randrange(leaves), rng.randrange(spines))
    for leaf in range(leaves):
        for spine in range(spines):
            width, speed = 4, "NDR"
            if (leaf, spine) == narrow_up:
                width = 2
                faults.append(("IB001", f"leaf{leaf + 1:03d}", f"uplink to spine{spine + 1:02d} "
                                                                 "at 2x"))
            elif (leaf, spine) == slow_up:
                speed = "HDR"
                faults.append(("IB002", f"leaf{leaf + 1:03d}", f"uplink to spine{spine + 1:02d} "
                                                                 "at HDR (error)"))
            leaf_ports[leaf][per_leaf + spine + 1] = ("S", leaves + spine, width, speed)
            spine_ports[spine][leaf + 1] = ("S", leaf, width, speed)
    loop_spine = rng.randrange(spines)
    loop_ports = (leaves + 1, leaves + 2)
    spine_ports[loop_spine][loop_ports[0]] = ("S", leaves + loop_spine, 4, "NDR")
    spine_ports[loop_spine][loop_ports[1]] = ("S", leaves + loop_spine, 4, "NDR")
    faults.append(("IB009", f"spine{loop_spine + 1:02d}",
                   f"port {loop_ports[0]} cabled to port {loop_ports[1]}"))

    def name(index: int) -> str:
        return f"leaf{index + 1:03d}" if index < leaves else f"spine{index - leaves + 1:02d}"

    def lid(index: int) -> int:
        return index + 1

    out = ["#", "# Topology file: generated by bench/gen_ib.py", "#",
           f"# Initiated from node {hca_guid(0):016x} port {hca_guid(0) + 1:016x}"]
    tables = [*leaf_ports.values(), *spine_ports.values()]
    for index, ports in enumerate(tables):
        guid = switch_guid(index)
        numports = 64 if index < leaves else max(64, leaves + 2)
        out += ["", f"vendid=0x{VENDOR:x}", f"devid=0x{SWITCH_DEVID:x}",
                f"sysimgguid=0x{guid:x}", f"switchguid=0x{guid:x}({guid:x})",
                f'Switch\t{numports} "S-{guid:016x}"\t\t# "{name(index)}" enhanced port 0 '
                f"lid {lid(index)} lmc 0"]
        for port in sorted(ports):
            kind, peer, width, speed = ports[port]
            if index == leaves + loop_spine and port in loop_ports:
                other = loop_ports[1] if port == loop_ports[0] else loop_ports[0]
                out.append(f'[{port}]\t"S-{guid:016x}"[{other}]\t\t# "{name(index)}" '
                           f"lid {lid(index)} {width}x{speed}")
            elif kind == "H":
                out.append(f'[{port}]\t"H-{hca_guid(peer):016x}"[1]({hca_guid(peer) + 1:x}) '
                           f'\t\t# "{descs[peer]}" lid {lids[peer]} {width}x{speed}')
            else:
                back = index + 1 if index < leaves else per_leaf + index - leaves + 1
                out.append(f'[{port}]\t"S-{switch_guid(peer):016x}"[{back}]\t\t# '
                           f'"{name(peer)}" lid {lid(peer)} {width}x{speed}')
    for h in range(hosts):
        guid = hca_guid(h)
        leaf, port, link = host_link[h]
        out += ["", f"vendid=0x{VENDOR:x}", f"devid=0x{HCA_DEVID:x}",
                f"sysimgguid=0x{guid + 3:x}", f"caguid=0x{guid:x}",
                f'Ca\t1 "H-{guid:016x}"\t\t# "{descs[h]}"',
                f'[1]({guid + 1:x}) \t"S-{switch_guid(leaf):016x}"[{port}]\t\t# lid {lids[h]} '
                f'lmc 0 "{name(leaf)}" lid {lid(leaf)} {link}']
    return "\n".join(out) + "\n", faults


# --- Fabrics whose truth is known by construction (tests/test_topology_truth.py) -----------

AN_DESC = "Mellanox Technologies Aggregation Node"
DEFAULT_SWITCH_DESC = "Quantum-2 Mellanox Technologies"
RATE = {"EDR": 100_000, "HDR": 200_000, "NDR": 400_000}
"""Mb/s of a 4x link of each generation."""


@dataclass
class FabricSpec:
    """A fat tree: ``pods`` pods of ``leaves`` leaves and ``spines`` spines (every leaf to every
    spine of its pod, ``uplinks`` cables each), ``hosts`` HCAs per leaf and, for three tiers,
    ``super_spines`` super-spines in ``spines`` planes (spine i of every pod cabled to each
    super-spine of plane i, ``spine_uplinks`` cables each). Servers have ``rails`` NICs, NIC r
    on leaf r of their rail group (rail-optimised when ``rails`` equals ``leaves``)."""

    pods: int = 1
    leaves: int = 4
    spines: int = 2
    hosts: int = 8
    uplinks: int = 4
    super_spines: int = 0
    spine_uplinks: int = 1
    rails: int = 1
    speed: str = "NDR"
    names: str = "mf0"
    """``mf0`` (``MF0;leaf01:MQM9700/U1``), ``plain`` (``leaf01``) or ``default`` (every switch
    ``Quantum-2 Mellanox Technologies``: only GUIDs tell them apart)."""
    aggregation_nodes: bool = False
    """A SHARP Aggregation Node on the extra last port of every switch."""
    management_hosts: int = 0
    """UFM / login hosts with one HCA, cabled to the first switch of the top tier."""
    director: bool = False
    """The spine tier (two tiers only) is one CS8500-style chassis: line chips L01.. take the
    leaves' cables on ports 1-20 and reach four internal spine chips on ports 21-40."""
    dialect: str = "ibnetdiscover"
    """``ibdiagnet`` writes ``switchguid=0x<system image GUID>(<node GUID>)``."""


@dataclass
class Truth:
    leaves: int
    spines: int
    super_spines: int
    hosts: int
    aggregation_nodes: int
    management_hosts: int
    leaf_ratio: float
    tier_ratios: dict[str, float]
    bisection_mbps: int
    ideal_mbps: int
    chips: int = 0
    internal_links: int = 0


@dataclass
class _Node:
    guid: int
    desc: str
    ca: bool
    ports: dict[int, tuple[int, int]] = field(default_factory=dict)
    """port -> (peer node index, peer port)."""
    system_guid: int | None = None
    devid: int = SWITCH_DEVID
    numports: int = 0


def fabric(spec: FabricSpec) -> tuple[str, Truth]:
    """An ``ibnetdiscover`` topology of ``spec`` and what fablint must find in it."""
    nodes, truth = _build(spec)
    return _render(nodes, spec), truth


def _build(spec: FabricSpec) -> tuple[list[_Node], Truth]:
    nodes: list[_Node] = []
    rate = RATE[spec.speed]

    def switch(name: str, chip: str = "U1", system: int | None = None,
               model: str = "MQM9700") -> int:
        guid = switch_guid(len(nodes) + 1)
        desc = {"mf0": f"MF0;{name}:{model}/{chip}", "plain": name,
                "default": DEFAULT_SWITCH_DESC}[spec.names]
        nodes.append(_Node(guid, desc, False, system_guid=system or guid,
                           devid=SWITCH_DEVIDS[spec.speed]))
        return len(nodes) - 1

    def hca(desc: str, devid: int = HCA_DEVID) -> int:
        nodes.append(_Node(hca_guid(len(nodes) + 1), desc, True, devid=devid))
        return len(nodes) - 1

    def cable(a: int, b: int, a_port: int | None = None, b_port: int | None = None) -> None:
        a_port = a_port or (1 if nodes[a].ca else _free(nodes[a]))
        b_port = b_port or (1 if nodes[b].ca else _free(nodes[b]))
        nodes[a].ports[a_port] = (b, b_port)
        nodes[b].ports[b_port] = (a, a_port)

    leaves = [[switch(f"p{p + 1}-leaf{i + 1:02d}") for i in range(spec.leaves)]
              for p in range(spec.pods)]
    chips = internal = 0
    if spec.director:
        system = switch_guid(9000)
        lines_needed = -(-(spec.pods * spec.leaves * spec.uplinks) // 20)
        line = [switch("dir1", f"L{i + 1:02d}/U1", system, "MCS8500") for i in range(lines_needed)]
        core = [switch("dir1", f"S{j + 1:02d}/U1", system, "MCS8500") for j in range(4)]
        for i, chip in enumerate(line):
            for j, spine_chip in enumerate(core):
                for k in range(5):
                    cable(chip, spine_chip, 21 + j * 5 + k, 1 + i * 5 + k)
                    internal += 1
        chips = len(line) + len(core)
        ext = [(chip, port) for chip in line for port in range(1, 21)]
        for leaf in (x for pod in leaves for x in pod):
            for _ in range(spec.uplinks):
                chip, port = ext.pop(0)
                cable(leaf, chip, None, port)
        spines: list[list[int]] = [line]
        top = line[0]
    else:
        spines = [[switch(f"p{p + 1}-spine{j + 1:02d}") for j in range(spec.spines)]
                  for p in range(spec.pods)]
        for p in range(spec.pods):
            for leaf in leaves[p]:
                for spine in spines[p]:
                    for _ in range(spec.uplinks):
                        cable(leaf, spine)
        top = spines[0][0]
    supers = [switch(f"ss{k + 1:02d}") for k in range(spec.super_spines)]
    if supers:
        per_plane = spec.super_spines // spec.spines
        for p in range(spec.pods):
            for j, spine in enumerate(spines[p]):
                for ss in supers[j * per_plane:(j + 1) * per_plane]:
                    for _ in range(spec.spine_uplinks):
                        cable(spine, ss)
        top = supers[0]
    servers = 0
    for p in range(spec.pods):
        groups = [leaves[p][g:g + spec.rails] for g in range(0, spec.leaves, spec.rails)]
        for group in groups:
            for _slot in range(spec.hosts):
                servers += 1
                for r, leaf in enumerate(group):
                    cable(hca(f"gpu{servers:04d} mlx5_{r}"), leaf)
    for m in range(spec.management_hosts):
        cable(hca(f"ufm{m + 1:02d} mlx5_0"), top)
    switches = [i for i, n in enumerate(nodes) if not n.ca]
    ans = 0
    for index in switches:
        node = nodes[index]
        node.numports = max(64, *node.ports) + (1 if spec.aggregation_nodes else 0)
        if spec.aggregation_nodes and not spec.director:
            an = hca(AN_DESC, devid=SWITCH_DEVIDS[spec.speed])
            cable(index, an, node.numports, 1)
            ans += 1

    n_leaves = spec.pods * spec.leaves
    n_spines = 1 if spec.director else spec.pods * spec.spines
    host_cap = n_leaves * spec.hosts * rate
    leaf_up = n_leaves * spec.uplinks * rate * (1 if spec.director else spec.spines)
    ratios = {"leaf": host_cap / leaf_up}
    spine_up = None
    if supers:
        spine_up = spec.pods * spec.spines * (spec.super_spines // spec.spines) \
            * spec.spine_uplinks * rate
        ratios["spine"] = leaf_up / spine_up
    truth = Truth(
        leaves=n_leaves, spines=n_spines, super_spines=len(supers),
        hosts=servers, aggregation_nodes=ans, management_hosts=spec.management_hosts,
        leaf_ratio=ratios["leaf"], tier_ratios=ratios,
        bisection_mbps=min(host_cap, leaf_up, spine_up or leaf_up) // 2,
        ideal_mbps=host_cap // 2, chips=chips, internal_links=internal)
    return nodes, truth


LST_SPD = {"EDR": "25", "HDR": "50", "NDR": "100"}


def subnet_list(text_spec: FabricSpec) -> str:
    """The same fabric as ``fabric(spec)`` as OpenSM's ``opensm-subnet.lst`` (and
    ibdiagnet2.lst) lists it: one line per port and direction, both ends in braces."""
    nodes, _truth = _build(text_spec)
    spd = LST_SPD[text_spec.speed]

    def end(index: int, port: int) -> str:
        node = nodes[index]
        kind = "CA" if node.ca else "SW"
        ports = 1 if node.ca else node.numports
        system = (node.guid + 3) if node.ca else (node.system_guid or node.guid)
        port_guid = node.guid + 1 if node.ca else node.guid
        return (f"{{ {kind} Ports:{ports:02X} SystemGUID:{system:016x} NodeGUID:{node.guid:016x} "
                f"PortGUID:{port_guid:016x} VenID:0002C9 DevID:{node.devid:04X} Rev:000000A0 "
                f"{{{node.desc}}} LID:{index + 1:04X} PN:{port:02X} }}")

    out = []
    for index, node in enumerate(nodes):
        for port in sorted(node.ports):
            peer, peer_port = node.ports[port]
            out.append(f"{end(index, port)} {end(peer, peer_port)} PHY=4x LOG=ACT SPD={spd}")
    return "\n".join(out) + "\n"


def _free(node: _Node) -> int:
    port = 1
    while port in node.ports:
        port += 1
    return port


def _render(nodes: list[_Node], spec: FabricSpec) -> str:
    width = f"4x{spec.speed}"
    out = ["#", "# Topology file: generated by bench/gen_ib.py fabric()", "#"]
    for index, node in enumerate(nodes):
        lid = index + 1
        if node.ca:
            continue
        system = node.system_guid or node.guid
        guid_line = (f"switchguid=0x{system:x}({node.guid:x})" if spec.dialect == "ibdiagnet"
                     else f"switchguid=0x{node.guid:x}({node.guid:x})")
        out += ["", f"vendid=0x{VENDOR:x}", f"devid=0x{node.devid:x}",
                f"sysimgguid=0x{system:x}", guid_line,
                f'Switch\t{node.numports} "S-{node.guid:016x}"\t\t# "{node.desc}" enhanced port 0 '
                f"lid {lid} lmc 0"]
        for port in sorted(node.ports):
            peer, peer_port = node.ports[port]
            other = nodes[peer]
            if other.ca:
                out.append(f'[{port}]\t"H-{other.guid:016x}"[{peer_port}]({other.guid + 1:x}) '
                           f'\t\t# "{other.desc}" lid {peer + 1} {width}')
            else:
                out.append(f'[{port}]\t"S-{other.guid:016x}"[{peer_port}]\t\t# '
                           f'"{other.desc}" lid {peer + 1} {width}')
    for index, node in enumerate(nodes):
        if not node.ca:
            continue
        out += ["", f"vendid=0x{VENDOR:x}", f"devid=0x{node.devid:x}",
                f"sysimgguid=0x{node.guid + 3:x}", f"caguid=0x{node.guid:x}",
                f'Ca\t1 "H-{node.guid:016x}"\t\t# "{node.desc}"']
        for port in sorted(node.ports):
            peer, peer_port = node.ports[port]
            other = nodes[peer]
            out.append(f'[{port}]({node.guid + 1:x}) \t"S-{other.guid:016x}"[{peer_port}]\t\t'
                       f'# lid {index + 1} lmc 0 "{other.desc}" lid {peer + 1} {width}')
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=4000)
    parser.add_argument("--switches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out" / "ib-4000")
    args = parser.parse_args()
    if not 5 <= args.switches < args.nodes:
        parser.error("need at least 5 switches and more nodes than switches")
    text, faults = generate(args.nodes, args.switches, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "ibnetdiscover.topo").write_text(text, encoding="utf-8")
    rows = ["rule\tnode\tfault", *("\t".join(f) for f in faults)]
    (args.out / "MANIFEST.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{args.out / 'ibnetdiscover.topo'}: {args.nodes} nodes ({args.switches} switches), "
          f"{len(text.splitlines())} lines, {len(text) / 1e6:.1f} MB, {len(faults)} faults")


if __name__ == "__main__":
    main()
