"""``ibdiagnet2.db_csv``: ibdiagnet's database of the fabric, one CSV table per section::

    START_NODES
    NodeDesc,NumPorts,NodeType,ClassVersion,BaseVersion,SystemImageGUID,NodeGUID,PortGUID,...
    "MF0;leaf07:MQM9700/U1",129,2,1,1,0xb8e9240300aa0100,0xb8e9240300aa0100,...
    END_NODES

Read: ``NODES`` (type 1 CA, 2 switch, 3 router; system image GUID, device and vendor id),
``PORTS`` (LID, states, active width and speed, supported widths and speeds, ``NMTU`` the active
MTU, ``MTUCap``, ``FECActv``), ``LINKS`` (``NodeGuid1,PortNum1,NodeGuid2,PortNum2``: the cables)
and ``PORT_HIERARCHY_INFO`` (port labels). Every other section (``PM_INFO``, ``CABLE_INFO``,
``SWITCHES`` …) is skipped whole. Columns are looked up by header name, case-insensitively: the
order and the casing (``NodeGUID``/``NodeGuid``) differ between ibdiagnet versions, and any
section may be missing (``--disable_output csv:…``). Without ``LINKS`` the file names no cable.
A ``START_X`` without its ``END_X`` is a truncated file: a problem at the ``START_X`` line.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from typing import ClassVar

from fablint.model import Vendor
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.ibdiag_codes import (
    FEC_CODES,
    NODE_TYPES,
    NOT_AVAILABLE,
    PHYS_STATES,
    PORT_STATES,
    SPEED_BITS,
    WIDTH_CODES,
    mtu_bytes,
    speeds,
    widths,
)
from fablint.parsers.ibdump import MAX_LID, MAX_LMC, MAX_PORT, IbDumpBuilder, Obj, check_text

_START = re.compile(r"^START_([A-Z0-9_]+)$")
_READ = frozenset({"NODES", "PORTS", "LINKS", "PORT_HIERARCHY_INFO"})
_KNOWN_SECTIONS = frozenset({"NODES", "PORTS", "LINKS", "SWITCHES", "PM_INFO", "NODES_INFO",
                             "CABLE_INFO", "EXTENDED_PORT_INFO", "PORT_HIERARCHY_INFO", "PKEY"})


class Row:
    """One CSV row, its cells looked up by the section's lower-case column names (a dict per
    row would cost more than reading the row)."""

    __slots__ = ("cells", "columns")

    def __init__(self, columns: dict[str, int], cells: list[str]) -> None:
        self.columns = columns
        self.cells = cells

    def get(self, name: str) -> str | None:
        index = self.columns.get(name)
        return None if index is None else self.cells[index]

    def __contains__(self, name: str) -> bool:
        return name in self.columns


def _cells(line: str) -> list[str]:
    """One CSV line; plain ``split`` when nothing is quoted (every PORTS row), the csv module
    line by line otherwise (a quote left open must not swallow the next rows)."""
    if '"' not in line:
        return line.split(",")
    try:
        return next(csv.reader([line]), [])
    except csv.Error:  # a stray carriage return or NUL inside the row: not a row then
        return []


class IbdiagDbCsvParser:
    """``ibdiagnet2.db_csv``."""

    name: ClassVar[str] = "ibdiagnet-db-csv"
    label: ClassVar[str] = "InfiniBand ibdiagnet2.db_csv"
    vendor: ClassVar[Vendor] = "ib"

    def sniff(self, head: str) -> int:
        """Certain on ``START_<section>`` of a section ibdiagnet writes followed by a CSV header
        row; a ``START_…``/``END_…`` pair of another name is a fair hint."""
        lines = head.splitlines()
        for index, line in enumerate(lines):
            match = _START.match(line.strip())
            if match is None:
                continue
            following = lines[index + 1].strip() if index + 1 < len(lines) else ""
            if match.group(1) in _KNOWN_SECTIONS and "," in following:
                return 100
            if f"END_{match.group(1)}" in head:
                return 50
        return 0

    def parse(self, text: str, path: str) -> ParseResult:
        return _Reader(path).run(check_text(text, path))


class _Reader:
    def __init__(self, path: str) -> None:
        self.dump = IbDumpBuilder(path, "ibdiagnet-db-csv")
        self.sections: dict[str, list[tuple[int, Row]]] = {}
        self.starts: dict[str, int] = {}
        self.truncated = False
        """Section name -> the line of its ``START_`` marker."""

    def run(self, text: str) -> ParseResult:
        lines = text.split("\n")  # not splitlines(): \v, \f, \x1c… must not shift line numbers
        self.split(lines)
        if not self.sections.get("NODES") and not self.sections.get("PORTS"):
            raise ParseError(self.dump.path, 1, "no db_csv NODES or PORTS section "
                             "('START_NODES' … 'END_NODES') found")
        self.nodes()
        self.ports()
        self.labels()
        self.links()
        if "LINKS" not in self.starts and not self.truncated and any(
                port.get("state") == "Active" for node in self.dump.nodes.values()
                for port in node["ports"].values()):
            self.dump.problem(
                self.starts.get("PORTS", self.starts.get("NODES", 1)),
                "no LINKS section: the file shows active ports but not the cables between "
                "them; read the ibdiagnet2.net_dump or ibdiagnet2.lst of the same run for those")
        return self.dump.result(max(len(lines), 1))

    # -- sections ---------------------------------------------------------------------------

    def split(self, lines: list[str]) -> None:
        """Sections into rows (dicts keyed by lower-case column name) with their line."""
        dump = self.dump
        index, total = 0, len(lines)
        while index < total:
            line = lines[index].strip()
            index += 1
            if not line or line.startswith("#"):
                continue
            match = _START.match(line)
            if match is None:
                dump.unknown(index)
                continue
            name, start = match.group(1), index
            self.starts.setdefault(name, start)
            end = f"END_{name}"
            body_start = index
            while index < total:
                body = lines[index].strip()
                if body == end or (body[:6] == "START_" and _START.match(body)):
                    break
                index += 1
            closed = index < total and lines[index].strip() == end
            if not closed:
                self.truncated = True
                dump.problem(start, f"section {name} has no END_{name}: the file is truncated")
            if name in _READ:
                self.sections[name] = list(self.rows(lines, body_start, index))
            if closed:
                index += 1

    def rows(self, lines: list[str], first: int, stop: int) -> Iterator[tuple[int, Row]]:
        """The rows of a section body ``lines[first:stop]``: the first non-empty line is the
        header; a row with another number of fields is not understood."""
        numbered = [(n + 1, lines[n].rstrip("\r")) for n in range(first, stop)
                    if lines[n].strip()]
        if not numbered:
            return
        header = numbered[0][1]
        names = [c.strip().lower() for c in _cells(header)]
        columns = {name: i for i, name in reversed(list(enumerate(names)))}
        width = len(names)
        for lineno, text in numbered[1:]:
            cells = _cells(text)
            if len(cells) != width:
                self.dump.unknown(lineno)
                continue
            yield lineno, Row(columns, cells)

    # -- values -----------------------------------------------------------------------------

    def integer(self, row: Row, name: str, lineno: int, hi: int | None = None) -> int | None:
        """A column as an integer (decimal or ``0x`` hexadecimal); None when absent or N/A."""
        text = row.get(name)
        if text is None:
            return None
        if text.isdigit():
            value = int(text)
            if hi is not None and value > hi:
                self.dump.problem(lineno, f"{name} {value} is out of range (0-{hi})")
                return None
            return value
        if text.strip().upper() in NOT_AVAILABLE:
            return None
        try:
            value = int(text.strip(), 0)
        except ValueError:
            try:
                value = int(text.strip(), 16)  # unprefixed GUIDs
            except ValueError:
                self.dump.problem(lineno, f"{name} {text!r} is not a number")
                return None
        if value < 0 or (hi is not None and value > hi):
            if hi is not None:
                self.dump.problem(lineno, f"{name} {value} is out of range (0-{hi})")
            return None
        return value

    def guid(self, row: Row, *names: str, lineno: int) -> int | None:
        for name in names:
            if name in row:
                return self.integer(row, name, lineno, 0xFFFF_FFFF_FFFF_FFFF)
        return None

    # -- tables -----------------------------------------------------------------------------

    def nodes(self) -> None:
        dump = self.dump
        for lineno, row in self.sections.get("NODES", ()):
            guid = self.guid(row, "nodeguid", lineno=lineno)
            code = self.integer(row, "nodetype", lineno)
            if guid is None:
                dump.unknown(lineno)
                continue
            node_type = NODE_TYPES.get(code or 0)
            if node_type is None:
                dump.problem(lineno, f"unknown node type {row.get('nodetype')!r}")
                continue
            desc = (row.get("nodedesc") or "").strip('"') or None
            key = f"0x{guid:016x}"
            node = dump.nodes.get(key)
            if node is not None and key not in dump.stubs and \
                    node.get("description") == desc and node["type"] == node_type:
                continue  # the same node, read through another of its ports
            node = dump.claim(key, node_type, lineno)
            dump.set(node, "guid", guid, lineno)
            dump.set(node, "description", desc, lineno)
            dump.set(node, "system_guid", self.guid(row, "systemimageguid", lineno=lineno),
                     lineno)
            dump.set(node, "port_count", self.integer(row, "numports", lineno, MAX_PORT), lineno)
            dump.set(node, "device_id", self.integer(row, "deviceid", lineno, 0xFFFFFF), lineno)
            dump.set(node, "vendor_id", self.integer(row, "vendorid", lineno, 0xFFFFFF), lineno)
            dump.set(node, "revision", self.integer(row, "revision", lineno), lineno)
            if node_type == "switch":
                dump.set(node, "port_guid", self.guid(row, "portguid", lineno=lineno), lineno)

    def node_for(self, guid: int, lineno: int) -> Obj:
        """The node a PORTS/LINKS row names; one that NODES does not list is made a stub."""
        key = f"0x{guid:016x}"
        node = self.dump.nodes.get(key)
        if node is None:
            node = self.dump.ensure(key, "ca", lineno)
            self.dump.set(node, "guid", guid, lineno)
        return node

    def ports(self) -> None:
        dump = self.dump
        for lineno, row in self.sections.get("PORTS", ()):
            guid = self.guid(row, "nodeguid", lineno=lineno)
            number = self.integer(row, "portnum", lineno, MAX_PORT)
            if guid is None or number is None:
                dump.unknown(lineno)
                continue
            node = self.node_for(guid, lineno)
            lid = self.integer(row, "lid", lineno, MAX_LID)
            if node["type"] == "switch":
                dump.set(node, "lid", lid, lineno, weak=True)
                dump.set(node, "port_guid", self.guid(row, "portguid", lineno=lineno), lineno,
                         weak=True)
                if number == 0:
                    dump.set(node, "lmc", self.integer(row, "lmc", lineno, MAX_LMC), lineno)
                    continue  # port 0 is the switch's management port, not a cable port
            if number in node["ports"] and node["ports"][number]["src"].line != lineno:
                dump.problem(lineno, f"port {number} is listed twice")
                continue
            port = dump.port(node, number, lineno)
            dump.move_src(port, lineno)
            if node["type"] != "switch":
                dump.set(port, "guid", self.guid(row, "portguid", lineno=lineno), lineno)
                dump.set(port, "lid", lid, lineno)
                dump.set(port, "lmc", self.integer(row, "lmc", lineno, MAX_LMC), lineno)
            self.port_values(port, row, lineno)

    def port_values(self, port: Obj, row: Row, lineno: int) -> None:
        dump = self.dump
        for column, field, table in (("portstate", "state", PORT_STATES),
                                     ("portphystate", "phys_state", PHYS_STATES),
                                     ("linkwidthactv", "width", WIDTH_CODES),
                                     ("linkspeedactv", "speed", SPEED_BITS)):
            code = self.integer(row, column, lineno)
            if code:
                dump.set(port, field, table.get(code), lineno)
        for column, field in (("nmtu", "mtu"), ("mtucap", "mtu_cap")):
            code = self.integer(row, column, lineno)
            if code:
                dump.set(port, field, mtu_bytes(code), lineno)
        fec = self.integer(row, "fecactv", lineno)
        if fec is not None:
            dump.set(port, "fec", FEC_CODES.get(fec), lineno)
        mask = self.integer(row, "linkwidthsup", lineno)
        if mask:
            dump.set(port, "supported_widths", widths(mask) or None, lineno)
        mask = self.integer(row, "linkspeedsup", lineno)
        if mask:
            dump.set(port, "supported_speeds", speeds(mask) or None, lineno)

    def labels(self) -> None:
        dump = self.dump
        for lineno, row in self.sections.get("PORT_HIERARCHY_INFO", ()):
            guid = self.guid(row, "nodeguid", lineno=lineno)
            number = self.integer(row, "portnum", lineno, MAX_PORT)
            label = (row.get("label") or "").strip().strip('"')
            if guid is None or number is None:
                dump.unknown(lineno)
                continue
            node = dump.nodes.get(f"0x{guid:016x}")
            port = node["ports"].get(number) if node else None
            if port is not None and label and label.upper() not in NOT_AVAILABLE:
                dump.set(port, "label", label, lineno)

    def links(self) -> None:
        dump = self.dump
        for lineno, row in self.sections.get("LINKS", ()):
            guid1 = self.guid(row, "nodeguid1", lineno=lineno)
            guid2 = self.guid(row, "nodeguid2", lineno=lineno)
            port1 = self.integer(row, "portnum1", lineno, MAX_PORT)
            port2 = self.integer(row, "portnum2", lineno, MAX_PORT)
            if None in (guid1, guid2, port1, port2):
                dump.unknown(lineno)
                continue
            assert guid1 is not None and guid2 is not None
            assert port1 is not None and port2 is not None
            node1, node2 = self.node_for(guid1, lineno), self.node_for(guid2, lineno)
            end1 = dump.port(node1, port1, lineno)
            end2 = dump.port(node2, port2, lineno)
            dump.connect(node1, end1, node2, end2)
