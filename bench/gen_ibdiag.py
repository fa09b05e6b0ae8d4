"""One InfiniBand fabric written in the four discovery formats fablint reads from ibdiagnet and
rdma-core: ``ibnetdiscover`` (rdma-core), ``ibdiagnet2.ibnetdiscover`` (ibdiagnet's dialect:
port labels, ``[1](1)(guid)`` CA ports, ``switchguid=SYSIMG(NODE)`` on director chips),
``ibdiagnet2.net_dump`` and ``ibdiagnet2.db_csv``.

The layouts follow the tools: rdma-core ``infiniband-diags/ibnetdiscover.c`` (tabs, quoting,
``4xNDR``), the net_dump block and column header of ibdiagnet 2.10 (unpadded GUIDs, ``N#`` the
neighbour's label, empty fields on ports without a peer), the db_csv sections with their full
NODES and PORTS headers and sections fablint skips (SWITCHES, PM_INFO, CABLE_INFO). The same
fabric in every format is how tests prove the four parsers agree; ``--leaves`` makes a large
one for the parse-speed benchmark::

    python bench/gen_ibdiag.py --leaves 63 --spines 32 --hosts 32 --out bench/out/ibdiag
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

VENDOR = 0x2C9
QUANTUM2 = 0xD2F2
CX7 = 0x1021
AN_DESC = "Mellanox Technologies Aggregation Node"
SPEED_CODE = {"HDR": 1024, "NDR": 2048, "EDR": 512}
LANE = {"HDR": "50", "NDR": "100", "EDR": "25"}
WIDTH_CODE = {1: 1, 2: 16, 4: 2}
FEC_CODE = {"MLNX_RS_544_514_PLR": 13, "MLNX_RS_271_257_PLR": 14, "NO-FEC": 0,
            "RS_FEC_544_514": 4}
MTU_CODE = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


@dataclass
class Node:
    key: int
    kind: str  # "switch" or "ca"
    desc: str
    lid: int
    devid: int
    sysimg: int
    ports: int
    labels: dict[int, str] = field(default_factory=dict)
    down: list[int] = field(default_factory=list)
    """Switch ports with nothing cabled (net_dump and db_csv list them)."""


@dataclass
class Cable:
    a: Node
    a_port: int
    b: Node
    b_port: int
    width: int = 4
    speed: str = "NDR"
    fec: str = "MLNX_RS_544_514_PLR"
    mtu: int = 4096


@dataclass
class Fabric:
    nodes: list[Node] = field(default_factory=list)
    cables: list[Cable] = field(default_factory=list)

    _index: dict[int, list[tuple[int, Node, int, Cable]]] | None = None

    def peers(self, node: Node) -> list[tuple[int, Node, int, Cable]]:
        """(own port, peer, peer port, cable) of every cable of ``node``, by port."""
        if self._index is None or sum(map(len, self._index.values())) != 2 * len(self.cables):
            index: dict[int, list[tuple[int, Node, int, Cable]]] = {}
            for c in self.cables:
                index.setdefault(id(c.a), []).append((c.a_port, c.b, c.b_port, c))
                index.setdefault(id(c.b), []).append((c.b_port, c.a, c.a_port, c))
            self._index = index
        return sorted(self._index.get(id(node), []), key=lambda t: t[0])


def q2_label(port: int) -> str:
    """Quantum-2 without split: two 4x ports per OSFP cage, ``ASIC/cage/port``."""
    return f"1/{(port + 1) // 2}/{2 - port % 2}"


def q2_split_label(port: int) -> str:
    """Quantum-2 in split mode: four 2x ports per OSFP cage, ``ASIC/cage/port/split``."""
    return f"1/{(port + 3) // 4}/{(port - 1) // 2 % 2 + 1}/{(port - 1) % 2 + 1}"


def build(leaves: int, spines: int, hosts: int, director: bool = True,
          split: bool = False) -> Fabric:
    """Leaves with ``hosts`` CX-7 HCAs each (eight rails per server, ``mlx5_N``), every leaf
    cabled to every spine, a SHARP AN on each switch's port 65, a management host (UFM) on
    the first spine; with ``director`` the spines are chips of one CS8500-style chassis
    (one system image GUID). With ``split`` the first leaf runs in split mode: 128 ports
    labelled ``1/cage/port/split``, its hosts on 2x (NDR200), its SHARP AN on port 129."""
    if not (1 <= spines <= 32 and 1 <= leaves <= 63 and 1 <= hosts <= 32):
        raise ValueError("a two-tier Quantum-2 fabric has at most 32 spines (leaf ports 33-64), "
                         "63 leaves (spine ports 1-63, the UFM host on the next) and 32 hosts "
                         "per leaf")
    fabric = Fabric()
    lid = 1
    chassis = 0xB8E9240300C00000
    spine_nodes = []
    for s in range(spines):
        guid = 0xB8E9240300AB0000 + (s << 8)
        desc = f"MF0;dir01:MCS8500/S{s + 1:02d}/U1" if director else \
            f"MF0;spine{s + 1:02d}:MQM9700/U1"
        node = Node(guid, "switch", desc, lid, QUANTUM2, chassis if director else guid, 65)
        lid += 1
        spine_nodes.append(node)
        fabric.nodes.append(node)
    host_index = 0
    for leaf in range(leaves):
        guid = 0xB8E9240300AA0000 + (leaf << 8)
        split_leaf = split and leaf == 0
        node = Node(guid, "switch", f"MF0;leaf{leaf + 1:02d}:MQM9700/U1", lid, QUANTUM2, guid,
                    129 if split_leaf else 65)
        lid += 1
        fabric.nodes.append(node)
        for h in range(hosts):
            index = host_index + h
            hguid = 0x0C42A10300BB0000 + (index << 4)
            hca = Node(hguid, "ca", f"gpu{index // 8 + 1:03d} mlx5_{index % 8}", 0, CX7, hguid, 1)
            fabric.nodes.append(hca)
            fabric.cables.append(Cable(node, h + 1, hca, 1, width=2 if split_leaf else 4))
        host_index += hosts
        for s, spine in enumerate(spine_nodes):
            fabric.cables.append(Cable(node, (65 if split_leaf else 33) + s, spine, leaf + 1))
        node.down = list(range(hosts + 1, 33))[:2]
    ufm = Node(0x0C42A10300CC0010, "ca", "ufm01 mlx5_0", 0, CX7, 0x0C42A10300CC0010, 1)
    fabric.nodes.append(ufm)
    fabric.cables.append(Cable(spine_nodes[0], leaves + 1, ufm, 1))
    for sw in [n for n in fabric.nodes if n.kind == "switch"]:
        an = Node(sw.key + 8, "ca", AN_DESC, 0, QUANTUM2, sw.key, 1)
        fabric.nodes.append(an)
        fabric.cables.append(Cable(sw, sw.ports, an, 1))
    for node in fabric.nodes:
        if node.kind == "ca":
            node.lid = lid
            lid += 1
            node.labels[1] = "1"
        elif node.ports == 129:
            node.labels = {p: q2_split_label(p) for p in range(1, 129)}
        else:
            node.labels = {p: q2_label(p) for p in range(1, 65)}
    return fabric


# -- writers ---------------------------------------------------------------------------------


def _link(c: Cable) -> str:
    return f"{c.width}x{c.speed}"


def ibnetdiscover(fabric: Fabric, dialect: bool = False) -> str:
    """rdma-core's topology file, or with ``dialect`` the file ibdiagnet writes."""
    out = ["#", "# Topology file: generated on Thu Nov 26 10:00:00 2026", "#",
           "# Initiated from node 0c42a10300cc0010 port 0c42a10300cc0010", ""]
    for node in fabric.nodes:
        if node.kind != "switch":
            continue
        node_id = f"0x{node.sysimg:x}({node.key:x})" if dialect and node.sysimg != node.key \
            else f"0x{node.key:x}({node.key:x})"
        out += [f"vendid=0x{VENDOR:x}", f"devid=0x{node.devid:x}",
                f"sysimgguid=0x{node.sysimg:x}", f"switchguid={node_id}",
                f'Switch\t{node.ports} "S-{node.key:016x}"\t\t# "{node.desc}" enhanced port 0 '
                f"lid {node.lid} lmc 0"]
        for port, peer, peer_port, cable in fabric.peers(node):
            label = f"({node.labels[port]})" if dialect and port in node.labels else ""
            if peer.kind == "switch":
                out.append(f'[{port}]{label}\t"S-{peer.key:016x}"[{peer_port}]\t\t# '
                           f'"{peer.desc}" lid {peer.lid} {_link(cable)}')
            else:
                out.append(f'[{port}]{label}\t"H-{peer.key:016x}"[{peer_port}]({peer.key:x}) '
                           f'\t\t# "{peer.desc}" lid {peer.lid} {_link(cable)}')
        out.append("")
    for node in fabric.nodes:
        if node.kind != "ca":
            continue
        out += [f"vendid=0x{VENDOR:x}", f"devid=0x{node.devid:x}",
                f"sysimgguid=0x{node.sysimg:x}", f"caguid=0x{node.key:x}",
                f'Ca\t{node.ports} "H-{node.key:016x}"\t\t# "{node.desc}"']
        for port, peer, peer_port, cable in fabric.peers(node):
            own = f"({node.labels.get(port, port)})({node.key:x})" if dialect \
                else f"({node.key:x})"
            out.append(f'[{port}]{own} \t"S-{peer.key:016x}"[{peer_port}]\t\t# lid {node.lid} '
                       f'lmc 0 "{peer.desc}" lid {peer.lid} {_link(cable)}')
        out.append("")
    return "\n".join(out)


NET_DUMP_HEAD = """# This database file was automatically generated by IBDIAG
# Running version   : "IBDIAGNET 2.10.0.MLNX20220721.cd746c3","IBDIAG 2.1.1.cd746c3"
# Running command   : ibdiagnet --extended_speeds all --get_phy_info -o /tmp/ibdiagnet2
# Running timestamp : 2026-11-26 10:00:00 UTC +0000
# File created at   : 2026-11-26 10:00:41 UTC +0000


# Switch label port numbering explanation:
#   Quantum2 switch split mode: ASIC/Cage/Port/Split, e.g 1/1/1/1
#   Quantum2 switch no split mode: ASIC/Cage/Port
#   Quantum switch split mode: Port/Split
#   Quantum switch no split mode: Port


"""
NET_DUMP_COLUMNS = ("  #          : IB# : Sta  : PhysSta    : MTU : LWA     : LSA     : "
                    "FEC mode            : Retran : Neighbor Guid      : N#         : NLID : "
                    "Neighbor Description")


def net_dump(fabric: Fabric) -> str:
    out = [NET_DUMP_HEAD.rstrip("\n"), "", ""]
    for node in fabric.nodes:
        if node.kind != "switch":
            continue
        out.append(f'"{node.desc}", Mellanox, 0x{node.key:x}, LID {node.lid}')
        out.append(NET_DUMP_COLUMNS)
        rows = {port: (peer, peer_port, cable) for port, peer, peer_port, cable
                in fabric.peers(node)}
        for port in sorted(set(rows) | set(node.down)):
            label = node.labels.get(port, str(port))
            if port not in rows:
                out.append(f"  {label:<10} : {port:<3} : DOWN : POLL       : 5   : 4x      : "
                           f"100     : N/A                 : N/A    :                    :"
                           f"            :      : ")
                continue
            peer, peer_port, cable = rows[port]
            peer_label = peer.labels.get(peer_port, str(peer_port))
            guid = f"0x{peer.key:x}"
            out.append(
                f"  {label:<10} : {port:<3} : ACT  : LINK UP    : {MTU_CODE[cable.mtu]:<3} : "
                f"{str(cable.width) + 'x':<7} : {LANE[cable.speed]:<7} : {cable.fec:<19} : "
                f"NO-RTR : {guid:<18} : {peer_label:<10}"
                f" : {peer.lid:<4} : \"{peer.desc}\"")
        out.append("")
    return "\n".join(out) + "\n"


NODES_HEADER = ("NodeDesc,NumPorts,NodeType,ClassVersion,BaseVersion,SystemImageGUID,NodeGUID,"
                "PortGUID,DeviceID,PartitionCap,revision,VendorID,LocalPortNum")
PORTS_HEADER = (
    "NodeGuid,PortGuid,PortNum,MKey,GIDPrfx,MSMLID,LID,CapMsk,M_KeyLeasePeriod,DiagCode,"
    "LinkWidthActv,LinkWidthSup,LinkWidthEn,LocalPortNum,LinkSpeedEn,LinkSpeedActv,LMC,"
    "MKeyProtBits,LinkDownDefState,PortPhyState,PortState,LinkSpeedSup,VLArbHighCap,VLHighLimit,"
    "InitType,VLCap,MSMSL,NMTU,FilterRawOutb,FilterRawInb,PartEnfOutb,PartEnfInb,OpVLs,HoQLife,"
    "VLStallCnt,MTUCap,InitTypeReply,VLArbLowCap,PKeyViolations,MKeyViolations,SubnTmo,"
    "MulticastPKeyTrapSuppressionEnabled,ClientReregister,GUIDCap,QKeyViolations,MaxCreditHint,"
    "OverrunErrs,LocalPhyError,RespTimeValue,LinkRoundTripLatency,OOOSLMask,CapMsk2,FECActv,"
    "RetransActv")


def _port_row(node: Node, port: int, cable: Cable | None, sm_lid: int) -> str:
    up = cable is not None
    width = WIDTH_CODE[cable.width] if cable else 2
    speed = SPEED_CODE[cable.speed] if cable else 2048
    lid = node.lid
    cap = str(MTU_CODE[cable.mtu] if cable and node.kind == "ca" else 5)
    values = [
        f"0x{node.key:016x}", f"0x{node.key:016x}", str(port), "0x0000000000000000",
        "0xfe80000000000000", str(sm_lid), str(lid), "2807162954", "60", "0",
        str(width if up else 2), "19", "19", str(port), "3841", str(speed if up else 0), "0",
        "0", "2", "5" if up else "2", "4" if up else "1", "3841", "8", "0", "0", "3", "0",
        str(MTU_CODE[cable.mtu] if cable else 5), "0", "0", "0", "0", "2", "0", "0", cap, "0",
        "8", "0", "0", "18", "1", "0", "8", "0", "0", "8", "8", "16", "270", "0xffff", "1074",
        str(FEC_CODE[cable.fec] if cable else 255), "0"]
    return ",".join(values)


def db_csv(fabric: Fabric) -> str:
    sm_lid = next(n.lid for n in fabric.nodes if n.desc.startswith("ufm01"))
    out = ["# This database file was automatically generated by IBDIAG", "",
           "START_NODES", NODES_HEADER]
    for node in fabric.nodes:
        kind = 2 if node.kind == "switch" else 1
        out.append(f'"{node.desc}",{node.ports},{kind},1,1,0x{node.sysimg:016x},'
                   f"0x{node.key:016x},0x{node.key:016x},{node.devid},8,161,{VENDOR},1")
    out += ["END_NODES", "", "", "START_PORTS", PORTS_HEADER]
    for node in fabric.nodes:
        cabled = {port: cable for port, _, _, cable in fabric.peers(node)}
        numbers = sorted(set(cabled) | set(node.down) | ({0} if node.kind == "switch" else set()))
        for port in numbers:
            out.append(_port_row(node, port, cabled.get(port), sm_lid))
    out += ["END_PORTS", "", "", "START_SWITCHES",
            "NodeGUID,LinearFDBCap,RandomFDBCap,MCastFDBCap,LinearFDBTop,DefPort,"
            "DefMCastPriPort,DefMCastNotPriPort,LifeTimeValue,PortStateChange"]
    for node in fabric.nodes:
        if node.kind == "switch":
            out.append(f"0x{node.key:016x},49152,0,16384,{node.lid + 200},0,255,255,18,0")
    out += ["END_SWITCHES", "", "", "START_LINKS", "NodeGuid1,PortNum1,NodeGuid2,PortNum2"]
    for c in fabric.cables:
        out.append(f"0x{c.a.key:016x},{c.a_port},0x{c.b.key:016x},{c.b_port}")
    out += ["END_LINKS", "", "", "START_PORT_HIERARCHY_INFO",
            "NodeGUID,PortGUID,PortNum,Bus,Device,Function,Type,SlotType,SlotValue,ASIC,Cage,"
            "Port,Split,IBPort,PortType,AsicName,IsCageManager,NumberOnBase,Plane,NumOfPlanes,"
            "APort,Label,ExtendedLabel"]
    for node in fabric.nodes:
        if node.kind != "switch":
            continue
        for port in sorted(node.labels):
            label = node.labels[port]
            parts = (label.split("/") + ["N/A"] * 3)[:3]
            out.append(f"0x{node.key:016x},0x{node.key:016x},{port},N/A,N/A,N/A,2,N/A,N/A,"
                       f"{parts[0]},{parts[1]},{parts[2]},N/A,{port},N/A,N/A,N/A,N/A,N/A,N/A,"
                       f"N/A,{label},{label}")
    out += ["END_PORT_HIERARCHY_INFO", "", "", "START_PM_INFO",
            "NodeGUID,PortGUID,PortNumber,LinkDownedCounter,PortRcvErrors,PortXmitWaitExt"]
    for c in fabric.cables[:4]:
        out.append(f"0x{c.a.key:016x},0x{c.a.key:016x},{c.a_port},0,0,-1")
    out += ["END_PM_INFO", "", "", "START_CABLE_INFO",
            "NodeGuid,PortGuid,PortNum,Source,Vendor,OUI,PN,SN,Rev,LengthSMFiber,Temperature"]
    for c in fabric.cables[:4]:
        out.append(f'0x{c.a.key:016x},0x{c.a.key:016x},{c.a_port},"Cable","Mellanox",'
                   f'0x2c9,"MCP4Y10-N001","MT2230VS00001","A2",N/A,"41C"')
    out += ["END_CABLE_INFO", ""]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", type=int, default=4)
    parser.add_argument("--spines", type=int, default=2)
    parser.add_argument("--hosts", type=int, default=4, help="HCAs per leaf (at most 32)")
    parser.add_argument("--out", type=Path, default=Path("bench/out/ibdiag"))
    args = parser.parse_args()
    fabric = build(args.leaves, args.spines, args.hosts)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in (("ibnetdiscover.topo", ibnetdiscover(fabric)),
                       ("ibdiagnet2.ibnetdiscover", ibnetdiscover(fabric, dialect=True)),
                       ("ibdiagnet2.net_dump", net_dump(fabric)),
                       ("ibdiagnet2.db_csv", db_csv(fabric))):
        (args.out / name).write_text(text, encoding="utf-8")
    print(f"{len(fabric.nodes)} nodes, {len(fabric.cables)} cables -> {args.out}")


if __name__ == "__main__":
    main()
