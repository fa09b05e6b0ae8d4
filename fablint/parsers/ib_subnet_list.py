"""InfiniBand subnet lists: OpenSM's ``opensm-subnet.lst`` and ibdiagnet's ``ibdiagnet2.lst``.

One line per cabled port, so each cable appears once from each end (OpenSM
``osm_dump.c:dump_topology_node``); shown here folded, a line holds both ends and the link::

    { SW Ports:24 SystemGUID:0002c90300688830 NodeGUID:0002c90300688830
      PortGUID:0002c90300688830 VenID:000002c9 DevID:c738 Rev:000000a1 {switch-1} LID:0002 PN:14 }
    { CA Ports:02 SystemGUID:… NodeGUID:… PortGUID:… VenID:… DevID:1003 Rev:00000000
      {gpu01 mlx5_0} LID:0005 PN:01 } PHY=4x LOG=ACT SPD=10

Numbers are hexadecimal: ``Ports:24`` is 36 ports, ``PN:14`` is port 20, ``LID:0002``. The type
is ``SW``, ``CA`` or ``Rt``, with ``-SM`` on the node that runs the master subnet manager.
``PHY`` is the active width, ``LOG`` the logical state (``ACT``, ``ARM``, ``INI``, ``DWN``) and
``SPD`` the per-lane rate rounded (``2.5``, ``5``, ``10``, ``14``, ``25``, ``50``, ``100``), or
``FDR10``; some releases leave ``SPD`` out. Variants seen in the wild (and accepted by ibutils'
``IBFabric::parseSubnetLine``): the description missing or without braces, 8-digit ``VenID``,
and an old ``DevID`` with a ``0000`` suffix (only its first four digits count).
"""

from __future__ import annotations

import re
from typing import ClassVar

from fablint.model import Vendor
from fablint.parsers.base import ParseError, ParseResult
from fablint.parsers.ibdump import (
    MAX_LID,
    MAX_LINE,
    MAX_PORT,
    IbDumpBuilder,
    Obj,
    check_text,
    unwrapped,
)
from fablint.units import ib_guid, ib_speed, ib_width

_END = (
    r"\{\s*(SW|CA|Rt|RT|\*\*)(-SM)?\s+Ports:([0-9A-Fa-f]+)\s+SystemGUID:([0-9A-Fa-f]+)\s+"
    r"NodeGUID:([0-9A-Fa-f]+)\s+PortGUID:([0-9A-Fa-f]+)\s+VenID:([0-9A-Fa-f]+)\s+"
    r"DevID:([0-9A-Fa-f]+)\s+Rev:([0-9A-Fa-f]+)\s*(?:\{(.*?)\}|([^{}]*?))\s*"
    r"LID:([0-9A-Fa-f]+)\s+PN:([0-9A-Fa-f]+)\s*\}"
)
_LINE = re.compile(rf"^\s*{_END}\s*{_END}\s*PHY=(\S+)\s+LOG=(\S+)(?:\s+SPD=(\S+))?\s*$")
_SNIFF = re.compile(r"(?m)^\s*\{\s*(?:SW|CA|Rt|RT)(?:-SM)?\s+Ports:[0-9A-Fa-f]+\s+SystemGUID:")
_TYPES = {"SW": "switch", "CA": "ca", "Rt": "router", "RT": "router"}
"""OpenSM writes a router ``Rt``; ibdiagnet's list may print the type upper-case (``RT``),
as it does ``SW`` and ``CA``: a router line must not be dropped for its case."""


def _whole(raw: str) -> bool:
    """A line as the tool ended it: a whole link (both ends and ``PHY=``...), or not a
    link line at all (left alone)."""
    return len(raw) > MAX_LINE or not raw.lstrip().startswith("{") or bool(_LINE.match(raw))


def _starts(raw: str) -> bool:
    """A line of its own, not the rest of a wrapped one: a link line begins with its first
    end's ``{`` (a wrap just before the second end's is taken for one: that line stays
    unread, and counted)."""
    return raw.lstrip().startswith(("{", "#"))


def _lines(text: str) -> list[tuple[int, str]]:
    """The lines with those a terminal copy wrapped joined again (``ibdump.unwrapped``)."""
    return unwrapped(text.split("\n"), _whole, _starts)
_STATES = {"ACT": "Active", "ARM": "Armed", "INI": "Initialize", "DWN": "Down"}
_FIELDS = 13
"""Groups of one ``{ … }`` end in ``_LINE``."""


class IbSubnetListParser:
    """``opensm-subnet.lst`` / ``ibdiagnet2.lst``."""

    name: ClassVar[str] = "ib-subnet-list"
    label: ClassVar[str] = "InfiniBand subnet list (opensm-subnet.lst, ibdiagnet2.lst)"
    vendor: ClassVar[Vendor] = "ib"

    def sniff(self, head: str) -> int:
        """Certain on one complete line; the start of one (``{ SW Ports:24 SystemGUID:``) on a
        line cut short is a strong hint."""
        for _, line in _lines(head):
            if line.lstrip().startswith("{") and _LINE.match(line):
                return 100
        return 60 if _SNIFF.search(head) else 0

    def parse(self, text: str, path: str) -> ParseResult:
        return _Reader(path).run(check_text(text, path))


class _Reader:
    def __init__(self, path: str) -> None:
        self.dump = IbDumpBuilder(path, "ib-subnet-list")
        self.identities: dict[tuple[object, ...], Obj] = {}
        """(node GUID, type, description, system GUID) -> node: a GUID seen with another
        identity is another node claiming the same GUID."""

    def run(self, text: str) -> ParseResult:
        lines = text.split("\n")  # not splitlines(): \v, \f, \x1c… must not shift line numbers
        for lineno, raw in _lines(text):
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            match = _LINE.match(raw)
            if match is None:
                self.dump.unknown(lineno)
                continue
            self.link(match.groups(), lineno)
        if not self.dump.nodes:
            raise ParseError(self.dump.path, 1, "no subnet list line "
                             "('{ SW Ports:… } { CA Ports:… } PHY=4x LOG=ACT SPD=…') found")
        return self.dump.result(max(len(lines), 1))

    def link(self, groups: tuple[str | None, ...], lineno: int) -> None:
        dump = self.dump
        width_text, state_text, speed_text = groups[2 * _FIELDS:]
        try:
            width = ib_width(width_text or "")
            speed = ib_speed(speed_text) if speed_text else None
        except ValueError as exc:
            dump.problem(lineno, str(exc))
            width = speed = None
        state = _STATES.get((state_text or "").upper())
        if state is None:
            dump.problem(lineno, f"unknown port state LOG={state_text}")
        ends = [self.end(groups[:_FIELDS], lineno), self.end(groups[_FIELDS:2 * _FIELDS], lineno)]
        if ends[0] is None or ends[1] is None:
            return
        (node, port), (peer, peer_port) = ends
        dump.move_src(port, lineno)
        for name, value in (("width", width), ("speed", speed), ("state", state)):
            dump.set(port, name, value, lineno)
            dump.set(peer_port, name, value, lineno, weak=True)
        dump.connect(node, port, peer, peer_port)

    def end(self, fields: tuple[str | None, ...], lineno: int) -> tuple[Obj, Obj] | None:
        """Node and port of one ``{ … }`` end."""
        kind, sm, ports, sys_guid, node_guid, port_guid, ven, dev, rev, desc, bare, lid, pn = \
            fields
        dump = self.dump
        if kind not in _TYPES:
            dump.problem(lineno, f"unknown node type {kind!r}")
            return None
        try:
            guid, system, port_g = ib_guid(node_guid or ""), ib_guid(sys_guid or ""), \
                ib_guid(port_guid or "")
        except ValueError as exc:
            dump.problem(lineno, str(exc))
            return None
        number = dump.number(pn, lineno, "port number", MAX_PORT, base=16)
        if number is None:
            return None
        node_type = _TYPES[kind]
        description = (desc if desc is not None else (bare or "")).strip() or None
        identity = (guid, node_type, description, system)
        node = self.identities.get(identity)
        if node is None:
            node = dump.add(f"0x{guid:016x}", node_type, lineno)
            self.identities[identity] = node
            dump.set(node, "guid", guid, lineno)
            dump.set(node, "system_guid", system, lineno)
            dump.set(node, "description", description, lineno)
            dump.set(node, "port_count", dump.number(ports, lineno, "port count", MAX_PORT,
                                                     base=16), lineno)
            dump.set(node, "vendor_id", dump.number(ven, lineno, "vendor id", 0xFFFFFFFF,
                                                    base=16), lineno)
            dev_text = (dev or "")[:4] if len(dev or "") == 8 else dev
            dump.set(node, "device_id", dump.number(dev_text, lineno, "device id", 0xFFFF,
                                                    base=16), lineno)
            dump.set(node, "revision", dump.number(rev, lineno, "revision", 0xFFFFFFFF,
                                                   base=16), lineno)
        if sm:
            dump.set(node, "master_sm", True, lineno)
        lid_value = dump.number(lid, lineno, "LID", MAX_LID, base=16)
        port = dump.port(node, number, lineno)
        if node_type == "switch":
            dump.set(node, "port_guid", port_g, lineno, weak=True)
            dump.set(node, "lid", lid_value, lineno, weak=True)
        else:
            dump.set(port, "guid", port_g, lineno, weak=True)
            dump.set(port, "lid", lid_value, lineno, weak=True)
        return node, port
