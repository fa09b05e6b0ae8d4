"""``ibdiagnet2.net_dump``: ibdiagnet's per-port table of every switch.

A ``#`` header (generator, version, command, timestamps, the port label legend), then one
block per switch: a node line, a column header row and one row per port, ``:``-separated::

    "MF0;leaf07:MQM9700/U1", Mellanox, 0xb8e9240300aa0100, LID 12
      #     : IB# : Sta : PhysSta : MTU : LWA : LSA : FEC mode : Retran : Neighbor Guid
            : N# : NLID : Neighbor Description
      1/1/1 : 1   : ACT : LINK UP : 5   : 4x  : 100 : MLNX_RS_544_514_PLR : NO-RTR
            : 0xc42a10300bb0011 : 1 : 40 : "gpu-n01 mlx5_0"
      1/16/2 : 32 : DOWN : POLL : 5 : 4x : 100 : N/A : N/A :  :  :  :

(each row is one line; wrapped here). ``#`` is the port label (``1/1/1`` ASIC/cage/port on
Quantum-2, ``1/1/1/1`` split, ``3/2`` a split Quantum port), ``IB#`` the port number, ``MTU``
the IBTA code of the active MTU, ``LWA`` the width, ``LSA`` the per-lane speed (``100`` = NDR),
``N#`` the neighbour's port *label*.
Columns are found by their header name (the order differs between ibdiagnet versions). GUIDs
are printed unpadded. Rows without a neighbour end in empty fields.

Channel adapters have no block: they are known from the switch rows that face them (GUID,
description, LID), and a CA's ``N#`` is a label such as ``1`` or a PCI address; an adapter
port that is not a number is port 1 (every ConnectX port is its own node since ConnectX-4).
A neighbour without a block is a switch when its description is one a switch writes
(``MF0;…``, a factory ``… Mellanox Technologies`` switch name), else a channel adapter; an
NVIDIA router (``MSB7780``/``MSB7880`` in its ``MF0;`` name) is a router.
"""

from __future__ import annotations

import re
from typing import ClassVar

from fablint.model import Vendor
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.ibdiag_codes import (
    NOT_AVAILABLE,
    PHYS_STATE_NAMES,
    PORT_STATE_NAMES,
    mtu_bytes,
)
from fablint.parsers.ibdump import MAX_LID, MAX_PORT, IbDumpBuilder, Obj, check_text
from fablint.units import ib_guid, ib_speed, ib_width

_NODE = re.compile(r'^"(.*)"\s*,\s*([^,]*?)\s*,\s*(?:0x)?([0-9A-Fa-f]+)\s*,\s*LID\s*(-?\d*)\s*$')
_COLUMNS = re.compile(r"^#\s*:\s*IB#\s*:")
_SWITCH_DESC = re.compile(r"^\s*(?:MF0;|(?:Quantum|Switch-?IB|SwitchX|Infiniscale)\S*\s.*Mellanox)",
                          re.IGNORECASE)
"""Descriptions switches write (managed ``MF0;host:MQM9700/U1``, factory defaults)."""
_ROUTER_DESC = re.compile(r"\bMSB7[78]80\b", re.IGNORECASE)
"""NVIDIA's InfiniBand routers (SB7780, SB7880) are managed systems and name themselves the
switch way (``MF0;ibrtr01:MSB7780/U1``), but net_dump gives a router no block of its own: a
neighbour so named is a router (an end of the fabric), not a switch left without its block."""
_DEFAULT_COLUMNS = ("#", "IB#", "Sta", "PhysSta", "MTU", "LWA", "LSA", "FEC mode", "Retran",
                    "Neighbor Guid", "N#", "NLID", "Neighbor Description")


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "")


class IbdiagNetDumpParser:
    """``ibdiagnet2.net_dump``."""

    name: ClassVar[str] = "ibdiagnet-net-dump"
    label: ClassVar[str] = "InfiniBand ibdiagnet2.net_dump"
    vendor: ClassVar[Vendor] = "ib"

    def sniff(self, head: str) -> int:
        """Certain on a node line followed (within a few lines) by the ``# : IB# :`` header."""
        node_seen = False
        for line in head.splitlines():
            stripped = line.strip()
            if stripped.startswith('"') and _NODE.match(stripped):
                node_seen = True
            elif stripped.startswith("#") and _COLUMNS.match(stripped):
                return 100 if node_seen else 60
        return 0

    def parse(self, text: str, path: str) -> ParseResult:
        return _Reader(path).run(check_text(text, path))


class _Reader:
    def __init__(self, path: str) -> None:
        self.dump = IbDumpBuilder(path, "ibdiagnet-net-dump")
        self.node: Obj | None = None
        self.columns: dict[str, int] = {_key(c): i for i, c in enumerate(_DEFAULT_COLUMNS)}
        self.width = len(_DEFAULT_COLUMNS)
        self.rows: list[tuple[Obj, Obj, int, str, str, str | None, int]] = []
        """(node, port, neighbour GUID, N#, NLID, description, line) of rows with a peer."""

    def run(self, text: str) -> ParseResult:
        lines = text.split("\n")  # not splitlines(): \v, \f, \x1c… must not shift line numbers
        for lineno, raw in enumerate(lines, 1):
            line = raw.strip()
            if not line:
                continue
            first = line[0]
            if first == "#":
                if _COLUMNS.match(line):
                    self.header(line)
                continue
            if first == '"':
                match = _NODE.match(line)
                if match:
                    self.node_line(match, lineno)
                    continue
            if self.node is not None and ":" in line and self.row(line, lineno):
                continue
            self.dump.unknown(lineno)
        if not self.dump.nodes:
            raise ParseError(self.dump.path, 1, "no net_dump node line "
                             "('\"<description>\", <vendor>, 0x<guid>, LID <n>') found")
        self.link_peers()
        return self.dump.result(max(len(lines), 1))

    def header(self, line: str) -> None:
        names = [_key(c) for c in line.split(":")]
        names[0] = "#"
        self.columns = {name: i for i, name in enumerate(names)}
        self.width = len(names)

    def node_line(self, match: re.Match[str], lineno: int) -> None:
        desc, _vendor, guid_text, lid = match.groups()
        dump = self.dump
        try:
            guid = ib_guid(guid_text)
        except ValueError as exc:
            dump.problem(lineno, str(exc))
            self.node = None
            return
        node = self.node = dump.claim(f"0x{guid:016x}", "switch", lineno)
        dump.set(node, "guid", guid, lineno)
        dump.set(node, "description", desc or None, lineno)
        if lid == "":
            dump.problem(lineno, "LID is empty")
        else:
            dump.set(node, "lid", dump.number(lid, lineno, "LID", MAX_LID), lineno)

    def cell(self, cells: list[str], name: str) -> str | None:
        index = self.columns.get(name)
        if index is None or index >= len(cells):
            return None
        value = cells[index].strip()
        return None if value.upper() in NOT_AVAILABLE else value

    def row(self, line: str, lineno: int) -> bool:
        """One port row; False when it is not one (too few fields, no port number)."""
        cells = line.split(":", self.width - 1)
        if len(cells) < min(self.width, 4):
            return False
        number_text = self.cell(cells, "ib#")
        if number_text is None or not number_text.isdigit():
            return False
        dump, node = self.dump, self.node
        assert node is not None
        number = dump.number(number_text, lineno, "port number", MAX_PORT)
        if number is None:
            return True
        if number in node["ports"]:
            dump.problem(lineno, f"port {number} is listed twice")
            return True
        port = dump.port(node, number, lineno)
        dump.set(port, "label", self.cell(cells, "#"), lineno)
        self.states(port, cells, lineno)
        self.link_values(port, cells, lineno)
        peer_guid = self.cell(cells, "neighborguid")
        if peer_guid is None:
            return True
        try:
            guid = ib_guid(peer_guid)
        except ValueError as exc:
            dump.problem(lineno, str(exc))
            return True
        desc = self.cell(cells, "neighbordescription")
        if desc is not None and len(desc) >= 2 and desc[0] == '"' and desc[-1] == '"':
            desc = desc[1:-1]
        self.rows.append((node, port, guid, self.cell(cells, "n#") or "",
                          self.cell(cells, "nlid") or "", desc or None, lineno))
        return True

    def states(self, port: Obj, cells: list[str], lineno: int) -> None:
        dump = self.dump
        state = self.cell(cells, "sta")
        if state is not None:
            value = PORT_STATE_NAMES.get(state.upper())
            if value is None:
                dump.problem(lineno, f"unknown port state {state!r}")
            dump.set(port, "state", value, lineno)
        phys = self.cell(cells, "physsta")
        if phys is not None:
            value = PHYS_STATE_NAMES.get(phys.upper().replace(" ", ""))
            if value is None:
                dump.problem(lineno, f"unknown physical port state {phys!r}")
            dump.set(port, "phys_state", value, lineno)

    def link_values(self, port: Obj, cells: list[str], lineno: int) -> None:
        dump = self.dump
        mtu = self.cell(cells, "mtu")
        if mtu is not None:
            value = mtu_bytes(int(mtu)) if mtu.isdigit() else None
            if value is None:
                dump.problem(lineno, f"MTU {mtu!r} is not an IBTA MTU (1-5)")
            dump.set(port, "mtu", value, lineno)
        for column, field, read in (("lwa", "width", ib_width), ("lsa", "speed", ib_speed)):
            text = self.cell(cells, column)
            if text is None or text.upper() == "EDR20":  # EDR20: no generation in the model
                continue
            try:
                dump.set(port, field, read(text), lineno)
            except ValueError as exc:
                dump.problem(lineno, str(exc))
        dump.set(port, "fec", self.cell(cells, "fecmode"), lineno)

    def link_peers(self) -> None:
        """Connect every row to its neighbour: the neighbour's own block when it has one (its
        port whose label is ``N#``), else a node made from what the row says."""
        dump = self.dump
        labels: dict[str, dict[str, int]] = {}
        for node, port, guid, peer_label, peer_lid, desc, lineno in self.rows:
            key = f"0x{guid:016x}"
            peer = dump.nodes.get(key)
            if peer is None:
                kind = "switch" if desc and _SWITCH_DESC.search(desc) else "ca"
                if kind == "switch" and _ROUTER_DESC.search(desc or ""):
                    kind = "router"
                peer = dump.ensure(key, kind, lineno)
                dump.set(peer, "guid", guid, lineno, weak=True)
                dump.set(peer, "description", desc, lineno, weak=True)
            number = self.peer_port(peer, peer_label, labels)
            if number is None:
                dump.problem(lineno, f"neighbour port {peer_label!r} is not a port number")
                continue
            peer_port = peer["ports"].get(number)
            if peer_port is None:
                peer_port = dump.port(peer, number, lineno)
                for field in ("width", "speed", "mtu", "fec"):
                    dump.set(peer_port, field, port.get(field), lineno, weak=True)
                if peer_label and not peer_label.isdigit():
                    dump.set(peer_port, "label", peer_label, lineno, weak=True)
            if peer_lid:
                if peer_lid.lstrip("-").isdigit():
                    holder = peer if peer["type"] == "switch" else peer_port
                    value = dump.number(peer_lid, lineno, "neighbour LID", MAX_LID)
                    dump.set(holder, "lid", value, lineno, weak=True)
                else:
                    dump.problem(lineno, f"neighbour LID {peer_lid!r} is not a number")
            if peer["type"] != "switch" and peer_port.get("guid") is None:
                dump.set(peer_port, "guid", guid, lineno, weak=True)
            dump.connect(node, port, peer, peer_port)

    def peer_port(self, peer: Obj, label: str, cache: dict[str, dict[str, int]]) -> int | None:
        """The IB port number of the neighbour port labelled ``label``."""
        if peer["key"] not in self.dump.stubs:  # the neighbour's own block gives its labels
            table = cache.get(peer["key"])
            if table is None:
                table = cache[peer["key"]] = {
                    p["label"]: n for n, p in peer["ports"].items() if p.get("label")}
            if label in table:
                return table[label]
        if label.isdigit():
            number = int(label)
            return number if 0 < number <= MAX_PORT else None
        return 1 if peer["type"] != "switch" else None
